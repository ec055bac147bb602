// prefix_filter.hpp
//   The exact candidates of grouping (grouping.cpp) and pairing (pairs.cpp)
//   at low thresholds, by prefix filtering (AllPairs, PPJoin): a signature
//   of n values is the set of its n tokens (position, value), and two
//   signatures agree on at least o = n - D positions (D =
//   mh_max_disagreements) exactly when they share at least o tokens.  Fix
//   one total order on tokens, the same for every row; a row's prefix is its
//   first D + 1 tokens in that order.  The first token two such rows share
//   has at least o - 1 shared tokens after it, so it lies among the first
//   n - o + 1 = D + 1 of each: it is in both prefixes.  So the rows sharing
//   a prefix token, one bucket a token, are candidates that miss no pair at
//   the threshold, like the D + 1 bands of the pigeonhole layout.
//
//   Why: at low thresholds those bands hold one or two values, and values
//   that boilerplate puts in many rows make buckets of thousands of rows.
//   Ordered rarest first, a row's prefix holds its rarest tokens: a
//   frequent token is in few prefixes, and a token in one row only is in no
//   bucket.  The order is (frequency class, position, value), the frequency
//   counted over the call's non-empty rows; correctness needs only that the
//   order is one function of the token.  Bands of several values are more
//   selective than any token, so at higher thresholds the bands stay
//   (prefix_filter_applies).
//
//   What it holds: per row only the heads of its buckets of two or more
//   rows (CSR), and the buckets as length then rows, ascending, the form
//   take_from_bucket (greedy_bucket.hpp) walks.  Every array is charged to
//   the budget before it is allocated; prefix_filter_plan bounds the most it
//   holds at once, with the caller's array of one uint32_t a row.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "budget.hpp"
#include "poller.hpp"

namespace minhash
{

namespace prefix_detail
{

// Positions gathered per pass over the signatures: a pass reads a row's
// values of a block at once, not one position at a time across all rows.
constexpr uint32_t kMaxBlock = 16;

// A token of one position: its value and the row's number among the
// non-empty rows.
struct Token
{
	uint32_t value;
	uint32_t index;
};

// Sorts tokens[0 .. count) by value, stably, so that indexes stay ascending
// within a value (least significant digit first, 11 bits a pass); spare
// has room for count.  The sorted tokens end in spare.
inline void sort_tokens(Token *tokens, Token *spare, size_t count, Poller &poller)
{
	constexpr uint32_t kBits = 11, kBins = 1u << kBits, kMask = kBins - 1;
	static uint32_t const kShift[3] = {0, kBits, 2 * kBits};
	uint32_t histogram[3][kBins];
	std::memset(histogram, 0, sizeof(histogram));
	for (size_t i = 0; i < count; i++)
	{
		const uint32_t v = tokens[i].value;
		histogram[0][v & kMask]++;
		histogram[1][(v >> kBits) & kMask]++;
		histogram[2][v >> (2 * kBits)]++;
	}
	poller.tick(count);
	Token *from = tokens, *to = spare;
	for (uint32_t pass = 0; pass < 3; pass++)
	{
		uint32_t start = 0;
		for (uint32_t bin = 0; bin < kBins; bin++)
		{
			const uint32_t n = histogram[pass][bin];
			histogram[pass][bin] = start;
			start += n;
		}
		const uint32_t shift = kShift[pass];
		for (size_t i = 0; i < count; i++)
		{
			poller.tick();
			to[histogram[pass][(from[i].value >> shift) & kMask]++] = from[i];
		}
		std::swap(from, to);
	}
	// Three passes: the result is in spare.
}

// A token's frequency among the rows, in a byte, in the order of the
// frequency: exact below 128 (1: the token of one row only), then four
// classes for each power of two.
inline uint8_t frequency_class(uint32_t frequency)
{
	if (frequency < 128) return static_cast<uint8_t>(frequency);
	uint32_t top = 31;
	while ((frequency >> top) == 0) top--;
	return static_cast<uint8_t>(128 + (top - 7) * 4 + ((frequency >> (top - 2)) & 3));
}

// Whether a token is in the row's prefix and in some other row (frequency
// class 2 or more): only those can make a bucket of two.
constexpr uint8_t kShared = 1;

// The positions a pass reads: the most, at most kMaxBlock, whose arrays
// keep the whole within the band layout's bound (see prefix_filter_bytes).
struct Plan
{
	uint32_t block;
	uint64_t bytes;
};

// The bytes held while the classes are counted: the rows' numbers, the
// classes, a block of values and of classes, two token arrays.
inline uint64_t counting_bytes(uint64_t count, uint64_t n, uint64_t block)
{
	return 4 * count + count * n + 5 * block * count + 2 * sizeof(Token) * count;
}

// The most bytes held at once for count rows of n values with D + 1 = prefix
// tokens each, with a block of `block` positions: while the classes are
// counted, while the buckets are made (the classes, a
// block of tokens, a token array, the buckets at most 1.5 entries a
// membership, a count a row), and while the buckets are walked (the
// buckets, the CSR, the caller's uint32_t a row).
inline uint64_t plan_bytes(uint64_t count, uint64_t n, uint64_t prefix, uint64_t block)
{
	const uint64_t index = 4 * count, classes = count * n, tokens = sizeof(Token) * count;
	const uint64_t memberships = count * prefix, buckets = 4 * (memberships + memberships / 2);
	const uint64_t rows_csr = 4 * (count + 1);
	const uint64_t counting = counting_bytes(count, n, block);
	const uint64_t bucketing = index + classes + block * tokens + tokens + buckets + rows_csr;
	const uint64_t walking = buckets + rows_csr + 4 * memberships + 4 * count;
	return std::max(counting, std::max(bucketing, walking));
}

} // namespace prefix_detail

// Whether prefix filtering replaces the pigeonhole bands (D + 1 bands of
// n / (D + 1) values) for count rows of n values: when those bands hold at
// most kPrefixMaxBandValues values (bands of more are more selective than
// one token; measured on realistic text), and the buckets' entries are
// numbered in 32 bits.
constexpr uint32_t kPrefixMaxBandValues = 2;

inline bool prefix_filter_applies(uint32_t count, uint32_t num_perm, uint32_t max_disagreements)
{
	const uint64_t prefix = static_cast<uint64_t>(max_disagreements) + 1;
	if (max_disagreements >= num_perm || num_perm / prefix > kPrefixMaxBandValues) return false;
	return uint64_t{count} * prefix + uint64_t{count} * prefix / 2 < UINT32_MAX;
}

// The positions a pass reads, the most (at most kMaxBlock) that keep the
// bytes the filter holds, with the caller's uint32_t a row, within limit;
// bytes is that most, which may pass limit with a block of one.
inline prefix_detail::Plan prefix_filter_plan(uint32_t count, uint32_t num_perm,
                                              uint32_t max_disagreements, uint64_t limit)
{
	const uint64_t prefix = static_cast<uint64_t>(max_disagreements) + 1;
	uint32_t block = std::min(prefix_detail::kMaxBlock, num_perm);
	while (block > 1 && prefix_detail::plan_bytes(count, num_perm, prefix, block) > limit)
		block /= 2;
	return {block, prefix_detail::plan_bytes(count, num_perm, prefix, block)};
}

// The bytes the filter holds before its first bucket, at the least: below
// them it cannot run.
inline uint64_t prefix_filter_least_bytes(uint32_t count, uint32_t num_perm)
{
	return prefix_detail::counting_bytes(count, num_perm, 1);
}

class PrefixBuckets
{
public:
	PrefixBuckets(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
	              uint32_t num_perm, uint32_t max_disagreements, uint32_t block, Budget &budget,
	              Poller &poller)
	    : members_(BudgetAllocator<uint32_t>(budget)), starts_(BudgetAllocator<uint32_t>(budget)),
	      heads_(BudgetAllocator<uint32_t>(budget))
	{
		make_buckets(signatures, empty, count, num_perm, max_disagreements, block, budget, poller);
		index_rows(count, poller);
	}

	// Row's buckets: heads_begin(row) .. heads_end(row) are offsets for bucket().
	const uint32_t *heads_begin(uint32_t row) const { return heads_.data() + starts_[row]; }
	const uint32_t *heads_end(uint32_t row) const { return heads_.data() + starts_[row + 1]; }
	// bucket[0] its length, bucket[1 ..] its rows, ascending.
	uint32_t *bucket(uint32_t head) { return members_.data() + head; }

private:
	using Token = prefix_detail::Token;

	// The buckets into members_, and into starts_[row] how many hold row.
	void make_buckets(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
	                  uint32_t n, uint32_t max_disagreements, uint32_t block, Budget &budget,
	                  Poller &poller)
	{
		BudgetVector<uint32_t> rows{BudgetAllocator<uint32_t>(budget)};
		uint32_t kept = 0;
		for (uint32_t i = 0; i < count; i++) kept += empty[i] == 0;
		rows.resize(kept);
		for (uint32_t i = 0, k = 0; i < count; i++)
			if (empty[i] == 0) rows[k++] = i;
		poller.tick(count);

		BudgetVector<uint8_t> classes{BudgetAllocator<uint8_t>(budget)};
		classes.resize(static_cast<size_t>(kept) * n);
		count_classes(signatures, rows, n, block, classes, budget, poller);
		const uint64_t shared = mark_prefixes(classes, kept, n, max_disagreements + 1, poller);

		members_.reserve(shared + shared / 2);
		starts_.assign(static_cast<size_t>(count) + 1, 0);
		bucket_tokens(signatures, rows, n, block, classes, budget, poller);
	}

	// classes[i * n + p]: the frequency class of row i's token at p.
	static void count_classes(const uint32_t *const *signatures, const BudgetVector<uint32_t> &rows,
	                          uint32_t n, uint32_t block, BudgetVector<uint8_t> &classes,
	                          Budget &budget, Poller &poller)
	{
		const size_t kept = rows.size();
		BudgetVector<uint32_t> values{BudgetAllocator<uint32_t>(budget)};
		values.resize(kept * block);
		BudgetVector<uint8_t> block_classes{BudgetAllocator<uint8_t>(budget)};
		block_classes.resize(kept * block);
		BudgetVector<Token> tokens{BudgetAllocator<Token>(budget)};
		tokens.resize(kept);
		BudgetVector<Token> spare{BudgetAllocator<Token>(budget)};
		spare.resize(kept);
		for (uint32_t first = 0; first < n; first += block)
		{
			const uint32_t width = std::min(block, n - first);
			for (size_t i = 0; i < kept; i++)
			{
				poller.tick();
				const uint32_t *signature = signatures[rows[i]] + first;
				for (uint32_t b = 0; b < width; b++) values[b * kept + i] = signature[b];
			}
			for (uint32_t b = 0; b < width; b++)
			{
				for (size_t i = 0; i < kept; i++)
					tokens[i] = Token{values[b * kept + i], static_cast<uint32_t>(i)};
				poller.tick(kept);
				prefix_detail::sort_tokens(tokens.data(), spare.data(), kept, poller);
				uint8_t *column = block_classes.data() + b * kept;
				for (size_t start = 0, end; start < kept; start = end)
				{
					end = start + 1;
					while (end < kept && spare[end].value == spare[start].value) end++;
					const uint8_t frequency = prefix_detail::frequency_class(
					    static_cast<uint32_t>(end - start));
					for (size_t k = start; k < end; k++) column[spare[k].index] = frequency;
					poller.tick(end - start);
				}
			}
			for (size_t i = 0; i < kept; i++)
			{
				poller.tick();
				uint8_t *row_classes = classes.data() + i * n + first;
				for (uint32_t b = 0; b < width; b++) row_classes[b] = block_classes[b * kept + i];
			}
		}
	}

	// Each row's prefix, its `prefix` first tokens by (class, position):
	// classes[i * n + p] becomes kShared for a prefix token in other rows
	// too, else 0.  Returns how many are kShared.
	static uint64_t mark_prefixes(BudgetVector<uint8_t> &classes, size_t kept, uint32_t n,
	                              uint32_t prefix, Poller &poller)
	{
		uint64_t shared = 0;
		for (size_t i = 0; i < kept; i++)
		{
			poller.tick(n);
			uint8_t *row_classes = classes.data() + i * n;
			uint32_t histogram[256] = {};
			for (uint32_t p = 0; p < n; p++) histogram[row_classes[p]]++;
			// The class where the prefix ends, and how many of its tokens
			// (the first by position) it takes.
			uint32_t last = 0, below = 0;
			while (below + histogram[last] < prefix)
			{
				below += histogram[last];
				last++;
			}
			uint32_t take = prefix - below;
			for (uint32_t p = 0; p < n; p++)
			{
				const uint8_t c = row_classes[p];
				bool in_prefix = c < last;
				if (c == last && take > 0)
				{
					in_prefix = true;
					take--;
				}
				row_classes[p] = in_prefix && c >= 2 ? prefix_detail::kShared : 0;
				shared += row_classes[p];
			}
		}
		return shared;
	}

	// For each position, the rows whose prefix holds the same shared token,
	// two or more, as one bucket: members_ gets its length and rows.
	void bucket_tokens(const uint32_t *const *signatures, const BudgetVector<uint32_t> &rows,
	                   uint32_t n, uint32_t block, const BudgetVector<uint8_t> &classes,
	                   Budget &budget, Poller &poller)
	{
		const size_t kept = rows.size();
		// Per block, the shared prefix tokens of each position, one run a
		// position, indexes ascending (rows read in order).
		BudgetVector<Token> block_tokens{BudgetAllocator<Token>(budget)};
		block_tokens.resize(kept * block);
		BudgetVector<Token> spare{BudgetAllocator<Token>(budget)};
		spare.resize(kept);
		uint32_t ends[prefix_detail::kMaxBlock];
		for (uint32_t first = 0; first < n; first += block)
		{
			const uint32_t width = std::min(block, n - first);
			for (uint32_t b = 0; b < width; b++) ends[b] = static_cast<uint32_t>(b * kept);
			for (size_t i = 0; i < kept; i++)
			{
				poller.tick();
				const uint8_t *row_classes = classes.data() + i * n + first;
				const uint32_t *signature = signatures[rows[i]] + first;
				for (uint32_t b = 0; b < width; b++)
					if (row_classes[b] == prefix_detail::kShared)
						block_tokens[ends[b]++] = Token{signature[b], static_cast<uint32_t>(i)};
			}
			for (uint32_t b = 0; b < width; b++)
			{
				const size_t size = ends[b] - b * kept;
				prefix_detail::sort_tokens(block_tokens.data() + b * kept, spare.data(), size,
				                           poller);
				for (size_t start = 0, end; start < size; start = end)
				{
					end = start + 1;
					while (end < size && spare[end].value == spare[start].value) end++;
					poller.tick(end - start);
					if (end - start < 2) continue;
					members_.push_back(static_cast<uint32_t>(end - start));
					for (size_t k = start; k < end; k++)
					{
						const uint32_t row = rows[spare[k].index];
						members_.push_back(row);
						starts_[row]++;
					}
				}
			}
		}
	}

	// starts_ and heads_ from the counts: heads_[starts_[row] ..
	// starts_[row + 1]) the heads of row's buckets.
	void index_rows(uint32_t count, Poller &poller)
	{
		uint32_t total = 0;
		for (uint32_t row = 0; row < count; row++)
		{
			total += starts_[row];
			starts_[row] = total; // the end of row's heads, for now
		}
		starts_[count] = total;
		poller.tick(count);
		heads_.resize(total);
		// Filled backwards from each end, so starts_[row] ends at its start.
		for (size_t head = 0; head < members_.size(); head += 1 + members_[head])
		{
			const uint32_t length = members_[head];
			poller.tick(length);
			for (uint32_t k = 1; k <= length; k++)
				heads_[--starts_[members_[head + k]]] = static_cast<uint32_t>(head);
		}
	}

	BudgetVector<uint32_t> members_;
	BudgetVector<uint32_t> starts_;
	BudgetVector<uint32_t> heads_;
};

} // namespace minhash
