// exact_arithmetic.hpp
//   Integer arithmetic for the choices that decide an index's keys (the
//   band layouts), so that every build computes the same bits.  Floating
//   point would not: libm's pow and log differ between libraries, compilers
//   may contract a * b + c into one fused operation, and x87 code rounds
//   intermediates to 64-bit mantissas.  Integer operations are defined by the
//   language alone.
#pragma once

#include <cstdint>

namespace minhash
{

// A 128-bit unsigned integer, high and low words (no __int128: not every
// target has it).
struct Wide
{
	uint64_t high;
	uint64_t low;
};

inline bool operator==(Wide a, Wide b) { return a.high == b.high && a.low == b.low; }
inline bool operator<(Wide a, Wide b) { return a.high != b.high ? a.high < b.high : a.low < b.low; }

// a * b, exactly.
inline Wide multiply_wide(uint64_t a, uint64_t b)
{
	const uint64_t a_high = a >> 32, a_low = a & 0xFFFFFFFFu;
	const uint64_t b_high = b >> 32, b_low = b & 0xFFFFFFFFu;
	const uint64_t low_low = a_low * b_low, high_low = a_high * b_low;
	const uint64_t low_high = a_low * b_high, high_high = a_high * b_high;
	// each term below 2^32, so the sum is below 3 * 2^32
	const uint64_t middle = (low_low >> 32) + (high_low & 0xFFFFFFFFu) + (low_high & 0xFFFFFFFFu);
	return {high_high + (high_low >> 32) + (low_high >> 32) + (middle >> 32),
	        (middle << 32) | (low_low & 0xFFFFFFFFu)};
}

// a * 2^shift, for results below 2^128 (shift < 128).
inline Wide shift_left(uint64_t a, unsigned shift)
{
	if (shift == 0) return {0, a};
	if (shift >= 64) return {a << (shift - 64), 0};
	return {a >> (64 - shift), a << shift};
}

// A probability in fixed point: p is stored as p * 2^63, from 0 to 2^63
// (one).  Products round down.
using Fixed = uint64_t;
constexpr Fixed kFixedOne = uint64_t{1} << 63;

// floor(a * b / 2^63) for a, b <= one.
inline Fixed fixed_multiply(Fixed a, Fixed b)
{
	const Wide product = multiply_wide(a, b); // below 2^126
	return (product.high << 1) | (product.low >> 63);
}

// x^k by square-and-multiply (one fixed sequence of products, so one result).
inline Fixed fixed_power(Fixed x, uint64_t k)
{
	Fixed result = kFixedOne;
	while (k != 0)
	{
		if (k & 1) result = fixed_multiply(result, x);
		k >>= 1;
		if (k != 0) x = fixed_multiply(x, x);
	}
	return result;
}

// A double in [0, 1] in fixed point, rounded down.  Scaling by a power of
// two is exact in binary floating point and the conversion truncates, so
// the result depends only on the double's bits.
inline Fixed fixed_from_unit(double p)
{
	return static_cast<Fixed>(p * 9223372036854775808.0); // 2^63
}

} // namespace minhash
