/*
 * minhash_fault.c
 *	  SQL access to the core's throw points, in the fault-injection build
 *	  only (make FAULT_INJECTION=1).  No install script declares these:
 *	  test/stress/fault_injection.sh creates them against its own build, and in the
 *	  normal build this file compiles to nothing.
 */
#include "postgres.h"

#ifdef MH_FAULT_INJECTION

#include "catalog/pg_type.h"
#include "utils/array.h"
#include "utils/builtins.h"

#include "minhash.h"
#include "fault_injection.h"

PG_FUNCTION_INFO_V1(minhash_fault_arm);
/* minhash_fault_arm(point text, kind text, nth int, sticky bool) */
Datum
minhash_fault_arm(PG_FUNCTION_ARGS)
{
	char	   *point = text_to_cstring(PG_GETARG_TEXT_PP(0));
	char	   *kind = text_to_cstring(PG_GETARG_TEXT_PP(1));
	int32		nth = PG_GETARG_INT32(2);

	if (nth < 1 || mh_fault_arm(point, kind, (uint64) nth, PG_GETARG_BOOL(3)) != MH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("cannot arm fault \"%s\" at injection point \"%s\", hit %d", kind, point, nth),
				 errhint("See minhash_fault_boundaries() for the points; the kinds are bad_alloc, runtime_error, int and interrupt.")));
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(minhash_fault_disarm);
Datum
minhash_fault_disarm(PG_FUNCTION_ARGS)
{
	mh_fault_disarm();
	PG_RETURN_VOID();
}

PG_FUNCTION_INFO_V1(minhash_fault_fired);
/* exceptions thrown since the last arming */
Datum
minhash_fault_fired(PG_FUNCTION_ARGS)
{
	PG_RETURN_INT64((int64) mh_fault_fired());
}

PG_FUNCTION_INFO_V1(minhash_fault_boundaries);
/*
 * minhash_fault_boundaries() text[]: each exported core function, as
 * "name" when it has an injection point, else "name: why it cannot throw".
 */
Datum
minhash_fault_boundaries(PG_FUNCTION_ARGS)
{
	ArrayBuildState *result = initArrayResult(TEXTOID, CurrentMemoryContext, false);
	const char *function;
	const char *reason = NULL;

	for (size_t i = 0; (function = mh_fault_boundary(i, &reason)) != NULL; i++)
	{
		char	   *entry = reason == NULL ? pstrdup(function) : psprintf("%s: %s", function, reason);

		accumArrayResult(result, PointerGetDatum(cstring_to_text(entry)), false, TEXTOID,
						 CurrentMemoryContext);
	}
	PG_RETURN_DATUM(makeArrayResult(result, CurrentMemoryContext));
}

#endif							/* MH_FAULT_INJECTION */
