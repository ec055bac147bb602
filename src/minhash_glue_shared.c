/*
 * minhash_glue_shared.c
 *	  What the glue of the engine's long computations (explaining a match,
 *	  grouping) shares: the interrupt poll, and a set-returning function's
 *	  result.
 */
#include "postgres.h"

#include "funcapi.h"
#include "miscadmin.h"
#include "utils/tuplestore.h"

#include "minhash.h"

/*
 * The core's interrupt poll: reads PostgreSQL's flags only (no call that
 * could longjmp through C++ frames).  The glue then calls
 * CHECK_FOR_INTERRUPTS() itself.
 */
int
minhash_interrupt_pending(void *arg)
{
	return INTERRUPTS_PENDING_CONDITION() && INTERRUPTS_CAN_BE_PROCESSED();
}

/*
 * A set-returning function's tuplestore, in the per-query context (the
 * classic materialize protocol, which every supported version speaks).
 */
Tuplestorestate *
minhash_materialize_result(FunctionCallInfo fcinfo, TupleDesc *tupdesc)
{
	ReturnSetInfo *rsinfo = (ReturnSetInfo *) fcinfo->resultinfo;
	MemoryContext old;
	Tuplestorestate *store;

	if (rsinfo == NULL || !IsA(rsinfo, ReturnSetInfo) ||
		(rsinfo->allowedModes & SFRM_Materialize) == 0)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("set-valued function called in context that cannot accept a set")));
	if (get_call_result_type(fcinfo, NULL, tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	old = MemoryContextSwitchTo(rsinfo->econtext->ecxt_per_query_memory);
	*tupdesc = CreateTupleDescCopy(*tupdesc);
	store = tuplestore_begin_heap(true, false, work_mem);
	MemoryContextSwitchTo(old);
	rsinfo->returnMode = SFRM_Materialize;
	rsinfo->setResult = store;
	rsinfo->setDesc = *tupdesc;
	return store;
}
