// hash_family.cpp: the permutations and the hot min-update loop.
#include "hash_family.hpp"

namespace minhash
{

namespace
{

// splitmix64 (Steele, Lea, Flood 2014): a fixed, well-mixed stream.
uint64_t splitmix64_next(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

} // namespace

// The high halves of splitmix64's outputs, drawn alternately.
void hash_family_parameters(int32_t seed, uint32_t n, uint32_t *a, uint32_t *b)
{
	uint64_t state = static_cast<uint32_t>(seed);
	for (uint32_t i = 0; i < n; i++)
	{
		a[i] = static_cast<uint32_t>(splitmix64_next(&state) >> 32) | 1;
		b[i] = static_cast<uint32_t>(splitmix64_next(&state) >> 32);
	}
}

// The loops are where much of the time goes.  Compiled once per instruction
// set and picked at load time: 16 positions per step with AVX-512, 8 with
// AVX2.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) &&                             \
    !defined(__SANITIZE_ADDRESS__)
#define MH_PER_ISA __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define MH_PER_ISA
#endif

MH_PER_ISA
void update_minimums(uint32_t x, const uint32_t *__restrict a, const uint32_t *__restrict b,
                     uint32_t *__restrict mins, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
	{
		const uint32_t value = a[i] * x + b[i];
		mins[i] = value < mins[i] ? value : mins[i];
	}
}

// A block of positions at a time, its minimums held in registers while every
// input goes by (one load and store of them per block, not per input).
MH_PER_ISA
void update_minimums_batch(const uint32_t *__restrict xs, uint32_t count,
                           const uint32_t *__restrict a, const uint32_t *__restrict b,
                           uint32_t *__restrict mins, uint32_t n)
{
	constexpr size_t kBlock = 32;
	size_t i = 0;
	for (; i + kBlock <= n; i += kBlock)
	{
		const uint32_t *__restrict ab = a + i;
		const uint32_t *__restrict bb = b + i;
		uint32_t *__restrict mb = mins + i;
		uint32_t m[kBlock], av[kBlock], bv[kBlock];
		for (size_t l = 0; l < kBlock; l++)
		{
			m[l] = mb[l];
			av[l] = ab[l];
			bv[l] = bb[l];
		}
		for (uint32_t j = 0; j < count; j++)
		{
			const uint32_t x = xs[j];
			for (size_t l = 0; l < kBlock; l++)
			{
				const uint32_t value = av[l] * x + bv[l];
				m[l] = value < m[l] ? value : m[l];
			}
		}
		for (size_t l = 0; l < kBlock; l++) mb[l] = m[l];
	}
	if (i < n)
		for (uint32_t j = 0; j < count; j++)
			update_minimums(xs[j], a + i, b + i, mins + i, static_cast<uint32_t>(n - i));
}

} // namespace minhash
