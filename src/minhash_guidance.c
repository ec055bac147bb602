/*
 * minhash_guidance.c
 *	  Helpful errors: functions whose job is to turn a common mistake into a
 *	  message saying what to write instead.  The forms of the comparisons
 *	  that take a text where a signature belongs (resemblance(sig, text),
 *	  sig % text, resembles(sig, text, t)) read a minhash literal, which an
 *	  untyped literal or parameter becomes, and refuse a document; the <->
 *	  and <=> operators of pgvector name the operators minhash has instead.
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
 * What each comparison says of a document given in a signature's place:
 * the caller argument of minhash_literal_signature (a key the SQL bodies
 * pass, not text shown to anyone), the comparison in the detail, the
 * right spelling in the hint.
 */
typedef struct DocumentGivenError
{
	const char *caller;
	const char *detail;
	const char *hint;
} DocumentGivenError;

static const DocumentGivenError document_given_errors[] = {
	{"resemblance",
		"The function resemblance() compares two signatures, and the text given is not a minhash literal.",
	"Build the document's signature first, as in resemblance(sig, minhash(body))."},
	{"%",
		"The operator % compares two signatures, and the text given is not a minhash literal.",
	"Build the document's signature first, as in sig % minhash(body)."},
	{"resembles",
		"The function resembles() compares two signatures, and the text given is not a minhash literal.",
	"Build the document's signature first, as in resembles(sig, minhash(body), threshold)."},
};

/*
 * A document where a signature belongs: a value of the wrong kind (42804),
 * not a function that does not exist.
 */
pg_noreturn static void
report_document_given(const char *caller)
{
	const DocumentGivenError *error = NULL;
	size_t		i;

	for (i = 0; i < lengthof(document_given_errors); i++)
		if (strcmp(document_given_errors[i].caller, caller) == 0)
			error = &document_given_errors[i];
	if (error == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("cannot compare a signature with a document"),
				 errdetail("A signature is compared with a signature, and the text given is not a minhash literal."),
				 errhint("Build the document's signature first, with minhash(body).")));
	ereport(ERROR,
			(errcode(ERRCODE_DATATYPE_MISMATCH),
			 errmsg("cannot compare a signature with a document"),
			 errdetail("%s", error->detail),
			 errhint("%s", error->hint)));
}

/*
 * The signature the text argument argno spells, or the error for a document
 * given where a signature belongs (the detail and hint of caller).  A
 * constant literal is parsed once per call site, not once per row.
 */
static MinHash *
literal_signature(FunctionCallInfo fcinfo, int argno, const char *caller)
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
		report_document_given(caller);
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

	PG_RETURN_FLOAT8(minhash_signature_resemblance(a, literal_signature(fcinfo, 1, "resemblance")));
}

PG_FUNCTION_INFO_V1(minhash_literal_signature);
/*
 * minhash_literal_signature(literal text, caller text): the signature of a
 * minhash literal, else the error of caller ('%', 'resembles') for a
 * document.  The SQL bodies of sig % text and resembles(sig, text, t) call
 * it inside the indexable operator, so that the planner folds a constant
 * literal into a constant signature, which an index can serve.
 */
Datum
minhash_literal_signature(PG_FUNCTION_ARGS)
{
	char	   *caller = text_to_cstring(PG_GETARG_TEXT_PP(1));
	MinHash    *sig = literal_signature(fcinfo, 0, caller);
	MinHash    *result = (MinHash *) palloc(VARSIZE(sig));

	/* a copy: the cached one belongs to the call site */
	memcpy(result, sig, VARSIZE(sig));
	PG_RETURN_MINHASH_P(result);
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
