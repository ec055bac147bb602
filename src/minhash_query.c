/*
 * minhash_query.c
 *	  minhash_query: a signature with the resemblance threshold a query asks
 *	  for.  It is the right operand of the IMMUTABLE operator %>, the form of
 *	  the near-duplicate predicate that needs no session setting, so that an
 *	  index (and a foreign server) can serve it.  resembles(a, b, t) is
 *	  written in SQL as a %> minhash_query(b, t) and inlined by the planner.
 *
 * Text form: the threshold, a colon, then the signature's text form:
 *	  0.7:v1:words:k=5:seed=0:size=93:n=128:...
 * Binary form: the threshold as a float8, then the signature's binary form.
 */
#include "postgres.h"

#include "fmgr.h"
#include "libpq/pqformat.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "minhash.h"

/* Layout: threshold, then the signature (itself a varlena), 8-byte aligned. */
typedef struct MinHashQuery
{
	int32		vl_len_;
	int32		reserved;		/* zero */
	float8		threshold;
	char		signature[FLEXIBLE_ARRAY_MEMBER];
} MinHashQuery;

#define QUERY_SIGNATURE(q) ((MinHash *) (q)->signature)

/* A minhash_query of a signature and a threshold its caller has checked. */
static MinHashQuery *
make_query(const MinHash *sig, double threshold)
{
	Size		size = offsetof(MinHashQuery, signature) + VARSIZE(sig);
	MinHashQuery *query = (MinHashQuery *) palloc0(size);

	SET_VARSIZE(query, size);
	query->threshold = threshold;
	memcpy(query->signature, sig, VARSIZE(sig));
	return query;
}

/* The signature and threshold of a minhash_query datum. */
MinHash *
minhash_query_signature(Datum datum, double *threshold)
{
	MinHashQuery *query = (MinHashQuery *) PG_DETOAST_DATUM(datum);

	*threshold = query->threshold;
	return minhash_check_stored(QUERY_SIGNATURE(query));
}

/*
 * The query value a call site built last, kept in fn_extra (fn_mcxt).
 * resembles(sig, $1, $2) is sig %> minhash_query($1, $2): in a generic plan
 * the planner cannot fold minhash_query over parameters into a constant, so
 * a sequential scan calls it for every row with the same arguments.
 */
typedef struct QueryCache
{
	Size		capacity;		/* bytes allocated at query */
	MinHashQuery *query;		/* NULL until the first call */
} QueryCache;

PG_FUNCTION_INFO_V1(minhash_query_make);
/*
 * minhash_query(sig minhash, threshold float8)
 *
 * Returns the value it built for the same arguments on the previous call, if
 * they are the same.  The arguments are compared by content, never by
 * address (another value may live at the same address on the next row), and
 * the signature as stored in the argument (a short header compared as it
 * is, an out-of-line or compressed value after detoasting), so equal bytes
 * are equal arguments whatever their varlena header.  The value returned
 * lives in fn_mcxt until the next call with other arguments replaces it:
 * like a per-row result, it is read before this call site runs again.
 */
Datum
minhash_query_make(PG_FUNCTION_ARGS)
{
	QueryCache *cache = (QueryCache *) fcinfo->flinfo->fn_extra;
	struct varlena *given = PG_DETOAST_DATUM_PACKED(PG_GETARG_DATUM(0));
	float8		threshold = PG_GETARG_FLOAT8(1);
	MinHash    *sig;
	Size		size;

	if (cache != NULL && cache->query != NULL &&
		memcmp(&cache->query->threshold, &threshold, sizeof(float8)) == 0 &&
		VARSIZE_ANY_EXHDR(given) == VARSIZE(QUERY_SIGNATURE(cache->query)) - VARHDRSZ &&
		memcmp(VARDATA_ANY(given), VARDATA(QUERY_SIGNATURE(cache->query)),
			   VARSIZE_ANY_EXHDR(given)) == 0)
		PG_RETURN_POINTER(cache->query);

	sig = DatumGetMinHashP(PointerGetDatum(given));
	minhash_check_threshold(threshold);
	if (cache == NULL)
	{
		cache = MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(QueryCache));
		fcinfo->flinfo->fn_extra = cache;
	}
	size = offsetof(MinHashQuery, signature) + VARSIZE(sig);
	if (cache->capacity < size)
	{
		MinHashQuery *bigger = MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, size);

		if (cache->query != NULL)
			pfree(cache->query);
		cache->query = bigger;
		cache->capacity = size;
	}
	SET_VARSIZE(cache->query, size);
	cache->query->reserved = 0;
	cache->query->threshold = threshold;
	memcpy(cache->query->signature, sig, VARSIZE(sig));
	PG_RETURN_POINTER(cache->query);
}

PG_FUNCTION_INFO_V1(minhash_query_in);
Datum
minhash_query_in(PG_FUNCTION_ARGS)
{
	char	   *literal = PG_GETARG_CSTRING(0);
	char	   *colon = strchr(literal, ':');
	char	   *number;
	char	   *end;
	double		threshold;
	Datum		sig;

	if (colon == NULL || colon == literal)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"", "minhash_query",
						minhash_echo_prefix(literal)),
				 errdetail("A minhash_query literal is a threshold, a colon and a minhash literal.")));
	number = pnstrdup(literal, colon - literal);
	threshold = strtod(number, &end);
	if (end == number || *end != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid input syntax for type %s: \"%s\"", "minhash_query",
						minhash_echo_prefix(literal)),
				 errdetail("The threshold must be a number.")));
	minhash_check_threshold(threshold);
	sig = DirectFunctionCall3(minhash_in, CStringGetDatum(colon + 1),
							  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	PG_RETURN_POINTER(make_query((MinHash *) DatumGetPointer(sig), threshold));
}

PG_FUNCTION_INFO_V1(minhash_query_out);
Datum
minhash_query_out(PG_FUNCTION_ARGS)
{
	double		threshold;
	MinHash    *sig = minhash_query_signature(PG_GETARG_DATUM(0), &threshold);
	char	   *signature = DatumGetCString(DirectFunctionCall1(minhash_out, PointerGetDatum(sig)));

	PG_RETURN_CSTRING(psprintf("%s:%s", float8out_internal(threshold), signature));
}

PG_FUNCTION_INFO_V1(minhash_query_recv);
Datum
minhash_query_recv(PG_FUNCTION_ARGS)
{
	StringInfo	buf = (StringInfo) PG_GETARG_POINTER(0);
	double		threshold;
	Datum		sig;

	if (buf->len - buf->cursor < (int) sizeof(float8))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_BINARY_REPRESENTATION),
				 errmsg("invalid binary value for type %s", "minhash_query"),
				 errdetail("The value is shorter than its threshold.")));
	threshold = minhash_check_threshold(pq_getmsgfloat8(buf));
	/* The rest is a minhash's binary form, checked by its own receive. */
	sig = DirectFunctionCall3(minhash_recv, PointerGetDatum(buf),
							  ObjectIdGetDatum(InvalidOid), Int32GetDatum(-1));
	PG_RETURN_POINTER(make_query((MinHash *) DatumGetPointer(sig), threshold));
}

PG_FUNCTION_INFO_V1(minhash_query_send);
Datum
minhash_query_send(PG_FUNCTION_ARGS)
{
	double		threshold;
	MinHash    *sig = minhash_query_signature(PG_GETARG_DATUM(0), &threshold);
	bytea	   *signature = DatumGetByteaPP(DirectFunctionCall1(minhash_send, PointerGetDatum(sig)));
	StringInfoData buf;

	pq_begintypsend(&buf);
	pq_sendfloat8(&buf, threshold);
	pq_sendbytes(&buf, VARDATA_ANY(signature), VARSIZE_ANY_EXHDR(signature));
	PG_RETURN_BYTEA_P(pq_endtypsend(&buf));
}

PG_FUNCTION_INFO_V1(minhash_query_match);
/*
 * a %> q: resemblance(a, q's signature) >= q's threshold, an error for
 * signatures built differently (minhash_is_near_duplicate); IMMUTABLE
 */
Datum
minhash_query_match(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	double		threshold;
	MinHash    *query = minhash_query_signature(PG_GETARG_DATUM(1), &threshold);

	PG_RETURN_BOOL(minhash_is_near_duplicate(sig, query, threshold));
}
