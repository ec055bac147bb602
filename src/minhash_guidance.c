/*
 * minhash_guidance.c
 *	  Helpful errors: functions whose job is to turn a common mistake into a
 *	  message saying what to write instead.  resemblance(minhash, text) takes
 *	  a minhash literal as minhash 1.0 did (an untyped literal or parameter
 *	  resolves to it now) and refuses a document; the <-> and <=> operators
 *	  of pgvector name the operators minhash has instead.
 */
#include "postgres.h"

#include "utils/builtins.h"

#include "minhash.h"

/* The last literal a call site gave, parsed once (fn_extra). */
typedef struct LiteralCache
{
	text	   *literal;
	MinHash    *sig;
} LiteralCache;

/*
 * The signature a text argument spells, or an error when the text is no
 * minhash literal: a document given where a signature belongs.  A constant
 * literal is parsed once per call site, not once per row.
 */
static MinHash *
literal_signature(FunctionCallInfo fcinfo, int argno)
{
	text	   *given = PG_GETARG_TEXT_PP(argno);
	LiteralCache *cache = (LiteralCache *) fcinfo->flinfo->fn_extra;
	MemoryContext old;
	char	   *literal;
	MinHash    *sig;

	if (cache != NULL &&
		VARSIZE_ANY_EXHDR(given) == VARSIZE_ANY_EXHDR(cache->literal) &&
		memcmp(VARDATA_ANY(given), VARDATA_ANY(cache->literal), VARSIZE_ANY_EXHDR(given)) == 0)
		return cache->sig;

	literal = text_to_cstring(given);
	/*
	 * The function exists and takes a text; the text is of the wrong kind,
	 * a document where a signature belongs: a datatype mismatch, not
	 * undefined_function.
	 */
	if (!minhash_looks_like_literal(literal))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot compare a signature with a document"),
				 errdetail("The function resemblance() compares two signatures, and the text given is not a minhash literal."),
				 errhint("Build the document's signature first, as in resemblance(sig, minhash(body)).")));
	sig = (MinHash *) DatumGetPointer(DirectFunctionCall3(minhash_in, CStringGetDatum(literal),
														  ObjectIdGetDatum(InvalidOid),
														  Int32GetDatum(-1)));

	old = MemoryContextSwitchTo(fcinfo->flinfo->fn_mcxt);
	if (cache == NULL)
		cache = (LiteralCache *) palloc0(sizeof(LiteralCache));
	else
	{
		pfree(cache->literal);
		pfree(cache->sig);
	}
	cache->literal = (text *) palloc(VARSIZE_ANY(given));
	memcpy(cache->literal, given, VARSIZE_ANY(given));
	cache->sig = (MinHash *) palloc(VARSIZE(sig));
	memcpy(cache->sig, sig, VARSIZE(sig));
	fcinfo->flinfo->fn_extra = cache;
	MemoryContextSwitchTo(old);
	return cache->sig;
}

PG_FUNCTION_INFO_V1(minhash_resemblance_text);
/* resemblance(a minhash, b text): b a minhash literal, else an error */
Datum
minhash_resemblance_text(PG_FUNCTION_ARGS)
{
	MinHash    *a = PG_GETARG_MINHASH_P(0);

	PG_RETURN_FLOAT8(minhash_signature_resemblance(a, literal_signature(fcinfo, 1)));
}

/*
 * The error of an operator of pgvector's applied to signatures.  These
 * operators exist only to carry the hint: the SQLSTATE is the one
 * PostgreSQL raises without them, undefined_function, so that a client
 * tells "no such operator for minhash" the same way either way.
 */
static void
report_vector_operator(const char *operator_name)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNDEFINED_FUNCTION),
			 errmsg("operator %s is not supported for type minhash", operator_name),
			 errdetail("A minhash signature estimates resemblance, the fraction of shingles two documents share; it has no vector distance."),
			 errhint("Use sig <%%> q for the distance (1 - resemblance), or sig %% q or sig %%> minhash_query(q, threshold) to find near-duplicates through an index.")));
}

PG_FUNCTION_INFO_V1(minhash_vector_l2_operator);
/* sig <-> q: pgvector's L2 distance, refused with a pointer to <%> */
Datum
minhash_vector_l2_operator(PG_FUNCTION_ARGS)
{
	report_vector_operator("<->");
	PG_RETURN_NULL();
}

PG_FUNCTION_INFO_V1(minhash_vector_cosine_operator);
/* sig <=> q: pgvector's cosine distance, refused with a pointer to <%> */
Datum
minhash_vector_cosine_operator(PG_FUNCTION_ARGS)
{
	report_vector_operator("<=>");
	PG_RETURN_NULL();
}
