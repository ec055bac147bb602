/*
 * minhash_explain.h
 *	  What the explain functions (minhash_explain.c) share with the review
 *	  page's renderer (minhash_review_html.c): a text tokenized for matching,
 *	  the matcher, and the escaping both mark texts with.
 */
#ifndef MINHASH_EXPLAIN_H
#define MINHASH_EXPLAIN_H

#include "lib/stringinfo.h"

#include "minhash.h"

/* A text as UTF-8 and its words. */
typedef struct ExplainText
{
	const char *data;
	size_t		length;
	MhWords		words;
} ExplainText;

/* How highlight() marks a chunk. */
typedef enum HighlightFormat
{
	HIGHLIGHT_HTML,				/* <mark data-chunk="N">...</mark>, the rest escaped */
	HIGHLIGHT_TEXT				/* [N>...<N], the text as it is */
} HighlightFormat;

extern void minhash_explain_text(text *doc, ExplainText *out);
extern uint32 minhash_check_min_words(int32 min_words);
extern void minhash_match_texts(const ExplainText *a, const ExplainText *b, uint32 min_words,
								MhMatching matching, MhChunkStats *stats, MhChunk *chunks);
extern text *minhash_utf8_to_text(const char *data, size_t length);
extern void minhash_append_escaped(StringInfo out, const char *data, size_t length, HighlightFormat format);

#endif							/* MINHASH_EXPLAIN_H */
