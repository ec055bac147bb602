/*
 * minhash_ops.c
 *	  Equality and a total order on signatures, for btree and hash opclasses
 *	  (GROUP BY, DISTINCT, UNIQUE).  Two signatures are equal when they are
 *	  the same bytes: same parameters, same size, same values.  Unlike
 *	  resemblance, comparing differently built signatures is no error here:
 *	  they are simply not equal.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/builtins.h"

#include "minhash.h"

/* The stored bytes after the varlena header. */
static inline const unsigned char *
payload(const MinHash *sig, size_t *length)
{
	*length = VARSIZE(sig) - VARHDRSZ;
	return (const unsigned char *) sig + VARHDRSZ;
}

static int
minhash_compare(const MinHash *a, const MinHash *b)
{
	size_t		la,
				lb;
	const unsigned char *pa = payload(a, &la);
	const unsigned char *pb = payload(b, &lb);
	int			order = memcmp(pa, pb, Min(la, lb));

	if (order != 0)
		return order;
	return la < lb ? -1 : (la > lb ? 1 : 0);
}

#define MINHASH_COMPARISON(name, test) \
PG_FUNCTION_INFO_V1(name); \
Datum \
name(PG_FUNCTION_ARGS) \
{ \
	int			order = minhash_compare(PG_GETARG_MINHASH_P(0), PG_GETARG_MINHASH_P(1)); \
	PG_RETURN_BOOL(test); \
}

MINHASH_COMPARISON(minhash_eq, order == 0)
MINHASH_COMPARISON(minhash_ne, order != 0)
MINHASH_COMPARISON(minhash_lt, order < 0)
MINHASH_COMPARISON(minhash_le, order <= 0)
MINHASH_COMPARISON(minhash_gt, order > 0)
MINHASH_COMPARISON(minhash_ge, order >= 0)

PG_FUNCTION_INFO_V1(minhash_cmp);
Datum
minhash_cmp(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT32(minhash_compare(PG_GETARG_MINHASH_P(0), PG_GETARG_MINHASH_P(1)));
}

PG_FUNCTION_INFO_V1(minhash_hash);
Datum
minhash_hash(PG_FUNCTION_ARGS)
{
	size_t		length;
	const unsigned char *bytes = payload(PG_GETARG_MINHASH_P(0), &length);

	return hash_any(bytes, (int) length);
}

PG_FUNCTION_INFO_V1(minhash_hash_extended);
Datum
minhash_hash_extended(PG_FUNCTION_ARGS)
{
	size_t		length;
	const unsigned char *bytes = payload(PG_GETARG_MINHASH_P(0), &length);

	return hash_any_extended(bytes, (int) length, PG_GETARG_INT64(1));
}
