// tokenizer_impl.hpp: the tokenize() loop, inlined into each sink's caller.
#pragma once

namespace minhash {

// Folded ASCII byte, or 0 for a separator (ASCII letters and digits only).
struct AsciiFoldTable {
    unsigned char folded[128];
    constexpr AsciiFoldTable() : folded() {
        for (int c = 0; c < 128; c++) {
            if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) folded[c] = static_cast<unsigned char>(c);
            if (c >= 'A' && c <= 'Z') folded[c] = static_cast<unsigned char>(c + 32);
        }
    }
};
static constexpr AsciiFoldTable kAsciiFold{};

template <typename Sink>
void tokenize(const unsigned char *text, size_t length, size_t *position, size_t piece,
              Sink &sink) {
    unsigned char word[kWordPieceBytes];
    size_t word_length = 0;
    bool in_word = false;
    size_t i = *position;
    const size_t stop_after = piece < length - i ? i + piece : length;

    while (i < length) {
        const unsigned char byte = text[i];
        if (byte < 0x80) {
            // ASCII, the common case: copy a whole run of word bytes in a
            // tight loop, registers only.
            unsigned char folded = kAsciiFold.folded[byte];
            if (folded == 0) {
                i++;
            } else {
                do {
                    if (word_length == sizeof word) {
                        sink.word_piece(word, word_length);
                        word_length = 0;
                    }
                    word[word_length++] = folded;
                    if (++i == length) break;
                    const unsigned char next = text[i];
                    folded = next < 0x80 ? kAsciiFold.folded[next] : 0;
                } while (folded != 0);
                in_word = true;
                continue;  // the byte that ended the run may continue the word
            }
        } else {
            size_t advance;
            const uint32_t code_point = decode_utf8(text + i, length - i, &advance);
            i += advance;
            if (is_word_character(code_point)) {
                if (word_length + 4 > sizeof word) {
                    sink.word_piece(word, word_length);
                    word_length = 0;
                }
                word_length += encode_utf8(fold_case(code_point), word + word_length);
                in_word = true;
                continue;
            }
        }
        // a separator
        if (in_word) {
            sink.word_end(word, word_length);
            word_length = 0;
            in_word = false;
            if (i >= stop_after) break;
        }
    }
    if (in_word) sink.word_end(word, word_length);
    *position = i;
}

}  // namespace minhash
