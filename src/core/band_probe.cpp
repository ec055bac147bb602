// band_probe.cpp
//   The engine of near_dupe_groups_append(): the rows to append, held in
//   memory with their band keys, probed by the signatures of the rows
//   grouped before as the glue streams them past, one at a time.  A probe
//   returns every held row sharing a band key with the probing signature
//   and resembling it at the threshold; what it holds is the new rows' keys,
//   never the old rows.
//
//   Layout: the grouping's (grouping.cpp), so that append and a full
//   grouping see the same candidates: the pigeonhole layout with no spare
//   bands (exact: a pair at the threshold agrees on a whole band), or the
//   caller's approximate one (recall =>, mh_recall_layout).  With no
//   pigeonhole layout (a threshold so low that a band would be shorter than
//   one value) every held row is a candidate.
//
//   Why this structure: the old rows are many (the whole table, of which
//   most are singleton pivots) and the new ones few, so a probe must be
//   cheap when it finds nothing, which is nearly always.  The keys of all
//   bands are sorted together (a band's keys are seeded with its number, so
//   bands do not mix); a bit filter of about 8 bits a key, small enough to
//   stay in cache, answers most misses with one load, and a directory on
//   the keys' high bits finds the run of a key that passes it.
#include <algorithm>
#include <new>
#include <vector>

#include "boundary.hpp"
#include "budget.hpp"
#include "greedy_bucket.hpp"
#include "lsh_internal.hpp"
#include "minhash_core.h"
#include "poller.hpp"

struct MhBandProbe
{
	explicit MhBandProbe(uint64_t max_bytes)
	    : budget(max_bytes), keyed(minhash::BudgetAllocator<std::pair<uint64_t, uint32_t>>(budget)),
	      filter(minhash::BudgetAllocator<uint64_t>(budget)),
	      directory(minhash::BudgetAllocator<uint32_t>(budget)),
	      compared(minhash::BudgetAllocator<uint32_t>(budget))
	{
	}

	// First, so that it outlives the vectors charged to it.
	minhash::Budget budget;
	const uint32_t *const *signatures = nullptr;
	const uint8_t *empty = nullptr;
	uint32_t count = 0;
	uint32_t num_perm = 0;
	double threshold = 0;
	uint32_t bands = 0; // 0: every held row is a candidate
	uint32_t rows = 0;
	// (band key, row), every band's, sorted.
	minhash::BudgetVector<std::pair<uint64_t, uint32_t>> keyed;
	// Three bits per key in one word (filter_word, filter_bits): one clear,
	// no held row has that key.
	minhash::BudgetVector<uint64_t> filter;
	uint64_t filter_mask = 0;
	// directory[h] .. directory[h + 1]: the keys whose top directory_bits are h.
	minhash::BudgetVector<uint32_t> directory;
	uint32_t directory_bits = 0;
	// compared[row] == probes: the row was compared in this probe already.
	minhash::BudgetVector<uint32_t> compared;
	uint32_t probes = 0;
};

namespace
{

using minhash::Poller;

// The filter's word of a key: its low bits (the directory takes the high ones).
inline uint64_t filter_word(uint64_t key, uint64_t mask) { return (key & mask) >> 6; }

// The key's three bits in its word, from runs of its bits apart from the
// word's (the directory's high bits may overlap: it comes after): a
// miss then passes with odds of about (1 - e^(-3/8))^3, 3%, where one bit a
// key passes 12%, for the same 8 bits a key and the same one load.
inline uint64_t filter_bits(uint64_t key)
{
	return (uint64_t{1} << (key & 63)) | (uint64_t{1} << ((key >> 46) & 63)) |
	       (uint64_t{1} << ((key >> 52) & 63));
}

uint32_t bits_for(uint64_t n)
{
	uint32_t bits = 0;
	while ((uint64_t{1} << bits) < n && bits < 40) bits++;
	return bits;
}

// Sorts keyed by key, then row, in place: the entries are first moved to
// the buckets of their keys' top 11 bits (one pass, each entry swapped
// straight to its bucket), then each bucket, about a 2048th of them and
// small enough for the cache, is sorted on its own.  Millions of entries
// (100,000 rows of 26 bands) sort so in about half the comparisons of one
// sort of them all, each within the cache, and with no second buffer.
void sort_by_key(MhBandProbe &probe, Poller &poller)
{
	constexpr uint32_t top_bits = 11;
	constexpr size_t buckets = size_t{1} << top_bits;
	constexpr uint32_t shift = 64 - top_bits;
	const size_t count = probe.keyed.size();
	std::pair<uint64_t, uint32_t> *keyed = probe.keyed.data();
	std::vector<size_t> next(buckets + 1, 0), end(buckets, 0);
	for (size_t i = 0; i < count; i++) next[(keyed[i].first >> shift) + 1]++;
	for (size_t d = 0; d < buckets; d++)
	{
		next[d + 1] += next[d];
		end[d] = next[d + 1];
	}
	poller.tick(count);
	for (size_t d = 0; d < buckets; d++)
		while (next[d] < end[d])
		{
			const size_t home = keyed[next[d]].first >> shift;
			if (home == d)
				next[d]++;
			else
				std::swap(keyed[next[d]], keyed[next[home]++]);
		}
	poller.tick(count);
	for (size_t d = 0, start = 0; d < buckets; start = end[d], d++)
	{
		std::sort(keyed + start, keyed + end[d]);
		poller.tick(end[d] - start);
	}
}

void build(MhBandProbe &probe, Poller &poller)
{
	const uint64_t entries = static_cast<uint64_t>(probe.count) * probe.bands;
	if (entries >= UINT32_MAX) throw minhash::OverBudget{entries * 24};
	probe.compared.assign(probe.count, UINT32_MAX);
	if (probe.bands == 0) return;

	probe.keyed.reserve(entries);
	for (uint32_t row = 0; row < probe.count; row++)
	{
		if (probe.empty[row] != 0) continue;
		for (uint32_t band = 0; band < probe.bands; band++)
			probe.keyed.emplace_back(
			    minhash::band_key(probe.signatures[row] + static_cast<size_t>(band) * probe.rows,
			                      probe.rows, band),
			    row);
		poller.tick(probe.bands);
	}
	sort_by_key(probe, poller);

	const uint64_t held = probe.keyed.size();
	const uint32_t width = std::max<uint32_t>(6, bits_for(held * 8));
	probe.filter_mask = (uint64_t{1} << width) - 1;
	probe.filter.assign((uint64_t{1} << width) / 64, 0);
	for (const auto &k : probe.keyed) probe.filter[filter_word(k.first, probe.filter_mask)] |= filter_bits(k.first);
	poller.tick(held);

	probe.directory_bits = std::max<uint32_t>(1, bits_for(held / 2));
	probe.directory.assign((size_t{1} << probe.directory_bits) + 1, 0);
	const uint32_t shift = 64 - probe.directory_bits;
	// directory[h] = the first key whose top bits are at least h.
	size_t k = 0;
	for (size_t h = 0; h <= (size_t{1} << probe.directory_bits); h++)
	{
		while (k < held && (probe.keyed[k].first >> shift) < h) k++;
		probe.directory[h] = static_cast<uint32_t>(k);
	}
	poller.tick(held);
}

// A new probe: compared[] marks this one's rows apart from earlier ones'.
void next_probe(MhBandProbe &probe)
{
	if (++probe.probes == UINT32_MAX)
	{
		std::fill(probe.compared.begin(), probe.compared.end(), UINT32_MAX);
		probe.probes = 0;
	}
}

// Row `row` compared with the probing values, once per probe.
void compare(MhBandProbe &probe, const uint32_t *values, uint32_t row, uint32_t *rows,
             uint32_t *agreeing, uint32_t *found)
{
	if (probe.compared[row] == probe.probes) return;
	probe.compared[row] = probe.probes;
	const uint32_t a = mh_agreeing_positions(values, probe.signatures[row], probe.num_perm);
	// mh_resemblance's arithmetic, as the grouping compares
	if (static_cast<double>(a) / probe.num_perm >= probe.threshold)
	{
		rows[*found] = row;
		agreeing[*found] = a;
		(*found)++;
	}
}

void find(MhBandProbe &probe, const uint32_t *values, uint32_t *rows, uint32_t *agreeing,
          uint32_t *found)
{
	*found = 0;
	next_probe(probe);
	if (probe.bands == 0)
	{
		for (uint32_t row = 0; row < probe.count; row++)
			if (probe.empty[row] == 0) compare(probe, values, row, rows, agreeing, found);
		return;
	}
	// All the bands' keys first, their filter words prefetched, so that the
	// loads (each likely a cache miss) overlap instead of following one
	// another.
	uint64_t keys[MH_MAX_NUM_PERM];
	for (uint32_t band = 0; band < probe.bands; band++)
	{
		keys[band] =
		    minhash::band_key(values + static_cast<size_t>(band) * probe.rows, probe.rows, band);
		__builtin_prefetch(&probe.filter[filter_word(keys[band], probe.filter_mask)]);
	}
	const uint32_t shift = 64 - probe.directory_bits;
	for (uint32_t band = 0; band < probe.bands; band++)
	{
		const uint64_t key = keys[band];
		const uint64_t bits = filter_bits(key);
		if ((probe.filter[filter_word(key, probe.filter_mask)] & bits) != bits) continue;
		const uint64_t h = key >> shift;
		for (uint32_t k = probe.directory[h]; k < probe.directory[h + 1]; k++)
		{
			if (probe.keyed[k].first < key) continue;
			if (probe.keyed[k].first > key) break;
			compare(probe, values, probe.keyed[k].second, rows, agreeing, found);
		}
	}
}

// grouping.cpp's walk over the held rows whose pivots[] is kNone on entry,
// with the candidates the probe's keys give: each such row not yet taken,
// in row order, becomes a pivot and takes every such row not yet taken that
// shares one of its band keys and resembles it at the threshold.  The
// layout and the keys are the grouping's, so the groups are those
// mh_group_greedy (bands 0) or mh_group_greedy_banded makes of these rows
// alone.  The runs of two or more equal keys are the buckets, listed once
// from the sorted keys (no second sort), each with the rows in it; a row in
// none is a group of one at once; each bucket is passed as grouping.cpp
// passes it (greedy_bucket.hpp).
void walk(MhBandProbe &probe, uint32_t *pivots, double *resemblance, Poller &poller)
{
	constexpr uint32_t kNone = UINT32_MAX;
	const size_t held = probe.keyed.size();
	const auto *keyed = probe.keyed.data();
	// first[row] .. first[row + 1]: where row's buckets are listed in in_bucket
	minhash::BudgetVector<uint32_t> first(probe.count + 1, 0, minhash::BudgetAllocator<uint32_t>(probe.budget));
	size_t listed = 0, memberships = 0;
	for (size_t start = 0, end; start < held; start = end)
	{
		for (end = start + 1; end < held && keyed[end].first == keyed[start].first; end++) {}
		if (end - start < 2) continue;
		listed += 1 + (end - start);
		memberships += end - start;
		for (size_t k = start; k < end; k++) first[keyed[k].second + 1]++;
		poller.tick(end - start);
	}
	if (listed >= UINT32_MAX) throw minhash::OverBudget{listed * 8};
	for (uint32_t row = 0; row < probe.count; row++) first[row + 1] += first[row];
	// buckets: each a length, then its rows; in_bucket: each row's buckets
	minhash::BudgetVector<uint32_t> buckets(listed, 0, minhash::BudgetAllocator<uint32_t>(probe.budget));
	minhash::BudgetVector<uint32_t> in_bucket(memberships, 0, minhash::BudgetAllocator<uint32_t>(probe.budget));
	{
		minhash::BudgetVector<uint32_t> next(first.begin(), first.end() - 1,
		                                     minhash::BudgetAllocator<uint32_t>(probe.budget));
		size_t head = 0;
		for (size_t start = 0, end; start < held; start = end)
		{
			for (end = start + 1; end < held && keyed[end].first == keyed[start].first; end++) {}
			if (end - start < 2) continue;
			buckets[head] = static_cast<uint32_t>(end - start);
			for (size_t k = start; k < end; k++)
			{
				buckets[head + 1 + (k - start)] = keyed[k].second;
				in_bucket[next[keyed[k].second]++] = static_cast<uint32_t>(head);
			}
			head += 1 + (end - start);
			poller.tick(end - start);
		}
	}

	for (uint32_t pivot = 0; pivot < probe.count; pivot++)
	{
		poller.tick();
		if (pivots[pivot] != kNone) continue;
		pivots[pivot] = pivot;
		// an empty set resembles nothing, itself included (it is in no bucket)
		resemblance[pivot] = probe.empty[pivot] != 0 ? 0.0 : 1.0;
		if (first[pivot] == first[pivot + 1]) continue;
		next_probe(probe);
		const uint32_t *values = probe.signatures[pivot];
		for (uint32_t b = first[pivot]; b < first[pivot + 1]; b++)
			minhash::take_from_bucket(
			    buckets.data() + in_bucket[b], pivot, probe.threshold, pivots, resemblance, poller,
			    [&probe](uint32_t row) {
				    if (probe.compared[row] == probe.probes) return false;
				    probe.compared[row] = probe.probes;
				    return true;
			    },
			    [&](uint32_t row) {
				    // mh_resemblance's arithmetic, as the grouping compares
				    return static_cast<double>(
				               mh_agreeing_positions(values, probe.signatures[row], probe.num_perm)) /
				           probe.num_perm;
			    });
	}
}

} // namespace

extern "C" {

MhStatus mh_band_probe_build(const uint32_t *const *signatures, const uint8_t *empty,
                             uint32_t count, uint32_t num_perm, double threshold, uint32_t bands,
                             uint32_t rows, uint64_t max_bytes, MhInterruptPoll poll,
                             void *poll_arg, MhBandProbe **probe, uint64_t *memory) noexcept
{
	*probe = nullptr;
	*memory = 0;
	MhBandProbe *made = nullptr;
	const MhStatus status = minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_band_probe_build");
		if (mh_check_threshold(threshold) != MH_OK) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		if (bands != 0 && mh_check_layout(bands, rows, num_perm) != MH_OK)
			return MH_ERR_BANDS_RANGE;
		if (bands == 0)
		{
			MhPigeonholeLayout layout;
			const MhStatus s = mh_pigeonhole_layout(threshold, num_perm, 0, &layout);
			if (s == MH_OK)
			{
				bands = layout.bands;
				rows = layout.rows;
			}
			else if (s != MH_ERR_BANDS_RANGE)
				return s;
		}
		if (sizeof(MhBandProbe) > max_bytes) return MH_ERR_TOO_LARGE;
		made = new MhBandProbe(max_bytes - sizeof(MhBandProbe));
		made->signatures = signatures;
		made->empty = empty;
		made->count = count;
		made->num_perm = num_perm;
		made->threshold = threshold;
		made->bands = bands;
		made->rows = rows;
		Poller poller(poll, poll_arg);
		try
		{
			build(*made, poller);
		}
		catch (const minhash::OverBudget &over)
		{
			*memory = std::max<uint64_t>(over.wanted, static_cast<uint64_t>(count) * (24 * bands + 8)) +
			          sizeof(MhBandProbe);
			return MH_ERR_TOO_LARGE;
		}
		*memory = made->budget.peak() + sizeof(MhBandProbe);
		return MH_OK;
	});
	if (status != MH_OK)
	{
		delete made;
		return status;
	}
	*probe = made;
	return MH_OK;
}

// Cannot throw: hashing and comparisons over arrays the build allocated.
MhStatus mh_band_probe_find(MhBandProbe *probe, const uint32_t *values, uint32_t *rows,
                            uint32_t *agreeing, uint32_t *found) noexcept
{
	find(*probe, values, rows, agreeing, found);
	return MH_OK;
}

MhStatus mh_band_probe_walk(MhBandProbe *probe, MhInterruptPoll poll, void *poll_arg,
                            uint32_t *pivots, double *resemblance) noexcept
{
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_band_probe_walk");
		if (probe->bands == 0) return MH_ERR_BANDS_RANGE;
		Poller poller(poll, poll_arg);
		try
		{
			walk(*probe, pivots, resemblance, poller);
		}
		catch (const minhash::OverBudget &)
		{
			return MH_ERR_TOO_LARGE;
		}
		return MH_OK;
	});
}

uint64_t mh_band_probe_bytes(const MhBandProbe *probe) noexcept
{
	return probe->budget.held() + sizeof(MhBandProbe);
}

void mh_band_probe_free(MhBandProbe *probe) noexcept { delete probe; }

} // extern "C"
