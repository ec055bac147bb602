/*
 * minhash_ops.c
 *	  Equality and a total order on signatures, for btree and hash opclasses
 *	  (GROUP BY, DISTINCT, UNIQUE).  Two signatures are equal when they are
 *	  the same bytes: same parameters, same size, same values.  Unlike
 *	  resemblance, comparing differently built signatures is no error here:
 *	  they are simply not equal.
 *
 *	  The order and the hashes are taken over the stored value as a
 *	  little-endian machine holds it (mh_write_le_image): on x86 and ARM the
 *	  stored bytes themselves, as in 1.0, so their indexes stay valid; on a
 *	  big-endian machine a copy with each field's bytes reversed, so that
 *	  ORDER BY, ranges and merge joins over signatures give the same order
 *	  there.  The hash functions feed those bytes to PostgreSQL's hash_any,
 *	  whose result itself depends on the machine's byte order (for every
 *	  type): hashes, like PostgreSQL's own, are the same on machines of one
 *	  byte order.
 */
#include "postgres.h"

#include "common/hashfn.h"
#include "utils/builtins.h"

#include "minhash.h"

/*
 * The bytes to order and hash: the stored bytes after the varlena header on
 * a little-endian machine, a palloc'd little-endian image elsewhere (free
 * it with release_bytes).
 */
static const unsigned char *
le_bytes(const MinHash *sig, size_t *length)
{
#ifdef WORDS_BIGENDIAN
	MhSummary	summary;
	unsigned char *image;

	minhash_get_summary(sig, &summary);
	*length = mh_le_image_length(&summary);
	image = palloc(*length);
	if (mh_write_le_image(&summary, sig->values, image, *length) != MH_OK)
		elog(ERROR, "could not write little-endian image of minhash value");
	return image;
#else
	*length = VARSIZE(sig) - VARHDRSZ;
	return (const unsigned char *) sig + VARHDRSZ;
#endif
}

static inline void
release_bytes(const MinHash *sig, const unsigned char *bytes)
{
	if (bytes != (const unsigned char *) sig + VARHDRSZ)
		pfree(unconstify(unsigned char *, bytes));
}

static int
minhash_compare(const MinHash *a, const MinHash *b)
{
	size_t		la,
				lb;
	const unsigned char *pa = le_bytes(a, &la);
	const unsigned char *pb = le_bytes(b, &lb);
	int			order = memcmp(pa, pb, Min(la, lb));

	if (order == 0)
		order = la < lb ? -1 : (la > lb ? 1 : 0);
	release_bytes(a, pa);
	release_bytes(b, pb);
	return order;
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
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	size_t		length;
	const unsigned char *bytes = le_bytes(sig, &length);
	Datum		hash = hash_any(bytes, (int) length);

	release_bytes(sig, bytes);
	return hash;
}

PG_FUNCTION_INFO_V1(minhash_hash_extended);
Datum
minhash_hash_extended(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	size_t		length;
	const unsigned char *bytes = le_bytes(sig, &length);
	Datum		hash = hash_any_extended(bytes, (int) length, PG_GETARG_INT64(1));

	release_bytes(sig, bytes);
	return hash;
}
