// index_layout.cpp
//   The layouts of gin_minhash_ops (exact) and gin_minhash_approx_ops
//   (approximate) indexes, by version.  An index records its layout in its
//   `layout` option (absent: the opclass's default version), and every
//   choice that decides its keys is looked up here by that version, so a
//   later library that builds new indexes differently still reads the old
//   ones exactly, and refuses the versions it does not know.
//
//   Never change a shipped entry, nor a function it names: existing indexes
//   hold its keys.
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

// Exact layout 1 (minhash 1.0): threshold 0.8, key_bits 20, D + 3 bands
// (mh_pigeonhole_layout with 2 spare bands, D from mh_max_disagreements).
constexpr LayoutEntry kLayouts[] = {
    {1, {0.8, 20, 2}},
};

struct ApproxLayoutEntry
{
	uint32_t version;
	MhApproxLayoutVersion choices;
};

// Approximate layout 1: bands and rows of mh_recall_layout
// (recall_layout.cpp: integer arithmetic only, the fewest chance candidates
// among the layouts reaching the recall at the threshold plus 0.05),
// threshold 0.8 and recall 0.99 when not given, key_bits 24.
constexpr ApproxLayoutEntry kApproxLayouts[] = {
    {1, {0.8, 0.99, 24}},
};

const LayoutEntry *find_layout(uint32_t version)
{
	for (const LayoutEntry &entry : kLayouts)
		if (entry.version == version) return &entry;
	return nullptr;
}

const ApproxLayoutEntry *find_approx_layout(uint32_t version)
{
	for (const ApproxLayoutEntry &entry : kApproxLayouts)
		if (entry.version == version) return &entry;
	return nullptr;
}

// The key of layouts 1 (exact and approximate): the 64-bit band key folded
// to 32 bits, low bits kept.
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

MhStatus mh_approx_layout_version(uint32_t version, MhApproxLayoutVersion *out) noexcept
{
	const ApproxLayoutEntry *entry = find_approx_layout(version);
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
	const uint32_t key_bits = options->key_bits != 0 ? options->key_bits : entry->choices.key_bits;
	if (key_bits > 32) return MH_ERR_ARGUMENT;
	layout->version = options->layout;
	layout->key_bits = key_bits;
	layout->approximate = 0;
	const double threshold =
	    options->threshold >= 0.0 ? options->threshold : entry->choices.threshold;
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
		// No layout guarantees this threshold (0, which only indexes built
		// before CREATE INDEX refused it hold): the one that comes closest.
		layout->bands = num_perm;
		layout->rows = 1;
	}
	else
		return status == MH_ERR_THRESHOLD_RANGE ? MH_ERR_ARGUMENT : status;
	return MH_OK;
}

MhStatus mh_approx_index_layout(const MhApproxIndexOptions *options, uint32_t num_perm,
                                MhIndexLayout *layout) noexcept
{
	const ApproxLayoutEntry *entry = find_approx_layout(options->layout);
	if (entry == nullptr) return MH_ERR_UNKNOWN_LAYOUT;
	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM) return MH_ERR_NUM_PERM_RANGE;
	const uint32_t key_bits = options->key_bits != 0 ? options->key_bits : entry->choices.key_bits;
	if (key_bits > 32) return MH_ERR_ARGUMENT;
	const double threshold =
	    options->threshold >= 0.0 ? options->threshold : entry->choices.threshold;
	const double recall = options->recall >= 0.0 ? options->recall : entry->choices.recall;
	const MhStatus status = mh_recall_layout(threshold, recall, num_perm, &layout->bands, &layout->rows);
	if (status == MH_ERR_THRESHOLD_RANGE) return MH_ERR_ARGUMENT;
	if (status != MH_OK) return status;
	layout->version = options->layout;
	layout->key_bits = key_bits;
	layout->approximate = 1;
	return MH_OK;
}

MhStatus mh_index_keys(const MhIndexLayout *layout, const uint32_t *values, uint32_t num_perm,
                       int32_t *keys) noexcept
{
	if (layout->approximate ? find_approx_layout(layout->version) == nullptr
	                        : find_layout(layout->version) == nullptr)
		return MH_ERR_UNKNOWN_LAYOUT;
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
