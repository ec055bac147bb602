// little_endian_hash.hpp
//   XXH3-64 of an array of integers taken as little-endian bytes, so that
//   what is stored (shingle hashes behind signatures, band keys in an
//   index) is the same on every machine.
#pragma once

#include <cstddef>
#include <cstdint>

#include "xxhash_stable.hpp"

namespace minhash
{

inline uint32_t byte_swap(uint32_t x) { return __builtin_bswap32(x); }
inline uint64_t byte_swap(uint64_t x) { return __builtin_bswap64(x); }

// count <= kMaxCount.  On a big-endian machine the values are swapped in a
// stack buffer, not a std::vector: callers are noexcept and must not
// allocate (a bad_alloc there would terminate the server process).
template <std::size_t kMaxCount, typename T>
inline uint64_t little_endian_hash(const T *values, uint32_t count, uint64_t seed)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	T little[kMaxCount];
	for (uint32_t i = 0; i < count; i++) little[i] = byte_swap(values[i]);
	values = little;
#endif
	return XXH3_64bits_withSeed(values, count * sizeof(T), seed);
}

} // namespace minhash
