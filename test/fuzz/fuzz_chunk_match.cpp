// fuzz_chunk_match.cpp
//   The explain entry points: two texts (the input split at its first NUL
//   byte, or in the middle) scanned into words with mh_words_scan, then
//   mh_chunk_match (literal and information matching) and
//   mh_exact_resemblance, as minhash_explain.c calls them: room for
//   mh_words_capacity words, chunk arrays of exactly mh_chunks_capacity.
//   Invariants:
//     - C <= S <= L, 0 <= S_J <= S_L <= 1, and S_J = C / (L + S - C);
//     - literal chunks fit the capacity, are ordered by a_start, lie inside
//       both texts, do not overlap in either, hold equal words, have at
//       least min_words words (or are the whole of two equal short texts),
//       and add up to C;
//     - a text matched with itself is all common (S_J = S_L = 1), and two
//       texts without words share nothing (S_J = S_L = 0);
//     - exact resemblance lies in [0, 1], is symmetric, and is 1 for a text
//       and itself (checked on 1 input in 32: it is slow).
#include <algorithm>
#include <cmath>
#include <memory>

#include "fuzz_common.hpp"

namespace
{

struct Words
{
	std::vector<uint64_t> hashes;
	std::vector<uint32_t> begins, ends;
	uint64_t count = 0;
};

Words scan(const char *text, size_t length, fuzz::Random &random)
{
	Words w;
	const uint64_t capacity = mh_words_capacity(length);
	w.hashes.resize(capacity);
	w.begins.resize(capacity);
	w.ends.resize(capacity);
	MhWords words{w.hashes.data(), w.begins.data(), w.ends.data(), capacity, 0};
	size_t position = 0;
	while (position < length)
	{
		const size_t before = position;
		FUZZ_CHECK(mh_words_scan(text, length, &position, random.below(48), &words) == MH_OK);
		FUZZ_CHECK(position > before && position <= length);
	}
	w.count = words.count;
	return w;
}

void check_stats(const MhChunkStats &st, uint64_t count_a, uint64_t count_b)
{
	FUZZ_CHECK(st.common_words <= st.shorter_words);
	FUZZ_CHECK(st.shorter_words <= st.longer_words);
	FUZZ_CHECK(st.longer_words <= std::max(count_a, count_b));
	FUZZ_CHECK(st.shorter_words <= std::min(count_a, count_b));
	FUZZ_CHECK(st.s_j >= 0.0 && st.s_j <= 1.0);
	FUZZ_CHECK(st.s_l >= 0.0 && st.s_l <= 1.0);
	FUZZ_CHECK(st.s_j <= st.s_l + 1e-12);
	if (st.longer_words == 0)
	{
		// Texts without words resemble nothing, as their signatures do.
		FUZZ_CHECK(st.s_j == 0.0 && st.s_l == 0.0);
		return;
	}
	const double c = static_cast<double>(st.common_words);
	const double l = static_cast<double>(st.longer_words);
	const double s = static_cast<double>(st.shorter_words);
	FUZZ_CHECK(std::fabs(st.s_j - c / (l + s - c)) <= 1e-12);
	FUZZ_CHECK(std::fabs(st.s_l - c / l) <= 1e-12);
}

MhChunkStats match_literal(const Words &a, const Words &b, uint32_t min_words)
{
	const uint64_t capacity = mh_chunks_capacity(a.count, b.count, min_words);
	FUZZ_CHECK(capacity >= 1);
	std::unique_ptr<MhChunk[]> chunks(new MhChunk[capacity]);
	MhChunkStats st;
	FUZZ_CHECK(mh_chunk_match(a.hashes.data(), a.count, b.hashes.data(), b.count, min_words,
	                          MH_MATCH_LITERAL, nullptr, nullptr, &st, chunks.get()) == MH_OK);
	check_stats(st, a.count, b.count);
	FUZZ_CHECK(st.longer_words == std::max(a.count, b.count));
	FUZZ_CHECK(st.shorter_words == std::min(a.count, b.count));
	FUZZ_CHECK(st.chunks <= capacity);

	const bool short_texts = a.count < min_words || b.count < min_words;
	std::vector<std::pair<uint64_t, uint64_t>> in_b;
	uint64_t total = 0, a_end = 0;
	for (uint64_t k = 0; k < st.chunks; k++)
	{
		const MhChunk &c = chunks[k];
		FUZZ_CHECK(c.words >= 1);
		FUZZ_CHECK(short_texts ? (c.words == a.count && a.count == b.count) : c.words >= min_words);
		FUZZ_CHECK(c.a_start + c.words <= a.count && c.b_start + c.words <= b.count);
		FUZZ_CHECK(c.a_start >= a_end); // ordered by a_start, no overlap in A
		a_end = c.a_start + c.words;
		FUZZ_CHECK(std::equal(a.hashes.begin() + c.a_start, a.hashes.begin() + c.a_start + c.words,
		                      b.hashes.begin() + c.b_start));
		in_b.emplace_back(c.b_start, c.b_start + c.words);
		total += c.words;
	}
	std::sort(in_b.begin(), in_b.end());
	for (size_t k = 1; k < in_b.size(); k++) FUZZ_CHECK(in_b[k - 1].second <= in_b[k].first);
	FUZZ_CHECK(total == st.common_words);

	// Without a chunk array: the same figures (chunk_similarity's call).
	MhChunkStats again;
	FUZZ_CHECK(mh_chunk_match(a.hashes.data(), a.count, b.hashes.data(), b.count, min_words,
	                          MH_MATCH_LITERAL, nullptr, nullptr, &again, nullptr) == MH_OK);
	FUZZ_CHECK(again.common_words == st.common_words && again.chunks == st.chunks);
	return st;
}

MhChunkStats match_information(const Words &a, const Words &b, uint32_t min_words)
{
	MhChunkStats st;
	FUZZ_CHECK(mh_chunk_match(a.hashes.data(), a.count, b.hashes.data(), b.count, min_words,
	                          MH_MATCH_INFORMATION, nullptr, nullptr, &st, nullptr) == MH_OK);
	check_stats(st, a.count, b.count);
	return st;
}

double resemblance(const Words &a, const Words &b, uint32_t shingle_size)
{
	double r = -1;
	FUZZ_CHECK(mh_exact_resemblance(a.hashes.data(), a.count, b.hashes.data(), b.count,
	                                shingle_size, 0, nullptr, nullptr, &r) == MH_OK);
	FUZZ_CHECK(r >= 0.0 && r <= 1.0);
	return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz::InputReader in{data, size};
	const uint8_t w = in.byte();
	// min_words: mostly 1 to 8, sometimes large (every text is "short")
	const uint32_t min_words = w < 240 ? w % 8 + 1 : (w < 250 ? w : UINT32_MAX - (w & 1));
	const uint8_t shingle = in.byte();
	const uint32_t shingle_size = shingle % MH_MAX_SHINGLE_SIZE + 1;
	// Exact resemblance sorts with 2^16 buckets whatever the size: check it
	// on one input in 32 only, to keep the matcher's executions fast.
	const bool check_resemblance = shingle >= 248;
	fuzz::Random random(in.byte());

	// Two texts in buffers of their exact sizes.
	const char *rest = reinterpret_cast<const char *>(in.data);
	const char *nul = static_cast<const char *>(std::memchr(rest, '\0', in.size));
	const size_t length_a = nul != nullptr ? static_cast<size_t>(nul - rest) : in.size / 2;
	const size_t start_b = nul != nullptr ? length_a + 1 : length_a;
	const size_t length_b = in.size - start_b;
	std::unique_ptr<char[]> text_a(new char[length_a + 1]), text_b(new char[length_b + 1]);
	std::memcpy(text_a.get(), rest, length_a);
	std::memcpy(text_b.get(), rest + start_b, length_b);
	const Words a = scan(text_a.get(), length_a, random);
	const Words b = scan(text_b.get(), length_b, random);

	// min_words 0 is refused (the glue refuses it first).
	MhChunkStats st;
	FUZZ_CHECK(mh_chunk_match(a.hashes.data(), a.count, b.hashes.data(), b.count, 0,
	                          MH_MATCH_LITERAL, nullptr, nullptr, &st, nullptr) == MH_ERR_ARGUMENT);

	match_literal(a, b, min_words);
	match_information(a, b, min_words);

	// A text and itself.
	if (a.count > 0)
	{
		const MhChunkStats self = match_literal(a, a, min_words);
		FUZZ_CHECK(self.common_words == a.count && self.s_j == 1.0 && self.s_l == 1.0);
		const MhChunkStats self_info = match_information(a, a, min_words);
		FUZZ_CHECK(self_info.s_j == 1.0 && self_info.s_l == 1.0);
	}
	if (check_resemblance)
	{
		if (a.count > 0) FUZZ_CHECK(resemblance(a, a, shingle_size) == 1.0);
		FUZZ_CHECK(resemblance(a, b, shingle_size) == resemblance(b, a, shingle_size));
	}
	return 0;
}
