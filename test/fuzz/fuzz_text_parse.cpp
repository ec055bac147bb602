// fuzz_text_parse.cpp
//   The text input parser (mh_parse_text) on arbitrary literals, called as
//   minhash_in calls it: a NUL-terminated string, a first pass that learns
//   the number of values, then a second pass with room for exactly that many.
//   Invariants: no error leaves the literal or reports an internal failure;
//   an accepted literal is canonical (formatting it gives back the same
//   bytes) and survives the binary round trip.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	// PostgreSQL hands minhash_in a C string: the input ends at its first NUL.
	const std::string buffer(reinterpret_cast<const char *>(data), size);
	const char *literal = buffer.c_str();
	const size_t literal_length = std::strlen(literal);

	MhSummary summary;
	size_t offset = 0;
	MhStatus status = mh_parse_text(literal, &summary, nullptr, 0, &offset);
	if (status != MH_OK)
	{
		FUZZ_CHECK(status != MH_ERR_INTERNAL && status != MH_ERR_BUFFER_TOO_SMALL);
		FUZZ_CHECK(offset <= literal_length);
		return 0;
	}
	FUZZ_CHECK(mh_check_params(&summary.params) == MH_OK);

	// Too little room is refused before any value is written.
	if (summary.params.num_perm > 1)
	{
		std::vector<uint32_t> short_values(summary.params.num_perm - 1);
		MhSummary unused;
		FUZZ_CHECK(mh_parse_text(literal, &unused, short_values.data(),
		                         summary.params.num_perm - 1, &offset) == MH_ERR_BUFFER_TOO_SMALL);
	}

	std::vector<uint32_t> values(summary.params.num_perm);
	MhSummary second;
	offset = 0;
	status = mh_parse_text(literal, &second, values.data(), summary.params.num_perm, &offset);
	if (status != MH_OK)
	{
		FUZZ_CHECK(status == MH_PARSE_BAD_HEX || status == MH_PARSE_EMPTY_NOT_MAX);
		FUZZ_CHECK(offset < literal_length);
		return 0;
	}
	FUZZ_CHECK(fuzz::same_summary(summary, second));
	if (second.distinct_shingles == 0)
		for (uint32_t v : values) FUZZ_CHECK(v == MH_EMPTY_VALUE);

	// One canonical spelling: what was accepted is what would be printed.
	FUZZ_CHECK(mh_text_length(&second) == literal_length);
	FUZZ_CHECK(fuzz::check_round_trips(second, values) == literal);
	return 0;
}
