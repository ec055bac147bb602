// craft_collisions.cpp
//   Finds the chosen values of sql/layout.sql: signatures that resemble the
//   query (values 1000 + i, 128 of them) nowhere, yet whose index keys under
//   layout 1 equal the query's in chosen bands at exactly key_bits bits (the
//   next bit differs).  A scan must take such a row as a candidate, and
//   only under layout 1's bands, folding and key_bits, which is what the
//   regression test pins.  Build and run from the top of the tree:
//     g++ -std=c++17 -O2 -Isrc/core -o /tmp/craft_collisions
//         test/layout/craft_collisions.cpp src/core/index_layout.cpp src/core/lsh.cpp
//   (one command line).
//     /tmp/craft_collisions
#include <cstdint>
#include <cstdio>
#include <vector>

#include "lsh_internal.hpp"
#include "minhash_core.h"

namespace
{

std::vector<uint32_t> signature(uint32_t base)
{
	std::vector<uint32_t> values(128);
	for (uint32_t i = 0; i < 128; i++) values[i] = base + i;
	return values;
}

uint32_t folded_band_key(const std::vector<uint32_t> &values, uint32_t band, uint32_t rows)
{
	const uint64_t key = minhash::band_key(values.data() + band * rows, rows, band);
	return static_cast<uint32_t>(key ^ (key >> 32));
}

// The first value of `band` that makes the row's key equal the query's in
// exactly `bits` bits.
uint32_t choose(const std::vector<uint32_t> &query, std::vector<uint32_t> &row, uint32_t band,
                uint32_t rows, uint32_t bits)
{
	const uint32_t target = folded_band_key(query, band, rows);
	const uint32_t mask = (1u << bits) - 1, next = 1u << bits;
	for (uint32_t x = 0;; x++)
	{
		row[band * rows] = x;
		const uint32_t key = folded_band_key(row, band, rows);
		if ((key & mask) == (target & mask) && (key & next) != (target & next)) return x;
	}
}

// Keys the row shares with the query in an index of this layout.
int shared_keys(const std::vector<uint32_t> &query, const std::vector<uint32_t> &row,
                uint32_t bands, uint32_t rows, uint32_t bits)
{
	const MhIndexLayout layout{1, bands, rows, bits};
	std::vector<int32_t> a(bands), b(bands);
	mh_index_keys(&layout, query.data(), 128, a.data());
	mh_index_keys(&layout, row.data(), 128, b.data());
	int shared = 0;
	for (int32_t x : a)
		for (int32_t y : b)
			if (x == y)
			{
				shared++;
				break;
			}
	return shared;
}

} // namespace

int main()
{
	const std::vector<uint32_t> query = signature(1000);
	struct Row
	{
		const char *name;
		uint32_t base, bands, rows, bits;
		std::vector<uint32_t> chosen_bands;
	};
	const Row rows[] = {
	    {"chosen_20", 5000000, 28, 4, 20, {0, 1, 2}},
	    {"chosen_19", 6000000, 28, 4, 19, {0, 1, 2}},
	    {"chosen_24", 7000000, 16, 8, 24, {0, 1}},
	};
	for (const Row &r : rows)
	{
		std::vector<uint32_t> row = signature(r.base);
		std::printf("%s (base %u):", r.name, r.base);
		for (uint32_t band : r.chosen_bands)
			std::printf(" position %u = %u", band * r.rows,
			            choose(query, row, band, r.rows, r.bits));
		std::printf("\n  shared keys: 28x4 at 19/20/21 bits %d/%d/%d, 16x8 at 24/25 bits %d/%d\n",
		            shared_keys(query, row, 28, 4, 19), shared_keys(query, row, 28, 4, 20),
		            shared_keys(query, row, 28, 4, 21), shared_keys(query, row, 16, 8, 24),
		            shared_keys(query, row, 16, 8, 25));
	}
	return 0;
}
