// exact_resemblance.cpp
//   The exact S_R that a signature estimates: |A ∩ B| / |A ∪ B| over the
//   distinct shingle hashes of two documents.  Sorting is the engine's
//   polling radix sort (sort.cpp), so a comparison of two 50 MB texts can be
//   cancelled.
#include <algorithm>
#include <new>
#include <vector>

#include "explain_internal.hpp"
#include "sort.hpp"

namespace minhash
{

namespace
{

// The shingle hashes of a document, as builder.cpp produces them.
std::vector<uint64_t> shingles_of(const uint64_t *words, uint64_t count, uint32_t size,
                                  uint64_t seed, Poller &poller)
{
	std::vector<uint64_t> out;
	if (count == 0) return out;
	if (count < size)
	{
		out.push_back(shingle_hash_of(words, static_cast<uint32_t>(count), seed));
		return out;
	}
	out.resize(count - size + 1);
	for (uint64_t i = 0; i + size <= count; i++)
	{
		out[i] = shingle_hash_of(words + i, size, seed);
		poller.tick(size);
	}
	return out;
}

} // namespace

} // namespace minhash

using namespace minhash;

extern "C"
{

	MhStatus mh_exact_resemblance(const uint64_t *words_a, uint64_t count_a,
	                              const uint64_t *words_b, uint64_t count_b,
	                              uint32_t shingle_size, int32_t seed, MhInterruptPoll poll,
	                              void *poll_arg, double *resemblance) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_exact_resemblance");
			if (resemblance == nullptr || shingle_size < MH_MIN_SHINGLE_SIZE ||
			    shingle_size > MH_MAX_SHINGLE_SIZE)
				return MH_ERR_SHINGLE_SIZE_RANGE;
			Poller poller(poll, poll_arg);
			const uint64_t hash_seed = shingle_hash_seed(seed);
			std::vector<uint64_t> a = shingles_of(words_a, count_a, shingle_size, hash_seed, poller);
			std::vector<uint64_t> b = shingles_of(words_b, count_b, shingle_size, hash_seed, poller);
			// No words, no shingles: resembling nothing, as mh_resemblance says.
			if (a.empty() || b.empty())
			{
				*resemblance = 0.0;
				return MH_OK;
			}
			a.resize(sort_distinct(a.data(), a.size(), false, poller));
			b.resize(sort_distinct(b.data(), b.size(), false, poller));
			uint64_t common = 0;
			for (size_t i = 0, j = 0; i < a.size() && j < b.size();)
			{
				if (a[i] < b[j])
					i++;
				else if (b[j] < a[i])
					j++;
				else
				{
					common++;
					i++;
					j++;
				}
			}
			*resemblance = static_cast<double>(common) /
			               static_cast<double>(a.size() + b.size() - common);
			return MH_OK;
		});
	}

} // extern "C"
