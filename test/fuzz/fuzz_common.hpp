// fuzz_common.hpp
//   Shared by the libFuzzer harnesses in test/fuzz: an invariant check that
//   traps (so libFuzzer saves the input), and a reader that takes the
//   harness's parameters from the front of the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "minhash_core.h"

// A violated invariant is a finding: say which, then crash so that libFuzzer
// writes the input to an artifact file.
#define FUZZ_CHECK(condition)                                                                  \
	do                                                                                         \
	{                                                                                          \
		if (!(condition))                                                                      \
		{                                                                                      \
			std::fprintf(stderr, "invariant violated: %s (%s:%d)\n", #condition, __FILE__,     \
			             __LINE__);                                                            \
			__builtin_trap();                                                                  \
		}                                                                                      \
	} while (0)

namespace fuzz
{

// Consumes parameters from the front of the input; zeros once it runs out.
struct InputReader
{
	const uint8_t *data;
	size_t size;

	uint8_t byte()
	{
		if (size == 0) return 0;
		const uint8_t b = *data;
		data++;
		size--;
		return b;
	}
	uint32_t u16()
	{
		const uint32_t hi = byte();
		return hi << 8 | byte();
	}
	uint32_t u32()
	{
		const uint32_t hi = u16();
		return hi << 16 | u16();
	}
	uint64_t u64()
	{
		const uint64_t hi = u32();
		return hi << 32 | u32();
	}
};

// A small deterministic generator for piece sizes and orders.
struct Random
{
	uint64_t state;
	explicit Random(uint64_t seed) : state(seed * 0x9E3779B97F4A7C15ULL + 1) {}
	uint64_t next()
	{
		state ^= state << 13;
		state ^= state >> 7;
		state ^= state << 17;
		return state;
	}
	uint64_t below(uint64_t n) { return n == 0 ? 0 : next() % n; }
};

inline bool same_summary(const MhSummary &a, const MhSummary &b)
{
	return a.params.num_perm == b.params.num_perm && a.params.kind == b.params.kind &&
	       a.params.shingle_size == b.params.shingle_size && a.params.seed == b.params.seed &&
	       a.flags == b.flags && a.distinct_shingles == b.distinct_shingles;
}

// A signature the core accepted survives text and binary round trips: the
// text form parses back to the same bytes (one canonical spelling), and so
// does the binary form.  Returns the text form.
inline std::string check_round_trips(const MhSummary &summary, const std::vector<uint32_t> &values)
{
	FUZZ_CHECK(mh_check_params(&summary.params) == MH_OK);
	FUZZ_CHECK(values.size() == summary.params.num_perm);
	FUZZ_CHECK(!((summary.flags & MH_FLAG_SIZE_ESTIMATED) && summary.distinct_shingles == 0));

	// text: format, parse in two passes as minhash_in does, format again
	const size_t text_length = mh_text_length(&summary);
	std::vector<char> text(text_length + 1);
	FUZZ_CHECK(mh_format_text(&summary, values.data(), text.data(), text_length) ==
	           MH_ERR_BUFFER_TOO_SMALL);
	FUZZ_CHECK(mh_format_text(&summary, values.data(), text.data(), text.size()) == MH_OK);
	FUZZ_CHECK(std::strlen(text.data()) == text_length);
	MhSummary parsed;
	size_t offset = 0;
	FUZZ_CHECK(mh_parse_text(text.data(), &parsed, nullptr, 0, &offset) == MH_OK);
	std::vector<uint32_t> parsed_values(parsed.params.num_perm);
	FUZZ_CHECK(mh_parse_text(text.data(), &parsed, parsed_values.data(),
	                         static_cast<uint32_t>(parsed_values.size()), &offset) == MH_OK);
	FUZZ_CHECK(same_summary(parsed, summary));
	FUZZ_CHECK(parsed_values == values);

	// binary: write, read in two passes as minhash_recv does, write again
	const size_t binary_length = mh_binary_length(&summary);
	std::vector<unsigned char> binary(binary_length);
	FUZZ_CHECK(mh_write_binary(&summary, values.data(), binary.data(), binary_length - 1) ==
	           MH_ERR_BUFFER_TOO_SMALL);
	FUZZ_CHECK(mh_write_binary(&summary, values.data(), binary.data(), binary_length) == MH_OK);
	MhSummary received;
	FUZZ_CHECK(mh_read_binary(binary.data(), binary.size(), &received, nullptr, 0) == MH_OK);
	std::vector<uint32_t> received_values(received.params.num_perm);
	FUZZ_CHECK(mh_read_binary(binary.data(), binary.size(), &received, received_values.data(),
	                          static_cast<uint32_t>(received_values.size())) == MH_OK);
	FUZZ_CHECK(same_summary(received, summary));
	FUZZ_CHECK(received_values == values);
	return std::string(text.data(), text_length);
}

} // namespace fuzz
