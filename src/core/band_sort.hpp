// band_sort.hpp
//   What grouping (grouping.cpp) and pairing (pairs.cpp) share: the rows
//   sorted by their key of one LSH band, and the buckets of that band, each
//   run of two or more rows with one key.  Sorting by (key, row) keeps a
//   bucket's rows in ascending order, which both rely on.  A key is 64 bits,
//   so two rows in one bucket may still differ in the band (a collision):
//   the callers check the band's values where it matters.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>

#include "budget.hpp"
#include "lsh_internal.hpp"
#include "poller.hpp"

namespace minhash
{

class BandSort
{
public:
	// Room for the keys of count rows (16 bytes a row), charged to the
	// budget.  Rows whose set is empty (empty[i] non-zero) are left out of
	// every bucket: an empty signature resembles nothing, and its values,
	// all MH_EMPTY_VALUE, would put every empty row into one bucket of every
	// band, a bucket read in full by each of them.
	BandSort(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
	         uint32_t rows, Budget &budget, Poller &poller)
	    : signatures_(signatures), rows_(rows), poller_(poller),
	      keyed_(BudgetAllocator<std::pair<uint64_t, uint32_t>>(budget))
	{
		uint32_t kept = 0;
		for (uint32_t i = 0; i < count; i++) kept += empty[i] == 0;
		keyed_.resize(kept);
		for (uint32_t i = 0, k = 0; i < count; i++)
			if (empty[i] == 0) keyed_[k++].second = i;
	}

	// The most bytes the constructor charges for count rows.
	static uint64_t bytes(uint32_t count)
	{
		return static_cast<uint64_t>(count) * sizeof(std::pair<uint64_t, uint32_t>);
	}

	// Sorts the rows by their key of `band`, then by row.
	void sort(uint32_t band)
	{
		const auto count = static_cast<uint32_t>(keyed_.size());
		for (uint32_t i = 0; i < count; i++)
		{
			const uint32_t row = keyed_[i].second;
			keyed_[i] = {
			    band_key(signatures_[row] + static_cast<size_t>(band) * rows_, rows_, band), row};
			poller_.tick();
		}
		Poller &poller = poller_;
		std::sort(keyed_.begin(), keyed_.end(), [&poller](const auto &x, const auto &y) {
			poller.tick();
			return x < y;
		});
	}

	// Calls visit(first, last) for each bucket of the band sorted last, in
	// key order: first[0 .. last - first) are its rows as (key, row), rows
	// ascending.
	template <typename Visit>
	void for_each_bucket(Visit &&visit)
	{
		const auto count = static_cast<uint32_t>(keyed_.size());
		const std::pair<uint64_t, uint32_t> *keyed = keyed_.data();
		for (uint32_t start = 0, end; start < count; start = end)
		{
			end = start + 1;
			while (end < count && keyed[end].first == keyed[start].first) end++;
			poller_.tick(end - start);
			if (end - start > 1) visit(keyed + start, keyed + end);
		}
	}

private:
	const uint32_t *const *signatures_;
	uint32_t rows_;
	Poller &poller_;
	BudgetVector<std::pair<uint64_t, uint32_t>> keyed_;
};

} // namespace minhash
