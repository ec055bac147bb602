// pairs.cpp
//   The engine of near_dupe_pairs(): every pair of signatures held in memory
//   whose resemblance reaches the threshold, among the pairs that agree on
//   all values of some LSH band (seed 001, section 5).  With the pigeonhole
//   layout with no spare bands (mh_pigeonhole_layout), a pair at the
//   threshold disagrees on at most D positions and there are D + 1 bands, so
//   some band agrees in full: every pair is found, the result is that of
//   comparing every pair.  Where those bands would hold one or two values,
//   the rows sharing a prefix token (prefix_filter.hpp) are compared
//   instead: the same pairs, far fewer candidates on text with
//   boilerplate.  With the recall layout (mh_recall_layout), a pair is
//   found with the probability of its S-curve.
//
//   For each band the rows are sorted by (band key, row) (band_sort.hpp);
//   each run of one key is a bucket, and each pair of a bucket is looked at
//   there.  A pair
//   is verified at the first band that agrees in full, and only there: at a
//   later band it agrees on an earlier band in full and is skipped, at a
//   band whose key it shares by chance (a collision of 64-bit keys) it does
//   not agree in full and is skipped too.  So no pair is compared twice and
//   none is returned twice, without a set of the pairs seen.
//
//   Why in memory and not SQL: one loop that polls for interrupts every few
//   milliseconds, even inside a bucket of thousands of rows, writes nothing
//   to disk, and never builds the candidates as rows.  What it holds, the
//   band sort and the pairs, is charged to the caller's grant before it is
//   allocated (budget.hpp).
#include <algorithm>
#include <cstring>
#include <utility>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "band_sort.hpp"
#include "boundary.hpp"
#include "budget.hpp"
#include "large_allocator.hpp"
#include "minhash_core.h"
#include "poller.hpp"
#include "prefix_filter.hpp"

namespace
{

using minhash::Budget;
using minhash::Poller;

// The pairs found, in one array that doubles as it fills, charged to the
// budget (the old and the new array while it grows by copying).  Its memory
// goes to the caller on success (release), else it is freed.
class PairBuffer
{
public:
	explicit PairBuffer(Budget &budget) : budget_(budget) {}
	PairBuffer(const PairBuffer &) = delete;
	PairBuffer &operator=(const PairBuffer &) = delete;
	~PairBuffer() { clear(); }

	void push(uint32_t a, uint32_t b, uint32_t agreeing)
	{
		if (size_ == capacity_) grow();
		data_[size_++] = MhPair{a, b, agreeing};
	}
	// Forget the pairs found, and give their room back.
	void clear()
	{
		if (data_ != nullptr)
		{
			minhash::free_large(data_, capacity_ * sizeof(MhPair));
			budget_.refund(capacity_ * sizeof(MhPair));
		}
		data_ = nullptr;
		capacity_ = 0;
		size_ = 0;
	}
	MhPair *begin() { return data_; }
	MhPair *end() { return data_ + size_; }
	uint64_t size() const { return size_; }
	uint64_t bytes() const { return capacity_ * sizeof(MhPair); }
	// The array, handed to the caller: no longer charged here.
	MhPair *release()
	{
		MhPair *data = data_;
		budget_.refund(capacity_ * sizeof(MhPair));
		data_ = nullptr;
		return data;
	}

private:
	// Twice the room (at least 4096 pairs), or, when the budget does not
	// allow that, whatever room it still allows.
	void grow()
	{
		const size_t old_bytes = capacity_ * sizeof(MhPair);
		uint64_t wanted = capacity_ < 4096 ? 4096 : capacity_ * 2;
		uint64_t added_bytes = 0;
		bool copy = true;
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
		// Both in mappings of their own: the kernel moves the pages, no copy,
		// so only the added room is charged.
		// Not a file's region: growing it in place would map the next range.
		copy = old_bytes < minhash::kLargeArrayBytes || minhash::spill_active();
#endif
		for (;; wanted = capacity_ + (wanted - capacity_) / 2)
		{
			if (wanted <= capacity_) throw minhash::OverBudget{budget_.held() + sizeof(MhPair)};
			added_bytes = wanted * sizeof(MhPair) - (copy ? 0 : old_bytes);
			if (added_bytes <= budget_.room()) break;
		}
		const size_t new_bytes = wanted * sizeof(MhPair);
		budget_.charge(added_bytes);
		void *grown = nullptr;
		if (!copy)
		{
#if defined(__linux__) && defined(MREMAP_MAYMOVE)
			grown = mremap(data_, old_bytes, new_bytes, MREMAP_MAYMOVE);
			if (grown == MAP_FAILED)
			{
				budget_.refund(added_bytes);
				throw std::bad_alloc();
			}
			(void) madvise(grown, new_bytes, MADV_HUGEPAGE);
#endif
		}
		else
		{
			grown = minhash::allocate_large_or_null(new_bytes);
			if (grown == nullptr)
			{
				budget_.refund(added_bytes);
				throw std::bad_alloc();
			}
			if (size_ > 0) std::memcpy(grown, data_, size_ * sizeof(MhPair));
			if (data_ != nullptr)
			{
				minhash::free_large(data_, old_bytes);
				budget_.refund(old_bytes);
			}
		}
		data_ = static_cast<MhPair *>(grown);
		capacity_ = wanted;
	}

	Budget &budget_;
	MhPair *data_ = nullptr;
	uint64_t capacity_ = 0;
	uint64_t size_ = 0;
};

constexpr uint32_t kSkip = UINT32_MAX;

// Whether two rows agree on all `rows` values from `first` on.
inline bool band_agrees(const uint32_t *a, const uint32_t *b, uint32_t first, uint32_t rows)
{
	for (uint32_t k = first; k < first + rows; k++)
		if (a[k] != b[k]) return false;
	return true;
}

// Positions on which a and b disagree, counted in blocks so that the
// compiler vectorizes each block; stops once more than max_disagreements.
inline uint32_t disagreements_up_to(const uint32_t *a, const uint32_t *b, uint32_t num_perm,
                                    uint32_t max_disagreements)
{
	constexpr uint32_t kBlock = 32;
	uint32_t disagreeing = 0;
	uint32_t i = 0;
	for (; i + kBlock <= num_perm; i += kBlock)
	{
		uint32_t block = 0;
		for (uint32_t k = 0; k < kBlock; k++) block += a[i + k] != b[i + k];
		disagreeing += block;
		if (disagreeing > max_disagreements) return disagreeing;
	}
	for (; i < num_perm; i++) disagreeing += a[i] != b[i];
	return disagreeing;
}

struct Search
{
	const uint32_t *const *signatures;
	const uint8_t *empty;
	uint32_t num_perm;
	double threshold;
	uint32_t rows;
	uint32_t max_disagreements; // at the threshold (mh_max_disagreements)
};

// The agreeing positions of rows i and j met in a bucket of `band`, to
// report (their resemblance times num_perm), or kSkip: the pair is another
// band's to look at (an earlier band agrees in full, or this one does not),
// or it is below the threshold.  Empty sets are in no bucket (BandSort).
uint32_t look_at(const Search &search, uint32_t i, uint32_t j, uint32_t band)
{
	const uint32_t *a = search.signatures[i];
	const uint32_t *b = search.signatures[j];
	const uint32_t rows = search.rows;
	for (uint32_t earlier = 0; earlier < band; earlier++)
		if (band_agrees(a, b, earlier * rows, rows)) return kSkip;
	if (!band_agrees(a, b, band * rows, rows)) return kSkip;
	const uint32_t disagreeing =
	    disagreements_up_to(a, b, search.num_perm, search.max_disagreements);
	// (num_perm - disagreeing) / num_perm >= threshold, the test of %, as
	// mh_max_disagreements computes it.
	return disagreeing <= search.max_disagreements ? search.num_perm - disagreeing : kSkip;
}

void find_pairs(const Search &search, uint32_t count, uint32_t bands, Budget &budget,
                Poller &poller, PairBuffer &found)
{
	minhash::BandSort sorted(search.signatures, search.empty, count, search.rows, budget, poller);
	for (uint32_t band = 0; band < bands; band++)
	{
		sorted.sort(band);
		sorted.for_each_bucket([&](const auto *first, const auto *last) {
			for (const auto *x = first; x + 1 < last; x++)
				for (const auto *y = x + 1; y < last; y++)
				{
					poller.tick();
					const uint32_t agreeing = look_at(search, x->second, y->second, band);
					if (agreeing != kSkip) found.push(x->second, y->second, agreeing);
				}
		});
	}
}

// Four bits of each value, 16 values a word: positions whose nibbles differ
// hold different values, so a pair whose nibbles differ at more than D
// positions is below the threshold.  Most candidates sharing a prefix token
// are ruled out so, reading one word array of a row (64 bytes for 128
// values) instead of its values.  Unused nibbles of the last word are 0 in
// every row.
class NibbleSketch
{
public:
	NibbleSketch(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
	             uint32_t num_perm, Budget &budget, Poller &poller)
	    : words_((num_perm + 15) / 16), sketch_(minhash::BudgetAllocator<uint64_t>(budget))
	{
		sketch_.resize(static_cast<size_t>(count) * words_);
		for (uint32_t row = 0; row < count; row++)
		{
			poller.tick();
			if (empty[row] != 0) continue;
			uint64_t *words = sketch_.data() + static_cast<size_t>(row) * words_;
			for (uint32_t p = 0; p < num_perm; p++)
				words[p / 16] |= static_cast<uint64_t>(signatures[row][p] & 15) << (4 * (p % 16));
		}
	}

	// At most the positions where rows a and b disagree.
	uint32_t differing(uint32_t a, uint32_t b) const
	{
		const uint64_t *x = sketch_.data() + static_cast<size_t>(a) * words_;
		const uint64_t *y = sketch_.data() + static_cast<size_t>(b) * words_;
		uint32_t differing = 0;
		for (uint32_t w = 0; w < words_; w++)
		{
			uint64_t d = x[w] ^ y[w];
			d |= d >> 1;
			d |= d >> 2;
			d &= 0x1111111111111111ull;                 // a bit a differing nibble
			d = (d + (d >> 4)) & 0x0f0f0f0f0f0f0f0full; // 0 to 2 a byte
			differing += static_cast<uint32_t>((d * 0x0101010101010101ull) >> 56);
		}
		return differing;
	}

private:
	uint32_t words_;
	minhash::BudgetVector<uint64_t> sketch_;
};

// The pairs among the rows sharing a prefix token (prefix_filter.hpp), the
// same as the pigeonhole bands' since both miss no pair at the threshold.
// Each pair is compared once: at row a's first bucket holding b, b marked
// there with a.
void find_pairs_by_prefix(const Search &search, uint32_t count, uint32_t block, Budget &budget,
                          Poller &poller, PairBuffer &found)
{
	minhash::PrefixBuckets buckets(search.signatures, search.empty, count, search.num_perm,
	                               search.max_disagreements, block, budget, poller);
	const NibbleSketch nibbles(search.signatures, search.empty, count, search.num_perm, budget,
	                           poller);
	minhash::BudgetVector<uint32_t> compared_with(count, kSkip,
	                                              minhash::BudgetAllocator<uint32_t>(budget));
	for (uint32_t a = 0; a < count; a++)
	{
		poller.tick();
		const uint32_t *values = search.signatures[a];
		for (const uint32_t *head = buckets.heads_begin(a); head < buckets.heads_end(a); head++)
		{
			const uint32_t *bucket = buckets.bucket(*head);
			const uint32_t *end = bucket + 1 + bucket[0];
			for (const uint32_t *b = std::upper_bound(bucket + 1, end, a); b < end; b++)
			{
				poller.tick();
				if (compared_with[*b] == a) continue;
				compared_with[*b] = a;
				if (nibbles.differing(a, *b) > search.max_disagreements) continue;
				const uint32_t disagreeing =
				    disagreements_up_to(values, search.signatures[*b], search.num_perm,
				                        search.max_disagreements);
				if (disagreeing <= search.max_disagreements)
					found.push(a, *b, search.num_perm - disagreeing);
			}
		}
	}
}

// Whether bands of `rows` are the pigeonhole layout at the threshold, which
// prefix filtering may replace: the same pairs, every pair at the threshold.
bool is_pigeonhole(const Search &search, uint32_t bands)
{
	MhPigeonholeLayout layout;
	return mh_pigeonhole_layout(search.threshold, search.num_perm, 0, &layout) == MH_OK &&
	       layout.bands == bands && layout.rows == search.rows;
}

// The pairs at the threshold by prefix filtering when the layout is the
// pigeonhole one and the filter is the faster; by the bands otherwise, or
// when the filter's arrays would pass the grant (the band sort needs less:
// a grant the bands' pairs fit in is never refused).
void find_all_pairs(const Search &search, uint32_t count, uint32_t bands, Budget &budget,
                    Poller &poller, PairBuffer &found)
{
	if (is_pigeonhole(search, bands) &&
	    minhash::prefix_filter_applies(count, search.num_perm, search.max_disagreements))
	{
		const minhash::prefix_detail::Plan plan = minhash::prefix_filter_plan(
		    count, search.num_perm, search.max_disagreements, budget.room());
		if (minhash::prefix_filter_least_bytes(count, search.num_perm) <= budget.room())
		{
			try
			{
				find_pairs_by_prefix(search, count, plan.block, budget, poller, found);
				return;
			}
			catch (const minhash::OverBudget &)
			{
				found.clear();
			}
		}
	}
	find_pairs(search, count, bands, budget, poller, found);
}

} // namespace

extern "C" {

MhStatus mh_near_pairs(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                       uint32_t num_perm, double threshold, uint32_t bands, uint32_t rows,
                       uint64_t max_bytes, MhInterruptPoll poll, void *poll_arg, MhPair **pairs,
                       uint64_t *pair_count, size_t *bytes, uint64_t *memory) noexcept
{
	*pairs = nullptr;
	*pair_count = 0;
	*bytes = 0;
	*memory = 0;
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_near_pairs");
		if (mh_check_threshold(threshold) != MH_OK) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		if (mh_check_layout(bands, rows, num_perm) != MH_OK) return MH_ERR_BANDS_RANGE;
		if (count == UINT32_MAX) return MH_ERR_TOO_LARGE;
		Poller poller(poll, poll_arg);
		poller.check();
		const Search search{signatures, empty,
		                    num_perm,   threshold,
		                    rows,       mh_max_disagreements(threshold, num_perm)};
		Budget budget(max_bytes);
		PairBuffer found(budget);
		try
		{
			find_all_pairs(search, count, bands, budget, poller, found);
		}
		catch (const minhash::OverBudget &over)
		{
			*pair_count = found.size();
			*memory = over.wanted;
			return MH_ERR_TOO_LARGE;
		}
		// In (a, b) order: the caller numbered the rows in its output order.
		std::sort(found.begin(), found.end(), [&poller](const MhPair &x, const MhPair &y) {
			poller.tick();
			return x.a != y.a ? x.a < y.a : x.b < y.b;
		});
		*memory = budget.peak();
		*pair_count = found.size();
		*bytes = found.bytes();
		*pairs = found.release();
		return MH_OK;
	});
}

} // extern "C"
