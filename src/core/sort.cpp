// sort.cpp
//   An LSD radix sort of 64-bit values, 16 bits a pass, polling as it goes:
//   linear in the values, so a text of tens of millions of shingles sorts
//   quickly, and a cancel is seen within a pass (a comparison sort through
//   qsort was slower and could not be cancelled).
#include <algorithm>
#include <vector>

#include "boundary.hpp"
#include "large_allocator.hpp"
#include "sort.hpp"

namespace minhash
{

namespace
{

constexpr int kDigitBits = 16;
constexpr uint64_t kDigits = uint64_t(1) << kDigitBits;
constexpr uint64_t kBlock = uint64_t(1) << 16; // values between two ticks

// One stable pass: from[] into to[] by the digit at `shift`; the sign bit
// flipped on the last pass sorts two's complement values as signed.
void radix_pass(const uint64_t *from, uint64_t *to, uint64_t count, int shift, bool flip_top,
                std::vector<uint64_t> &counts, Poller &poller)
{
	const uint64_t flip = flip_top ? kDigits / 2 : 0;
	auto digit = [&](uint64_t x) { return ((x >> shift) & (kDigits - 1)) ^ flip; };
	std::fill(counts.begin(), counts.end(), 0);
	for (uint64_t start = 0; start < count; start += kBlock)
	{
		const uint64_t end = std::min(count, start + kBlock);
		for (uint64_t i = start; i < end; i++) counts[digit(from[i])]++;
		poller.tick(end - start);
	}
	uint64_t total = 0;
	for (uint64_t &c : counts)
	{
		const uint64_t here = c;
		c = total;
		total += here;
	}
	poller.tick(kDigits);
	for (uint64_t start = 0; start < count; start += kBlock)
	{
		const uint64_t end = std::min(count, start + kBlock);
		for (uint64_t i = start; i < end; i++) to[counts[digit(from[i])]++] = from[i];
		poller.tick(end - start);
	}
}

} // namespace

uint64_t sort_distinct(uint64_t *values, uint64_t count, bool as_signed, Poller &poller)
{
	if (count == 0) return 0;
	LargeVector<uint64_t> scratch(count);
	std::vector<uint64_t> counts(kDigits);
	// An even number of passes: the sorted values end where they started.
	static_assert((64 / kDigitBits) % 2 == 0, "the last pass must write into values");
	for (int shift = 0; shift < 64; shift += 2 * kDigitBits)
	{
		radix_pass(values, scratch.data(), count, shift, false, counts, poller);
		const int next = shift + kDigitBits;
		radix_pass(scratch.data(), values, count, next, as_signed && next + kDigitBits == 64, counts,
		           poller);
	}
	poller.tick(count);
	return static_cast<uint64_t>(std::unique(values, values + count) - values);
}

} // namespace minhash

using namespace minhash;

extern "C"
{

	MhStatus mh_sort_distinct(int64_t *values, uint64_t count, MhInterruptPoll poll, void *poll_arg,
	                          uint64_t *distinct) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_sort_distinct");
			if ((values == nullptr && count > 0) || distinct == nullptr) return MH_ERR_INTERNAL;
			Poller poller(poll, poll_arg);
			// int64_t and uint64_t may alias each other.
			*distinct = sort_distinct(reinterpret_cast<uint64_t *>(values), count, true, poller);
			return MH_OK;
		});
	}

} // extern "C"
