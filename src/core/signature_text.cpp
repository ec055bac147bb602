// signature_text.cpp
//   The text form, one canonical spelling only, parameters first so a person
//   can read how a signature was built:
//       v1:words:k=5:seed=0:size=93:n=128:<n values, 8 lowercase hex digits each>
//       v1:set:seed=0:size=3:n=128:...        (sets have no shingle size)
//   "size~N" instead of "size=N" marks an estimated count of distinct shingles.
#include <cstdio>
#include <cstring>
#include <limits>

#include "boundary.hpp"
#include "minhash_core.h"

namespace
{

const char kHexDigits[] = "0123456789abcdef";

size_t decimal_length(uint64_t v)
{
	size_t n = 1;
	while (v >= 10) v /= 10, n++;
	return n;
}

size_t signed_decimal_length(int32_t v)
{
	return v < 0 ? 1 + decimal_length(static_cast<uint64_t>(-static_cast<int64_t>(v)))
	             : decimal_length(static_cast<uint64_t>(v));
}

bool has_shingle_size(uint8_t kind)
{
	return kind != MH_KIND_SET;
}

// A cursor over the literal; remembers where it stopped for error messages.
struct Cursor
{
	const char *text;
	size_t at;

	bool literal(const char *expected)
	{
		const size_t n = std::strlen(expected);
		if (std::strncmp(text + at, expected, n) != 0) return false;
		at += n;
		return true;
	}

	// Canonical unsigned decimal: "0" or no leading zero, no sign, no overflow.
	bool unsigned_number(uint64_t *value)
	{
		const char *p = text + at;
		if (*p < '0' || *p > '9') return false;
		if (*p == '0' && p[1] >= '0' && p[1] <= '9') return false;
		uint64_t v = 0;
		size_t n = 0;
		while (p[n] >= '0' && p[n] <= '9')
		{
			const unsigned digit = static_cast<unsigned>(p[n] - '0');
			if (v > (std::numeric_limits<uint64_t>::max() - digit) / 10) return false;
			v = v * 10 + digit;
			n++;
		}
		at += n;
		*value = v;
		return true;
	}

	bool signed_number(int32_t *value)
	{
		const bool negative = text[at] == '-';
		const size_t start = at;
		if (negative) at++;
		uint64_t magnitude;
		if (!unsigned_number(&magnitude) || (negative && magnitude == 0) ||
		    magnitude > (negative ? 2147483648ULL : 2147483647ULL))
		{
			at = start;
			return false;
		}
		*value = negative ? static_cast<int32_t>(-static_cast<int64_t>(magnitude))
		                  : static_cast<int32_t>(magnitude);
		return true;
	}

	bool hex_value(uint32_t *value)
	{
		uint32_t v = 0;
		for (int k = 0; k < 8; k++)
		{
			const char c = text[at + k];
			unsigned digit;
			if (c >= '0' && c <= '9')
				digit = static_cast<unsigned>(c - '0');
			else if (c >= 'a' && c <= 'f')
				digit = static_cast<unsigned>(c - 'a' + 10);
			else
				return false;
			v = (v << 4) | digit;
		}
		at += 8;
		*value = v;
		return true;
	}
};

// A canonical number within [min, max]; out of range, the cursor is put
// back on the number so the error points at it.
MhStatus bounded_number(Cursor &c, uint64_t min, uint64_t max, MhStatus out_of_range,
                        uint64_t *value)
{
	const size_t at = c.at;
	if (!c.unsigned_number(value)) return MH_PARSE_BAD_NUMBER;
	if (*value < min || *value > max)
	{
		c.at = at;
		return out_of_range;
	}
	return MH_OK;
}

MhStatus fail(const Cursor &c, MhStatus status, size_t *error_offset)
{
	if (error_offset != nullptr) *error_offset = c.at;
	return status;
}

} // namespace

extern "C"
{

	size_t mh_text_length(const MhSummary *summary) noexcept
	{
		const MhParams &p = summary->params;
		size_t n = std::strlen("v1:") + std::strlen(mh_kind_name(p.kind)) + 1;
		if (has_shingle_size(p.kind)) n += std::strlen("k=:") + decimal_length(p.shingle_size);
		n += std::strlen("seed=:") + signed_decimal_length(p.seed);
		n += std::strlen("size=:") + decimal_length(summary->distinct_shingles);
		n += std::strlen("n=:") + decimal_length(p.num_perm);
		return n + 8 * static_cast<size_t>(p.num_perm);
	}

	MhStatus mh_format_text(const MhSummary *summary, const uint32_t *values, char *out,
	                        size_t out_size) noexcept
	{
		const MhParams &p = summary->params;
		if (out_size < mh_text_length(summary) + 1) return MH_ERR_BUFFER_TOO_SMALL;
		int written;
		const char size_mark = (summary->flags & MH_FLAG_SIZE_ESTIMATED) ? '~' : '=';
		if (has_shingle_size(p.kind))
			written = std::snprintf(
			    out, out_size, "v%d:%s:k=%u:seed=%d:size%c%llu:n=%u:", MH_FORMAT_VERSION,
			    mh_kind_name(p.kind), static_cast<unsigned>(p.shingle_size), p.seed, size_mark,
			    static_cast<unsigned long long>(summary->distinct_shingles), p.num_perm);
		else
			written = std::snprintf(
			    out, out_size, "v%d:%s:seed=%d:size%c%llu:n=%u:", MH_FORMAT_VERSION,
			    mh_kind_name(p.kind), p.seed, size_mark,
			    static_cast<unsigned long long>(summary->distinct_shingles), p.num_perm);
		if (written < 0) return MH_ERR_INTERNAL;
		char *hex = out + written;
		for (uint32_t i = 0; i < p.num_perm; i++)
			for (int k = 0; k < 8; k++) *hex++ = kHexDigits[(values[i] >> (28 - 4 * k)) & 0xF];
		*hex = '\0';
		return MH_OK;
	}

	MhStatus mh_parse_text(const char *text, MhSummary *summary, uint32_t *values,
	                       uint32_t values_capacity, size_t *error_offset) noexcept
	{
		return minhash::guarded([&]() -> MhStatus {
			MH_INJECTION_POINT("mh_parse_text");
			Cursor c{text, 0};
			uint64_t number;
			if (!c.literal("v")) return fail(c, MH_PARSE_BAD_PREFIX, error_offset);
			const size_t version_at = c.at;
			if (!c.unsigned_number(&number)) return fail(c, MH_PARSE_BAD_VERSION, error_offset);
			if (number != MH_FORMAT_VERSION)
			{
				c.at = version_at;
				return fail(c, MH_PARSE_UNKNOWN_VERSION, error_offset);
			}
			if (!c.literal(":")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);

			MhParams &p = summary->params;
			p = MhParams();
			summary->flags = 0;
			if (c.literal("words:"))
				p.kind = MH_KIND_WORDS;
			else if (c.literal("chars:"))
				p.kind = MH_KIND_CHARS;
			else if (c.literal("set:"))
				p.kind = MH_KIND_SET;
			else
				return fail(c, MH_PARSE_UNKNOWN_KIND, error_offset);

			if (has_shingle_size(p.kind))
			{
				if (!c.literal("k=")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);
				const MhStatus status = bounded_number(c, MH_MIN_SHINGLE_SIZE, MH_MAX_SHINGLE_SIZE,
				                                       MH_ERR_SHINGLE_SIZE_RANGE, &number);
				if (status != MH_OK) return fail(c, status, error_offset);
				p.shingle_size = static_cast<uint16_t>(number);
				if (!c.literal(":")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);
			}
			if (!c.literal("seed=")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);
			if (!c.signed_number(&p.seed)) return fail(c, MH_PARSE_BAD_NUMBER, error_offset);
			if (!c.literal(":size")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);
			if (c.literal("~"))
				summary->flags |= MH_FLAG_SIZE_ESTIMATED;
			else if (!c.literal("="))
				return fail(c, MH_PARSE_BAD_FIELD, error_offset);
			if (!c.unsigned_number(&summary->distinct_shingles))
				return fail(c, MH_PARSE_BAD_NUMBER, error_offset);
			if ((summary->flags & MH_FLAG_SIZE_ESTIMATED) && summary->distinct_shingles == 0)
				return fail(c, MH_PARSE_ESTIMATED_EMPTY, error_offset);
			if (!c.literal(":n=")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);
			{
				const MhStatus status = bounded_number(c, MH_MIN_NUM_PERM, MH_MAX_NUM_PERM,
				                                       MH_ERR_NUM_PERM_RANGE, &number);
				if (status != MH_OK) return fail(c, status, error_offset);
				p.num_perm = static_cast<uint32_t>(number);
			}
			if (!c.literal(":")) return fail(c, MH_PARSE_BAD_FIELD, error_offset);

			const size_t hex_length = std::strlen(text + c.at);
			if (hex_length != 8 * static_cast<size_t>(p.num_perm))
				return fail(c, MH_PARSE_COUNT_MISMATCH, error_offset);
			if (values == nullptr) return MH_OK; // first pass: the caller sizes the result
			if (values_capacity < p.num_perm) return MH_ERR_BUFFER_TOO_SMALL;
			for (uint32_t i = 0; i < p.num_perm; i++)
			{
				if (!c.hex_value(&values[i])) return fail(c, MH_PARSE_BAD_HEX, error_offset);
				if (summary->distinct_shingles == 0 && values[i] != MH_EMPTY_VALUE)
				{
					c.at -= 8;
					return fail(c, MH_PARSE_EMPTY_NOT_MAX, error_offset);
				}
			}
			return MH_OK;
		});
	}

} // extern "C"
