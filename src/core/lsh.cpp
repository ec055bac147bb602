// lsh.cpp
//   Locality-sensitive hashing of signatures (seed 001, section 5): b bands
//   of r rows; a pair becomes a candidate when all rows of some band agree,
//   with probability 1 - (1 - s^r)^b for a pair of resemblance s.
#include <cmath>
#include <cstring>
#include <limits>

#include "boundary.hpp"
#include "exact_arithmetic.hpp"
#include "lsh_internal.hpp"
#include "minhash_core.h"
#include "poller.hpp"

namespace
{

static_assert(std::numeric_limits<double>::is_iec559 && sizeof(double) == sizeof(uint64_t),
              "thresholds are IEEE-754 binary64");

// The % operator's test, agreeing / num_perm >= threshold, rounds the
// quotient to the nearest double (ties to even) and compares.  That is
// decided exactly by comparing the quotient itself with the midpoint L
// between the threshold and the double below it: above L it rounds to the
// threshold or higher, below it to the double below, and at L to whichever
// has an even mantissa.  Integers only, so that the layouts built from it
// (an exact index's bands) are the same on every build; on any build whose
// doubles are IEEE-754 binary64 evaluated as such, it equals the operator's
// own test (test/core checks every quotient of a grid).
struct ThresholdBound
{
	bool tiny;			// threshold < 2^-33: any positive quotient of 32-bit integers passes
	uint64_t midpoint;	// L = midpoint / 2^shift
	unsigned shift;
	bool tie_passes;	// the threshold's mantissa is even
};

// For a threshold in (0, 1].
ThresholdBound threshold_bound(double threshold)
{
	ThresholdBound bound{threshold < 0x1p-33, 0, 0, false};
	if (bound.tiny) return bound;
	uint64_t bits;
	std::memcpy(&bits, &threshold, sizeof(bits));
	const unsigned biased_exponent = static_cast<unsigned>(bits >> 52) & 0x7FFu;
	const uint64_t mantissa = (bits & ((uint64_t{1} << 52) - 1)) | (uint64_t{1} << 52);
	// threshold = mantissa * 2^(biased_exponent - 1075); the double below it
	// is one unit lower, half a unit at a power of two.
	if (mantissa == uint64_t{1} << 52)
	{
		bound.midpoint = 4 * mantissa - 1;
		bound.shift = 1077 - biased_exponent;
	}
	else
	{
		bound.midpoint = 2 * mantissa - 1;
		bound.shift = 1076 - biased_exponent;
	}
	bound.tie_passes = (mantissa & 1) == 0;
	return bound;
}

// Whether agreeing / num_perm, rounded to a double, reaches the threshold.
// The shift is at most 87, so agreeing * 2^shift stays below 2^119.
bool reaches(const ThresholdBound &bound, uint32_t agreeing, uint32_t num_perm)
{
	if (agreeing == 0) return false;
	if (bound.tiny) return true;
	const minhash::Wide quotient = minhash::shift_left(agreeing, bound.shift);
	const minhash::Wide midpoint = minhash::multiply_wide(bound.midpoint, num_perm);
	return midpoint < quotient || (quotient == midpoint && bound.tie_passes);
}

bool valid_threshold(double threshold) { return mh_check_threshold(threshold) == MH_OK; }

constexpr int kIntervals = 128;

// Simpson's rule over [from, to] with an even number of intervals.
template <typename F>
double integrate(F f, double from, double to, int intervals = kIntervals)
{
	const double h = (to - from) / intervals;
	double sum = f(from) + f(to);
	for (int i = 1; i < intervals; i++) sum += f(from + i * h) * (i % 2 == 1 ? 4 : 2);
	return sum * h / 3;
}

} // namespace

extern "C" {

uint32_t mh_max_disagreements(double threshold, uint32_t num_perm) noexcept
{
	if (!(threshold <= 1.0)) return 0; // nothing passes (NaN too)
	if (threshold <= 0.0) return num_perm;
	// The test passes for a = num_perm (1 >= threshold) and is monotone in a:
	// the fewest agreeing positions that pass, by bisection.
	const ThresholdBound bound = threshold_bound(threshold);
	uint32_t fails = 0, passes = num_perm; // a = 0 fails: threshold > 0
	while (passes - fails > 1)
	{
		const uint32_t middle = fails + (passes - fails) / 2;
		if (reaches(bound, middle, num_perm))
			passes = middle;
		else
			fails = middle;
	}
	return num_perm - passes;
}

MhStatus mh_check_layout(uint32_t bands, uint32_t rows, uint32_t num_perm) noexcept
{
	if (bands < 1 || rows < 1 || static_cast<uint64_t>(bands) * rows > num_perm)
		return MH_ERR_BANDS_RANGE;
	return MH_OK;
}

MhStatus mh_pigeonhole_layout(double threshold, uint32_t num_perm, uint32_t spare_bands,
                              MhPigeonholeLayout *layout) noexcept
{
	if (!valid_threshold(threshold)) return MH_ERR_THRESHOLD_RANGE;
	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM) return MH_ERR_NUM_PERM_RANGE;
	const uint32_t disagreements = mh_max_disagreements(threshold, num_perm);
	if (disagreements >= num_perm) return MH_ERR_BANDS_RANGE;
	const uint64_t wanted = static_cast<uint64_t>(disagreements) + 1 + spare_bands;
	layout->bands = static_cast<uint32_t>(wanted < num_perm ? wanted : num_perm);
	layout->rows = num_perm / layout->bands;
	layout->max_disagreements = disagreements;
	layout->min_bands = layout->bands - disagreements;
	return MH_OK;
}

MhStatus mh_band_keys(const uint32_t *values, uint32_t num_perm, uint32_t bands, uint32_t rows,
                      uint64_t *keys) noexcept
{
	const MhStatus status = mh_check_layout(bands, rows, num_perm);
	if (status != MH_OK) return status;
	for (uint32_t band = 0; band < bands; band++)
		keys[band] = minhash::band_key(values + static_cast<size_t>(band) * rows, rows, band);
	return MH_OK;
}

double mh_lsh_probability(double s, uint32_t bands, uint32_t rows) noexcept
{
	return 1.0 - std::pow(1.0 - std::pow(s, rows), bands);
}

double mh_lsh_probability_at_least(double s, uint32_t bands, uint32_t rows,
                                   uint32_t min_bands) noexcept
{
	if (min_bands <= 1) return mh_lsh_probability(s, bands, rows);
	if (min_bands > bands) return 0.0;
	// P[Binomial(bands, p) >= min_bands] with p = s^rows: the sum of the
	// terms on the shorter side of min_bands (one minus it for the lower
	// side).  Each term is computed on its own in log space: a running
	// product from P[X = 0] = (1 - p)^bands gave 1 whenever that first term
	// underflowed (p near 1, or many bands), whatever the true tail.
	const double p = std::pow(s, rows);
	if (p >= 1.0) return 1.0;
	if (p <= 0.0) return 0.0;
	const double log_p = std::log(p), log_q = std::log1p(-p);
	const double log_bands_factorial = std::lgamma(static_cast<double>(bands) + 1.0);
	auto term = [&](uint32_t k) {
		return std::exp(log_bands_factorial - std::lgamma(k + 1.0) -
		                std::lgamma(static_cast<double>(bands - k) + 1.0) + k * log_p +
		                static_cast<double>(bands - k) * log_q);
	};
	double at_least;
	if (bands - min_bands < min_bands)
	{
		at_least = 0.0;
		for (uint32_t k = bands; k >= min_bands; k--) at_least += term(k);
	}
	else
	{
		double below = 0.0;
		for (uint32_t k = 0; k < min_bands; k++) below += term(k);
		at_least = 1.0 - below;
	}
	return at_least < 0.0 ? 0.0 : (at_least > 1.0 ? 1.0 : at_least);
}

MhStatus mh_lsh_params(double threshold, uint32_t num_perm, double fp_weight, double fn_weight,
                       MhInterruptPoll poll, void *poll_arg, uint32_t *bands, uint32_t *rows,
                       double *false_positive, double *false_negative) noexcept
{
	return minhash::guarded([&]() -> MhStatus {
		MH_INJECTION_POINT("mh_lsh_params");
		if (!valid_threshold(threshold)) return MH_ERR_THRESHOLD_RANGE;
		if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM) return MH_ERR_NUM_PERM_RANGE;
		minhash::Poller poller(poll, poll_arg);
		double best = INFINITY;
		for (uint32_t b = 1; b <= num_perm; b++)
			for (uint32_t r = 1; static_cast<uint64_t>(b) * r <= num_perm; r++)
			{
				poller.tick(2 * kIntervals); // the formula's evaluations
				const double fp = integrate([&](double s) { return mh_lsh_probability(s, b, r); },
				                            0.0, threshold);
				const double fn = integrate(
				    [&](double s) { return 1.0 - mh_lsh_probability(s, b, r); }, threshold, 1.0);
				const double error = fp_weight * fp + fn_weight * fn;
				// The first layout is always taken, so that the outputs are set
				// even if every error overflows.
				if (error < best || (b == 1 && r == 1))
				{
					best = error;
					*bands = b;
					*rows = r;
					*false_positive = fp;
					*false_negative = fn;
				}
			}
		return MH_OK;
	});
}

} // extern "C"
