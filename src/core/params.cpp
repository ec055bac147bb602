// params.cpp: what makes two signatures comparable, and its limits.
#include "minhash_core.h"

extern "C"
{

	MhStatus mh_check_params(const MhParams *params) noexcept
	{
		if (params == nullptr) return MH_ERR_INTERNAL;
		if (params->num_perm < MH_MIN_NUM_PERM || params->num_perm > MH_MAX_NUM_PERM)
			return MH_ERR_NUM_PERM_RANGE;
		switch (params->kind)
		{
			case MH_KIND_WORDS:
			case MH_KIND_CHARS:
				if (params->shingle_size < MH_MIN_SHINGLE_SIZE ||
				    params->shingle_size > MH_MAX_SHINGLE_SIZE)
					return MH_ERR_SHINGLE_SIZE_RANGE;
				return MH_OK;
			case MH_KIND_SET:
				return params->shingle_size == 0 ? MH_OK : MH_ERR_SHINGLE_SIZE_RANGE;
			default:
				return MH_ERR_KIND;
		}
	}

	MhStatus mh_check_threshold(double threshold) noexcept
	{
		return threshold >= 0.0 && threshold <= 1.0 ? MH_OK : MH_ERR_THRESHOLD_RANGE;
	}

	MhStatus mh_params_match(const MhParams *a, const MhParams *b) noexcept
	{
		return a->num_perm == b->num_perm && a->kind == b->kind &&
		               a->shingle_size == b->shingle_size && a->seed == b->seed
		           ? MH_OK
		           : MH_ERR_PARAMS_MISMATCH;
	}

	const char *mh_kind_name(uint8_t kind) noexcept
	{
		switch (kind)
		{
			case MH_KIND_WORDS:
				return "words";
			case MH_KIND_CHARS:
				return "chars";
			case MH_KIND_SET:
				return "set";
			default:
				return "unknown";
		}
	}

} // extern "C"
