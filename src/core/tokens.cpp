// tokens.cpp: the tokenizer's output as words, to show a person what
// minhash() sees.
#include <cstring>

#include "boundary.hpp"
#include "minhash_core.h"
#include "tokenizer.hpp"

namespace
{

struct CollectingSink
{
	char *out;
	size_t capacity;
	size_t *length;
	bool overflow;

	void append(const unsigned char *bytes, size_t n)
	{
		if (*length + n > capacity)
		{
			overflow = true;
			return;
		}
		std::memcpy(out + *length, bytes, n);
		*length += n;
	}
	void word_piece(const unsigned char *bytes, size_t n) { append(bytes, n); }
	void word_end(const unsigned char *bytes, size_t n)
	{
		append(bytes, n);
		const unsigned char terminator = '\0';
		append(&terminator, 1);
	}
};

// Which class a document's words put it in, word by word: no word yet, only
// words of decimal digits so far, or a word with anything else in it.
struct ClassifyingSink
{
	uint8_t *document_class;

	void look_at(const unsigned char *bytes, size_t n)
	{
		if (*document_class == MH_CLASS_WORDS) return;
		for (size_t at = 0; at < n;)
		{
			size_t length;
			if (!minhash::is_decimal_digit(minhash::decode_utf8(bytes + at, n - at, &length)))
			{
				*document_class = MH_CLASS_WORDS;
				return;
			}
			at += length;
		}
	}
	void word_piece(const unsigned char *bytes, size_t n) { look_at(bytes, n); }
	void word_end(const unsigned char *bytes, size_t n)
	{
		if (*document_class == MH_CLASS_NO_WORDS) *document_class = MH_CLASS_NUMBERS_ONLY;
		look_at(bytes, n);
	}
};

} // namespace

extern "C"
{

	// Folding grows a code point's UTF-8 by at most half (2 bytes -> 3), and each
	// word of at least one byte gains one terminator.
	size_t mh_tokens_capacity(size_t length) noexcept
	{
		return 2 * length + 1;
	}

	MhStatus mh_tokenize(const char *text, size_t length, size_t *position, size_t piece, char *out,
	                     size_t out_capacity, size_t *out_length) noexcept
	{
		return minhash::guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_tokenize");
			if (position == nullptr || out_length == nullptr || *position > length)
				return MH_ERR_INTERNAL;
			CollectingSink sink{out, out_capacity, out_length, false};
			minhash::tokenize(reinterpret_cast<const unsigned char *>(text), length, position,
			                  piece, sink);
			return sink.overflow ? MH_ERR_BUFFER_TOO_SMALL : MH_OK;
		});
	}

	MhStatus mh_classify_text(const char *text, size_t length, size_t *position, size_t piece,
	                          uint8_t *document_class) noexcept
	{
		return minhash::guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_classify_text");
			if (position == nullptr || document_class == nullptr || *position > length ||
			    *document_class > MH_CLASS_WORDS)
				return MH_ERR_INTERNAL;
			ClassifyingSink sink{document_class};
			minhash::tokenize(reinterpret_cast<const unsigned char *>(text), length, position,
			                  piece, sink);
			return MH_OK;
		});
	}

} // extern "C"
