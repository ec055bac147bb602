// compare.cpp: the MinHash estimate of resemblance, and what follows from it.
#include "minhash_core.h"

extern "C"
{

// Compiled per instruction set like update_minimums (hash_family.cpp): every
// comparison of two signatures runs this loop.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
	__attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#endif
	uint32_t
	mh_agreeing_positions(const uint32_t *a, const uint32_t *b, uint32_t num_perm) noexcept
	{
		uint32_t agreeing = 0;
		for (uint32_t i = 0; i < num_perm; i++) agreeing += a[i] == b[i];
		return agreeing;
	}

	// Pr[min h(A) = min h(B)] = |A ∩ B| / |A ∪ B| (Broder 1997), so the fraction
	// of agreeing positions estimates the resemblance S_R.  Empty sets: two empty
	// documents are the same set (1), an empty and a non-empty one share nothing.
	double mh_resemblance(const MhSummary *a, const uint32_t *a_values, const MhSummary *b,
	                      const uint32_t *b_values) noexcept
	{
		const bool a_empty = a->distinct_shingles == 0;
		const bool b_empty = b->distinct_shingles == 0;
		if (a_empty || b_empty) return a_empty && b_empty ? 1.0 : 0.0;
		const uint32_t n = a->params.num_perm;
		return static_cast<double>(mh_agreeing_positions(a_values, b_values, n)) / n;
	}

	// With r = |A ∩ B| / |A ∪ B| and |A ∪ B| = |A| + |B| - |A ∩ B|,
	// |A ∩ B| = r (|A| + |B|) / (1 + r).  An empty A is contained in anything.
	double mh_containment(double resemblance, uint64_t size_a, uint64_t size_b) noexcept
	{
		if (size_a == 0) return 1.0;
		const double intersection =
		    resemblance * (static_cast<double>(size_a) + size_b) / (1.0 + resemblance);
		const double containment = intersection / static_cast<double>(size_a);
		return containment > 1.0 ? 1.0 : (containment < 0.0 ? 0.0 : containment);
	}

} // extern "C"
