// fuzz_band_keys.cpp
//   LSH banding: mh_check_layout, mh_band_keys, mh_pigeonhole_layout and the
//   probabilities lsh_probability() reports, with parameters and values taken
//   from the input.  Called as minhash_lsh.c and minhash_gin.c call them:
//   layout checked first, then room for exactly `bands` keys.  Invariants:
//     - mh_check_layout accepts exactly bands >= 1, rows >= 1, bands * rows
//       <= num_perm, and mh_band_keys agrees with it;
//     - one key per band, equal to XXH3 of the band's rows seeded with the
//       band number, and untouched by values past bands * rows;
//     - the pigeonhole layout fits, has more bands than the most positions a
//       qualifying pair may disagree on, and that number is exact;
//     - probabilities lie in [0, 1], P[at least all bands] = p^bands.
#include <cmath>
#include <memory>

#include "xxhash_stable.hpp"

#include "fuzz_common.hpp"

namespace
{

// A threshold from the input: mostly in [0, 1], sometimes any double
// (NaN, infinities, negative), which the core must refuse.
double threshold_from(fuzz::InputReader &in)
{
	const uint8_t mode = in.byte();
	if (mode < 200) return in.u16() / 65535.0;
	const uint64_t bits = in.u64();
	double t;
	std::memcpy(&t, &bits, sizeof t);
	return t;
}

void check_band_keys(const std::vector<uint32_t> &values, uint32_t bands, uint32_t rows)
{
	const uint32_t num_perm = static_cast<uint32_t>(values.size());
	const bool fits = bands >= 1 && rows >= 1 && static_cast<uint64_t>(bands) * rows <= num_perm;
	FUZZ_CHECK((mh_check_layout(bands, rows, num_perm) == MH_OK) == fits);
	if (!fits)
	{
		// Refused before anything is written.
		FUZZ_CHECK(mh_band_keys(values.data(), num_perm, bands, rows, nullptr) ==
		           MH_ERR_BANDS_RANGE);
		return;
	}
	std::unique_ptr<uint64_t[]> keys(new uint64_t[bands]);
	FUZZ_CHECK(mh_band_keys(values.data(), num_perm, bands, rows, keys.get()) == MH_OK);
	for (uint32_t band = 0; band < bands; band++)
		FUZZ_CHECK(keys[band] == XXH3_64bits_withSeed(values.data() + static_cast<size_t>(band) * rows,
		                                              rows * sizeof(uint32_t), band));

	// Positions past the last band do not count.
	const size_t used = static_cast<size_t>(bands) * rows;
	if (used < num_perm)
	{
		std::vector<uint32_t> changed = values;
		for (size_t i = used; i < num_perm; i++) changed[i] = ~changed[i];
		std::unique_ptr<uint64_t[]> again(new uint64_t[bands]);
		FUZZ_CHECK(mh_band_keys(changed.data(), num_perm, bands, rows, again.get()) == MH_OK);
		FUZZ_CHECK(std::memcmp(keys.get(), again.get(), bands * sizeof(uint64_t)) == 0);
	}
}

void check_pigeonhole_layout(double threshold, uint32_t num_perm, uint32_t spare_bands)
{
	MhPigeonholeLayout layout{};
	const MhStatus status = mh_pigeonhole_layout(threshold, num_perm, spare_bands, &layout);
	const uint32_t bands = layout.bands, rows = layout.rows;
	if (!(threshold >= 0.0 && threshold <= 1.0))
	{
		FUZZ_CHECK(status == MH_ERR_THRESHOLD_RANGE);
		return;
	}
	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
	{
		FUZZ_CHECK(status == MH_ERR_NUM_PERM_RANGE);
		return;
	}
	// The most disagreements a pair passing `resemblance >= threshold` has,
	// tested exactly as the % operator tests it.
	const uint32_t d = mh_max_disagreements(threshold, num_perm);
	const double n = num_perm;
	FUZZ_CHECK(d <= num_perm);
	FUZZ_CHECK(d == 0 || (n - d) / n >= threshold);
	FUZZ_CHECK(d == num_perm || !((n - (d + 1)) / n >= threshold));
	if (d >= num_perm)
	{
		FUZZ_CHECK(status == MH_ERR_BANDS_RANGE);
		return;
	}
	FUZZ_CHECK(status == MH_OK);
	FUZZ_CHECK(mh_check_layout(bands, rows, num_perm) == MH_OK);
	FUZZ_CHECK(bands > d); // the pigeonhole: some band agrees
	const uint64_t wanted = static_cast<uint64_t>(d) + 1 + spare_bands;
	FUZZ_CHECK(bands == (wanted < num_perm ? wanted : num_perm));
	FUZZ_CHECK(rows == num_perm / bands);
	FUZZ_CHECK(layout.max_disagreements == d && layout.min_bands == bands - d);
}

void check_probabilities(double s, uint32_t bands, uint32_t rows, uint32_t min_bands)
{
	const double any = mh_lsh_probability(s, bands, rows);
	const double at_least = mh_lsh_probability_at_least(s, bands, rows, min_bands);
	FUZZ_CHECK(any >= 0.0 && any <= 1.0);
	FUZZ_CHECK(at_least >= 0.0 && at_least <= 1.0);
	FUZZ_CHECK(at_least <= any + 1e-9);
	// All bands agree with probability p^bands, p = s^rows.
	const double all = mh_lsh_probability_at_least(s, bands, rows, bands);
	const double expected = std::pow(std::pow(s, rows), bands);
	if (!(std::fabs(all - expected) <= 1e-9 + 1e-6 * expected))
		std::fprintf(stderr, "lsh_probability(%.17g, %u, %u, %u) = %.17g, expected %.17g\n", s,
		             bands, rows, bands, all, expected);
	FUZZ_CHECK(std::fabs(all - expected) <= 1e-9 + 1e-6 * expected);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::InputReader in{data, size};
	const uint8_t shape = in.byte();
	// num_perm: mostly valid, mostly small; sometimes anything.
	uint32_t num_perm = in.u16();
	num_perm = (shape & 1) ? num_perm % (MH_MAX_NUM_PERM + 2) : num_perm % 300 + 1;
	uint32_t bands = in.u32(), rows = in.u32();
	if (shape & 2) // small layouts, which are the usual ones
	{
		bands = bands % 300;
		rows = rows % 40;
	}
	const double threshold = threshold_from(in);
	const double s = in.u16() / 65535.0;
	const uint32_t prob_bands = in.u16() % 2000 + 1, prob_rows = in.byte() % 32 + 1;
	const uint32_t min_bands = in.u16() % prob_bands + 1;

	const uint32_t spare_bands = shape & 4 ? in.byte() : 2; // 2: the index's layout 1
	check_pigeonhole_layout(threshold, num_perm, spare_bands);
	check_probabilities(s, prob_bands, prob_rows, min_bands);

	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM) return 0;
	std::vector<uint32_t> values(num_perm);
	for (uint32_t i = 0; i < num_perm; i++)
		values[i] = in.size >= 4 ? in.u32() : (i * 0x9E3779B9u) ^ (in.size ? in.byte() : 0u);
	check_band_keys(values, bands, rows);

	// The layouts the GIN index takes for this signature size.
	MhPigeonholeLayout gin;
	if (mh_pigeonhole_layout(threshold, num_perm, spare_bands, &gin) == MH_OK)
		check_band_keys(values, gin.bands, gin.rows);
	return 0;
}
