/*
 * minhash_compare.c
 *	  Comparing signatures: resemblance(), the % predicate, the <%> distance,
 *	  and the containment estimate.  (The per-query form is in
 *	  minhash_query.c.)
 */
#include "postgres.h"

#include "minhash.h"

/* Estimated resemblance of two signatures; an error unless comparable. */
double
minhash_signature_resemblance(const MinHash *a, const MinHash *b)
{
	MhSummary	sa,
				sb;

	minhash_get_summary(a, &sa);
	minhash_get_summary(b, &sb);
	if (mh_params_match(&sa.params, &sb.params) != MH_OK)
		minhash_report_mismatch(&sa.params, &sb.params);
	return mh_resemblance(&sa, a->values, &sb, b->values);
}

/* A signature of no words, which resembles nothing (mh_is_empty). */
bool
minhash_signature_is_empty(const MinHash *sig)
{
	MhSummary	summary;

	minhash_get_summary(sig, &summary);
	return mh_is_empty(&summary) != 0;
}

/*
 * The near-duplicate test of % and %> (so of resembles(), the flagging
 * trigger and a gin_minhash_ops scan's recheck): resemblance at least
 * threshold, never for an empty signature (mh_resembles), also at threshold
 * 0.  Signatures built with other parameters (kind, number of
 * values, shingle size or seed; an empty one too, whose header says how it
 * was built) are refused with the mismatch error, as the measures refuse
 * them: "false" would read as "not a near-duplicate" when nothing was
 * compared, and a column of mixed signatures would give a sequential scan
 * and an index scan, which compares only the rows sharing band keys with
 * the query, silently different answers.  The planner's estimate of both
 * operators reads the column's statistics through a test of its own that
 * cannot fail (minhash_selectivity.c).
 */
bool
minhash_is_near_duplicate(const MinHash *a, const MinHash *b, double threshold)
{
	MhSummary	sa,
				sb;

	minhash_get_summary(a, &sa);
	minhash_get_summary(b, &sb);
	if (mh_params_match(&sa.params, &sb.params) != MH_OK)
		minhash_report_mismatch(&sa.params, &sb.params);
	return mh_resembles(&sa, a->values, &sb, b->values, threshold) != 0;
}

PG_FUNCTION_INFO_V1(minhash_resemblance);
/* resemblance(a, b): the fraction of agreeing positions, estimating S_R */
Datum
minhash_resemblance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(minhash_signature_resemblance(PG_GETARG_MINHASH_P(0), PG_GETARG_MINHASH_P(1)));
}

PG_FUNCTION_INFO_V1(minhash_distance);
/* a <%> b: 1 - resemblance, the estimated Jaccard distance */
Datum
minhash_distance(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(1.0 - minhash_signature_resemblance(PG_GETARG_MINHASH_P(0), PG_GETARG_MINHASH_P(1)));
}

PG_FUNCTION_INFO_V1(minhash_similar);
/*
 * a % b: resemblance at or above minhash.threshold; an error for
 * signatures built differently (minhash_is_near_duplicate).  Reads a
 * setting, so the SQL function is STABLE, not IMMUTABLE: the same arguments
 * can give another answer after SET, and an index or a cached plan must not
 * assume otherwise.
 */
Datum
minhash_similar(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(minhash_is_near_duplicate(PG_GETARG_MINHASH_P(0), PG_GETARG_MINHASH_P(1),
											 minhash_similarity_threshold));
}

PG_FUNCTION_INFO_V1(minhash_containment);
/*
 * containment(a, b): estimated fraction of a's shingles that are in b; 0
 * when either is empty (mh_containment)
 */
Datum
minhash_containment(PG_FUNCTION_ARGS)
{
	MinHash    *a = PG_GETARG_MINHASH_P(0);
	MinHash    *b = PG_GETARG_MINHASH_P(1);
	double		resemblance = minhash_signature_resemblance(a, b);

	PG_RETURN_FLOAT8(mh_containment(resemblance, a->distinct_shingles, b->distinct_shingles));
}
