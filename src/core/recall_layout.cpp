// recall_layout.cpp
//   The approximate layout for a recall (mh_recall_layout): the bands and
//   rows of gin_minhash_approx_ops indexes (approximate layout 1) and of
//   near_dupe_groups and near_dupe_pairs with recall =>.
//
//   An approximate index's keys depend on this choice, so it is computed in
//   integers only (exact_arithmetic.hpp): probabilities in 63-bit fixed
//   point, powers by one fixed sequence of products, ties broken by integer
//   comparisons.  Every build picks the same layout for the same stored
//   options.  Never change what it returns: existing indexes hold its keys
//   (test/core and sql/layout.sql pin a grid of it).  A better choice
//   is a new function and a new approximate layout version.
#include "boundary.hpp"
#include "exact_arithmetic.hpp"
#include "minhash_core.h"

namespace
{

using minhash::Fixed;
using minhash::fixed_multiply;
using minhash::fixed_power;
using minhash::kFixedOne;

// Simpson's rule intervals for the chance-candidate measure.
constexpr uint32_t kIntervals = 128;

// The S-curve, 1 - (1 - s^rows)^bands.
Fixed candidate_probability(Fixed s, uint32_t bands, uint32_t rows)
{
	return kFixedOne - fixed_power(kFixedOne - fixed_power(s, rows), bands);
}

// The chance candidates of a layout: the integral of its S-curve over
// [0, threshold] by Simpson's rule, up to the factor h / 3 every layout
// shares.  Each of the 129 values loses its low 8 bits so that the weighted
// sum (weights 1, 4, 2, ..., 4, 1: 384 in all) stays below 2^64.
uint64_t chance_candidates(Fixed threshold, uint32_t bands, uint32_t rows)
{
	const Fixed step = threshold / kIntervals, remainder = threshold % kIntervals;
	uint64_t sum = 0;
	for (uint32_t i = 0; i <= kIntervals; i++)
	{
		// floor(threshold * i / intervals), exactly
		const Fixed s = step * i + remainder * i / kIntervals;
		const uint64_t weight = i == 0 || i == kIntervals ? 1 : (i % 2 == 1 ? 4 : 2);
		sum += weight * (candidate_probability(s, bands, rows) >> 8);
	}
	return sum;
}

// The fewest bands of `rows` values whose S-curve reaches the recall at the
// target, that is (1 - target^rows)^bands <= 1 - recall, with the powers
// taken one band at a time; 0 when more than num_perm values would be needed.
uint32_t fewest_bands(Fixed target, Fixed allowed_miss, uint32_t rows, uint32_t num_perm)
{
	const Fixed miss_one = kFixedOne - fixed_power(target, rows);
	Fixed miss = kFixedOne;
	for (uint32_t bands = 1; static_cast<uint64_t>(bands) * rows <= num_perm; bands++)
	{
		miss = fixed_multiply(miss, miss_one);
		if (miss <= allowed_miss) return bands;
	}
	return 0;
}

} // namespace

extern "C" {

double mh_recall_target(double threshold) noexcept
{
	const double margin = threshold + MH_RECALL_MARGIN;
	const double halfway = (threshold + 1.0) / 2.0;
	return margin < halfway ? margin : halfway;
}

MhStatus mh_recall_layout(double threshold, double recall, uint32_t num_perm, uint32_t *bands,
                          uint32_t *rows) noexcept
{
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_recall_layout");
		if (!(threshold > 0.0 && threshold <= 1.0)) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM) return MH_ERR_NUM_PERM_RANGE;
		if (!(recall > 0.0 && recall < 1.0)) return MH_ERR_ARGUMENT;
		const Fixed fixed_threshold = minhash::fixed_from_unit(threshold);
		// mh_recall_target in fixed point: 1/20 above the threshold, at most
		// halfway to one.
		const Fixed margin = fixed_threshold + kFixedOne / 20;
		const Fixed halfway = fixed_threshold + (kFixedOne - fixed_threshold) / 2;
		const Fixed target = margin < halfway ? margin : halfway;
		const Fixed allowed_miss = kFixedOne - minhash::fixed_from_unit(recall);
		bool found = false;
		uint64_t best = 0;
		for (uint32_t r = 1; r <= num_perm; r++)
		{
			// Longer bands need at least as many bands (target^r only
			// shrinks): past the first rows that do not fit, none does.
			const uint32_t b = fewest_bands(target, allowed_miss, r, num_perm);
			if (b == 0) break;
			const uint64_t chance = chance_candidates(fixed_threshold, b, r);
			// the fewest chance candidates; ties to fewer bands, then to longer
			// ones (r ascends)
			if (!found || chance < best || (chance == best && b <= *bands))
			{
				found = true;
				best = chance;
				*bands = b;
				*rows = r;
			}
		}
		return found ? MH_OK : MH_ERR_BANDS_RANGE;
	});
}

} // extern "C"
