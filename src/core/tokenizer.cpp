// tokenizer.cpp: UTF-8 decoding and the pinned Unicode tables.
#include "tokenizer.hpp"

#include <algorithm>

namespace minhash
{

namespace
{

struct CodePointRange
{
	uint32_t first;
	uint32_t last;
};

struct CaseFold
{
	uint32_t code_point;
	uint32_t folded;
};

#include "unicode_tables.inc"

} // namespace

// Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
// U+10FFFF.  A bad sequence consumes one byte and yields U+FFFD.
uint32_t decode_utf8(const unsigned char *text, size_t available, size_t *length)
{
	const unsigned char lead = text[0];
	*length = 1;
	if (lead < 0x80) return lead;
	size_t needed;
	uint32_t code_point;
	uint32_t minimum;
	if (lead >= 0xC2 && lead <= 0xDF)
	{
		needed = 2, code_point = lead & 0x1F, minimum = 0x80;
	}
	else if (lead >= 0xE0 && lead <= 0xEF)
	{
		needed = 3, code_point = lead & 0x0F, minimum = 0x800;
	}
	else if (lead >= 0xF0 && lead <= 0xF4)
	{
		needed = 4, code_point = lead & 0x07, minimum = 0x10000;
	}
	else
	{
		return kReplacementCharacter;
	}
	if (available < needed) return kReplacementCharacter;
	for (size_t k = 1; k < needed; k++)
	{
		if ((text[k] & 0xC0) != 0x80) return kReplacementCharacter;
		code_point = (code_point << 6) | (text[k] & 0x3F);
	}
	if (code_point < minimum || code_point > 0x10FFFF ||
	    (code_point >= 0xD800 && code_point <= 0xDFFF))
		return kReplacementCharacter;
	*length = needed;
	return code_point;
}

size_t encode_utf8(uint32_t code_point, unsigned char *out)
{
	if (code_point < 0x80)
	{
		out[0] = static_cast<unsigned char>(code_point);
		return 1;
	}
	if (code_point < 0x800)
	{
		out[0] = static_cast<unsigned char>(0xC0 | (code_point >> 6));
		out[1] = static_cast<unsigned char>(0x80 | (code_point & 0x3F));
		return 2;
	}
	if (code_point < 0x10000)
	{
		out[0] = static_cast<unsigned char>(0xE0 | (code_point >> 12));
		out[1] = static_cast<unsigned char>(0x80 | ((code_point >> 6) & 0x3F));
		out[2] = static_cast<unsigned char>(0x80 | (code_point & 0x3F));
		return 3;
	}
	out[0] = static_cast<unsigned char>(0xF0 | (code_point >> 18));
	out[1] = static_cast<unsigned char>(0x80 | ((code_point >> 12) & 0x3F));
	out[2] = static_cast<unsigned char>(0x80 | ((code_point >> 6) & 0x3F));
	out[3] = static_cast<unsigned char>(0x80 | (code_point & 0x3F));
	return 4;
}

bool is_word_character(uint32_t code_point)
{
	if (code_point < 128) return kAsciiFold.folded[code_point] != 0;
	const CodePointRange *end = kWordRanges + sizeof kWordRanges / sizeof kWordRanges[0];
	const CodePointRange *range =
	    std::upper_bound(kWordRanges, end, code_point,
	                     [](uint32_t cp, const CodePointRange &r) { return cp < r.first; });
	return range != kWordRanges && code_point <= (range - 1)->last;
}

bool is_decimal_digit(uint32_t code_point)
{
	if (code_point < 128) return code_point >= '0' && code_point <= '9';
	const CodePointRange *end = kDigitRanges + sizeof kDigitRanges / sizeof kDigitRanges[0];
	const CodePointRange *range =
	    std::upper_bound(kDigitRanges, end, code_point,
	                     [](uint32_t cp, const CodePointRange &r) { return cp < r.first; });
	return range != kDigitRanges && code_point <= (range - 1)->last;
}

uint32_t fold_case(uint32_t code_point)
{
	if (code_point < 128)
		return code_point >= 'A' && code_point <= 'Z' ? code_point + 32 : code_point;
	const CaseFold *end = kCaseFolds + sizeof kCaseFolds / sizeof kCaseFolds[0];
	const CaseFold *fold =
	    std::lower_bound(kCaseFolds, end, code_point,
	                     [](const CaseFold &f, uint32_t cp) { return f.code_point < cp; });
	return fold != end && fold->code_point == code_point ? fold->folded : code_point;
}

} // namespace minhash
