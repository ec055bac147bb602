// explain_internal.hpp
//   Shared by the explain files (exact resemblance, chunk matching): the
//   shingle hash of a window of word hashes.
#pragma once

#include <cstdint>

#include "boundary.hpp"
#include "poller.hpp"
#include "hash_family.hpp"
#include "little_endian_hash.hpp"
#include "minhash_core.h"

namespace minhash
{

// The hash minhash() gives the shingle of words[0 .. count): XXH3-64 of the
// words' hashes, little-endian, seeded with shingle_hash_seed (builder.cpp
// hashes its ring of the same values).  count <= MH_MAX_SHINGLE_SIZE.
inline uint64_t shingle_hash_of(const uint64_t *words, uint32_t count, uint64_t seed)
{
	return little_endian_hash<MH_MAX_SHINGLE_SIZE>(words, count, seed);
}

} // namespace minhash
