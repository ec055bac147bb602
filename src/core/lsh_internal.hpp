// lsh_internal.hpp
//   The key of one LSH band, shared by mh_band_keys (the index) and the
//   grouping engine.
#pragma once

#include <cstdint>

#include "little_endian_hash.hpp"
#include "minhash_core.h"

namespace minhash
{

// The band's rows hashed seeded with the band number, so that equal rows in
// different bands give different keys.
inline uint64_t band_key(const uint32_t *first, uint32_t rows, uint32_t band)
{
	return little_endian_hash<MH_MAX_NUM_PERM>(first, rows, band);
}

} // namespace minhash
