// builder.cpp
//   Building a signature: tokens -> shingles -> one XXH3 hash per shingle ->
//   distinct count and num_perm running minimums.  All state lives in one
//   caller-owned buffer so the glue can feed a long document in pieces.
#include <cstring>
#include <new>

#include "xxhash_stable.hpp"

#include "boundary.hpp"
#include "distinct_counter.hpp"
#include "hash_family.hpp"
#include "minhash_core.h"
#include "tokenizer.hpp"

namespace minhash
{

namespace
{

constexpr uint64_t kBuilderMagic = 0x6D696E6861736831ULL; // "minhash1"

// Shingles whose permutation inputs are batched before the minimums update.
constexpr uint32_t kPendingInputs = 64;

// Word shingles hashed a batch at a time: the hashes of consecutive windows
// are independent, so a loop of them overlaps in the processor, where one
// per word waits on the tokenizer's branches.
constexpr uint32_t kWordBatch = 64;

struct BuilderState
{
	uint64_t magic;
	MhParams params;
	uint64_t shingle_seed;
	// The last shingle_size tokens, each stored twice (at j and j + size) so
	// that the current window is always contiguous: ring[start, start + size).
	// Word shingles: the word hashes whose windows are not hashed yet, after
	// the shingle_size - 1 words before them.
	uint64_t words[kWordBatch + MH_MAX_SHINGLE_SIZE];
	uint32_t word_count;
	uint32_t char_ring[2 * MH_MAX_SHINGLE_SIZE];
	uint64_t tokens_seen;
	uint32_t ring_next; // slot of the next token; the oldest once the ring is full
	uint64_t words_seen;
	bool word_streaming; // the current word is longer than one piece
	bool finished;       // mh_builder_finish ran: nothing more may be added
	DistinctCounter counter;
	uint32_t *multipliers;
	uint32_t *increments;
	uint32_t *minimums;
	XXH3_state_t *word_hash_state;
	uint64_t max_elements;
	// Permutation inputs not yet folded into the minimums: they go through
	// update_minimums_batch a batch at a time.
	uint32_t pending_count;
	uint32_t pending[kPendingInputs];
	uint64_t *collected; // optional: every shingle hash, for exact measures
	uint64_t collected_count;
};

template <typename T>
size_t round_up(size_t n)
{
	return (n + alignof(T) - 1) / alignof(T) * alignof(T);
}

// Offsets of each array inside the caller's buffer.
struct Layout
{
	size_t multipliers, increments, minimums, word_hash_state, counter, total;
};

Layout layout_for(uint32_t num_perm, uint64_t capacity)
{
	Layout l;
	size_t at = round_up<uint64_t>(sizeof(BuilderState));
	l.multipliers = at;
	at += num_perm * sizeof(uint32_t);
	l.increments = at;
	at += num_perm * sizeof(uint32_t);
	l.minimums = at;
	at = round_up<uint64_t>(at + num_perm * sizeof(uint32_t));
	l.counter = at;
	at += distinct_counter_slots(capacity) * sizeof(uint64_t);
	l.word_hash_state = at; // aligned at run time, hence the slack
	at += sizeof(XXH3_state_t) + 64;
	l.total = at;
	return l;
}

inline uint64_t to_little_endian(uint64_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap64(v);
#else
	return v;
#endif
}

inline uint32_t to_little_endian(uint32_t v)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return __builtin_bswap32(v);
#else
	return v;
#endif
}

void flush_pending(BuilderState *s)
{
	if (s->pending_count == 0) return;
	update_minimums_batch(s->pending, s->pending_count, s->multipliers, s->increments, s->minimums,
	                      s->params.num_perm);
	s->pending_count = 0;
}

inline void add_shingle_hash(BuilderState *s, uint64_t hash)
{
	if (s->collected != nullptr && s->collected_count < s->max_elements)
		s->collected[s->collected_count++] = hash;
	// A shingle already in the distinct counter's table has had its
	// permutation input folded in (or pending): min is idempotent, so it is
	// skipped.  (Hashes 0 and 1 share a slot, so they are never skipped.)
	if (!distinct_counter_add(&s->counter, hash) && hash > 1) return;
	s->pending[s->pending_count++] = permutation_input(hash);
	if (s->pending_count == kPendingInputs) flush_pending(s);
}

// XXH3 of a window of count tokens.  The common shingle sizes get a constant
// length, so that the whole hash is inlined with its length branches folded
// away; the result is XXH3_64bits_withSeed's, bit for bit.
template <typename Token>
__attribute__((flatten)) uint64_t hash_window(const Token *window, uint64_t count, uint64_t seed)
{
	switch (count)
	{
		case 2:
			return XXH3_64bits_withSeed(window, 2 * sizeof(Token), seed);
		case 3:
			return XXH3_64bits_withSeed(window, 3 * sizeof(Token), seed);
		case 4:
			return XXH3_64bits_withSeed(window, 4 * sizeof(Token), seed);
		case 5:
			return XXH3_64bits_withSeed(window, 5 * sizeof(Token), seed);
		default:
			return XXH3_64bits_withSeed(window, count * sizeof(Token), seed);
	}
}

// XXH3 of a word's folded bytes, inlined whole: words are short.
__attribute__((flatten)) uint64_t hash_word(const unsigned char *bytes, size_t n)
{
	return XXH3_64bits(bytes, n);
}

// Hash the window of the last `count` code points ending at the newest one.
void add_window(BuilderState *s, uint64_t count)
{
	const uint64_t start = s->tokens_seen >= s->params.shingle_size ? s->ring_next : 0;
	add_shingle_hash(s, hash_window(&s->char_ring[start], count, s->shingle_seed));
}

// Every window of Size words in words[0, count), in order.
template <uint32_t Size>
__attribute__((flatten)) void hash_word_windows(BuilderState *s, uint32_t count)
{
	uint64_t hashes[kWordBatch];
	const uint32_t windows = count - Size + 1;
	for (uint32_t w = 0; w < windows; w++)
		hashes[w] = XXH3_64bits_withSeed(&s->words[w], Size * sizeof(uint64_t), s->shingle_seed);
	for (uint32_t w = 0; w < windows; w++) add_shingle_hash(s, hashes[w]);
}

// Hash the windows of whole shingles the held words make, then keep the
// last shingle_size - 1 words for the windows still to come.
void flush_words(BuilderState *s)
{
	const uint32_t size = s->params.shingle_size;
	const uint32_t count = s->word_count;
	if (count < size) return;
	switch (size)
	{
		case 1: hash_word_windows<1>(s, count); break;
		case 2: hash_word_windows<2>(s, count); break;
		case 3: hash_word_windows<3>(s, count); break;
		case 4: hash_word_windows<4>(s, count); break;
		case 5: hash_word_windows<5>(s, count); break;
		default:
			for (uint32_t w = 0; w + size <= count; w++)
				add_shingle_hash(s, hash_window(&s->words[w], size, s->shingle_seed));
	}
	std::memmove(s->words, s->words + (count - size + 1), (size - 1) * sizeof(uint64_t));
	s->word_count = size - 1;
}

inline void push_word(BuilderState *s, uint64_t word_hash)
{
	s->words[s->word_count++] = to_little_endian(word_hash);
	s->tokens_seen++;
	if (s->word_count == kWordBatch + s->params.shingle_size - 1) flush_words(s);
}

// Append a token (a word hash or a code point) to its ring and hash the
// window once the ring is full.
template <typename Token>
void push_token(BuilderState *s, Token *ring, Token token)
{
	const uint32_t size = s->params.shingle_size;
	const uint32_t slot = s->ring_next;
	ring[slot] = ring[slot + size] = to_little_endian(token);
	s->ring_next = slot + 1 == size ? 0 : slot + 1; // no division: it is slow
	s->tokens_seen++;
	if (s->tokens_seen >= size) add_window(s, size);
}

// Word shingles: each word is hashed once (XXH3 of its folded UTF-8), each
// shingle is XXH3 of its words' hashes.
struct WordSink
{
	BuilderState *s;
	void word_piece(const unsigned char *bytes, size_t n)
	{
		if (!s->word_streaming)
		{
			XXH3_64bits_reset(s->word_hash_state);
			s->word_streaming = true;
		}
		XXH3_64bits_update(s->word_hash_state, bytes, n);
	}
	void word_end(const unsigned char *bytes, size_t n)
	{
		uint64_t word_hash;
		if (s->word_streaming)
		{
			XXH3_64bits_update(s->word_hash_state, bytes, n);
			word_hash = XXH3_64bits_digest(s->word_hash_state);
			s->word_streaming = false;
		}
		else
		{
			word_hash = hash_word(bytes, n);
		}
		s->words_seen++;
		push_word(s, word_hash);
	}
};

// Character shingles: the code points of the folded words, one space between
// words, so punctuation and spacing do not matter.
struct CharSink
{
	BuilderState *s;
	void code_points(const unsigned char *bytes, size_t n)
	{
		if (!s->word_streaming)
		{ // first piece of a word
			if (s->words_seen > 0) push_token(s, s->char_ring, uint32_t(' '));
			s->word_streaming = true;
		}
		size_t i = 0;
		while (i < n)
		{
			size_t length;
			push_token(s, s->char_ring, decode_utf8(bytes + i, n - i, &length));
			i += length;
		}
	}
	void word_piece(const unsigned char *bytes, size_t n) { code_points(bytes, n); }
	void word_end(const unsigned char *bytes, size_t n)
	{
		code_points(bytes, n);
		s->word_streaming = false;
		s->words_seen++;
	}
};

// Everything a new document starts from; the layout, the parameters and the
// permutations stay.  (The token rings need no clearing: a window is read
// only where tokens were written.)
void start_document(BuilderState *s, uint64_t max_elements)
{
	s->tokens_seen = 0;
	s->ring_next = 0;
	s->word_count = 0;
	s->words_seen = 0;
	s->word_streaming = false;
	s->finished = false;
	s->max_elements = max_elements;
	s->pending_count = 0;
	s->collected = nullptr;
	s->collected_count = 0;
	for (uint32_t i = 0; i < s->params.num_perm; i++) s->minimums[i] = MH_EMPTY_VALUE;
	distinct_counter_init(&s->counter, s->counter.table, s->counter.max_capacity,
	                      distinct_counter_capacity(max_elements));
}

BuilderState *state_of(void *builder)
{
	BuilderState *s = static_cast<BuilderState *>(builder);
	return s != nullptr && s->magic == kBuilderMagic ? s : nullptr;
}

} // namespace

} // namespace minhash

using namespace minhash;

extern "C"
{

	size_t mh_builder_size(const MhParams *params, uint64_t max_elements) noexcept
	{
		try
		{
			MH_INJECTION_POINT("mh_builder_size");
			if (mh_check_params(params) != MH_OK) return 0;
			return layout_for(params->num_perm, distinct_counter_capacity(max_elements)).total;
		}
		catch (...)
		{
			return 0;
		}
	}

	MhStatus mh_builder_init(void *builder, size_t size, const MhParams *params,
	                         uint64_t max_elements) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_builder_init");
			MhStatus status = mh_check_params(params);
			if (status != MH_OK) return status;
			const uint64_t capacity = distinct_counter_capacity(max_elements);
			const Layout l = layout_for(params->num_perm, capacity);
			if (builder == nullptr || size < l.total) return MH_ERR_BUFFER_TOO_SMALL;

			char *base = static_cast<char *>(builder);
			BuilderState *s = new (builder) BuilderState();
			s->magic = kBuilderMagic;
			s->params = *params;
			s->shingle_seed = shingle_hash_seed(params->seed);
			s->multipliers = reinterpret_cast<uint32_t *>(base + l.multipliers);
			s->increments = reinterpret_cast<uint32_t *>(base + l.increments);
			s->minimums = reinterpret_cast<uint32_t *>(base + l.minimums);
			uintptr_t hash_state = reinterpret_cast<uintptr_t>(base + l.word_hash_state);
			hash_state = (hash_state + 63) & ~uintptr_t(63);
			s->word_hash_state = reinterpret_cast<XXH3_state_t *>(hash_state);
			hash_family_parameters(params->seed, params->num_perm, s->multipliers, s->increments);
			s->counter.table = reinterpret_cast<uint64_t *>(base + l.counter);
			s->counter.max_capacity = capacity;
			start_document(s, max_elements);
			return MH_OK;
		});
	}

	MhStatus mh_builder_reset(void *builder, uint64_t max_elements) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_builder_reset");
			BuilderState *s = state_of(builder);
			if (s == nullptr) return MH_ERR_INTERNAL;
			// A smaller document may use a larger counter: either way its
			// count stays exact (the capacity holds twice its upper bound)
			// unless both are the largest, so the summary is the same.
			if (distinct_counter_capacity(max_elements) > s->counter.max_capacity)
				return MH_ERR_BUFFER_TOO_SMALL;
			start_document(s, max_elements);
			return MH_OK;
		});
	}

	MhStatus mh_builder_feed_text(void *builder, const char *text, size_t length, size_t *position,
	                              size_t piece) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_builder_feed_text");
			BuilderState *s = state_of(builder);
			if (s == nullptr || s->finished || position == nullptr || *position > length)
				return MH_ERR_INTERNAL;
			if (s->params.kind == MH_KIND_SET) return MH_ERR_KIND;
			const unsigned char *bytes = reinterpret_cast<const unsigned char *>(text);
			if (s->params.kind == MH_KIND_WORDS)
			{
				WordSink sink{s};
				tokenize(bytes, length, position, piece, sink);
				// Every whole shingle fed so far is counted (and collected)
				// when the call returns, as before the batching.
				flush_words(s);
			}
			else
			{
				CharSink sink{s};
				tokenize(bytes, length, position, piece, sink);
			}
			return MH_OK;
		});
	}

	MhStatus mh_builder_add_element(void *builder, const char *element, size_t length) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_builder_add_element");
			BuilderState *s = state_of(builder);
			if (s == nullptr || s->finished) return MH_ERR_INTERNAL;
			if (s->params.kind != MH_KIND_SET) return MH_ERR_KIND;
			add_shingle_hash(s, XXH3_64bits_withSeed(element, length, s->shingle_seed));
			return MH_OK;
		});
	}

	MhStatus mh_builder_collect(void *builder, uint64_t *out, uint64_t capacity) noexcept
	{
		BuilderState *s = state_of(builder);
		if (s == nullptr || out == nullptr || capacity < s->max_elements)
			return MH_ERR_BUFFER_TOO_SMALL;
		s->collected = out;
		s->collected_count = 0;
		return MH_OK;
	}

	uint64_t mh_builder_collected(const void *builder) noexcept
	{
		const BuilderState *s = state_of(const_cast<void *>(builder));
		return s != nullptr ? s->collected_count : 0;
	}

	MhStatus mh_builder_finish(void *builder, MhSummary *summary, uint32_t *values) noexcept
	{
		return guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_builder_finish");
			BuilderState *s = state_of(builder);
			if (s == nullptr || summary == nullptr || values == nullptr) return MH_ERR_INTERNAL;
			// A document shorter than one shingle is one shingle of what it has.
			if (!s->finished && s->params.kind == MH_KIND_WORDS)
			{
				flush_words(s);
				// (fewer words than a shingle: all of them are still held)
				if (s->tokens_seen > 0 && s->tokens_seen < s->params.shingle_size)
					add_shingle_hash(
					    s, hash_window(s->words, s->tokens_seen, s->shingle_seed));
			}
			if (!s->finished && s->params.kind == MH_KIND_CHARS && s->tokens_seen > 0 &&
			    s->tokens_seen < s->params.shingle_size)
				add_window(s, s->tokens_seen);
			flush_pending(s);
			s->finished = true;
			summary->params = s->params;
			summary->flags = distinct_counter_is_exact(&s->counter) ? 0 : MH_FLAG_SIZE_ESTIMATED;
			summary->distinct_shingles = distinct_counter_estimate(&s->counter);
			std::memcpy(values, s->minimums, s->params.num_perm * sizeof(uint32_t));
			return MH_OK;
		});
	}

} // extern "C"
