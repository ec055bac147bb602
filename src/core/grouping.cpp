// grouping.cpp
//   The engine of near_dupe_groups(): the greedy pivot walk over signatures
//   held in memory.  Rows come in rank order; each row not yet taken becomes
//   a pivot and takes every row not yet taken whose resemblance to it
//   reaches the threshold.  A pivot looks only at the rows sharing one of
//   its LSH band keys (seed 001, section 5), with a layout that misses no
//   pair at the threshold: with at most D disagreeing positions and D + 1
//   bands, some band agrees in every row (pigeonhole, mh_pigeonhole_layout
//   with no spare bands).  So the groups are
//   those of comparing every pair.  Approximate mode (recall =>,
//   mh_group_greedy_banded) walks the same way with the caller's layout
//   (mh_recall_layout): a pair sharing no band key is not compared.
//
//   Why in memory and not SQL: the walk is one loop that polls for
//   interrupts every few milliseconds and holds no temporary file, so a
//   cancel ends it at once; and a pivot takes its whole bucket in one pass,
//   so n near-copies of one document cost n comparisons, not n^2 / 2 pairs.
#include <algorithm>
#include <utility>
#include <vector>

#include "boundary.hpp"
#include "large_allocator.hpp"
#include "lsh_internal.hpp"
#include "minhash_core.h"
#include "poller.hpp"

namespace
{

using minhash::LargeVector;
using minhash::Poller;

constexpr uint32_t kNone = UINT32_MAX;

// For each band, the buckets of two or more rows sharing a key:
// bucket_of[t][i] is where row i's bucket begins in members[t] (its current
// length, then its rows), or kNone for a row alone in its bucket.  Rows
// leave a bucket once taken, so that a crowded bucket is read in full once,
// not once per pivot in it.  One array a band, each filled between polls.
struct BandBuckets
{
	std::vector<LargeVector<uint32_t>> bucket_of;
	std::vector<LargeVector<uint32_t>> members;
};

BandBuckets bucket_rows(const uint32_t *const *signatures, uint32_t count, uint32_t bands,
                        uint32_t rows, Poller &poller)
{
	BandBuckets buckets;
	buckets.bucket_of.resize(bands);
	buckets.members.resize(bands);
	LargeVector<std::pair<uint64_t, uint32_t>> keyed(count);
	for (uint32_t band = 0; band < bands; band++)
	{
		for (uint32_t i = 0; i < count; i++)
		{
			keyed[i] = {minhash::band_key(signatures[i] + static_cast<size_t>(band) * rows, rows,
			                              band),
			            i};
			poller.tick();
		}
		std::sort(keyed.begin(), keyed.end(), [&poller](const auto &a, const auto &b) {
			poller.tick();
			return a < b;
		});
		// The rows of one key: keyed[start .. run_end(start)).
		auto run_end = [&](uint32_t start) {
			uint32_t end = start + 1;
			while (end < count && keyed[end].first == keyed[start].first) end++;
			return end;
		};
		// Two passes: the size first, so that the bucket list is allocated once.
		size_t size = 0;
		for (uint32_t start = 0, end; start < count; start = end)
		{
			end = run_end(start);
			if (end - start > 1) size += 1 + (end - start);
		}
		LargeVector<uint32_t> &members = buckets.members[band];
		members.reserve(size);
		buckets.bucket_of[band].assign(count, kNone);
		poller.tick(count / 16);
		uint32_t *bucket_of = buckets.bucket_of[band].data();
		for (uint32_t start = 0, end; start < count; start = end)
		{
			end = run_end(start);
			if (end - start < 2) continue;
			const auto head = static_cast<uint32_t>(members.size());
			members.push_back(end - start);
			for (uint32_t k = start; k < end; k++)
			{
				members.push_back(keyed[k].second);
				bucket_of[keyed[k].second] = head;
			}
			poller.tick(end - start);
		}
	}
	return buckets;
}

// mh_resemblance on the bare values: 1 for two empty sets, 0 for one.
double resemblance_of(const uint32_t *a, bool a_empty, const uint32_t *b, bool b_empty,
                      uint32_t num_perm)
{
	if (a_empty || b_empty) return a_empty && b_empty ? 1.0 : 0.0;
	return static_cast<double>(mh_agreeing_positions(a, b, num_perm)) / num_perm;
}

MhStatus group_greedy(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                      uint32_t num_perm, double threshold, uint32_t bands, uint32_t rows,
                      Poller &poller, uint32_t *pivots, double *resemblance)
{
	std::fill(pivots, pivots + count, kNone);
	if (count == 0) return MH_OK;
	poller.check();
	auto resemble = [&](uint32_t a, uint32_t b) {
		return resemblance_of(signatures[a], empty[a] != 0, signatures[b], empty[b] != 0,
		                      num_perm);
	};

	// Exact (bands 0): the fewest bands the guarantee allows (no spare
	// bands), the longest bands, so the fewest chance candidates.  With no
	// pigeonhole layout (threshold 0) every pair qualifies, so the first row
	// takes them all.  Approximate: the caller's layout.
	MhPigeonholeLayout layout;
	const MhStatus status = bands != 0 ? MH_OK : mh_pigeonhole_layout(threshold, num_perm, 0, &layout);
	if (status == MH_ERR_BANDS_RANGE)
	{
		for (uint32_t i = 0; i < count; i++)
		{
			pivots[i] = 0;
			resemblance[i] = i == 0 ? 1.0 : resemble(0, i);
			poller.tick();
		}
		return MH_OK;
	}

	if (status != MH_OK) return status;
	if (bands == 0)
	{
		bands = layout.bands;
		rows = layout.rows;
	}
	BandBuckets buckets = bucket_rows(signatures, count, bands, rows, poller);

	// compared_by[q]: the last pivot that compared q, so that a row sharing
	// several bands with a pivot is compared once.
	LargeVector<uint32_t> compared_by(count, kNone);
	for (uint32_t pivot = 0; pivot < count; pivot++)
	{
		poller.tick();
		if (pivots[pivot] != kNone) continue;
		pivots[pivot] = pivot;
		resemblance[pivot] = 1.0;
		for (uint32_t band = 0; band < bands; band++)
		{
			const uint32_t head = buckets.bucket_of[band][pivot];
			if (head == kNone) continue;
			uint32_t *bucket = buckets.members[band].data() + head;
			uint32_t length = bucket[0];
			for (uint32_t k = 0; k < length;)
			{
				poller.tick();
				const uint32_t row = bucket[1 + k];
				if (pivots[row] != kNone)
				{
					// Taken (or the pivot itself): out of the bucket for good.
					bucket[1 + k] = bucket[length];
					length--;
					continue;
				}
				k++;
				if (compared_by[row] == pivot) continue;
				compared_by[row] = pivot;
				const double r = resemble(pivot, row);
				if (r >= threshold)
				{
					pivots[row] = pivot;
					resemblance[row] = r;
				}
			}
			bucket[0] = length;
		}
	}
	return MH_OK;
}

} // namespace

extern "C" {

MhStatus mh_group_greedy(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                         uint32_t num_perm, double threshold, MhInterruptPoll poll,
                         void *poll_arg, uint32_t *pivots, double *resemblance) noexcept
{
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_group_greedy");
		if (mh_check_threshold(threshold) != MH_OK) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		if (count == kNone) return MH_ERR_TOO_LARGE;
		Poller poller(poll, poll_arg);
		return group_greedy(signatures, empty, count, num_perm, threshold, 0, 0, poller, pivots,
		                    resemblance);
	});
}

MhStatus mh_group_greedy_banded(const uint32_t *const *signatures, const uint8_t *empty,
                                uint32_t count, uint32_t num_perm, double threshold,
                                uint32_t bands, uint32_t rows, MhInterruptPoll poll,
                                void *poll_arg, uint32_t *pivots, double *resemblance) noexcept
{
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_group_greedy_banded");
		if (mh_check_threshold(threshold) != MH_OK) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		if (mh_check_layout(bands, rows, num_perm) != MH_OK) return MH_ERR_BANDS_RANGE;
		if (count == kNone) return MH_ERR_TOO_LARGE;
		Poller poller(poll, poll_arg);
		return group_greedy(signatures, empty, count, num_perm, threshold, bands, rows, poller,
		                    pivots, resemblance);
	});
}

void *mh_large_alloc(size_t bytes) noexcept { return minhash::allocate_large_or_null(bytes); }

void mh_large_free(void *memory, size_t bytes) noexcept { minhash::free_large(memory, bytes); }

uint64_t mh_group_memory(uint32_t count, uint32_t num_perm, double threshold) noexcept
{
	if (mh_check_threshold(threshold) != MH_OK || num_perm < MH_MIN_NUM_PERM ||
	    num_perm > MH_MAX_NUM_PERM)
		return 0;
	MhPigeonholeLayout layout;
	if (mh_pigeonhole_layout(threshold, num_perm, 0, &layout) != MH_OK)
		return 0; // threshold 0: no buckets
	return mh_group_memory_banded(count, layout.bands);
}

uint64_t mh_group_memory_banded(uint32_t count, uint32_t bands) noexcept
{
	// Per row: its key and number while sorting a band (16 bytes), the last
	// pivot that compared it (4), and per band its bucket's place (4) and at
	// most 1.5 entries of bucket lists (6: buckets of two rows and a length).
	if (bands < 1 || bands > MH_MAX_BANDS) return 0;
	return static_cast<uint64_t>(count) * (20 + 10 * static_cast<uint64_t>(bands));
}

} // extern "C"
