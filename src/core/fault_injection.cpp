// fault_injection.cpp
//   The throw points of the fault-injection build (make FAULT_INJECTION=1,
//   run by test/stress/fault_injection.sh), and the list of every exported function
//   with how its boundary is covered.  The normal build compiles nothing here.
#ifdef MH_FAULT_INJECTION

#include <cstring>
#include <new>
#include <stdexcept>

#include "boundary.hpp"
#include "fault_injection.h"

namespace
{

struct Boundary
{
	const char *function;
	const char *no_throw_reason; // nullptr: it has MH_INJECTION_POINT
};

// Every function minhash_core.h exports.  A body that can throw is
// guarded() and has an injection point; the others call nothing that
// throws (no allocation, no library call that can throw), so noexcept
// costs nothing.  test/stress/fault_injection.sh checks this list against the
// library's exported symbols and the MH_INJECTION_POINT uses.
constexpr Boundary kBoundaries[] = {
    {"mh_builder_size", nullptr},
    {"mh_builder_init", nullptr},
    {"mh_builder_reset", nullptr},
    {"mh_builder_feed_text", nullptr},
    {"mh_builder_add_element", nullptr},
    {"mh_builder_finish", nullptr},
    {"mh_tokenize", nullptr},
    {"mh_classify_text", nullptr},
    {"mh_parse_text", nullptr},
    {"mh_words_scan", nullptr},
    {"mh_exact_resemblance", nullptr},
    {"mh_sort_distinct", nullptr},
    {"mh_chunk_match", nullptr},
    {"mh_group_greedy", nullptr},
    {"mh_group_greedy_banded", nullptr},
    {"mh_near_pairs", nullptr},
    {"mh_band_probe_build", nullptr},
    {"mh_band_probe_walk", nullptr},
    {"mh_lsh_params", nullptr},
    {"mh_recall_layout", nullptr},
    {"mh_band_probe_find", "XXH3 and comparisons over the probe's arrays, no allocation"},
    {"mh_band_probe_bytes", "reads a counter"},
    {"mh_band_probe_free", "frees the probe's arrays"},
    {"mh_check_params", "compares fields"},
    {"mh_check_threshold", "compares a number"},
    {"mh_large_alloc", "mmap, or operator new (nothrow)"},
    {"mh_large_free", "munmap, or operator delete"},
    {"mh_spill_begin", "sets the file-backed mode's fields"},
    {"mh_spill_end", "clears the file-backed mode's fields"},
    {"mh_spill_failure", "reads two fields"},
    {"mh_params_match", "compares fields"},
    {"mh_kind_name", "returns a string literal"},
    {"mh_builder_collect", "stores a pointer in the builder"},
    {"mh_builder_collected", "reads a counter"},
    {"mh_tokens_capacity", "arithmetic"},
    {"mh_words_capacity", "arithmetic"},
    {"mh_chunks_capacity", "arithmetic"},
    {"mh_agreeing_positions", "a loop over caller arrays"},
    {"mh_byte_sketch", "a loop over caller arrays"},
    {"mh_sketch_agreeing_bound", "a loop over caller arrays"},
    {"mh_is_empty", "reads a field"},
    {"mh_resembles", "arithmetic over caller arrays"},
    {"mh_resemblance", "arithmetic over caller arrays"},
    {"mh_containment", "arithmetic"},
    {"mh_max_disagreements", "arithmetic"},
    {"mh_check_layout", "arithmetic"},
    {"mh_pigeonhole_layout", "arithmetic"},
    {"mh_index_layout_version", "copies a table entry"},
    {"mh_index_layout", "arithmetic"},
    {"mh_approx_layout_version", "copies a table entry"},
    {"mh_approx_index_layout", "arithmetic, and mh_recall_layout, which is guarded"},
    {"mh_index_keys", "XXH3 and std::sort over caller arrays"},
    {"mh_band_keys", "XXH3 over caller arrays, into caller memory"},
    {"mh_lsh_probability", "arithmetic (libm)"},
    {"mh_recall_target", "arithmetic"},
    {"mh_lsh_probability_at_least", "arithmetic (libm)"},
    {"mh_resemblance_interval", "arithmetic (libm)"},
    {"mh_beta_quantile", "arithmetic (libm)"},
    {"mh_incomplete_beta", "arithmetic (libm)"},
    {"mh_text_length", "arithmetic"},
    {"mh_format_text", "snprintf into caller memory"},
    {"mh_binary_length", "arithmetic"},
    {"mh_write_binary", "writes caller memory"},
    {"mh_le_image_length", "arithmetic"},
    {"mh_write_le_image", "writes caller memory"},
    {"mh_read_binary", "reads and writes caller memory"},
    {"mh_union_into", "a loop over caller arrays"},
    {"mh_estimate_cardinality", "arithmetic over a caller array"},
    {"mh_union_size", "arithmetic over a caller array"},
};

enum class Kind
{
	BadAlloc,
	RuntimeError,
	Int,
	Interrupt
};

struct Armed
{
	const char *point = nullptr; // nullptr: disarmed
	Kind kind = Kind::BadAlloc;
	uint64_t nth = 0;
	bool sticky = false;
	uint64_t hits = 0;
	uint64_t fired = 0;
};

// One backend is one thread: no locking.
Armed armed;

} // namespace

namespace minhash
{

void fault_point(const char *function)
{
	if (armed.point == nullptr || std::strcmp(function, armed.point) != 0) return;
	if (++armed.hits < armed.nth) return;
	if (!armed.sticky) armed.point = nullptr;
	armed.fired++;
	switch (armed.kind)
	{
		case Kind::BadAlloc:
			throw std::bad_alloc();
		case Kind::RuntimeError:
			throw std::runtime_error("injected fault");
		case Kind::Int:
			throw 42;
		case Kind::Interrupt:
			throw Interrupted();
	}
}

} // namespace minhash

extern "C"
{

	MhStatus mh_fault_arm(const char *point, const char *kind, uint64_t nth, int sticky) noexcept
	{
		const char *known = nullptr;
		for (const Boundary &b : kBoundaries)
			if (b.no_throw_reason == nullptr && std::strcmp(b.function, point) == 0)
				known = b.function;
		Kind k;
		if (std::strcmp(kind, "bad_alloc") == 0)
			k = Kind::BadAlloc;
		else if (std::strcmp(kind, "runtime_error") == 0)
			k = Kind::RuntimeError;
		else if (std::strcmp(kind, "int") == 0)
			k = Kind::Int;
		else if (std::strcmp(kind, "interrupt") == 0)
			k = Kind::Interrupt;
		else
			return MH_ERR_ARGUMENT;
		if (known == nullptr || nth < 1) return MH_ERR_ARGUMENT;
		armed = Armed();
		armed.point = known; // a string literal: outlives the caller's
		armed.kind = k;
		armed.nth = nth;
		armed.sticky = sticky != 0;
		return MH_OK;
	}

	void mh_fault_disarm(void) noexcept
	{
		armed.point = nullptr;
	}

	uint64_t mh_fault_fired(void) noexcept
	{
		return armed.fired;
	}

	const char *mh_fault_boundary(size_t i, const char **no_throw_reason) noexcept
	{
		if (i >= sizeof(kBoundaries) / sizeof(kBoundaries[0])) return nullptr;
		*no_throw_reason = kBoundaries[i].no_throw_reason;
		return kBoundaries[i].function;
	}

} // extern "C"

#endif // MH_FAULT_INJECTION
