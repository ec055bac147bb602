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

/*
 * The interval for two signatures.  Signatures built differently are refused
 * like resemblance() refuses them.  An empty signature is certain: it
 * resembles nothing (mh_resemblance), so the interval is [0, 0].
 */
static void
interval_of(const MinHash *a, const MinHash *b, double confidence, double *lower, double *upper)
{
	MhSummary	sa,
				sb;

	if (isnan(confidence) || !(confidence > 0.0 && confidence < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("confidence must be greater than 0 and less than 1"),
				 errdetail("The value given was %g.", confidence)));
	minhash_get_summary(a, &sa);
	minhash_get_summary(b, &sb);
	if (mh_params_match(&sa.params, &sb.params) != MH_OK)
		minhash_report_mismatch(&sa.params, &sb.params);

	if (mh_is_empty(&sa) || mh_is_empty(&sb))
		*lower = *upper = mh_resemblance(&sa, a->values, &sb, b->values);
	else
	{
		uint32		agreeing = mh_agreeing_positions(a->values, b->values, sa.params.num_perm);
		MhStatus	status = mh_resemblance_interval(agreeing, sa.params.num_perm, confidence,
													 lower, upper);

		if (status != MH_OK)
			elog(ERROR, "could not compute resemblance interval: status %d", (int) status);
	}
}

PG_FUNCTION_INFO_V1(minhash_resemblance_interval);
/*
 * resemblance_interval(a, b, confidence) RETURNS TABLE(lower, upper): a set
 * of one row, returned through the value-per-call protocol (the row on the
 * first call, the end of the set on the second), so it works wherever a
 * set-returning function may be called: FROM, LATERAL, a SELECT list.
 */
Datum
minhash_resemblance_interval(PG_FUNCTION_ARGS)
{
	FuncCallContext *funcctx;

	if (SRF_IS_FIRSTCALL())
	{
		MemoryContext oldcontext;
		TupleDesc	tupdesc;

		funcctx = SRF_FIRSTCALL_INIT();
		oldcontext = MemoryContextSwitchTo(funcctx->multi_call_memory_ctx);
		if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
			elog(ERROR, "return type must be a row type");
		funcctx->tuple_desc = BlessTupleDesc(tupdesc);
		funcctx->max_calls = 1;
		MemoryContextSwitchTo(oldcontext);
	}
	funcctx = SRF_PERCALL_SETUP();

	if (funcctx->call_cntr < funcctx->max_calls)
	{
		Datum		values[2];
		bool		nulls[2] = {false, false};
		double		lower,
					upper;

		interval_of(PG_GETARG_MINHASH_P(0), PG_GETARG_MINHASH_P(1), PG_GETARG_FLOAT8(2),
					&lower, &upper);
		values[0] = Float8GetDatum(lower);
		values[1] = Float8GetDatum(upper);
		SRF_RETURN_NEXT(funcctx, HeapTupleGetDatum(heap_form_tuple(funcctx->tuple_desc,
																   values, nulls)));
	}
	SRF_RETURN_DONE(funcctx);
}
