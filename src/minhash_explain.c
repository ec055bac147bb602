/*
 * minhash_explain.c
 *	  Explaining a match between two texts (seed 000): the exact resemblance
 *	  S_R that a signature estimates, the chunk measures S_J and S_L
 *	  (chunk_similarity), the common chunks themselves, and both texts with
 *	  the chunks marked (highlight).
 *
 * Both texts are tokenized by the core exactly as minhash() tokenizes them,
 * a piece at a time with an interrupt check in between; the core then works
 * on the word hashes and polls PostgreSQL's flags for a cancel (without
 * calling PostgreSQL; minhash_glue_shared.c) so that a long comparison can be
 * cancelled, and is not disturbed by interrupts that do not end the query.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "minhash.h"
#include "minhash_explain.h"

/* Bytes of text tokenized between two interrupt checks. */
#define SCAN_PIECE_BYTES (1024 * 1024)

/*
 * Most words a text may have here: the matcher's scratch space is some
 * 70 bytes a word, so two texts at the limit need about 2.5 GB.
 */
#define EXPLAIN_MAX_WORDS (16 * 1024 * 1024)

/* Room for at least `needed` words (the arrays grow by doubling). */
static void
words_reserve(MhWords *words, uint64 needed)
{
	uint64		capacity = words->capacity;

	if (needed <= capacity)
		return;
	while (capacity < needed)
		capacity = capacity < 1024 ? 1024 : capacity * 2;
	if (words->hashes == NULL)
	{
		words->hashes = palloc_extended(sizeof(uint64) * capacity, MCXT_ALLOC_HUGE);
		words->begins = palloc_extended(sizeof(uint32) * capacity, MCXT_ALLOC_HUGE);
		words->ends = palloc_extended(sizeof(uint32) * capacity, MCXT_ALLOC_HUGE);
	}
	else
	{
		words->hashes = repalloc_huge(words->hashes, sizeof(uint64) * capacity);
		words->begins = repalloc_huge(words->begins, sizeof(uint32) * capacity);
		words->ends = repalloc_huge(words->ends, sizeof(uint32) * capacity);
	}
	words->capacity = capacity;
}

/*
 * Tokenize a text into its words, interruptibly.  A piece of P bytes holds
 * at most P / 2 + 2 words (it ends at the end of a word, however long), so
 * reserving that much before each piece means the core never runs out.
 */
void
minhash_explain_text(text *doc, ExplainText *out)
{
	size_t		position = 0;

	memset(out, 0, sizeof(*out));
	out->data = minhash_text_utf8(doc, &out->length);
	words_reserve(&out->words, Min((uint64) out->length / 6 + 16, mh_words_capacity(out->length)));
	while (position < out->length)
	{
		MhStatus	status;

		CHECK_FOR_INTERRUPTS();
		words_reserve(&out->words, out->words.count + SCAN_PIECE_BYTES / 2 + 2);
		status = mh_words_scan(out->data, out->length, &position, SCAN_PIECE_BYTES, &out->words);
		if (status != MH_OK)
			minhash_report_core_failure(status, "tokenize text");
		if (out->words.count > EXPLAIN_MAX_WORDS)
			ereport(ERROR,
					(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
					 errmsg("text is too long to explain a match"),
					 errdetail("A text may have at most %d words here.", EXPLAIN_MAX_WORDS),
					 errhint("Compare shorter parts of the texts, or their signatures with resemblance().")));
	}
}

/*
 * The word hashes of a text argument, without the text or the words'
 * offsets: all that the measures need.  Freed now, they are not freed by a
 * cancel later, which then ends sooner (and the peak memory is lower).
 */
static void
explain_words_only(Datum datum, ExplainText *out)
{
	text	   *doc = minhash_fetch_text(datum);

	minhash_explain_text(doc, out);
	if (out->data != VARDATA_ANY(doc))
		pfree((char *) out->data);	/* converted to UTF-8 */
	if ((Pointer) doc != DatumGetPointer(datum))
		pfree(doc);
	if (out->words.begins != NULL)
		pfree(out->words.begins);
	if (out->words.ends != NULL)
		pfree(out->words.ends);
	out->words.begins = out->words.ends = NULL;
	out->data = NULL;
	out->length = 0;
}

/* An error for a status of the core's explain functions. */
static void
report_core_status(MhStatus status)
{
	if (status == MH_OK)
		return;
	if (status == MH_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Comparing the two texts needs more memory than is available.")));
	elog(ERROR, "minhash engine failed with status %d", (int) status);
}

uint32
minhash_check_min_words(int32 min_words)
{
	if (min_words < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_words must be at least 1"),
				 errdetail("The value given was %d.", min_words)));
	return (uint32) min_words;
}

static MhMatching
parse_matching(text *matching)
{
	char	   *name = text_to_cstring(matching);

	if (strcmp(name, "literal") == 0)
		return MH_MATCH_LITERAL;
	if (strcmp(name, "information") == 0)
		return MH_MATCH_INFORMATION;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized matching: \"%s\"", minhash_echo_prefix(name)),
			 errhint("Use \"literal\" (text matched one-to-one) or \"information\" (repeated text counts once).")));
	return MH_MATCH_LITERAL;	/* keep compiler quiet */
}

/*
 * Match two texts' words; chunks (literal only) may be NULL.  The core polls
 * for a cancel (minhash_cancel_pending) and stops only for one.
 */
void
minhash_match_texts(const ExplainText *a, const ExplainText *b, uint32 min_words, MhMatching matching,
			MhChunkStats *stats, MhChunk *chunks)
{
	MhStatus	status = mh_chunk_match(a->words.hashes, a->words.count,
										b->words.hashes, b->words.count,
										min_words, matching, minhash_cancel_pending, NULL,
										stats, chunks);

	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	report_core_status(status);
}

/* Literal chunks of two texts; returns how many, in *chunks (palloc'd). */
static uint64
literal_chunks(const ExplainText *a, const ExplainText *b, uint32 min_words, MhChunk **chunks)
{
	MhChunkStats stats;
	uint64		capacity = mh_chunks_capacity(a->words.count, b->words.count, min_words);

	*chunks = palloc_extended(sizeof(MhChunk) * capacity, MCXT_ALLOC_HUGE);
	minhash_match_texts(a, b, min_words, MH_MATCH_LITERAL, &stats, *chunks);
	return stats.chunks;
}

/* UTF-8 bytes back to a text in the database encoding. */
text *
minhash_utf8_to_text(const char *data, size_t length)
{
	char	   *converted = pg_any_to_server(data, (int) length, PG_UTF8);

	if (converted == data)
		return cstring_to_text_with_len(data, (int) length);
	return cstring_to_text(converted);
}

PG_FUNCTION_INFO_V1(minhash_shingle_resemblance);
/*
 * shingle_resemblance(a text, b text, shingle_size int): the exact S_R over
 * the same shingles minhash(doc, n, shingle_size) samples.
 */
Datum
minhash_shingle_resemblance(PG_FUNCTION_ARGS)
{
	int32		shingle_size = PG_GETARG_INT32(2);
	MhParams	params;
	ExplainText a,
				b;
	double		resemblance = 0;
	MhStatus	status;

	memset(&params, 0, sizeof(params));
	params.kind = MH_KIND_WORDS;
	params.num_perm = 1;
	params.shingle_size = (shingle_size < 0 || shingle_size > PG_UINT16_MAX) ? 0 : (uint16) shingle_size;
	minhash_report_params_error(mh_check_params(&params), 1, shingle_size);

	explain_words_only(PG_GETARG_DATUM(0), &a);
	explain_words_only(PG_GETARG_DATUM(1), &b);
	status = mh_exact_resemblance(a.words.hashes, a.words.count, b.words.hashes, b.words.count,
								  params.shingle_size, 0, minhash_cancel_pending, NULL,
								  &resemblance);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	report_core_status(status);
	PG_RETURN_FLOAT8(resemblance);
}

PG_FUNCTION_INFO_V1(minhash_chunk_similarity);
/*
 * chunk_similarity(a, b, min_words, matching): one row of C, L, S, the
 * number of chunks, S_J = C / (L + S - C) and S_L = C / L.
 */
Datum
minhash_chunk_similarity(PG_FUNCTION_ARGS)
{
	uint32		min_words = minhash_check_min_words(PG_GETARG_INT32(2));
	MhMatching	matching = parse_matching(PG_GETARG_TEXT_PP(3));
	TupleDesc	tupdesc;
	Tuplestorestate *store = minhash_materialize_result(fcinfo, &tupdesc);
	ExplainText a,
				b;
	MhChunkStats stats;
	Datum		values[6];
	bool		nulls[6] = {false, false, false, false, false, false};

	explain_words_only(PG_GETARG_DATUM(0), &a);
	explain_words_only(PG_GETARG_DATUM(1), &b);
	minhash_match_texts(&a, &b, min_words, matching, &stats, NULL);

	values[0] = Int32GetDatum((int32) stats.common_words);
	values[1] = Int32GetDatum((int32) stats.longer_words);
	values[2] = Int32GetDatum((int32) stats.shorter_words);
	values[3] = Int32GetDatum((int32) stats.chunks);
	values[4] = Float8GetDatum(stats.s_j);
	values[5] = Float8GetDatum(stats.s_l);
	tuplestore_putvalues(store, tupdesc, values, nulls);
	return (Datum) 0;
}

PG_FUNCTION_INFO_V1(minhash_common_chunks);
/*
 * common_chunks(a, b, min_words): the literal chunks, in the order of a,
 * with 1-based word numbers in both texts and the chunk as written in a.
 */
Datum
minhash_common_chunks(PG_FUNCTION_ARGS)
{
	uint32		min_words = minhash_check_min_words(PG_GETARG_INT32(2));
	TupleDesc	tupdesc;
	Tuplestorestate *store = minhash_materialize_result(fcinfo, &tupdesc);
	ExplainText a,
				b;
	MhChunk    *chunks;
	uint64		count;

	minhash_explain_text(minhash_fetch_text(PG_GETARG_DATUM(0)), &a);
	minhash_explain_text(minhash_fetch_text(PG_GETARG_DATUM(1)), &b);
	count = literal_chunks(&a, &b, min_words, &chunks);
	for (uint64 k = 0; k < count; k++)
	{
		const MhChunk *chunk = &chunks[k];
		uint32		begin = a.words.begins[chunk->a_start];
		uint32		end = a.words.ends[chunk->a_start + chunk->words - 1];
		Datum		values[4];
		bool		nulls[4] = {false, false, false, false};

		CHECK_FOR_INTERRUPTS();
		values[0] = Int32GetDatum((int32) chunk->a_start + 1);
		values[1] = Int32GetDatum((int32) chunk->b_start + 1);
		values[2] = Int32GetDatum((int32) chunk->words);
		values[3] = PointerGetDatum(minhash_utf8_to_text(a.data + begin, end - begin));
		tuplestore_putvalues(store, tupdesc, values, nulls);
	}
	return (Datum) 0;
}

static HighlightFormat
parse_format(text *format)
{
	char	   *name = text_to_cstring(format);

	if (strcmp(name, "html") == 0)
		return HIGHLIGHT_HTML;
	if (strcmp(name, "text") == 0)
		return HIGHLIGHT_TEXT;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized highlight format: \"%s\"", minhash_echo_prefix(name)),
			 errhint("Use \"html\" or \"text\".")));
	return HIGHLIGHT_HTML;		/* keep compiler quiet */
}

/* Append text, HTML-escaped when asked. */
void
minhash_append_escaped(StringInfo out, const char *data, size_t length, HighlightFormat format)
{
	if (format == HIGHLIGHT_TEXT)
	{
		appendBinaryStringInfo(out, data, (int) length);
		return;
	}
	for (size_t i = 0; i < length; i++)
	{
		switch (data[i])
		{
			case '&':
				appendStringInfoString(out, "&amp;");
				break;
			case '<':
				appendStringInfoString(out, "&lt;");
				break;
			case '>':
				appendStringInfoString(out, "&gt;");
				break;
			case '"':
				appendStringInfoString(out, "&quot;");
				break;
			case '\'':
				appendStringInfoString(out, "&#39;");
				break;
			default:
				appendStringInfoChar(out, data[i]);
		}
	}
}

/* One chunk's place in one text, and its number (1-based, in a's order). */
typedef struct MarkedSpan
{
	uint32		begin;
	uint32		end;
	uint32		number;
} MarkedSpan;

static int
compare_spans(const void *x, const void *y)
{
	uint32		a = ((const MarkedSpan *) x)->begin;
	uint32		b = ((const MarkedSpan *) y)->begin;

	return a < b ? -1 : (a > b ? 1 : 0);
}

/* The text with its spans marked; spans do not overlap. */
static text *
marked_text(const ExplainText *t, MarkedSpan *spans, uint64 count, HighlightFormat format)
{
	StringInfoData out;
	uint32		at = 0;

	qsort(spans, count, sizeof(MarkedSpan), compare_spans);
	initStringInfo(&out);
	for (uint64 k = 0; k < count; k++)
	{
		CHECK_FOR_INTERRUPTS();
		minhash_append_escaped(&out, t->data + at, spans[k].begin - at, format);
		if (format == HIGHLIGHT_HTML)
			appendStringInfo(&out, "<mark data-chunk=\"%u\">", spans[k].number);
		else
			appendStringInfo(&out, "[%u>", spans[k].number);
		minhash_append_escaped(&out, t->data + spans[k].begin, spans[k].end - spans[k].begin, format);
		if (format == HIGHLIGHT_HTML)
			appendStringInfoString(&out, "</mark>");
		else
			appendStringInfo(&out, "<%u]", spans[k].number);
		at = spans[k].end;
	}
	minhash_append_escaped(&out, t->data + at, t->length - at, format);
	return minhash_utf8_to_text(out.data, out.len);
}

PG_FUNCTION_INFO_V1(minhash_highlight);
/*
 * highlight(a, b, min_words, format): both texts with each common chunk
 * (as common_chunks() lists them) marked with the same number on both sides.
 */
Datum
minhash_highlight(PG_FUNCTION_ARGS)
{
	uint32		min_words = minhash_check_min_words(PG_GETARG_INT32(2));
	HighlightFormat format = parse_format(PG_GETARG_TEXT_PP(3));
	TupleDesc	tupdesc;
	Tuplestorestate *store = minhash_materialize_result(fcinfo, &tupdesc);
	ExplainText a,
				b;
	MhChunk    *chunks;
	uint64		count;
	MarkedSpan *spans_a,
			   *spans_b;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	minhash_explain_text(minhash_fetch_text(PG_GETARG_DATUM(0)), &a);
	minhash_explain_text(minhash_fetch_text(PG_GETARG_DATUM(1)), &b);
	count = literal_chunks(&a, &b, min_words, &chunks);
	spans_a = palloc_extended(sizeof(MarkedSpan) * (count + 1), MCXT_ALLOC_HUGE);
	spans_b = palloc_extended(sizeof(MarkedSpan) * (count + 1), MCXT_ALLOC_HUGE);
	for (uint64 k = 0; k < count; k++)
	{
		const MhChunk *chunk = &chunks[k];
		uint64		last = chunk->words - 1;

		spans_a[k].begin = a.words.begins[chunk->a_start];
		spans_a[k].end = a.words.ends[chunk->a_start + last];
		spans_b[k].begin = b.words.begins[chunk->b_start];
		spans_b[k].end = b.words.ends[chunk->b_start + last];
		spans_a[k].number = spans_b[k].number = (uint32) k + 1;
	}
	values[0] = PointerGetDatum(marked_text(&a, spans_a, count, format));
	values[1] = PointerGetDatum(marked_text(&b, spans_b, count, format));
	tuplestore_putvalues(store, tupdesc, values, nulls);
	return (Datum) 0;
}
