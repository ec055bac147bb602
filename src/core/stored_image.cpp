// stored_image.cpp
//   The stored value's bytes as a little-endian machine holds them: what
//   btree order and hashing run over, so that they do not depend on the
//   machine's byte order (minhash_ops.c).
#include "minhash_core.h"

namespace
{

void put_le(unsigned char *out, uint64_t v, int bytes)
{
	for (int k = 0; k < bytes; k++, v >>= 8) out[k] = static_cast<unsigned char>(v & 0xFF);
}

} // namespace

extern "C"
{

	size_t mh_le_image_length(const MhSummary *summary) noexcept
	{
		return MH_STORED_VALUES_OFFSET + 4 * static_cast<size_t>(summary->params.num_perm);
	}

	MhStatus mh_write_le_image(const MhSummary *summary, const uint32_t *values,
	                           unsigned char *out, size_t out_size) noexcept
	{
		const MhParams &p = summary->params;
		if (out_size < mh_le_image_length(summary)) return MH_ERR_BUFFER_TOO_SMALL;
		out[MH_STORED_VERSION_OFFSET] = MH_FORMAT_VERSION;
		out[MH_STORED_KIND_OFFSET] = p.kind;
		out[MH_STORED_FLAGS_OFFSET] = summary->flags;
		out[MH_STORED_RESERVED_OFFSET] = 0;
		put_le(out + MH_STORED_SHINGLE_SIZE_OFFSET, p.shingle_size, 2);
		put_le(out + MH_STORED_RESERVED2_OFFSET, 0, 2);
		put_le(out + MH_STORED_SEED_OFFSET, static_cast<uint32_t>(p.seed), 4);
		put_le(out + MH_STORED_NUM_PERM_OFFSET, p.num_perm, 4);
		put_le(out + MH_STORED_RESERVED3_OFFSET, 0, 4);
		put_le(out + MH_STORED_DISTINCT_OFFSET, summary->distinct_shingles, 8);
		for (uint32_t i = 0; i < p.num_perm; i++)
			put_le(out + MH_STORED_VALUES_OFFSET + 4 * static_cast<size_t>(i), values[i], 4);
		return MH_OK;
	}

} // extern "C"
