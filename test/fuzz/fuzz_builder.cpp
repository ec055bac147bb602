// fuzz_builder.cpp
//   The tokenizer and shingler on arbitrary bytes.  The first bytes choose
//   the parameters (kind, shingle size, number of values, seed, how pieces
//   are cut); the rest is the document (or, for a set, its elements).
//   Called as minhash_build.c calls the core: ask mh_builder_size, allocate
//   exactly that (8-byte aligned), init, feed in pieces until the position
//   reaches the end, finish.  Invariants:
//     - the signature does not depend on how the text is cut into pieces;
//     - mh_tokenize and mh_words_scan see the same words, within their
//       capacities, whatever the pieces; a word's hash is XXH3 of its
//       folded bytes, and its span lies inside the text, in order;
//     - the builder samples exactly the shingles those words make, none
//       dropped by the glue's bound on max_elements;
//     - a set's signature does not depend on the order of its elements;
//     - every signature survives the text and binary round trips.
#include <algorithm>
#include <memory>
#include <set>

#include "xxhash_stable.hpp"

#include "fuzz_common.hpp"

namespace
{

// What minhash_build.c passes as max_elements (max_shingles there).
uint64_t max_shingles(uint8_t kind, size_t length)
{
	return kind == MH_KIND_WORDS ? length / 2 + 1 : length + 1;
}

// The glue's piece between interrupt checks, or small random ones.
size_t next_piece(fuzz::Random &random, uint8_t mode)
{
	switch (mode % 4)
	{
		case 0:
			return 1024 * 1024;
		case 1:
			return random.below(4);
		case 2:
			return random.below(64);
		default:
			return random.below(600);
	}
}

struct Builder
{
	std::unique_ptr<uint64_t[]> memory; // 8-byte aligned, exactly the size asked for
	void *state;
	MhParams params;

	Builder(const MhParams &p, uint64_t max_elements) : params(p)
	{
		const size_t size = mh_builder_size(&params, max_elements);
		FUZZ_CHECK(size > 0);
		// new[] of uint64_t: aligned, and ASan sees the end of the buffer
		// only if the size is a multiple of 8; round down the check below.
		memory.reset(new uint64_t[(size + 7) / 8]);
		state = memory.get();
		FUZZ_CHECK(mh_builder_init(state, size - 1, &params, max_elements) ==
		           MH_ERR_BUFFER_TOO_SMALL);
		FUZZ_CHECK(mh_builder_init(state, size, &params, max_elements) == MH_OK);
	}

	void feed(const char *text, size_t length, fuzz::Random &random, uint8_t mode)
	{
		size_t position = 0;
		while (position < length)
		{
			const size_t before = position;
			FUZZ_CHECK(mh_builder_feed_text(state, text, length, &position,
			                                next_piece(random, mode)) == MH_OK);
			FUZZ_CHECK(position > before && position <= length);
		}
	}

	std::vector<uint32_t> finish(MhSummary *summary)
	{
		std::vector<uint32_t> values(params.num_perm);
		FUZZ_CHECK(mh_builder_finish(state, summary, values.data()) == MH_OK);
		FUZZ_CHECK(fuzz::same_summary(*summary, MhSummary{params, summary->flags,
		                                                   summary->distinct_shingles}));
		return values;
	}
};

// The words of the text as mh_tokenize gives them, in random pieces, each
// checked against a single-piece run.
std::vector<std::string> tokens_of(const char *text, size_t length, fuzz::Random &random,
                                   uint8_t mode)
{
	const size_t capacity = mh_tokens_capacity(length);
	std::unique_ptr<char[]> out(new char[capacity]);
	size_t out_length = 0, position = 0;
	while (position < length)
	{
		const size_t before = position;
		FUZZ_CHECK(mh_tokenize(text, length, &position, next_piece(random, mode), out.get(),
		                       capacity, &out_length) == MH_OK);
		FUZZ_CHECK(position > before && position <= length);
		FUZZ_CHECK(out_length <= capacity);
	}
	std::vector<std::string> words;
	for (size_t at = 0; at < out_length;)
	{
		const size_t n = std::strlen(out.get() + at);
		FUZZ_CHECK(n > 0 && at + n < out_length);
		words.emplace_back(out.get() + at, n);
		at += n + 1;
	}
	return words;
}

// mh_words_scan sees the same words, hashed as the builder hashes them.
void check_word_spans(const char *text, size_t length, const std::vector<std::string> &tokens,
                      fuzz::Random &random, uint8_t mode)
{
	const uint64_t capacity = mh_words_capacity(length);
	std::vector<uint64_t> hashes(capacity);
	std::vector<uint32_t> begins(capacity), ends(capacity);
	MhWords words{hashes.data(), begins.data(), ends.data(), capacity, 0};
	size_t position = 0;
	while (position < length)
	{
		const size_t before = position;
		FUZZ_CHECK(mh_words_scan(text, length, &position, next_piece(random, mode), &words) ==
		           MH_OK);
		FUZZ_CHECK(position > before && position <= length);
	}
	FUZZ_CHECK(words.count == tokens.size());
	for (uint64_t i = 0; i < words.count; i++)
	{
		FUZZ_CHECK(hashes[i] == XXH3_64bits(tokens[i].data(), tokens[i].size()));
		FUZZ_CHECK(begins[i] < ends[i] && ends[i] <= length);
		FUZZ_CHECK(i == 0 || ends[i - 1] < begins[i]);
	}
}

// Shingles the builder must see: windows of shingle_size tokens, or one
// shingle of everything when there are fewer.
uint64_t expected_shingles(uint64_t tokens, uint32_t shingle_size)
{
	if (tokens == 0) return 0;
	return tokens >= shingle_size ? tokens - shingle_size + 1 : 1;
}

uint64_t code_points(const std::string &utf8)
{
	uint64_t n = 0;
	for (unsigned char c : utf8) n += (c & 0xC0) != 0x80;
	return n;
}

void fuzz_text(const MhParams &params, const char *text, size_t length, uint8_t mode)
{
	fuzz::Random random(length * 31 + mode);
	const uint64_t max_elements = max_shingles(params.kind, length);

	// Whole document, as the glue feeds it, collecting the shingle hashes.
	Builder whole(params, max_elements);
	std::vector<uint64_t> collected(max_elements);
	FUZZ_CHECK(mh_builder_collect(whole.state, collected.data(), max_elements) == MH_OK);
	fuzz::Random glue_pieces(0);
	whole.feed(text, length, glue_pieces, 0);
	MhSummary summary;
	const std::vector<uint32_t> values = whole.finish(&summary);

	// Random pieces: the same signature.
	Builder pieces(params, max_elements);
	pieces.feed(text, length, random, mode);
	MhSummary pieces_summary;
	FUZZ_CHECK(pieces.finish(&pieces_summary) == values);
	FUZZ_CHECK(fuzz::same_summary(pieces_summary, summary));

	// The words, and the shingles they make.
	const std::vector<std::string> tokens = tokens_of(text, length, random, mode);
	check_word_spans(text, length, tokens, random, mode);
	uint64_t token_count = tokens.size(); // words
	if (params.kind == MH_KIND_CHARS)
	{
		token_count = tokens.empty() ? 0 : tokens.size() - 1; // spaces between words
		for (const std::string &w : tokens) token_count += code_points(w);
	}
	const uint64_t shingles = expected_shingles(token_count, params.shingle_size);
	FUZZ_CHECK(mh_builder_collected(whole.state) == shingles);
	FUZZ_CHECK(shingles <= max_elements);
	if (shingles == 0)
	{
		FUZZ_CHECK(summary.distinct_shingles == 0);
		for (uint32_t v : values) FUZZ_CHECK(v == MH_EMPTY_VALUE);
	}
	else
	{
		FUZZ_CHECK(summary.distinct_shingles >= 1);
		if (!(summary.flags & MH_FLAG_SIZE_ESTIMATED))
		{
			std::set<uint64_t> distinct(collected.begin(), collected.begin() + shingles);
			FUZZ_CHECK(summary.distinct_shingles == distinct.size());
		}
	}
	fuzz::check_round_trips(summary, values);
}

// A set: elements separated by NUL bytes, added in order and in reverse.
void fuzz_set(const MhParams &params, const char *data, size_t length)
{
	std::vector<std::string> elements;
	for (size_t at = 0; at <= length;)
	{
		const char *end = static_cast<const char *>(std::memchr(data + at, '\0', length - at));
		const size_t n = end == nullptr ? length - at : static_cast<size_t>(end - (data + at));
		elements.emplace_back(data + at, n);
		at += n + 1;
	}
	MhSummary forward_summary, backward_summary;
	Builder forward(params, elements.size());
	for (const std::string &e : elements)
		FUZZ_CHECK(mh_builder_add_element(forward.state, e.data(), e.size()) == MH_OK);
	FUZZ_CHECK(mh_builder_feed_text(forward.state, data, length, nullptr, 1) != MH_OK);
	const std::vector<uint32_t> values = forward.finish(&forward_summary);
	Builder backward(params, elements.size());
	for (size_t i = elements.size(); i-- > 0;)
		FUZZ_CHECK(mh_builder_add_element(backward.state, elements[i].data(),
		                                  elements[i].size()) == MH_OK);
	FUZZ_CHECK(backward.finish(&backward_summary) == values);
	FUZZ_CHECK(fuzz::same_summary(forward_summary, backward_summary));
	const std::set<std::string> distinct(elements.begin(), elements.end());
	if (!(forward_summary.flags & MH_FLAG_SIZE_ESTIMATED))
		FUZZ_CHECK(forward_summary.distinct_shingles == distinct.size());
	fuzz::check_round_trips(forward_summary, values);
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::InputReader in{data, size};
	MhParams params;
	std::memset(&params, 0, sizeof params);
	params.kind = static_cast<uint8_t>(in.byte() % 3);
	const uint8_t shingle = in.byte();
	params.shingle_size = params.kind == MH_KIND_SET ? 0 : static_cast<uint16_t>(shingle % 64 + 1);
	const uint32_t num_perm = in.u16();
	// mostly small signatures (speed), sometimes the largest
	params.num_perm = num_perm == 0xFFFF   ? MH_MAX_NUM_PERM
	                  : num_perm >= 0xF000 ? num_perm % 1024 + 1
	                                       : num_perm % 64 + 1;
	params.seed = static_cast<int32_t>(in.u32());
	const uint8_t mode = in.byte();

	// Out-of-range parameters are refused, as the glue relies on.
	MhParams bad = params;
	bad.num_perm = MH_MAX_NUM_PERM + 1;
	FUZZ_CHECK(mh_builder_size(&bad, 1) == 0);
	bad = params;
	bad.shingle_size = params.kind == MH_KIND_SET ? 1 : MH_MAX_SHINGLE_SIZE + 1;
	FUZZ_CHECK(mh_builder_size(&bad, 1) == 0);

	// The document in a buffer of its exact size, so ASan sees overreads.
	std::unique_ptr<char[]> text(new char[in.size ? in.size : 1]);
	if (in.size) std::memcpy(text.get(), in.data, in.size);
	if (params.kind == MH_KIND_SET)
		fuzz_set(params, text.get(), in.size);
	else
		fuzz_text(params, text.get(), in.size, mode);
	return 0;
}
