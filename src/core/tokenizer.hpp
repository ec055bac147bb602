// tokenizer.hpp
//   Words are maximal runs of Unicode letters, decimal digits and combining
//   marks in UTF-8 text, simple-case-folded; everything else separates words.
//   The tables are pinned (unicode_tables.inc), not taken from the locale.
#pragma once

#include <cstddef>
#include <cstdint>

namespace minhash
{

// Invalid UTF-8 decodes as this code point (not a word character).
constexpr uint32_t kReplacementCharacter = 0xFFFD;

// Decode one code point at text[0..available); sets *length (>= 1).
uint32_t decode_utf8(const unsigned char *text, size_t available, size_t *length);

// Encode a code point; returns the number of bytes written (1..4).
size_t encode_utf8(uint32_t code_point, unsigned char *out);

bool is_word_character(uint32_t code_point);

// Unicode general category Nd (a subset of the word characters).
bool is_decimal_digit(uint32_t code_point);

uint32_t fold_case(uint32_t code_point);

// Largest folded word piece handed to a sink at once.
constexpr size_t kWordPieceBytes = 256;

// For each word, calls sink.word_piece(bytes, n) zero or more times, then
// sink.word_end(bytes, n) with the last non-empty piece of its folded UTF-8
// (pieces end on code point boundaries).  Starts at
// *position, stops at the first word boundary at or after *position + piece,
// and advances *position.
template <typename Sink>
void tokenize(const unsigned char *text, size_t length, size_t *position, size_t piece, Sink &sink);

} // namespace minhash

#include "tokenizer_impl.hpp"
