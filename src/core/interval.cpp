// interval.cpp
//   How sure a resemblance estimate is: the Clopper-Pearson interval for the
//   proportion of agreeing positions.  Each position of a signature agrees
//   with probability S_R, independently across positions (different hash
//   functions), so the count is binomial(num_perm, S_R) and the exact
//   binomial interval applies:
//       lower = Beta quantile(alpha/2;     x,     n - x + 1)   (0 if x = 0)
//       upper = Beta quantile(1 - alpha/2; x + 1, n - x)       (1 if x = n)
//   with alpha = 1 - confidence.  It never covers less than the confidence
//   (it is conservative), unlike the normal approximation near 0 and 1.
//   The incomplete beta function is the continued fraction evaluated by
//   Lentz's method; its inverse is found by bisection, which cannot fail.
#include <cmath>

#include "minhash_core.h"

namespace
{

// Continued fraction of I_x(a, b) (valid for x < (a + 1) / (a + b + 2)).
double beta_continued_fraction(double x, double a, double b)
{
	constexpr double kTiny = 1e-300;
	constexpr double kEpsilon = 1e-16;
	double c = 1.0;
	double d = 1.0 - (a + b) * x / (a + 1.0);
	if (std::fabs(d) < kTiny) d = kTiny;
	d = 1.0 / d;
	double h = d;
	for (int m = 1; m <= 10000; m++)
	{
		const double m2 = 2.0 * m;
		// even step: m (b - m) x / ((a + 2m - 1)(a + 2m))
		double term = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
		d = 1.0 + term * d;
		if (std::fabs(d) < kTiny) d = kTiny;
		c = 1.0 + term / c;
		if (std::fabs(c) < kTiny) c = kTiny;
		d = 1.0 / d;
		h *= d * c;
		// odd step: -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1))
		term = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
		d = 1.0 + term * d;
		if (std::fabs(d) < kTiny) d = kTiny;
		c = 1.0 + term / c;
		if (std::fabs(c) < kTiny) c = kTiny;
		d = 1.0 / d;
		const double step = d * c;
		h *= step;
		if (std::fabs(step - 1.0) < kEpsilon) break;
	}
	return h;
}

} // namespace

extern "C"
{

	double mh_incomplete_beta(double x, double a, double b) noexcept
	{
		if (!(a > 0.0) || !(b > 0.0) || std::isnan(x)) return NAN;
		if (x <= 0.0) return 0.0;
		if (x >= 1.0) return 1.0;
		const double log_front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
		                         a * std::log(x) + b * std::log1p(-x);
		if (x < (a + 1.0) / (a + b + 2.0))
			return std::exp(log_front) * beta_continued_fraction(x, a, b) / a;
		return 1.0 - std::exp(log_front) * beta_continued_fraction(1.0 - x, b, a) / b;
	}

	double mh_beta_quantile(double p, double a, double b) noexcept
	{
		if (!(a > 0.0) || !(b > 0.0) || !(p >= 0.0 && p <= 1.0)) return NAN;
		if (p == 0.0) return 0.0;
		if (p == 1.0) return 1.0;
		double low = 0.0, high = 1.0;
		for (int i = 0; i < 200 && high - low > 1e-17; i++)
		{
			const double mid = 0.5 * (low + high);
			if (mid <= low || mid >= high) break;
			if (mh_incomplete_beta(mid, a, b) < p)
				low = mid;
			else
				high = mid;
		}
		return 0.5 * (low + high);
	}

	MhStatus mh_resemblance_interval(uint32_t agreeing, uint32_t num_perm, double confidence,
	                                 double *lower, double *upper) noexcept
	{
		if (lower == nullptr || upper == nullptr || num_perm == 0 || agreeing > num_perm)
			return MH_ERR_INTERNAL;
		if (!(confidence > 0.0 && confidence < 1.0)) return MH_ERR_ARGUMENT;
		const double alpha = 1.0 - confidence;
		const double x = agreeing, n = num_perm;
		*lower = agreeing == 0 ? 0.0 : mh_beta_quantile(alpha / 2.0, x, n - x + 1.0);
		*upper = agreeing == num_perm ? 1.0 : mh_beta_quantile(1.0 - alpha / 2.0, x + 1.0, n - x);
		return MH_OK;
	}

} // extern "C"
