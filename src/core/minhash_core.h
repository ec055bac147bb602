/*
 * minhash_core.h
 *	  The one boundary between the C++17 engine and the PostgreSQL glue.
 *
 * Plain C: POD arguments, status codes, no allocation on the core's side.
 * The glue asks how much memory a builder needs, allocates it, and feeds
 * the document in pieces so that it can check for interrupts in between.
 * Every entry point is noexcept and catches everything.
 */
#ifndef MINHASH_CORE_H
#define MINHASH_CORE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
#define MH_NOEXCEPT noexcept
extern "C"
{
#else
#define MH_NOEXCEPT
#endif

/* What a signature's set is made of. Stored on disk: never renumber. */
typedef enum MhKind
{
	MH_KIND_WORDS = 0,			/* k consecutive words */
	MH_KIND_CHARS = 1,			/* q consecutive characters */
	MH_KIND_SET = 2				/* caller-supplied elements */
} MhKind;

#define MH_FORMAT_VERSION 1

#define MH_MIN_NUM_PERM 1
#define MH_MAX_NUM_PERM 8192
#define MH_MIN_SHINGLE_SIZE 1
#define MH_MAX_SHINGLE_SIZE 64

/* The value a position holds when the set is empty: the identity of min. */
#define MH_EMPTY_VALUE UINT32_MAX

/* flags */
#define MH_FLAG_SIZE_ESTIMATED 0x01 /* too many distinct shingles to count */
#define MH_KNOWN_FLAGS MH_FLAG_SIZE_ESTIMATED

/* How a signature was built: two signatures compare only if these match. */
typedef struct MhParams
{
	uint32_t	num_perm;
	uint8_t		kind;			/* MhKind */
	uint16_t	shingle_size;	/* 0 for MH_KIND_SET */
	int32_t		seed;
} MhParams;

/* Everything a signature stores besides its hash values. */
typedef struct MhSummary
{
	MhParams	params;
	uint8_t		flags;
	uint64_t	distinct_shingles;
} MhSummary;

typedef enum MhStatus
{
	MH_OK = 0,
	MH_ERR_NUM_PERM_RANGE,
	MH_ERR_SHINGLE_SIZE_RANGE,
	MH_ERR_KIND,
	MH_ERR_BUFFER_TOO_SMALL,
	MH_ERR_PARAMS_MISMATCH,
	MH_ERR_BANDS_RANGE,			/* bands < 1, rows < 1, or bands * rows > num_perm */
	MH_ERR_THRESHOLD_RANGE,		/* not a number in [0, 1] */
	MH_ERR_INTERNAL,

	/* text and binary parsing, one code for each problem */
	MH_PARSE_BAD_PREFIX,		/* does not start with "v<version>:" */
	MH_PARSE_BAD_VERSION,		/* version is not a number */
	MH_PARSE_UNKNOWN_VERSION,	/* version we do not know */
	MH_PARSE_UNKNOWN_KIND,
	MH_PARSE_BAD_FIELD,			/* expected "name=" missing or misplaced */
	MH_PARSE_BAD_NUMBER,		/* a field's value is not a canonical integer */
	MH_PARSE_BAD_HEX,			/* a value is not 8 lowercase hex digits */
	MH_PARSE_COUNT_MISMATCH,	/* number of values differs from n */
	MH_PARSE_EMPTY_NOT_MAX,		/* size 0 but a value is not ffffffff */
	MH_PARSE_ESTIMATED_EMPTY,	/* size marked estimated, yet 0 */
	MH_PARSE_TRUNCATED,			/* binary: fewer bytes than the header says */
	MH_PARSE_TRAILING,			/* bytes after the last value */
	MH_PARSE_RESERVED_NONZERO,	/* binary: a reserved byte is set */
	MH_PARSE_UNKNOWN_FLAGS		/* binary: an undefined flag bit is set */
} MhStatus;

/* Parameter validation shared by every constructor and by parsing. */
MhStatus	mh_check_params(const MhParams *params) MH_NOEXCEPT;

/* --- building a signature ------------------------------------------------ */

/*
 * Bytes a builder needs for a document of at most max_elements shingles
 * (an upper bound: words for word shingles, bytes for characters).  The
 * buffer must be 8-byte aligned.  Returns 0 for invalid parameters.
 */
size_t		mh_builder_size(const MhParams *params, uint64_t max_elements) MH_NOEXCEPT;

MhStatus	mh_builder_init(void *builder, size_t size, const MhParams *params,
							uint64_t max_elements) MH_NOEXCEPT;

/*
 * Tokenize text[*position ..] for at least `piece` bytes, stopping at the
 * next word boundary (or the end), and advance *position.  The caller loops
 * until *position == length, checking for interrupts between calls.
 * Invalid UTF-8 bytes separate words, like punctuation.
 */
MhStatus	mh_builder_feed_text(void *builder, const char *text, size_t length,
								 size_t *position, size_t piece) MH_NOEXCEPT;

/* Add one element of a set (MH_KIND_SET): its bytes, taken as they are. */
MhStatus	mh_builder_add_element(void *builder, const char *element,
								   size_t length) MH_NOEXCEPT;

/*
 * Also record every shingle hash, repeats included, in out[0 .. capacity);
 * capacity must be at least the builder's max_elements.  For computing exact
 * resemblance from the same shingles the signature samples.
 */
MhStatus	mh_builder_collect(void *builder, uint64_t *out, uint64_t capacity) MH_NOEXCEPT;

/* How many shingle hashes were recorded so far. */
uint64_t	mh_builder_collected(const void *builder) MH_NOEXCEPT;

/* Write the summary and params.num_perm values. */
MhStatus	mh_builder_finish(void *builder, MhSummary *summary,
							  uint32_t *values) MH_NOEXCEPT;

/* --- tokenizing alone --------------------------------------------------- */

/* Bytes mh_tokenize may write for `length` bytes of text. */
size_t		mh_tokens_capacity(size_t length) MH_NOEXCEPT;

/*
 * The words minhash() sees, folded, each followed by a NUL, appended to
 * out + *out_length (advanced).  Fed in pieces like mh_builder_feed_text.
 */
MhStatus	mh_tokenize(const char *text, size_t length, size_t *position, size_t piece,
						char *out, size_t out_capacity, size_t *out_length) MH_NOEXCEPT;

/* --- comparing ----------------------------------------------------------- */

/* MH_OK when two signatures were built the same way. */
MhStatus	mh_params_match(const MhParams *a, const MhParams *b) MH_NOEXCEPT;

/* Number of positions where the two signatures hold the same value. */
uint32_t	mh_agreeing_positions(const uint32_t *a, const uint32_t *b,
								  uint32_t num_perm) MH_NOEXCEPT;

/*
 * Estimated resemblance: agreeing positions / num_perm; 1 when both sets are
 * empty, 0 when exactly one is.
 */
double		mh_resemblance(const MhSummary *a, const uint32_t *a_values,
						   const MhSummary *b, const uint32_t *b_values) MH_NOEXCEPT;

/* Estimated |A ∩ B| / |A| from the resemblance and the two set sizes. */
double		mh_containment(double resemblance, uint64_t size_a,
						   uint64_t size_b) MH_NOEXCEPT;

/* --- LSH banding ------------------------------------------------------------ */

#define MH_MAX_BANDS MH_MAX_NUM_PERM

/*
 * The most positions two signatures of num_perm values can disagree on while
 * their resemblance (agreeing / num_perm, in double precision) is still at
 * least threshold.  num_perm when every pair qualifies (threshold 0).
 */
uint32_t	mh_max_disagreements(double threshold, uint32_t num_perm) MH_NOEXCEPT;

/*
 * The cheapest layout that finds every pair at or above threshold: if fewer
 * positions disagree than there are bands, some band agrees in every row
 * (pigeonhole).  bands = max_disagreements + 1, rows = num_perm / bands.
 * MH_ERR_BANDS_RANGE when no layout can guarantee it (more bands than values).
 */
MhStatus	mh_guaranteed_layout(double threshold, uint32_t num_perm, uint32_t *bands,
								 uint32_t *rows) MH_NOEXCEPT;

/* Checks bands >= 1, rows >= 1 and bands * rows <= num_perm. */
MhStatus	mh_check_layout(uint32_t bands, uint32_t rows, uint32_t num_perm) MH_NOEXCEPT;

/*
 * One 64-bit key per band: XXH3 of the band's rows (little-endian values)
 * seeded with the band number, so that equal rows in different bands give
 * different keys.  Band i covers values [i * rows, (i + 1) * rows).
 */
MhStatus	mh_band_keys(const uint32_t *values, uint32_t num_perm, uint32_t bands, uint32_t rows,
						 uint64_t *keys) MH_NOEXCEPT;

/* Probability that a pair of resemblance s shares a band: 1 - (1 - s^r)^b. */
double		mh_lsh_probability(double s, uint32_t bands, uint32_t rows) MH_NOEXCEPT;

/*
 * The layout minimizing fp_weight * (false positives) + fn_weight * (false
 * negatives), each the integral of the miss probability on its side of the
 * threshold (datasketch's method), over every bands * rows <= num_perm.
 */
MhStatus	mh_lsh_params(double threshold, uint32_t num_perm, double fp_weight, double fn_weight,
						  uint32_t *bands, uint32_t *rows, double *false_positive,
						  double *false_negative) MH_NOEXCEPT;

/* --- text and binary forms ----------------------------------------------- */

/* Length of the text form, without the terminating NUL. */
size_t		mh_text_length(const MhSummary *summary) MH_NOEXCEPT;

/* Write the text form and a terminating NUL; out holds text_length + 1. */
MhStatus	mh_format_text(const MhSummary *summary, const uint32_t *values,
						   char *out, size_t out_size) MH_NOEXCEPT;

/*
 * Parse the text form.  First call with values == NULL to learn the summary
 * (and so the number of values), then again with room for them.  On error,
 * *error_offset is the byte where the problem was found.
 */
MhStatus	mh_parse_text(const char *text, MhSummary *summary, uint32_t *values,
						  uint32_t values_capacity, size_t *error_offset) MH_NOEXCEPT;

/* Size of the binary form: a fixed header followed by the values. */
size_t		mh_binary_length(const MhSummary *summary) MH_NOEXCEPT;

MhStatus	mh_write_binary(const MhSummary *summary, const uint32_t *values,
							unsigned char *out, size_t out_size) MH_NOEXCEPT;

/* Two-pass like mh_parse_text; validates every byte. */
MhStatus	mh_read_binary(const unsigned char *data, size_t length,
						   MhSummary *summary, uint32_t *values,
						   uint32_t values_capacity) MH_NOEXCEPT;

/* "words", "chars" or "set" */
const char *mh_kind_name(uint8_t kind) MH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* MINHASH_CORE_H */
