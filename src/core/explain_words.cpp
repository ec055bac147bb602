// explain_words.cpp
//   The words of a document with their places in the text, for the functions
//   that explain a match.  Same tokenizer and same word hashes as minhash()
//   (builder.cpp's WordSink), so chunks and exact S_R see what the signature
//   saw.
#include <cstring>

#include "xxhash_stable.hpp"

#include "boundary.hpp"
#include "minhash_core.h"
#include "tokenizer.hpp"

namespace
{

struct SpanSink
{
	MhWords *words;
	XXH3_state_t *state;
	bool streaming = false;
	bool overflow = false;
	uint32_t begin = 0, end = 0;

	void word_span(size_t b, size_t e)
	{
		begin = static_cast<uint32_t>(b);
		end = static_cast<uint32_t>(e);
	}
	void word_piece(const unsigned char *bytes, size_t n)
	{
		if (!streaming)
		{
			XXH3_64bits_reset(state);
			streaming = true;
		}
		XXH3_64bits_update(state, bytes, n);
	}
	void word_end(const unsigned char *bytes, size_t n)
	{
		uint64_t hash;
		if (streaming)
		{
			XXH3_64bits_update(state, bytes, n);
			hash = XXH3_64bits_digest(state);
			streaming = false;
		}
		else
		{
			hash = XXH3_64bits(bytes, n);
		}
		if (words->count >= words->capacity)
		{
			overflow = true;
			return;
		}
		words->hashes[words->count] = hash;
		words->begins[words->count] = begin;
		words->ends[words->count] = end;
		words->count++;
	}
};

} // namespace

extern "C"
{

	// Words are separated by at least one byte.
	uint64_t mh_words_capacity(size_t length) noexcept
	{
		return length / 2 + 1;
	}

	MhStatus mh_words_scan(const char *text, size_t length, size_t *position, size_t piece,
	                       MhWords *words) noexcept
	{
		return minhash::guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_words_scan");
			if (position == nullptr || words == nullptr || *position > length)
				return MH_ERR_INTERNAL;
			if (length >= UINT32_MAX) return MH_ERR_TOO_LARGE;
			// A word never spans two calls (tokenize stops at a boundary), so
			// the hash state of a long word lives on this stack frame.
			XXH3_state_t state;
			SpanSink sink{words, &state};
			minhash::tokenize(reinterpret_cast<const unsigned char *>(text), length, position,
			                  piece, sink);
			return sink.overflow ? MH_ERR_BUFFER_TOO_SMALL : MH_OK;
		});
	}

} // extern "C"
