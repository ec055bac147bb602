// greedy_bucket.hpp
//   The step of the greedy pivot walk that grouping.cpp (mh_group_greedy)
//   and band_probe.cpp (mh_band_probe_walk) share: a pivot's pass over one
//   bucket, the rows sharing one of its band keys.
#pragma once

#include <cstdint>

#include "poller.hpp"

namespace minhash
{

// bucket[0] is the bucket's length, bucket[1 ..] its rows.  A taken row
// (pivots[row] set, the pivot's own included) leaves the bucket for good,
// so that a crowded bucket is read in full once, not once per pivot in it.
// Each other row is compared when first_compare(row) says the pivot has
// not compared it yet (a row sharing several bands with the pivot is
// compared once), and taken when resemblance_to(row) reaches the threshold.
template <typename FirstCompare, typename ResemblanceTo>
inline void take_from_bucket(uint32_t *bucket, uint32_t pivot, double threshold, uint32_t *pivots,
                             double *resemblance, Poller &poller, FirstCompare &&first_compare,
                             ResemblanceTo &&resemblance_to)
{
	constexpr uint32_t kNone = UINT32_MAX;
	uint32_t length = bucket[0];
	for (uint32_t k = 0; k < length;)
	{
		poller.tick();
		const uint32_t row = bucket[1 + k];
		if (pivots[row] != kNone)
		{
			bucket[1 + k] = bucket[length];
			length--;
			continue;
		}
		k++;
		if (!first_compare(row)) continue;
		const double r = resemblance_to(row);
		if (r >= threshold)
		{
			pivots[row] = pivot;
			resemblance[row] = r;
		}
	}
	bucket[0] = length;
}

} // namespace minhash
