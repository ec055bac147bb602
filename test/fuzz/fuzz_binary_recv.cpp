// fuzz_binary_recv.cpp
//   The binary input parser (mh_read_binary) on arbitrary bytes, called as
//   minhash_recv calls it: a first pass that learns the number of values,
//   then a second pass with room for exactly that many.  The bytes are the
//   fuzzer's own buffer, so AddressSanitizer sees any read past the end.
//   Invariants: errors are parse statuses, never internal ones; an accepted
//   value is canonical (writing it back gives the same bytes) and survives
//   the text round trip.
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	MhSummary summary;
	MhStatus status = mh_read_binary(data, size, &summary, nullptr, 0);
	if (status != MH_OK)
	{
		FUZZ_CHECK(status != MH_ERR_INTERNAL && status != MH_ERR_BUFFER_TOO_SMALL &&
		           status != MH_OK);
		return 0;
	}
	FUZZ_CHECK(mh_check_params(&summary.params) == MH_OK);
	FUZZ_CHECK(mh_binary_length(&summary) == size);

	if (summary.params.num_perm > 1)
	{
		std::vector<uint32_t> short_values(summary.params.num_perm - 1);
		MhSummary unused;
		FUZZ_CHECK(mh_read_binary(data, size, &unused, short_values.data(),
		                          summary.params.num_perm - 1) == MH_ERR_BUFFER_TOO_SMALL);
	}

	std::vector<uint32_t> values(summary.params.num_perm);
	MhSummary second;
	status = mh_read_binary(data, size, &second, values.data(), summary.params.num_perm);
	if (status != MH_OK)
	{
		FUZZ_CHECK(status == MH_PARSE_EMPTY_NOT_MAX);
		return 0;
	}
	FUZZ_CHECK(fuzz::same_summary(summary, second));

	// Canonical: the bytes accepted are the bytes minhash_send would write.
	std::vector<unsigned char> written(size);
	FUZZ_CHECK(mh_write_binary(&second, values.data(), written.data(), size) == MH_OK);
	FUZZ_CHECK(size == 0 || std::memcmp(written.data(), data, size) == 0);
	fuzz::check_round_trips(second, values);
	return 0;
}
