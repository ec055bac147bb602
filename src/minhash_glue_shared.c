/*
 * minhash_glue_shared.c
 *	  What the glue of the engine's long computations (explaining a match,
 *	  grouping) shares: the interrupt poll, and a set-returning function's
 *	  result.
 */
#include "postgres.h"

#include "funcapi.h"
#include "mb/pg_wchar.h"
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

/* Small helpers that more than one glue file needs. */

/*
 * A text as UTF-8, its bytes in *length.  The tokenizer reads UTF-8 whatever
 * the database encoding, so the same text gives the same signature (and the
 * same explanation) everywhere.  Points into the text itself when it needs
 * no conversion, else at a palloc'd copy.
 */
const char *
minhash_text_utf8(text *doc, size_t *length)
{
	const char *data = VARDATA_ANY(doc);
	int			bytes = VARSIZE_ANY_EXHDR(doc);
	const char *converted;

	if (GetDatabaseEncoding() == PG_UTF8 || bytes == 0)
	{
		*length = (size_t) bytes;
		return data;
	}
	converted = (const char *) pg_server_to_any(data, bytes, PG_UTF8);
	*length = converted == data ? (size_t) bytes : strlen(converted);
	return converted;
}

static int
compare_int32(const void *a, const void *b)
{
	int32		x = *(const int32 *) a;
	int32		y = *(const int32 *) b;

	return (x > y) - (x < y);
}

/* Sort int32 keys in ascending order, as btint4cmp orders them. */
void
minhash_sort_int32(int32 *values, size_t count)
{
	qsort(values, count, sizeof(int32), compare_int32);
}

/*
 * A heap TID as one number, in ctid order: block << 16 | offset (an offset
 * fits in 16 bits).  The grouping ranks equal rows by it, and the SQL
 * grouping's walk keys its set of taken rows with it.
 */
uint64
minhash_tid_number(ItemPointer tid)
{
	return ((uint64) ItemPointerGetBlockNumberNoCheck(tid) << 16) |
		ItemPointerGetOffsetNumberNoCheck(tid);
}
