// union.cpp: the signature of a union of sets, and an estimate of its size.
#include <cmath>

#include "minhash_core.h"

extern "C"
{

	// min over A ∪ B of h_i = min(min over A, min over B): position-wise
	// minimum.  MH_EMPTY_VALUE is the identity, so an empty set changes nothing.
	void mh_union_into(uint32_t *acc, const uint32_t *values, uint32_t num_perm) noexcept
	{
		for (uint32_t i = 0; i < num_perm; i++)
			if (values[i] < acc[i]) acc[i] = values[i];
	}

	// Each h_i is a bijection of 32-bit values applied to uniformly random
	// shingle hashes, so position i holds the minimum of m uniform values: u_i
	// = value / 2^32 has mean 1 / (m + 1), roughly exponential with rate
	// m + 1.  The sum of n of them is then Gamma(n, m + 1), and (n - 1) / sum
	// estimates m + 1 without bias (the k-minimum-values estimator with one
	// minimum per hash function).  Relative standard error about
	// 1 / sqrt(n - 2): 9% at 128 values.  A value is taken at the middle of
	// its 1/2^32 interval so that a 0 does not divide by zero.
	double mh_estimate_cardinality(const uint32_t *values, uint32_t num_perm) noexcept
	{
		if (num_perm < 2) return 0.0;
		double sum = 0.0;
		bool empty = true;
		for (uint32_t i = 0; i < num_perm; i++)
		{
			empty = empty && values[i] == MH_EMPTY_VALUE;
			sum += (static_cast<double>(values[i]) + 0.5) / 4294967296.0;
		}
		if (empty) return 0.0;
		const double estimate = (num_perm - 1) / sum - 1.0;
		return estimate > 0.0 ? estimate : 0.0;
	}

	// The union holds at least as many elements as its largest part; the
	// estimate from the values answers for overlap.  Both are functions of the
	// parts' sizes and of the final values only (the estimate grows as values
	// shrink), so any order of combining parts gives the same size.
	uint64_t mh_union_size(const uint32_t *values, uint32_t num_perm,
	                       uint64_t largest_part) noexcept
	{
		const double estimate = std::floor(mh_estimate_cardinality(values, num_perm) + 0.5);
		if (!(estimate > static_cast<double>(largest_part))) return largest_part;
		if (estimate >= 18446744073709549568.0) return UINT64_MAX;
		return static_cast<uint64_t>(estimate);
	}

} // extern "C"
