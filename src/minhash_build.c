/*
 * minhash_build.c
 *	  Building signatures: minhash(text), minhash_char_shingles(text) (and
 *	  minhash_chars(text), its 1.0 spelling), minhash(text[]), and
 *	  shingle_hashes(text) for exact computations.
 *
 * The core never sees PostgreSQL: we size and allocate its state, then feed
 * the document a piece at a time and check for interrupts in between, so a
 * 200 MB document can be cancelled.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "minhash.h"

/* Bytes of text tokenized between two interrupt checks. */
#define FEED_PIECE_BYTES (1024 * 1024)

/* Elements of a set added between two interrupt checks. */
#define FEED_PIECE_ELEMENTS 65536

/*
 * Builders up to this size are kept between the rows of a query (in
 * fn_extra) and reset for the next document: on short documents, making a
 * builder (its permutations, a malloc'd block) cost a fifth of a signature.
 * Longer documents get their own, as before.
 */
#define KEPT_BUILDER_MAX_BYTES (256 * 1024)

typedef struct KeptBuilder
{
	MhParams	params;			/* what it was made for (zero-padded) */
	size_t		size;			/* bytes; 0 = not initialized */
	void	   *builder;		/* in fn_mcxt */
} KeptBuilder;

/*
 * The parameters of a signature, checked (an error names the one out of
 * range).  Shared with the signing trigger (minhash_trigger_sign.c), so that it
 * builds what minhash(text) builds.
 */
MhParams
minhash_text_params(MhKind kind, int32 num_perm, int32 shingle_size, int32 seed)
{
	MhParams	params;
	MhStatus	status;

	memset(&params, 0, sizeof(params));
	params.kind = (uint8) kind;
	params.num_perm = num_perm < 0 ? 0 : (uint32) num_perm;
	params.shingle_size = (shingle_size < 0 || shingle_size > PG_UINT16_MAX) ? 0 : (uint16) shingle_size;
	params.seed = seed;
	status = mh_check_params(&params);
	minhash_report_params_error(status, num_perm, shingle_size);
	return params;
}

/* Allocate and initialize a builder for at most max_elements shingles. */
static void *
builder_create(const MhParams *params, uint64 max_elements)
{
	size_t		size = mh_builder_size(params, max_elements);
	void	   *builder;
	MhStatus	status;

	if (size == 0)				/* parameters were checked: the engine failed */
		elog(ERROR, "could not size minhash builder");
	builder = palloc(size);
	status = mh_builder_init(builder, size, params, max_elements);
	if (status != MH_OK)
		minhash_report_core_failure(status, "initialize minhash builder");
	return builder;
}

/*
 * A builder for one document: the one kept in flinfo->fn_extra, reset, when
 * it is large enough (*kept = true: leave it alone afterwards), else a new
 * one, kept if small enough.
 */
static void *
builder_for_document(FmgrInfo *flinfo, const MhParams *params, uint64 max_elements, bool *kept)
{
	size_t		size = mh_builder_size(params, max_elements);
	KeptBuilder *keep = flinfo != NULL ? (KeptBuilder *) flinfo->fn_extra : NULL;
	MhStatus	status;

	*kept = false;
	if (size == 0)				/* parameters were checked: the engine failed */
		elog(ERROR, "could not size minhash builder");
	if (keep != NULL && keep->size >= size &&
		memcmp(&keep->params, params, sizeof(MhParams)) == 0)
	{
		status = mh_builder_reset(keep->builder, max_elements);
		if (status != MH_OK)
			minhash_report_core_failure(status, "reset minhash builder");
		*kept = true;
		return keep->builder;
	}
	if (flinfo == NULL || size > KEPT_BUILDER_MAX_BYTES)
		return builder_create(params, max_elements);

	if (keep == NULL)
	{
		keep = MemoryContextAllocZero(flinfo->fn_mcxt, sizeof(KeptBuilder));
		flinfo->fn_extra = keep;
	}
	if (keep->builder != NULL)
		pfree(keep->builder);
	keep->size = 0;
	keep->builder = MemoryContextAlloc(flinfo->fn_mcxt, size);
	status = mh_builder_init(keep->builder, size, params, max_elements);
	if (status != MH_OK)
		minhash_report_core_failure(status, "initialize minhash builder");
	memcpy(&keep->params, params, sizeof(MhParams));	/* padding too: compared by memcmp */
	keep->size = size;
	*kept = true;
	return keep->builder;
}

static MinHash *
builder_finish_kept(void *builder, const MhParams *params, bool kept)
{
	MhSummary	summary;
	uint32	   *values = palloc(sizeof(uint32) * params->num_perm);
	MinHash    *sig;
	MhStatus	status = mh_builder_finish(builder, &summary, values);

	if (status != MH_OK)
		minhash_report_core_failure(status, "finish minhash signature");
	sig = minhash_from_summary(&summary, values);
	pfree(values);
	if (!kept)
		pfree(builder);
	return sig;
}

static MinHash *
builder_finish(void *builder, const MhParams *params)
{
	return builder_finish_kept(builder, params, false);
}

/* Tokenize a whole document into the builder, interruptibly. */
static void
feed_document(void *builder, const char *data, size_t length)
{
	size_t		position = 0;

	while (position < length)
	{
		MhStatus	status;

		CHECK_FOR_INTERRUPTS();
		status = mh_builder_feed_text(builder, data, length, &position, FEED_PIECE_BYTES);
		if (status != MH_OK)
			minhash_report_core_failure(status, "tokenize document");
	}
}

/*
 * An upper bound on a document's distinct shingles, which sizes the exact
 * distinct counter: words are separated by at least one byte, and a
 * character is at least one byte.
 */
static uint64
max_shingles(MhKind kind, size_t length)
{
	return kind == MH_KIND_WORDS ? length / 2 + 1 : length + 1;
}

/*
 * The signature of a document (params from minhash_text_params, of kind
 * words or characters).  flinfo, if not NULL, keeps a small builder between
 * the calls made through it.
 */
MinHash *
minhash_sign_text(FmgrInfo *flinfo, text *doc, const MhParams *params)
{
	size_t		length;
	const char *data = minhash_text_utf8(doc, &length);
	bool		kept;
	void	   *builder = builder_for_document(flinfo, params, max_shingles((MhKind) params->kind, length),
											   &kept);

	feed_document(builder, data, length);
	return builder_finish_kept(builder, params, kept);
}

static MinHash *
signature_of_text(FmgrInfo *flinfo, text *doc, MhKind kind, int32 num_perm, int32 shingle_size,
				  int32 seed)
{
	MhParams	params = minhash_text_params(kind, num_perm, shingle_size, seed);

	return minhash_sign_text(flinfo, doc, &params);
}

PG_FUNCTION_INFO_V1(minhash_words);
/* minhash(doc text, num_perm int, shingle_size int, seed int) */
Datum
minhash_words(PG_FUNCTION_ARGS)
{
	PG_RETURN_MINHASH_P(signature_of_text(fcinfo->flinfo, minhash_fetch_text(PG_GETARG_DATUM(0)), MH_KIND_WORDS,
										  PG_GETARG_INT32(1), PG_GETARG_INT32(2),
										  PG_GETARG_INT32(3)));
}

PG_FUNCTION_INFO_V1(minhash_chars);
/*
 * minhash_chars(doc text, q int, num_perm int, seed int): 1.0's builder of
 * character shingles, kept for compatibility (its order differs from
 * minhash()'s; minhash_char_shingles has minhash()'s).
 */
Datum
minhash_chars(PG_FUNCTION_ARGS)
{
	PG_RETURN_MINHASH_P(signature_of_text(fcinfo->flinfo, minhash_fetch_text(PG_GETARG_DATUM(0)), MH_KIND_CHARS,
										  PG_GETARG_INT32(2), PG_GETARG_INT32(1),
										  PG_GETARG_INT32(3)));
}

PG_FUNCTION_INFO_V1(minhash_char_shingles);
/*
 * minhash_char_shingles(doc text, num_perm int, shingle_size int, seed int):
 * minhash_chars with its arguments in minhash()'s order.
 */
Datum
minhash_char_shingles(PG_FUNCTION_ARGS)
{
	PG_RETURN_MINHASH_P(signature_of_text(fcinfo->flinfo, minhash_fetch_text(PG_GETARG_DATUM(0)), MH_KIND_CHARS,
										  PG_GETARG_INT32(1), PG_GETARG_INT32(2),
										  PG_GETARG_INT32(3)));
}

PG_FUNCTION_INFO_V1(minhash_set);
/* minhash(elements text[], num_perm int, seed int): each element as is */
Datum
minhash_set(PG_FUNCTION_ARGS)
{
	ArrayType  *elements = PG_GETARG_ARRAYTYPE_P(0);
	MhParams	params = minhash_text_params(MH_KIND_SET, PG_GETARG_INT32(1), 0, PG_GETARG_INT32(2));
	Datum	   *datums;
	bool	   *nulls;
	int			count;
	void	   *builder;
	MhStatus	status;

	deconstruct_array(elements, TEXTOID, -1, false, TYPALIGN_INT, &datums, &nulls, &count);
	builder = builder_create(&params, (uint64) count);
	for (int i = 0; i < count; i++)
	{
		text	   *element;
		size_t		length;
		const char *data;

		if (nulls[i])
			ereport(ERROR,
					(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
					 errmsg("array of set elements must not contain nulls")));
		if (i % FEED_PIECE_ELEMENTS == 0)
			CHECK_FOR_INTERRUPTS();
		element = DatumGetTextPP(datums[i]);
		data = minhash_text_utf8(element, &length);
		status = mh_builder_add_element(builder, data, length);
		if (status != MH_OK)
			minhash_report_core_failure(status, "add set element");
	}
	PG_RETURN_MINHASH_P(builder_finish(builder, &params));
}

PG_FUNCTION_INFO_V1(minhash_shingle_hashes);
/*
 * shingle_hashes(doc text, shingle_size int, seed int): the distinct 64-bit
 * hashes of a document's word shingles, sorted: the exact set a signature
 * samples, for exact resemblance in SQL.
 */
Datum
minhash_shingle_hashes(PG_FUNCTION_ARGS)
{
	text	   *doc = minhash_fetch_text(PG_GETARG_DATUM(0));
	MhParams	params = minhash_text_params(MH_KIND_WORDS, 1, PG_GETARG_INT32(1), PG_GETARG_INT32(2));
	size_t		length;
	const char *data = minhash_text_utf8(doc, &length);
	uint64		capacity = max_shingles(MH_KIND_WORDS, length);
	int64	   *hashes = palloc_extended(sizeof(int64) * capacity, MCXT_ALLOC_HUGE);
	void	   *builder = builder_create(&params, capacity);
	MhSummary	summary;
	uint32		unused_value;
	uint64		count;
	uint64		distinct = 0;
	Datum	   *datums;
	MhStatus	status;

	if (mh_builder_collect(builder, (uint64 *) hashes, capacity) != MH_OK)
		elog(ERROR, "could not collect shingle hashes");
	feed_document(builder, data, length);
	status = mh_builder_finish(builder, &summary, &unused_value);
	if (status != MH_OK)
		minhash_report_core_failure(status, "finish shingling");
	count = mh_builder_collected(builder);
	pfree(builder);

	/* sorted by the engine, which polls for a cancel (qsort does not) */
	status = mh_sort_distinct(hashes, count, minhash_cancel_pending, NULL, &distinct);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status != MH_OK)
		minhash_report_core_failure(status, "sort shingle hashes");
	datums = palloc_extended(sizeof(Datum) * (distinct + 1), MCXT_ALLOC_HUGE);
	for (uint64 i = 0; i < distinct; i++)
	{
		if (i % FEED_PIECE_ELEMENTS == 0)
			CHECK_FOR_INTERRUPTS();
		datums[i] = Int64GetDatum(hashes[i]);
	}
	PG_RETURN_ARRAYTYPE_P(construct_array(datums, (int) distinct, INT8OID, 8,
										  FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

PG_FUNCTION_INFO_V1(minhash_tokens);
/* minhash_tokens(doc text): the folded words minhash() shingles, in order */
Datum
minhash_tokens(PG_FUNCTION_ARGS)
{
	text	   *doc = minhash_fetch_text(PG_GETARG_DATUM(0));
	size_t		length;
	const char *data = minhash_text_utf8(doc, &length);
	size_t		capacity = mh_tokens_capacity(length);
	char	   *words = palloc_extended(capacity, MCXT_ALLOC_HUGE);
	size_t		words_length = 0;
	size_t		position = 0;
	ArrayBuildState *result = initArrayResult(TEXTOID, CurrentMemoryContext, false);

	while (position < length)
	{
		MhStatus	status;

		CHECK_FOR_INTERRUPTS();
		status = mh_tokenize(data, length, &position, FEED_PIECE_BYTES,
							 words, capacity, &words_length);
		if (status != MH_OK)
			minhash_report_core_failure(status, "tokenize document");
	}
	/* millions of words take seconds: check for interrupts as they go */
	for (size_t at = 0, count = 0; at < words_length; count++)
	{
		size_t		word_length;
		char	   *word;

		if (count % FEED_PIECE_ELEMENTS == 0)
			CHECK_FOR_INTERRUPTS();
		word_length = strlen(words + at);
		/* back to the database encoding, which may fail for folded letters */
		word = pg_any_to_server(words + at, (int) word_length, PG_UTF8);
		accumArrayResult(result, PointerGetDatum(cstring_to_text(word)),
						 false, TEXTOID, CurrentMemoryContext);
		at += word_length + 1;
	}
	PG_RETURN_DATUM(makeArrayResult(result, CurrentMemoryContext));
}

PG_FUNCTION_INFO_V1(minhash_document_class);
/*
 * minhash_document_class(doc text): 'no words', 'numbers only' or 'words',
 * by the words minhash() sees, so that 'no words' is exactly a document
 * whose signature is empty (minhash_size 0).  Stops reading at the first
 * word that is not a number.
 */
Datum
minhash_document_class(PG_FUNCTION_ARGS)
{
	text	   *doc = minhash_fetch_text(PG_GETARG_DATUM(0));
	size_t		length;
	const char *data = minhash_text_utf8(doc, &length);
	size_t		position = 0;
	uint8		document_class = MH_CLASS_NO_WORDS;

	while (position < length && document_class != MH_CLASS_WORDS)
	{
		MhStatus	status;

		CHECK_FOR_INTERRUPTS();
		status = mh_classify_text(data, length, &position, FEED_PIECE_BYTES, &document_class);
		if (status != MH_OK)
			minhash_report_core_failure(status, "classify document");
	}
	switch (document_class)
	{
		case MH_CLASS_NO_WORDS:
			PG_RETURN_TEXT_P(cstring_to_text("no words"));
		case MH_CLASS_NUMBERS_ONLY:
			PG_RETURN_TEXT_P(cstring_to_text("numbers only"));
		default:
			PG_RETURN_TEXT_P(cstring_to_text("words"));
	}
}
