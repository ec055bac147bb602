// core_test.cpp
//   Unit tests of the C++17 engine (src/core) alone, without PostgreSQL.
//   Built and run by `make core-test` under AddressSanitizer and UBSan.
//
//   No framework: CHECK / CHECK_EQ count passes and failures, print each
//   failure with its values, and main() ends with exactly one summary line
//   "core: N passed, M failed" (exit status 1 when M > 0).
//
//   Most expectations are computed *independently* here from the documented
//   algorithm (XXH3 + splitmix64 + affine permutations mod 2^32, see reference_* below), and
//   a few literal golden values are pinned on top, so that neither the
//   algorithm nor the stored format can drift silently.
//
//   Set MH_CORE_TEST_PRINT_GOLDEN=1 in the environment to print the values
//   the golden checks expect (only when a format change is intended).
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <memory>
#include <queue>
#include <random>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include <unistd.h>

#include "budget.hpp"
#include "distinct_counter.hpp"
#include "hash_family.hpp"
#include "minhash_core.h"
#include "tokenizer.hpp"
#include "xxhash_stable.hpp"

// Every operator new of the process, counted, so that a test can see the
// most bytes the engine held during one call (the engine's arrays below 4 MB
// come from operator new: large_allocator.hpp).  Each block carries its size
// in a header of max_align_t's alignment.
namespace heap_count
{
std::size_t live = 0;
std::size_t peak = 0;
constexpr std::size_t kHeader = alignof(std::max_align_t);

void *allocate(std::size_t bytes) noexcept
{
	auto *block = static_cast<unsigned char *>(std::malloc(bytes + kHeader));
	if (block == nullptr) return nullptr;
	std::memcpy(block, &bytes, sizeof bytes);
	live += bytes;
	if (live > peak) peak = live;
	return block + kHeader;
}

void release(void *p) noexcept
{
	if (p == nullptr) return;
	unsigned char *block = static_cast<unsigned char *>(p) - kHeader;
	std::size_t bytes;
	std::memcpy(&bytes, block, sizeof bytes);
	live -= bytes;
	std::free(block);
}

// The most bytes held at once by `call` beyond what was held before it.
template <typename Call>
std::size_t peak_of(Call &&call)
{
	const std::size_t before = live;
	peak = live;
	call();
	return peak - before;
}
} // namespace heap_count

void *operator new(std::size_t bytes)
{
	void *p = heap_count::allocate(bytes);
	if (p == nullptr) throw std::bad_alloc();
	return p;
}
void *operator new[](std::size_t bytes) { return operator new(bytes); }
void *operator new(std::size_t bytes, const std::nothrow_t &) noexcept
{
	return heap_count::allocate(bytes);
}
void *operator new[](std::size_t bytes, const std::nothrow_t &) noexcept
{
	return heap_count::allocate(bytes);
}
void operator delete(void *p) noexcept { heap_count::release(p); }
void operator delete[](void *p) noexcept { heap_count::release(p); }
void operator delete(void *p, std::size_t) noexcept { heap_count::release(p); }
void operator delete[](void *p, std::size_t) noexcept { heap_count::release(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { heap_count::release(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { heap_count::release(p); }

namespace
{

// ---------------------------------------------------------------------------
// The tiny harness
// ---------------------------------------------------------------------------

int g_passed = 0;
int g_failed = 0;
const char *g_section = "";

const char *status_name(MhStatus s)
{
	switch (s)
	{
		case MH_OK:
			return "MH_OK";
		case MH_ERR_NUM_PERM_RANGE:
			return "MH_ERR_NUM_PERM_RANGE";
		case MH_ERR_BANDS_RANGE:
			return "MH_ERR_BANDS_RANGE";
		case MH_ERR_THRESHOLD_RANGE:
			return "MH_ERR_THRESHOLD_RANGE";
		case MH_ERR_SHINGLE_SIZE_RANGE:
			return "MH_ERR_SHINGLE_SIZE_RANGE";
		case MH_ERR_KIND:
			return "MH_ERR_KIND";
		case MH_ERR_BUFFER_TOO_SMALL:
			return "MH_ERR_BUFFER_TOO_SMALL";
		case MH_ERR_PARAMS_MISMATCH:
			return "MH_ERR_PARAMS_MISMATCH";
		case MH_ERR_INTERNAL:
			return "MH_ERR_INTERNAL";
		case MH_PARSE_BAD_PREFIX:
			return "MH_PARSE_BAD_PREFIX";
		case MH_PARSE_BAD_VERSION:
			return "MH_PARSE_BAD_VERSION";
		case MH_PARSE_UNKNOWN_VERSION:
			return "MH_PARSE_UNKNOWN_VERSION";
		case MH_PARSE_UNKNOWN_KIND:
			return "MH_PARSE_UNKNOWN_KIND";
		case MH_PARSE_BAD_FIELD:
			return "MH_PARSE_BAD_FIELD";
		case MH_PARSE_BAD_NUMBER:
			return "MH_PARSE_BAD_NUMBER";
		case MH_PARSE_BAD_HEX:
			return "MH_PARSE_BAD_HEX";
		case MH_PARSE_COUNT_MISMATCH:
			return "MH_PARSE_COUNT_MISMATCH";
		case MH_PARSE_EMPTY_NOT_MAX:
			return "MH_PARSE_EMPTY_NOT_MAX";
		case MH_PARSE_ESTIMATED_EMPTY:
			return "MH_PARSE_ESTIMATED_EMPTY";
		case MH_PARSE_TRUNCATED:
			return "MH_PARSE_TRUNCATED";
		case MH_PARSE_TRAILING:
			return "MH_PARSE_TRAILING";
		case MH_PARSE_RESERVED_NONZERO:
			return "MH_PARSE_RESERVED_NONZERO";
		case MH_PARSE_UNKNOWN_FLAGS:
			return "MH_PARSE_UNKNOWN_FLAGS";
		case MH_ERR_TOO_LARGE:
			return "MH_ERR_TOO_LARGE";
		case MH_ERR_INTERRUPTED:
			return "MH_ERR_INTERRUPTED";
		case MH_ERR_OUT_OF_MEMORY:
			return "MH_ERR_OUT_OF_MEMORY";
		case MH_ERR_ARGUMENT:
			return "MH_ERR_ARGUMENT";
		case MH_ERR_UNKNOWN_LAYOUT:
			return "MH_ERR_UNKNOWN_LAYOUT";
	}
	return "(unknown status)";
}

// A byte string, printable: UTF-8 is shown as is, control and stray bytes as \xNN.
std::string quoted(const std::string &s, size_t limit = 120)
{
	std::string out = "\"";
	for (size_t i = 0; i < s.size() && i < limit;)
	{
		const unsigned char c = static_cast<unsigned char>(s[i]);
		size_t length = 1;
		const uint32_t cp = minhash::decode_utf8(
		    reinterpret_cast<const unsigned char *>(s.data()) + i, s.size() - i, &length);
		if (c < 0x20 || c == 0x7F || c == '"' || c == '\\' ||
		    (cp == minhash::kReplacementCharacter && length == 1))
		{
			char buf[8];
			std::snprintf(buf, sizeof buf, "\\x%02X", c);
			out += buf;
		}
		else
		{
			out.append(s, i, length);
		}
		i += length;
	}
	if (s.size() > limit) out += "...(" + std::to_string(s.size()) + " bytes)";
	return out + "\"";
}

template <typename T>
std::string show(const T &v)
{
	std::ostringstream o;
	o << v;
	return o.str();
}
std::string show(const std::string &v)
{
	return quoted(v);
}
std::string show(bool v)
{
	return v ? "true" : "false";
}
std::string show(uint8_t v)
{
	return std::to_string(static_cast<unsigned>(v));
}
std::string show(MhStatus v)
{
	return status_name(v);
}
std::string show(double v)
{
	char buf[40];
	std::snprintf(buf, sizeof buf, "%.17g", v);
	return buf;
}
std::string show(const std::vector<std::string> &v)
{
	std::string out = "[";
	for (size_t i = 0; i < v.size(); i++) out += (i ? "|" : "") + quoted(v[i], 40);
	return out + "]";
}

bool check(bool ok, const std::string &what, int line)
{
	if (ok)
	{
		g_passed++;
	}
	else
	{
		g_failed++;
		std::printf("FAIL %s: %s (line %d)\n", g_section, what.c_str(), line);
	}
	return ok;
}

template <typename A, typename B>
bool check_eq(const A &got, const B &want, const char *got_expr, const char *want_expr,
              const std::string &context, int line)
{
	const bool ok = got == want;
	if (ok)
	{
		g_passed++;
	}
	else
	{
		g_failed++;
		std::printf("FAIL %s: %s: %s == %s: got %s, want %s (line %d)\n", g_section,
		            context.c_str(), got_expr, want_expr, show(got).c_str(), show(want).c_str(),
		            line);
	}
	return ok;
}

#define CHECK(cond, context) check((cond), std::string(context) + ": " #cond, __LINE__)
#define CHECK_EQ(got, want, context) check_eq((got), (want), #got, #want, (context), __LINE__)

std::string hex32(uint32_t v)
{
	char buf[16];
	std::snprintf(buf, sizeof buf, "%08" PRIx32, v);
	return buf;
}

std::string hex64(uint64_t v)
{
	char buf[24];
	std::snprintf(buf, sizeof buf, "%016" PRIx64, v);
	return buf;
}

std::string code_point_name(uint32_t cp)
{
	char buf[16];
	std::snprintf(buf, sizeof buf, "U+%04" PRIX32, cp);
	return buf;
}

// ---------------------------------------------------------------------------
// Building signatures through the C API
// ---------------------------------------------------------------------------

struct Sig
{
	MhStatus status = MH_ERR_INTERNAL;
	MhSummary summary{};
	std::vector<uint32_t> values;
};

MhParams make_params(uint8_t kind, uint16_t shingle_size, uint32_t num_perm, int32_t seed)
{
	MhParams p;
	std::memset(&p, 0, sizeof p);
	p.kind = kind;
	p.shingle_size = shingle_size;
	p.num_perm = num_perm;
	p.seed = seed;
	return p;
}

// Builders must be 8-byte aligned: they live in a vector of uint64_t sized
// exactly to mh_builder_size(), so that ASan sees any write past the end.
struct Builder
{
	std::vector<uint64_t> memory;
	void *state = nullptr;
	MhStatus init_status = MH_ERR_INTERNAL;
	uint32_t num_perm = 0;

	// offset_slots > 0 places the builder off a 64-byte boundary on purpose.
	Builder(const MhParams &params, uint64_t max_elements, size_t offset_slots = 0)
	{
		const size_t size = mh_builder_size(&params, max_elements);
		num_perm = params.num_perm;
		if (size == 0) return;
		memory.assign(size / 8 + (size % 8 != 0) + offset_slots, 0xA5A5A5A5A5A5A5A5ULL);
		state = memory.data() + offset_slots;
		init_status = mh_builder_init(state, size, &params, max_elements);
	}

	Sig finish()
	{
		Sig sig;
		sig.values.assign(num_perm, 0);
		sig.status = mh_builder_finish(state, &sig.summary, sig.values.data());
		return sig;
	}
};

// Feed like the glue does: loop until *position == length.
MhStatus feed_all(void *builder, const std::string &text, size_t piece, size_t *calls = nullptr)
{
	size_t position = 0;
	size_t n = 0;
	while (position < text.size())
	{
		const size_t before = position;
		const MhStatus status =
		    mh_builder_feed_text(builder, text.data(), text.size(), &position, piece);
		n++;
		if (status != MH_OK) return status;
		if (position <= before || position > text.size()) return MH_ERR_INTERNAL; // no progress
	}
	if (calls != nullptr) *calls = n;
	return MH_OK;
}

Sig build_text(const MhParams &params, const std::string &text, size_t piece = SIZE_MAX)
{
	// Copy into an exactly sized heap buffer so that ASan catches over-reads.
	std::vector<char> exact(text.begin(), text.end());
	Builder b(params, text.size() + 1);
	Sig sig;
	if (b.init_status != MH_OK)
	{
		sig.status = b.init_status;
		return sig;
	}
	size_t position = 0;
	while (position < exact.size())
	{
		const size_t before = position;
		const MhStatus status =
		    mh_builder_feed_text(b.state, exact.data(), exact.size(), &position, piece);
		if (status != MH_OK)
		{
			sig.status = status;
			return sig;
		}
		if (position <= before || position > exact.size())
		{
			sig.status = MH_ERR_INTERNAL;
			return sig;
		}
	}
	return b.finish();
}

Sig build_words(const std::string &text, uint16_t k, uint32_t n, int32_t seed,
                size_t piece = SIZE_MAX)
{
	return build_text(make_params(MH_KIND_WORDS, k, n, seed), text, piece);
}

Sig build_chars(const std::string &text, uint16_t q, uint32_t n, int32_t seed,
                size_t piece = SIZE_MAX)
{
	return build_text(make_params(MH_KIND_CHARS, q, n, seed), text, piece);
}

Sig build_set(const std::vector<std::string> &elements, uint32_t n, int32_t seed)
{
	Builder b(make_params(MH_KIND_SET, 0, n, seed), elements.size());
	Sig sig;
	if (b.init_status != MH_OK)
	{
		sig.status = b.init_status;
		return sig;
	}
	for (const std::string &e : elements)
	{
		std::vector<char> exact(e.begin(), e.end());
		const MhStatus status = mh_builder_add_element(b.state, exact.data(), exact.size());
		if (status != MH_OK)
		{
			sig.status = status;
			return sig;
		}
	}
	return b.finish();
}

// ---------------------------------------------------------------------------
// The independent reference: the documented algorithm, written from scratch
// ---------------------------------------------------------------------------

uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

uint64_t seed64(int32_t seed)
{
	return static_cast<uint64_t>(static_cast<uint32_t>(seed));
}

void put_le64(std::vector<unsigned char> *out, uint64_t v)
{
	for (int k = 0; k < 8; k++) out->push_back(static_cast<unsigned char>(v >> (8 * k)));
}

void put_le32(std::vector<unsigned char> *out, uint32_t v)
{
	for (int k = 0; k < 4; k++) out->push_back(static_cast<unsigned char>(v >> (8 * k)));
}

// Decode valid UTF-8 (the reference only ever sees folded words).
std::vector<uint32_t> code_points_of(const std::string &s)
{
	std::vector<uint32_t> out;
	for (size_t i = 0; i < s.size();)
	{
		const unsigned char c = static_cast<unsigned char>(s[i]);
		int n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
		uint32_t cp = n == 1 ? c : n == 2 ? (c & 0x1F) : n == 3 ? (c & 0x0F) : (c & 0x07);
		for (int k = 1; k < n; k++) cp = (cp << 6) | (static_cast<unsigned char>(s[i + k]) & 0x3F);
		out.push_back(cp);
		i += static_cast<size_t>(n);
	}
	return out;
}

struct Reference
{
	std::vector<uint32_t> values;
	uint64_t size = 0;
};

// Position i = min over shingles of (a_i * x + b_i) mod 2^32, where x is the
// 64-bit shingle hash folded to 32 bits (high half XOR low half), and a_i =
// high32(next()) | 1, b_i = high32(next()) drawn alternately from
// splitmix64(seed).
Reference reference_signature(const std::vector<uint64_t> &shingles, uint32_t n, int32_t seed)
{
	Reference r;
	r.values.assign(n, 0xFFFFFFFFu);
	uint64_t state = seed64(seed);
	for (uint32_t i = 0; i < n; i++)
	{
		const uint32_t a = static_cast<uint32_t>(splitmix64(&state) >> 32) | 1;
		const uint32_t b = static_cast<uint32_t>(splitmix64(&state) >> 32);
		for (uint64_t hash : shingles)
		{
			const uint32_t x = static_cast<uint32_t>(hash) ^ static_cast<uint32_t>(hash >> 32);
			const uint32_t h = a * x + b;
			if (h < r.values[i]) r.values[i] = h;
		}
	}
	r.size = std::set<uint64_t>(shingles.begin(), shingles.end()).size();
	return r;
}

// Window start offsets: every full window, or one window of all m tokens
// when 0 < m < size.
template <typename Token, typename Put>
std::vector<uint64_t> window_hashes(const std::vector<Token> &tokens, size_t size, int32_t seed,
                                    Put put)
{
	std::vector<uint64_t> out;
	if (tokens.empty()) return out;
	const size_t width = tokens.size() < size ? tokens.size() : size;
	for (size_t start = 0; start + width <= tokens.size(); start++)
	{
		std::vector<unsigned char> bytes;
		for (size_t j = 0; j < width; j++) put(&bytes, tokens[start + j]);
		out.push_back(XXH3_64bits_withSeed(bytes.data(), bytes.size(), seed64(seed)));
	}
	return out;
}

std::vector<uint64_t> reference_word_shingles(const std::vector<std::string> &words, size_t k,
                                              int32_t seed)
{
	std::vector<uint64_t> word_hashes;
	for (const std::string &w : words) word_hashes.push_back(XXH3_64bits(w.data(), w.size()));
	return window_hashes(word_hashes, k, seed, put_le64);
}

std::vector<uint32_t> reference_char_tokens(const std::vector<std::string> &words)
{
	std::vector<uint32_t> cps;
	for (size_t i = 0; i < words.size(); i++)
	{
		if (i > 0) cps.push_back(0x20);
		for (uint32_t cp : code_points_of(words[i])) cps.push_back(cp);
	}
	return cps;
}

std::vector<uint64_t> reference_char_shingles(const std::vector<std::string> &words, size_t q,
                                              int32_t seed)
{
	return window_hashes(reference_char_tokens(words), q, seed, put_le32);
}

Reference reference_words(const std::vector<std::string> &words, uint16_t k, uint32_t n,
                          int32_t seed)
{
	return reference_signature(reference_word_shingles(words, k, seed), n, seed);
}

Reference reference_chars(const std::vector<std::string> &words, uint16_t q, uint32_t n,
                          int32_t seed)
{
	return reference_signature(reference_char_shingles(words, q, seed), n, seed);
}

Reference reference_set(const std::vector<std::string> &elements, uint32_t n, int32_t seed)
{
	std::vector<uint64_t> hashes;
	for (const std::string &e : elements)
		hashes.push_back(XXH3_64bits_withSeed(e.data(), e.size(), seed64(seed)));
	return reference_signature(hashes, n, seed);
}

// Compare a built signature with the reference: status, params, size, every value.
void check_against(const Sig &sig, const Reference &ref, const MhParams &params,
                   const std::string &context, int line)
{
	check_eq(sig.status, MH_OK, "status", "MH_OK", context, line);
	if (sig.status != MH_OK) return;
	check_eq(mh_params_match(&sig.summary.params, &params), MH_OK, "params", "given", context,
	         line);
	check_eq(sig.summary.flags, uint8_t(0), "flags", "0", context, line);
	check_eq(sig.summary.distinct_shingles, ref.size, "size", "reference size", context, line);
	size_t mismatches = 0, first = 0;
	for (size_t i = 0; i < ref.values.size() && i < sig.values.size(); i++)
		if (sig.values[i] != ref.values[i] && mismatches++ == 0) first = i;
	if (!check(sig.values.size() == ref.values.size() && mismatches == 0,
	           context + ": values equal the independent reference", line))
		std::printf("     %zu of %zu values differ; first at %zu: got %s, want %s\n", mismatches,
		            ref.values.size(), first, hex32(sig.values[first]).c_str(),
		            hex32(ref.values[first]).c_str());
}

#define CHECK_SIG(sig, ref, params, context)                                                       \
	check_against((sig), (ref), (params), (context), __LINE__)

bool same_signature(const Sig &a, const Sig &b)
{
	return a.status == b.status && a.summary.flags == b.summary.flags &&
	       a.summary.distinct_shingles == b.summary.distinct_shingles &&
	       mh_params_match(&a.summary.params, &b.summary.params) == MH_OK && a.values == b.values;
}

std::vector<std::string> split_words(const std::string &joined)
{
	std::vector<std::string> out;
	if (joined.empty()) return out;
	size_t start = 0;
	for (;;)
	{
		const size_t bar = joined.find('|', start);
		out.push_back(
		    joined.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
		if (bar == std::string::npos) break;
		start = bar + 1;
	}
	return out;
}

// ---------------------------------------------------------------------------
// Direct tokenizer access: a sink that records words and checks the pieces
// ---------------------------------------------------------------------------

bool valid_utf8_piece(const unsigned char *b, size_t n)
{
	for (size_t i = 0; i < n;)
	{
		size_t length;
		const uint32_t cp = minhash::decode_utf8(b + i, n - i, &length);
		if (cp == minhash::kReplacementCharacter) return false;
		i += length;
	}
	return true;
}

struct RecordingSink
{
	std::vector<std::string> words;
	std::string current;
	size_t pieces = 0;      // word_piece calls
	bool bad_piece = false; // empty, too long, or not whole code points

	void note(const unsigned char *b, size_t n)
	{
		if (n == 0 || n > minhash::kWordPieceBytes || !valid_utf8_piece(b, n)) bad_piece = true;
		current.append(reinterpret_cast<const char *>(b), n);
	}
	void word_piece(const unsigned char *b, size_t n)
	{
		pieces++;
		note(b, n);
	}
	void word_end(const unsigned char *b, size_t n)
	{
		note(b, n);
		words.push_back(current);
		current.clear();
	}
};

struct Tokenized
{
	std::vector<std::string> words;
	std::vector<size_t> words_per_call;
	std::vector<size_t> stops; // *position after each call
	bool bad_piece = false;
	bool progress = true; // every call advanced
	size_t pieces = 0;
};

Tokenized tokenize_text(const std::string &text, size_t piece = SIZE_MAX)
{
	std::vector<unsigned char> exact(text.begin(), text.end());
	Tokenized t;
	RecordingSink sink;
	size_t position = 0;
	do
	{
		const size_t before = position;
		const size_t words_before = sink.words.size();
		minhash::tokenize(exact.data(), exact.size(), &position, piece, sink);
		t.words_per_call.push_back(sink.words.size() - words_before);
		t.stops.push_back(position);
		if (position <= before && exact.size() > 0)
		{
			t.progress = false;
			break;
		}
	} while (position < exact.size());
	t.words = sink.words;
	t.bad_piece = sink.bad_piece;
	t.pieces = sink.pieces;
	return t;
}

// ---------------------------------------------------------------------------
// 1. Tokenizer
// ---------------------------------------------------------------------------

struct TokenCase
{
	const char *name;
	std::string text;
	const char *words; // expected folded words joined by '|'
};

void test_tokenizer_cases()
{
	g_section = "tokenizer";
	const std::string word10k(10000, 'x');
	const std::vector<TokenCase> cases = {
	    {"ascii punctuation and case", "Hello, WORLD!", "hello|world"},
	    {"leading/trailing separators", "  ...Hello...  ", "hello"},
	    {"only separators", " ,.;:!?-_()[]{}'\"\t\n\r/\\@#$%^&*+=<>|~`", ""},
	    {"empty", "", ""},
	    {"underscore and apostrophe separate", "snake_case don't", "snake|case|don|t"},
	    {"letters and digits form one word", "abc123 4x4", "abc123|4x4"},
	    {"NUL byte separates", std::string("a\0b", 3), "a|b"},
	    {"precomposed Latin", "Ça va? ÉCOLE", "ça|va|école"},
	    {"Latin-1 letters", "ÀÖØÞ ÿ", "àöøþ|ÿ"},
	    {"German sharp s stays (simple folding)", "Straße STRASSE", "straße|strasse"},
	    {"capital sharp s folds to sharp s", "\u1E9E", "ß"},
	    {"Greek, final sigma folds to sigma", "ΣΊΣΥΦΟΣ σίσυφος", "σίσυφοσ|σίσυφοσ"},
	    {"Cyrillic", "ПРИВЕТ мир", "привет|мир"},
	    {"Armenian", "ԲԱՐԵՎ", "բարեվ"},
	    {"CJK run without separators is one word", "日本語のテキスト", "日本語のテキスト"},
	    {"CJK with a space", "中文 文本", "中文|文本"},
	    {"CJK ideographic comma separates", "中文、文本。", "中文|文本"},
	    {"ideographic space separates", "中文\u3000文本", "中文|文本"},
	    {"Hangul", "한국어 텍스트", "한국어|텍스트"},
	    {"Thai (marks inside words)", "ภาษาไทย ง่าย", "ภาษาไทย|ง่าย"},
	    {"emoji separates", "a😀b", "a|b"},
	    {"emoji only", "😀 🎉👍🏽", ""},
	    {"emoji between words", "hello😀world", "hello|world"},
	    {"combining mark kept, no normalization", "e\u0301cole", "e\u0301cole"},
	    {"decomposed capital folds base only", "E\u0301COLE", "e\u0301cole"},
	    {"leading combining mark is a word char", " \u0301a", "\u0301a"},
	    {"enclosing mark Me", "a\u20DDb", "a\u20DDb"},
	    {"spacing mark Mc (Devanagari)", "हिन्दी", "हिन्दी"},
	    {"Arabic-Indic digits are Nd", "x٣y ٣٤٥", "x٣y|٣٤٥"},
	    {"Devanagari digits are Nd", "१२३", "१२३"},
	    {"fullwidth letters and digits fold", "ＡＢＣ１２３", "ａｂｃ１２３"},
	    {"superscript two (No) separates", "x²y", "x|y"},
	    {"vulgar fraction (No) separates", "1½2", "1|2"},
	    {"Roman numeral (Nl) separates", "aⅫb", "a|b"},
	    {"NBSP separates", "a\u00A0b", "a|b"},
	    {"zero width joiner (Cf) separates", "a\u200Db", "a|b"},
	    {"soft hyphen (Cf) separates", "co\u00ADop", "co|op"},
	    {"modifier letter Lm", "aʰb", "aʰb"},
	    {"titlecase digraph Lt folds", "ǅemal", "ǆemal"},
	    {"Kelvin sign folds to ASCII k", "\u212Aelvin", "kelvin"},
	    {"micro sign folds to mu", "µ", "μ"},
	    {"dotted capital I has no simple folding", "İstanbul", "\u0130stanbul"},
	    {"Cherokee small folds to capital", "\u13F8 \uAB70", "\u13F0|\u13A0"},
	    {"Deseret (4-byte) folds", "\U00010400", "\U00010428"},
	    {"Adlam (4-byte) folds", "\U0001E900", "\U0001E922"},
	    {"invalid: overlong C0 80",
	     "ab\xC0\x80"
	     "cd",
	     "ab|cd"},
	    {"invalid: overlong E0 80 80",
	     "ab\xE0\x80\x80"
	     "cd",
	     "ab|cd"},
	    {"invalid: overlong F0 80 80 80",
	     "ab\xF0\x80\x80\x80"
	     "cd",
	     "ab|cd"},
	    {"invalid: lone continuation byte",
	     "ab\x80"
	     "cd",
	     "ab|cd"},
	    {"invalid: surrogate ED A0 80",
	     "ab\xED\xA0\x80"
	     "cd",
	     "ab|cd"},
	    {"invalid: truncated sequence at end", "abc\xE6\x97", "abc"},
	    {"invalid: truncated sequence inside",
	     "ab\xE6\x97"
	     "cd",
	     "ab|cd"},
	    {"invalid: lone lead byte at end", "abc\xC3", "abc"},
	    {"invalid: F5 lead",
	     "ab\xF5\x80\x80\x80"
	     "cd",
	     "ab|cd"},
	    {"invalid: FF byte",
	     "ab\xFF"
	     "cd",
	     "ab|cd"},
	    {"invalid: above U+10FFFF",
	     "ab\xF4\x90\x80\x80"
	     "cd",
	     "ab|cd"},
	    {"valid after a bad lead", "x\xE6\xC3\xA9y", "x|éy"},
	    {"last valid code points",
	     "a\xF4\x8F\xBF\xBF"
	     "b",
	     "a|b"},
	    {"10,000-letter word", word10k, nullptr},
	};
	for (const TokenCase &c : cases)
	{
		const std::vector<std::string> want =
		    c.words != nullptr ? split_words(c.words) : std::vector<std::string>{word10k};
		const Tokenized t = tokenize_text(c.text);
		CHECK_EQ(t.words, want, std::string("tokenize ") + c.name + " " + quoted(c.text, 40));
		CHECK(!t.bad_piece, std::string("pieces are whole code points ") + c.name);
		// The same words through the C API, words and chars kinds.
		for (uint16_t k : {uint16_t(1), uint16_t(2)})
		{
			const MhParams p = make_params(MH_KIND_WORDS, k, 64, 11);
			CHECK_SIG(build_text(p, c.text), reference_words(want, k, 64, 11), p,
			          std::string("words k=") + std::to_string(k) + " " + c.name);
		}
		const MhParams pc = make_params(MH_KIND_CHARS, 3, 64, -5);
		CHECK_SIG(build_text(pc, c.text), reference_chars(want, 3, 64, -5), pc,
		          std::string("chars q=3 ") + c.name);
	}

	// No Unicode normalization (by design: the tables are pinned, NFC would
	// need more of them): "e" + U+0301 COMBINING ACUTE stays one word, since
	// marks are word characters, but it is a different word from the
	// precomposed U+00E9 "école".  Case folding applies to each code point.
	{
		const Sig pre = build_words("école", 1, 64, 0);
		const Sig dec = build_words("e\u0301cole", 1, 64, 0);
		CHECK_EQ(mh_agreeing_positions(pre.values.data(), dec.values.data(), 64), 0u,
		         "precomposed and decomposed are different words");
		const Sig upper = build_words("ÉCOLE École école", 1, 64, 0);
		CHECK_EQ(upper.summary.distinct_shingles, uint64_t(1), "case variants are one word");
		CHECK(upper.values == pre.values, "case variants give the signature of école");
	}
}

void test_tokenizer_functions()
{
	g_section = "tokenizer functions";
	using minhash::decode_utf8;
	struct DecodeCase
	{
		const char *name;
		std::string bytes;
		uint32_t code_point;
		size_t length;
	};
	const std::vector<DecodeCase> decode_cases = {
	    {"ASCII", "A", 'A', 1},
	    {"NUL", std::string(1, '\0'), 0, 1},
	    {"2-byte min", "\xC2\x80", 0x80, 2},
	    {"2-byte max", "\xDF\xBF", 0x7FF, 2},
	    {"3-byte min", "\xE0\xA0\x80", 0x800, 3},
	    {"before surrogates", "\xED\x9F\xBF", 0xD7FF, 3},
	    {"after surrogates", "\xEE\x80\x80", 0xE000, 3},
	    {"3-byte max", "\xEF\xBF\xBF", 0xFFFF, 3},
	    {"4-byte min", "\xF0\x90\x80\x80", 0x10000, 4},
	    {"4-byte max", "\xF4\x8F\xBF\xBF", 0x10FFFF, 4},
	    {"overlong C0 80", "\xC0\x80", 0xFFFD, 1},
	    {"overlong C1 BF", "\xC1\xBF", 0xFFFD, 1},
	    {"overlong E0 9F BF", "\xE0\x9F\xBF", 0xFFFD, 1},
	    {"overlong F0 8F BF BF", "\xF0\x8F\xBF\xBF", 0xFFFD, 1},
	    {"surrogate ED A0 80", "\xED\xA0\x80", 0xFFFD, 1},
	    {"surrogate ED BF BF", "\xED\xBF\xBF", 0xFFFD, 1},
	    {"above max F4 90 80 80", "\xF4\x90\x80\x80", 0xFFFD, 1},
	    {"F5 lead", "\xF5\x80\x80\x80", 0xFFFD, 1},
	    {"FF", "\xFF", 0xFFFD, 1},
	    {"continuation", "\x80", 0xFFFD, 1},
	    {"truncated 2 of 3", "\xE6\x97", 0xFFFD, 1},
	    {"truncated 1 of 2", "\xC3", 0xFFFD, 1},
	    {"bad continuation", "\xE6\x41\x41", 0xFFFD, 1},
	};
	for (const DecodeCase &c : decode_cases)
	{
		std::vector<unsigned char> exact(c.bytes.begin(), c.bytes.end());
		size_t length = 99;
		const uint32_t cp = decode_utf8(exact.data(), exact.size(), &length);
		CHECK_EQ(cp, c.code_point, std::string("decode ") + c.name);
		CHECK_EQ(length, c.length, std::string("decode length ") + c.name);
	}

	// encode/decode round trip over every scalar value.
	size_t round_trip_failures = 0;
	uint32_t first_failure = 0;
	for (uint32_t cp = 0; cp <= 0x10FFFF; cp++)
	{
		if (cp >= 0xD800 && cp <= 0xDFFF) continue;
		unsigned char buf[4];
		const size_t n = minhash::encode_utf8(cp, buf);
		const size_t want_n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
		size_t length = 0;
		const uint32_t back = decode_utf8(buf, n, &length);
		if ((n != want_n || back != cp || length != n) && round_trip_failures++ == 0)
			first_failure = cp;
	}
	CHECK_EQ(round_trip_failures, size_t(0),
	         "encode/decode round trip of all scalar values (first failure " +
	             code_point_name(first_failure) + ")");

	// Spot checks of the pinned tables.
	struct WordCase
	{
		uint32_t cp;
		bool word;
	};
	const WordCase word_cases[] = {
	    {'a', true},     {'Z', true},     {'0', true},     {'_', false},      {' ', false},
	    {0x00AA, true},  {0x00B2, false}, {0x00B5, true},  {0x00BD, false},   {0x00D7, false},
	    {0x00DF, true},  {0x0301, true},  {0x0663, true},  {0x0966, true},    {0x20DD, true},
	    {0x2160, false}, {0x200D, false}, {0x00A0, false}, {0x3000, false},   {0x3001, false},
	    {0x30FC, true},  {0x4E00, true},  {0xFF10, true},  {0xFFFD, false},   {0x1F600, false},
	    {0x10400, true}, {0x20000, true}, {0xE000, false}, {0x10FFFF, false}, {0x0378, false},
	};
	for (const WordCase &c : word_cases)
		CHECK_EQ(minhash::is_word_character(c.cp), c.word,
		         "is_word_character " + code_point_name(c.cp));

	struct FoldCase
	{
		uint32_t cp, folded;
	};
	const FoldCase fold_cases[] = {
	    {'A', 'a'},         {'a', 'a'},       {'1', '1'},       {0x00C9, 0x00E9},
	    {0x00DF, 0x00DF},   {0x1E9E, 0x00DF}, {0x03A3, 0x03C3}, {0x03C2, 0x03C3},
	    {0x0130, 0x0130},   {0x0049, 0x0069}, {0x212A, 'k'},    {0x00B5, 0x03BC},
	    {0x01C5, 0x01C6},   {0x13F8, 0x13F0}, {0xAB70, 0x13A0}, {0x10400, 0x10428},
	    {0x1E900, 0x1E922}, {0x1F88, 0x1F80}, {0x0390, 0x0390}, {0xFF21, 0xFF41},
	    {0x023A, 0x2C65},   {0x0345, 0x03B9},
	};
	for (const FoldCase &c : fold_cases)
		CHECK_EQ(minhash::fold_case(c.cp), c.folded, "fold_case " + code_point_name(c.cp));

	// Pin the whole tables.  These numbers were computed by a separate script
	// straight from Debian's unicode-data 15.0 UnicodeData.txt/CaseFolding.txt
	// (not from unicode_tables.inc): word characters = categories L*, M*, Nd;
	// folds = CaseFolding statuses C and S.  Regenerating the tables from a
	// different Unicode version changes stored signatures and must fail here.
	uint64_t word_count = 0, word_sum = 0, fold_count = 0, fold_sum = 0;
	size_t fold_not_idempotent = 0, fold_changes_class = 0;
	for (uint32_t cp = 0; cp <= 0x10FFFF; cp++)
	{
		const bool word = minhash::is_word_character(cp);
		if (word)
		{
			word_count++;
			word_sum += uint64_t(cp) * cp + cp;
		}
		const uint32_t f = minhash::fold_case(cp);
		if (f != cp)
		{
			fold_count++;
			fold_sum += (uint64_t(cp) * 0x9E3779B97F4A7C15ULL) ^ f;
			if (minhash::fold_case(f) != f) fold_not_idempotent++;
			if (minhash::is_word_character(f) != word) fold_changes_class++;
		}
	}
	CHECK_EQ(word_count, uint64_t(139234), "word code points in Unicode 15.0");
	CHECK_EQ(word_sum, uint64_t(0x8857674591beeULL), "checksum of word code points");
	CHECK_EQ(fold_count, uint64_t(1454), "simple case folds in Unicode 15.0");
	CHECK_EQ(fold_sum, uint64_t(0x907e4c1ca70b155dULL), "checksum of case folds");
	CHECK_EQ(fold_not_idempotent, size_t(0), "folding is idempotent");
	// mh_tokens_capacity() relies on folding growing UTF-8 by at most half.
	size_t fold_growth_violations = 0;
	for (uint32_t cp = 0; cp <= 0x10FFFF; cp++)
	{
		if (cp >= 0xD800 && cp <= 0xDFFF) continue;
		unsigned char a[4], b[4];
		const size_t from = minhash::encode_utf8(cp, a),
		             to = minhash::encode_utf8(minhash::fold_case(cp), b);
		if (2 * to > 3 * from || (from == 1 && to != 1)) fold_growth_violations++;
	}
	CHECK_EQ(fold_growth_violations, size_t(0), "folding grows UTF-8 by at most half");
	CHECK_EQ(fold_changes_class, size_t(0), "folding keeps word characters word characters");
}

// Words longer than kWordPieceBytes reach the sink in pieces; the word hash
// must be that of the whole folded word.
void test_long_words()
{
	g_section = "long words";
	struct LongCase
	{
		std::string name;
		std::string text;
		std::string folded;
	};
	std::vector<LongCase> cases;
	for (size_t n :
	     {size_t(255), size_t(256), size_t(257), size_t(512), size_t(513), size_t(10000)})
		cases.push_back({"ASCII x" + std::to_string(n), std::string(n, 'Q'), std::string(n, 'q')});
	{
		std::string t, f;
		for (int i = 0; i < 5000; i++) t += "É", f += "é"; // 2-byte letters, folded
		cases.push_back({"5000 x É", t, f});
	}
	{
		std::string t, f;
		for (int i = 0; i < 3001; i++)
		{
			t += i % 3 == 0 ? "A" : i % 3 == 1 ? "日" : "\U00010400";
			f += i % 3 == 0 ? "a" : i % 3 == 1 ? "日" : "\U00010428";
		}
		cases.push_back({"mixed 1/3/4-byte", t, f});
	}
	// Every alignment of multi-byte characters against the 256-byte piece
	// buffer: j ASCII letters, then 2-, 3- or 4-byte letters.
	for (size_t j = 0; j < 8; j++)
		for (const char *letter : {"é", "日", "\U00010428"})
		{
			std::string t(j, 'x');
			for (int i = 0; i < 150; i++) t += letter;
			cases.push_back({std::to_string(j) + " ASCII then " + letter, t, t});
		}
	{
		// Folding that grows the encoding: U+023A (2 bytes) -> U+2C65 (3 bytes).
		std::string t, f;
		for (int i = 0; i < 400; i++) t += "\u023A", f += "\u2C65";
		cases.push_back({"growing fold", t, f});
	}
	for (const LongCase &c : cases)
	{
		const Tokenized t = tokenize_text("(" + c.text + ") tail");
		CHECK_EQ(t.words.size(), size_t(2), c.name + " word count");
		if (!t.words.empty())
			CHECK(t.words[0] == c.folded, c.name + ": pieces join to the folded word");
		CHECK(!t.bad_piece, c.name + ": each piece is 1..256 bytes of whole code points");
		// ASCII words are cut every 256 bytes exactly; other words a little
		// earlier (a piece never splits a code point).
		const size_t full =
		    c.folded.size() > 0 ? (c.folded.size() - 1) / minhash::kWordPieceBytes : 0;
		if (code_points_of(c.folded).size() == c.folded.size())
			CHECK_EQ(t.pieces, full, c.name + ": word_piece calls of an ASCII word");
		else
			CHECK(t.pieces >= full && t.pieces <= 2 * full + 1, c.name + ": word_piece calls");
	}

	// The word hash is XXH3_64bits of the whole folded word, computed here in one go.
	for (const LongCase &c : cases)
	{
		const std::string text = "start " + c.text + " end";
		const std::vector<std::string> words = {"start", c.folded, "end"};
		for (uint16_t k : {uint16_t(1), uint16_t(3)})
		{
			const MhParams p = make_params(MH_KIND_WORDS, k, 32, 3);
			CHECK_SIG(build_text(p, text), reference_words(words, k, 32, 3), p,
			          c.name + " words k=" + std::to_string(k));
		}
		const MhParams pc = make_params(MH_KIND_CHARS, 4, 32, 3);
		CHECK_SIG(build_text(pc, text), reference_chars(words, 4, 32, 3), pc,
		          c.name + " chars q=4");
	}

	// A 10,000-letter word (39 pieces) with k = 5: one shingle of one word,
	// hashed here by hand.
	{
		const std::string word(10000, 'w');
		const uint64_t word_hash = XXH3_64bits(word.data(), word.size());
		unsigned char le[8];
		for (int k = 0; k < 8; k++) le[k] = static_cast<unsigned char>(word_hash >> (8 * k));
		const uint64_t shingle = XXH3_64bits_withSeed(le, 8, 7);
		const Reference ref = reference_signature({shingle}, 16, 7);
		const MhParams p = make_params(MH_KIND_WORDS, 5, 16, 7);
		CHECK_SIG(build_text(p, std::string(10000, 'W')), ref, p, "10,000-letter word, k=5");
	}
}

std::vector<std::string> random_words(std::mt19937_64 &rng, size_t count, size_t vocabulary);
std::string render(std::mt19937_64 &rng, const std::vector<std::string> &words);

// mh_tokenize (the words as a person sees them) and mh_builder_collect (the
// shingle hashes themselves).
std::string tokenize_api(const std::string &text, size_t piece, size_t capacity, MhStatus *status)
{
	std::vector<char> exact(text.begin(), text.end());
	std::vector<char> out(capacity);
	size_t position = 0, out_length = 0;
	*status = MH_OK;
	do
	{
		const size_t before = position;
		*status = mh_tokenize(exact.data(), exact.size(), &position, piece, out.data(), out.size(),
		                      &out_length);
		if (*status != MH_OK) return "";
		if (position <= before && !exact.empty())
		{
			*status = MH_ERR_INTERNAL;
			return "";
		}
	} while (position < exact.size());
	return std::string(out.data(), out_length);
}

void test_tokens_and_collect()
{
	g_section = "mh_tokenize";
	const std::string doc = "Hello, WORLD! Ça va? ΣΊΣΥΦΟΣ 日本語 a😀b e\u0301cole ab\xC0\x80"
	                        "cd " +
	                        std::string(700, 'Z');
	const Tokenized t = tokenize_text(doc);
	std::string want;
	for (const std::string &w : t.words) want += w + std::string(1, '\0');
	for (size_t piece : {size_t(1), size_t(5), SIZE_MAX})
	{
		MhStatus st;
		const std::string got = tokenize_api(doc, piece, mh_tokens_capacity(doc.size()), &st);
		CHECK_EQ(st, MH_OK, "mh_tokenize piece=" + std::to_string(piece));
		CHECK_EQ(got, want,
		         "mh_tokenize gives the words, each NUL-terminated, piece=" +
		             std::to_string(piece));
	}
	// Worst cases for the capacity: one-letter words, and folds that grow.
	for (const std::string &worst :
	     {std::string("a b c d e f g h i j"), std::string("a"), std::string("\u023A \u023A \u023A"),
	      std::string("\u023A"), std::string("\u023A\u023A\u023A,\u023A"), std::string("")})
	{
		MhStatus st;
		const std::string got =
		    tokenize_api(worst, SIZE_MAX, mh_tokens_capacity(worst.size()), &st);
		CHECK_EQ(st, MH_OK, "capacity suffices for " + quoted(worst));
		std::string w;
		for (const std::string &x : tokenize_text(worst).words) w += x + std::string(1, '\0');
		CHECK_EQ(got, w, "tokens of " + quoted(worst));
	}
	{
		MhStatus st;
		tokenize_api("hello world", SIZE_MAX, 8, &st);
		CHECK_EQ(st, MH_ERR_BUFFER_TOO_SMALL, "mh_tokenize into a small buffer");
		size_t out_length = 0, position = 5;
		char out[4];
		CHECK_EQ(mh_tokenize("abc", 3, &position, 1, out, sizeof out, &out_length), MH_ERR_INTERNAL,
		         "mh_tokenize position past the end");
		CHECK_EQ(mh_tokenize("abc", 3, nullptr, 1, out, sizeof out, &out_length), MH_ERR_INTERNAL,
		         "mh_tokenize NULL position");
		position = 0;
		CHECK_EQ(mh_tokenize("abc", 3, &position, 1, out, sizeof out, nullptr), MH_ERR_INTERNAL,
		         "mh_tokenize NULL out_length");
		CHECK_EQ(mh_tokens_capacity(0), size_t(1), "mh_tokens_capacity(0)");
	}

	g_section = "mh_builder_collect";
	std::mt19937_64 rng(4242);
	for (int i = 0; i < 20; i++)
	{
		const std::vector<std::string> words = random_words(rng, rng() % 40, 1 + rng() % 15);
		const std::string text = render(rng, words);
		const uint16_t k = static_cast<uint16_t>(1 + rng() % 6);
		const int32_t seed = static_cast<int32_t>(static_cast<uint32_t>(rng()));
		const MhParams p = make_params(MH_KIND_WORDS, k, 1, seed);
		const uint64_t max_elements = text.size() / 2 + 1;
		Builder b(p, max_elements);
		std::vector<uint64_t> hashes(max_elements);
		CHECK_EQ(mh_builder_collected(b.state), uint64_t(0), "nothing collected yet");
		CHECK_EQ(mh_builder_collect(b.state, hashes.data(), max_elements), MH_OK, "collect");
		CHECK_EQ(feed_all(b.state, text, 1 + rng() % 9), MH_OK, "feed while collecting");
		const Sig s = b.finish();
		const uint64_t count = mh_builder_collected(b.state);
		hashes.resize(std::min<uint64_t>(count, max_elements));
		// Every shingle hash in order, repeats included: exactly the reference.
		CHECK(hashes == reference_word_shingles(words, k, seed),
		      "collected hashes are the reference shingles, doc " + std::to_string(i));
		CHECK_EQ(s.summary.distinct_shingles,
		         uint64_t(std::set<uint64_t>(hashes.begin(), hashes.end()).size()),
		         "size is the number of distinct collected hashes");
	}
	{
		const MhParams p = make_params(MH_KIND_WORDS, 2, 4, 0);
		Builder b(p, 100);
		std::vector<uint64_t> hashes(100);
		CHECK_EQ(mh_builder_collect(b.state, hashes.data(), 99), MH_ERR_BUFFER_TOO_SMALL,
		         "collect capacity below max_elements");
		CHECK_EQ(mh_builder_collect(b.state, nullptr, 100), MH_ERR_BUFFER_TOO_SMALL,
		         "collect into NULL");
		CHECK_EQ(mh_builder_collect(nullptr, hashes.data(), 100), MH_ERR_BUFFER_TOO_SMALL,
		         "collect from NULL builder");
		CHECK_EQ(mh_builder_collected(nullptr), uint64_t(0), "collected of NULL builder");
	}
	{
		// Exactly max_elements hashes fit; more are not written past the end.
		const uint64_t max_elements = 5;
		Builder b(make_params(MH_KIND_SET, 0, 4, 9), max_elements);
		std::vector<uint64_t> hashes(max_elements);
		CHECK_EQ(mh_builder_collect(b.state, hashes.data(), max_elements), MH_OK, "collect 5");
		std::vector<std::string> elements = {"a", "b", "c", "d", "e"};
		for (const std::string &e : elements) mh_builder_add_element(b.state, e.data(), e.size());
		CHECK_EQ(mh_builder_collected(b.state), max_elements, "collected exactly max_elements");
		std::vector<uint64_t> want;
		for (const std::string &e : elements)
			want.push_back(XXH3_64bits_withSeed(e.data(), e.size(), 9));
		CHECK(hashes == want, "collected set hashes are XXH3 of the elements");
		mh_builder_add_element(b.state, "f", 1);
		CHECK_EQ(mh_builder_collected(b.state), max_elements, "no hash recorded past capacity");
		CHECK_EQ(b.finish().summary.distinct_shingles, uint64_t(6), "but every element counts");
	}
}

// ---------------------------------------------------------------------------
// 2. Piece feeding
// ---------------------------------------------------------------------------

std::string mixed_document()
{
	std::string doc;
	const char *sentences[] = {
	    "The quick brown fox jumps over the lazy dog. ",
	    "Ça va? ÉCOLE, Straße; ΣΊΣΥΦΟΣ — ПРИВЕТ мир! ",
	    "日本語のテキスト、中文 文本。한국어 텍스트 ",
	    "a😀b e\u0301cole x²y ٣٤٥ ",
	    "bad\xC0\x80"
	    "bytes\x80"
	    "here\xED\xA0\x80"
	    "and\xF5"
	    "there ",
	    "   \t\n  ...  ---  ",
	};
	std::mt19937_64 rng(12345);
	for (int i = 0; i < 300; i++)
	{
		doc += sentences[rng() % (sizeof sentences / sizeof sentences[0])];
		if (i % 37 == 0) doc += std::string(300 + rng() % 700, 'L') + " ";
		if (i % 53 == 0)
		{
			for (int j = 0; j < 200; j++) doc += "Ж";
			doc += ",";
		}
	}
	doc += "last\xE6\x97"; // ends in a truncated sequence
	return doc;
}

void test_piece_feeding()
{
	g_section = "piece feeding";
	const std::string doc = mixed_document();
	const Tokenized whole = tokenize_text(doc);
	CHECK(whole.words.size() > 1000, "the mixed document has many words");
	CHECK(!whole.bad_piece, "mixed document pieces");

	// With piece = 0 each call stops right after the first word that ends:
	// that lists every word boundary (plus the end of the text).
	const Tokenized by_word = tokenize_text(doc, 0);
	CHECK_EQ(by_word.stops.size(), whole.words.size() + 1,
	         "piece=0: one call per word, then the tail");
	CHECK(std::is_sorted(by_word.stops.begin(), by_word.stops.end()), "word boundaries increase");

	const size_t pieces[] = {0, 1, 2, 7, 100, 255, 256, 257, 4096, SIZE_MAX};
	for (size_t piece : pieces)
	{
		const std::string name =
		    "piece=" + (piece == SIZE_MAX ? std::string("SIZE_MAX") : std::to_string(piece));
		const Tokenized t = tokenize_text(doc, piece);
		CHECK(t.progress, name + ": every call advances");
		CHECK_EQ(t.stops.back(), doc.size(), name + ": *position ends at length");
		CHECK(t.words == whole.words, name + ": same words as one call (no word is cut)");
		// Every stop but the last is at least `piece` bytes on, right after a separator.
		bool stops_ok = true;
		size_t before = 0;
		for (size_t i = 0; i + 1 < t.stops.size(); i++)
		{
			const size_t s = t.stops[i];
			if (s - before < piece && piece != SIZE_MAX) stops_ok = false;
			before = s;
		}
		CHECK(stops_ok, name + ": each call covers at least `piece` bytes");
		// Precisely: each call stops at the first word boundary at or after
		// *position + piece, or at the end.
		std::vector<size_t> expected_stops;
		for (size_t at = 0;;)
		{
			size_t target = piece > doc.size() - at ? doc.size() : at + piece;
			if (target == at) target++; // a call always consumes something
			const auto next = std::lower_bound(by_word.stops.begin(), by_word.stops.end(), target);
			at = next == by_word.stops.end() ? doc.size() : *next;
			expected_stops.push_back(at);
			if (at == doc.size()) break;
		}
		CHECK(t.stops == expected_stops, name + ": stops at the first boundary after the piece (" +
		                                     std::to_string(t.stops.size()) + " vs " +
		                                     std::to_string(expected_stops.size()) + " calls)");
		if (piece <= 1)
		{
			bool one_word_per_call = true;
			for (size_t i = 0; i < t.words_per_call.size(); i++)
				if (t.words_per_call[i] != 1 &&
				    !(i + 1 == t.words_per_call.size() && t.words_per_call[i] == 0))
					one_word_per_call = false;
			CHECK(one_word_per_call, name + ": stops at the first word boundary");
		}
		if (piece == SIZE_MAX) CHECK_EQ(t.stops.size(), size_t(1), "SIZE_MAX: one call");
	}

	// Signatures: many small pieces = one call, for both text kinds.
	for (uint8_t kind : {uint8_t(MH_KIND_WORDS), uint8_t(MH_KIND_CHARS)})
	{
		for (uint16_t k : {uint16_t(1), uint16_t(4), uint16_t(9)})
		{
			const MhParams p = make_params(kind, k, 128, 2024);
			const Sig once = build_text(p, doc, SIZE_MAX);
			CHECK_EQ(once.status, MH_OK, "one call");
			for (size_t piece : {size_t(1), size_t(7), size_t(100), size_t(0), size_t(300)})
			{
				const Sig pieced = build_text(p, doc, piece);
				CHECK(same_signature(pieced, once),
				      std::string(mh_kind_name(kind)) + " k=" + std::to_string(k) +
				          " piece=" + std::to_string(piece) + " equals one call");
			}
			const Reference ref = kind == MH_KIND_WORDS
			                          ? reference_words(whole.words, k, 128, 2024)
			                          : reference_chars(whole.words, k, 128, 2024);
			CHECK_SIG(once, ref, p, std::string("mixed document ") + mh_kind_name(kind));
		}
	}

	// The glue's position contract through the C API.
	{
		const MhParams p = make_params(MH_KIND_WORDS, 2, 8, 0);
		Builder b(p, doc.size());
		size_t position = 0, calls = 0;
		bool ok = true;
		while (position < doc.size())
		{
			const size_t before = position;
			if (mh_builder_feed_text(b.state, doc.data(), doc.size(), &position, 7) != MH_OK ||
			    position <= before)
				ok = false;
			calls++;
			if (!ok) break;
		}
		CHECK(ok, "mh_builder_feed_text advances on each call");
		CHECK_EQ(position, doc.size(), "mh_builder_feed_text reaches length");
		CHECK(calls > 1000, "small pieces need many calls");
		// A call at the end is harmless.
		CHECK_EQ(mh_builder_feed_text(b.state, doc.data(), doc.size(), &position, 7), MH_OK,
		         "feeding at the end");
		CHECK_EQ(position, doc.size(), "position stays at length");
		CHECK_EQ(b.finish().status, MH_OK, "finish after pieces");
	}
	// An empty text in one call.
	{
		const MhParams p = make_params(MH_KIND_WORDS, 2, 8, 0);
		Builder b(p, 0);
		size_t position = 0;
		CHECK_EQ(mh_builder_feed_text(b.state, "", 0, &position, 1), MH_OK, "empty feed");
		CHECK_EQ(position, size_t(0), "empty feed position");
		const Sig s = b.finish();
		CHECK_EQ(s.summary.distinct_shingles, uint64_t(0), "empty feed size");
	}
}

// ---------------------------------------------------------------------------
// 3. Independent recomputation and pinned golden values
// ---------------------------------------------------------------------------

std::vector<std::string> random_words(std::mt19937_64 &rng, size_t count, size_t vocabulary)
{
	std::vector<std::string> out;
	for (size_t i = 0; i < count; i++)
	{
		const uint64_t id = rng() % vocabulary;
		std::string w;
		uint64_t x = id + 1;
		while (x > 0)
		{
			w += static_cast<char>('a' + x % 26);
			x /= 26;
		}
		if (id % 5 == 0) w += std::to_string(id % 100);
		out.push_back(w);
	}
	return out;
}

// Joins words with random separators and random upper-casing.
std::string render(std::mt19937_64 &rng, const std::vector<std::string> &words)
{
	static const char *separators[] = {" ",  "  ", ", ", ". ", "\n", "\t-",
	                                   " (", ") ", "!?", "—",  "😀",  "\xFF"};
	std::string out;
	if (rng() % 2) out += " ";
	for (size_t i = 0; i < words.size(); i++)
	{
		if (i > 0) out += separators[rng() % (sizeof separators / sizeof separators[0])];
		std::string w = words[i];
		if (rng() % 3 == 0)
			for (char &c : w)
				if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
		out += w;
	}
	if (rng() % 2) out += ".";
	return out;
}

void print_golden(const char *name, const Sig &s)
{
	std::printf("golden %s: size=%" PRIu64 " flags=%u values=%s %s %s %s\n", name,
	            s.summary.distinct_shingles, static_cast<unsigned>(s.summary.flags),
	            hex32(s.values[0]).c_str(), hex32(s.values[1]).c_str(), hex32(s.values[2]).c_str(),
	            hex32(s.values[3]).c_str());
}

void check_golden(const char *name, const Sig &s, uint64_t size, uint32_t v0, uint32_t v1,
                  uint32_t v2, uint32_t v3)
{
	if (std::getenv("MH_CORE_TEST_PRINT_GOLDEN") != nullptr) print_golden(name, s);
	const std::string n = std::string("golden ") + name;
	CHECK_EQ(s.status, MH_OK, n);
	if (s.status != MH_OK || s.values.size() < 4) return;
	CHECK_EQ(s.summary.distinct_shingles, size, n + " size");
	CHECK_EQ(s.summary.flags, uint8_t(0), n + " flags");
	CHECK_EQ(hex32(s.values[0]), hex32(v0), n + " value 0");
	CHECK_EQ(hex32(s.values[1]), hex32(v1), n + " value 1");
	CHECK_EQ(hex32(s.values[2]), hex32(v2), n + " value 2");
	CHECK_EQ(hex32(s.values[3]), hex32(v3), n + " value 3");
}

void test_reference_and_golden()
{
	g_section = "reference";
	const std::string fox = "The quick brown fox jumps over the lazy dog";
	const std::vector<std::string> fox_words =
	    split_words("the|quick|brown|fox|jumps|over|the|lazy|dog");

	struct Doc
	{
		std::string text;
		std::vector<std::string> words;
	};
	const std::vector<Doc> docs = {
	    {fox, fox_words},
	    {"hello world", {"hello", "world"}}, // shorter than k
	    {"one", {"one"}},
	    {"a b", {"a", "b"}},
	    {"a b c d e", {"a", "b", "c", "d", "e"}}, // exactly k = 5
	    {"a b c d e f", {"a", "b", "c", "d", "e", "f"}},
	    {"Ab", {"ab"}}, // shorter than q
	    {"a b c a b c a b c", split_words("a|b|c|a|b|c|a|b|c")},
	    {"ΣΊΣΥΦΟΣ — ПРИВЕТ мир, 日本語", split_words("σίσυφοσ|привет|мир|日本語")},
	    {"", {}},
	    {" ,.;!? 😀 ", {}},
	};
	const int32_t seeds[] = {0, 1, -1, 42, INT32_MIN, INT32_MAX};
	const uint16_t sizes[] = {1, 2, 3, 5, 9, 64};
	const uint32_t perms[] = {1, 3, 128, 257};
	int combo = 0;
	for (const Doc &d : docs)
		for (int32_t seed : seeds)
			for (uint16_t k : sizes)
			{
				const uint32_t n = perms[combo++ % 4];
				const MhParams pw = make_params(MH_KIND_WORDS, k, n, seed);
				CHECK_SIG(build_text(pw, d.text), reference_words(d.words, k, n, seed), pw,
				          "words " + quoted(d.text, 30) + " k=" + std::to_string(k) +
				              " seed=" + std::to_string(seed));
				const MhParams pc = make_params(MH_KIND_CHARS, k, n, seed);
				CHECK_SIG(build_text(pc, d.text), reference_chars(d.words, k, n, seed), pc,
				          "chars " + quoted(d.text, 30) + " q=" + std::to_string(k) +
				              " seed=" + std::to_string(seed));
			}

	// Random documents with random parameters.
	std::mt19937_64 rng(77);
	for (int i = 0; i < 150; i++)
	{
		const std::vector<std::string> words = random_words(rng, rng() % 120, 1 + rng() % 60);
		const std::string text = render(rng, words);
		const uint16_t k = static_cast<uint16_t>(1 + rng() % 64);
		const uint32_t n = static_cast<uint32_t>(1 + rng() % 300);
		const int32_t seed = static_cast<int32_t>(static_cast<uint32_t>(rng()));
		const uint8_t kind = rng() % 2 ? MH_KIND_WORDS : MH_KIND_CHARS;
		const MhParams p = make_params(kind, k, n, seed);
		const Reference ref = kind == MH_KIND_WORDS ? reference_words(words, k, n, seed)
		                                            : reference_chars(words, k, n, seed);
		CHECK_SIG(build_text(p, text, 1 + rng() % 50), ref, p,
		          "random document " + std::to_string(i));
	}

	// Sets: elements are taken as bytes, including empty and binary ones.
	{
		const std::vector<std::vector<std::string>> sets = {
		    {},
		    {"apple", "banana", "cherry"},
		    {"apple", "apple", "APPLE"},
		    {"", std::string("\0\1\2", 3), "\xFF\xFE", "Hello, World!"},
		};
		for (const auto &s : sets)
			for (int32_t seed : seeds)
			{
				const MhParams p = make_params(MH_KIND_SET, 0, 100, seed);
				CHECK_SIG(build_set(s, 100, seed), reference_set(s, 100, seed), p,
				          "set of " + std::to_string(s.size()) + " seed=" + std::to_string(seed));
			}
	}

	// Empty documents: every position is MH_EMPTY_VALUE, size 0.
	for (uint8_t kind : {uint8_t(MH_KIND_WORDS), uint8_t(MH_KIND_CHARS)})
		for (const char *text : {"", "...", "😀 \x80"})
		{
			const Sig s = build_text(make_params(kind, 3, 40, 9), text);
			CHECK_EQ(s.summary.distinct_shingles, uint64_t(0),
			         std::string("empty ") + mh_kind_name(kind) + " " + quoted(text));
			CHECK(std::all_of(s.values.begin(), s.values.end(),
			                  [](uint32_t v) { return v == MH_EMPTY_VALUE; }),
			      std::string("empty is all ffffffff ") + mh_kind_name(kind));
		}
	{
		const Sig s = build_set({}, 40, 9);
		CHECK_EQ(s.summary.distinct_shingles, uint64_t(0), "empty set");
		CHECK(std::all_of(s.values.begin(), s.values.end(),
		                  [](uint32_t v) { return v == MH_EMPTY_VALUE; }),
		      "empty set is all ffffffff");
	}

	// The hash family itself.
	{
		std::vector<uint32_t> a(50), b(50);
		minhash::hash_family_parameters(-2, 50, a.data(), b.data());
		uint64_t state = seed64(-2);
		bool same = true, odd = true;
		for (int i = 0; i < 50; i++)
		{
			const uint32_t wa = static_cast<uint32_t>(splitmix64(&state) >> 32) | 1;
			const uint32_t wb = static_cast<uint32_t>(splitmix64(&state) >> 32);
			same = same && a[i] == wa && b[i] == wb;
			odd = odd && (a[i] & 1) == 1;
		}
		CHECK(same, "hash_family_parameters: high halves of splitmix64, a|1, b interleaved");
		CHECK(odd, "multipliers are odd");
		CHECK_EQ(minhash::shingle_hash_seed(-1), uint64_t(0xFFFFFFFFu), "shingle seed of -1");
		CHECK_EQ(minhash::permutation_input(0x0123456789ABCDEFULL),
		         uint32_t(0x01234567u ^ 0x89ABCDEFu), "permutation input folds the shingle hash");
		std::vector<uint32_t> mins(50, 0xFFFFFFFFu);
		minhash::update_minimums(0x9ABCDEFu, a.data(), b.data(), mins.data(), 50);
		minhash::update_minimums(0x7654321u, a.data(), b.data(), mins.data(), 50);
		bool mins_ok = true;
		for (int i = 0; i < 50; i++)
		{
			const uint32_t h1 = a[i] * 0x9ABCDEFu + b[i];
			const uint32_t h2 = a[i] * 0x7654321u + b[i];
			mins_ok = mins_ok && mins[i] == std::min(h1, h2);
		}
		CHECK(mins_ok, "update_minimums keeps the minimum of the affine permutations");
	}

	// Golden values.  The reference above recomputes the algorithm; these
	// literals additionally pin its *output*, so that a change to XXH3's
	// version, splitmix64 constants, byte order, tokenization or the fold
	// tables cannot slip through as a "consistent" change of both builder and
	// reference.  Signatures are stored on disk: if one of these fails, the
	// stored format changed.  Regenerate only on purpose, with
	// MH_CORE_TEST_PRINT_GOLDEN=1, and bump MH_FORMAT_VERSION.
	g_section = "golden";
	check_golden("words fox n=128 k=5 seed=0", build_words(fox, 5, 128, 0), 5, 0x2e64bfafu,
	             0x01fa17a2u, 0x024f649bu, 0x36a14772u);
	check_golden("chars fox n=128 q=4 seed=-7", build_chars(fox, 4, 128, -7), 39, 0x0287c14eu,
	             0x02cbbdc2u, 0x07de438eu, 0x057e9533u);
	check_golden("set {apple,banana,cherry} n=128 seed=42",
	             build_set({"apple", "banana", "cherry"}, 128, 42), 3, 0xa2d8a938u, 0x3ed7147du,
	             0x23cbeae8u, 0xa7f276b0u);
	check_golden("words multilingual n=64 k=2 seed=1",
	             build_words("Ça va? ΣΊΣΥΦΟΣ ПРИВЕТ мир 日本語", 2, 64, 1), 5, 0x0f1dea8fu,
	             0x2996b002u, 0x2f73fbecu, 0x32a3d33cu);
	// XXH3 itself (xxhash's own sanity vector for the empty input), and
	// seeded, as the shingle hashes and band keys call it.
	CHECK_EQ(XXH3_64bits("", 0), uint64_t(0x2D06800538D394C2ULL), "XXH3_64bits of nothing");
	CHECK_EQ(hex64(XXH3_64bits_withSeed("minhash", 7, 1)), hex64(0x5f6e33564c933790ULL),
	         "XXH3_64bits_withSeed of \"minhash\", seed 1");
	// The shingle hashes themselves (what exact resemblance compares, and
	// what the signature's minimums are taken over), and the word hashes of
	// the functions that explain a match.
	{
		const MhParams p = make_params(MH_KIND_WORDS, 5, 128, 0);
		Builder b(p, 64);
		std::vector<uint64_t> hashes(64);
		mh_builder_collect(b.state, hashes.data(), 64);
		feed_all(b.state, fox, 1000);
		hashes.resize(mh_builder_collected(b.state));
		const std::vector<uint64_t> expected = {0xe44ad0d4a2feccdeULL, 0xb8f7dd4ed98c54e4ULL,
		                                        0x5a2485b2b09ef47aULL, 0x70b04d43115ec42eULL,
		                                        0x8b3957db677aeb48ULL};
		CHECK(hashes == expected, "golden shingle hashes of fox, k=5 seed=0");
		std::vector<uint64_t> word_hashes(20);
		std::vector<uint32_t> begins(20), ends(20);
		MhWords words{word_hashes.data(), begins.data(), ends.data(), 20, 0};
		size_t position = 0;
		while (position < fox.size() &&
		       mh_words_scan(fox.data(), fox.size(), &position, 1000, &words) == MH_OK)
		{
		}
		CHECK_EQ(words.count, uint64_t(9), "fox has 9 words");
		CHECK_EQ(hex64(word_hashes[0]), hex64(0xcb1283631cf33d7dULL), "golden word hash of \"the\"");
		CHECK_EQ(hex64(word_hashes[3]), hex64(0xc1cfee97854b92cfULL), "golden word hash of \"fox\"");
	}
}

// ---------------------------------------------------------------------------
// 4. Distinct counter
// ---------------------------------------------------------------------------

void add_indexed_elements(void *builder, uint64_t first, uint64_t count, bool *ok)
{
	for (uint64_t i = first; i < first + count; i++)
	{
		unsigned char e[8];
		for (int k = 0; k < 8; k++) e[k] = static_cast<unsigned char>(i >> (8 * k));
		if (mh_builder_add_element(builder, reinterpret_cast<const char *>(e), 8) != MH_OK)
			*ok = false;
	}
}

void test_distinct_counter()
{
	g_section = "distinct counter";
	struct SizeCase
	{
		const char *text;
		uint8_t kind;
		uint16_t k;
		uint64_t size;
	};
	const SizeCase cases[] = {
	    {"a b c a b c a b c", MH_KIND_WORDS, 1, 3},
	    {"a b c a b c a b c", MH_KIND_WORDS, 2, 3}, // ab bc ca
	    {"a b c a b c a b c", MH_KIND_WORDS, 3, 3}, // abc bca cab
	    {"a b c a b c a b c", MH_KIND_WORDS, 7, 3},
	    {"a b c a b c a b c", MH_KIND_WORDS, 9, 1},
	    {"a b c a b c a b c", MH_KIND_WORDS, 10, 1},
	    {"The the THE tHe", MH_KIND_WORDS, 1, 1},
	    {"The the THE tHe", MH_KIND_WORDS, 2, 1},
	    {"one two three four", MH_KIND_WORDS, 1, 4},
	    {"aaa bbb", MH_KIND_CHARS, 1, 3}, // a, space, b
	    {"aaa bbb", MH_KIND_CHARS, 2, 4}, // aa a_ _b bb
	    {"abab", MH_KIND_CHARS, 2, 2},    // ab ba
	    {"x", MH_KIND_CHARS, 5, 1},
	    {"", MH_KIND_CHARS, 5, 0},
	};
	for (const SizeCase &c : cases)
	{
		const Sig s = build_text(make_params(c.kind, c.k, 16, 0), c.text);
		CHECK_EQ(s.summary.distinct_shingles, c.size,
		         std::string(mh_kind_name(c.kind)) + " k=" + std::to_string(c.k) + " " +
		             quoted(c.text));
		CHECK_EQ(s.summary.flags, uint8_t(0), std::string("exact ") + c.text);
	}

	// Capacity rule.
	CHECK_EQ(minhash::distinct_counter_capacity(0), uint64_t(16), "capacity(0)");
	CHECK_EQ(minhash::distinct_counter_capacity(8), uint64_t(16), "capacity(8)");
	CHECK_EQ(minhash::distinct_counter_capacity(9), uint64_t(32), "capacity(9)");
	CHECK_EQ(minhash::distinct_counter_capacity(400000), uint64_t(1) << 20, "capacity(400000)");
	CHECK_EQ(minhash::distinct_counter_capacity(UINT64_MAX), minhash::kMaxCounterCapacity,
	         "capacity is capped");

	// The counter directly: exact up to capacity / 2, hash 0 counts.
	{
		const uint64_t capacity = 64;
		std::vector<uint64_t> slots(minhash::distinct_counter_slots(capacity));
		minhash::DistinctCounter counter;
		minhash::distinct_counter_init(&counter, slots.data(), capacity);
		minhash::distinct_counter_add(&counter, 0);
		minhash::distinct_counter_add(&counter, 0);
		CHECK_EQ(minhash::distinct_counter_estimate(&counter), uint64_t(1), "hash 0 counts once");
		for (uint64_t i = 0; i < 31; i++)
			minhash::distinct_counter_add(&counter, 0x9E3779B97F4A7C15ULL * (i + 2));
		CHECK(minhash::distinct_counter_is_exact(&counter), "exact at capacity / 2");
		CHECK_EQ(minhash::distinct_counter_estimate(&counter), uint64_t(32), "32 distinct");
	}

	// 400,000 distinct elements (each added twice) are still counted exactly.
	{
		Builder b(make_params(MH_KIND_SET, 0, 8, 0), 400000);
		bool ok = true;
		add_indexed_elements(b.state, 0, 400000, &ok);
		add_indexed_elements(b.state, 0, 400000, &ok);
		const Sig s = b.finish();
		CHECK(ok, "400,000 elements added");
		CHECK_EQ(s.summary.flags, uint8_t(0), "400,000 distinct: exact");
		CHECK_EQ(s.summary.distinct_shingles, uint64_t(400000), "400,000 distinct");
	}
	// 3,000,000 distinct: sampled, estimate within 2%; adding them all again
	// changes nothing.
	{
		Builder b(make_params(MH_KIND_SET, 0, 8, 0), 3000000);
		bool ok = true;
		add_indexed_elements(b.state, 1000000000, 3000000, &ok);
		add_indexed_elements(b.state, 1000000000, 3000000, &ok);
		const Sig s = b.finish();
		CHECK(ok, "3,000,000 elements added");
		CHECK_EQ(s.summary.flags, uint8_t(MH_FLAG_SIZE_ESTIMATED), "3,000,000 distinct: estimated");
		const double error =
		    std::fabs(static_cast<double>(s.summary.distinct_shingles) - 3e6) / 3e6;
		CHECK(error < 0.02, "3,000,000 estimated within 2% (got " +
		                        std::to_string(s.summary.distinct_shingles) + ")");
	}
	// A builder sized for too few elements still works; it only estimates.
	{
		std::mt19937_64 rng(5);
		const std::vector<std::string> words = random_words(rng, 20000, 1000000);
		std::string text;
		for (const std::string &w : words) text += w + " ";
		const MhParams p = make_params(MH_KIND_WORDS, 1, 32, 0);
		Builder b(p, 0); // capacity 16
		CHECK_EQ(feed_all(b.state, text, 100), MH_OK, "undersized builder feeds");
		const Sig s = b.finish();
		const Reference ref = reference_words(words, 1, 32, 0);
		CHECK_EQ(s.summary.flags, uint8_t(MH_FLAG_SIZE_ESTIMATED), "undersized: estimated");
		CHECK(s.values == ref.values, "undersized builder: values still exact");
		const double ratio = static_cast<double>(s.summary.distinct_shingles) / ref.size;
		CHECK(ratio > 0.2 && ratio < 5, "undersized estimate is in the right ballpark (" +
		                                    std::to_string(s.summary.distinct_shingles) + " vs " +
		                                    std::to_string(ref.size) + ")");
	}
}

// ---------------------------------------------------------------------------
// 5. Seeds
// ---------------------------------------------------------------------------

void test_seeds()
{
	g_section = "seeds";
	std::mt19937_64 rng(99);
	const std::vector<std::string> words = random_words(rng, 2000, 100000);
	std::string text;
	for (const std::string &w : words) text += w + " ";
	for (uint8_t kind : {uint8_t(MH_KIND_WORDS), uint8_t(MH_KIND_CHARS)})
	{
		const std::string name = mh_kind_name(kind);
		const Sig s0 = build_text(make_params(kind, 3, 1024, 0), text);
		const Sig s0b = build_text(make_params(kind, 3, 1024, 0), text);
		const Sig s1 = build_text(make_params(kind, 3, 1024, 1), text);
		const Sig sm = build_text(make_params(kind, 3, 1024, -1), text);
		CHECK(same_signature(s0, s0b), name + ": same seed, identical signature");
		CHECK(mh_agreeing_positions(s0.values.data(), s1.values.data(), 1024) <= 2,
		      name + ": seeds 0 and 1 nearly never agree (" +
		          std::to_string(mh_agreeing_positions(s0.values.data(), s1.values.data(), 1024)) +
		          ")");
		CHECK(mh_agreeing_positions(s0.values.data(), sm.values.data(), 1024) <= 2,
		      name + ": seeds 0 and -1 nearly never agree");
		CHECK_EQ(s0.summary.distinct_shingles, s1.summary.distinct_shingles,
		         name + ": size does not depend on the seed");
		CHECK_EQ(mh_params_match(&s0.summary.params, &s1.summary.params), MH_ERR_PARAMS_MISMATCH,
		         name + ": different seeds do not match");
	}
	std::vector<std::string> elements;
	for (int i = 0; i < 3000; i++) elements.push_back("element " + std::to_string(i));
	const Sig a = build_set(elements, 1024, 0), b = build_set(elements, 1024, 1);
	CHECK(mh_agreeing_positions(a.values.data(), b.values.data(), 1024) <= 2,
	      "set: seeds 0 and 1 nearly never agree");
	CHECK(same_signature(a, build_set(elements, 1024, 0)), "set: same seed, identical");
}

// ---------------------------------------------------------------------------
// 6. Resemblance and containment
// ---------------------------------------------------------------------------

std::vector<std::string> range_elements(int first, int last)
{ // [first, last)
	std::vector<std::string> out;
	for (int i = first; i < last; i++) out.push_back("item-" + std::to_string(i));
	return out;
}

void test_resemblance()
{
	g_section = "resemblance";
	const uint32_t n = 1024;
	// |A| = |B| = 800, |A ∩ B| = 600, |A ∪ B| = 1000: J = 0.6.
	const std::vector<std::string> A = range_elements(0, 800), B = range_elements(200, 1000);
	const double J = 0.6;
	const double se = std::sqrt(J * (1 - J) / n);
	double sum_error = 0;
	for (int32_t seed = 0; seed < 20; seed++)
	{
		const Sig a = build_set(A, n, seed * 7919 - 50), b = build_set(B, n, seed * 7919 - 50);
		const double r = mh_resemblance(&a.summary, a.values.data(), &b.summary, b.values.data());
		CHECK(std::fabs(r - J) < 4 * se,
		      "J=0.6 within 4 standard errors, seed " + std::to_string(seed) + ": " + show(r));
		CHECK_EQ(
		    r, static_cast<double>(mh_agreeing_positions(a.values.data(), b.values.data(), n)) / n,
		    "resemblance = agreeing / n");
		sum_error += r - J;
		const double c =
		    mh_containment(r, a.summary.distinct_shingles, b.summary.distinct_shingles);
		CHECK(std::fabs(c - 0.75) < 0.08,
		      "containment near 600/800, seed " + std::to_string(seed) + ": " + show(c));
	}
	CHECK(std::fabs(sum_error / 20) < 0.01,
	      "mean error over 20 seeds < 0.01: " + show(sum_error / 20));

	// The byte sketch: its bound is never below the agreeing positions
	// (equal values share their low byte) and above them only by chance,
	// about one unequal position in 256.
	{
		uint64_t chance = 0, unequal = 0;
		for (int32_t seed = 0; seed < 20; seed++)
		{
			const Sig a = build_set(A, n, seed), b = build_set(B, n, seed);
			std::vector<uint8_t> sketch(n);
			mh_byte_sketch(a.values.data(), n, sketch.data());
			for (uint32_t i = 0; i < n; i++)
				CHECK_EQ(static_cast<uint32_t>(sketch[i]), a.values[i] & 0xFFu, "the sketch is the low byte");
			const uint32_t agreeing = mh_agreeing_positions(a.values.data(), b.values.data(), n);
			const uint32_t bound = mh_sketch_agreeing_bound(sketch.data(), b.values.data(), n);
			CHECK(bound >= agreeing, "the bound is at least the agreeing positions, seed " + std::to_string(seed));
			CHECK_EQ(mh_sketch_agreeing_bound(sketch.data(), a.values.data(), n), n, "a sketch agrees with its own signature everywhere");
			chance += bound - agreeing;
			unequal += n - agreeing;
		}
		CHECK(chance * 256 > unequal / 2 && chance * 256 < unequal * 2,
		      "chance agreements near 1 in 256 unequal positions: " + std::to_string(chance) + " of " + std::to_string(unequal));
	}

	// The hash family behaves like random permutations: over many different
	// sets with one seed (as a table's signatures are), the estimate is
	// unbiased and spreads as sqrt(J(1-J)/n), the binomial standard error.
	for (const double target : {0.3, 0.8})
	{
		const uint32_t positions = 128;
		const int trials = 400, union_size = 300;
		const int shared = static_cast<int>(target * union_size + 0.5);
		const double j = static_cast<double>(shared) / union_size;
		double sum = 0, sum_squares = 0;
		for (int t = 0; t < trials; t++)
		{
			const int base = t * 1000; // new elements every trial
			const int only = (union_size - shared) / 2;
			const Sig a = build_set(range_elements(base, base + shared + only), positions, 0);
			const Sig b = build_set(range_elements(base + only, base + union_size), positions, 0);
			const double error =
			    mh_resemblance(&a.summary, a.values.data(), &b.summary, b.values.data()) - j;
			sum += error;
			sum_squares += error * error;
		}
		const double theory = std::sqrt(j * (1 - j) / positions);
		const double bias = sum / trials, spread = std::sqrt(sum_squares / trials);
		CHECK(std::fabs(bias) < 4 * theory / std::sqrt(trials),
		      "family unbiased at J=" + show(j) + ": mean error " + show(bias));
		CHECK(std::fabs(spread / theory - 1) < 0.15,
		      "family spread at J=" + show(j) + ": " + show(spread) + " vs " + show(theory));
	}

	// Other resemblances, one seed each.
	struct JCase
	{
		int a0, a1, b0, b1;
		double J;
	};
	for (const JCase &c : {JCase{0, 500, 500, 1000, 0.0}, JCase{0, 1000, 0, 1000, 1.0},
	                       JCase{0, 900, 600, 1500, 0.2}, JCase{0, 1000, 0, 900, 0.9}})
	{
		const Sig a = build_set(range_elements(c.a0, c.a1), n, 3);
		const Sig b = build_set(range_elements(c.b0, c.b1), n, 3);
		const double r = mh_resemblance(&a.summary, a.values.data(), &b.summary, b.values.data());
		const double bound = std::max(4 * std::sqrt(c.J * (1 - c.J) / n), 2.5 / n);
		CHECK(std::fabs(r - c.J) <= bound, "J=" + show(c.J) + " estimated " + show(r));
	}

	// Empty sets.
	const Sig empty = build_set({}, 16, 0);
	const Sig one = build_set({"x"}, 16, 0);
	// An empty set resembles nothing, itself included.
	CHECK_EQ(
	    mh_resemblance(&empty.summary, empty.values.data(), &empty.summary, empty.values.data()),
	    0.0, "empty with itself -> 0");
	{
		const Sig other_empty = build_set({}, 16, 0);
		CHECK_EQ(mh_resemblance(&empty.summary, empty.values.data(), &other_empty.summary,
		                        other_empty.values.data()),
		         0.0, "two empty -> 0");
	}
	CHECK(mh_is_empty(&empty.summary) != 0 && mh_is_empty(&one.summary) == 0, "mh_is_empty");
	for (double t : {0.0, 1e-9, 0.5, 1.0})
	{
		CHECK(mh_resembles(&empty.summary, empty.values.data(), &empty.summary,
		                   empty.values.data(), t) == 0,
		      "empty resembles not itself at " + show(t));
		CHECK(mh_resembles(&empty.summary, empty.values.data(), &one.summary, one.values.data(),
		                   t) == 0 &&
		          mh_resembles(&one.summary, one.values.data(), &empty.summary,
		                       empty.values.data(), t) == 0,
		      "empty and non-empty do not resemble at " + show(t));
		CHECK(mh_resembles(&one.summary, one.values.data(), &one.summary, one.values.data(), t) != 0,
		      "non-empty resembles itself at " + show(t));
	}
	// The size decides, not the values: a size-0 summary (as 1.0 stored it)
	// with any values is empty.
	{
		MhSummary s0 = empty.summary;
		std::vector<uint32_t> v(16, 0);
		CHECK(mh_resembles(&s0, v.data(), &s0, v.data(), 0.0) == 0, "size 0 decides");
	}
	CHECK_EQ(mh_resemblance(&empty.summary, empty.values.data(), &one.summary, one.values.data()),
	         0.0, "empty vs non-empty -> 0");
	CHECK_EQ(mh_resemblance(&one.summary, one.values.data(), &empty.summary, empty.values.data()),
	         0.0, "non-empty vs empty -> 0");
	CHECK_EQ(mh_resemblance(&one.summary, one.values.data(), &one.summary, one.values.data()), 1.0,
	         "identical -> 1");
	// Exactly one empty gives 0 even when the values happen to agree.
	{
		MhSummary s1 = one.summary, s2 = one.summary;
		s2.distinct_shingles = 0;
		std::vector<uint32_t> v(16, MH_EMPTY_VALUE);
		CHECK_EQ(mh_resemblance(&s1, v.data(), &s2, v.data()), 0.0, "one empty, equal values -> 0");
	}

	// mh_agreeing_positions on hand-made values.
	{
		const uint32_t x[5] = {1, 2, 3, 4, 5}, y[5] = {1, 0, 3, 0, 5};
		CHECK_EQ(mh_agreeing_positions(x, y, 5), 3u, "agreeing positions");
		CHECK_EQ(mh_agreeing_positions(x, y, 0), 0u, "agreeing positions of nothing");
		MhSummary sx{}, sy{};
		sx.params = sy.params = make_params(MH_KIND_SET, 0, 5, 0);
		sx.distinct_shingles = sy.distinct_shingles = 9;
		CHECK_EQ(mh_resemblance(&sx, x, &sy, y), 0.6, "3 of 5 agree -> 0.6");
	}

	// mh_containment(r, |A|, |B|) = r (|A| + |B|) / ((1 + r) |A|), clamped to [0, 1].
	struct CCase
	{
		double r;
		uint64_t a, b;
		double want;
	};
	const CCase containment_cases[] = {
	    {0.6, 800, 800, 0.75}, {0.5, 100, 50, 0.5}, {0.0, 10, 20, 0.0},       {1.0, 10, 20, 1.0},
	    {1.0, 10, 10, 1.0},    {0.25, 40, 60, 0.5}, {0.2, 100, 100, 1.0 / 3}, {0.7, 0, 5, 0.0},
	    {0.0, 0, 0, 0.0},      {0.7, 5, 0, 0.0},      {-0.5, 10, 20, 0.0}, {0.9, 1, 1000, 1.0},
	};
	for (const CCase &c : containment_cases)
	{
		const double got = mh_containment(c.r, c.a, c.b);
		CHECK(std::fabs(got - c.want) < 1e-12, "containment(" + show(c.r) + ", " + show(c.a) +
		                                           ", " + show(c.b) + ") = " + show(got) +
		                                           ", want " + show(c.want));
	}
}

// ---------------------------------------------------------------------------
// 7. Text form
// ---------------------------------------------------------------------------

std::string format_text(const MhSummary &summary, const std::vector<uint32_t> &values,
                        MhStatus *status = nullptr)
{
	const size_t length = mh_text_length(&summary);
	std::vector<char> out(length + 1, '@');
	const MhStatus st = mh_format_text(&summary, values.data(), out.data(), out.size());
	if (status != nullptr) *status = st;
	if (st != MH_OK) return "";
	return std::string(out.data());
}

// Parse as the glue does: first pass for the summary, second for the values.
MhStatus parse_text(const std::string &text, Sig *sig, size_t *offset)
{
	std::vector<char> exact(text.begin(), text.end());
	exact.push_back('\0');
	*offset = SIZE_MAX;
	MhStatus st = mh_parse_text(exact.data(), &sig->summary, nullptr, 0, offset);
	if (st == MH_OK)
	{
		sig->values.assign(sig->summary.params.num_perm, 0);
		st = mh_parse_text(exact.data(), &sig->summary, sig->values.data(),
		                   static_cast<uint32_t>(sig->values.size()), offset);
	}
	sig->status = st;
	return st;
}

void check_text_round_trip(const Sig &sig, const std::string &name)
{
	const std::string text = format_text(sig.summary, sig.values);
	CHECK_EQ(text.size(), mh_text_length(&sig.summary), name + ": mh_text_length is strlen");
	Sig back;
	size_t offset;
	CHECK_EQ(parse_text(text, &back, &offset), MH_OK, name + ": parses " + quoted(text, 60));
	CHECK(same_signature(back, sig), name + ": text round trip");
}

void test_text_form()
{
	g_section = "text form";
	// Exact spelling.
	{
		MhSummary s{};
		s.params = make_params(MH_KIND_WORDS, 5, 2, -3);
		s.distinct_shingles = 2;
		const std::vector<uint32_t> v = {0x0123abcdu, 0xffffffffu};
		CHECK_EQ(format_text(s, v), std::string("v1:words:k=5:seed=-3:size=2:n=2:0123abcdffffffff"),
		         "words spelling");
		s.params = make_params(MH_KIND_CHARS, 64, 2, INT32_MIN);
		s.flags = MH_FLAG_SIZE_ESTIMATED;
		s.distinct_shingles = UINT64_MAX;
		CHECK_EQ(
		    format_text(s, v),
		    std::string(
		        "v1:chars:k=64:seed=-2147483648:size~18446744073709551615:n=2:0123abcdffffffff"),
		    "chars spelling, estimated size");
		s.params = make_params(MH_KIND_SET, 0, 1, INT32_MAX);
		s.flags = 0;
		s.distinct_shingles = 0;
		CHECK_EQ(format_text(s, {0xffffffffu}),
		         std::string("v1:set:seed=2147483647:size=0:n=1:ffffffff"), "set spelling");
		// Buffer one byte short of the NUL.
		std::vector<char> small(mh_text_length(&s), 'x');
		CHECK_EQ(mh_format_text(&s, v.data(), small.data(), small.size()), MH_ERR_BUFFER_TOO_SMALL,
		         "format into a buffer without room for the NUL");
	}

	// Round trips of built signatures and of hand-made extremes.
	check_text_round_trip(build_words("The quick brown fox", 2, 128, 0), "words");
	check_text_round_trip(build_chars("The quick brown fox", 3, 77, -12345),
	                      "chars, negative seed");
	check_text_round_trip(build_set({"a", "b"}, 8192, INT32_MIN), "set, n=8192, INT32_MIN");
	check_text_round_trip(build_words("", 64, 1, 0), "empty words");
	check_text_round_trip(build_set({}, 3, -1), "empty set");
	{
		Sig s;
		s.status = MH_OK;
		s.summary.params = make_params(MH_KIND_WORDS, 64, 4, INT32_MAX);
		s.summary.flags = MH_FLAG_SIZE_ESTIMATED;
		s.summary.distinct_shingles = 123456789012ULL;
		s.values = {0, 1, 0x80000000u, 0xfffffffeu};
		check_text_round_trip(s, "estimated size");
		Sig big_estimate = s;
		big_estimate.summary.distinct_shingles = UINT64_MAX;
		check_text_round_trip(big_estimate, "size~UINT64_MAX");
		Sig nonempty_all_max = s;
		nonempty_all_max.summary.flags = 0;
		nonempty_all_max.summary.distinct_shingles = 1;
		nonempty_all_max.values.assign(4, 0xffffffffu);
		check_text_round_trip(nonempty_all_max, "size 1 with ffffffff values");
	}
	{
		const Sig big = build_words("The quick brown fox", 2, 128, 0);
		// Second pass with too little room.
		const std::string text = format_text(big.summary, big.values);
		MhSummary summary;
		std::vector<uint32_t> values(127);
		size_t offset = 0;
		CHECK_EQ(mh_parse_text(text.c_str(), &summary, values.data(), 127, &offset),
		         MH_ERR_BUFFER_TOO_SMALL, "values_capacity < n");
		CHECK_EQ(mh_parse_text(text.c_str(), &summary, nullptr, 0, &offset), MH_OK, "first pass");
		CHECK_EQ(summary.params.num_perm, 128u, "first pass gives n");
		CHECK_EQ(summary.params.shingle_size, uint16_t(2), "first pass gives k");
		// error_offset may be NULL.
		CHECK_EQ(mh_parse_text("nonsense", &summary, nullptr, 0, nullptr), MH_PARSE_BAD_PREFIX,
		         "NULL error_offset");
	}

	// Malformed literals: status and error_offset (a byte index into the literal).
	const std::string head = "v1:words:k=5:seed=0:"; // 20 bytes
	const std::string values2 = "0000000100000002";
	struct Bad
	{
		std::string text;
		MhStatus status;
		size_t offset;
	};
	const std::vector<Bad> bad = {
	    {"", MH_PARSE_BAD_PREFIX, 0},
	    {"1:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_PREFIX, 0},
	    {"V1:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_PREFIX, 0},
	    {" v1:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_PREFIX, 0},
	    {"vx:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_VERSION, 1},
	    {"v:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_VERSION, 1},
	    {"v01:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_VERSION, 1},
	    {"v-1:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_VERSION, 1},
	    {"v99999999999999999999:words:", MH_PARSE_BAD_VERSION, 1},
	    // An unknown version is reported where the version number starts.
	    {"v0:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_UNKNOWN_VERSION, 1},
	    {"v2:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_UNKNOWN_VERSION, 1},
	    {"v10:words:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_UNKNOWN_VERSION, 1},
	    {"v1", MH_PARSE_BAD_FIELD, 2},
	    {"v1words:k=5", MH_PARSE_BAD_FIELD, 2},
	    {"v1:word:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_UNKNOWN_KIND, 3},
	    {"v1:WORDS:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_UNKNOWN_KIND, 3},
	    {"v1:sets:seed=0:size=1:n=2:" + values2, MH_PARSE_UNKNOWN_KIND, 3},
	    {"v1:words", MH_PARSE_UNKNOWN_KIND, 3},
	    {"v1:words:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 9},
	    {"v1:chars:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 9},
	    {"v1:set:k=5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 7},
	    {"v1:words:k=0:seed=0:size=1:n=2:" + values2, MH_ERR_SHINGLE_SIZE_RANGE, 11},
	    {"v1:words:k=65:seed=0:size=1:n=2:" + values2, MH_ERR_SHINGLE_SIZE_RANGE, 11},
	    {"v1:chars:k=65536:seed=0:size=1:n=2:" + values2, MH_ERR_SHINGLE_SIZE_RANGE, 11},
	    {"v1:words:k=05:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 11},
	    {"v1:words:k=:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 11},
	    {"v1:words:k=-1:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 11},
	    {"v1:words:k=+5:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 11},
	    {"v1:words:k=99999999999999999999:seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 11},
	    {"v1:words:k=5seed=0:size=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 12},
	    {"v1:words:k=5:sead=0:size=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 13},
	    {head.substr(0, 18) + "-0:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "2147483648:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "-2147483649:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "99999999999999999999:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER,
	     18},
	    {head.substr(0, 18) + "+1:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "01:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "-01:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "-:size=1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 18},
	    {head.substr(0, 18) + "1e3:size=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 19},
	    {head + "siz=1:n=2:" + values2, MH_PARSE_BAD_FIELD, 19},
	    {head + "size:1:n=2:" + values2, MH_PARSE_BAD_FIELD, 24},
	    {head + "size=01:n=2:" + values2, MH_PARSE_BAD_NUMBER, 25},
	    {head + "size=:n=2:" + values2, MH_PARSE_BAD_NUMBER, 25},
	    {head + "size=-1:n=2:" + values2, MH_PARSE_BAD_NUMBER, 25},
	    {head + "size=18446744073709551616:n=2:" + values2, MH_PARSE_BAD_NUMBER, 25},
	    {head + "size=99999999999999999999:n=2:" + values2, MH_PARSE_BAD_NUMBER, 25},
	    {head + "size~0:n=2:" + values2, MH_PARSE_ESTIMATED_EMPTY, 26},
	    {head + "size~00:n=2:" + values2, MH_PARSE_BAD_NUMBER, 25},
	    {head + "size=1n=2:" + values2, MH_PARSE_BAD_FIELD, 26},
	    {head + "size=1:n=0:", MH_ERR_NUM_PERM_RANGE, 29},
	    {head + "size=1:n=8193:" + values2, MH_ERR_NUM_PERM_RANGE, 29},
	    {head + "size=1:n=4294967298:" + values2, MH_ERR_NUM_PERM_RANGE, 29},
	    {head + "size=1:n=02:" + values2, MH_PARSE_BAD_NUMBER, 29},
	    {head + "size=1:n=:" + values2, MH_PARSE_BAD_NUMBER, 29},
	    {head + "size=1:n=2;" + values2, MH_PARSE_BAD_FIELD, 30},
	    {head + "size=1:n=2:", MH_PARSE_COUNT_MISMATCH, 31},
	    {head + "size=1:n=2:000000010000000", MH_PARSE_COUNT_MISMATCH, 31},
	    {head + "size=1:n=2:00000001000000020", MH_PARSE_COUNT_MISMATCH, 31},
	    {head + "size=1:n=2:" + values2 + "\n", MH_PARSE_COUNT_MISMATCH, 31},
	    {head + "size=1:n=2:" + values2 + "00000003", MH_PARSE_COUNT_MISMATCH, 31},
	    {head + "size=1:n=2:0000000A00000002", MH_PARSE_BAD_HEX, 31},
	    {head + "size=1:n=2:00000001FFFFFFFF", MH_PARSE_BAD_HEX, 39},
	    {head + "size=1:n=2:0000000100 00002", MH_PARSE_BAD_HEX, 39},
	    {head + "size=1:n=2:0x00000100000002", MH_PARSE_BAD_HEX, 31},
	    {head + "size=1:n=2:000000010000000g", MH_PARSE_BAD_HEX, 39},
	    {head + "size=0:n=2:00000001ffffffff", MH_PARSE_EMPTY_NOT_MAX, 31},
	    {head + "size=0:n=2:fffffffffffffffe", MH_PARSE_EMPTY_NOT_MAX, 39},
	};
	for (const Bad &b : bad)
	{
		Sig sig;
		size_t offset = SIZE_MAX;
		const MhStatus st = parse_text(b.text, &sig, &offset);
		CHECK_EQ(st, b.status, "status of " + quoted(b.text, 70));
		CHECK_EQ(offset, b.offset, "error_offset of " + quoted(b.text, 70));
	}
	// And the literals just inside the limits parse.
	const std::vector<std::string> good = {
	    "v1:words:k=1:seed=0:size=1:n=1:00000000",
	    "v1:chars:k=64:seed=-2147483648:size=18446744073709551615:n=1:00000000",
	    "v1:words:k=5:seed=2147483647:size~1:n=2:" + values2,
	    "v1:set:seed=0:size=0:n=2:ffffffffffffffff",
	    "v1:set:seed=-1:size=1:n=1:0a1b2c3d",
	};
	for (const std::string &g : good)
	{
		Sig sig;
		size_t offset;
		CHECK_EQ(parse_text(g, &sig, &offset), MH_OK, "valid literal " + quoted(g, 70));
		CHECK_EQ(format_text(sig.summary, sig.values), g, "canonical: formats back to itself");
	}
}

// ---------------------------------------------------------------------------
// 8. Binary form
// ---------------------------------------------------------------------------

std::vector<unsigned char> write_binary(const Sig &sig)
{
	std::vector<unsigned char> out(mh_binary_length(&sig.summary));
	if (mh_write_binary(&sig.summary, sig.values.data(), out.data(), out.size()) != MH_OK)
		out.clear();
	return out;
}

// Two passes, like the glue; exactly sized buffers so ASan sees over-reads.
MhStatus read_binary(const std::vector<unsigned char> &bytes, Sig *sig)
{
	std::unique_ptr<unsigned char[]> exact(new unsigned char[bytes.size() + 1]);
	if (!bytes.empty()) std::memcpy(exact.get(), bytes.data(), bytes.size());
	MhStatus st = mh_read_binary(exact.get(), bytes.size(), &sig->summary, nullptr, 0);
	if (st == MH_OK)
	{
		sig->values.assign(sig->summary.params.num_perm, 0);
		st = mh_read_binary(exact.get(), bytes.size(), &sig->summary, sig->values.data(),
		                    static_cast<uint32_t>(sig->values.size()));
	}
	sig->status = st;
	return st;
}

void test_binary_form()
{
	g_section = "binary form";
	// Exact layout, big-endian.
	{
		Sig s;
		s.summary.params = make_params(MH_KIND_CHARS, 9, 2, -3);
		s.summary.flags = MH_FLAG_SIZE_ESTIMATED;
		s.summary.distinct_shingles = 0x0102030405060708ULL;
		s.values = {0xA1B2C3D4u, 0x00000005u};
		const std::vector<unsigned char> want = {
		    1, 1, 1, 0, 0, 9, 0, 0, 0xFF, 0xFF, 0xFF, 0xFD, 0, 0, 0, 2,
		    1, 2, 3, 4, 5, 6, 7, 8, 0xA1, 0xB2, 0xC3, 0xD4, 0, 0, 0, 5};
		CHECK_EQ(mh_binary_length(&s.summary), size_t(32), "binary length = 24 + 4n");
		CHECK(write_binary(s) == want, "binary layout");
		std::vector<unsigned char> small(31);
		CHECK_EQ(mh_write_binary(&s.summary, s.values.data(), small.data(), small.size()),
		         MH_ERR_BUFFER_TOO_SMALL, "write into a short buffer");
		Sig back;
		CHECK_EQ(read_binary(want, &back), MH_OK, "read layout");
		CHECK_EQ(back.summary.params.seed, -3, "seed read back");
		CHECK_EQ(back.summary.distinct_shingles, uint64_t(0x0102030405060708ULL), "size read back");
		std::vector<uint32_t> one(1);
		MhSummary summary;
		CHECK_EQ(mh_read_binary(want.data(), want.size(), &summary, one.data(), 1),
		         MH_ERR_BUFFER_TOO_SMALL, "values_capacity < n");
	}

	// Round trips.
	std::vector<Sig> sigs = {
	    build_words("The quick brown fox", 2, 128, 0),
	    build_chars("Ça va? ΣΊΣΥΦΟΣ", 3, 5, INT32_MIN),
	    build_set({"x", "y"}, 1, INT32_MAX),
	    build_set({}, 8192, -1),
	    build_words("", 64, 2, 17),
	};
	{
		Sig est;
		est.status = MH_OK;
		est.summary.params = make_params(MH_KIND_WORDS, 64, 3, 5);
		est.summary.flags = MH_FLAG_SIZE_ESTIMATED;
		est.summary.distinct_shingles = UINT64_MAX;
		est.values = {0, 0xffffffffu, 7};
		sigs.push_back(est);
	}
	for (size_t i = 0; i < sigs.size(); i++)
	{
		const std::string name = "signature " + std::to_string(i);
		const std::vector<unsigned char> bytes = write_binary(sigs[i]);
		CHECK_EQ(bytes.size(), 24 + 4 * size_t(sigs[i].summary.params.num_perm), name + " length");
		Sig back;
		CHECK_EQ(read_binary(bytes, &back), MH_OK, name + " reads");
		CHECK(same_signature(back, sigs[i]), name + " binary round trip");
		// Every truncation is rejected, one extra byte is trailing.
		size_t truncation_failures = 0;
		for (size_t len = 0; len < bytes.size(); len++)
		{
			Sig t;
			const std::vector<unsigned char> cut(bytes.begin(),
			                                     bytes.begin() + static_cast<long>(len));
			if (read_binary(cut, &t) != MH_PARSE_TRUNCATED) truncation_failures++;
		}
		CHECK_EQ(truncation_failures, size_t(0), name + ": every truncation is MH_PARSE_TRUNCATED");
		std::vector<unsigned char> longer = bytes;
		longer.push_back(0);
		Sig t;
		CHECK_EQ(read_binary(longer, &t), MH_PARSE_TRAILING, name + ": one extra byte");
	}

	// Each header problem.
	const std::vector<unsigned char> base = write_binary(build_words("a b c d", 2, 4, 1));
	struct Mutation
	{
		const char *name;
		size_t at;
		unsigned char value;
		MhStatus status;
	};
	const Mutation mutations[] = {
	    {"version 0", 0, 0, MH_PARSE_UNKNOWN_VERSION},
	    {"version 2", 0, 2, MH_PARSE_UNKNOWN_VERSION},
	    {"version 255", 0, 255, MH_PARSE_UNKNOWN_VERSION},
	    {"kind 3", 1, 3, MH_ERR_KIND},
	    {"kind 255", 1, 255, MH_ERR_KIND},
	    {"kind set with k=2", 1, MH_KIND_SET, MH_ERR_SHINGLE_SIZE_RANGE},
	    {"flag 0x02", 2, 0x02, MH_PARSE_UNKNOWN_FLAGS},
	    {"flag 0x80", 2, 0x80, MH_PARSE_UNKNOWN_FLAGS},
	    {"flags 0x03", 2, 0x03, MH_PARSE_UNKNOWN_FLAGS},
	    {"reserved byte 3", 3, 1, MH_PARSE_RESERVED_NONZERO},
	    {"reserved byte 6", 6, 0x80, MH_PARSE_RESERVED_NONZERO},
	    {"reserved byte 7", 7, 1, MH_PARSE_RESERVED_NONZERO},
	    {"k = 0", 5, 0, MH_ERR_SHINGLE_SIZE_RANGE},
	    {"k = 65", 5, 65, MH_ERR_SHINGLE_SIZE_RANGE},
	    {"k = 256 + 2", 4, 1, MH_ERR_SHINGLE_SIZE_RANGE},
	    {"n = 0", 15, 0, MH_ERR_NUM_PERM_RANGE},
	    {"n huge", 12, 0x80, MH_ERR_NUM_PERM_RANGE},
	    {"n = 5 (one value short)", 15, 5, MH_PARSE_TRUNCATED},
	    {"n = 3 (one value over)", 15, 3, MH_PARSE_TRAILING},
	    {"flag 0x01 is known", 2, 0x01, MH_OK},
	};
	for (const Mutation &m : mutations)
	{
		std::vector<unsigned char> bytes = base;
		bytes[m.at] = m.value;
		Sig t;
		CHECK_EQ(read_binary(bytes, &t), m.status, m.name);
	}
	{
		// n = 0 alone: a 24-byte header and nothing else.
		std::vector<unsigned char> header(base.begin(), base.begin() + 24);
		header[15] = 0;
		Sig t;
		CHECK_EQ(read_binary(header, &t), MH_ERR_NUM_PERM_RANGE, "24-byte header with n = 0");
		header[15] = 0x01;
		header[14] = 0x20; // 8193
		CHECK_EQ(read_binary(header, &t), MH_ERR_NUM_PERM_RANGE, "n = 8193");
	}
	{
		// Size 0: estimated is invalid, and every value must be ffffffff.
		Sig empty = build_words("", 2, 4, 1);
		std::vector<unsigned char> bytes = write_binary(empty);
		Sig t;
		CHECK_EQ(read_binary(bytes, &t), MH_OK, "empty reads");
		bytes[2] = MH_FLAG_SIZE_ESTIMATED;
		CHECK_EQ(read_binary(bytes, &t), MH_PARSE_ESTIMATED_EMPTY, "estimated empty");
		bytes[2] = 0;
		bytes[24 + 4 * 3 + 3] = 0xFE;
		CHECK_EQ(read_binary(bytes, &t), MH_PARSE_EMPTY_NOT_MAX, "size 0, last value not ffffffff");
		std::vector<uint32_t> v(4);
		CHECK_EQ(mh_read_binary(bytes.data(), bytes.size(), &t.summary, nullptr, 0), MH_OK,
		         "first pass does not look at values");
	}

	// Fuzz: random buffers (biased towards plausible headers) never crash,
	// and whatever is accepted re-serializes to the same bytes, and round
	// trips through the text form.
	std::mt19937_64 rng(2718);
	size_t accepted = 0, mismatches = 0, text_mismatches = 0, status_changes = 0;
	for (int iter = 0; iter < 200000; iter++)
	{
		size_t length = rng() % 72;
		std::vector<unsigned char> bytes(64 + 24);
		for (auto &b : bytes) b = static_cast<unsigned char>(rng());
		if (rng() % 4 != 0)
		{
			bytes[0] = 1;
			if (rng() % 4 != 0) bytes[3] = bytes[6] = bytes[7] = 0;
			if (rng() % 4 != 0) bytes[2] &= 1;
			if (rng() % 4 != 0) bytes[1] = static_cast<unsigned char>(rng() % 4);
			if (rng() % 4 != 0) bytes[4] = 0, bytes[5] = static_cast<unsigned char>(rng() % 70);
			if (rng() % 4 != 0)
			{
				bytes[12] = bytes[13] = bytes[14] = 0;
				bytes[15] = static_cast<unsigned char>(rng() % 17);
				length = 24 + 4 * bytes[15];
				if (rng() % 8 == 0) length = rng() % 2 ? length + 1 : length - 1;
			}
			if (rng() % 8 == 0)
				for (int k = 16; k < 24; k++) bytes[k] = 0;
			if (rng() % 8 == 0)
				for (size_t k = 24; k < bytes.size(); k++) bytes[k] = 0xFF;
		}
		bytes.resize(std::min(length, bytes.size()));
		Sig t;
		const MhStatus first =
		    bytes.empty() ? mh_read_binary(nullptr, 0, &t.summary, nullptr, 0)
		                  : mh_read_binary(bytes.data(), bytes.size(), &t.summary, nullptr, 0);
		const MhStatus st = read_binary(bytes, &t);
		if (first != st && !(first == MH_OK && st == MH_PARSE_EMPTY_NOT_MAX)) status_changes++;
		if (st != MH_OK) continue;
		accepted++;
		if (write_binary(t) != bytes) mismatches++;
		Sig back;
		size_t offset;
		if (parse_text(format_text(t.summary, t.values), &back, &offset) != MH_OK ||
		    !same_signature(back, t))
			text_mismatches++;
	}
	CHECK(accepted > 1000, "fuzz accepted some buffers (" + std::to_string(accepted) + ")");
	CHECK_EQ(mismatches, size_t(0), "accepted random buffers re-serialize identically");
	CHECK_EQ(text_mismatches, size_t(0), "accepted random buffers round trip through text");
	CHECK_EQ(status_changes, size_t(0), "the two passes agree on the status");

	// Bit flips of valid buffers: every single bit, then random multi-bit flips.
	for (const Sig &s : {sigs[0], sigs[4], sigs[5]})
	{
		const std::vector<unsigned char> good = write_binary(s);
		size_t flip_mismatches = 0, flip_accepted = 0;
		for (size_t bit = 0; bit < good.size() * 8; bit++)
		{
			std::vector<unsigned char> bytes = good;
			bytes[bit / 8] ^= static_cast<unsigned char>(1u << (bit % 8));
			Sig t;
			if (read_binary(bytes, &t) != MH_OK) continue;
			flip_accepted++;
			if (write_binary(t) != bytes) flip_mismatches++;
		}
		for (int iter = 0; iter < 5000; iter++)
		{
			std::vector<unsigned char> bytes = good;
			for (int f = 0; f < 1 + static_cast<int>(rng() % 4); f++)
				bytes[rng() % bytes.size()] ^= static_cast<unsigned char>(1u << (rng() % 8));
			Sig t;
			if (read_binary(bytes, &t) != MH_OK) continue;
			if (write_binary(t) != bytes) flip_mismatches++;
		}
		CHECK(flip_accepted > 0, "some bit flips are valid signatures");
		CHECK_EQ(flip_mismatches, size_t(0),
		         "bit-flipped buffers that parse re-serialize identically");
	}
}

// Mutations of valid text literals: never crash, error_offset within the
// text, and anything accepted is the canonical spelling of what it parsed to.
void test_text_fuzz()
{
	g_section = "text fuzz";
	const std::vector<std::string> seeds = {
	    format_text(build_words("The quick brown fox", 2, 6, 0).summary,
	                build_words("The quick brown fox", 2, 6, 0).values),
	    "v1:chars:k=64:seed=-2147483648:size~18446744073709551615:n=1:00000000",
	    "v1:set:seed=-1:size=0:n=2:ffffffffffffffff",
	    "v1:words:k=5:seed=2147483647:size=1:n=2:0000000100000002",
	};
	const std::string alphabet = "0123456789abcdefABCDEF:=~-+vwordschaset kn\xff\x80\x01";
	std::mt19937_64 rng(31415);
	size_t accepted = 0, non_canonical = 0, bad_offsets = 0;
	for (int iter = 0; iter < 60000; iter++)
	{
		std::string s = seeds[rng() % seeds.size()];
		const int edits = 1 + static_cast<int>(rng() % 3);
		for (int e = 0; e < edits && !s.empty(); e++)
		{
			const size_t at = rng() % s.size();
			const char c = alphabet[rng() % alphabet.size()];
			switch (rng() % 5)
			{
				case 0:
					s[at] = c;
					break;
				case 1:
					s.erase(at, 1);
					break;
				case 2:
					s.insert(s.begin() + static_cast<long>(at), c);
					break;
				case 3:
					s.resize(at);
					break;
				default:
					s.insert(at, s.substr(rng() % s.size(), rng() % 12));
					break;
			}
		}
		Sig t;
		size_t offset = SIZE_MAX;
		const MhStatus st = parse_text(s, &t, &offset);
		if (st != MH_OK)
		{
			if (offset > s.size()) bad_offsets++;
			continue;
		}
		accepted++;
		if (format_text(t.summary, t.values) != s) non_canonical++;
	}
	CHECK(accepted > 100, "text fuzz accepted some literals (" + std::to_string(accepted) + ")");
	CHECK_EQ(non_canonical, size_t(0), "every accepted literal is canonical");
	CHECK_EQ(bad_offsets, size_t(0), "error_offset within the literal");
}

// ---------------------------------------------------------------------------
// 9. Parameters and the builder API
// ---------------------------------------------------------------------------

void test_params_and_api()
{
	g_section = "params";
	struct ParamCase
	{
		const char *name;
		MhParams params;
		MhStatus status;
	};
	const ParamCase cases[] = {
	    {"words ok", make_params(MH_KIND_WORDS, 5, 128, 0), MH_OK},
	    {"n = 1", make_params(MH_KIND_WORDS, 1, 1, 0), MH_OK},
	    {"n = 8192, k = 64", make_params(MH_KIND_CHARS, 64, 8192, -1), MH_OK},
	    {"set ok", make_params(MH_KIND_SET, 0, 16, 0), MH_OK},
	    {"n = 0", make_params(MH_KIND_WORDS, 5, 0, 0), MH_ERR_NUM_PERM_RANGE},
	    {"n = 8193", make_params(MH_KIND_WORDS, 5, 8193, 0), MH_ERR_NUM_PERM_RANGE},
	    {"n = UINT32_MAX", make_params(MH_KIND_SET, 0, UINT32_MAX, 0), MH_ERR_NUM_PERM_RANGE},
	    {"words k = 0", make_params(MH_KIND_WORDS, 0, 16, 0), MH_ERR_SHINGLE_SIZE_RANGE},
	    {"chars k = 65", make_params(MH_KIND_CHARS, 65, 16, 0), MH_ERR_SHINGLE_SIZE_RANGE},
	    {"chars k = 65535", make_params(MH_KIND_CHARS, 65535, 16, 0), MH_ERR_SHINGLE_SIZE_RANGE},
	    {"set k = 1", make_params(MH_KIND_SET, 1, 16, 0), MH_ERR_SHINGLE_SIZE_RANGE},
	    {"kind 3", make_params(3, 5, 16, 0), MH_ERR_KIND},
	    {"kind 255", make_params(255, 0, 16, 0), MH_ERR_KIND},
	};
	for (const ParamCase &c : cases)
	{
		CHECK_EQ(mh_check_params(&c.params), c.status, std::string("mh_check_params ") + c.name);
		const size_t size = mh_builder_size(&c.params, 1000);
		if (c.status == MH_OK)
		{
			CHECK(size > 0, std::string("mh_builder_size > 0: ") + c.name);
			CHECK_EQ(size % 8, size_t(0),
			         std::string("builder size is a multiple of 8: ") + c.name);
		}
		else
		{
			CHECK_EQ(size, size_t(0), std::string("mh_builder_size = 0: ") + c.name);
			std::vector<uint64_t> memory(4096);
			CHECK_EQ(mh_builder_init(memory.data(), memory.size() * 8, &c.params, 1000), c.status,
			         std::string("mh_builder_init status: ") + c.name);
		}
	}
	CHECK_EQ(mh_check_params(nullptr), MH_ERR_INTERNAL, "mh_check_params(NULL)");
	// The one threshold test: [0, 1], NaN and infinities refused.
	for (double t : {0.0, 1e-300, 0.5, 1.0})
		CHECK_EQ(mh_check_threshold(t), MH_OK, "mh_check_threshold " + std::to_string(t));
	for (double t : {-0.0001, 1.0000001, std::nan(""), double(INFINITY), -double(INFINITY)})
		CHECK_EQ(mh_check_threshold(t), MH_ERR_THRESHOLD_RANGE,
		         "mh_check_threshold refuses " + std::to_string(t));
	CHECK_EQ(mh_builder_size(nullptr, 10), size_t(0), "mh_builder_size(NULL)");

	// Sizes grow with n and with max_elements (up to the counter's cap).
	{
		const MhParams p = make_params(MH_KIND_WORDS, 5, 128, 0);
		const MhParams q = make_params(MH_KIND_WORDS, 5, 256, 0);
		CHECK(mh_builder_size(&q, 10) > mh_builder_size(&p, 10), "size grows with n");
		CHECK(mh_builder_size(&p, 100000) > mh_builder_size(&p, 10),
		      "size grows with max_elements");
		CHECK_EQ(mh_builder_size(&p, UINT64_MAX), mh_builder_size(&p, uint64_t(1) << 40),
		         "size is capped");
		CHECK(mh_builder_size(&p, UINT64_MAX) < (size_t(64) << 20), "capped size is modest");
	}

	g_section = "builder API";
	const MhParams p = make_params(MH_KIND_WORDS, 2, 16, 0);
	const size_t size = mh_builder_size(&p, 100);
	{
		std::vector<uint64_t> memory(size / 8);
		CHECK_EQ(mh_builder_init(memory.data(), size - 1, &p, 100), MH_ERR_BUFFER_TOO_SMALL,
		         "one byte too small");
		CHECK_EQ(mh_builder_init(memory.data(), 0, &p, 100), MH_ERR_BUFFER_TOO_SMALL, "size 0");
		CHECK_EQ(mh_builder_init(nullptr, size, &p, 100), MH_ERR_BUFFER_TOO_SMALL, "NULL buffer");
		// Sized for more elements than the buffer was made for.
		CHECK_EQ(mh_builder_init(memory.data(), size, &p, 100000), MH_ERR_BUFFER_TOO_SMALL,
		         "buffer too small for max_elements");
		CHECK_EQ(mh_builder_init(memory.data(), size, &p, 100), MH_OK, "exact size");
	}
	// Builders work at any 8-byte alignment (the XXH3 state is aligned inside).
	{
		std::string text(3000, 'z');
		text += " and more words here";
		Sig first;
		for (size_t offset_slots = 0; offset_slots < 8; offset_slots++)
		{
			Builder b(p, text.size(), offset_slots);
			CHECK_EQ(b.init_status, MH_OK, "init at slot offset " + std::to_string(offset_slots));
			CHECK_EQ(feed_all(b.state, text, 64), MH_OK,
			         "feed at slot offset " + std::to_string(offset_slots));
			const Sig s = b.finish();
			if (offset_slots == 0)
				first = s;
			else
				CHECK(same_signature(s, first),
				      "same signature at slot offset " + std::to_string(offset_slots));
		}
	}
	// Wrong kinds, finished or foreign builders.
	{
		Builder words(p, 100);
		CHECK_EQ(mh_builder_add_element(words.state, "x", 1), MH_ERR_KIND,
		         "add_element on a words builder");
		Builder set(make_params(MH_KIND_SET, 0, 16, 0), 100);
		size_t position = 0;
		CHECK_EQ(mh_builder_feed_text(set.state, "x y", 3, &position, 1), MH_ERR_KIND,
		         "feed_text on a set builder");
		position = 4;
		CHECK_EQ(mh_builder_feed_text(words.state, "x y", 3, &position, 1), MH_ERR_INTERNAL,
		         "position past the end");
		CHECK_EQ(mh_builder_feed_text(words.state, "x y", 3, nullptr, 1), MH_ERR_INTERNAL,
		         "NULL position");
		MhSummary summary;
		CHECK_EQ(mh_builder_finish(words.state, &summary, nullptr), MH_ERR_INTERNAL,
		         "finish into NULL");
		position = 0;
		CHECK_EQ(feed_all(words.state, "x", 1), MH_OK, "feed one word (shorter than k)");
		const Sig done = words.finish();
		CHECK_EQ(done.status, MH_OK, "finish");
		// Finishing is repeatable (the glue reads mh_builder_collected after
		// it) and gives the same signature, even for a document shorter
		// than one shingle.
		CHECK(same_signature(words.finish(), done), "finish twice gives the same signature");
		CHECK(same_signature(done, build_text(p, "x")), "short document signature");
		CHECK_EQ(mh_builder_add_element(set.state, "x", 1), MH_OK, "add_element on a set builder");
		std::vector<uint64_t> zeros(size / 8, 0);
		position = 0;
		CHECK_EQ(mh_builder_feed_text(zeros.data(), "x", 1, &position, 1), MH_ERR_INTERNAL,
		         "uninitialized builder");
		CHECK_EQ(mh_builder_feed_text(nullptr, "x", 1, &position, 1), MH_ERR_INTERNAL,
		         "NULL builder");
		CHECK_EQ(mh_builder_add_element(nullptr, "x", 1), MH_ERR_INTERNAL, "add to NULL builder");
		CHECK_EQ(mh_builder_finish(nullptr, &summary, nullptr), MH_ERR_INTERNAL,
		         "finish NULL builder");
	}
	// A fresh init resets a used buffer completely.
	{
		Builder b(p, 1000);
		CHECK_EQ(feed_all(b.state, "some words that will be forgotten", 5), MH_OK, "feed");
		CHECK_EQ(mh_builder_init(b.state, mh_builder_size(&p, 1000), &p, 1000), MH_OK, "re-init");
		CHECK_EQ(feed_all(b.state, "a b c", 5), MH_OK, "feed after re-init");
		const Sig s = b.finish();
		CHECK(same_signature(s, build_text(p, "a b c")), "re-initialized builder starts afresh");
	}

	// Params matching and kind names.
	{
		const MhParams a = make_params(MH_KIND_WORDS, 5, 128, 0);
		MhParams b = a;
		CHECK_EQ(mh_params_match(&a, &b), MH_OK, "equal params match");
		b.num_perm = 64;
		CHECK_EQ(mh_params_match(&a, &b), MH_ERR_PARAMS_MISMATCH, "num_perm differs");
		b = a, b.kind = MH_KIND_CHARS;
		CHECK_EQ(mh_params_match(&a, &b), MH_ERR_PARAMS_MISMATCH, "kind differs");
		b = a, b.shingle_size = 4;
		CHECK_EQ(mh_params_match(&a, &b), MH_ERR_PARAMS_MISMATCH, "shingle size differs");
		b = a, b.seed = -1;
		CHECK_EQ(mh_params_match(&a, &b), MH_ERR_PARAMS_MISMATCH, "seed differs");
		CHECK_EQ(std::string(mh_kind_name(MH_KIND_WORDS)), std::string("words"), "kind name words");
		CHECK_EQ(std::string(mh_kind_name(MH_KIND_CHARS)), std::string("chars"), "kind name chars");
		CHECK_EQ(std::string(mh_kind_name(MH_KIND_SET)), std::string("set"), "kind name set");
		CHECK_EQ(std::string(mh_kind_name(3)), std::string("unknown"), "kind name 3");
	}
}


} // namespace

// ---------------------------------------------------------------------------
// LSH banding
// ---------------------------------------------------------------------------

// FNV-1a over 32-bit words, to pin a long list in one literal.
struct Fnv
{
	uint64_t h = 1469598103934665603ULL;
	void mix(uint32_t x)
	{
		h ^= x;
		h *= 1099511628211ULL;
	}
};

// The approximate layout is frozen: gin_minhash_approx_ops layout 1 and
// recall => of the grouping functions take it, and an index holds its keys.
// It is computed in integers, so these values hold on every build; if one
// fails, the layout changed and existing approximate indexes would miss
// rows: keep mh_recall_layout, and make a new function and layout version.
void test_recall_layout_golden()
{
	struct Row
	{
		uint32_t num_perm;
		double recall;
		uint32_t layouts[7][2]; // bands, rows at thresholds 0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95
	};
	const Row golden[] = {
	    {64, 0.9, {{18, 2}, {13, 3}, {12, 4}, {9, 5}, {8, 8}, {4, 16}, {3, 21}}},
	    {64, 0.99, {{11, 1}, {13, 2}, {15, 3}, {13, 4}, {10, 6}, {6, 10}, {4, 15}}},
	    {64, 0.999, {{17, 1}, {20, 2}, {13, 2}, {13, 3}, {12, 5}, {7, 9}, {5, 11}}},
	    {128, 0.9, {{18, 2}, {24, 4}, {19, 5}, {17, 7}, {11, 10}, {6, 21}, {4, 32}}},
	    {128, 0.99, {{36, 2}, {26, 3}, {24, 4}, {17, 5}, {15, 8}, {8, 16}, {5, 20}}},
	    {128, 0.999, {{53, 2}, {38, 3}, {22, 3}, {19, 4}, {18, 7}, {9, 12}, {7, 18}}},
	    {256, 0.9, {{53, 3}, {45, 5}, {30, 6}, {22, 8}, {18, 13}, {9, 28}, {6, 42}}},
	    {256, 0.99, {{36, 2}, {48, 4}, {38, 5}, {33, 7}, {22, 10}, {12, 21}, {8, 32}}},
	    {256, 0.999, {{53, 2}, {38, 3}, {36, 4}, {36, 6}, {27, 9}, {14, 18}, {10, 25}}},
	    {1024, 0.9, {{153, 4}, {83, 6}, {111, 9}, {72, 12}, {50, 19}, {22, 45}, {14, 73}}},
	    {1024, 0.99, {{106, 3}, {165, 6}, {92, 7}, {80, 10}, {60, 16}, {27, 36}, {17, 56}}},
	    {1024, 0.999, {{158, 3}, {134, 5}, {138, 7}, {89, 9}, {64, 14}, {31, 31}, {20, 48}}},
	};
	const double thresholds[7] = {0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95};
	for (const Row &row : golden)
		for (int i = 0; i < 7; i++)
		{
			uint32_t bands = 0, rows = 0;
			const MhStatus status =
			    mh_recall_layout(thresholds[i], row.recall, row.num_perm, &bands, &rows);
			CHECK(status == MH_OK && bands == row.layouts[i][0] && rows == row.layouts[i][1],
			      "golden recall layout at " + std::to_string(thresholds[i]) + ", recall " +
			          std::to_string(row.recall) + ", " + std::to_string(row.num_perm) +
			          " values: " + std::to_string(row.layouts[i][0]) + " x " +
			          std::to_string(row.layouts[i][1]) + ", got " + std::to_string(bands) +
			          " x " + std::to_string(rows));
		}
	// The whole grid: thresholds 0.01 to 1 by 0.01, six recalls, 17 sizes.
	Fnv grid;
	for (uint32_t n : {1u, 2u, 3u, 4u, 5u, 8u, 16u, 32u, 64u, 100u, 128u, 200u, 256u, 512u, 1024u,
	                   4096u, 8192u})
		for (double recall : {0.5, 0.8, 0.9, 0.95, 0.99, 0.999})
			for (int step = 1; step <= 100; step++)
			{
				uint32_t bands = 0, rows = 0;
				const MhStatus status = mh_recall_layout(step / 100.0, recall, n, &bands, &rows);
				grid.mix(status);
				grid.mix(status == MH_OK ? bands : 0);
				grid.mix(status == MH_OK ? rows : 0);
			}
	CHECK_EQ(hex64(grid.h), hex64(0x4d7f48b1077cebe2ULL), "golden recall layouts, whole grid");
}

void test_lsh()
{
	g_section = "lsh";
	// max_disagreements is the largest d with (n - d) / n >= t, exactly as the
	// % operator evaluates it in double precision, though computed in
	// integers: check against brute force, at decimal thresholds and at every
	// quotient (n - d) / n and the doubles either side of it, where a test
	// rounded differently would answer differently.
	bool exact = true;
	auto brute_force = [](double t, uint32_t n) {
		uint32_t brute = 0;
		for (uint32_t d = 0; d <= n; d++)
			if ((static_cast<double>(n) - d) / n >= t) brute = d;
		return brute;
	};
	for (uint32_t n : {1u, 2u, 3u, 7u, 64u, 100u, 128u, 200u, 256u})
		for (int step = 0; step <= 1000; step++)
			exact = exact && mh_max_disagreements(step / 1000.0, n) == brute_force(step / 1000.0, n);
	for (uint32_t n = 1; n <= 300; n++)
		for (uint32_t d = 0; d <= n; d++)
		{
			const double t = (static_cast<double>(n) - d) / n;
			for (double near : {t, std::nextafter(t, 2.0), std::nextafter(t, -1.0)})
				if (near >= 0.0 && near <= 1.0)
					exact = exact && mh_max_disagreements(near, n) == brute_force(near, n);
		}
	for (double tiny : {1e-300, 4.9e-324, 1e-12, 0x1p-33, 0x1p-32})
		exact = exact && mh_max_disagreements(tiny, 8192) == brute_force(tiny, 8192);
	CHECK(exact, "max_disagreements agrees with brute force");
	CHECK(mh_max_disagreements(0.0, 128) == 128 && mh_max_disagreements(1.0, 128) == 0 &&
	          mh_max_disagreements(0.8, 128) == 25 && mh_max_disagreements(0.8, 5) == 1,
	      "max_disagreements at 0, 1 and 0.8");

	// The one pigeonhole layout: D + 1 + spare bands of num_perm / bands rows.
	uint32_t bands = 0, rows = 0;
	MhPigeonholeLayout layout{};
	CHECK_EQ(mh_pigeonhole_layout(0.8, 128, 2, &layout), MH_OK, "layout for 0.8");
	CHECK(layout.bands == 28 && layout.rows == 4 && layout.max_disagreements == 25 &&
	          layout.min_bands == 3,
	      "0.8 at 128 values, 2 spare: 28 bands of 4, 3 shared, got " +
	          std::to_string(layout.bands) + " of " + std::to_string(layout.rows));
	CHECK_EQ(mh_pigeonhole_layout(0.8, 128, 0, &layout), MH_OK, "layout for 0.8, no spare");
	CHECK(layout.bands == 26 && layout.rows == 4 && layout.min_bands == 1,
	      "0.8 at 128 values, no spare: 26 bands of 4, 1 shared");
	// Every threshold's layout fits, and leaves the spare bands over the
	// pigeonhole minimum (fewer only when the signature runs out of values).
	bool layouts_fit = true;
	for (uint32_t spare : {0u, 1u, 2u, 5u})
		for (uint32_t n : {1u, 2u, 16u, 128u, 200u, 256u})
			for (int step = 1; step <= 100; step++)
			{
				const double t = step / 100.0;
				const uint32_t d = mh_max_disagreements(t, n);
				if (d >= n) continue;
				layouts_fit = layouts_fit && mh_pigeonhole_layout(t, n, spare, &layout) == MH_OK &&
				              mh_check_layout(layout.bands, layout.rows, n) == MH_OK &&
				              layout.bands > d && layout.max_disagreements == d &&
				              layout.min_bands == layout.bands - d &&
				              layout.rows == n / layout.bands &&
				              (layout.bands - d == 1 + spare || layout.bands == n);
			}
	CHECK(layouts_fit, "pigeonhole layouts fit and keep the spare bands");
	CHECK_EQ(mh_pigeonhole_layout(0.995, 128, 2, &layout), MH_OK, "layout for 0.995");
	CHECK(layout.bands == 3 && layout.rows == 42, "0.995 at 128 values: 3 bands of 42");
	CHECK_EQ(mh_pigeonhole_layout(1.0, 128, 0, &layout), MH_OK, "layout for 1");
	CHECK(layout.bands == 1 && layout.rows == 128, "1 at 128 values, no spare: one band of all");
	CHECK_EQ(mh_pigeonhole_layout(0.0, 128, 2, &layout), MH_ERR_BANDS_RANGE,
	         "threshold 0 cannot be guaranteed");
	CHECK_EQ(mh_pigeonhole_layout(1.5, 128, 2, &layout), MH_ERR_THRESHOLD_RANGE, "threshold 1.5");
	CHECK_EQ(mh_pigeonhole_layout(0.8, 0, 2, &layout), MH_ERR_NUM_PERM_RANGE, "num_perm 0");
	CHECK_EQ(mh_pigeonhole_layout(0.5, 3, UINT32_MAX, &layout), MH_OK, "huge spare");
	CHECK(layout.bands == 3 && layout.rows == 1, "huge spare: capped at num_perm bands");
	// The approximate layout for a recall: at least the recall at the target
	// on the S-curve, in as few values as the signature has.
	CHECK(mh_recall_target(0.5) == 0.55 && mh_recall_target(0.98) == 0.99,
	      "recall target: t + 0.05, at most halfway to 1");
	bool recall_layouts_ok = true;
	for (double recall : {0.5, 0.9, 0.99, 0.999})
		for (uint32_t n : {16u, 64u, 128u, 256u})
			for (int step = 5; step <= 100; step += 5)
			{
				const double t = step / 100.0;
				const MhStatus status = mh_recall_layout(t, recall, n, &bands, &rows);
				if (status == MH_ERR_BANDS_RANGE) continue;
				recall_layouts_ok = recall_layouts_ok && status == MH_OK &&
				                    mh_check_layout(bands, rows, n) == MH_OK &&
				                    mh_lsh_probability(mh_recall_target(t), bands, rows) >= recall &&
				                    (bands == 1 || mh_lsh_probability(mh_recall_target(t), bands - 1,
				                                                      rows) < recall);
			}
	CHECK(recall_layouts_ok, "recall layouts fit, reach the recall, with the fewest bands");
	CHECK_EQ(mh_recall_layout(0.5, 0.99, 128, &bands, &rows), MH_OK, "recall layout for 0.5");
	CHECK(bands == 26 && rows == 3, "0.5, recall 0.99, 128 values: 26 bands of 3, got " +
	                                    std::to_string(bands) + " of " + std::to_string(rows));
	CHECK_EQ(mh_recall_layout(0.5, 1.0, 128, &bands, &rows), MH_ERR_ARGUMENT, "recall 1");
	CHECK_EQ(mh_recall_layout(0.5, 0.0, 128, &bands, &rows), MH_ERR_ARGUMENT, "recall 0");
	CHECK_EQ(mh_recall_layout(0.0, 0.99, 128, &bands, &rows), MH_ERR_THRESHOLD_RANGE,
	         "threshold 0 chooses no layout");
	CHECK_EQ(mh_recall_layout(std::nan(""), 0.99, 128, &bands, &rows), MH_ERR_THRESHOLD_RANGE,
	         "threshold NaN");
	CHECK_EQ(mh_recall_layout(1.0, 0.99, 128, &bands, &rows), MH_OK, "recall layout at 1");
	CHECK(bands == 1 && rows == 128, "at threshold 1, one band of every value");
	CHECK_EQ(mh_recall_layout(0.05, 0.999999, 1, &bands, &rows), MH_ERR_BANDS_RANGE,
	         "one value cannot reach recall 0.999999 at 0.1");
	CHECK_EQ(mh_check_layout(26, 5, 128), MH_ERR_BANDS_RANGE, "26 x 5 > 128");
	CHECK_EQ(mh_check_layout(0, 5, 128), MH_ERR_BANDS_RANGE, "0 bands");

	test_recall_layout_golden();

	// The pigeonhole bound: two signatures with d disagreements, d < bands,
	// share at least bands - d keys, wherever the disagreements fall.
	std::mt19937_64 rng(7);
	bool bound_holds = true;
	for (int trial = 0; trial < 2000; trial++)
	{
		std::vector<uint32_t> a(128), b;
		for (uint32_t &v : a) v = static_cast<uint32_t>(rng());
		b = a;
		const uint32_t d = static_cast<uint32_t>(rng() % 26);
		for (uint32_t k = 0; k < d; k++) b[rng() % 128] ^= 1u + static_cast<uint32_t>(rng() % 7);
		uint32_t disagree = 0;
		for (int i = 0; i < 128; i++) disagree += a[i] != b[i];
		std::vector<uint64_t> ka(26), kb(26);
		mh_band_keys(a.data(), 128, 26, 4, ka.data());
		mh_band_keys(b.data(), 128, 26, 4, kb.data());
		uint32_t shared = 0;
		for (int i = 0; i < 26; i++) shared += ka[i] == kb[i];
		bound_holds = bound_holds && shared >= 26 - disagree;
	}
	CHECK(bound_holds, "pigeonhole: shared band keys >= bands - disagreements");

	// Equal rows in different bands give different keys.
	std::vector<uint32_t> same(128, MH_EMPTY_VALUE);
	std::vector<uint64_t> keys(32);
	mh_band_keys(same.data(), 128, 32, 4, keys.data());
	CHECK_EQ(std::set<uint64_t>(keys.begin(), keys.end()).size(), size_t(32),
	         "band number mixed into the key");

	// At least m of b bands: the binomial tail, against direct summation.
	bool tail_exact = true;
	for (double sim : {0.0, 0.3, 0.5, 0.8, 0.95, 1.0})
		for (uint32_t m = 1; m <= 28; m++)
		{
			const double p = std::pow(sim, 4);
			double direct = 0;
			for (uint32_t k = m; k <= 28; k++)
			{
				double choose = 1;
				for (uint32_t i = 0; i < k; i++) choose = choose * (28 - i) / (i + 1);
				direct += choose * std::pow(p, k) * std::pow(1 - p, 28 - k);
			}
			tail_exact = tail_exact && std::fabs(mh_lsh_probability_at_least(sim, 28, 4, m) - direct) < 1e-12;
		}
	CHECK(tail_exact, "lsh_probability_at_least is the binomial tail");
	CHECK(mh_lsh_probability_at_least(0.5, 20, 5, 1) == mh_lsh_probability(0.5, 20, 5),
	      "one band: the classic formula");
	CHECK(mh_lsh_probability_at_least(0.5, 20, 5, 21) == 0.0, "more bands than there are");

	// The seed paper's Table 8, b = 20, r = 5.
	CHECK(std::fabs(mh_lsh_probability(0.2, 20, 5) - 0.00638) < 0.00001, "P(0.2) = 0.00638");
	CHECK(std::fabs(mh_lsh_probability(0.5, 20, 5) - 0.470) < 0.001, "P(0.5) = 0.470");
	CHECK(std::fabs(mh_lsh_probability(0.8, 20, 5) - 0.99964) < 0.00001, "P(0.8) = 0.99964");

	double fp = 0, fn = 0;
	CHECK_EQ(mh_lsh_params(0.8, 128, 0.5, 0.5, nullptr, nullptr, &bands, &rows, &fp, &fn), MH_OK, "lsh_params");
	CHECK(bands * rows <= 128 && fp < 0.05 && fn < 0.05,
	      "lsh_params fits and errs little: " + std::to_string(bands) + "x" + std::to_string(rows));
}

// The index's layouts (src/core/index_layout.cpp).  Layout 1 is what every
// index without the layout option holds: its keys are pinned here as
// literals, computed by minhash 1.0's GIN code (mh_guaranteed_layout, then
// key ^ key >> 32 masked to key_bits, sorted).  If one of these fails, the
// keys of existing indexes changed and scans would miss rows: make a new
// layout version instead.
std::vector<uint32_t> arithmetic_signature(uint32_t num_perm, uint32_t step, uint32_t first)
{
	std::vector<uint32_t> values(num_perm);
	for (uint32_t i = 0; i < num_perm; i++) values[i] = i * step + first;
	return values;
}

// FNV-1a over the keys, to pin a long key list in one literal.
uint64_t keys_checksum(const std::vector<int32_t> &keys)
{
	uint64_t h = 1469598103934665603ULL;
	for (int32_t k : keys)
	{
		h ^= static_cast<uint32_t>(k);
		h *= 1099511628211ULL;
	}
	return h;
}

struct IndexKeys
{
	MhStatus status = MH_OK;
	MhIndexLayout layout{};
	std::vector<int32_t> keys;
};

IndexKeys index_keys(const std::vector<uint32_t> &values, MhIndexOptions options)
{
	IndexKeys out;
	const auto n = static_cast<uint32_t>(values.size());
	out.status = mh_index_layout(&options, n, &out.layout);
	if (out.status != MH_OK) return out;
	out.keys.assign(out.layout.bands, 0);
	out.status = mh_index_keys(&out.layout, values.data(), n, out.keys.data());
	return out;
}

// Options as an index without any stores them: layout 1, nothing else.
MhIndexOptions no_options()
{
	MhIndexOptions options{};
	options.layout = MH_INDEX_LAYOUT_DEFAULT;
	options.threshold = -1.0;
	return options;
}

void check_index_golden(const char *name, const IndexKeys &got, uint32_t bands, uint32_t rows,
                        uint32_t key_bits, uint64_t checksum)
{
	const std::string n = std::string("layout 1 golden ") + name;
	CHECK_EQ(got.status, MH_OK, n);
	if (got.status != MH_OK) return;
	CHECK(got.layout.bands == bands && got.layout.rows == rows && got.layout.key_bits == key_bits,
	      n + ": " + std::to_string(got.layout.bands) + " bands of " +
	          std::to_string(got.layout.rows) + ", " + std::to_string(got.layout.key_bits) +
	          " bits");
	CHECK_EQ(hex64(keys_checksum(got.keys)), hex64(checksum), n + " keys");
	CHECK(std::is_sorted(got.keys.begin(), got.keys.end()), n + " keys ascending");
}

void test_index_layout()
{
	g_section = "index layout";
	MhIndexLayoutVersion version{};
	CHECK_EQ(mh_index_layout_version(1, &version), MH_OK, "layout 1 is known");
	CHECK(version.threshold == 0.8 && version.key_bits == 20 && version.spare_bands == 2,
	      "layout 1: threshold 0.8, key_bits 20, 2 spare bands");
	CHECK_EQ(mh_index_layout_version(0, &version), MH_ERR_UNKNOWN_LAYOUT, "layout 0 unknown");
	CHECK_EQ(mh_index_layout_version(MH_INDEX_LAYOUT_LATEST + 1, &version), MH_ERR_UNKNOWN_LAYOUT,
	         "layout after the latest unknown");
	CHECK_EQ(MH_INDEX_LAYOUT_DEFAULT, 1, "an index without the option is layout 1, forever");

	// Golden keys of layout 1, with and without options.
	const std::vector<uint32_t> a = arithmetic_signature(128, 0x9E3779B9u, 12345);
	{
		const IndexKeys got = index_keys(a, no_options());
		check_index_golden("no options n=128", got, 28, 4, 20, 0x0fcfae8b2ce0b117ULL);
		const std::vector<int32_t> expected = {
		    8389,   55975,  138810, 208494, 217816, 223603, 225620, 245914, 262963, 277668,
		    283491, 291372, 303338, 344573, 403457, 443045, 474044, 549479, 549872, 722611,
		    729118, 768460, 875998, 892614, 892811, 943163, 958772, 1042524};
		CHECK(got.keys == expected, "layout 1 golden no options n=128: every key");
		// The same from the band keys by hand: fold, mask, sort.
		std::vector<uint64_t> band(28);
		mh_band_keys(a.data(), 128, 28, 4, band.data());
		std::vector<int32_t> by_hand;
		for (uint64_t k : band)
			by_hand.push_back(static_cast<int32_t>(static_cast<uint32_t>(k ^ (k >> 32)) & 0xFFFFFu));
		std::sort(by_hand.begin(), by_hand.end());
		CHECK(got.keys == by_hand, "layout 1 key = (band key ^ band key >> 32) & (2^20 - 1)");
		// The band keys themselves (XXH3 of little-endian rows, seeded by band).
		CHECK_EQ(hex64(band[0]), hex64(0x1aecfc04d7efaedcULL), "golden band key 0 of 28x4");
		CHECK_EQ(hex64(band[1]), hex64(0x8bae75beeca19de2ULL), "golden band key 1 of 28x4");
		CHECK_EQ(hex64(band[27]), hex64(0xb5704cb59cd362dbULL), "golden band key 27 of 28x4");
	}
	{
		MhIndexOptions o = no_options();
		o.bands = 16;
		o.rows = 8;
		check_index_golden("bands=16 rows=8", index_keys(a, o), 16, 8, 20, 0xc6048f6e807c8f48ULL);
		o = no_options();
		o.threshold = 0.9;
		o.key_bits = 24;
		check_index_golden("threshold=0.9 key_bits=24", index_keys(a, o), 15, 8, 24,
		                   0x8ee6390dafd4a506ULL);
		o = no_options();
		o.key_bits = 32;
		check_index_golden("key_bits=32", index_keys(a, o), 28, 4, 32, 0xdc533a53c9bf0781ULL);
		o = no_options();
		o.threshold = 0.0;
		o.key_bits = 16;
		check_index_golden("threshold=0 key_bits=16 (no guarantee: n bands of 1)",
		                   index_keys(a, o), 128, 1, 16, 0xdcfd778ae4db6af3ULL);
		o = no_options();
		o.threshold = 0.8; // given, equal to the default: the same keys
		check_index_golden("threshold=0.8 given", index_keys(a, o), 28, 4, 20,
		                   0x0fcfae8b2ce0b117ULL);
	}
	check_index_golden("no options n=256", index_keys(arithmetic_signature(256, 0x85EBCA6Bu, 7), no_options()),
	                   54, 4, 20, 0xbead0bc3503fa184ULL);
	check_index_golden("no options n=7", index_keys(arithmetic_signature(7, 0xC2B2AE35u, 1), no_options()),
	                   4, 1, 20, 0xba4f11abc1028858ULL);

	// Refusals.
	MhIndexOptions o = no_options();
	o.layout = 2;
	CHECK_EQ(index_keys(a, o).status, MH_ERR_UNKNOWN_LAYOUT, "layout 2 refused");
	o.layout = 0;
	CHECK_EQ(index_keys(a, o).status, MH_ERR_UNKNOWN_LAYOUT, "layout 0 refused");
	MhIndexLayout unknown{2, 28, 4, 20, 0};
	std::vector<int32_t> keys(28);
	CHECK_EQ(mh_index_keys(&unknown, a.data(), 128, keys.data()), MH_ERR_UNKNOWN_LAYOUT,
	         "keys of layout 2 refused");
	o = no_options();
	o.bands = 40;
	o.rows = 4;
	CHECK_EQ(index_keys(a, o).status, MH_ERR_BANDS_RANGE, "40 x 4 > 128 refused");
	o = no_options();
	o.key_bits = 33;
	CHECK_EQ(index_keys(a, o).status, MH_ERR_ARGUMENT, "33 key bits refused");
	o = no_options();
	o.threshold = 1.5;
	CHECK_EQ(index_keys(a, o).status, MH_ERR_ARGUMENT, "threshold 1.5 refused");

}

// The approximate layouts (gin_minhash_approx_ops).  Layout 1: bands and
// rows of mh_recall_layout for the threshold and recall options (0.8 and
// 0.99 when not given), keys folded as in exact layout 1, 24 bits.  The keys
// are pinned like layout 1's: an approximate index holds them too.
IndexKeys approx_index_keys(const std::vector<uint32_t> &values, MhApproxIndexOptions options)
{
	IndexKeys out;
	const auto n = static_cast<uint32_t>(values.size());
	out.status = mh_approx_index_layout(&options, n, &out.layout);
	if (out.status != MH_OK) return out;
	out.keys.assign(out.layout.bands, 0);
	out.status = mh_index_keys(&out.layout, values.data(), n, out.keys.data());
	return out;
}

MhApproxIndexOptions approx_options(double threshold, double recall, uint32_t key_bits)
{
	MhApproxIndexOptions options{};
	options.layout = MH_APPROX_LAYOUT_DEFAULT;
	options.threshold = threshold;
	options.recall = recall;
	options.key_bits = key_bits;
	return options;
}

void test_approx_index_layout()
{
	g_section = "approximate index layout";
	MhApproxLayoutVersion version{};
	CHECK_EQ(mh_approx_layout_version(1, &version), MH_OK, "approximate layout 1 is known");
	CHECK(version.threshold == 0.8 && version.recall == 0.99 && version.key_bits == 24,
	      "approximate layout 1: threshold 0.8, recall 0.99, key_bits 24");
	CHECK_EQ(mh_approx_layout_version(0, &version), MH_ERR_UNKNOWN_LAYOUT, "layout 0 unknown");
	CHECK_EQ(mh_approx_layout_version(MH_APPROX_LAYOUT_LATEST + 1, &version),
	         MH_ERR_UNKNOWN_LAYOUT, "layout after the latest unknown");
	CHECK_EQ(MH_APPROX_LAYOUT_DEFAULT, 1, "an index without the option is layout 1, forever");

	const std::vector<uint32_t> a = arithmetic_signature(128, 0x9E3779B9u, 12345);
	// No options: mh_recall_layout(0.8, 0.99) = 15 x 8, 24 bits.  The same
	// bands, rows and width as the exact golden "threshold=0.9 key_bits=24",
	// so the same keys: the folding is exact layout 1's.
	IndexKeys got = approx_index_keys(a, approx_options(-1.0, -1.0, 0));
	check_index_golden("approximate, no options", got, 15, 8, 24, 0x8ee6390dafd4a506ULL);
	CHECK_EQ(got.layout.approximate, 1u, "approximate layouts say so");
	got = approx_index_keys(a, approx_options(0.5, 0.99, 0));
	check_index_golden("approximate 0.5, 0.99", got, 26, 3, 24, 0x5ccf1bfe54e13b3bULL);
	CHECK(got.keys.size() == 26 && got.keys[0] == 230625 && got.keys[1] == 551064 &&
	          got.keys[2] == 614472,
	      "approximate 0.5, 0.99: the smallest keys");
	check_index_golden("approximate 0.7, 0.9, key_bits 20",
	                   approx_index_keys(a, approx_options(0.7, 0.9, 20)), 17, 7, 20,
	                   0xd1d129a962a3fd55ULL);
	check_index_golden("approximate 0.9, 0.999, key_bits 32",
	                   approx_index_keys(a, approx_options(0.9, 0.999, 32)), 9, 12, 32,
	                   0x7ebca6985c72c891ULL);

	// Refusals: an unknown version (for the layout and for its keys), a
	// threshold of 0, recall out of (0, 1), too few values for the recall.
	MhApproxIndexOptions o = approx_options(0.5, 0.99, 0);
	o.layout = 2;
	CHECK_EQ(approx_index_keys(a, o).status, MH_ERR_UNKNOWN_LAYOUT, "approximate layout 2 refused");
	MhIndexLayout unknown{2, 26, 3, 24, 1};
	std::vector<int32_t> keys(26);
	CHECK_EQ(mh_index_keys(&unknown, a.data(), 128, keys.data()), MH_ERR_UNKNOWN_LAYOUT,
	         "keys of approximate layout 2 refused");
	CHECK_EQ(approx_index_keys(a, approx_options(0.0, 0.99, 0)).status, MH_ERR_ARGUMENT,
	         "threshold 0 refused");
	CHECK_EQ(approx_index_keys(a, approx_options(0.5, 1.0, 0)).status, MH_ERR_ARGUMENT,
	         "recall 1 refused");
	CHECK_EQ(approx_index_keys(a, approx_options(0.5, 0.99, 33)).status, MH_ERR_ARGUMENT,
	         "33 key bits refused");
	CHECK_EQ(approx_index_keys(arithmetic_signature(1, 1, 1), approx_options(0.05, 0.999999, 0)).status,
	         MH_ERR_BANDS_RANGE, "one value cannot reach recall 0.999999");
}

// --- explaining a match: words with spans, exact S_R, chunks, intervals ------

struct ScannedWords
{
	std::vector<uint64_t> hashes;
	std::vector<uint32_t> begins, ends;
	MhStatus status = MH_OK;
};

ScannedWords scan_words(const std::string &text, size_t piece)
{
	ScannedWords out;
	const uint64_t capacity = mh_words_capacity(text.size());
	out.hashes.resize(capacity);
	out.begins.resize(capacity);
	out.ends.resize(capacity);
	MhWords words{out.hashes.data(), out.begins.data(), out.ends.data(), capacity, 0};
	std::vector<char> exact(text.begin(), text.end());
	size_t position = 0;
	while (position < exact.size() && out.status == MH_OK)
		out.status = mh_words_scan(exact.data(), exact.size(), &position, piece, &words);
	out.hashes.resize(words.count);
	out.begins.resize(words.count);
	out.ends.resize(words.count);
	return out;
}

// The folded words as mh_tokenize gives them.
std::vector<std::string> folded_words(const std::string &text)
{
	MhStatus status;
	const std::string joined = tokenize_api(text, SIZE_MAX, mh_tokens_capacity(text.size()), &status);
	std::vector<std::string> out;
	size_t at = 0;
	while (at < joined.size())
	{
		const size_t end = joined.find('\0', at);
		out.push_back(joined.substr(at, end - at));
		at = end + 1;
	}
	return out;
}

void test_explain_words()
{
	g_section = "mh_words_scan";
	std::mt19937_64 rng(777);
	for (int i = 0; i < 200; i++)
	{
		const std::vector<std::string> words = random_words(rng, rng() % 60, 1 + rng() % 30);
		std::string text = render(rng, words);
		if (i % 7 == 0) text += " Ärger ÉCOLE σίσυφοσ " + std::string(300, 'x') + " e\xCC\x81" "cole";
		const ScannedWords s = scan_words(text, 1 + rng() % 20);
		const std::vector<std::string> folded = folded_words(text);
		CHECK_EQ(s.status, MH_OK, "scan");
		if (!CHECK_EQ(s.hashes.size(), folded.size(), "same words as mh_tokenize")) continue;
		bool hashes_ok = true, spans_ok = true;
		for (size_t k = 0; k < folded.size(); k++)
		{
			hashes_ok &= s.hashes[k] == XXH3_64bits(folded[k].data(), folded[k].size());
			// the span holds exactly that word
			const std::string span = text.substr(s.begins[k], s.ends[k] - s.begins[k]);
			const std::vector<std::string> inside = folded_words(span);
			spans_ok &= inside.size() == 1 && inside[0] == folded[k];
			spans_ok &= k == 0 || s.begins[k] >= s.ends[k - 1];
		}
		CHECK(hashes_ok, "word hashes are XXH3 of the folded words, text " + std::to_string(i));
		CHECK(spans_ok, "each span is its word, text " + std::to_string(i));
	}
	const ScannedWords one = scan_words("  Hello, WORLD!", 1);
	CHECK(one.begins == std::vector<uint32_t>({2, 9}) && one.ends == std::vector<uint32_t>({7, 14}),
	      "spans of '  Hello, WORLD!'");
	uint64_t h[1];
	uint32_t b[1], e[1];
	MhWords tiny{h, b, e, 1, 0};
	size_t position = 0;
	CHECK_EQ(mh_words_scan("a b", 3, &position, 100, &tiny), MH_ERR_BUFFER_TOO_SMALL,
	         "too small a buffer is reported");
}

// Exact S_R from the builder's collected shingle hashes (independent of
// exact_resemblance.cpp).
double resemblance_from_builder(const std::string &a, const std::string &b, uint16_t k)
{
	auto shingles = [&](const std::string &text)
	{
		const MhParams p = make_params(MH_KIND_WORDS, k, 1, 0);
		const uint64_t max_elements = text.size() / 2 + 1;
		Builder builder(p, max_elements);
		std::vector<uint64_t> hashes(max_elements);
		mh_builder_collect(builder.state, hashes.data(), max_elements);
		feed_all(builder.state, text, SIZE_MAX);
		builder.finish();
		hashes.resize(mh_builder_collected(builder.state));
		return std::set<uint64_t>(hashes.begin(), hashes.end());
	};
	const std::set<uint64_t> sa = shingles(a), sb = shingles(b);
	if (sa.empty() || sb.empty()) return 0.0; // no words resemble nothing
	size_t common = 0;
	for (uint64_t x : sa) common += sb.count(x);
	return double(common) / double(sa.size() + sb.size() - common);
}

double exact_resemblance(const std::string &a, const std::string &b, uint32_t k, MhStatus *status)
{
	const ScannedWords wa = scan_words(a, SIZE_MAX), wb = scan_words(b, SIZE_MAX);
	double r = -1;
	*status = mh_exact_resemblance(wa.hashes.data(), wa.hashes.size(), wb.hashes.data(),
	                               wb.hashes.size(), k, 0, nullptr, nullptr, &r);
	return r;
}

void test_exact_resemblance()
{
	g_section = "mh_exact_resemblance";
	std::mt19937_64 rng(31337);
	int agree = 0, total = 0;
	for (int i = 0; i < 300; i++)
	{
		const size_t vocabulary = 1 + rng() % 12;
		const std::vector<std::string> wa = random_words(rng, rng() % 40, vocabulary);
		std::vector<std::string> wb = wa;
		for (size_t e = rng() % 6; e > 0 && !wb.empty(); e--) wb[rng() % wb.size()] = "edit";
		if (rng() % 4 == 0) wb = random_words(rng, rng() % 40, vocabulary);
		const std::string a = render(rng, wa), b = render(rng, wb);
		const uint16_t k = static_cast<uint16_t>(1 + rng() % 6);
		MhStatus status;
		const double got = exact_resemblance(a, b, k, &status);
		agree += status == MH_OK && got == resemblance_from_builder(a, b, k);
		total++;
	}
	CHECK_EQ(agree, total, "exact S_R equals the builder's shingle sets");
	MhStatus status;
	CHECK_EQ(exact_resemblance("", "", 5, &status), 0.0, "both empty: nothing in common");
	CHECK_EQ(exact_resemblance("...", "", 5, &status), 0.0, "no words either side");
	CHECK_EQ(exact_resemblance("", "a b", 5, &status), 0.0, "one empty");
	CHECK_EQ(exact_resemblance("a b c", "A, B; C", 5, &status), 1.0, "short and the same");
	CHECK_EQ(exact_resemblance("a b c", "a b c d e", 5, &status), 0.0, "short in a longer one");
	CHECK_EQ(exact_resemblance("a b c d e", "a b c d e yes", 5, &status), 0.5, "seed example 4");
	CHECK_EQ(exact_resemblance("a b", "a b", 0, &status), -1.0, "shingle size 0 refused");
	CHECK_EQ(status, MH_ERR_SHINGLE_SIZE_RANGE, "shingle size 0 status");
}

// --- chunk matching against brute force ---------------------------------------

struct RefChunk
{
	uint64_t a, b, words;
	bool operator==(const RefChunk &o) const { return a == o.a && b == o.b && words == o.words; }
};

// Greedy string tiling by brute force, O(n^2 * run): the definition itself.
std::vector<RefChunk> reference_literal(const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                                        uint64_t w)
{
	std::vector<RefChunk> out;
	if (a.size() < w || b.size() < w)
	{
		if (a == b && !a.empty()) out.push_back({0, 0, a.size()});
		return out;
	}
	std::vector<bool> ta(a.size()), tb(b.size());
	for (;;)
	{
		RefChunk best{0, 0, 0};
		for (uint64_t i = 0; i < a.size(); i++)
			for (uint64_t j = 0; j < b.size(); j++)
			{
				uint64_t d = 0;
				while (i + d < a.size() && j + d < b.size() && !ta[i + d] && !tb[j + d] &&
				       a[i + d] == b[j + d])
					d++;
				if (d > best.words) best = {i, j, d};
			}
		if (best.words < w) break;
		for (uint64_t d = 0; d < best.words; d++) ta[best.a + d] = tb[best.b + d] = true;
		out.push_back(best);
	}
	std::sort(out.begin(), out.end(), [](const RefChunk &x, const RefChunk &y) { return x.a < y.a; });
	return out;
}

struct RefInfo
{
	uint64_t information, common, stretches;
};

// Information matching by brute force on one side.
RefInfo reference_information_side(const std::vector<uint64_t> &x, const std::vector<uint64_t> &y,
                                   uint64_t w)
{
	auto window_in = [&](const std::vector<uint64_t> &t, uint64_t i, const std::vector<uint64_t> &u,
	                     uint64_t before)
	{ // is t[i, i+w) a window of u starting before `before`?
		for (uint64_t j = 0; j + w <= u.size() && j < before; j++)
			if (std::equal(t.begin() + i, t.begin() + i + w, u.begin() + j)) return true;
		return false;
	};
	std::vector<bool> repeated(x.size()), common(x.size());
	for (uint64_t i = 0; i + w <= x.size(); i++)
	{
		for (uint64_t f = 0; f < i; f++) // the first earlier occurrence
			if (std::equal(x.begin() + i, x.begin() + i + w, x.begin() + f))
			{
				for (uint64_t p = std::max(i, f + w); p < i + w; p++) repeated[p] = true;
				break;
			}
		if (window_in(x, i, y, UINT64_MAX))
			for (uint64_t d = 0; d < w; d++) common[i + d] = true;
	}
	RefInfo r{0, 0, 0};
	bool in = false;
	for (uint64_t p = 0; p < x.size(); p++)
	{
		const bool counted = !repeated[p] && common[p];
		r.information += !repeated[p];
		r.common += counted;
		r.stretches += counted && !in;
		in = counted;
	}
	return r;
}

MhChunkStats run_match(const std::vector<uint64_t> &a, const std::vector<uint64_t> &b, uint32_t w,
                       MhMatching matching, std::vector<MhChunk> *chunks, MhStatus *status,
                       MhInterruptPoll poll = nullptr)
{
	MhChunkStats stats{};
	std::vector<MhChunk> room(mh_chunks_capacity(a.size(), b.size(), w));
	*status = mh_chunk_match(a.data(), a.size(), b.data(), b.size(), w, matching, poll, nullptr,
	                         &stats, chunks != nullptr ? room.data() : nullptr);
	if (chunks != nullptr)
	{
		room.resize(*status == MH_OK ? stats.chunks : 0);
		*chunks = room;
	}
	return stats;
}

std::vector<uint64_t> random_sequence(std::mt19937_64 &rng, size_t count, uint64_t alphabet)
{
	std::vector<uint64_t> out(count);
	for (uint64_t &x : out) x = 1000 + rng() % alphabet;
	return out;
}

// Seed 000's examples, with words as numbers: the figures come out as the
// article says.
void test_chunk_examples()
{
	g_section = "chunk examples";
	std::vector<uint64_t> a, b;
	MhStatus status;
	auto seq = [](uint64_t from, uint64_t count)
	{
		std::vector<uint64_t> v;
		for (uint64_t i = 0; i < count; i++) v.push_back(from + i);
		return v;
	};
	auto cat = [](std::vector<uint64_t> x, const std::vector<uint64_t> &y)
	{
		x.insert(x.end(), y.begin(), y.end());
		return x;
	};
	auto sr = [](const std::vector<uint64_t> &x, const std::vector<uint64_t> &y, uint32_t k)
	{
		double r = -1;
		mh_exact_resemblance(x.data(), x.size(), y.data(), y.size(), k, 0, nullptr, nullptr, &r);
		return r;
	};
	// Example 1: 40 + typo + 45 + 11 vs 40 + fix + 45 + 14 words.
	a = cat(cat(cat(seq(1, 40), {900}), seq(41, 45)), seq(500, 11));
	b = cat(cat(cat(seq(1, 40), {901}), seq(41, 45)), seq(600, 14));
	MhChunkStats s = run_match(a, b, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 85 && s.longer_words == 100 && s.shorter_words == 97 && s.chunks == 2,
	      "example 1 counts");
	CHECK(std::lround(100 * s.s_l) == 85 && std::lround(100 * s.s_j) == 76, "example 1: S_L 85%, S_J 76%");
	CHECK_EQ(std::lround(100 * sr(a, b, 5)), 69L, "example 1: S_R 69%");
	// Example 2: a text of 16 words and the text twice.
	a = seq(1, 16);
	b = cat(a, a);
	s = run_match(a, b, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 16 && s.s_j == 0.5 && s.s_l == 0.5, "example 2 literal: 50%");
	s = run_match(a, b, 5, MH_MATCH_INFORMATION, nullptr, &status);
	CHECK(s.common_words == 16 && s.longer_words == 16 && s.s_j == 1.0 && s.s_l == 1.0,
	      "example 2 information: 100%");
	CHECK_EQ(sr(a, b, 5), 0.75, "example 2: S_R 75%");
	// Example 3: chunks overlapping in a by one word.
	a = seq(1, 9);
	b = cat(cat(seq(1, 5), seq(100, 5)), seq(5, 5));
	s = run_match(a, b, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 5 && s.longer_words == 15 && s.shorter_words == 9, "example 3 literal C = 5");
	s = run_match(a, b, 5, MH_MATCH_INFORMATION, nullptr, &status);
	CHECK_EQ(s.common_words, uint64_t(9), "example 3 information C = 9");
	CHECK_EQ(std::lround(100 * sr(a, b, 5)), 14L, "example 3: S_R 14%");
	// Example 4: an e-mail of five words and its six-word reply.
	a = seq(1, 5);
	b = cat(a, {77});
	s = run_match(a, b, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 5 && std::lround(100 * s.s_j) == 83, "example 4: S_J 83%");
	CHECK_EQ(sr(a, b, 5), 0.5, "example 4: S_R 50%");
	// Short and empty texts.
	s = run_match({}, {}, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 0 && s.s_j == 0.0 && s.s_l == 0.0, "both empty: 0, as S_R");
	s = run_match({}, {}, 5, MH_MATCH_INFORMATION, nullptr, &status);
	CHECK(s.common_words == 0 && s.s_j == 0.0 && s.s_l == 0.0, "both empty, information: 0");
	s = run_match({}, {1, 2}, 5, MH_MATCH_INFORMATION, nullptr, &status);
	CHECK(s.s_j == 0.0 && s.s_l == 0.0 && s.longer_words == 2, "one empty: 0");
	s = run_match({1, 2, 3}, {1, 2, 3}, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 3 && s.chunks == 1 && s.s_j == 1.0, "short and the same: one chunk");
	s = run_match({1, 2, 3}, {1, 2, 3, 4, 5, 6}, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(s.common_words == 0, "short inside a longer text: no chunk (as minhash())");
	s = run_match({1, 2}, {1, 2}, 0, MH_MATCH_LITERAL, nullptr, &status);
	CHECK_EQ(status, MH_ERR_ARGUMENT, "min_words 0 refused");
	s = run_match({1, 2}, {1, 2}, 1, static_cast<MhMatching>(7), nullptr, &status);
	CHECK_EQ(status, MH_ERR_ARGUMENT, "unknown matching refused");
}

size_t max_window_occurrences(const std::vector<uint64_t> &x, uint64_t w)
{
	size_t most = 0;
	for (uint64_t i = 0; i + w <= x.size(); i++)
	{
		size_t n = 0;
		for (uint64_t j = 0; j + w <= x.size(); j++)
			n += std::equal(x.begin() + i, x.begin() + i + w, x.begin() + j);
		most = std::max(most, n);
	}
	return most;
}

void test_chunk_random()
{
	g_section = "chunk matching vs brute force";
	std::mt19937_64 rng(2024);
	int literal_ok = 0, literal_compared = 0, information_ok = 0, literal_order_ok = 0, total = 0;
	for (int i = 0; i < 3000; i++)
	{
		const uint64_t alphabet = 1 + rng() % 6;
		const uint32_t w = static_cast<uint32_t>(1 + rng() % 6);
		std::vector<uint64_t> a = random_sequence(rng, rng() % 50, alphabet);
		std::vector<uint64_t> b;
		if (rng() % 2)
		{ // an edited copy, with a block moved or repeated now and then
			b = a;
			for (size_t e = rng() % 5; e > 0 && !b.empty(); e--) b[rng() % b.size()] = 1000 + rng() % (alphabet + 3);
			if (!a.empty() && rng() % 2)
			{
				const size_t from = rng() % a.size(), len = rng() % (a.size() - from + 1);
				b.insert(b.begin() + rng() % (b.size() + 1), a.begin() + from, a.begin() + from + len);
			}
		}
		else
			b = random_sequence(rng, rng() % 50, alphabet);
		MhStatus status;
		std::vector<MhChunk> chunks;
		const MhChunkStats lit = run_match(a, b, w, MH_MATCH_LITERAL, &chunks, &status);
		const std::vector<RefChunk> want = reference_literal(a, b, w);
		std::vector<RefChunk> got;
		for (const MhChunk &c : chunks) got.push_back({c.a_start, c.b_start, c.words});
		// Exact unless a window occurs more than R + 1 = 33 times in a text.
		const bool exact_expected = max_window_occurrences(a, w) <= 33 && max_window_occurrences(b, w) <= 33;
		literal_ok += status == MH_OK && (got == want || !exact_expected);
		literal_compared += exact_expected;

		const MhChunkStats info = run_match(a, b, w, MH_MATCH_INFORMATION, nullptr, &status);
		bool info_match;
		if (a.size() < w || b.size() < w)
			info_match = info.common_words == lit.common_words;
		else
		{
			const RefInfo ra = reference_information_side(a, b, w), rb = reference_information_side(b, a, w);
			const RefInfo &fewer = ra.common <= rb.common ? ra : rb;
			info_match = info.common_words == fewer.common && info.chunks == fewer.stretches &&
			             info.longer_words == std::max(ra.information, rb.information) &&
			             info.shorter_words == std::min(ra.information, rb.information);
		}
		information_ok += status == MH_OK && info_match;

		double sr = -1;
		mh_exact_resemblance(a.data(), a.size(), b.data(), b.size(), std::min<uint32_t>(w, 64), 0,
		                     nullptr, nullptr, &sr);
		literal_order_ok += sr <= lit.s_j + 1e-12 && lit.s_j <= lit.s_l + 1e-12;
		total++;
	}
	CHECK_EQ(literal_ok, total, "literal chunks are the brute-force greedy tiling");
	CHECK(literal_compared > total / 2, "most random pairs compared exactly");
	CHECK_EQ(information_ok, total, "information counts are the brute-force ones");
	std::printf("(literal matching: S_R <= S_J <= S_L in %d of %d small-alphabet pairs)\n",
	            literal_order_ok, total);

	// S_R <= S_J <= S_L for information matching, shingles of min_words = 5
	// words, on edited and partly repeated texts of 20 to 1000 distinct words.
	int order_ok = 0, literal_sj_le_sl = 0, cases = 0;
	for (int i = 0; i < 4000; i++)
	{
		const uint64_t alphabet = i % 2 ? 20 : 1000;
		std::vector<uint64_t> a = random_sequence(rng, rng() % 120, alphabet), b = a;
		for (size_t e = rng() % 6; e > 0 && !b.empty(); e--) b[rng() % b.size()] = 1000 + rng() % alphabet;
		for (int copies = rng() % 3; copies > 0 && !a.empty(); copies--)
		{
			const size_t from = rng() % a.size(), len = rng() % (a.size() - from + 1);
			std::vector<uint64_t> &target = rng() % 2 ? a : b;
			const std::vector<uint64_t> block(a.begin() + from, a.begin() + from + len);
			target.insert(target.begin() + rng() % (target.size() + 1), block.begin(), block.end());
		}
		if (rng() % 5 == 0) b = random_sequence(rng, rng() % 120, alphabet);
		MhStatus status;
		const MhChunkStats info = run_match(a, b, 5, MH_MATCH_INFORMATION, nullptr, &status);
		const MhChunkStats lit = run_match(a, b, 5, MH_MATCH_LITERAL, nullptr, &status);
		double sr = -1;
		mh_exact_resemblance(a.data(), a.size(), b.data(), b.size(), 5, 0, nullptr, nullptr, &sr);
		order_ok += sr <= info.s_j + 1e-12 && info.s_j <= info.s_l + 1e-12;
		literal_sj_le_sl += lit.s_j <= lit.s_l + 1e-12;
		cases++;
	}
	CHECK_EQ(order_ok, cases, "information: S_R <= S_J <= S_L");
	CHECK_EQ(literal_sj_le_sl, cases, "literal: S_J <= S_L");
}

int stop_now(void *)
{
	return 1;
}

// Stops once *arg polls have passed.
int stop_after(void *arg)
{
	int *polls = static_cast<int *>(arg);
	return (*polls)-- > 0 ? 0 : 1;
}

void test_chunk_degenerate()
{
	g_section = "chunk matching, degenerate input";
	MhStatus status;
	const auto t0 = std::chrono::steady_clock::now();
	// One word repeated: no quadratic blow-up, everything matches.
	const std::vector<uint64_t> same(300000, 42);
	MhChunkStats s = run_match(same, same, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(status == MH_OK && s.common_words == same.size() && s.chunks == 1, "one word repeated: one chunk");
	s = run_match(same, same, 5, MH_MATCH_INFORMATION, nullptr, &status);
	CHECK(status == MH_OK && s.longer_words == 5 && s.common_words == 5 && s.s_j == 1.0,
	      "one word repeated: one window, five words of information");
	// A sentence repeated between distinct words, in both texts.
	std::vector<uint64_t> a, b;
	for (uint64_t r = 0; r < 20000; r++)
	{
		for (uint64_t k = 0; k < 8; k++) a.push_back(k), b.push_back(k);
		a.push_back(1000000 + r);
		b.push_back(2000000 + r);
	}
	s = run_match(a, b, 5, MH_MATCH_LITERAL, nullptr, &status);
	CHECK(status == MH_OK && s.common_words == 8 * 20000 && s.chunks == 20000,
	      "repeated sentence: every copy matched once");
	const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
	CHECK(seconds < 60, "degenerate inputs in reasonable time: " + std::to_string(seconds) + " s");
	// Interrupted: nothing returned, a status instead.
	run_match(same, same, 5, MH_MATCH_LITERAL, nullptr, &status, stop_now);
	CHECK_EQ(status, MH_ERR_INTERRUPTED, "the poll stops the literal matcher");
	run_match(same, same, 5, MH_MATCH_INFORMATION, nullptr, &status, stop_now);
	CHECK_EQ(status, MH_ERR_INTERRUPTED, "the poll stops the information matcher");
	double r = -1;
	CHECK_EQ(mh_exact_resemblance(same.data(), same.size(), same.data(), same.size(), 5, 0, stop_now,
	                              nullptr, &r),
	         MH_ERR_INTERRUPTED, "the poll stops exact resemblance");
}

// The literal matcher as first written (a priority queue of diagonal runs,
// re-examined after every pick), kept as the reference for the faster one:
// the same anchors (the k-th occurrence of a window in A paired with
// occurrences k-32 .. k+32 in B), the same greedy order.  Texts of w words
// or more.
std::vector<RefChunk> queue_literal(const std::vector<uint64_t> &a, const std::vector<uint64_t> &b,
                                    uint32_t w)
{
	constexpr uint64_t reach = 32;
	std::map<std::vector<uint64_t>, uint32_t> numbers;
	auto ids_of = [&](const std::vector<uint64_t> &x)
	{
		std::vector<uint32_t> ids;
		for (size_t i = 0; i + w <= x.size(); i++)
			ids.push_back(numbers.emplace(std::vector<uint64_t>(x.begin() + i, x.begin() + i + w),
			                              static_cast<uint32_t>(numbers.size()))
			                  .first->second);
		return ids;
	};
	const std::vector<uint32_t> ia = ids_of(a), ib = ids_of(b);
	std::vector<uint64_t> rank_a(ia.size()), rank_b(ib.size());
	std::map<uint32_t, std::vector<uint64_t>> in_b; // id -> B windows, in order
	std::map<uint32_t, uint64_t> seen;
	for (size_t i = 0; i < ia.size(); i++) rank_a[i] = seen[ia[i]]++;
	seen.clear();
	for (size_t j = 0; j < ib.size(); j++) rank_b[j] = seen[ib[j]]++, in_b[ib[j]].push_back(j);
	auto anchor = [&](uint64_t i, uint64_t j)
	{
		return ia[i] == ib[j] && (rank_a[i] > rank_b[j] ? rank_a[i] - rank_b[j] : rank_b[j] - rank_a[i]) <= reach;
	};
	auto after = [](const RefChunk &x, const RefChunk &y)
	{
		if (x.words != y.words) return x.words < y.words;
		return x.a != y.a ? x.a > y.a : x.b > y.b;
	};
	std::priority_queue<RefChunk, std::vector<RefChunk>, decltype(after)> queue(after);
	for (size_t i = 0; i < ia.size(); i++)
		for (uint64_t j : in_b[ia[i]])
		{
			if (!anchor(i, j) || (i > 0 && j > 0 && anchor(i - 1, j - 1))) continue;
			uint64_t d = 1;
			while (i + d < ia.size() && j + d < ib.size() && anchor(i + d, j + d)) d++;
			queue.push({i, j, d + w - 1});
		}
	std::vector<bool> ta(a.size()), tb(b.size());
	std::vector<RefChunk> out;
	while (!queue.empty())
	{
		const RefChunk run = queue.top();
		queue.pop();
		std::vector<RefChunk> parts;
		for (uint64_t d = 0; d < run.words;)
		{
			while (d < run.words && (ta[run.a + d] || tb[run.b + d])) d++;
			const uint64_t begin = d;
			while (d < run.words && !ta[run.a + d] && !tb[run.b + d]) d++;
			if (d - begin >= w) parts.push_back({run.a + begin, run.b + begin, d - begin});
		}
		if (parts.size() == 1 && parts[0].words == run.words)
		{
			for (uint64_t d = 0; d < run.words; d++) ta[run.a + d] = tb[run.b + d] = true;
			out.push_back(run);
		}
		else
			for (const RefChunk &part : parts) queue.push(part);
	}
	std::sort(out.begin(), out.end(), [](const RefChunk &x, const RefChunk &y) { return x.a < y.a; });
	return out;
}

// Larger texts than brute force can check, with windows repeated far more
// than 33 times (so the rank limit decides which pairs are anchors): the
// chunks are those of the reference, one by one.
void test_chunk_queue_reference()
{
	g_section = "chunk matching vs the priority-queue reference";
	std::mt19937_64 rng(77);
	int same = 0, cases = 0, beyond_reach = 0;
	for (int c = 0; c < 60; c++)
	{
		const uint64_t alphabet = 2 + rng() % 40;
		const uint32_t w = static_cast<uint32_t>(1 + rng() % 7);
		// Phrases drawn from a small stock, so that whole passages repeat.
		std::vector<std::vector<uint64_t>> stock;
		for (int k = 0; k < 1 + int(rng() % 12); k++) stock.push_back(random_sequence(rng, 3 + rng() % 30, alphabet));
		std::vector<uint64_t> a;
		while (a.size() < 500u + 60u * c)
		{
			const std::vector<uint64_t> &phrase = stock[rng() % stock.size()];
			if (rng() % 3) a.insert(a.end(), phrase.begin(), phrase.end());
			else a.push_back(1000 + rng() % (alphabet * 4));
		}
		std::vector<uint64_t> b = a;
		const uint64_t every = 5 + rng() % 60;
		for (size_t k = rng() % every; k < b.size(); k += every) b[k] = 5000 + rng() % 3;
		const size_t cut = rng() % b.size();
		std::rotate(b.begin(), b.begin() + cut, b.end());
		if (rng() % 2) b.insert(b.end(), a.begin(), a.begin() + a.size() / 4);
		MhStatus status;
		std::vector<MhChunk> chunks;
		run_match(a, b, w, MH_MATCH_LITERAL, &chunks, &status);
		std::vector<RefChunk> got;
		for (const MhChunk &chunk : chunks) got.push_back({chunk.a_start, chunk.b_start, chunk.words});
		same += status == MH_OK && got == queue_literal(a, b, w);
		std::map<std::vector<uint64_t>, int> occurrences;
		int most = 0;
		for (size_t i = 0; i + w <= a.size(); i++)
			most = std::max(most, ++occurrences[std::vector<uint64_t>(a.begin() + i, a.begin() + i + w)]);
		beyond_reach += most > 33;
		cases++;
	}
	CHECK_EQ(same, cases, "literal chunks are the priority-queue reference's");
	CHECK(beyond_reach > cases / 2, "most cases repeat a window more than 33 times");
}

void test_interval()
{
	g_section = "resemblance interval";
	auto near = [](double x, double y, double tol) { return std::fabs(x - y) <= tol; };
	double lo = -1, hi = -1;
	// Clopper-Pearson values as R's binom.test() prints them.
	CHECK_EQ(mh_resemblance_interval(5, 10, 0.95, &lo, &hi), MH_OK, "5 of 10");
	CHECK(near(lo, 0.1870860, 1e-7) && near(hi, 0.8129140, 1e-7), "5 of 10: 0.187086 .. 0.812914");
	mh_resemblance_interval(0, 10, 0.95, &lo, &hi);
	CHECK(lo == 0.0 && near(hi, 0.3084971, 1e-7), "0 of 10: 0 .. 0.308497");
	mh_resemblance_interval(1, 10, 0.95, &lo, &hi);
	CHECK(near(lo, 0.002528579, 1e-9) && near(hi, 0.445016117, 1e-9), "1 of 10");
	mh_resemblance_interval(10, 10, 0.95, &lo, &hi);
	CHECK(near(lo, 0.6915029, 1e-7) && hi == 1.0, "10 of 10");
	mh_resemblance_interval(64, 128, 0.95, &lo, &hi);
	CHECK(lo < 0.5 && hi > 0.5 && near(0.5 - lo, hi - 0.5, 1e-12), "symmetric at one half");
	CHECK_EQ(mh_resemblance_interval(5, 10, 1.0, &lo, &hi), MH_ERR_ARGUMENT, "confidence 1 refused");
	CHECK_EQ(mh_resemblance_interval(5, 10, 0.0, &lo, &hi), MH_ERR_ARGUMENT, "confidence 0 refused");
	CHECK_EQ(mh_resemblance_interval(5, 10, NAN, &lo, &hi), MH_ERR_ARGUMENT, "NaN refused");
	// Closed forms: I_x(a, 1) = x^a, I_x(1, b) = 1 - (1-x)^b, I_.5(a, a) = 1/2.
	bool forms = true;
	for (double a : {0.5, 1.0, 2.5, 7.0, 40.0})
		for (double x : {0.01, 0.2, 0.5, 0.9, 0.999})
		{
			forms &= near(mh_incomplete_beta(x, a, 1.0), std::pow(x, a), 1e-13);
			forms &= near(mh_incomplete_beta(x, 1.0, a), 1.0 - std::pow(1.0 - x, a), 1e-13);
			forms &= near(mh_beta_quantile(x, a, 1.0), std::pow(x, 1.0 / a), 1e-12);
		}
	for (double a : {0.5, 3.0, 100.0, 5000.0}) forms &= near(mh_incomplete_beta(0.5, a, a), 0.5, 1e-10);
	CHECK(forms, "incomplete beta and its quantile match closed forms");
	// Coverage: draws from binomial(128, p) fall outside 95% intervals at most
	// 5% of the time (Clopper-Pearson is conservative).
	std::mt19937_64 rng(99);
	int covered = 0, trials = 4000;
	for (int t = 0; t < trials; t++)
	{
		const double p = 0.3 + 0.65 * (t % 100) / 100.0;
		std::binomial_distribution<uint32_t> draw(128, p);
		mh_resemblance_interval(draw(rng), 128, 0.95, &lo, &hi);
		covered += lo <= p && p <= hi;
	}
	CHECK(covered >= 0.945 * trials, "coverage at least 95%: " + std::to_string(covered) + " of " + std::to_string(trials));
}

// minhash_union: the position-wise minimum is the signature of the union, and
// the size estimate from the values is unbiased enough to record.
void test_union()
{
	g_section = "union";
	auto elements = [](int lo, int hi)
	{
		std::vector<std::string> v;
		for (int i = lo; i <= hi; i++) v.push_back("e" + std::to_string(i));
		return v;
	};
	auto concat = [](std::vector<std::string> a, const std::vector<std::string> &b)
	{
		a.insert(a.end(), b.begin(), b.end());
		return a;
	};
	for (int32_t seed : {0, 7, -3})
	{
		const std::string ctx = "seed " + std::to_string(seed);
		const Sig a = build_set(elements(1, 300), 128, seed);
		const Sig b = build_set(elements(250, 700), 128, seed);
		const Sig c = build_set(elements(5000, 5003), 128, seed);
		const Sig all = build_set(concat(concat(elements(1, 300), elements(250, 700)), elements(5000, 5003)), 128, seed);
		std::vector<uint32_t> acc = a.values;
		mh_union_into(acc.data(), b.values.data(), 128);
		mh_union_into(acc.data(), c.values.data(), 128);
		CHECK(acc == all.values, ctx + ": union of a, b, c = signature of the concatenation");
		std::vector<uint32_t> other = c.values;
		mh_union_into(other.data(), a.values.data(), 128);
		mh_union_into(other.data(), b.values.data(), 128);
		CHECK(other == acc, ctx + ": any order");
		const Sig empty = build_set({}, 128, seed);
		std::vector<uint32_t> same = a.values;
		mh_union_into(same.data(), empty.values.data(), 128);
		CHECK(same == a.values, ctx + ": the empty set is the identity");
		CHECK_EQ(mh_union_size(acc.data(), 128, 451), mh_union_size(other.data(), 128, 451), ctx);
	}

	const Sig empty = build_set({}, 128, 0);
	CHECK_EQ(mh_estimate_cardinality(empty.values.data(), 128), 0.0, "empty set");
	CHECK_EQ(mh_union_size(empty.values.data(), 128, 0), uint64_t{0}, "empty union");
	const uint32_t zero = 0;
	CHECK_EQ(mh_estimate_cardinality(&zero, 1), 0.0, "one value estimates nothing");
	CHECK_EQ(mh_union_size(&zero, 1, 42), uint64_t{42}, "the largest part is the lower bound");

	// Mean of est / m over 100 seeds within 4% (standard error of the mean
	// about 0.9%), and every single estimate within 40% at 128 values.
	for (int m : {1, 20, 2000})
	{
		double sum = 0.0, worst = 0.0;
		for (int32_t seed = 1; seed <= 100; seed++)
		{
			const Sig s = build_set(elements(1, m), 128, seed);
			const double ratio = mh_estimate_cardinality(s.values.data(), 128) / m;
			sum += ratio;
			worst = std::max(worst, std::fabs(ratio - 1.0));
		}
		const std::string ctx = "m = " + std::to_string(m) + ": mean ratio " + std::to_string(sum / 100) +
		                        ", worst error " + std::to_string(worst);
		CHECK(std::fabs(sum / 100 - 1.0) < 0.04, ctx);
		if (m >= 20) CHECK(worst < 0.4, ctx);
	}
}

// ---------------------------------------------------------------------------
// Grouping (mh_group_greedy) against the greedy walk over every pair
// ---------------------------------------------------------------------------

std::vector<uint32_t> pivots_of(uint32_t count) { return std::vector<uint32_t>(count); }

// Families: a random signature and variants with a share of its positions
// redrawn (values from a small range, so that chance agreements and chance
// band collisions happen too), some exact copies, and three empty sets; in a
// random order.
std::vector<std::vector<uint32_t>> signature_families(std::mt19937_64 &rng, uint32_t num_perm,
                                                      int families)
{
	std::vector<std::vector<uint32_t>> sigs;
	for (int family = 0; family < families; family++)
	{
		std::vector<uint32_t> base(num_perm);
		for (uint32_t &v : base) v = static_cast<uint32_t>(rng() % 64);
		const int members = 1 + static_cast<int>(rng() % 8);
		for (int m = 0; m < members; m++)
		{
			std::vector<uint32_t> variant = base;
			const double share = (rng() % 100) / 100.0;
			for (uint32_t &v : variant)
				if ((rng() % 1000) / 1000.0 < share) v = static_cast<uint32_t>(rng() % 64);
			sigs.push_back(variant);
			if (rng() % 5 == 0) sigs.push_back(variant);
		}
	}
	for (int e = 0; e < 3; e++) sigs.emplace_back(num_perm, MH_EMPTY_VALUE);
	std::shuffle(sigs.begin(), sigs.end(), rng);
	return sigs;
}

// The grant is a cap: with exactly the memory a grouping held it runs, with
// a byte less it is refused, holding no more than the grant meanwhile, and
// the bytes the refusal names suffice.
void check_group_grant(const std::vector<const uint32_t *> &rows, const std::vector<uint8_t> &empty,
                       uint32_t num_perm, double threshold, uint64_t held,
                       const std::vector<uint32_t> &want_pivot, const std::string &context)
{
	const auto count = static_cast<uint32_t>(rows.size());
	std::vector<uint32_t> pivots(count);
	std::vector<double> r(count);
	uint64_t memory = 0;
	CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold, held, nullptr,
	                         nullptr, pivots.data(), r.data(), &memory),
	         MH_OK, context + ": a grant of exactly what it held");
	if (held == 0) return;
	MhStatus status = MH_OK;
	const std::size_t refused_held = heap_count::peak_of([&] {
		status = mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold, held - 1,
		                         nullptr, nullptr, pivots.data(), r.data(), &memory);
	});
	CHECK_EQ(status, MH_ERR_TOO_LARGE, context + ": a byte less is refused");
	CHECK(refused_held <= held - 1, context + ": a refused call held no more than its grant");
	CHECK(memory >= held, context + ": the refusal names enough memory");
	CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold, memory,
	                         nullptr, nullptr, pivots.data(), r.data(), &memory),
	         MH_OK, context + ": the memory the refusal named suffices");
	CHECK(pivots == want_pivot, context + ": the same groups");
}

void test_grouping()
{
	g_section = "grouping";
	std::mt19937_64 rng(20261122);
	for (uint32_t num_perm : {1u, 7u, 32u, 128u})
	{
		std::vector<std::vector<uint32_t>> sigs = signature_families(rng, num_perm, 40);
		const auto count = static_cast<uint32_t>(sigs.size());
		std::vector<uint8_t> empty(count);
		for (uint32_t i = 0; i < count; i++)
			empty[i] = sigs[i][0] == MH_EMPTY_VALUE &&
			           std::all_of(sigs[i].begin(), sigs[i].end(),
			                       [](uint32_t v) { return v == MH_EMPTY_VALUE; });
		std::vector<const uint32_t *> rows(count);
		for (uint32_t i = 0; i < count; i++) rows[i] = sigs[i].data();

		for (double threshold : {0.0, 0.1, 0.3, 0.5, 0.75, 0.8, 0.9, 1.0})
		{
			const std::string context =
			    "n " + std::to_string(num_perm) + ", threshold " + std::to_string(threshold);
			// An empty set resembles nothing, itself included: 0, and never
			// joins nor takes a row, at threshold 0 too.
			auto resemblance = [&](uint32_t a, uint32_t b) {
				if (empty[a] || empty[b]) return 0.0;
				return static_cast<double>(
				           mh_agreeing_positions(rows[a], rows[b], num_perm)) /
				       num_perm;
			};
			auto joins = [&](uint32_t a, uint32_t b) {
				return !empty[a] && !empty[b] && resemblance(a, b) >= threshold;
			};
			std::vector<uint32_t> want_pivot(count, UINT32_MAX);
			std::vector<double> want_r(count, -1);
			for (uint32_t p = 0; p < count; p++)
			{
				if (want_pivot[p] != UINT32_MAX) continue;
				want_pivot[p] = p;
				want_r[p] = empty[p] ? 0.0 : 1.0;
				for (uint32_t q = p + 1; q < count; q++)
					if (want_pivot[q] == UINT32_MAX && joins(p, q))
					{
						want_pivot[q] = p;
						want_r[q] = resemblance(p, q);
					}
			}
			std::vector<uint32_t> pivots(count);
			std::vector<double> r(count);
			uint64_t memory = 0;
			MhStatus status = MH_OK;
			const std::size_t held = heap_count::peak_of([&] {
				status = mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold,
				                         UINT64_MAX, nullptr, nullptr, pivots.data(), r.data(),
				                         &memory);
			});
			CHECK_EQ(status, MH_OK, context);
			CHECK(pivots == want_pivot, context + ": the pivots of the greedy walk over every pair");
			CHECK(r == want_r, context + ": each row's resemblance to its pivot");
			CHECK_EQ(uint64_t(held), memory, context + ": the memory reported is the memory held");
			check_group_grant(rows, empty, num_perm, threshold, memory, want_pivot, context);

			// Approximate (mh_group_greedy_banded): the same walk, a row
			// compared with a pivot only when some band of the layout agrees
			// in every row.
			for (uint32_t band_rows : {1u, 3u})
			{
				const uint32_t bands = std::max(1u, num_perm / (band_rows * 2));
				if (bands * band_rows > num_perm) continue;
				auto share_band = [&](uint32_t a, uint32_t b) {
					for (uint32_t band = 0; band < bands; band++)
						if (std::equal(rows[a] + band * band_rows, rows[a] + (band + 1) * band_rows,
						               rows[b] + band * band_rows))
							return true;
					return false;
				};
				std::vector<uint32_t> banded_pivot(count, UINT32_MAX);
				std::vector<double> banded_r(count, -1);
				for (uint32_t p = 0; p < count; p++)
				{
					if (banded_pivot[p] != UINT32_MAX) continue;
					banded_pivot[p] = p;
					banded_r[p] = empty[p] ? 0.0 : 1.0;
					for (uint32_t q = p + 1; q < count; q++)
						if (banded_pivot[q] == UINT32_MAX && share_band(p, q) && joins(p, q))
						{
							banded_pivot[q] = p;
							banded_r[q] = resemblance(p, q);
						}
				}
				const std::string banded = context + ", " + std::to_string(bands) + " bands of " +
				                           std::to_string(band_rows);
				CHECK_EQ(mh_group_greedy_banded(rows.data(), empty.data(), count, num_perm, threshold,
				                                bands, band_rows, UINT64_MAX, nullptr, nullptr,
				                                pivots.data(), r.data(), &memory),
				         MH_OK, banded);
				CHECK(pivots == banded_pivot, banded + ": the pivots of the banded walk");
				CHECK(r == banded_r, banded + ": each row's resemblance to its pivot");
			}
		}
		uint64_t memory = 0;
		CHECK_EQ(mh_group_greedy_banded(rows.data(), empty.data(), count, num_perm, 0.5,
		                                num_perm + 1, 1, UINT64_MAX, nullptr, nullptr,
		                                pivots_of(count).data(), std::vector<double>(count).data(),
		                                &memory),
		         MH_ERR_BANDS_RANGE, "a layout that does not fit");
		std::vector<uint32_t> pivots(count);
		std::vector<double> r(count);
		CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, 0.8, UINT64_MAX,
		                         stop_now, nullptr, pivots.data(), r.data(), &memory),
		         MH_ERR_INTERRUPTED, "the poll stops the grouping");
		for (double bad : {-0.1, 1.5, std::nan("")})
			CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, bad, UINT64_MAX,
			                         nullptr, nullptr, pivots.data(), r.data(), &memory),
			         MH_ERR_THRESHOLD_RANGE, "threshold outside [0, 1]");
	}
	// The bound a refusal reports: 20 bytes a row, 10 a row and band (D + 1
	// = 26 bands at 0.8 of 128), and two vector headers a band.
	{
		std::vector<uint32_t> values(128, 1);
		std::vector<const uint32_t *> rows(1000, values.data());
		std::vector<uint8_t> empty(1000, 0);
		std::vector<uint32_t> pivots(1000);
		std::vector<double> r(1000);
		uint64_t memory = 0;
		CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), 1000, 128, 0.8, 1000, nullptr, nullptr,
		                         pivots.data(), r.data(), &memory),
		         MH_ERR_TOO_LARGE, "1000 rows in 1000 bytes");
		CHECK_EQ(memory, uint64_t(1000) * (20 + 10 * 26) + 26 * 2 * sizeof(minhash::BudgetVector<uint32_t>),
		         "the bound at 0.8");
		CHECK(std::all_of(pivots.begin(), pivots.end(), [](uint32_t p) { return p == UINT32_MAX; }),
		      "a refusal writes no pivot");
		CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), 1000, 128, 0.8, memory, nullptr,
		                         nullptr, pivots.data(), r.data(), &memory),
		         MH_OK, "1000 copies within the bound");
		CHECK(std::all_of(pivots.begin(), pivots.end(), [](uint32_t p) { return p == 0; }),
		      "1000 copies: one group");
		// At threshold 0 every row joins the first: no buckets, no memory.
		CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), 1000, 128, 0.0, 0, nullptr, nullptr,
		                         pivots.data(), r.data(), &memory),
		         MH_OK, "threshold 0 in no memory");
		CHECK_EQ(memory, uint64_t(0), "threshold 0 holds nothing");
	}
	uint32_t pivot = 7;
	double r = 7;
	uint64_t memory = 7;
	CHECK_EQ(mh_group_greedy(nullptr, nullptr, 0, 128, 0.8, UINT64_MAX, nullptr, nullptr, &pivot,
	                         &r, &memory),
	         MH_OK, "no rows");
	CHECK_EQ(memory, uint64_t(0), "no rows, no memory");
	CHECK_EQ(mh_group_greedy(nullptr, nullptr, 0, 0, 0.8, UINT64_MAX, nullptr, nullptr, &pivot, &r,
	                         &memory),
	         MH_ERR_NUM_PERM_RANGE, "no hash values");
}


// ---------------------------------------------------------------------------
// Pairs (mh_near_pairs) against comparing every pair
// ---------------------------------------------------------------------------

void test_near_pairs()
{
	g_section = "near pairs";
	std::mt19937_64 rng(20261125);
	for (uint32_t num_perm : {1u, 7u, 32u, 128u})
	{
		std::vector<std::vector<uint32_t>> sigs = signature_families(rng, num_perm, 30);
		const auto count = static_cast<uint32_t>(sigs.size());
		std::vector<uint8_t> empty(count);
		std::vector<const uint32_t *> rows(count);
		for (uint32_t i = 0; i < count; i++)
		{
			rows[i] = sigs[i].data();
			empty[i] = std::all_of(sigs[i].begin(), sigs[i].end(),
			                       [](uint32_t v) { return v == MH_EMPTY_VALUE; });
		}
		// No pair has an empty side: an empty set resembles nothing.
		auto agreeing = [&](uint32_t a, uint32_t b) -> uint32_t {
			if (empty[a] || empty[b]) return 0;
			return mh_agreeing_positions(rows[a], rows[b], num_perm);
		};
		// The band sort holds the rows with a set (16 bytes each).
		const uint64_t band_sort =
		    16 * static_cast<uint64_t>(std::count(empty.begin(), empty.end(), uint8_t(0)));
		for (double threshold : {0.01, 0.1, 0.3, 0.5, 0.75, 0.8, 0.9, 1.0})
		{
			const std::string context =
			    "n " + std::to_string(num_perm) + ", threshold " + std::to_string(threshold);
			std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> want;
			for (uint32_t a = 0; a < count; a++)
				for (uint32_t b = a + 1; b < count; b++)
					if (!empty[a] && !empty[b] &&
					    static_cast<double>(agreeing(a, b)) / num_perm >= threshold)
						want.emplace_back(a, b, agreeing(a, b));
			// The status and pairs of one call, the most it held beyond its
			// pairs' array (counted here), and the memory it reported.
			struct Run
			{
				MhStatus status;
				std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> pairs;
				uint64_t held;
				uint64_t memory;
			};
			auto run = [&](uint32_t bands, uint32_t band_rows, uint64_t max_bytes) {
				MhPair *pairs = nullptr;
				uint64_t found = 0;
				size_t bytes = 0;
				Run result{MH_OK, {}, 0, 0};
				result.held = heap_count::peak_of([&] {
					result.status =
					    mh_near_pairs(rows.data(), empty.data(), count, num_perm, threshold, bands,
					                  band_rows, max_bytes, nullptr, nullptr, &pairs, &found,
					                  &bytes, &result.memory);
				});
				for (uint64_t k = 0; result.status == MH_OK && k < found; k++)
					result.pairs.emplace_back(pairs[k].a, pairs[k].b, pairs[k].agreeing);
				if (pairs != nullptr) mh_large_free(pairs, bytes);
				return result;
			};
			// Exact: the pigeonhole layout with no spare bands.
			MhPigeonholeLayout layout;
			CHECK_EQ(mh_pigeonhole_layout(threshold, num_perm, 0, &layout), MH_OK, context);
			auto exact = run(layout.bands, layout.rows, UINT64_MAX);
			CHECK_EQ(exact.status, MH_OK, context);
			CHECK(exact.pairs == want, context + ": exact pairs = every pair compared, in (a, b) order");
			CHECK_EQ(exact.held, exact.memory, context + ": the memory reported is the memory held");
			// The grant is a cap: exactly what it held suffices; with less
			// the pairs' array grows in smaller steps, and either finds them
			// all or is refused, never holding more than its grant; less than
			// the band sort (16 bytes a row with a set) is refused at once.
			CHECK(run(layout.bands, layout.rows, exact.memory).pairs == want,
			      context + ": a grant of exactly what it held");
			for (uint64_t grant : {exact.memory - 1, exact.memory / 2, band_sort})
			{
				const Run less = run(layout.bands, layout.rows, grant);
				CHECK(less.status == MH_ERR_TOO_LARGE || less.pairs == want,
				      context + ": a smaller grant finds every pair or is refused");
				CHECK(less.held <= grant && (less.status != MH_OK || less.memory <= grant),
				      context + ": a smaller grant is never passed");
			}
			const Run refused = run(layout.bands, layout.rows, band_sort - 1);
			CHECK_EQ(refused.status, MH_ERR_TOO_LARGE, context + ": less than the band sort");
			CHECK_EQ(refused.held, uint64_t(0), context + ": refused before allocating");
			CHECK_EQ(refused.memory, band_sort, context + ": the band sort named");
			// Approximate: a subset, in order, verified.
			uint32_t bands = 0, band_rows = 0;
			if (mh_recall_layout(threshold, 0.9, num_perm, &bands, &band_rows) == MH_OK)
			{
				auto approx = run(bands, band_rows, UINT64_MAX);
				CHECK_EQ(approx.status, MH_OK, context);
				CHECK(std::includes(want.begin(), want.end(), approx.pairs.begin(),
				                    approx.pairs.end()),
				      context + ": approximate pairs are exact pairs");
			}
			// The cap on the pairs' memory.
			if (want.size() > 4096)
				CHECK_EQ(run(layout.bands, layout.rows, 4096 * sizeof(MhPair)).status,
				         MH_ERR_TOO_LARGE, context + ": more pairs than max_bytes");
		}
		MhPair *pairs = nullptr;
		uint64_t found = 0;
		size_t bytes = 0;
		uint64_t memory = 0;
		CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, 0.5, 1, 1, UINT64_MAX,
		                       stop_now, nullptr, &pairs, &found, &bytes, &memory),
		         MH_ERR_INTERRUPTED, "the poll stops the pairs");
		CHECK(pairs == nullptr && found == 0 && bytes == 0, "nothing handed over on a stop");
		CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, 0.5, num_perm + 1, 1,
		                       UINT64_MAX, nullptr, nullptr, &pairs, &found, &bytes, &memory),
		         MH_ERR_BANDS_RANGE, "more bands than values");
		CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, std::nan(""), 1, 1,
		                       UINT64_MAX, nullptr, nullptr, &pairs, &found, &bytes, &memory),
		         MH_ERR_THRESHOLD_RANGE, "NaN threshold");
	}
	// Many copies: every pair once, though they share every band.
	std::vector<uint32_t> same(64, 7);
	std::vector<const uint32_t *> copies(300, same.data());
	std::vector<uint8_t> not_empty(300, 0);
	MhPair *pairs = nullptr;
	uint64_t found = 0;
	size_t bytes = 0;
	uint64_t memory = 0;
	CHECK_EQ(mh_near_pairs(copies.data(), not_empty.data(), 300, 64, 0.5, 33, 1, UINT64_MAX,
	                       nullptr, nullptr, &pairs, &found, &bytes, &memory),
	         MH_OK, "copies");
	CHECK_EQ(found, uint64_t(300 * 299 / 2), "copies: every pair once");
	if (pairs != nullptr) mh_large_free(pairs, bytes);
	// The band sort (16 bytes a row) and the pairs, grown by copying below
	// 4 MB: the old and the new array at once.
	CHECK(memory >= 300 * 16 + found * sizeof(MhPair), "copies: the sort and the pairs counted");
	// With room for the sort and 1000 pairs, the buffer grows to what the
	// grant allows and is refused there.
	CHECK_EQ(mh_near_pairs(copies.data(), not_empty.data(), 300, 64, 0.5, 33, 1,
	                       300 * 16 + 1000 * sizeof(MhPair), nullptr, nullptr, &pairs, &found,
	                       &bytes, &memory),
	         MH_ERR_TOO_LARGE, "copies in a small grant");
	CHECK(pairs == nullptr && found > 0 && found <= 1000, "the pairs found before the refusal");
}

// ---------------------------------------------------------------------------
// Exact pairs and groups whose shared values are all boilerplate
// ---------------------------------------------------------------------------

// Rows where most positions hold a value many rows share (boilerplate: late
// in the prefix filter's rarest-first order) and the rest values of their
// own, and planted pairs that agree on exactly o positions, all of them
// boilerplate, o the fewest that pass the threshold (and o - 1 beside them):
// a pair at the threshold meets only in the last token of its prefixes, so
// a prefix one token short, or an order that differs between rows, misses
// it.  Pairs and groups against every pair compared.
void test_prefix_boilerplate()
{
	g_section = "prefix filter";
	std::mt19937_64 rng(20261128);
	uint32_t fresh = 1;
	for (uint32_t num_perm : {16u, 128u, 256u})
	{
		// Thresholds at exact boundaries (n - k) / n and between them.
		std::vector<double> thresholds;
		for (uint32_t k : {num_perm / 2, num_perm / 2 + 1, num_perm / 2 - 1, num_perm * 3 / 8})
			thresholds.push_back(static_cast<double>(num_perm - k) / num_perm);
		for (double t : {0.05, 0.3, 0.5 + 0.3 / num_perm, 0.62}) thresholds.push_back(t);
		for (double threshold : thresholds)
		{
			const uint32_t o = num_perm - mh_max_disagreements(threshold, num_perm);
			std::vector<uint32_t> boilerplate(num_perm);
			for (uint32_t &v : boilerplate) v = static_cast<uint32_t>(rng());
			std::vector<std::vector<uint32_t>> sigs;
			for (int i = 0; i < 120; i++)
			{
				std::vector<uint32_t> row(num_perm);
				for (uint32_t p = 0; p < num_perm; p++)
					row[p] = rng() % 10 < 7 ? boilerplate[p] : fresh++;
				sigs.push_back(row);
			}
			for (uint32_t agree : {o, o, o - 1, o + 1})
			{
				if (agree == 0 || agree > num_perm) continue;
				std::vector<uint32_t> positions(num_perm);
				for (uint32_t p = 0; p < num_perm; p++) positions[p] = p;
				std::shuffle(positions.begin(), positions.end(), rng);
				std::vector<uint32_t> a(num_perm), b(num_perm);
				for (uint32_t k = 0; k < num_perm; k++)
				{
					const uint32_t p = positions[k];
					a[p] = k < agree ? boilerplate[p] : fresh++;
					b[p] = k < agree ? boilerplate[p] : fresh++;
				}
				sigs.push_back(a);
				sigs.push_back(b);
			}
			sigs.emplace_back(num_perm, MH_EMPTY_VALUE);
			std::shuffle(sigs.begin(), sigs.end(), rng);
			const auto count = static_cast<uint32_t>(sigs.size());
			std::vector<const uint32_t *> rows(count);
			std::vector<uint8_t> empty(count);
			for (uint32_t i = 0; i < count; i++)
			{
				rows[i] = sigs[i].data();
				empty[i] = sigs[i][0] == MH_EMPTY_VALUE;
			}
			const std::string context =
			    "n " + std::to_string(num_perm) + ", threshold " + std::to_string(threshold);
			auto joins = [&](uint32_t a, uint32_t b) {
				return !empty[a] && !empty[b] &&
				       static_cast<double>(mh_agreeing_positions(rows[a], rows[b], num_perm)) /
				               num_perm >=
				           threshold;
			};
			std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> want;
			for (uint32_t a = 0; a < count; a++)
				for (uint32_t b = a + 1; b < count; b++)
					if (joins(a, b))
						want.emplace_back(a, b, mh_agreeing_positions(rows[a], rows[b], num_perm));
			MhPigeonholeLayout layout;
			CHECK_EQ(mh_pigeonhole_layout(threshold, num_perm, 0, &layout), MH_OK, context);
			MhPair *pairs = nullptr;
			uint64_t found = 0, memory = 0;
			size_t bytes = 0;
			CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, threshold,
			                       layout.bands, layout.rows, UINT64_MAX, nullptr, nullptr, &pairs,
			                       &found, &bytes, &memory),
			         MH_OK, context);
			std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> got;
			for (uint64_t k = 0; k < found; k++)
				got.emplace_back(pairs[k].a, pairs[k].b, pairs[k].agreeing);
			if (pairs != nullptr) mh_large_free(pairs, bytes);
			CHECK(got == want, context + ": the pairs of every pair compared");
			CHECK(want.size() >= 2, context + ": planted pairs at the threshold");

			std::vector<uint32_t> want_pivot(count, UINT32_MAX);
			for (uint32_t p = 0; p < count; p++)
			{
				if (want_pivot[p] != UINT32_MAX) continue;
				want_pivot[p] = p;
				for (uint32_t q = p + 1; q < count; q++)
					if (want_pivot[q] == UINT32_MAX && joins(p, q)) want_pivot[q] = p;
			}
			std::vector<uint32_t> pivots(count);
			std::vector<double> r(count);
			CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold,
			                         UINT64_MAX, nullptr, nullptr, pivots.data(), r.data(), &memory),
			         MH_OK, context);
			CHECK(pivots == want_pivot, context + ": the groups of the walk over every pair");
			check_group_grant(rows, empty, num_perm, threshold, memory, want_pivot, context);
			// The poll stops both while the buckets are made: the first poll
			// (on entry) passes, the next stops.
			if (num_perm < 128) continue;
			int polls = 1;
			CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold,
			                         UINT64_MAX, stop_after, &polls, pivots.data(), r.data(),
			                         &memory),
			         MH_ERR_INTERRUPTED, context + ": the poll stops the grouping");
			polls = 1;
			CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, threshold,
			                       layout.bands, layout.rows, UINT64_MAX, stop_after, &polls,
			                       &pairs, &found, &bytes, &memory),
			         MH_ERR_INTERRUPTED, context + ": the poll stops the pairs");
			CHECK(pairs == nullptr && found == 0, context + ": nothing handed over on a stop");
		}
	}
}

// ---------------------------------------------------------------------------
// Empty sets in the grouping and the pairs: many documents without words
// ---------------------------------------------------------------------------

// 20,000 empty rows (all values ffffffff, so every band key equal) among a
// few copies: no pair has an empty side, each empty row is a group of its
// own with resemblance 0, at every threshold, 0 included; the band sort
// holds only the rows with a set, so the empty rows cost the pairs nothing.
void test_empty_rows()
{
	g_section = "empty rows";
	const uint32_t num_perm = 64, empties = 20000;
	std::vector<uint32_t> blank(num_perm, MH_EMPTY_VALUE), words(num_perm, 7), other(num_perm, 9);
	std::vector<const uint32_t *> rows;
	std::vector<uint8_t> empty;
	// Ranked: the two copies first, then the empty rows, one loner among them.
	rows.push_back(words.data());
	empty.push_back(0);
	rows.push_back(words.data());
	empty.push_back(0);
	for (uint32_t i = 0; i < empties; i++)
	{
		rows.push_back(blank.data());
		empty.push_back(1);
		if (i == empties / 2)
		{
			rows.push_back(other.data());
			empty.push_back(0);
		}
	}
	const auto count = static_cast<uint32_t>(rows.size());
	const uint32_t loner = 2 + empties / 2 + 1;
	for (double threshold : {0.0, 0.5, 1.0})
	{
		const std::string context = "threshold " + show(threshold);
		std::vector<uint32_t> pivots(count);
		std::vector<double> r(count);
		uint64_t memory = 0;
		CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold, UINT64_MAX,
		                         nullptr, nullptr, pivots.data(), r.data(), &memory),
		         MH_OK, context);
		bool alone = true;
		for (uint32_t i = 0; i < count; i++)
			if (empty[i] && (pivots[i] != i || r[i] != 0.0)) alone = false;
		CHECK(alone, context + ": every empty row its own pivot, resemblance 0");
		CHECK(pivots[0] == 0 && r[0] == 1.0 && pivots[1] == 0 && r[1] == 1.0,
		      context + ": the copies one group");
		CHECK_EQ(pivots[loner], threshold == 0.0 ? 0u : loner,
		         context + ": the loner joins the first row only at threshold 0");
		for (uint32_t band_rows : {1u, 4u})
		{
			CHECK_EQ(mh_group_greedy_banded(rows.data(), empty.data(), count, num_perm, threshold,
			                                num_perm / band_rows, band_rows, UINT64_MAX, nullptr,
			                                nullptr, pivots.data(), r.data(), &memory),
			         MH_OK, context + ": banded");
			bool banded_alone = true;
			for (uint32_t i = 0; i < count; i++)
				if (empty[i] && (pivots[i] != i || r[i] != 0.0)) banded_alone = false;
			CHECK(banded_alone, context + ": banded, every empty row alone");
		}
	}
	MhPigeonholeLayout layout;
	CHECK_EQ(mh_pigeonhole_layout(0.5, num_perm, 0, &layout), MH_OK, "layout");
	MhPair *pairs = nullptr;
	uint64_t found = 0;
	size_t bytes = 0;
	uint64_t memory = 0;
	// Room for the band sort of the three rows with a set and their one pair.
	CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, 0.5, layout.bands,
	                       layout.rows, 3 * 16 + 64 * sizeof(MhPair), nullptr, nullptr, &pairs,
	                       &found, &bytes, &memory),
	         MH_OK, "pairs among 20,000 empty rows in a small grant");
	CHECK(found == 1 && pairs != nullptr && pairs[0].a == 0 && pairs[0].b == 1,
	      "the one pair of copies, none with an empty side");
	if (pairs != nullptr) mh_large_free(pairs, bytes);
}

// ---------------------------------------------------------------------------
// The little-endian image btree order and hashing run over
// ---------------------------------------------------------------------------

// The stored value's fields at the documented offsets, as the glue's MinHash
// lays them out after its varlena header (src/minhash.h asserts the same
// offsets): what a machine of this byte order stores.
struct StoredMirror
{
	uint8_t version, kind, flags, reserved;
	uint16_t shingle_size, reserved2;
	int32_t seed;
	uint32_t num_perm;
	uint32_t reserved3;
	uint64_t distinct_shingles;
};
static_assert(offsetof(StoredMirror, shingle_size) == MH_STORED_SHINGLE_SIZE_OFFSET, "layout");
static_assert(offsetof(StoredMirror, seed) == MH_STORED_SEED_OFFSET, "layout");
static_assert(offsetof(StoredMirror, num_perm) == MH_STORED_NUM_PERM_OFFSET, "layout");
static_assert(offsetof(StoredMirror, reserved3) == MH_STORED_RESERVED3_OFFSET, "layout");
static_assert(offsetof(StoredMirror, distinct_shingles) == MH_STORED_DISTINCT_OFFSET + 4,
              "the mirror starts 4 bytes before a value's 8-byte alignment, like MinHash");

std::vector<unsigned char> native_stored(const Sig &s)
{
	StoredMirror m{};
	m.version = MH_FORMAT_VERSION;
	m.kind = s.summary.params.kind;
	m.flags = s.summary.flags;
	m.shingle_size = s.summary.params.shingle_size;
	m.seed = s.summary.params.seed;
	m.num_perm = s.summary.params.num_perm;
	m.distinct_shingles = s.summary.distinct_shingles;
	std::vector<unsigned char> out(MH_STORED_VALUES_OFFSET + 4 * s.values.size());
	const unsigned char *raw = reinterpret_cast<const unsigned char *>(&m);
	std::memcpy(out.data(), raw, MH_STORED_DISTINCT_OFFSET);
	std::memcpy(out.data() + MH_STORED_DISTINCT_OFFSET, &m.distinct_shingles, 8);
	std::memcpy(out.data() + MH_STORED_VALUES_OFFSET, s.values.data(), 4 * s.values.size());
	return out;
}

std::vector<unsigned char> le_image(const Sig &s)
{
	std::vector<unsigned char> out(mh_le_image_length(&s.summary));
	CHECK_EQ(mh_write_le_image(&s.summary, s.values.data(), out.data(), out.size()), MH_OK,
	         "write little-endian image");
	return out;
}

int compare_bytes(const std::vector<unsigned char> &a, const std::vector<unsigned char> &b)
{
	const int order = std::memcmp(a.data(), b.data(), std::min(a.size(), b.size()));
	if (order != 0) return (order > 0) - (order < 0);
	return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

void test_le_image()
{
	g_section = "little-endian image";
	// Pinned: the bytes 1.0 stored on x86-64 for minhash('a b c d e f', 2, 5,
	// -1) (pageinspect, after the 1-byte varlena header).
	{
		Sig s;
		s.summary.params = make_params(MH_KIND_WORDS, 5, 2, -1);
		s.summary.flags = 0;
		s.summary.distinct_shingles = 2;
		s.values = {0x74544204u, 0x04066322u};
		const std::vector<unsigned char> want = {
		    0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
		    0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00,
		    0x00, 0x00, 0x00, 0x00, 0x04, 0x42, 0x54, 0x74, 0x22, 0x63, 0x06, 0x04};
		CHECK_EQ(mh_le_image_length(&s.summary), size_t(36), "image length = 28 + 4n");
		CHECK(le_image(s) == want, "image of a 1.0 value is its stored bytes");
		std::vector<unsigned char> small(35);
		CHECK_EQ(mh_write_le_image(&s.summary, s.values.data(), small.data(), small.size()),
		         MH_ERR_BUFFER_TOO_SMALL, "image into a short buffer");
	}

	// On a little-endian machine the image is the stored value itself, so the
	// order and hashes over it are 1.0's: btree and hash indexes stay valid.
	std::mt19937_64 rng(20261125);
	std::vector<Sig> sigs;
	const uint8_t kinds[] = {MH_KIND_WORDS, MH_KIND_CHARS, MH_KIND_SET};
	for (int i = 0; i < 300; i++)
	{
		Sig s;
		const uint8_t kind = kinds[rng() % 3];
		const uint32_t n = 1 + static_cast<uint32_t>(rng() % 6);
		s.summary.params = make_params(static_cast<MhKind>(kind),
		                               kind == MH_KIND_SET ? 0 : 1 + rng() % 300, n,
		                               static_cast<int32_t>(rng() % 5) - 2);
		s.summary.flags = static_cast<uint8_t>(rng() % 2);
		s.summary.distinct_shingles = rng() % 3 == 0 ? rng() : rng() % 1000;
		for (uint32_t j = 0; j < n; j++)
			s.values.push_back(rng() % 4 == 0 ? static_cast<uint32_t>(rng() % 300)
			                                  : static_cast<uint32_t>(rng()));
		sigs.push_back(s);
	}
	int same_bytes = 0;
	for (const Sig &s : sigs)
	{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		same_bytes += le_image(s) == native_stored(s);
#else
		same_bytes += le_image(s).size() == native_stored(s).size();
#endif
	}
	CHECK_EQ(same_bytes, int(sigs.size()), "image = stored bytes on a little-endian machine");

	// A field's bytes are little-endian: the low byte of num_perm comes first.
	{
		Sig a, b;
		a.summary.params = make_params(MH_KIND_SET, 0, 256, 0);
		b.summary.params = make_params(MH_KIND_SET, 0, 1, 0);
		a.summary.distinct_shingles = b.summary.distinct_shingles = 1;
		a.values.assign(256, 7u);
		b.values.assign(1, 7u);
		CHECK_EQ(compare_bytes(le_image(a), le_image(b)), -1,
		         "n = 256 (00 01 00 00) sorts before n = 1 (01 00 00 00), as on x86");
	}
}

// --- polling: the interruptible sort and layout search ----------------------

int g_polls = 0;
int count_polls(void *)
{
	g_polls++;
	return 0;
}

// mh_sort_distinct against std::sort + std::unique in signed order, and the
// polls of it and of mh_lsh_params: a poll that says go changes nothing, one
// that says stop stops them.
void test_polling()
{
	g_section = "mh_sort_distinct";
	std::mt19937_64 rng(4242);
	for (int round = 0; round < 40; round++)
	{
		const size_t count = round == 0 ? 0 : (round < 30 ? rng() % 300 : 70000 + rng() % 200000);
		std::vector<int64_t> v(count);
		for (int64_t &x : v)
		{
			switch (rng() % 4)
			{
				case 0: x = static_cast<int64_t>(rng() % 16) - 8; break; // repeats around 0
				case 1: x = rng() % 2 ? INT64_MIN + static_cast<int64_t>(rng() % 4)
				                      : INT64_MAX - static_cast<int64_t>(rng() % 4); break;
				default: x = static_cast<int64_t>(rng());
			}
		}
		std::vector<int64_t> want = v;
		std::sort(want.begin(), want.end());
		want.erase(std::unique(want.begin(), want.end()), want.end());
		uint64_t distinct = 12345;
		g_polls = 0;
		const MhStatus status = mh_sort_distinct(v.data(), v.size(), count_polls, nullptr, &distinct);
		v.resize(distinct);
		CHECK(status == MH_OK && v == want,
		      "sorted as signed, repeats dropped, " + std::to_string(count) + " values");
		if (count > 65536) CHECK(g_polls > 0, "the sort polls");
	}
	std::vector<int64_t> big(200000);
	for (int64_t &x : big) x = static_cast<int64_t>(rng());
	uint64_t distinct = 0;
	CHECK_EQ(mh_sort_distinct(big.data(), big.size(), stop_now, nullptr, &distinct),
	         MH_ERR_INTERRUPTED, "the poll stops the sort");
	CHECK_EQ(mh_sort_distinct(nullptr, 0, nullptr, nullptr, &distinct), MH_OK, "nothing to sort");
	CHECK_EQ(distinct, uint64_t(0), "nothing to sort: no value");

	g_section = "mh_lsh_params polls";
	uint32_t bands = 0, rows = 0, polled_bands = 0, polled_rows = 0;
	double fp = 0, fn = 0, polled_fp = 0, polled_fn = 0;
	CHECK_EQ(mh_lsh_params(0.8, 1024, 0.5, 0.5, nullptr, nullptr, &bands, &rows, &fp, &fn), MH_OK,
	         "no poll");
	g_polls = 0;
	CHECK_EQ(mh_lsh_params(0.8, 1024, 0.5, 0.5, count_polls, nullptr, &polled_bands, &polled_rows,
	                       &polled_fp, &polled_fn),
	         MH_OK, "a poll that says go");
	CHECK(g_polls > 0 && polled_bands == bands && polled_rows == rows && polled_fp == fp &&
	          polled_fn == fn,
	      "the same layout, polled " + std::to_string(g_polls) + " times");
	CHECK_EQ(mh_lsh_params(0.8, 8192, 0.5, 0.5, stop_now, nullptr, &bands, &rows, &fp, &fn),
	         MH_ERR_INTERRUPTED, "the poll stops the layout search");
}

// ---------------------------------------------------------------------------
// The fast paths (issue 17) against straightforward references: batched
// minimum updates, a builder reset between documents, shingle counts around
// the batch size, on random ASCII and Unicode texts.
// ---------------------------------------------------------------------------

// Random text of letters from several scripts (with combining marks, digits,
// emoji, punctuation and invalid bytes between and inside words).
std::string random_unicode_text(std::mt19937_64 &rng, size_t pieces)
{
	static const char *const kPieces[] = {
	    "a", "Z",  "q",  "7",  "é",         "Ä",        "ß",        "ǅ", "Σ", "ς", "Ж", "ё",
	    "ا", "中", "語", "ｶ",  "e\xCC\x81", "\xCC\x88", "İ",        "ﬁ", "Ⅻ", "😀", " ", "  ",
	    ",", ". ", "\n", "\t", "—",         "\xFF",     "\xE2\x82", "-", "_", "1", "Ω", "K"};
	std::string out;
	for (size_t i = 0; i < pieces; i++)
		out += kPieces[rng() % (sizeof kPieces / sizeof kPieces[0])];
	return out;
}

void test_fast_paths()
{
	g_section = "fast paths";
	std::mt19937_64 rng(20261125);

	// update_minimums_batch == update_minimums once per input, for block
	// remainders (n not a multiple of the block) and batch sizes around 0.
	for (uint32_t n : {1u, 5u, 16u, 31u, 32u, 33u, 64u, 100u, 128u, 129u, 256u, 1000u})
		for (uint32_t count : {0u, 1u, 2u, 3u, 17u, 63u, 64u})
		{
			std::vector<uint32_t> a(n), b(n), xs(count);
			minhash::hash_family_parameters(static_cast<int32_t>(n * 7 + count), n, a.data(),
			                                b.data());
			for (uint32_t &x : xs) x = static_cast<uint32_t>(rng());
			std::vector<uint32_t> start(n);
			for (uint32_t &m : start)
				m = rng() % 4 == 0 ? 0xFFFFFFFFu : static_cast<uint32_t>(rng());
			std::vector<uint32_t> batched = start, scalar = start;
			minhash::update_minimums_batch(xs.data(), count, a.data(), b.data(), batched.data(), n);
			for (uint32_t x : xs) minhash::update_minimums(x, a.data(), b.data(), scalar.data(), n);
			bool same = batched == scalar;
			for (uint32_t i = 0; i < n && same; i++)
			{
				uint32_t m = start[i];
				for (uint32_t x : xs) m = std::min(m, a[i] * x + b[i]);
				same = batched[i] == m;
			}
			check(same,
			      "update_minimums_batch n=" + std::to_string(n) +
			          " count=" + std::to_string(count) + " equals the scalar loop",
			      __LINE__);
		}

	// Documents of 1 to 200 words (shingle counts on both sides of the batch
	// of 64), ASCII with random separators and Unicode: fresh builders and
	// one builder reset between documents both equal the reference.
	struct Case
	{
		uint8_t kind;
		uint16_t size;
		uint32_t n;
		int32_t seed;
	};
	const Case cases[] = {{MH_KIND_WORDS, 5, 128, 0}, {MH_KIND_WORDS, 3, 256, 1},
	                      {MH_KIND_WORDS, 1, 33, -5}, {MH_KIND_WORDS, 7, 100, 42},
	                      {MH_KIND_CHARS, 5, 128, 0}, {MH_KIND_CHARS, 2, 64, 9}};
	for (const Case &c : cases)
	{
		const MhParams params = make_params(c.kind, c.size, c.n, c.seed);
		// Laid out for the largest document below, reset for each one.
		const uint64_t largest = 64 * 1024;
		Builder kept(params, largest);
		CHECK_EQ(kept.init_status, MH_OK, "kept builder");
		bool fresh_ok = true, reset_ok = true, reference_ok = true;
		for (int doc = 0; doc < 120; doc++)
		{
			std::string text;
			if (doc % 2 == 0)
				text = render(rng, random_words(rng, 1 + rng() % 200, 50 + rng() % 500));
			else
				text = random_unicode_text(rng, 1 + rng() % 600);
			const std::vector<std::string> words = folded_words(text);
			const Reference ref = c.kind == MH_KIND_WORDS
			                          ? reference_words(words, c.size, c.n, c.seed)
			                          : reference_chars(words, c.size, c.n, c.seed);
			const Sig fresh = build_text(params, text);
			CHECK_EQ(mh_builder_reset(kept.state, text.size() + 1), MH_OK, "reset");
			const MhStatus fed = feed_all(kept.state, text, 1 + rng() % 300);
			const Sig again = kept.finish();
			reference_ok = reference_ok && fresh.status == MH_OK &&
			               fresh.summary.distinct_shingles == ref.size &&
			               fresh.values == ref.values;
			fresh_ok = fresh_ok && fresh.status == MH_OK;
			reset_ok = reset_ok && fed == MH_OK && again.status == MH_OK &&
			           again.summary.distinct_shingles == fresh.summary.distinct_shingles &&
			           again.summary.flags == fresh.summary.flags && again.values == fresh.values;
		}
		const std::string what = std::string(c.kind == MH_KIND_WORDS ? "words" : "chars") +
		                         " size " + std::to_string(c.size) + " n " + std::to_string(c.n);
		check(fresh_ok, what + ": fresh builders succeed", __LINE__);
		check(reference_ok, what + ": fresh builders equal the straightforward reference",
		      __LINE__);
		check(reset_ok, what + ": a builder reset between documents equals a fresh one", __LINE__);
	}

	// Whole ASCII words 64 bytes at a time (sinks without word_span) against
	// the byte loop (a sink with word_span never takes that path): the same
	// words and pieces, and the same *position after every call, on words
	// of 1 to 70 letters cut by the 64-byte blocks at every offset, non-ASCII
	// letters and separators at every offset, and pieces around 64 bytes.
	{
		struct SpanSink : RecordingSink
		{
			void word_span(size_t, size_t) {}
		};
		auto run = [](auto &sink, const std::string &text, size_t piece) {
			std::vector<size_t> stops;
			size_t position = 0;
			do
			{
				minhash::tokenize(reinterpret_cast<const unsigned char *>(text.data()), text.size(),
				                  &position, piece, sink);
				stops.push_back(position);
			} while (position < text.size());
			return stops;
		};
		const char *const fillers[] = {" ", "<br>", "\n", "=\"", " é ", "中", "Ä", " ÉCOLE ",
		                               "--", "\xF0\x9F\x98\x80", "9", "Zz"};
		bool same = true;
		int texts = 0;
		for (size_t offset = 0; offset < 130 && same; offset++)
			for (size_t long_word : {1u, 15u, 16u, 17u, 62u, 63u, 64u, 65u, 70u, 300u})
			{
				std::string text(offset % 3 == 0 ? offset : 0, ' ');
				if (offset % 3 != 0) text += std::string(offset, 'a') + " ";
				for (int k = 0; k < 12; k++)
				{
					text += std::string(k == 5 ? long_word : 1 + rng() % 12, "aZ09"[rng() % 4]);
					text += fillers[rng() % (sizeof fillers / sizeof fillers[0])];
				}
				if (offset % 2 == 0) text += "tail";
				for (size_t piece : {size_t(1), size_t(63), size_t(64), size_t(65), size_t(66),
				                     size_t(130), SIZE_MAX})
				{
					RecordingSink fast;
					SpanSink bytewise;
					const std::vector<size_t> fast_stops = run(fast, text, piece);
					const std::vector<size_t> byte_stops = run(bytewise, text, piece);
					same = same && fast.words == bytewise.words && fast.pieces == bytewise.pieces &&
					       !fast.bad_piece && fast_stops == byte_stops;
					texts++;
				}
			}
		check(same && texts > 0,
		      "64-byte ASCII blocks: the same words, pieces and stops as the byte loop", __LINE__);
	}

	// Reset rejects a document that needs a larger counter than the builder
	// was laid out for, and a buffer that is no builder.
	{
		const MhParams params = make_params(MH_KIND_WORDS, 5, 128, 0);
		Builder small(params, 100);
		CHECK_EQ(small.init_status, MH_OK, "small builder");
		CHECK_EQ(mh_builder_reset(small.state, 100), MH_OK, "reset for the same bound");
		CHECK_EQ(mh_builder_reset(small.state, 1000000), MH_ERR_BUFFER_TOO_SMALL,
		         "reset for a larger bound");
		std::vector<uint64_t> junk(64, 0);
		CHECK_EQ(mh_builder_reset(junk.data(), 10), MH_ERR_INTERNAL, "reset of no builder");
		CHECK_EQ(mh_builder_reset(nullptr, 10), MH_ERR_INTERNAL, "reset of null");
		// A reset after finish starts over: the signature of the next document only.
		const Sig one = build_words("alpha beta gamma delta epsilon zeta", 5, 128, 0);
		CHECK_EQ(feed_all(small.state, "unrelated words first of all here", SIZE_MAX), MH_OK,
		         "feed");
		(void)small.finish();
		CHECK_EQ(mh_builder_reset(small.state, 100), MH_OK, "reset after finish");
		CHECK_EQ(feed_all(small.state, "alpha beta gamma delta epsilon zeta", SIZE_MAX), MH_OK,
		         "feed after reset");
		const Sig two = small.finish();
		CHECK(two.values == one.values &&
		          two.summary.distinct_shingles == one.summary.distinct_shingles,
		      "reset forgets the previous document");
	}
}

// ---------------------------------------------------------------------------
// The band probe of near_dupe_groups_append (mh_band_probe_*): a probe finds
// exactly the held rows at the threshold (exact layout, or with no layout at
// all), never an empty set, each once; with an approximate layout, only rows
// at the threshold that share a band; the grant is a cap.
// ---------------------------------------------------------------------------

void test_band_probe()
{
	g_section = "band probe";
	std::mt19937_64 rng(20261127);
	for (uint32_t num_perm : {7u, 32u, 128u})
	{
		std::vector<std::vector<uint32_t>> held_sigs = signature_families(rng, num_perm, 30);
		std::vector<std::vector<uint32_t>> probes = signature_families(rng, num_perm, 10);
		// probes that resemble held rows too
		for (int i = 0; i < 20; i++) probes.push_back(held_sigs[rng() % held_sigs.size()]);
		const auto count = static_cast<uint32_t>(held_sigs.size());
		std::vector<uint8_t> empty(count);
		std::vector<const uint32_t *> rows(count);
		for (uint32_t i = 0; i < count; i++)
		{
			rows[i] = held_sigs[i].data();
			empty[i] = std::all_of(held_sigs[i].begin(), held_sigs[i].end(),
			                       [](uint32_t v) { return v == MH_EMPTY_VALUE; });
		}
		for (double threshold : {0.01, 0.3, 0.5, 0.8, 1.0})
		{
			for (bool approximate : {false, true})
			{
				const std::string context = "n " + std::to_string(num_perm) + ", threshold " +
				                            std::to_string(threshold) +
				                            (approximate ? ", approximate" : "");
				uint32_t bands = 0, band_rows = 0;
				if (approximate &&
				    mh_recall_layout(threshold, 0.9, num_perm, &bands, &band_rows) != MH_OK)
					continue;
				MhBandProbe *probe = nullptr;
				uint64_t memory = 0;
				CHECK_EQ(mh_band_probe_build(rows.data(), empty.data(), count, num_perm, threshold,
				                             bands, band_rows, UINT64_MAX, nullptr, nullptr, &probe,
				                             &memory),
				         MH_OK, context + ": built");
				CHECK(memory == mh_band_probe_bytes(probe), context + ": holds what it said");
				std::vector<uint32_t> found_rows(count), agreeing(count);
				for (const auto &q : probes)
				{
					if (std::all_of(q.begin(), q.end(), [](uint32_t v) { return v == MH_EMPTY_VALUE; }))
						continue;
					uint32_t found = 0;
					CHECK_EQ(mh_band_probe_find(probe, q.data(), found_rows.data(), agreeing.data(),
					                            &found),
					         MH_OK, context + ": probed");
					std::vector<uint32_t> got(found_rows.begin(), found_rows.begin() + found);
					std::sort(got.begin(), got.end());
					CHECK(std::adjacent_find(got.begin(), got.end()) == got.end(),
					      context + ": each row once");
					for (uint32_t f = 0; f < found; f++)
						CHECK_EQ(agreeing[f], mh_agreeing_positions(q.data(), rows[found_rows[f]], num_perm),
						         context + ": agreeing positions");
					std::vector<uint32_t> want;
					for (uint32_t i = 0; i < count; i++)
						if (!empty[i] &&
						    static_cast<double>(mh_agreeing_positions(q.data(), rows[i], num_perm)) /
						            num_perm >= threshold)
							want.push_back(i);
					if (!approximate)
						CHECK(got == want, context + ": exactly the rows at the threshold");
					else
						CHECK(std::includes(want.begin(), want.end(), got.begin(), got.end()),
						      context + ": only rows at the threshold");
				}
				// The walk over the rows not placed already (every third
				// placed) gives mh_group_greedy(_banded)'s groups of them alone.
				MhPigeonholeLayout exact_layout;
				if (bands != 0 || mh_pigeonhole_layout(threshold, num_perm, 0, &exact_layout) != MH_ERR_BANDS_RANGE)
				{
					std::vector<uint32_t> walked(count, UINT32_MAX), alone;
					std::vector<double> walked_resemblance(count, -1.0);
					for (uint32_t i = 0; i < count; i++)
						if (i % 3 == 0)
							walked[i] = i;
						else
							alone.push_back(i);
					CHECK_EQ(mh_band_probe_walk(probe, nullptr, nullptr, walked.data(),
					                            walked_resemblance.data()),
					         MH_OK, context + ": walked");
					std::vector<const uint32_t *> alone_rows;
					std::vector<uint8_t> alone_empty;
					for (uint32_t i : alone)
					{
						alone_rows.push_back(rows[i]);
						alone_empty.push_back(empty[i]);
					}
					const auto n = static_cast<uint32_t>(alone.size());
					std::vector<uint32_t> want_pivots(n);
					std::vector<double> want_resemblance(n);
					uint64_t group_memory = 0;
					const MhStatus grouped =
					    approximate ? mh_group_greedy_banded(alone_rows.data(), alone_empty.data(), n,
					                                         num_perm, threshold, bands, band_rows,
					                                         UINT64_MAX, nullptr, nullptr,
					                                         want_pivots.data(), want_resemblance.data(),
					                                         &group_memory)
					                : mh_group_greedy(alone_rows.data(), alone_empty.data(), n, num_perm,
					                                  threshold, UINT64_MAX, nullptr, nullptr,
					                                  want_pivots.data(), want_resemblance.data(),
					                                  &group_memory);
					CHECK_EQ(grouped, MH_OK, context + ": grouped alone");
					bool same = true;
					for (uint32_t k = 0; k < n; k++)
						same = same && walked[alone[k]] == alone[want_pivots[k]] &&
						       walked_resemblance[alone[k]] == want_resemblance[k];
					for (uint32_t i = 0; i < count; i += 3) same = same && walked[i] == i;
					CHECK(same, context + ": the walk's groups are the grouping's of the rows alone");
				}
				else
					CHECK_EQ(mh_band_probe_walk(probe, nullptr, nullptr, nullptr, nullptr),
					         MH_ERR_BANDS_RANGE, context + ": no layout, no walk");
				mh_band_probe_free(probe);
				if (approximate || memory < 2) continue;
				CHECK_EQ(mh_band_probe_build(rows.data(), empty.data(), count, num_perm, threshold,
				                             bands, band_rows, memory - 1, nullptr, nullptr, &probe,
				                             &memory),
				         MH_ERR_TOO_LARGE, context + ": a byte less is refused");
				CHECK(probe == nullptr, context + ": a refused build holds nothing");
			}
		}
	}
}

// The file-backed mode (mh_spill_begin): the engine's arrays and
// mh_large_alloc's become regions of a file, and the engine returns what it
// returns in memory; regions are reused once freed; the file's limit makes
// an allocation fail (MH_SPILL_FILE_LIMIT), and memory allocated in the
// mode may be freed after it ends.
void test_spill_file()
{
	g_section = "spill file";
	char path[] = "/tmp/minhash-core-spill.XXXXXX";
	const int fd = mkstemp(path);
	CHECK(fd >= 0, "a temporary file");
	if (fd < 0) return;
	unlink(path);

	// 20,000 rows of 32 values, families of four near-copies.
	std::mt19937_64 rng(20261128);
	const uint32_t num_perm = 32, count = 20000;
	std::vector<uint32_t> values(static_cast<size_t>(count) * num_perm);
	for (uint32_t i = 0; i < count; i++)
		for (uint32_t k = 0; k < num_perm; k++)
			values[static_cast<size_t>(i) * num_perm + k] =
			    (i % 4 == 0 || rng() % 8 == 0) ? static_cast<uint32_t>(rng())
			                                   : values[static_cast<size_t>(i - i % 4) * num_perm + k];
	std::vector<const uint32_t *> rows(count);
	std::vector<uint8_t> empty(count, 0);
	for (uint32_t i = 0; i < count; i++) rows[i] = values.data() + static_cast<size_t>(i) * num_perm;

	struct Result
	{
		std::vector<uint32_t> pivots;
		std::vector<double> resemblance;
		std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> pairs;
	};
	auto run = [&](double threshold) {
		Result r{std::vector<uint32_t>(count), std::vector<double>(count), {}};
		uint64_t memory = 0, found = 0;
		size_t bytes = 0;
		MhPair *pairs = nullptr;
		CHECK_EQ(mh_group_greedy(rows.data(), empty.data(), count, num_perm, threshold, UINT64_MAX,
		                         nullptr, nullptr, r.pivots.data(), r.resemblance.data(), &memory),
		         MH_OK, "grouping");
		MhPigeonholeLayout layout;
		CHECK_EQ(mh_pigeonhole_layout(threshold, num_perm, 0, &layout), MH_OK, "layout");
		CHECK_EQ(mh_near_pairs(rows.data(), empty.data(), count, num_perm, threshold, layout.bands,
		                       layout.rows, UINT64_MAX, nullptr, nullptr, &pairs, &found, &bytes,
		                       &memory),
		         MH_OK, "pairs");
		for (uint64_t k = 0; k < found; k++) r.pairs.emplace_back(pairs[k].a, pairs[k].b, pairs[k].agreeing);
		if (pairs != nullptr) mh_large_free(pairs, bytes);
		return r;
	};
	for (double threshold : {0.5, 0.8})
	{
		const std::string context = "threshold " + std::to_string(threshold);
		const Result in_memory = run(threshold);
		const uint32_t token = mh_spill_begin(fd, UINT64_MAX);
		const Result spilled = run(threshold);
		uint64_t file_bytes = 0;
		CHECK_EQ(mh_spill_failure(&file_bytes), 0, context + ": no allocation failed");
		mh_spill_end(token);
		CHECK(file_bytes > 0, context + ": the arrays were in the file");
		CHECK(spilled.pivots == in_memory.pivots && spilled.resemblance == in_memory.resemblance,
		      context + ": the same groups in the file");
		CHECK(spilled.pairs == in_memory.pairs && !in_memory.pairs.empty(),
		      context + ": the same pairs in the file");
	}

	// Reuse, the limit, and frees after the mode ends.
	const size_t region = 200 * 1024;
	uint32_t token = mh_spill_begin(fd, 3 * region);
	auto *a = static_cast<unsigned char *>(mh_large_alloc(region));
	auto *b = static_cast<unsigned char *>(mh_large_alloc(region));
	CHECK(a != nullptr && b != nullptr, "two regions within the limit");
	if (a != nullptr && b != nullptr)
	{
		std::memset(a, 0xAB, region);
		std::memset(b, 0xCD, region);
		CHECK(a[region - 1] == 0xAB && b[0] == 0xCD, "regions are apart");
		mh_large_free(a, region);
		for (int i = 0; i < 10; i++)
		{
			a = static_cast<unsigned char *>(mh_large_alloc(region));
			CHECK(a != nullptr, "a freed region is reused");
			if (a != nullptr) mh_large_free(a, region);
		}
		uint64_t file_bytes = 0;
		CHECK_EQ(mh_spill_failure(&file_bytes), 0, "no failure within the limit");
		CHECK(file_bytes <= 2 * region + 8192, "the file grows only as regions are held at once");
		void *c = mh_large_alloc(region);
		void *d = mh_large_alloc(2 * region);
		CHECK(c != nullptr && d == nullptr, "past the limit the allocation fails");
		CHECK_EQ(mh_spill_failure(&file_bytes), MH_SPILL_FILE_LIMIT, "the failure is the limit");
		void *small = mh_large_alloc(1024);
		CHECK(small != nullptr, "small arrays are not the file's");
		mh_large_free(small, 1024);
		mh_spill_end(token);
		CHECK(b[0] == 0xCD, "a region outlives the mode until freed");
		mh_large_free(b, region);
		if (c != nullptr) mh_large_free(c, region);
	}
	// After the mode, memory is anonymous again.
	void *after = mh_large_alloc(region);
	CHECK(after != nullptr, "anonymous memory after the mode");
	if (after != nullptr) mh_large_free(after, region);
	close(fd);
}

int main()
{
	const bool timing = std::getenv("MH_CORE_TEST_TIMING") != nullptr;
	const auto start = std::chrono::steady_clock::now();
	auto lap = start;
	auto run = [&](void (*test)(), const char *name)
	{
		test();
		const auto now = std::chrono::steady_clock::now();
		if (timing)
			std::printf("(%s: %.2f s)\n", name, std::chrono::duration<double>(now - lap).count());
		lap = now;
	};
	run(test_tokenizer_functions, "tokenizer functions");
	run(test_tokenizer_cases, "tokenizer cases");
	run(test_long_words, "long words");
	run(test_piece_feeding, "piece feeding");
	run(test_tokens_and_collect, "tokens and collect");
	run(test_reference_and_golden, "reference and golden");
	run(test_distinct_counter, "distinct counter");
	run(test_seeds, "seeds");
	run(test_resemblance, "resemblance");
	run(test_text_form, "text form");
	run(test_text_fuzz, "text fuzz");
	run(test_binary_form, "binary form");
	run(test_params_and_api, "params and API");
	run(test_lsh, "lsh");
	run(test_index_layout, "index layout");
	run(test_approx_index_layout, "approximate index layout");
	run(test_explain_words, "explain words");
	run(test_exact_resemblance, "exact resemblance");
	run(test_chunk_examples, "chunk examples");
	run(test_chunk_random, "chunk matching vs brute force");
	run(test_chunk_degenerate, "chunk matching, degenerate input");
	run(test_chunk_queue_reference, "chunk matching vs the priority-queue reference");
	run(test_interval, "resemblance interval");
	run(test_union, "union");
	run(test_grouping, "grouping vs the greedy walk over every pair");
	run(test_near_pairs, "pairs vs every pair compared");
	run(test_prefix_boilerplate, "exact pairs and groups sharing only boilerplate");
	run(test_band_probe, "band probe vs every row compared");
	run(test_spill_file, "the file-backed mode");
	run(test_empty_rows, "empty rows in the grouping and the pairs");
	run(test_le_image, "little-endian image");
	run(test_polling, "polling: sort and layout search");
	run(test_fast_paths, "fast paths vs references");
	if (timing)
		std::printf(
		    "(total %.2f s)\n",
		    std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
	std::printf("core: %d passed, %d failed\n", g_passed, g_failed);
	return g_failed > 0 ? 1 : 0;
}
