/*
 * minhash_aggregate.c
 *	  minhash_union(a, b) and the minhash_union(sig) aggregate: the signature
 *	  of the union of the sets, the position-wise minimum.
 *
 * The aggregate's state is a plain minhash value, and the same function is
 * its transition and its combine function: a partial aggregate is itself a
 * signature, which parallel workers (and distributed engines) can ship and
 * combine without a serialization function.
 */
#include "postgres.h"

#include "fmgr.h"

#include "minhash.h"

static bool
signature_is_empty(const MinHash *sig)
{
	return sig->distinct_shingles == 0;
}

/* Two signatures with the same header and values. */
static bool
signatures_identical(const MinHash *a, const MinHash *b)
{
	return VARSIZE(a) == VARSIZE(b) && memcmp(a, b, VARSIZE(a)) == 0;
}

/*
 * The union of a with b, written into a when the caller owns a, otherwise
 * into a copy.
 *
 * Its size: the exact size of a union needs the elements, which a signature
 * no longer has.  We record the larger of the parts' sizes (a lower bound)
 * and the cardinality estimate from the union's values (mh_union_size), and
 * set MH_FLAG_SIZE_ESTIMATED.  The result depends only on the parts, not on
 * the order in which they are combined, so a parallel or distributed
 * aggregate gives the same bytes as a serial one.  Two exceptions keep exact
 * answers exact: an empty signature is the identity, and the union of a
 * signature with an identical one is that signature.
 */
static MinHash *
union_signatures(MinHash *a, MinHash *b, bool a_is_ours)
{
	MhSummary	sa,
				sb;
	MinHash    *result;

	minhash_get_summary(a, &sa);
	minhash_get_summary(b, &sb);
	if (mh_params_match(&sa.params, &sb.params) != MH_OK)
		minhash_report_mismatch(&sa.params, &sb.params);

	if (signature_is_empty(b) || signatures_identical(a, b))
		return a;
	if (signature_is_empty(a))
		return b;

	if (a_is_ours)
		result = a;
	else
	{
		result = (MinHash *) palloc(VARSIZE(a));
		memcpy(result, a, VARSIZE(a));
	}
	mh_union_into(result->values, b->values, result->num_perm);
	result->flags |= MH_FLAG_SIZE_ESTIMATED;
	result->distinct_shingles = mh_union_size(result->values, result->num_perm,
											  Max(sa.distinct_shingles, sb.distinct_shingles));
	return result;
}

PG_FUNCTION_INFO_V1(minhash_union);
/*
 * minhash_union(a, b): the signature of the union of two sets.  Also the
 * transition and combine function of the minhash_union aggregate: there the
 * first argument is the state, which lives in the aggregate's memory context
 * and may be updated in place (like float8_accum).  Anywhere else, and when
 * the state had to be detoasted, PG_GETARG gives either the caller's datum
 * (which we must not change) or a fresh copy (which we may).
 */
Datum
minhash_union(PG_FUNCTION_ARGS)
{
	Datum		raw = PG_GETARG_DATUM(0);
	MinHash    *a = PG_GETARG_MINHASH_P(0);
	MinHash    *b = PG_GETARG_MINHASH_P(1);
	bool		a_is_copy = (Pointer) a != DatumGetPointer(raw);
	bool		a_is_ours = a_is_copy || AggCheckCallContext(fcinfo, NULL);

	PG_RETURN_MINHASH_P(union_signatures(a, b, a_is_ours));
}
