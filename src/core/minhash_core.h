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
	MH_PARSE_UNKNOWN_FLAGS,		/* binary: an undefined flag bit is set */

	/* explaining a match */
	MH_ERR_TOO_LARGE,			/* input beyond what the core handles */
	MH_ERR_INTERRUPTED,			/* the interrupt poll asked to stop */
	MH_ERR_OUT_OF_MEMORY,		/* the core's scratch space */
	MH_ERR_ARGUMENT,			/* min_words < 1, unknown matching, bad confidence */
	MH_ERR_UNKNOWN_LAYOUT		/* an index layout version this library does not know */
} MhStatus;

/* Parameter validation shared by every constructor and by parsing. */
MhStatus	mh_check_params(const MhParams *params) MH_NOEXCEPT;

/*
 * The one test of a resemblance threshold: a number in [0, 1], not NaN.
 * MH_ERR_THRESHOLD_RANGE otherwise.
 */
MhStatus	mh_check_threshold(double threshold) MH_NOEXCEPT;

/*
 * The poll of the long computations (grouping, explaining a match, sorting
 * shingle hashes, choosing LSH parameters), called every few milliseconds;
 * when it returns non-zero they stop and return MH_ERR_INTERRUPTED, their
 * work lost.  So it answers yes only for what ends the call anyway (a
 * cancel), and it must not longjmp: the glue's version only reads
 * PostgreSQL's interrupt flags, and the glue processes the interrupt once
 * the core has returned.
 */
typedef int (*MhInterruptPoll) (void *arg);

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
 * Start another document in a builder mh_builder_init set up: same
 * parameters, at most max_elements shingles, which may not need a larger
 * buffer than the builder was initialized for (MH_ERR_BUFFER_TOO_SMALL).
 * Gives the signature a fresh builder would, without computing the
 * permutations again: for callers that build many signatures in a row.
 */
MhStatus	mh_builder_reset(void *builder, uint64_t max_elements) MH_NOEXCEPT;

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

/*
 * The class of a document by its words (minhash_document_class): none (its
 * signature is empty), only words of decimal digits (Unicode Nd: "12",
 * "555", "٣"), or words.  A signature holds hashes and cannot tell the
 * second from the third; the text can.
 */
typedef enum MhDocumentClass
{
	MH_CLASS_NO_WORDS = 0,
	MH_CLASS_NUMBERS_ONLY = 1,
	MH_CLASS_WORDS = 2
} MhDocumentClass;

/*
 * Update *document_class (start with MH_CLASS_NO_WORDS) with the words of
 * text[*position ..], fed in pieces like mh_tokenize.  Once MH_CLASS_WORDS
 * nothing later changes it, so the caller may stop there.
 */
MhStatus	mh_classify_text(const char *text, size_t length, size_t *position, size_t piece,
							 uint8_t *document_class) MH_NOEXCEPT;

/* --- comparing ----------------------------------------------------------- */

/* MH_OK when two signatures were built the same way. */
MhStatus	mh_params_match(const MhParams *a, const MhParams *b) MH_NOEXCEPT;

/* Number of positions where the two signatures hold the same value. */
uint32_t	mh_agreeing_positions(const uint32_t *a, const uint32_t *b,
								  uint32_t num_perm) MH_NOEXCEPT;

/*
 * The byte sketch of a signature: the low byte of each value (num_perm
 * bytes into out).  Two equal values have equal low bytes, so the positions
 * where a's sketch agrees with b's values are at least the positions where
 * a and b agree: mh_sketch_agreeing_bound(sketch of a, b) >=
 * mh_agreeing_positions(a, b), with each unequal pair of values agreeing by
 * chance 1 time in 256.  A quarter of a signature's bytes, it lets pairs be
 * ruled out without shipping whole signatures between nodes.
 */
void		mh_byte_sketch(const uint32_t *values, uint32_t num_perm, uint8_t *out) MH_NOEXCEPT;
uint32_t	mh_sketch_agreeing_bound(const uint8_t *sketch, const uint32_t *values,
									 uint32_t num_perm) MH_NOEXCEPT;

/*
 * Non-zero for a signature of no shingles (size 0: a document without
 * words, an empty set).  Such a signature resembles nothing, itself
 * included: the rule of every comparison below, of the groupings, the pairs
 * and the index keys.
 */
int			mh_is_empty(const MhSummary *summary) MH_NOEXCEPT;

/*
 * Estimated resemblance: agreeing positions / num_perm; 0 when either set
 * is empty.
 */
double		mh_resemblance(const MhSummary *a, const uint32_t *a_values,
						   const MhSummary *b, const uint32_t *b_values) MH_NOEXCEPT;

/*
 * The near-duplicate test of %, %>, %~ and resembles(): non-zero when
 * neither set is empty and mh_resemblance reaches threshold.
 */
int			mh_resembles(const MhSummary *a, const uint32_t *a_values,
						 const MhSummary *b, const uint32_t *b_values,
						 double threshold) MH_NOEXCEPT;

/*
 * Estimated |A ∩ B| / |A| from the resemblance and the two set sizes; 0 when
 * either is empty.
 */
double		mh_containment(double resemblance, uint64_t size_a,
						   uint64_t size_b) MH_NOEXCEPT;

/* --- LSH banding ------------------------------------------------------------ */

#define MH_MAX_BANDS MH_MAX_NUM_PERM

/*
 * The most positions two signatures of num_perm values can disagree on while
 * their resemblance (agreeing / num_perm, in double precision) is still at
 * least threshold.  num_perm when every pair qualifies (threshold 0).
 * Computed in integers (the rounding of the quotient decided exactly), so
 * that the layouts built from it are the same on every build.
 */
uint32_t	mh_max_disagreements(double threshold, uint32_t num_perm) MH_NOEXCEPT;

/*
 * The one pigeonhole layout, used by every path that must miss no pair at a
 * threshold (the index's default layout, lsh_index_layout and the SQL
 * grouping, the in-memory grouping, the trigger's locks).  Two signatures
 * whose resemblance reaches threshold disagree on at most D =
 * max_disagreements positions, so of D + 1 bands some band agrees in every
 * row, and of bands > D bands at least bands - D agree.  bands = D + 1 +
 * spare_bands (at most num_perm), rows = num_perm / bands, band i covering
 * values [i * rows, (i + 1) * rows).  Spare bands make a pair at the
 * threshold share more keys, so that short keys colliding by chance rarely
 * make a candidate; without them the bands are the longest the guarantee
 * allows.  MH_ERR_BANDS_RANGE when no layout can guarantee it (D >= num_perm:
 * threshold 0).
 */
typedef struct MhPigeonholeLayout
{
	uint32_t	bands;
	uint32_t	rows;
	uint32_t	max_disagreements;	/* D */
	uint32_t	min_bands;		/* bands - D: keys a pair at the threshold shares */
} MhPigeonholeLayout;

MhStatus	mh_pigeonhole_layout(double threshold, uint32_t num_perm, uint32_t spare_bands,
								 MhPigeonholeLayout *layout) MH_NOEXCEPT;

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
 * Probability that a pair of resemblance s agrees in at least min_bands of
 * the bands: P[Binomial(bands, s^r) >= min_bands].
 */
double		mh_lsh_probability_at_least(double s, uint32_t bands, uint32_t rows,
										uint32_t min_bands) MH_NOEXCEPT;

/*
 * The layout minimizing fp_weight * (false positives) + fn_weight * (false
 * negatives), each the integral of the miss probability on its side of the
 * threshold (datasketch's method), over every bands * rows <= num_perm
 * (some 78,000 layouts at 8,192); polls as it goes (poll
 * may be NULL).
 */
MhStatus	mh_lsh_params(double threshold, uint32_t num_perm, double fp_weight, double fn_weight,
						  MhInterruptPoll poll, void *poll_arg, uint32_t *bands, uint32_t *rows,
						  double *false_positive, double *false_negative) MH_NOEXCEPT;

/*
 * The approximate layout for a recall (recall => of near_dupe_groups and
 * near_dupe_pairs, gin_minhash_approx_ops indexes): of every layout of bands
 * * rows <= num_perm values whose S-curve (a pair being a candidate when one
 * band agrees) reaches recall at resemblance mh_recall_target(threshold),
 * the one with the fewest chance candidates, measured as the integral of the
 * S-curve over [0, threshold] (datasketch's false-positive weight); for each
 * rows the fewest bands that reach it; ties to fewer bands, then to longer
 * ones.  A pair below the target is found with lower probability.
 * MH_ERR_ARGUMENT for a recall outside (0, 1), MH_ERR_THRESHOLD_RANGE for a
 * threshold outside (0, 1], MH_ERR_NUM_PERM_RANGE, MH_ERR_BANDS_RANGE when
 * no layout reaches the recall (too few values).  Computed in integers
 * only (recall_layout.cpp), so every build returns the same layout: an
 * approximate index's keys depend on it, so it never changes.
 */
#define MH_RECALL_MARGIN 0.05

/* threshold + MH_RECALL_MARGIN, but at most halfway from threshold to 1. */
double		mh_recall_target(double threshold) MH_NOEXCEPT;

MhStatus	mh_recall_layout(double threshold, double recall, uint32_t num_perm,
							 uint32_t *bands, uint32_t *rows) MH_NOEXCEPT;

/* --- index layouts ---------------------------------------------------------- */

/*
 * What an index's keys are, by layout version (its `layout` option), one
 * table for each operator class.  PostgreSQL stores only the opclass options
 * a user gave, so an index without the option is the default version,
 * forever, and the defaults of every other option come from its layout's
 * entry here, not from the running library's taste.  A layout, once shipped,
 * never changes; a new formula or new defaults make a new layout version.
 *
 * gin_minhash_ops (exact), layout 1: threshold 0.8, key_bits 20, D + 3 bands
 * for a threshold (spare_bands 2; with no pigeonhole layout, at threshold 0,
 * num_perm bands of one row), and each key is the band key (mh_band_keys)
 * folded to 32 bits, key ^ key >> 32, of which the low key_bits are kept.
 *
 * gin_minhash_approx_ops (approximate), layout 1: bands and rows of
 * mh_recall_layout(threshold, recall), threshold 0.8 and recall 0.99 when
 * not given, keys folded as in exact layout 1, 24 bits by default (every key
 * a query shares by chance is a candidate to recheck: a million rows of 26
 * bands give about 1.5 chance candidates a query, where 20 bits gave some
 * 25).
 */
#define MH_INDEX_LAYOUT_DEFAULT 1	/* an index without the option */
#define MH_INDEX_LAYOUT_LATEST 1	/* the newest layout this library knows */
#define MH_APPROX_LAYOUT_DEFAULT 1
#define MH_APPROX_LAYOUT_LATEST 1

/* An exact layout version's fixed choices. */
typedef struct MhIndexLayoutVersion
{
	double		threshold;		/* default threshold option */
	uint32_t	key_bits;		/* default key_bits option */
	uint32_t	spare_bands;	/* for mh_pigeonhole_layout */
} MhIndexLayoutVersion;

/* An approximate layout version's fixed choices. */
typedef struct MhApproxLayoutVersion
{
	double		threshold;		/* default threshold option */
	double		recall;			/* default recall option */
	uint32_t	key_bits;		/* default key_bits option */
} MhApproxLayoutVersion;

/* MH_ERR_UNKNOWN_LAYOUT for a version this library cannot build or read. */
MhStatus	mh_index_layout_version(uint32_t version, MhIndexLayoutVersion *out) MH_NOEXCEPT;
MhStatus	mh_approx_layout_version(uint32_t version, MhApproxLayoutVersion *out) MH_NOEXCEPT;

/* An exact index's options as stored; 0 (threshold: negative) when not given. */
typedef struct MhIndexOptions
{
	uint32_t	layout;			/* version */
	double		threshold;
	uint32_t	bands;			/* bands and rows come together */
	uint32_t	rows;
	uint32_t	key_bits;
} MhIndexOptions;

/* An approximate index's options as stored; 0 (threshold, recall: negative) when not given. */
typedef struct MhApproxIndexOptions
{
	uint32_t	layout;			/* version */
	double		threshold;
	double		recall;
	uint32_t	key_bits;
} MhApproxIndexOptions;

/* The keys an index makes of a signature of num_perm values. */
typedef struct MhIndexLayout
{
	uint32_t	version;
	uint32_t	bands;
	uint32_t	rows;
	uint32_t	key_bits;		/* 1 .. 32 */
	uint32_t	approximate;	/* version is an approximate layout's */
} MhIndexLayout;

/*
 * The layout of an index with these options for signatures of num_perm
 * values.  MH_ERR_UNKNOWN_LAYOUT for an unknown version, MH_ERR_BANDS_RANGE
 * when given bands and rows do not fit or no layout reaches the recall,
 * MH_ERR_ARGUMENT for other options out of range.
 */
MhStatus	mh_index_layout(const MhIndexOptions *options, uint32_t num_perm,
							MhIndexLayout *layout) MH_NOEXCEPT;
MhStatus	mh_approx_index_layout(const MhApproxIndexOptions *options, uint32_t num_perm,
								   MhIndexLayout *layout) MH_NOEXCEPT;

/* The layout's keys of a signature, layout->bands of them, ascending. */
MhStatus	mh_index_keys(const MhIndexLayout *layout, const uint32_t *values, uint32_t num_perm,
						  int32_t *keys) MH_NOEXCEPT;

/* --- grouping near-duplicates -------------------------------------------- */

/*
 * The greedy grouping of near_dupe_groups(): signatures[0 .. count) in rank
 * order (best first), each num_perm values, empty[i] non-zero when row i's
 * set is empty.  Walking them in order, a row not yet taken becomes a pivot
 * and takes every row not yet taken that resembles it at threshold
 * (mh_resembles): exactly, candidates coming from band keys or, at low
 * thresholds, prefix tokens (prefix_filter.hpp) that no such pair can miss.  An empty row takes nobody and joins nobody: it is a pivot of
 * its own, whatever the threshold.  Writes pivots[i], the rank of the pivot
 * row i joined (i for a pivot), and resemblance[i], its resemblance to it (1
 * for a pivot, 0 for an empty row, which resembles nothing, itself included).
 *
 * Memory: every array the walk allocates is charged against max_bytes
 * before it is allocated, so it never holds more.  On MH_OK *memory is the
 * most it held at once; on MH_ERR_TOO_LARGE (it would have held more than
 * max_bytes) it is a grant with which these arguments cannot be refused, at
 * most count * (10 * bands + 20) bytes and a little, bands being one more
 * than the positions two rows at the threshold may disagree on.  On
 * MH_ERR_INTERRUPTED and MH_ERR_TOO_LARGE the outputs hold nothing.
 */
MhStatus	mh_group_greedy(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
							uint32_t num_perm, double threshold, uint64_t max_bytes,
							MhInterruptPoll poll, void *poll_arg, uint32_t *pivots,
							double *resemblance, uint64_t *memory) MH_NOEXCEPT;

/*
 * Approximate grouping (near_dupe_groups(..., recall)): the same walk, with
 * candidates from the band keys of the given layout (mh_recall_layout), so
 * that a pair at or above threshold sharing no band key is not compared.
 * Verification and memory as mh_group_greedy's.  MH_ERR_BANDS_RANGE for a
 * layout that does not fit num_perm.
 */
MhStatus	mh_group_greedy_banded(const uint32_t *const *signatures, const uint8_t *empty,
								   uint32_t count, uint32_t num_perm, double threshold,
								   uint32_t bands, uint32_t rows, uint64_t max_bytes,
								   MhInterruptPoll poll, void *poll_arg, uint32_t *pivots,
								   double *resemblance, uint64_t *memory) MH_NOEXCEPT;

/* --- appending to a grouping ------------------------------------------------ */

/*
 * The rows to append of near_dupe_groups_append(), held for probing
 * (band_probe.cpp): signatures[0 .. count), each num_perm values (empty[i]
 * non-zero when row i's set is empty: such a row is never a candidate),
 * keyed by `bands` bands of `rows` values (bands 0: the grouping's exact
 * layout, mh_pigeonhole_layout(threshold, num_perm, 0)).  The signatures
 * and empty flags are the caller's and must outlive the probe.  What it
 * allocates (about 24 bytes a row and band) is charged against max_bytes
 * first: MH_ERR_TOO_LARGE when it would hold more, *memory then a grant
 * that suffices; on MH_OK *memory is what it holds, until
 * mh_band_probe_free.
 */
typedef struct MhBandProbe MhBandProbe;

MhStatus	mh_band_probe_build(const uint32_t *const *signatures, const uint8_t *empty,
								uint32_t count, uint32_t num_perm, double threshold,
								uint32_t bands, uint32_t rows, uint64_t max_bytes,
								MhInterruptPoll poll, void *poll_arg, MhBandProbe **probe,
								uint64_t *memory) MH_NOEXCEPT;

/*
 * The held rows sharing a band key with `values` (num_perm values of a
 * non-empty set) whose resemblance to it is at least the threshold, each
 * once: their numbers into rows[] and their agreeing positions into
 * agreeing[] (room for count each), *found of them, in no set order.
 */
MhStatus	mh_band_probe_find(MhBandProbe *probe, const uint32_t *values, uint32_t *rows,
							   uint32_t *agreeing, uint32_t *found) MH_NOEXCEPT;

/*
 * The greedy walk of mh_group_greedy over the held rows whose pivots[i] is
 * UINT32_MAX on entry (the others are left as they are, and out of every
 * group): for each, its pivot's row number into pivots[] and its
 * resemblance to it into resemblance[] (room for count each).  The groups
 * are those mh_group_greedy (bands 0 at the build) or
 * mh_group_greedy_banded (the build's layout) makes of these rows alone,
 * found with the probe's band keys.  Its bucket lists (at most about 4
 * bytes a held row and band) are charged to the probe's grant.  Having
 * placed nothing: MH_ERR_BANDS_RANGE when the probe has no layout (every
 * held row a candidate), MH_ERR_TOO_LARGE when the lists pass the grant.
 * MH_ERR_INTERRUPTED when poll asks.  The probe may still be probed after.
 */
MhStatus	mh_band_probe_walk(MhBandProbe *probe, MhInterruptPoll poll, void *poll_arg,
							   uint32_t *pivots, double *resemblance) MH_NOEXCEPT;

/* What the probe holds, in bytes. */
uint64_t	mh_band_probe_bytes(const MhBandProbe *probe) MH_NOEXCEPT;

void		mh_band_probe_free(MhBandProbe *probe) MH_NOEXCEPT;

/* --- pairs of near-duplicates -------------------------------------------- */

/*
 * One pair of near_dupe_pairs(): rows a < b, and their agreeing positions,
 * their resemblance times num_perm.
 */
typedef struct MhPair
{
	uint32_t	a;
	uint32_t	b;
	uint32_t	agreeing;
} MhPair;

/*
 * The pairs of near_dupe_pairs(): of signatures[0 .. count), each num_perm
 * values (empty[i] non-zero when row i's set is empty), every pair that
 * agrees on all values of one of `bands` bands of `rows` values and whose
 * resemblance reaches threshold (mh_resembles: no pair has an empty side).  With the layout of
 * mh_pigeonhole_layout(threshold, num_perm, 0) that is every pair at the
 * threshold (found, where those bands are short, by prefix filtering
 * instead: the same pairs); with mh_recall_layout's, each with the
 * probability of its S-curve.  On MH_OK *pairs holds *pair_count pairs sorted by (a, b), in
 * *bytes bytes of mh_large_alloc memory the caller frees with mh_large_free
 * (NULL when there are none).
 *
 * Memory: what it allocates, the band sort (16 bytes a row with a set: an
 * empty row is in no bucket) or the prefix filter's buckets and a nibble a
 * value, and the pairs,
 * is charged against max_bytes before it is allocated, so it never holds
 * more; the prefix filter gives way to the band sort when it would pass
 * max_bytes.  On MH_OK *memory is the most it held at once, the pairs handed
 * over included.  MH_ERR_TOO_LARGE when it would have held more than
 * max_bytes: *memory is what it would then have held (it needs at least
 * that), *pair_count the pairs found before.  On an error the outputs hold
 * nothing else, and no memory stays allocated.
 */
MhStatus	mh_near_pairs(const uint32_t *const *signatures, const uint8_t *empty, uint32_t count,
						  uint32_t num_perm, double threshold, uint32_t bands, uint32_t rows,
						  uint64_t max_bytes, MhInterruptPoll poll, void *poll_arg,
						  MhPair **pairs, uint64_t *pair_count, size_t *bytes,
						  uint64_t *memory) MH_NOEXCEPT;

/*
 * Memory for a large array, in 2 MB pages where the kernel offers them, as
 * the engine keeps its own (quick to give back when a query is cancelled);
 * NULL when there is none.  Free it with mh_large_free and the same size.
 */
void	   *mh_large_alloc(size_t bytes) MH_NOEXCEPT;
void		mh_large_free(void *memory, size_t bytes) MH_NOEXCEPT;

/*
 * The file-backed mode of mh_large_alloc and of the engine's arrays: until
 * mh_spill_end(token), every array of 64 kB or more is a region of the open
 * file fd (read and written, kept by the caller), mapped shared, each
 * region's blocks allocated before it is mapped, the file never longer than
 * max_file_bytes.  Memory allocated in the mode is freed with mh_large_free
 * as any, before or after the mode ends.  Returns the mode's token.
 * mh_spill_failure: why the last allocation in the mode failed, 0 if none
 * did: MH_SPILL_FILE_LIMIT (the file would pass max_file_bytes) or an errno
 * value (posix_fallocate's ENOSPC, mmap's); *file_bytes: the file's largest
 * length so far.
 */
#define MH_SPILL_FILE_LIMIT (-1)
uint32_t	mh_spill_begin(int fd, uint64_t max_file_bytes) MH_NOEXCEPT;
void		mh_spill_end(uint32_t token) MH_NOEXCEPT;
int			mh_spill_failure(uint64_t *file_bytes) MH_NOEXCEPT;

/* --- explaining a match -------------------------------------------------- */

/*
 * The words of a document as the tokenizer sees them (the same words and word
 * hashes minhash() shingles), with where each lies in the text.  The caller
 * owns the arrays, with room for `capacity` words (mh_words_capacity).
 */
typedef struct MhWords
{
	uint64_t   *hashes;			/* XXH3-64 of each folded word */
	uint32_t   *begins;			/* byte offset of the word's first byte */
	uint32_t   *ends;			/* byte offset just past its last byte */
	uint64_t	capacity;
	uint64_t	count;			/* words so far */
} MhWords;

/* Most words `length` bytes of text can hold. */
uint64_t	mh_words_capacity(size_t length) MH_NOEXCEPT;

/*
 * Append the words of text[*position ..] to *words, at least `piece` bytes,
 * stopping at a word boundary, and advance *position (like mh_tokenize).
 * Texts of 4 GB and more are refused (MH_ERR_TOO_LARGE).
 */
MhStatus	mh_words_scan(const char *text, size_t length, size_t *position, size_t piece,
						  MhWords *words) MH_NOEXCEPT;

/*
 * The computations below poll (MhInterruptPoll, above) now and then, and
 * when interrupted change nothing the caller sees.
 */

/*
 * Exact resemblance S_R of two documents' word shingles: |A ∩ B| / |A ∪ B|
 * over the distinct 64-bit shingle hashes minhash(doc, n, shingle_size, seed)
 * samples (fewer than shingle_size words: one shingle of them all).  0 when
 * either has no words, as mh_resemblance estimates it.
 */
MhStatus	mh_exact_resemblance(const uint64_t *words_a, uint64_t count_a,
								 const uint64_t *words_b, uint64_t count_b,
								 uint32_t shingle_size, int32_t seed,
								 MhInterruptPoll poll, void *poll_arg,
								 double *resemblance) MH_NOEXCEPT;

/*
 * Sort values[0 .. count) ascending (as signed integers) and drop repeats:
 * the first *distinct values are then the distinct ones.  A radix sort with
 * scratch space of count values; polls as it goes.  For shingle_hashes().
 */
MhStatus	mh_sort_distinct(int64_t *values, uint64_t count, MhInterruptPoll poll,
							 void *poll_arg, uint64_t *distinct) MH_NOEXCEPT;

/* How common text is counted (seed 000): */
typedef enum MhMatching
{
	MH_MATCH_LITERAL = 0,		/* one-to-one, longest chunks first */
	MH_MATCH_INFORMATION = 1	/* repeats count once, overlaps all count */
} MhMatching;

/* A common chunk: words [a_start, a_start + words) of A equal B's from b_start. */
typedef struct MhChunk
{
	uint64_t	a_start;		/* 0-based word numbers */
	uint64_t	b_start;
	uint64_t	words;
} MhChunk;

typedef struct MhChunkStats
{
	uint64_t	common_words;	/* C */
	uint64_t	longer_words;	/* L */
	uint64_t	shorter_words;	/* S */
	uint64_t	chunks;
	double		s_j;			/* C / (L + S - C); 0 when both are empty */
	double		s_l;			/* C / L; 0 when both are empty */
} MhChunkStats;

/* Most chunks two documents of these word counts can have in common. */
uint64_t	mh_chunks_capacity(uint64_t count_a, uint64_t count_b, uint32_t min_words) MH_NOEXCEPT;

/*
 * The common chunks of at least min_words words and what they add up to.
 * chunks may be NULL; otherwise it receives stats->chunks chunks (literal
 * matching only), ordered by a_start, and must hold mh_chunks_capacity().
 */
MhStatus	mh_chunk_match(const uint64_t *words_a, uint64_t count_a,
						   const uint64_t *words_b, uint64_t count_b,
						   uint32_t min_words, MhMatching matching,
						   MhInterruptPoll poll, void *poll_arg,
						   MhChunkStats *stats, MhChunk *chunks) MH_NOEXCEPT;

/*
 * Clopper-Pearson interval for a proportion: agreeing positions out of
 * num_perm, at the given confidence in (0, 1).
 */
MhStatus	mh_resemblance_interval(uint32_t agreeing, uint32_t num_perm, double confidence,
									double *lower, double *upper) MH_NOEXCEPT;

/* The p-quantile of the Beta(a, b) distribution (a, b > 0, p in [0, 1]). */
double		mh_beta_quantile(double p, double a, double b) MH_NOEXCEPT;

/* The regularized incomplete beta function I_x(a, b). */
double		mh_incomplete_beta(double x, double a, double b) MH_NOEXCEPT;

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

/*
 * The stored value (the glue's MinHash, src/minhash.h): after its 4-byte
 * varlena header, these fields at these byte offsets, each in the machine's
 * byte order, the reserved ones zero.  The glue asserts the offsets.
 */
#define MH_STORED_VERSION_OFFSET 0		/* uint8: MH_FORMAT_VERSION */
#define MH_STORED_KIND_OFFSET 1			/* uint8: MhKind */
#define MH_STORED_FLAGS_OFFSET 2		/* uint8: MH_FLAG_* */
#define MH_STORED_RESERVED_OFFSET 3		/* uint8: zero */
#define MH_STORED_SHINGLE_SIZE_OFFSET 4 /* uint16 */
#define MH_STORED_RESERVED2_OFFSET 6	/* uint16: zero */
#define MH_STORED_SEED_OFFSET 8			/* int32 */
#define MH_STORED_NUM_PERM_OFFSET 12	/* uint32 */
#define MH_STORED_RESERVED3_OFFSET 16	/* uint32: zero (1.0's alignment padding, always zeroed) */
#define MH_STORED_DISTINCT_OFFSET 20	/* uint64 */
#define MH_STORED_VALUES_OFFSET 28		/* num_perm uint32 */

/* Bytes of a stored value after its varlena header. */
size_t		mh_le_image_length(const MhSummary *summary) MH_NOEXCEPT;

/*
 * The stored value after its varlena header as a little-endian machine holds
 * it: on such a machine, exactly the stored bytes.  btree order and hashing
 * run over these bytes, so that their order is the same on every machine.
 */
MhStatus	mh_write_le_image(const MhSummary *summary, const uint32_t *values,
							  unsigned char *out, size_t out_size) MH_NOEXCEPT;

/* "words", "chars" or "set" */
const char *mh_kind_name(uint8_t kind) MH_NOEXCEPT;

/* --- union of signatures (minhash_union) --------------------------------- */

/*
 * acc[i] = min(acc[i], values[i]): acc becomes the signature of the union of
 * the two sets (both built with the same parameters).  MH_EMPTY_VALUE is the
 * identity.
 */
void		mh_union_into(uint32_t *acc, const uint32_t *values, uint32_t num_perm) MH_NOEXCEPT;

/*
 * Estimated number of distinct elements of the set a signature's values
 * summarize, from the values alone: (n - 1) / sum(value / 2^32) - 1.
 * Relative error about 1 / sqrt(n - 2).  0 for an empty signature or n < 2.
 */
double		mh_estimate_cardinality(const uint32_t *values, uint32_t num_perm) MH_NOEXCEPT;

/*
 * Size recorded for a union: the larger of its largest part and the rounded
 * estimate from its values.  Independent of the order parts are combined in.
 */
uint64_t	mh_union_size(const uint32_t *values, uint32_t num_perm,
						  uint64_t largest_part) MH_NOEXCEPT;

#ifdef __cplusplus
}
#endif

#endif							/* MINHASH_CORE_H */
