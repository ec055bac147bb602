// index_layout.cpp
//   The layouts of gin_minhash_ops indexes, by version.  An index records
//   its layout in its `layout` option (absent: MH_INDEX_LAYOUT_DEFAULT), and
//   every choice that decides its keys is looked up here by that version, so
//   a later library that builds new indexes differently still reads the old
//   ones exactly, and refuses the versions it does not know.
//
//   Never change a shipped entry: existing indexes hold its keys.
#include <algorithm>

#include "lsh_internal.hpp"
#include "minhash_core.h"

namespace
{

struct LayoutEntry
{
	uint32_t version;
	MhIndexLayoutVersion choices;
};

// Layout 1 (minhash 1.0): threshold 0.8, key_bits 20, D + 3 bands; with the
// recall option (1.1), mh_recall_layout's bands and rows, key_bits 24.
constexpr LayoutEntry kLayouts[] = {
    {1, {0.8, 20, 2, 24}},
};

const LayoutEntry *find_layout(uint32_t version)
{
	for (const LayoutEntry &entry : kLayouts)
		if (entry.version == version) return &entry;
	return nullptr;
}

// Layout 1's key: the 64-bit band key folded to 32 bits, low bits kept.
int32_t layout1_key(uint64_t band_key, uint32_t key_bits)
{
	const uint32_t mask = key_bits >= 32 ? UINT32_MAX : (uint32_t{1} << key_bits) - 1;
	return static_cast<int32_t>(static_cast<uint32_t>(band_key ^ (band_key >> 32)) & mask);
}

} // namespace

extern "C" {

MhStatus mh_index_layout_version(uint32_t version, MhIndexLayoutVersion *out) noexcept
{
	const LayoutEntry *entry = find_layout(version);
	if (entry == nullptr) return MH_ERR_UNKNOWN_LAYOUT;
	*out = entry->choices;
	return MH_OK;
}

MhStatus mh_index_layout(const MhIndexOptions *options, uint32_t num_perm,
                         MhIndexLayout *layout) noexcept
{
	const LayoutEntry *entry = find_layout(options->layout);
	if (entry == nullptr) return MH_ERR_UNKNOWN_LAYOUT;
	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM) return MH_ERR_NUM_PERM_RANGE;
	const uint32_t key_bits = options->key_bits != 0 ? options->key_bits
	                          : options->recall != 0.0 ? entry->choices.recall_key_bits
	                                                   : entry->choices.key_bits;
	if (key_bits > 32) return MH_ERR_ARGUMENT;
	layout->version = options->layout;
	layout->key_bits = key_bits;
	layout->approximate = 0;
	const double threshold =
	    options->threshold >= 0.0 ? options->threshold : entry->choices.threshold;
	if (options->recall != 0.0)
	{
		if (options->bands != 0 || options->rows != 0) return MH_ERR_ARGUMENT;
		const MhStatus status =
		    mh_recall_layout(threshold, options->recall, num_perm, &layout->bands, &layout->rows);
		if (status == MH_ERR_THRESHOLD_RANGE) return MH_ERR_ARGUMENT;
		if (status != MH_OK) return status;
		layout->approximate = 1;
		return MH_OK;
	}
	if (options->bands != 0 || options->rows != 0)
	{
		const MhStatus status = mh_check_layout(options->bands, options->rows, num_perm);
		if (status != MH_OK) return status;
		layout->bands = options->bands;
		layout->rows = options->rows;
		return MH_OK;
	}
	MhPigeonholeLayout pigeonhole;
	const MhStatus status =
	    mh_pigeonhole_layout(threshold, num_perm, entry->choices.spare_bands, &pigeonhole);
	if (status == MH_OK)
	{
		layout->bands = pigeonhole.bands;
		layout->rows = pigeonhole.rows;
	}
	else if (status == MH_ERR_BANDS_RANGE)
	{
		// No layout guarantees this threshold: the one that comes closest.
		layout->bands = num_perm;
		layout->rows = 1;
	}
	else
		return status == MH_ERR_THRESHOLD_RANGE ? MH_ERR_ARGUMENT : status;
	return MH_OK;
}

MhStatus mh_index_keys(const MhIndexLayout *layout, const uint32_t *values, uint32_t num_perm,
                       int32_t *keys) noexcept
{
	if (find_layout(layout->version) == nullptr) return MH_ERR_UNKNOWN_LAYOUT;
	if (layout->key_bits < 1 || layout->key_bits > 32) return MH_ERR_ARGUMENT;
	const MhStatus status = mh_check_layout(layout->bands, layout->rows, num_perm);
	if (status != MH_OK) return status;
	for (uint32_t band = 0; band < layout->bands; band++)
		keys[band] = layout1_key(
		    minhash::band_key(values + static_cast<size_t>(band) * layout->rows, layout->rows, band),
		    layout->key_bits);
	// GIN sorts each item's keys with the int4 comparator called through
	// fmgr; handing them over sorted makes that a single pass.
	std::sort(keys, keys + layout->bands);
	return MH_OK;
}

} // extern "C"
