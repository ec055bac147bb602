// tokenizer_impl.hpp: the tokenize() loop, inlined into each sink's caller.
#pragma once

#include <type_traits>
#include <utility>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace minhash
{

// Folded ASCII byte, or 0 for a separator (ASCII letters and digits only).
struct AsciiFoldTable
{
	unsigned char folded[128];
	constexpr AsciiFoldTable() : folded()
	{
		for (int c = 0; c < 128; c++)
		{
			if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
				folded[c] = static_cast<unsigned char>(c);
			if (c >= 'A' && c <= 'Z') folded[c] = static_cast<unsigned char>(c + 32);
		}
	}
};
static constexpr AsciiFoldTable kAsciiFold{};

#if defined(__SSE2__)
// Sixteen bytes classified at once (SSE2 is part of x86-64), the one place
// the block paths below decide what a word byte is; it agrees with
// kAsciiFold.  Bytes of 0x80 and above are negative as signed bytes, so they
// are never letters or digits.
struct Ascii16
{
	__m128i folded; // letters lower-cased, every other byte as it is
	unsigned word;  // bit k: byte k is an ASCII letter or digit (bits 16..31 clear)
	unsigned high;  // bit k: byte k is 0x80 or above
};

inline Ascii16 classify_ascii16(const unsigned char *text)
{
	const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i *>(text));
	const __m128i lower = _mm_or_si128(bytes, _mm_set1_epi8(0x20));
	const __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(lower, _mm_set1_epi8('a' - 1)),
	                                     _mm_cmplt_epi8(lower, _mm_set1_epi8('z' + 1)));
	const __m128i digit = _mm_and_si128(_mm_cmpgt_epi8(bytes, _mm_set1_epi8('0' - 1)),
	                                    _mm_cmplt_epi8(bytes, _mm_set1_epi8('9' + 1)));
	Ascii16 c;
	c.folded = _mm_or_si128(_mm_and_si128(letter, lower), _mm_andnot_si128(letter, bytes));
	c.word = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(letter, digit)));
	c.high = static_cast<unsigned>(_mm_movemask_epi8(bytes));
	return c;
}

// Sixteen bytes: writes them folded to out and returns how many leading
// bytes are ASCII letters or digits (0 to 16).
inline unsigned fold_ascii_word_run16(const unsigned char *text, unsigned char *out)
{
	const Ascii16 c = classify_ascii16(text);
	_mm_storeu_si128(reinterpret_cast<__m128i *>(out), c.folded);
	return static_cast<unsigned>(__builtin_ctz(~c.word)); // bits 16..31 of ~word are set
}

// How many leading bytes of sixteen are ASCII separators (0 to 16): the
// bytes up to the first ASCII letter or digit or byte of 0x80 and above.
inline unsigned ascii_separator_run16(const unsigned char *text)
{
	const Ascii16 c = classify_ascii16(text);
	return static_cast<unsigned>(__builtin_ctz(c.word | c.high | 0x10000u));
}

// Between words, with at least 64 bytes left: the whole words that lie in
// the next 64 bytes before any byte of 0x80 and above, each reported by
// word_end() from a folded copy, exactly as the byte loop would report them
// (none is long enough for word_piece()).  Returns the bytes consumed, which
// end with a separator; 0 if no such word or separator could be taken.
template <typename Sink>
inline size_t tokenize_ascii_block64(const unsigned char *text, Sink &sink)
{
	alignas(16) unsigned char folded[64];
	uint64_t word = 0, high = 0;
	for (unsigned k = 0; k < 4; k++)
	{
		const Ascii16 c = classify_ascii16(text + 16 * k);
		_mm_store_si128(reinterpret_cast<__m128i *>(folded + 16 * k), c.folded);
		word |= static_cast<uint64_t>(c.word) << (16 * k);
		high |= static_cast<uint64_t>(c.high) << (16 * k);
	}
	unsigned end = high != 0 ? static_cast<unsigned>(__builtin_ctzll(high)) : 64;
	if (end == 0) return 0;
	const uint64_t below_end = end == 64 ? ~uint64_t(0) : (uint64_t(1) << end) - 1;
	if ((word >> (end - 1)) & 1)
	{
		// The last run may go on past end: stop after the separator before it.
		const uint64_t separators = ~word & below_end;
		if (separators == 0) return 0;
		end = 64 - static_cast<unsigned>(__builtin_clzll(separators));
	}
	uint64_t runs = word & (end == 64 ? ~uint64_t(0) : (uint64_t(1) << end) - 1);
	while (runs != 0)
	{
		const unsigned start = static_cast<unsigned>(__builtin_ctzll(runs));
		// The run ends before end - 1, a separator, so a zero bit follows it.
		const unsigned stop = start + static_cast<unsigned>(__builtin_ctzll(~(runs >> start)));
		sink.word_end(folded + start, stop - start);
		runs &= ~uint64_t(0) << stop;
	}
	return end;
}
#endif

// A sink that defines word_span(begin, end) also learns where each word lies
// in the text: bytes [begin, end), reported just before its word_end().
// Other sinks compile to the same loop as before.
template <typename Sink, typename = void>
struct SinkWantsSpans : std::false_type
{
};
template <typename Sink>
struct SinkWantsSpans<
    Sink, std::void_t<decltype(std::declval<Sink &>().word_span(size_t(), size_t()))>>
    : std::true_type
{
};

template <typename Sink>
void tokenize(const unsigned char *text, size_t length, size_t *position, size_t piece, Sink &sink)
{
	unsigned char word[kWordPieceBytes];
	size_t word_length = 0;
	bool in_word = false;
	size_t i = *position;
	constexpr bool kSpans = SinkWantsSpans<Sink>::value;
	size_t word_begin = 0, word_stop = 0; // used only when kSpans
	const size_t stop_after = piece < length - i ? i + piece : length;
#if defined(__SSE2__)
	size_t block_retry = i; // where to try whole blocks of ASCII words again
#endif

	while (i < length)
	{
#if defined(__SSE2__)
		if constexpr (!kSpans)
		{
			// Between words in a long enough stretch: whole words 64 bytes
			// at a time (the piece ends where the byte loop would end it).
			// (i may be past stop_after, in the separators after it)
			if (!in_word && i >= block_retry && stop_after > i && stop_after - i > 64)
			{
				const size_t taken = tokenize_ascii_block64(text + i, sink);
				if (taken != 0)
				{
					i += taken;
					continue;
				}
				block_retry = i + 64; // not ASCII words here: the byte loop goes on
			}
		}
#endif
		const unsigned char byte = text[i];
		if (byte < 0x80)
		{
			// ASCII, the common case: copy a whole run of word bytes,
			// sixteen at a time while the text lasts, then byte by byte.
			if (kAsciiFold.folded[byte] == 0)
			{
				i++;
				if (in_word)
				{
					if constexpr (kSpans) sink.word_span(word_begin, word_stop);
					sink.word_end(word, word_length);
					word_length = 0;
					in_word = false;
					if (i >= stop_after) break;
				}
#if defined(__SSE2__)
				// Markup has runs of separators: skip them sixteen at a time.
				while (length - i >= 16)
				{
					const unsigned run = ascii_separator_run16(text + i);
					i += run;
					if (run < 16) break;
				}
#endif
				continue;
			}
			else
			{
				if constexpr (kSpans)
					if (!in_word) word_begin = i;
#if defined(__SSE2__)
				while (length - i >= 16)
				{
					if (word_length + 16 > sizeof word)
					{
						sink.word_piece(word, word_length);
						word_length = 0;
					}
					const unsigned run = fold_ascii_word_run16(text + i, word + word_length);
					word_length += run;
					i += run;
					if (run < 16) break;
				}
#endif
				while (i < length)
				{
					const unsigned char next = text[i];
					const unsigned char folded = next < 0x80 ? kAsciiFold.folded[next] : 0;
					if (folded == 0) break;
					if (word_length == sizeof word)
					{
						sink.word_piece(word, word_length);
						word_length = 0;
					}
					word[word_length++] = folded;
					i++;
				}
				if constexpr (kSpans) word_stop = i;
				in_word = true;
				continue; // the byte that ended the run may continue the word
			}
		}
		else
		{
			size_t advance;
			const uint32_t code_point = decode_utf8(text + i, length - i, &advance);
			i += advance;
			if (is_word_character(code_point))
			{
				if constexpr (kSpans)
				{
					if (!in_word) word_begin = i - advance;
					word_stop = i;
				}
				if (word_length + 4 > sizeof word)
				{
					sink.word_piece(word, word_length);
					word_length = 0;
				}
				word_length += encode_utf8(fold_case(code_point), word + word_length);
				in_word = true;
				continue;
			}
		}
		// a separator
		if (in_word)
		{
			if constexpr (kSpans) sink.word_span(word_begin, word_stop);
			sink.word_end(word, word_length);
			word_length = 0;
			in_word = false;
			if (i >= stop_after) break;
		}
	}
	if (in_word)
	{
		if constexpr (kSpans) sink.word_span(word_begin, word_stop);
		sink.word_end(word, word_length);
	}
	*position = i;
}

} // namespace minhash
