/*
 * minhash_type.c
 *	  The minhash value: building it from the core's summary, the checks every
 *	  SQL entry point shares, and the typmod (number of hash values).
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "lib/stringinfo.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "minhash.h"

PG_MODULE_MAGIC;

/* The stored layout is the one the engine documents (minhash_core.h). */
#define STORED_OFFSET(field) (offsetof(MinHash, field) - VARHDRSZ)
StaticAssertDecl(STORED_OFFSET(version) == MH_STORED_VERSION_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(kind) == MH_STORED_KIND_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(flags) == MH_STORED_FLAGS_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(reserved) == MH_STORED_RESERVED_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(shingle_size) == MH_STORED_SHINGLE_SIZE_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(reserved2) == MH_STORED_RESERVED2_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(seed) == MH_STORED_SEED_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(num_perm) == MH_STORED_NUM_PERM_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(reserved3) == MH_STORED_RESERVED3_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(distinct_shingles) == MH_STORED_DISTINCT_OFFSET, "minhash layout");
StaticAssertDecl(STORED_OFFSET(values) == MH_STORED_VALUES_OFFSET, "minhash layout");

/*
 * A palloc'd minhash holding the summary and values: the one place a
 * signature is made (builders, text and binary input; union and typmod
 * enforcement copy or return a signature made here), so every reserved
 * field is zero.
 */
MinHash *
minhash_from_summary(const MhSummary *summary, const uint32 *values)
{
	uint32		num_perm = summary->params.num_perm;
	MinHash    *sig = (MinHash *) palloc0(MINHASH_SIZE(num_perm));

	SET_VARSIZE(sig, MINHASH_SIZE(num_perm));
	sig->version = MH_FORMAT_VERSION;
	sig->kind = summary->params.kind;
	sig->flags = summary->flags;
	sig->reserved = 0;
	sig->shingle_size = summary->params.shingle_size;
	sig->reserved2 = 0;
	sig->seed = summary->params.seed;
	sig->num_perm = num_perm;
	sig->reserved3 = 0;
	sig->distinct_shingles = summary->distinct_shingles;
	if (values != NULL)
		memcpy(sig->values, values, sizeof(uint32) * num_perm);
	return sig;
}

/*
 * A signature read from a table or handed over by a caller, checked before
 * anything reads its values: a known format version, zero reserved fields,
 * and as many values as its length holds.  Only a damaged value fails.
 */
MinHash *
minhash_check_stored(MinHash *sig)
{
	const char *problem = NULL;

	if (VARSIZE(sig) < offsetof(MinHash, values))
		problem = "The value is shorter than a signature's header.";
	else if (sig->version != MH_FORMAT_VERSION)
		problem = "Its format version is not one this build reads.";
	else if (sig->reserved != 0 || sig->reserved2 != 0 || sig->reserved3 != 0)
		problem = "A reserved header field is not zero.";
	else if (sig->num_perm < MH_MIN_NUM_PERM || sig->num_perm > MH_MAX_NUM_PERM ||
			 VARSIZE(sig) != MINHASH_SIZE(sig->num_perm))
		problem = "Its length does not match its number of hash values.";
	if (unlikely(problem != NULL))
		ereport(ERROR,
				(errcode(ERRCODE_DATA_CORRUPTED),
				 errmsg("invalid minhash value in storage"),
				 errdetail_internal("%s", problem)));
	return sig;
}

void
minhash_get_summary(const MinHash *sig, MhSummary *summary)
{
	memset(summary, 0, sizeof(*summary));
	summary->params.num_perm = sig->num_perm;
	summary->params.kind = sig->kind;
	summary->params.shingle_size = sig->shingle_size;
	summary->params.seed = sig->seed;
	summary->flags = sig->flags;
	summary->distinct_shingles = sig->distinct_shingles;
}

/* "words k=5 seed=0 n=128": how a signature was built, for messages. */
void
minhash_describe_params(StringInfo buf, const MhParams *params)
{
	appendStringInfoString(buf, mh_kind_name(params->kind));
	if (params->kind != MH_KIND_SET)
		appendStringInfo(buf, " k=%u", (unsigned) params->shingle_size);
	appendStringInfo(buf, " seed=%d n=%u", params->seed, params->num_perm);
}

/* Raise the error for a parameter the core rejected. */
void
minhash_report_params_error(MhStatus status, int32 num_perm, int32 shingle_size)
{
	switch (status)
	{
		case MH_OK:
			return;
		case MH_ERR_NUM_PERM_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("number of hash values must be between %d and %d",
							MH_MIN_NUM_PERM, MH_MAX_NUM_PERM),
					 errdetail("The value given was %d.", num_perm)));
			break;
		case MH_ERR_SHINGLE_SIZE_RANGE:
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("shingle size must be between %d and %d",
							MH_MIN_SHINGLE_SIZE, MH_MAX_SHINGLE_SIZE),
					 errdetail("The value given was %d.", shingle_size)));
			break;
		default:
			elog(ERROR, "minhash engine failed with status %d", (int) status);
	}
}

/*
 * Signatures built differently estimate nothing when compared: refuse, and
 * say how each was built.
 */
void
minhash_report_mismatch(const MhParams *a, const MhParams *b)
{
	StringInfoData da,
				db;

	initStringInfo(&da);
	initStringInfo(&db);
	minhash_describe_params(&da, a);
	minhash_describe_params(&db, b);
	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("cannot compare minhash signatures built with different parameters"),
			 errdetail("The first signature was built with %s, the second with %s.",
					   da.data, db.data),
			 errhint("Build both signatures with the same function, number of hash values, shingle size and seed.")));
}

/*
 * A failure the engine reported where only success was expected: what it
 * threw at its boundary (src/core/boundary.hpp).  Out of memory keeps its
 * SQLSTATE; anything else is an internal error.  `action` completes
 * "could not ...".
 */
void
minhash_report_core_failure(MhStatus status, const char *action)
{
	if (status == MH_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("The minhash engine could not allocate memory to %s.", action)));
	elog(ERROR, "could not %s: minhash engine status %d", action, (int) status);
}

/*
 * The one check of a resemblance threshold for every C entry point (the
 * functions that take one, minhash_query's input, the trigger's argument):
 * a number in [0, 1] (mh_check_threshold).  near_dupe_check raises the same
 * error in SQL; the value is printed as float8out prints it, as there.
 */
double
minhash_check_threshold(double threshold)
{
	if (mh_check_threshold(threshold) != MH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("resemblance threshold must be between 0 and 1"),
				 errdetail("The value given was %s.", float8out_internal(threshold))));
	return threshold;
}

PG_FUNCTION_INFO_V1(minhash_typmod_in);
/* minhash(n): n hash values */
Datum
minhash_typmod_in(PG_FUNCTION_ARGS)
{
	ArrayType  *modifiers = PG_GETARG_ARRAYTYPE_P(0);
	int32	   *values;
	int			count;

	values = ArrayGetIntegerTypmods(modifiers, &count);
	if (count != 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid type modifier"),
				 errdetail("Type minhash takes one modifier, the number of hash values.")));
	if (values[0] < MH_MIN_NUM_PERM || values[0] > MH_MAX_NUM_PERM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("number of hash values for type minhash must be between %d and %d",
						MH_MIN_NUM_PERM, MH_MAX_NUM_PERM)));
	PG_RETURN_INT32(values[0]);
}

PG_FUNCTION_INFO_V1(minhash_typmod_out);
Datum
minhash_typmod_out(PG_FUNCTION_ARGS)
{
	int32		typmod = PG_GETARG_INT32(0);

	PG_RETURN_CSTRING(typmod < 0 ? pstrdup("") : psprintf("(%d)", typmod));
}

/* Raise an error unless a signature has the column's number of values. */
void
minhash_check_typmod(const MinHash *sig, int32 typmod)
{
	if (typmod >= 0 && sig->num_perm != (uint32) typmod)
		ereport(ERROR,
				(errcode(ERRCODE_DATA_EXCEPTION),
				 errmsg("expected minhash(%d), not minhash(%u)", typmod, sig->num_perm),
				 errhint("Build the signature with num_perm => %d.", typmod)));
}

PG_FUNCTION_INFO_V1(minhash_enforce_typmod);
/* The length-coercion cast minhash(n) -> minhash(m). */
Datum
minhash_enforce_typmod(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	minhash_check_typmod(sig, PG_GETARG_INT32(1));
	PG_RETURN_MINHASH_P(sig);
}

PG_FUNCTION_INFO_V1(minhash_size);
/* The number of distinct shingles of the signature's document. */
Datum
minhash_size(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	if (sig->distinct_shingles > (uint64) PG_INT64_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("minhash size is out of range for type bigint")));
	PG_RETURN_INT64((int64) sig->distinct_shingles);
}

PG_FUNCTION_INFO_V1(minhash_size_is_estimated);
/* True when the document had too many distinct shingles to count exactly. */
Datum
minhash_size_is_estimated(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	PG_RETURN_BOOL((sig->flags & MH_FLAG_SIZE_ESTIMATED) != 0);
}

PG_FUNCTION_INFO_V1(minhash_kind);
/* "words", "chars" or "set" */
Datum
minhash_kind(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	PG_RETURN_TEXT_P(cstring_to_text(mh_kind_name(sig->kind)));
}

PG_FUNCTION_INFO_V1(minhash_shingle_size);
/* k or q; NULL for sets */
Datum
minhash_shingle_size(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	if (sig->kind == MH_KIND_SET)
		PG_RETURN_NULL();
	PG_RETURN_INT32((int32) sig->shingle_size);
}

PG_FUNCTION_INFO_V1(minhash_seed);
Datum
minhash_seed(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	PG_RETURN_INT32(sig->seed);
}

PG_FUNCTION_INFO_V1(minhash_num_perm);
Datum
minhash_num_perm(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);

	PG_RETURN_INT32((int32) sig->num_perm);
}
