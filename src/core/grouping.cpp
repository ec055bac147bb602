// grouping.cpp
//   The engine of near_dupe_groups(): the greedy pivot walk over signatures
//   held in memory.  Rows come in rank order; each row not yet taken becomes
//   a pivot and takes every row not yet taken whose resemblance to it
//   reaches the threshold.  A pivot looks only at the rows sharing one of
//   its LSH band keys (seed 001, section 5), with a layout that misses no
//   pair at the threshold: with at most D disagreeing positions and D + 1
//   bands, some band agrees in every row (pigeonhole, mh_pigeonhole_layout
//   with no spare bands).  Where those bands would hold one or two values,
//   the buckets are instead those of the rows' prefix tokens
//   (prefix_filter.hpp), which miss no such pair either and crowd far less
//   on text with boilerplate.  So the groups are those of comparing every
//   pair.
//   Approximate mode (recall =>, mh_group_greedy_banded) walks the same way
//   with the caller's layout (mh_recall_layout): a pair sharing no band key
//   is not compared.  The buckets come from the band sort pairs.cpp uses
//   too (band_sort.hpp), and everything the walk holds is charged to the
//   caller's grant before it is allocated (budget.hpp).
//
//   Why in memory and not SQL: the walk is one loop that polls for
//   interrupts every few milliseconds and holds no temporary file, so a
//   cancel ends it at once; and a pivot takes its whole bucket in one pass,
//   so n near-copies of one document cost n comparisons, not n^2 / 2 pairs.
#include <algorithm>

#include "band_sort.hpp"
#include "boundary.hpp"
#include "budget.hpp"
#include "greedy_bucket.hpp"
#include "minhash_core.h"
#include "poller.hpp"
#include "prefix_filter.hpp"

namespace
{

using minhash::Budget;
using minhash::BudgetAllocator;
using minhash::BudgetVector;
using minhash::Poller;

constexpr uint32_t kNone = UINT32_MAX;

// For each band, the buckets of two or more rows sharing a key:
// bucket_of[t][i] is where row i's bucket begins in members[t] (its current
// length, then its rows), or kNone for a row alone in its bucket.  Rows
// leave a bucket once taken, so that a crowded bucket is read in full once,
// not once per pivot in it.  One array a band, each filled between polls.
struct BucketLists
{
	explicit BucketLists(Budget &budget)
	    : bucket_of(BudgetAllocator<BudgetVector<uint32_t>>(budget)),
	      members(BudgetAllocator<BudgetVector<uint32_t>>(budget))
	{
	}
	BudgetVector<BudgetVector<uint32_t>> bucket_of;
	BudgetVector<BudgetVector<uint32_t>> members;
};

// The most bytes bucket_rows and the walk charge for count rows and `bands`
// bands: the band sort, then per band a place for each row (4 bytes) and at
// most 1.5 list entries a row (a bucket of k >= 2 rows takes 1 + k), and the
// walk's compared_by (4 bytes a row).
uint64_t group_bound(uint32_t count, uint32_t bands)
{
	const uint64_t n = count;
	const uint64_t per_band = 2 * sizeof(BudgetVector<uint32_t>) + 4 * n + 4 * (n + n / 2);
	return minhash::BandSort::bytes(count) + bands * per_band + 4 * n;
}

BucketLists bucket_rows(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                        uint32_t bands, uint32_t rows, Budget &budget, Poller &poller)
{
	BucketLists buckets(budget);
	buckets.bucket_of.reserve(bands);
	buckets.members.reserve(bands);
	minhash::BandSort sorted(signatures, empty, count, rows, budget, poller);
	for (uint32_t band = 0; band < bands; band++)
	{
		sorted.sort(band);
		// Two passes: the size first, so that the bucket list is allocated once.
		size_t size = 0;
		sorted.for_each_bucket([&size](const auto *first, const auto *last) {
			size += 1 + static_cast<size_t>(last - first);
		});
		buckets.members.emplace_back(BudgetAllocator<uint32_t>(budget));
		BudgetVector<uint32_t> &members = buckets.members.back();
		members.reserve(size);
		buckets.bucket_of.emplace_back(count, kNone, BudgetAllocator<uint32_t>(budget));
		poller.tick(count / 16);
		uint32_t *bucket_of = buckets.bucket_of.back().data();
		sorted.for_each_bucket([&](const auto *first, const auto *last) {
			const auto head = static_cast<uint32_t>(members.size());
			members.push_back(static_cast<uint32_t>(last - first));
			for (const auto *k = first; k < last; k++)
			{
				members.push_back(k->second);
				bucket_of[k->second] = head;
			}
		});
	}
	return buckets;
}

// mh_resemblance on the bare values: 0 when either set is empty.
double resemblance_of(const uint32_t *a, bool a_empty, const uint32_t *b, bool b_empty,
                      uint32_t num_perm)
{
	if (a_empty || b_empty) return 0.0;
	return static_cast<double>(mh_agreeing_positions(a, b, num_perm)) / num_perm;
}

// A row's resemblance to itself, as a pivot: 1, or 0 for an empty set, which
// resembles nothing, itself included (mh_resembles), and so stays a group of
// its own whatever the threshold.
double own_resemblance(bool empty) { return empty ? 0.0 : 1.0; }

// The pivot walk over any complete bucket structure: for_each_bucket(pivot,
// visit) calls visit(bucket) for each bucket holding the pivot, in the form
// take_from_bucket reads.  compared_by[q] is the last pivot that compared q,
// so that a row sharing several buckets with a pivot is compared once.
// Empty rows are in no bucket: no pivot meets them, and as pivots they
// meet nobody.
template <typename ForEachBucket>
void walk_pivots(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                 uint32_t num_perm, double threshold, Budget &budget, Poller &poller,
                 uint32_t *pivots, double *resemblance, ForEachBucket &&for_each_bucket)
{
	BudgetVector<uint32_t> compared_by(count, kNone, BudgetAllocator<uint32_t>(budget));
	for (uint32_t pivot = 0; pivot < count; pivot++)
	{
		poller.tick();
		if (pivots[pivot] != kNone) continue;
		pivots[pivot] = pivot;
		resemblance[pivot] = own_resemblance(empty[pivot] != 0);
		for_each_bucket(pivot, [&](uint32_t *bucket) {
			minhash::take_from_bucket(
			    bucket, pivot, threshold, pivots, resemblance, poller,
			    [&](uint32_t row) {
				    if (compared_by[row] == pivot) return false;
				    compared_by[row] = pivot;
				    return true;
			    },
			    [&](uint32_t row) {
				    return resemblance_of(signatures[pivot], empty[pivot] != 0, signatures[row],
				                          empty[row] != 0, num_perm);
			    });
		});
	}
}

// The walk over the buckets of `bands` bands of `rows` values.
void walk_buckets(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                  uint32_t num_perm, double threshold, uint32_t bands, uint32_t rows,
                  Budget &budget, Poller &poller, uint32_t *pivots, double *resemblance)
{
	BucketLists buckets = bucket_rows(signatures, empty, count, bands, rows, budget, poller);
	walk_pivots(signatures, empty, count, num_perm, threshold, budget, poller, pivots, resemblance,
	            [&](uint32_t pivot, auto &&visit) {
		            for (uint32_t band = 0; band < bands; band++)
		            {
			            const uint32_t head = buckets.bucket_of[band][pivot];
			            if (head != kNone) visit(buckets.members[band].data() + head);
		            }
	            });
}

// The walk over the buckets of the rows' prefix tokens (prefix_filter.hpp):
// the same pivots and resemblances as over the pigeonhole bands, since both
// offer each pivot every row at the threshold.
void walk_prefixes(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                   uint32_t num_perm, double threshold, uint32_t max_disagreements,
                   uint32_t block, Budget &budget, Poller &poller, uint32_t *pivots,
                   double *resemblance)
{
	minhash::PrefixBuckets buckets(signatures, empty, count, num_perm, max_disagreements, block,
	                               budget, poller);
	walk_pivots(signatures, empty, count, num_perm, threshold, budget, poller, pivots, resemblance,
	            [&](uint32_t pivot, auto &&visit) {
		            for (const uint32_t *head = buckets.heads_begin(pivot);
		                 head < buckets.heads_end(pivot); head++)
			            visit(buckets.bucket(*head));
	            });
}

MhStatus group_greedy(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                      uint32_t num_perm, double threshold, uint32_t bands, uint32_t rows,
                      uint64_t max_bytes, Poller &poller, uint32_t *pivots, double *resemblance,
                      uint64_t *memory)
{
	*memory = 0;
	std::fill(pivots, pivots + count, kNone);
	if (count == 0) return MH_OK;
	poller.check();

	// Exact (bands 0): the fewest bands the guarantee allows (no spare
	// bands), the longest bands, so the fewest chance candidates.  With no
	// pigeonhole layout (threshold 0) every pair of non-empty rows
	// qualifies, so the first non-empty row takes them all, empty rows stay
	// alone, and no memory is needed.  Approximate: the caller's layout.
	MhPigeonholeLayout layout;
	const MhStatus status = bands != 0 ? MH_OK : mh_pigeonhole_layout(threshold, num_perm, 0, &layout);
	if (status == MH_ERR_BANDS_RANGE)
	{
		uint32_t first = kNone;
		for (uint32_t i = 0; i < count; i++)
		{
			if (empty[i] != 0 || first == kNone)
			{
				pivots[i] = i;
				resemblance[i] = own_resemblance(empty[i] != 0);
				if (empty[i] == 0) first = i;
			}
			else
			{
				pivots[i] = first;
				resemblance[i] =
				    resemblance_of(signatures[first], false, signatures[i], false, num_perm);
			}
			poller.tick();
		}
		return MH_OK;
	}

	if (status != MH_OK) return status;
	// Exact at low thresholds: prefix filtering where it is the faster
	// (prefix_filter.hpp), its arrays within the bands' bound, which a
	// refusal names either way.
	minhash::prefix_detail::Plan by_prefix{0, 0};
	if (bands == 0)
	{
		bands = layout.bands;
		rows = layout.rows;
		const uint32_t d = layout.max_disagreements;
		const uint64_t band_bound = group_bound(count, bands);
		const minhash::prefix_detail::Plan plan =
		    minhash::prefix_filter_plan(count, num_perm, d, band_bound);
		if (minhash::prefix_filter_applies(count, num_perm, d) && plan.bytes <= band_bound)
			by_prefix = plan;
	}
	Budget budget(max_bytes);
	try
	{
		if (by_prefix.block != 0)
			walk_prefixes(signatures, empty, count, num_perm, threshold, layout.max_disagreements,
			              by_prefix.block, budget, poller, pivots, resemblance);
		else
			walk_buckets(signatures, empty, count, num_perm, threshold, bands, rows, budget,
			             poller, pivots, resemblance);
	}
	catch (const minhash::OverBudget &)
	{
		std::fill(pivots, pivots + count, kNone);
		*memory = group_bound(count, bands);
		return MH_ERR_TOO_LARGE;
	}
	*memory = budget.peak();
	return MH_OK;
}

} // namespace

extern "C" {

MhStatus mh_group_greedy(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
                         uint32_t num_perm, double threshold, uint64_t max_bytes,
                         MhInterruptPoll poll, void *poll_arg, uint32_t *pivots,
                         double *resemblance, uint64_t *memory) noexcept
{
	*memory = 0;
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_group_greedy");
		if (mh_check_threshold(threshold) != MH_OK) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		if (count == kNone) return MH_ERR_TOO_LARGE;
		Poller poller(poll, poll_arg);
		return group_greedy(signatures, empty, count, num_perm, threshold, 0, 0, max_bytes, poller,
		                    pivots, resemblance, memory);
	});
}

MhStatus mh_group_greedy_banded(const uint32_t *const *signatures, const uint8_t *empty,
                                uint32_t count, uint32_t num_perm, double threshold,
                                uint32_t bands, uint32_t rows, uint64_t max_bytes,
                                MhInterruptPoll poll, void *poll_arg, uint32_t *pivots,
                                double *resemblance, uint64_t *memory) noexcept
{
	*memory = 0;
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_group_greedy_banded");
		if (mh_check_threshold(threshold) != MH_OK) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		if (mh_check_layout(bands, rows, num_perm) != MH_OK) return MH_ERR_BANDS_RANGE;
		if (count == kNone) return MH_ERR_TOO_LARGE;
		Poller poller(poll, poll_arg);
		return group_greedy(signatures, empty, count, num_perm, threshold, bands, rows, max_bytes,
		                    poller, pivots, resemblance, memory);
	});
}

void *mh_large_alloc(size_t bytes) noexcept { return minhash::allocate_large_or_null(bytes); }

void mh_large_free(void *memory, size_t bytes) noexcept { minhash::free_large(memory, bytes); }

} // extern "C"
