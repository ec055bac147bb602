/*
 * minhash_glue_shared.c
 *	  What the glue of the engine's long computations (explaining a match,
 *	  grouping, sorting shingle hashes, choosing LSH parameters) shares: the
 *	  interrupt poll, and a set-returning function's result; and a
 *	  comparison of two values byte for byte.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "funcapi.h"
#include "mb/pg_wchar.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/datum.h"
#include "utils/tuplestore.h"

#include "minhash.h"

/*
 * The engine's interrupt poll (MhInterruptPoll): non-zero only when an
 * interrupt is pending that ends the query once processed -- a cancel or
 * statement_timeout, a termination, a lost client connection (and from
 * PostgreSQL 17 transaction_timeout).  It reads PostgreSQL's flags and calls
 * nothing, as it runs beneath the engine's C++ frames; the glue then calls
 * minhash_end_interrupted() once the engine has returned.
 *
 * Any other interrupt (client_connection_check_interval's timer, a request
 * to log memory contexts, a ProcSignalBarrier, a recovery conflict on
 * PostgreSQL 17 and later, ...) does not stop the engine: processing it
 * needs CHECK_FOR_INTERRUPTS(), which cannot run beneath C++ frames, and if
 * the engine stopped for it, its work would be lost (it keeps no state
 * between calls), and a timer that fires every interval would restart it
 * forever.  Such an interrupt stays pending and is processed at the glue's
 * next CHECK_FOR_INTERRUPTS() after the engine call, so it waits at most
 * one engine call (seconds for the largest inputs): a connection lost
 * meanwhile is noticed then, a DROP DATABASE waiting for the barrier waits
 * that long.  A pending cancel is still seen within milliseconds.
 */
int
minhash_cancel_pending(void *arg)
{
	if (!INTERRUPTS_PENDING_CONDITION() || !INTERRUPTS_CAN_BE_PROCESSED())
		return 0;
	if (QueryCancelPending || ProcDiePending || ClientConnectionLost)
		return 1;
	if (TransactionTimeoutPending && TransactionTimeout > 0)
		return 1;
	return 0;
}

/*
 * The engine stopped because minhash_cancel_pending() saw a cancel: process
 * it, which raises the error (or ends the session).  If nothing ended the
 * query (the engine stopped without a cause: a bug), say so; the work is
 * not started over.
 */
void
minhash_end_interrupted(void)
{
	CHECK_FOR_INTERRUPTS();
	elog(ERROR, "minhash engine stopped for an interrupt, but no interrupt that ends the query was pending");
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

/*
 * The first MINHASH_ECHO_CHARS characters of a user's input, followed by
 * "..." when there is more: what a message may quote of it, so that no error
 * (nor the server log line it becomes) repeats a whole document.  Cut on a
 * character boundary of the database encoding.
 */
const char *
minhash_echo_prefix(const char *input)
{
	int			length = strlen(input);
	int			cut = 0;
	int			chars;

	for (chars = 0; chars < MINHASH_ECHO_CHARS && cut < length; chars++)
		cut += pg_mblen(input + cut);
	if (cut >= length)
		return input;
	return psprintf("%.*s...", cut, input);
}

/*
 * Two values of a column of a variable-length type, or nulls, hold the same
 * bytes (for text, equal under a deterministic collation).  An UPDATE that
 * does not assign a column keeps its value as it was stored, toast pointer
 * and all, which the first test finds; other values are compared whole
 * (their lengths first, without fetching them).
 */
bool
minhash_same_varlena(Datum a, bool a_isnull, Datum b, bool b_isnull)
{
	struct varlena *a_value;
	struct varlena *b_value;
	bool		same;

	if (a_isnull || b_isnull)
		return a_isnull && b_isnull;
	if (datumIsEqual(a, b, false, -1))
		return true;
	if (toast_raw_datum_size(a) != toast_raw_datum_size(b))
		return false;
	a_value = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(a));
	b_value = pg_detoast_datum_packed((struct varlena *) DatumGetPointer(b));
	same = VARSIZE_ANY_EXHDR(a_value) == VARSIZE_ANY_EXHDR(b_value) &&
		memcmp(VARDATA_ANY(a_value), VARDATA_ANY(b_value), VARSIZE_ANY_EXHDR(a_value)) == 0;
	if ((Pointer) a_value != DatumGetPointer(a))
		pfree(a_value);
	if ((Pointer) b_value != DatumGetPointer(b))
		pfree(b_value);
	return same;
}
