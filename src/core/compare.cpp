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

	// The low byte: the values are minima of hashes, whose low bits carry
	// no trace of their order, so unequal values share it 1 time in 256.
	void mh_byte_sketch(const uint32_t *values, uint32_t num_perm, uint8_t *out) noexcept
	{
		for (uint32_t i = 0; i < num_perm; i++) out[i] = static_cast<uint8_t>(values[i]);
	}

	uint32_t mh_sketch_agreeing_bound(const uint8_t *sketch, const uint32_t *values,
	                                  uint32_t num_perm) noexcept
	{
		uint32_t agreeing = 0;
		for (uint32_t i = 0; i < num_perm; i++) agreeing += sketch[i] == static_cast<uint8_t>(values[i]);
		return agreeing;
	}

	// A signature of no shingles (a document without words: size 0, every
	// value MH_EMPTY_VALUE) resembles nothing, itself included.  As sets two
	// empty documents are equal, but "equal" would make every empty,
	// whitespace-only and punctuation-only document a near-duplicate of every
	// other: one group, pairs by the million, flags naming an unrelated row.
	// The size alone decides, so a signature stored by any version is
	// recognized.
	int mh_is_empty(const MhSummary *summary) noexcept
	{
		return summary->distinct_shingles == 0;
	}

	// Pr[min h(A) = min h(B)] = |A ∩ B| / |A ∪ B| (Broder 1997), so the fraction
	// of agreeing positions estimates the resemblance S_R; 0 when either set is
	// empty (mh_is_empty).
	double mh_resemblance(const MhSummary *a, const uint32_t *a_values, const MhSummary *b,
	                      const uint32_t *b_values) noexcept
	{
		if (mh_is_empty(a) || mh_is_empty(b)) return 0.0;
		const uint32_t n = a->params.num_perm;
		return static_cast<double>(mh_agreeing_positions(a_values, b_values, n)) / n;
	}

	// The near-duplicate test: resemblance at least threshold, and never for an
	// empty signature, also at threshold 0, where resemblance 0 would pass.
	int mh_resembles(const MhSummary *a, const uint32_t *a_values, const MhSummary *b,
	                 const uint32_t *b_values, double threshold) noexcept
	{
		if (mh_is_empty(a) || mh_is_empty(b)) return 0;
		return mh_resemblance(a, a_values, b, b_values) >= threshold;
	}

	// With r = |A ∩ B| / |A ∪ B| and |A ∪ B| = |A| + |B| - |A ∩ B|,
	// |A ∩ B| = r (|A| + |B|) / (1 + r).  Nothing is contained in or contains
	// an empty set (0), as an empty signature resembles nothing.
	double mh_containment(double resemblance, uint64_t size_a, uint64_t size_b) noexcept
	{
		if (size_a == 0 || size_b == 0) return 0.0;
		const double intersection =
		    resemblance * (static_cast<double>(size_a) + size_b) / (1.0 + resemblance);
		const double containment = intersection / static_cast<double>(size_a);
		return containment > 1.0 ? 1.0 : (containment < 0.0 ? 0.0 : containment);
	}

} // extern "C"
