/*
 * minhash_interval.c
 *	  resemblance_interval(a, b, confidence): how far the true resemblance
 *	  may be from the estimate, as a Clopper-Pearson interval on the number
 *	  of agreeing positions (the core computes the beta quantiles).
 */
#include "postgres.h"

#include <math.h>

#include "funcapi.h"
#include "access/htup_details.h"

#include "minhash.h"

PG_FUNCTION_INFO_V1(minhash_resemblance_interval);
/*
 * Signatures built differently are refused like resemblance() refuses them.
 * Empty documents are certain: both empty is resemblance 1, one empty is 0.
 */
Datum
minhash_resemblance_interval(PG_FUNCTION_ARGS)
{
	MinHash    *a = PG_GETARG_MINHASH_P(0);
	MinHash    *b = PG_GETARG_MINHASH_P(1);
	double		confidence = PG_GETARG_FLOAT8(2);
	MhSummary	sa,
				sb;
	double		lower,
				upper;
	TupleDesc	tupdesc;
	Datum		values[2];
	bool		nulls[2] = {false, false};

	if (isnan(confidence) || !(confidence > 0.0 && confidence < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be greater than 0 and less than 1"),
				 errdetail("The value given was %g.", confidence)));
	minhash_get_summary(a, &sa);
	minhash_get_summary(b, &sb);
	if (mh_params_match(&sa.params, &sb.params) != MH_OK)
		minhash_report_mismatch(&sa.params, &sb.params);

	if (sa.distinct_shingles == 0 || sb.distinct_shingles == 0)
		lower = upper = mh_resemblance(&sa, a->values, &sb, b->values);
	else
	{
		uint32		agreeing = mh_agreeing_positions(a->values, b->values, sa.params.num_perm);
		MhStatus	status = mh_resemblance_interval(agreeing, sa.params.num_perm, confidence,
													 &lower, &upper);

		if (status != MH_OK)
			elog(ERROR, "could not compute resemblance interval: status %d", (int) status);
	}

	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	tupdesc = BlessTupleDesc(tupdesc);
	values[0] = Float8GetDatum(lower);
	values[1] = Float8GetDatum(upper);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(tupdesc, values, nulls)));
}
