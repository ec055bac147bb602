// lsh_internal.hpp
//   The key of one LSH band, shared by mh_band_keys (the index) and the
//   grouping engine.
#pragma once

#include <cstdint>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "minhash_core.h"

namespace minhash
{

// XXH3 of the band's rows (little-endian values) seeded with the band
// number, so that equal rows in different bands give different keys.
inline uint64_t band_key(const uint32_t *first, uint32_t rows, uint32_t band)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	// On the stack, not a std::vector: callers are noexcept and must not
	// allocate (a bad_alloc there would terminate the server process).
	uint32_t little_endian[MH_MAX_NUM_PERM];
	for (uint32_t i = 0; i < rows; i++) little_endian[i] = __builtin_bswap32(first[i]);
	first = little_endian;
#endif
	return XXH3_64bits_withSeed(first, rows * sizeof(uint32_t), band);
}

} // namespace minhash
