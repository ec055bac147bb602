// chunk_match.cpp
//   Common chunks of two documents (seed 000): runs of at least min_words
//   consecutive words that both contain, and C, L, S, S_J, S_L from them.
//
//   Every window of w = min_words words gets a 64-bit rolling hash, and a
//   hash table numbers the distinct windows of both texts.  Then:
//
//   Information matching.  A word of A is repeated when it lies in a window
//   that occurred earlier in A and is not part of that earlier occurrence:
//   "x x x x" with w = 2 is the information "x x" and its repeats, a text
//   written twice is the text and its copy.  The other words are A's
//   information; L and S count these.  A word is common when it lies in a
//   window that B contains too.  C_A = A's words both common and not
//   repeated, C_B likewise, C = the smaller.  Linear time.
//
//   Literal matching (greedy string tiling).  Repeatedly take the longest run
//   of words common to both texts among the words not taken yet (ties: the
//   first in A, then the first in B), as long as it has at least w words.
//   Candidate runs are diagonals of anchor pairs (i, j), i.e. equal windows;
//   to stay near-linear on repetitive text, the k-th occurrence of a window
//   in A is paired with its occurrences k-R .. k+R in B only (R = 32).  This
//   is exact unless some window occurs more than R + 1 times in a text,
//   and costs at most (2R + 1) anchors per window (a text of one word
//   repeated a million times included).
//
//   A text with fewer than w words is one chunk of what it has, as in
//   minhash(): it matches only an identical short text.
#include <algorithm>
#include <new>
#include <queue>
#include <vector>

#include "explain_internal.hpp"

namespace minhash
{

namespace
{

constexpr uint32_t kNone = UINT32_MAX;
constexpr uint32_t kRankReach = 32; // R above

inline uint64_t mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

// Rolling hash of every window of w words: sum of word_hash * P^(w-1-t)
// mod 2^64, P odd.  Word hashes are XXH3 outputs, so two different windows
// agree with probability about 2^-64, as two different shingles do.
std::vector<uint64_t> window_hashes(const uint64_t *words, uint64_t count, uint32_t w,
                                    Poller &poller)
{
	std::vector<uint64_t> out;
	if (count < w) return out;
	constexpr uint64_t P = 0x9E3779B97F4A7C15ULL;
	uint64_t top = 1; // P^(w-1)
	for (uint32_t t = 1; t < w; t++) top *= P;
	uint64_t h = 0;
	for (uint32_t t = 0; t < w; t++) h = h * P + words[t];
	out.resize(count - w + 1);
	out[0] = h;
	for (uint64_t i = 1; i + w <= count; i++)
	{
		h = (h - words[i - 1] * top) * P + words[i + w - 1];
		out[i] = h;
		poller.tick();
	}
	return out;
}

// Numbers the distinct windows of both texts 0, 1, 2, ...
struct WindowIds
{
	std::vector<uint32_t> a, b; // id of each window
	uint32_t distinct = 0;
};

WindowIds number_windows(const std::vector<uint64_t> &ha, const std::vector<uint64_t> &hb,
                         Poller &poller)
{
	// Open addressing, at most half full; it grows with the distinct
	// windows (few in repetitive text), not with the text.
	WindowIds ids;
	uint64_t capacity = 1024;
	std::vector<uint64_t> keys(capacity);
	std::vector<uint32_t> values(capacity, kNone);
	auto slot_of = [&](uint64_t key)
	{
		const uint64_t mask = capacity - 1;
		uint64_t slot = mix64(key) & mask;
		while (values[slot] != kNone && keys[slot] != key) slot = (slot + 1) & mask;
		return slot;
	};
	auto grow = [&]()
	{
		std::vector<uint64_t> old_keys(std::move(keys));
		std::vector<uint32_t> old_values(std::move(values));
		capacity *= 2;
		keys.assign(capacity, 0);
		values.assign(capacity, kNone);
		for (size_t k = 0; k < old_values.size(); k++)
		{
			if (old_values[k] == kNone) continue;
			const uint64_t slot = slot_of(old_keys[k]);
			keys[slot] = old_keys[k];
			values[slot] = old_values[k];
		}
		poller.tick(capacity);
	};
	auto id_of = [&](uint64_t key)
	{
		uint64_t slot = slot_of(key);
		if (values[slot] == kNone)
		{
			if (2 * (uint64_t(ids.distinct) + 1) > capacity)
			{
				grow();
				slot = slot_of(key);
			}
			keys[slot] = key;
			values[slot] = ids.distinct++;
		}
		poller.tick();
		return values[slot];
	};
	ids.a.resize(ha.size());
	ids.b.resize(hb.size());
	for (size_t i = 0; i < ha.size(); i++) ids.a[i] = id_of(ha[i]);
	for (size_t j = 0; j < hb.size(); j++) ids.b[j] = id_of(hb[j]);
	return ids;
}

// Mark [i, i + w) for every window i for which pick(i) holds.
template <typename Pick>
std::vector<bool> cover(uint64_t words, uint64_t windows, uint32_t w, Pick pick, Poller &poller)
{
	std::vector<bool> covered(words, false);
	uint64_t marked_to = 0;
	for (uint64_t i = 0; i < windows; i++)
	{
		if (!pick(i)) continue;
		for (uint64_t p = std::max(marked_to, i); p < i + w; p++) covered[p] = true;
		marked_to = i + w;
		poller.tick();
	}
	return covered;
}

struct InformationSide
{
	uint64_t information; // words not repeated
	uint64_t common;      // of those, words in a window the other text has
	uint64_t stretches;   // maximal runs of such words
};

InformationSide information_side(const std::vector<uint32_t> &mine, uint64_t words, uint32_t w,
                                 const std::vector<uint32_t> &first_mine,
                                 const std::vector<uint32_t> &first_other, Poller &poller)
{
	const uint64_t windows = mine.size();
	// A repeated window [i, i + w) whose first occurrence is [f, f + w)
	// makes its words outside the first occurrence repeated: the words of
	// [max(i, f + w), i + w).  Summed as a difference array.
	std::vector<int32_t> starts(words + 1, 0);
	for (uint64_t i = 0; i < windows; i++)
	{
		const uint64_t f = first_mine[mine[i]];
		if (f == i) continue;
		starts[std::max<uint64_t>(i, f + w)]++;
		starts[i + w]--;
		poller.tick();
	}
	std::vector<bool> repeated(words);
	int64_t depth = 0;
	for (uint64_t p = 0; p < words; p++)
	{
		depth += starts[p];
		repeated[p] = depth > 0;
	}
	std::vector<bool> common = cover(
	    words, windows, w, [&](uint64_t i) { return first_other[mine[i]] != kNone; }, poller);
	InformationSide side{0, 0, 0};
	bool in_stretch = false;
	for (uint64_t p = 0; p < words; p++)
	{
		const bool counted = !repeated[p] && common[p];
		side.information += !repeated[p];
		side.common += counted;
		side.stretches += counted && !in_stretch;
		in_stretch = counted;
	}
	poller.tick(words);
	return side;
}

struct Run
{
	uint64_t a, b, words;
};

// Longest first, then first in A, then first in B.
struct RunAfter
{
	bool operator()(const Run &x, const Run &y) const
	{
		if (x.words != y.words) return x.words < y.words;
		if (x.a != y.a) return x.a > y.a;
		return x.b > y.b;
	}
};

std::vector<Run> literal_chunks(const WindowIds &ids, uint64_t count_a, uint64_t count_b,
                                uint32_t w, Poller &poller)
{
	const uint64_t wa = ids.a.size(), wb = ids.b.size();
	// Rank of each window among the occurrences of the same window in its
	// text, and B's occurrences grouped by window.
	std::vector<uint32_t> seen(ids.distinct, 0);
	std::vector<uint32_t> rank_a(wa), rank_b(wb);
	for (uint64_t i = 0; i < wa; i++) rank_a[i] = seen[ids.a[i]]++;
	std::fill(seen.begin(), seen.end(), 0);
	for (uint64_t j = 0; j < wb; j++) rank_b[j] = seen[ids.b[j]]++;
	std::vector<uint64_t> start_b(ids.distinct + 1, 0);
	for (uint32_t id = 0; id < ids.distinct; id++) start_b[id + 1] = start_b[id] + seen[id];
	std::vector<uint32_t> where_b(wb);
	for (uint64_t j = 0; j < wb; j++) where_b[start_b[ids.b[j]] + rank_b[j]] = static_cast<uint32_t>(j);
	poller.tick(4 * (wa + wb));

	auto anchor = [&](uint64_t i, uint64_t j)
	{
		if (ids.a[i] != ids.b[j]) return false;
		const uint32_t s = rank_a[i], t = rank_b[j];
		return (s > t ? s - t : t - s) <= kRankReach;
	};

	std::priority_queue<Run, std::vector<Run>, RunAfter> queue;
	for (uint64_t i = 0; i < wa; i++)
	{
		const uint32_t id = ids.a[i];
		const uint64_t occurrences = start_b[id + 1] - start_b[id];
		if (occurrences == 0) continue;
		const uint64_t s = rank_a[i];
		const uint64_t from = s > kRankReach ? s - kRankReach : 0;
		const uint64_t to = std::min<uint64_t>(occurrences, s + kRankReach + 1);
		for (uint64_t t = from; t < to; t++)
		{
			const uint64_t j = where_b[start_b[id] + t];
			poller.tick();
			if (i > 0 && j > 0 && anchor(i - 1, j - 1)) continue; // not the start of its run
			uint64_t d = 1;
			while (i + d < wa && j + d < wb && anchor(i + d, j + d)) d++;
			poller.tick(d);
			queue.push(Run{i, j, d + w - 1});
		}
	}

	std::vector<bool> taken_a(count_a, false), taken_b(count_b, false);
	std::vector<Run> chunks;
	while (!queue.empty())
	{
		const Run run = queue.top();
		queue.pop();
		// The stretches of this run whose words are still free in both texts.
		std::vector<Run> free_parts;
		uint64_t d = 0;
		while (d < run.words)
		{
			while (d < run.words && (taken_a[run.a + d] || taken_b[run.b + d])) d++;
			const uint64_t begin = d;
			while (d < run.words && !taken_a[run.a + d] && !taken_b[run.b + d]) d++;
			if (d - begin >= w) free_parts.push_back(Run{run.a + begin, run.b + begin, d - begin});
		}
		poller.tick(run.words);
		if (free_parts.size() == 1 && free_parts[0].words == run.words)
		{
			for (uint64_t k = 0; k < run.words; k++) taken_a[run.a + k] = taken_b[run.b + k] = true;
			chunks.push_back(run);
		}
		else
		{
			for (const Run &part : free_parts) queue.push(part);
		}
	}
	std::sort(chunks.begin(), chunks.end(), [](const Run &x, const Run &y) { return x.a < y.a; });
	return chunks;
}

void finish_stats(MhChunkStats *stats)
{
	const double c = static_cast<double>(stats->common_words);
	const double l = static_cast<double>(stats->longer_words);
	const double s = static_cast<double>(stats->shorter_words);
	if (stats->longer_words == 0)
	{ // both empty: the same (no) text
		stats->s_j = stats->s_l = 1.0;
		return;
	}
	stats->s_j = c / (l + s - c);
	stats->s_l = c / l;
}

} // namespace

} // namespace minhash

using namespace minhash;

extern "C"
{

	uint64_t mh_chunks_capacity(uint64_t count_a, uint64_t count_b, uint32_t min_words) noexcept
	{
		if (min_words == 0) return 0;
		return std::min(count_a, count_b) / min_words + 1;
	}

	MhStatus mh_chunk_match(const uint64_t *words_a, uint64_t count_a, const uint64_t *words_b,
	                        uint64_t count_b, uint32_t min_words, MhMatching matching,
	                        MhInterruptPoll poll, void *poll_arg, MhChunkStats *stats,
	                        MhChunk *chunks) noexcept
	{
		try
		{
			if (stats == nullptr || min_words < 1 ||
			    (matching != MH_MATCH_LITERAL && matching != MH_MATCH_INFORMATION))
				return MH_ERR_ARGUMENT;
			if (count_a >= kNone || count_b >= kNone) return MH_ERR_TOO_LARGE;
			Poller poller(poll, poll_arg);
			MhChunkStats out{};
			const uint32_t w = min_words;

			if (count_a < w || count_b < w)
			{
				// Short texts: one chunk of everything, if the same words.
				const bool same = count_a == count_b && count_a > 0 &&
				                  std::equal(words_a, words_a + count_a, words_b);
				out.common_words = same ? count_a : 0;
				out.chunks = same ? 1 : 0;
				out.longer_words = std::max(count_a, count_b);
				out.shorter_words = std::min(count_a, count_b);
				if (same && chunks != nullptr && matching == MH_MATCH_LITERAL)
					chunks[0] = MhChunk{0, 0, count_a};
				finish_stats(&out);
				*stats = out;
				return MH_OK;
			}

			const std::vector<uint64_t> ha = window_hashes(words_a, count_a, w, poller);
			const std::vector<uint64_t> hb = window_hashes(words_b, count_b, w, poller);
			const WindowIds ids = number_windows(ha, hb, poller);

			if (matching == MH_MATCH_INFORMATION)
			{
				std::vector<uint32_t> first_a(ids.distinct, kNone), first_b(ids.distinct, kNone);
				for (uint64_t i = ids.a.size(); i-- > 0;) first_a[ids.a[i]] = static_cast<uint32_t>(i);
				for (uint64_t j = ids.b.size(); j-- > 0;) first_b[ids.b[j]] = static_cast<uint32_t>(j);
				const InformationSide sa = information_side(ids.a, count_a, w, first_a, first_b, poller);
				const InformationSide sb = information_side(ids.b, count_b, w, first_b, first_a, poller);
				const InformationSide &fewer = sa.common <= sb.common ? sa : sb;
				out.common_words = fewer.common;
				out.chunks = fewer.stretches;
				out.longer_words = std::max(sa.information, sb.information);
				out.shorter_words = std::min(sa.information, sb.information);
			}
			else
			{
				const std::vector<Run> runs = literal_chunks(ids, count_a, count_b, w, poller);
				for (size_t k = 0; k < runs.size(); k++)
				{
					out.common_words += runs[k].words;
					if (chunks != nullptr) chunks[k] = MhChunk{runs[k].a, runs[k].b, runs[k].words};
				}
				out.chunks = runs.size();
				out.longer_words = std::max(count_a, count_b);
				out.shorter_words = std::min(count_a, count_b);
			}
			finish_stats(&out);
			*stats = out;
			return MH_OK;
		}
		catch (const Interrupted &)
		{
			return MH_ERR_INTERRUPTED;
		}
		catch (const std::bad_alloc &)
		{
			return MH_ERR_OUT_OF_MEMORY;
		}
		catch (...)
		{
			return MH_ERR_INTERNAL;
		}
	}

} // extern "C"
