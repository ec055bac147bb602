// explain_internal.hpp
//   Shared by the explain files (exact resemblance, chunk matching): the
//   shingle hash of a window of word hashes.
#pragma once

#include <cstdint>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "boundary.hpp"
#include "poller.hpp"
#include "hash_family.hpp"
#include "minhash_core.h"

namespace minhash
{

// The hash minhash() gives the shingle of words[0 .. count): XXH3-64 of the
// words' hashes, little-endian, seeded with shingle_hash_seed (builder.cpp
// hashes its ring of the same values).  count <= MH_MAX_SHINGLE_SIZE.
inline uint64_t shingle_hash_of(const uint64_t *words, uint32_t count, uint64_t seed)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	uint64_t little[MH_MAX_SHINGLE_SIZE];
	for (uint32_t i = 0; i < count; i++) little[i] = __builtin_bswap64(words[i]);
	return XXH3_64bits_withSeed(little, count * sizeof(uint64_t), seed);
#else
	return XXH3_64bits_withSeed(words, count * sizeof(uint64_t), seed);
#endif
}

} // namespace minhash
