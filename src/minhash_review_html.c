/*
 * minhash_review_html.c
 *	  The review page's renderer (review_pair_html): one member beside its
 *	  pivot as HTML, for near_dupe_review_html.  It matches the two texts as
 *	  highlight() does (minhash_explain.c), then draws them.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "funcapi.h"
#include "lib/stringinfo.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/tuplestore.h"

#include "minhash.h"
#include "minhash_explain.h"

/*
 * review_pair_html: one member beside its pivot for a review page, built so
 * that a production's largest documents still give a page a browser opens
 * at once.  Besides highlight()'s marks:
 *
 *	- the words of one side that no chunk covers are runs, each a
 *	  <span class="only" id="ANCHOR-pN"> (pivot) or -mN (member), and a list
 *	  of differences links to them: a pivot run and a member run between the
 *	  same two chunks (or the same end of the text) are one replacement, any
 *	  other pivot run is removed text and member run inserted text.  Text
 *	  between words (spacing, punctuation) is never a difference, as it
 *	  never counts in a resemblance either;
 *	- a chunk longer than fold_bytes shows its first and last words with the
 *	  words between them in a <details> element, folded (no script).  The
 *	  words cut off are counted on the pivot's side and used on both, so a
 *	  folded chunk is the same words on both sides;
 *	- each side gets a budget of bytes of escaped text.  A side over it
 *	  leaves the middles of its folded chunks out, then, if still over, ends
 *	  where the budget does; a note at that place says what is missing, and
 *	  pivot_cut / member_cut count the document's bytes not on the page.
 */

/* A run of words of one side that no chunk covers. */
typedef struct ReviewRun
{
	uint64		first;			/* word numbers, inclusive */
	uint64		last;
	uint32		prev_chunk;		/* chunk number before it, 0 if none */
	uint32		next_chunk;		/* after it, 0 if none */
	uint32		number;			/* 1-based, in the side's order */
	int64		partner;		/* the other side's run it replaces, or -1 */
	bool		shown;			/* its anchor is on the page */
} ReviewRun;

/* One chunk on one side, in that side's order. */
typedef struct ReviewChunk
{
	uint64		start;			/* first word on this side */
	uint64		words;
	uint32		number;			/* highlight()'s number */
	uint64		head_words;		/* folded: words shown before the fold */
	uint64		tail_words;		/* and after it; 0 and 0: not folded */
} ReviewChunk;

typedef struct ReviewSide
{
	const ExplainText *text;
	ReviewChunk *chunks;
	uint64		chunk_count;
	ReviewRun  *runs;
	uint64		run_count;
	char		letter;			/* 'p' pivot, 'm' member */
} ReviewSide;

/* Bytes data[0 .. length) takes once escaped. */
static uint64
escaped_length(const char *data, size_t length)
{
	uint64		total = length;

	for (size_t i = 0; i < length; i++)
	{
		switch (data[i])
		{
			case '&':
				total += 4;
				break;
			case '<':
			case '>':
				total += 3;
				break;
			case '"':
			case '\'':
				total += 4;
				break;
			default:
				break;
		}
	}
	return total;
}

/*
 * The longest prefix of data[0 .. length) whose escaped form fits in
 * `room` bytes, ending on a character boundary.
 */
static size_t
prefix_fitting(const char *data, size_t length, uint64 room)
{
	uint64		used = 0;
	size_t		i = 0;

	while (i < length)
	{
		uint64		cost = escaped_length(data + i, 1);

		if (used + cost > room)
			break;
		used += cost;
		i++;
	}
	while (i > 0 && i < length && (((unsigned char) data[i]) & 0xC0) == 0x80)
		i--;
	return i;
}

static int
compare_review_chunks(const void *x, const void *y)
{
	uint64		a = ((const ReviewChunk *) x)->start;
	uint64		b = ((const ReviewChunk *) y)->start;

	return a < b ? -1 : (a > b ? 1 : 0);
}

/* The runs of one side: the words between its chunks (sorted by start). */
static void
review_runs(ReviewSide *side)
{
	uint64		words = side->text->words.count;
	uint64		at = 0;

	side->runs = palloc_extended(sizeof(ReviewRun) * (side->chunk_count + 1), MCXT_ALLOC_HUGE);
	side->run_count = 0;
	for (uint64 k = 0; k <= side->chunk_count; k++)
	{
		uint64		until = k < side->chunk_count ? side->chunks[k].start : words;

		if (until > at)
		{
			ReviewRun  *run = &side->runs[side->run_count++];

			run->first = at;
			run->last = until - 1;
			run->prev_chunk = k > 0 ? side->chunks[k - 1].number : 0;
			run->next_chunk = k < side->chunk_count ? side->chunks[k].number : 0;
			run->number = (uint32) side->run_count;
			run->partner = -1;
			run->shown = false;
		}
		if (k < side->chunk_count)
			at = side->chunks[k].start + side->chunks[k].words;
	}
}

/* Runs ordered by their neighbours, to pair the two sides' runs. */
static int
compare_runs_by_neighbours(const void *x, const void *y)
{
	const ReviewRun *a = *(ReviewRun *const *) x;
	const ReviewRun *b = *(ReviewRun *const *) y;

	if (a->prev_chunk != b->prev_chunk)
		return a->prev_chunk < b->prev_chunk ? -1 : 1;
	if (a->next_chunk != b->next_chunk)
		return a->next_chunk < b->next_chunk ? -1 : 1;
	return a->number < b->number ? -1 : (a->number > b->number ? 1 : 0);
}

/* A pivot run and a member run between the same two chunks replace one another. */
static void
pair_runs(ReviewSide *pivot, ReviewSide *member)
{
	ReviewRun **sorted;
	uint64		count = member->run_count;

	if (count == 0 || pivot->run_count == 0)
		return;
	sorted = palloc_extended(sizeof(ReviewRun *) * count, MCXT_ALLOC_HUGE);
	for (uint64 k = 0; k < count; k++)
		sorted[k] = &member->runs[k];
	qsort(sorted, count, sizeof(ReviewRun *), compare_runs_by_neighbours);
	for (uint64 k = 0; k < pivot->run_count; k++)
	{
		ReviewRun  *run = &pivot->runs[k];
		uint64		low = 0,
					high = count;

		CHECK_FOR_INTERRUPTS();
		while (low < high)
		{
			uint64		middle = low + (high - low) / 2;
			ReviewRun  *m = sorted[middle];

			if (m->prev_chunk < run->prev_chunk ||
				(m->prev_chunk == run->prev_chunk && m->next_chunk < run->next_chunk))
				low = middle + 1;
			else
				high = middle;
		}
		for (; low < count && sorted[low]->prev_chunk == run->prev_chunk &&
			 sorted[low]->next_chunk == run->next_chunk; low++)
		{
			if (sorted[low]->partner < 0)
			{
				run->partner = sorted[low] - member->runs;
				sorted[low]->partner = k;
				break;
			}
		}
	}
	pfree(sorted);
}

/* Append text escaped, and count the escaped bytes. */
static void
review_append(StringInfo out, const char *data, size_t length, uint64 *used)
{
	int			before = out->len;

	minhash_append_escaped(out, data, length, HIGHLIGHT_HTML);
	*used += (uint64) (out->len - before);
}

/* Byte offsets of a side: where word w begins / ends. */
#define WORD_BEGIN(side, w) ((side)->text->words.begins[(w)])
#define WORD_END(side, w) ((side)->text->words.ends[(w)])

/* Escaped bytes of a side's chunk as the page shows it; elide: without the fold's middle. */
static uint64
chunk_cost(const ReviewSide *side, const ReviewChunk *chunk, bool elide)
{
	const char *data = side->text->data;
	uint32		begin = WORD_BEGIN(side, chunk->start);
	uint32		end = WORD_END(side, chunk->start + chunk->words - 1);

	if (chunk->head_words == 0 || !elide)
		return escaped_length(data + begin, end - begin) + 80;
	{
		uint32		head_end = WORD_END(side, chunk->start + chunk->head_words - 1);
		uint32		tail_begin = WORD_BEGIN(side, chunk->start + chunk->words - chunk->tail_words);

		return escaped_length(data + begin, head_end - begin) +
			escaped_length(data + tail_begin, end - tail_begin) + 160;
	}
}

/*
 * One side as HTML within `budget` escaped bytes; returns the document's
 * bytes left off the page.
 */
static uint64
review_render(ReviewSide *side, const char *anchor, int64 budget, StringInfo out)
{
	const ExplainText *t = side->text;
	const char *data = t->data;
	uint64		full = escaped_length(data, t->length);
	bool		elide = (int64) full > budget;
	uint64		used = 0;
	uint64		cut = 0;
	uint32		at = 0;
	uint64		c = 0,
				r = 0;
	bool		stopped = false;

	while (!stopped && (c < side->chunk_count || r < side->run_count))
	{
		bool		is_chunk = r >= side->run_count ||
			(c < side->chunk_count && side->chunks[c].start < side->runs[r].first);
		uint64		first = is_chunk ? side->chunks[c].start : side->runs[r].first;
		uint64		last = is_chunk ? side->chunks[c].start + side->chunks[c].words - 1 : side->runs[r].last;
		uint32		begin = WORD_BEGIN(side, first);
		uint32		end = WORD_END(side, last);
		uint64		gap = escaped_length(data + at, begin - at);

		CHECK_FOR_INTERRUPTS();
		/* the text before it: spacing and punctuation */
		if ((int64) (used + gap) > budget)
			break;
		review_append(out, data + at, begin - at, &used);
		at = begin;
		if (is_chunk)
		{
			ReviewChunk *chunk = &side->chunks[c++];
			uint64		cost = chunk_cost(side, chunk, elide);

			if ((int64) (used + cost) > budget)
				break;
			appendStringInfo(out, "<mark data-chunk=\"%u\">", chunk->number);
			if (chunk->head_words == 0)
				review_append(out, data + begin, end - begin, &used);
			else
			{
				uint32		head_end = WORD_END(side, chunk->start + chunk->head_words - 1);
				uint32		tail_begin = WORD_BEGIN(side, chunk->start + chunk->words - chunk->tail_words);
				uint64		hidden = chunk->words - chunk->head_words - chunk->tail_words;

				review_append(out, data + begin, head_end - begin, &used);
				if (elide)
				{
					appendStringInfo(out, "<span class=\"elided\">[&hellip; " UINT64_FORMAT " words of this shared passage not shown: page size cap]</span>", hidden);
					cut += tail_begin - head_end;
				}
				else
				{
					appendStringInfo(out, "<details class=\"fold\"><summary>&hellip; " UINT64_FORMAT " more shared words</summary>", hidden);
					review_append(out, data + head_end, tail_begin - head_end, &used);
					appendStringInfoString(out, "</details>");
				}
				review_append(out, data + tail_begin, end - tail_begin, &used);
			}
			appendStringInfoString(out, "</mark>");
		}
		else
		{
			ReviewRun  *run = &side->runs[r++];
			uint64		cost = escaped_length(data + begin, end - begin);

			/* no anchor: the pivot alone, where nothing is a difference */
			if (anchor[0] != '\0')
				appendStringInfo(out, "<span class=\"only\" id=\"%s-%c%u\">", anchor, side->letter, run->number);
			run->shown = anchor[0] != '\0';
			if ((int64) (used + cost) > budget)
			{
				size_t		room = prefix_fitting(data + begin, end - begin,
												  (uint64) Max(budget - (int64) used, 0));

				review_append(out, data + begin, room, &used);
				at = begin + (uint32) room;
				stopped = true;
			}
			else
				review_append(out, data + begin, end - begin, &used);
			if (anchor[0] != '\0')
				appendStringInfoString(out, "</span>");
			if (stopped)
				break;
		}
		at = end;
	}
	if (!stopped && at < t->length && (int64) (used + escaped_length(data + at, t->length - at)) <= budget)
	{
		review_append(out, data + at, t->length - at, &used);
		at = (uint32) t->length;
	}
	if (at < t->length)
	{
		cut += t->length - at;
		appendStringInfo(out, "<span class=\"cut\">[page size cap: the last " UINT64_FORMAT " bytes of this document are not shown]</span>",
						 (uint64) (t->length - at));
	}
	return cut;
}

/* A short excerpt of a run, escaped, for the list of differences. */
static void
review_excerpt(StringInfo out, const ReviewSide *side, const ReviewRun *run)
{
	uint32		begin = WORD_BEGIN(side, run->first);
	uint32		end = WORD_END(side, run->last);
	size_t		shown = prefix_fitting(side->text->data + begin, end - begin, 60);
	uint64		ignored = 0;

	appendStringInfoString(out, "&ldquo;");
	review_append(out, side->text->data + begin, shown, &ignored);
	if (shown < end - begin)
		appendStringInfoString(out, "&hellip;");
	appendStringInfo(out, "&rdquo; <span class=\"words\">(" UINT64_FORMAT " word%s)</span>",
					 run->last - run->first + 1, run->last == run->first ? "" : "s");
}

/* A link to a run's anchor, or a plain label when the page cap left it off. */
static void
review_link(StringInfo out, const char *anchor, const ReviewSide *side, const ReviewRun *run, const char *label)
{
	if (run->shown)
		appendStringInfo(out, "<a href=\"#%s-%c%u\">%s</a>", anchor, side->letter, run->number, label);
	else
		appendStringInfo(out, "<span class=\"unshown\">%s (not shown: page size cap)</span>", label);
}

/* One line of the list of differences: a member run, or a pivot run removed. */
typedef struct ReviewItem
{
	uint64		position;		/* in the member's words */
	uint64		order;			/* ties: member runs after the removed text before them */
	const ReviewRun *run;
	bool		removed;
} ReviewItem;

static int
compare_review_items(const void *x, const void *y)
{
	const ReviewItem *a = (const ReviewItem *) x;
	const ReviewItem *b = (const ReviewItem *) y;

	if (a->position != b->position)
		return a->position < b->position ? -1 : 1;
	return a->order < b->order ? -1 : (a->order > b->order ? 1 : 0);
}

/*
 * The list of differences, at most max_items lines, in the member's order:
 * removed text where the chunk before it ends in the member.
 */
static int64
review_differences(StringInfo out, const char *anchor, const ReviewSide *pivot, const ReviewSide *member,
				   int max_items)
{
	uint64	   *chunk_end = palloc_extended(sizeof(uint64) * (member->chunk_count + 1), MCXT_ALLOC_HUGE);
	ReviewItem *items = palloc_extended(sizeof(ReviewItem) * (pivot->run_count + member->run_count + 1),
										MCXT_ALLOC_HUGE);
	int64		total = 0;

	chunk_end[0] = 0;
	for (uint64 k = 0; k < member->chunk_count; k++)
		chunk_end[member->chunks[k].number] = member->chunks[k].start + member->chunks[k].words;
	for (uint64 k = 0; k < member->run_count; k++)
	{
		items[total].position = member->runs[k].first;
		items[total].order = 2 * k + 1;
		items[total].run = &member->runs[k];
		items[total++].removed = false;
	}
	for (uint64 k = 0; k < pivot->run_count; k++)
	{
		if (pivot->runs[k].partner >= 0)
			continue;
		items[total].position = chunk_end[pivot->runs[k].prev_chunk];
		items[total].order = 2 * k;
		items[total].run = &pivot->runs[k];
		items[total++].removed = true;
	}
	qsort(items, total, sizeof(ReviewItem), compare_review_items);

	appendStringInfoString(out, "<ol class=\"differences\">");
	for (int64 k = 0; k < total && k < max_items; k++)
	{
		const ReviewRun *run = items[k].run;

		CHECK_FOR_INTERRUPTS();
		if (items[k].removed)
		{
			appendStringInfoString(out, "<li class=\"removed\">");
			review_link(out, anchor, pivot, run, "removed");
			appendStringInfoString(out, " from the pivot: ");
			review_excerpt(out, pivot, run);
		}
		else if (run->partner >= 0)
		{
			const ReviewRun *old = &pivot->runs[run->partner];

			appendStringInfoString(out, "<li class=\"replaced\">");
			review_link(out, anchor, member, run, "replaced");
			appendStringInfoString(out, ": ");
			review_excerpt(out, member, run);
			appendStringInfoString(out, " in place of ");
			review_link(out, anchor, pivot, old, "the pivot&#39;s");
			appendStringInfoChar(out, ' ');
			review_excerpt(out, pivot, old);
		}
		else
		{
			appendStringInfoString(out, "<li class=\"inserted\">");
			review_link(out, anchor, member, run, "inserted");
			appendStringInfoString(out, ": ");
			review_excerpt(out, member, run);
		}
		appendStringInfoString(out, "</li>");
	}
	if (total > max_items)
		appendStringInfo(out, "<li class=\"more\">and " INT64_FORMAT " more differences</li>", total - (int64) max_items);
	appendStringInfoString(out, "</ol>");
	pfree(items);
	pfree(chunk_end);
	return total;
}

/* Decide which chunks fold, from the pivot's side, for both sides alike. */
static void
review_folds(ReviewSide *pivot, ReviewSide *member, int32 fold_bytes)
{
	uint32		part = (uint32) fold_bytes / 4;

	for (uint64 k = 0; k < pivot->chunk_count; k++)
	{
		ReviewChunk *chunk = &pivot->chunks[k];
		uint32		begin = WORD_BEGIN(pivot, chunk->start);
		uint32		end = WORD_END(pivot, chunk->start + chunk->words - 1);
		uint64		head = 0,
					tail = 0;

		chunk->head_words = chunk->tail_words = 0;
		if (end - begin <= (uint32) fold_bytes)
			continue;
		while (head < chunk->words && WORD_END(pivot, chunk->start + head) - begin <= part)
			head++;
		while (tail < chunk->words && end - WORD_BEGIN(pivot, chunk->start + chunk->words - 1 - tail) <= part)
			tail++;
		head = Max(head, 1);
		tail = Max(tail, 1);
		if (head + tail + 1 >= chunk->words)
			continue;
		chunk->head_words = head;
		chunk->tail_words = tail;
	}
	/* the member's chunks are the same, in another order: find each by number */
	for (uint64 k = 0; k < member->chunk_count; k++)
	{
		ReviewChunk *chunk = &member->chunks[k];
		const ReviewChunk *same = NULL;

		/* the pivot's chunks are in number order: number N is at N - 1 */
		same = &pivot->chunks[chunk->number - 1];
		chunk->head_words = same->head_words;
		chunk->tail_words = same->tail_words;
	}
}

PG_FUNCTION_INFO_V1(minhash_review_pair_html);
/*
 * review_pair_html(pivot, member, min_words, anchor, pivot_budget,
 * member_budget, fold_bytes, max_differences)
 */
Datum
minhash_review_pair_html(PG_FUNCTION_ARGS)
{
	uint32		min_words = minhash_check_min_words(PG_GETARG_INT32(2));
	char	   *anchor = text_to_cstring(PG_GETARG_TEXT_PP(3));
	int64		pivot_budget = PG_GETARG_INT64(4);
	int64		member_budget = PG_GETARG_INT64(5);
	int32		fold_bytes = PG_GETARG_INT32(6);
	int32		max_differences = PG_GETARG_INT32(7);
	TupleDesc	tupdesc;
	Tuplestorestate *store;
	ExplainText a,
				b;
	MhChunkStats stats;
	MhChunk    *chunks;
	ReviewSide	pivot,
				member;
	StringInfoData pivot_html,
				member_html,
				differences;
	uint64		pivot_cut,
				member_cut;
	int64		difference_count;
	Datum		values[8];
	bool		nulls[8] = {false, false, false, false, false, false, false, false};

	for (const char *c = anchor; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '-'))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("anchor must be lower-case letters, digits and hyphens"),
					 errhint("Name the member's place on the page like \"m3\".")));
	if (pivot_budget < 0 || member_budget < 0 || fold_bytes < 16 || max_differences < 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("budgets and max_differences must not be negative, fold_bytes at least 16"),
				 errhint("Give byte counts for the budgets, and a fold length of some words.")));
	store = minhash_materialize_result(fcinfo, &tupdesc);

	minhash_explain_text(minhash_fetch_text(PG_GETARG_DATUM(0)), &a);
	minhash_explain_text(minhash_fetch_text(PG_GETARG_DATUM(1)), &b);
	chunks = palloc_extended(sizeof(MhChunk) * mh_chunks_capacity(a.words.count, b.words.count, min_words),
							 MCXT_ALLOC_HUGE);
	minhash_match_texts(&a, &b, min_words, MH_MATCH_LITERAL, &stats, chunks);

	pivot.text = &a;
	member.text = &b;
	pivot.letter = 'p';
	member.letter = 'm';
	pivot.chunk_count = member.chunk_count = stats.chunks;
	pivot.chunks = palloc_extended(sizeof(ReviewChunk) * (stats.chunks + 1), MCXT_ALLOC_HUGE);
	member.chunks = palloc_extended(sizeof(ReviewChunk) * (stats.chunks + 1), MCXT_ALLOC_HUGE);
	for (uint64 k = 0; k < stats.chunks; k++)
	{
		pivot.chunks[k].start = chunks[k].a_start;
		member.chunks[k].start = chunks[k].b_start;
		pivot.chunks[k].words = member.chunks[k].words = chunks[k].words;
		pivot.chunks[k].number = member.chunks[k].number = (uint32) k + 1;
	}
	/* chunks come in the pivot's order; the member's may differ */
	qsort(member.chunks, member.chunk_count, sizeof(ReviewChunk), compare_review_chunks);
	review_folds(&pivot, &member, fold_bytes);
	review_runs(&pivot);
	review_runs(&member);
	pair_runs(&pivot, &member);

	/*
	 * The list first, to take its size off the member's budget; then again
	 * once the sides are drawn, linking only to the runs that are shown.
	 */
	initStringInfo(&differences);
	review_differences(&differences, anchor, &pivot, &member, max_differences);
	member_budget = Max(member_budget - (int64) differences.len, 0);
	initStringInfo(&pivot_html);
	initStringInfo(&member_html);
	pivot_cut = review_render(&pivot, anchor, pivot_budget, &pivot_html);
	member_cut = review_render(&member, anchor, member_budget, &member_html);
	resetStringInfo(&differences);
	difference_count = review_differences(&differences, anchor, &pivot, &member, max_differences);

	values[0] = PointerGetDatum(minhash_utf8_to_text(pivot_html.data, pivot_html.len));
	values[1] = PointerGetDatum(minhash_utf8_to_text(member_html.data, member_html.len));
	values[2] = PointerGetDatum(minhash_utf8_to_text(differences.data, differences.len));
	values[3] = Int64GetDatum(difference_count);
	values[4] = Int32GetDatum((int32) stats.common_words);
	values[5] = Float8GetDatum(stats.s_l);
	values[6] = Int64GetDatum((int64) pivot_cut);
	values[7] = Int64GetDatum((int64) member_cut);
	tuplestore_putvalues(store, tupdesc, values, nulls);
	return (Datum) 0;
}
