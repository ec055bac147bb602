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
//   The runs are found in one pass over A, filed by length, and visited
//   longest first once; a run found partly taken gives way to its free
//   stretches of w words or more, which wait in a small heap.
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

// v = count copies of value, written a piece at a time with a poll in
// between: filling (and first touching) the hundreds of megabytes of two
// long texts' tables takes long enough to delay a cancel.
template <typename T>
void assign_polled(std::vector<T> &v, uint64_t count, T value, Poller &poller)
{
	constexpr uint64_t kPiece = 1 << 16;
	v.clear();
	v.reserve(count);
	while (v.size() < count)
	{
		const uint64_t piece = std::min<uint64_t>(count - v.size(), kPiece);
		v.insert(v.end(), piece, value);
		poller.tick(piece);
	}
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
	out.reserve(count - w + 1); // filled as computed, so polled as it is touched
	out.push_back(h);
	for (uint64_t i = 1; i + w <= count; i++)
	{
		h = (h - words[i - 1] * top) * P + words[i + w - 1];
		out.push_back(h);
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
		assign_polled(keys, capacity, uint64_t(0), poller);
		assign_polled(values, capacity, kNone, poller);
		for (size_t k = 0; k < old_values.size(); k++)
		{
			poller.tick();
			if (old_values[k] == kNone) continue;
			const uint64_t slot = slot_of(old_keys[k]);
			keys[slot] = old_keys[k];
			values[slot] = old_values[k];
		}
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
	ids.a.reserve(ha.size());
	ids.b.reserve(hb.size());
	for (size_t i = 0; i < ha.size(); i++) ids.a.push_back(id_of(ha[i]));
	for (size_t j = 0; j < hb.size(); j++) ids.b.push_back(id_of(hb[j]));
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
	std::vector<int32_t> starts;
	assign_polled(starts, words + 1, int32_t(0), poller);
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
		poller.tick();
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
		poller.tick();
	}
	return side;
}

// Words [a, a + words) of A equal words [b, b + words) of B.  Word numbers
// fit 32 bits (the entry point refuses longer texts), which halves the
// memory of the candidate list.
struct Run
{
	uint32_t a, b, words;
};

// Longest first, then first in A, then first in B.  Two candidates never
// tie: runs on one diagonal are disjoint, and so are the pieces of a run.
inline bool comes_before(const Run &x, const Run &y)
{
	if (x.words != y.words) return x.words > y.words;
	if (x.a != y.a) return x.a < y.a;
	return x.b < y.b;
}

struct RunAfter
{
	bool operator()(const Run &x, const Run &y) const { return comes_before(y, x); }
};

// Rank of each window among the occurrences of the same window in its text,
// and B's windows grouped by window, in text order within a group.
struct Occurrences
{
	std::vector<uint32_t> rank_a, rank_b;
	std::vector<uint64_t> start_b; // group of window id: [start_b[id], start_b[id + 1])
	std::vector<uint32_t> where_b;
};

Occurrences occurrences_of(const WindowIds &ids, Poller &poller)
{
	const uint64_t wa = ids.a.size(), wb = ids.b.size();
	Occurrences occ;
	std::vector<uint32_t> seen;
	assign_polled(seen, ids.distinct, 0u, poller);
	occ.rank_a.reserve(wa);
	occ.rank_b.reserve(wb);
	for (uint64_t i = 0; i < wa; i++)
	{
		occ.rank_a.push_back(seen[ids.a[i]]++);
		poller.tick();
	}
	assign_polled(seen, ids.distinct, 0u, poller);
	for (uint64_t j = 0; j < wb; j++)
	{
		occ.rank_b.push_back(seen[ids.b[j]]++);
		poller.tick();
	}
	assign_polled(occ.start_b, uint64_t(ids.distinct) + 1, uint64_t(0), poller);
	for (uint32_t id = 0; id < ids.distinct; id++)
	{
		occ.start_b[id + 1] = occ.start_b[id] + seen[id];
		poller.tick();
	}
	assign_polled(occ.where_b, wb, 0u, poller);
	for (uint64_t j = 0; j < wb; j++)
	{
		occ.where_b[occ.start_b[ids.b[j]] + occ.rank_b[j]] = static_cast<uint32_t>(j);
		poller.tick();
	}
	return occ;
}

// The candidate runs.  Those of k + 1 <= kShortLengths anchors (w + k
// words) in short_[k] as a << 32 | b, in (a, b) order; these are most of
// them, and the length goes without saying.  Longer ones in long_, in no
// particular order.
struct Candidates
{
	static constexpr uint32_t kShortLengths = 4096;
	std::vector<std::vector<uint64_t>> short_;
	std::vector<Run> long_;
};

// Walks the candidates in comes_before order.
class CandidateWalk
{
public:
	CandidateWalk(Candidates &candidates, uint32_t w) : candidates_(candidates), w_(w)
	{
		std::sort(candidates_.long_.begin(), candidates_.long_.end(), comes_before);
		group_ = candidates_.short_.size();
		find_next();
	}
	bool done() const { return done_; }
	const Run &next() const { return next_; }
	void advance()
	{
		if (in_long_) long_next_++;
		else short_next_++;
		find_next();
	}

private:
	void find_next()
	{
		in_long_ = long_next_ < candidates_.long_.size();
		if (in_long_)
		{
			next_ = candidates_.long_[long_next_];
			return;
		}
		while (group_ > 0 && short_next_ == candidates_.short_[group_ - 1].size())
		{
			std::vector<uint64_t>().swap(candidates_.short_[--group_]);
			short_next_ = 0;
		}
		done_ = group_ == 0;
		if (done_) return;
		const uint64_t packed = candidates_.short_[group_ - 1][short_next_];
		next_ = Run{static_cast<uint32_t>(packed >> 32), static_cast<uint32_t>(packed),
		            static_cast<uint32_t>(group_ - 1 + w_)};
	}

	Candidates &candidates_;
	const uint32_t w_;
	size_t long_next_ = 0, group_ = 0, short_next_ = 0;
	bool in_long_ = false, done_ = false;
	Run next_{0, 0, 0};
};

// The candidate runs: maximal diagonals of anchor pairs (i, j), in words.
//
// The anchors of window i are a slice of its group in B, in text order.
// (i, j) continues a run when (i - 1, j - 1) is an anchor, i.e. when j - 1
// is in the previous window's slice: one merge of two short sorted lists per
// window, instead of looking up each anchor's neighbours at random.  A run
// is filed under its length when its diagonal stops.  Runs of one length
// stop in the order of their start in A, and at one place in A in the
// order of their start in B: each group comes out ordered by (a, b).
Candidates diagonal_runs(const WindowIds &ids, uint32_t w, Poller &poller)
{
	const uint64_t wa = ids.a.size();
	const Occurrences occ = occurrences_of(ids, poller);
	struct Open
	{
		uint32_t j;    // B window of this diagonal at the current window of A
		uint32_t a, b; // where its run starts
	};
	constexpr uint32_t kSlice = 2 * kRankReach + 1; // most anchors of one window
	std::vector<Open> previous(kSlice), current(kSlice);
	uint32_t open_before = 0;
	Candidates out;
	auto close = [&](const Open &open, uint64_t end_i)
	{ // the diagonal's last anchor is at end_i - 1
		const uint64_t anchors = end_i - open.a;
		if (anchors > Candidates::kShortLengths)
			out.long_.push_back(Run{open.a, open.b, static_cast<uint32_t>(anchors + w - 1)});
		else
		{
			if (out.short_.size() < anchors) out.short_.resize(anchors);
			out.short_[anchors - 1].push_back(uint64_t(open.a) << 32 | open.b);
		}
	};
	for (uint64_t i = 0; i < wa; i++)
	{
		const uint32_t id = ids.a[i];
		const uint64_t occurrences = occ.start_b[id + 1] - occ.start_b[id];
		const uint64_t s = occ.rank_a[i];
		const uint64_t from = s > kRankReach ? s - kRankReach : 0;
		const uint64_t to = std::min<uint64_t>(occurrences, s + kRankReach + 1);
		const uint32_t *slice = occ.where_b.data() + occ.start_b[id];
		uint32_t open_now = 0, p = 0;
		for (uint64_t t = from; t < to; t++)
		{
			const uint32_t j = slice[t];
			while (p < open_before && uint64_t(previous[p].j) + 1 < j) close(previous[p++], i);
			const bool continued = p < open_before && uint64_t(previous[p].j) + 1 == j;
			current[open_now++] = continued ? Open{j, previous[p].a, previous[p].b}
			                                : Open{j, static_cast<uint32_t>(i), j};
			p += continued;
		}
		while (p < open_before) close(previous[p++], i);
		poller.tick(1 + open_now);
		std::swap(previous, current);
		open_before = open_now;
	}
	for (uint32_t p = 0; p < open_before; p++) close(previous[p], wa);
	return out;
}

// One bit per word of a text: taken by a chunk yet?
class TakenWords
{
public:
	explicit TakenWords(uint64_t words) : bits_(words / 64 + 2, 0) {}

	// Bits p .. p + 63 (bit k = word p + k); words past the end read as free.
	uint64_t from(uint64_t p) const
	{
		const uint64_t q = p / 64, r = p % 64;
		uint64_t out = bits_[q] >> r;
		if (r != 0) out |= bits_[q + 1] << (64 - r);
		return out;
	}
	void take(uint64_t p, uint64_t count)
	{
		for (uint64_t k = p; k < p + count; k++) bits_[k / 64] |= uint64_t(1) << (k % 64);
	}

private:
	std::vector<uint64_t> bits_;
};

// The maximal stretches of `run` whose words are free in both texts, as
// pieces of the run, in order.
void free_stretches(const Run &run, const TakenWords &taken_a, const TakenWords &taken_b,
                    std::vector<Run> *out)
{
	out->clear();
	bool in_stretch = false;
	uint32_t begin = 0;
	for (uint32_t d = 0; d < run.words; d += 64)
	{
		const uint32_t block = std::min<uint32_t>(64, run.words - d);
		uint64_t busy = taken_a.from(run.a + d) | taken_b.from(run.b + d);
		if (block < 64) busy |= ~uint64_t(0) << block; // the run ends here
		uint32_t p = 0;
		while (p < block)
		{
			const uint64_t next = (in_stretch ? busy : ~busy) >> p;
			if (next == 0) break; // the block ends in the same state
			p += static_cast<uint32_t>(__builtin_ctzll(next));
			if (in_stretch)
				out->push_back(Run{run.a + begin, run.b + begin, d + p - begin});
			else
				begin = d + p;
			in_stretch = !in_stretch;
		}
	}
	if (in_stretch) out->push_back(Run{run.a + begin, run.b + begin, run.words - begin});
}

// Greedy tiling over the candidate runs: take the first run in
// comes_before order whose words are all free; a run partly taken gives way
// to its free stretches of at least w words, which compete as runs of their
// own.  The candidates are visited in one sorted pass, merged with a heap of
// such stretches; a stretch is shorter than the run it came from, so it
// always sorts after the candidate being looked at.
std::vector<Run> literal_chunks(const WindowIds &ids, uint64_t count_a, uint64_t count_b,
                                uint32_t w, Poller &poller)
{
	Candidates candidates = diagonal_runs(ids, w, poller);
	CandidateWalk walk(candidates, w);
	poller.tick(candidates.long_.size());
	std::priority_queue<Run, std::vector<Run>, RunAfter> stretches;
	TakenWords taken_a(count_a), taken_b(count_b);
	std::vector<Run> chunks, free_parts;
	while (!walk.done() || !stretches.empty())
	{
		Run run;
		if (!stretches.empty() && (walk.done() || comes_before(stretches.top(), walk.next())))
		{
			run = stretches.top();
			stretches.pop();
		}
		else
		{
			run = walk.next();
			walk.advance();
		}
		free_stretches(run, taken_a, taken_b, &free_parts);
		poller.tick(run.words);
		if (free_parts.size() == 1 && free_parts[0].words == run.words)
		{
			taken_a.take(run.a, run.words);
			taken_b.take(run.b, run.words);
			chunks.push_back(run);
		}
		else
		{
			for (const Run &part : free_parts)
				if (part.words >= w) stretches.push(part);
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
	{ // both empty: nothing in common, as resemblance() says of them
		stats->s_j = stats->s_l = 0.0;
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
		// The mode is read here, before the body: its checks run no code that
		// throws, and the body then uses plain flags.
		const bool literal = matching == MH_MATCH_LITERAL;
		const bool information = matching == MH_MATCH_INFORMATION;
		if (stats == nullptr || min_words < 1 || !(literal || information)) return MH_ERR_ARGUMENT;
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_chunk_match");
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
				if (same && chunks != nullptr && literal)
					chunks[0] = MhChunk{0, 0, count_a};
				finish_stats(&out);
				*stats = out;
				return MH_OK;
			}

			std::vector<uint64_t> ha = window_hashes(words_a, count_a, w, poller);
			std::vector<uint64_t> hb = window_hashes(words_b, count_b, w, poller);
			const WindowIds ids = number_windows(ha, hb, poller);
			// Numbered, the hashes are not needed: freed now rather than at
			// the end, so a cancel later has less to free on its way out.
			std::vector<uint64_t>().swap(ha);
			poller.check();
			std::vector<uint64_t>().swap(hb);
			poller.check();

			if (information)
			{
				std::vector<uint32_t> first_a, first_b;
				assign_polled(first_a, ids.distinct, kNone, poller);
				assign_polled(first_b, ids.distinct, kNone, poller);
				for (uint64_t i = ids.a.size(); i-- > 0;)
				{
					first_a[ids.a[i]] = static_cast<uint32_t>(i);
					poller.tick();
				}
				for (uint64_t j = ids.b.size(); j-- > 0;)
				{
					first_b[ids.b[j]] = static_cast<uint32_t>(j);
					poller.tick();
				}
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
		});
	}

} // extern "C"
