// hash_family.hpp
//   The num_perm "permutations" of MinHash, derived from one 64-bit XXH3 hash
//   per shingle by multiply-shift hashing (Dietzfelbinger et al.):
//       h_i(x) = (a_i * x + b_i) mod 2^64, top 32 bits,   a_i odd.
//   One multiply-add per position instead of num_perm calls of XXH3.
//   a_i and b_i come from splitmix64 seeded with the signature's seed, so
//   different seeds give independent families.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minhash {

// Fill a[0..n) (odd multipliers) and b[0..n) for the given seed.
void hash_family_parameters(int32_t seed, uint32_t n, uint64_t *a, uint64_t *b);

// mins[i] = min(mins[i], h_i(x)) for i in [0, n).
void update_minimums(uint64_t x, const uint64_t *a, const uint64_t *b, uint32_t *mins,
                     uint32_t n);

// The seed of the 64-bit shingle hash, so seeds give independent hashes too.
inline uint64_t shingle_hash_seed(int32_t seed) { return static_cast<uint32_t>(seed); }

}  // namespace minhash
