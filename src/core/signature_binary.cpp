// signature_binary.cpp
//   The binary (send/recv, COPY BINARY) form, big-endian like the rest of
//   PostgreSQL's wire protocol:
//     0 version  1 kind  2 flags  3 reserved (0)
//     4-5 shingle size  6-7 reserved (0)  8-11 seed  12-15 n
//     16-23 distinct shingles  24.. n values of 4 bytes
#include "minhash_core.h"

namespace
{

constexpr size_t kHeaderBytes = 24;

void put_be(unsigned char *out, uint64_t v, int bytes)
{
	for (int k = bytes - 1; k >= 0; k--, v >>= 8) out[k] = static_cast<unsigned char>(v & 0xFF);
}

uint64_t get_be(const unsigned char *in, int bytes)
{
	uint64_t v = 0;
	for (int k = 0; k < bytes; k++) v = (v << 8) | in[k];
	return v;
}

} // namespace

extern "C"
{

	size_t mh_binary_length(const MhSummary *summary) noexcept
	{
		return kHeaderBytes + 4 * static_cast<size_t>(summary->params.num_perm);
	}

	MhStatus mh_write_binary(const MhSummary *summary, const uint32_t *values, unsigned char *out,
	                         size_t out_size) noexcept
	{
		const MhParams &p = summary->params;
		if (out_size < mh_binary_length(summary)) return MH_ERR_BUFFER_TOO_SMALL;
		out[0] = MH_FORMAT_VERSION;
		out[1] = p.kind;
		out[2] = summary->flags;
		out[3] = 0;
		put_be(out + 4, p.shingle_size, 2);
		put_be(out + 6, 0, 2);
		put_be(out + 8, static_cast<uint32_t>(p.seed), 4);
		put_be(out + 12, p.num_perm, 4);
		put_be(out + 16, summary->distinct_shingles, 8);
		for (uint32_t i = 0; i < p.num_perm; i++) put_be(out + kHeaderBytes + 4 * i, values[i], 4);
		return MH_OK;
	}

	MhStatus mh_read_binary(const unsigned char *data, size_t length, MhSummary *summary,
	                        uint32_t *values, uint32_t values_capacity) noexcept
	{
		if (length < 1) return MH_PARSE_TRUNCATED;
		if (data[0] != MH_FORMAT_VERSION) return MH_PARSE_UNKNOWN_VERSION;
		if (length < kHeaderBytes) return MH_PARSE_TRUNCATED;
		if (data[3] != 0 || get_be(data + 6, 2) != 0) return MH_PARSE_RESERVED_NONZERO;
		if (data[2] & ~MH_KNOWN_FLAGS) return MH_PARSE_UNKNOWN_FLAGS;

		MhParams &p = summary->params;
		p.kind = data[1];
		p.shingle_size = static_cast<uint16_t>(get_be(data + 4, 2));
		p.seed = static_cast<int32_t>(static_cast<uint32_t>(get_be(data + 8, 4)));
		p.num_perm = static_cast<uint32_t>(get_be(data + 12, 4));
		summary->flags = data[2];
		summary->distinct_shingles = get_be(data + 16, 8);

		const MhStatus status = mh_check_params(&p);
		if (status != MH_OK) return status;
		if ((summary->flags & MH_FLAG_SIZE_ESTIMATED) && summary->distinct_shingles == 0)
			return MH_PARSE_ESTIMATED_EMPTY;
		const size_t expected = mh_binary_length(summary);
		if (length < expected) return MH_PARSE_TRUNCATED;
		if (length > expected) return MH_PARSE_TRAILING;
		if (values == nullptr) return MH_OK;
		if (values_capacity < p.num_perm) return MH_ERR_BUFFER_TOO_SMALL;
		for (uint32_t i = 0; i < p.num_perm; i++)
		{
			values[i] = static_cast<uint32_t>(get_be(data + kHeaderBytes + 4 * i, 4));
			if (summary->distinct_shingles == 0 && values[i] != MH_EMPTY_VALUE)
				return MH_PARSE_EMPTY_NOT_MAX;
		}
		return MH_OK;
	}

} // extern "C"
