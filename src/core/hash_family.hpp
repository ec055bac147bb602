// hash_family.hpp
//   The num_perm "permutations" of MinHash, derived from one 64-bit XXH3 hash
//   per shingle without hashing again:
//       x = the shingle hash folded to 32 bits (high half XOR low half)
//       h_i(x) = (a_i * x + b_i) mod 2^32,   a_i odd
//   Each h_i is a bijection of 32-bit values (so distinct x never collide at
//   a position), and because x is already uniformly random, the shingle with
//   the smallest h_i is a uniformly random one.  One multiply-add per position
//   in 32-bit lanes: 16 positions per AVX-512 instruction.  a_i and b_i come
//   from splitmix64 seeded with the signature's seed, so different seeds give
//   independent families.  (Measured against multiply-shift on 64-bit x, the
//   estimator's bias and spread are the same; test/core checks the family.)
#pragma once

#include <cstddef>
#include <cstdint>

namespace minhash
{

// Fill a[0..n) (odd multipliers) and b[0..n) for the given seed.
void hash_family_parameters(int32_t seed, uint32_t n, uint32_t *a, uint32_t *b);

// The 32-bit input of the permutations.
inline uint32_t permutation_input(uint64_t shingle_hash)
{
	return static_cast<uint32_t>(shingle_hash ^ (shingle_hash >> 32));
}

// mins[i] = min(mins[i], h_i(x)) for i in [0, n).
void update_minimums(uint32_t x, const uint32_t *a, const uint32_t *b, uint32_t *mins, uint32_t n);

// The same for each of xs[0..count): the minimums come out as if
// update_minimums ran once per input (min is commutative and associative).
void update_minimums_batch(const uint32_t *xs, uint32_t count, const uint32_t *a, const uint32_t *b,
                           uint32_t *mins, uint32_t n);

// The seed of the 64-bit shingle hash, so seeds give independent hashes too.
inline uint64_t shingle_hash_seed(int32_t seed)
{
	return static_cast<uint32_t>(seed);
}

} // namespace minhash
