/*
 * minhash_near_dupe_statement.c
 *	  near_dupe_groups() and near_dupe_pairs() beyond minhash.group_memory:
 *	  the same grouping (or the same pairs) as one SQL statement, run
 *	  through SPI, its rows streamed into the result.
 *
 * There is one grouping, the greedy walk; the engine runs it in memory, and
 * near_dupe_statement (SQL, the text near_dupe_query returns, with the keys
 * in their own type and the approximate layout where asked) runs it as
 * sorts and a window function (near_dupe_group_walk): the band keys, the
 * candidate pairs and the verified ones go through sorts that spill to disk
 * beyond work_mem, and the walk holds only the rows taken into a group
 * (about 40 bytes each).  sql/group_sql.sql checks that the statement gives
 * the engine's rows on every input; so the result is the same, row for row
 * and in order, whichever path ran, as a sort's is whether it spilled or
 * not.  The call only gets slower (test/bench/README.md measures by how
 * much).
 *
 * What the engine's path checks as it reads and the statement does not:
 * keys are unique and not null.  One more scan does that here, the keys
 * sorted (spilling as any sort), neighbours compared with the key type's
 * btree order under the column's collation, as the engine's key sort
 * compares them, with its errors (23502, 23505).  The signatures'
 * parameters are checked by the statement's near_dupe_check (22000, the
 * same message).
 *
 * The statement needs hashed aggregation and merge joins off (a hash
 * aggregate of the band keys spills into many batches; a merge join would
 * sort every row to match a few copies): they are set for the statement's
 * duration at a GUC nest level of their own, as a function's SET clause
 * sets them, and restored after it, or by the transaction's abort on error.
 *
 * The caller has said so (a NOTICE: minhash_near_dupe_announce_spill),
 * with what the call would need in memory: the rows are the same either
 * way, but the time is not; log_temp_files shows the temporary files.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/* Rows fetched from a cursor at a time. */
#define STATEMENT_FETCH_ROWS 1000

/* The source as the statement's queries name it. */
static char *
source_name(const NearDupeCall *call)
{
	return psprintf("%s.%s", quote_identifier(get_namespace_name(get_rel_namespace(call->relation))),
					quote_identifier(get_rel_name(call->relation)));
}

/*
 * Stops the call (23502, 23505) on a null or repeated key, as the engine's
 * read and key sort would: the keys in their type's order, nulls first,
 * each compared with the one before.  The previous key is copied into a
 * context of its own, since each batch of rows is freed.
 */
static void
check_keys(NearDupeCall *call)
{
	char	   *query = psprintf("SELECT s.%s FROM ONLY %s s ORDER BY 1 NULLS FIRST",
								 quote_identifier(call->key_column), source_name(call));
	MemoryContext previous_context = AllocSetContextCreate(call->context, "near_dupe previous key",
														   ALLOCSET_SMALL_SIZES);
	Portal		portal;
	Datum		previous = (Datum) 0;
	bool		have_previous = false;

	portal = SPI_cursor_open_with_args(NULL, query, 0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, STATEMENT_FETCH_ROWS * 10);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		key = heap_getattr(SPI_tuptable->vals[i], 1, SPI_tuptable->tupdesc, &isnull);

			if (isnull)
				minhash_near_dupe_report_null_key(call);
			if (have_previous &&
				ApplySortComparator(previous, false, key, false, &call->key_order) == 0)
				minhash_near_dupe_report_duplicate_key(call, key);
			if (i + 1 == SPI_processed)
			{
				MemoryContext old;

				MemoryContextReset(previous_context);
				old = MemoryContextSwitchTo(previous_context);
				previous = datumCopy(key, call->key_byval, call->key_typlen);
				MemoryContextSwitchTo(old);
				have_previous = true;
			}
			else
			{
				previous = key;
				have_previous = true;
			}
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	MemoryContextDelete(previous_context);
}

/* The statement's text: near_dupe_statement(...) with the call's arguments. */
static char *
statement_text(const NearDupeCall *call, bool groups, double recall)
{
	Oid			types[7] = {REGCLASSOID, NAMEOID, NAMEOID, FLOAT8OID, BOOLOID, BOOLOID, FLOAT8OID};
	Datum		args[7];
	char		nulls[7] = {' ', ' ', ' ', ' ', ' ', ' ', recall < 0 ? 'n' : ' '};
	NameData	key_column,
				sig_column;
	bool		isnull;
	Datum		text_datum;

	namestrcpy(&key_column, call->key_column);
	namestrcpy(&sig_column, call->sig_column);
	args[0] = ObjectIdGetDatum(call->relation);
	args[1] = NameGetDatum(&key_column);
	args[2] = NameGetDatum(&sig_column);
	args[3] = Float8GetDatum(call->threshold);
	args[4] = BoolGetDatum(groups);
	args[5] = BoolGetDatum(call->typed_keys);
	args[6] = Float8GetDatum(recall < 0 ? 0.0 : recall);
	if (SPI_execute_with_args(psprintf("SELECT %s.near_dupe_statement($1, $2, $3, $4, $5, $6, $7)",
									   call->statement_schema),
							  7, types, args, nulls, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "near_dupe_statement failed");
	text_datum = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (isnull)
		elog(ERROR, "near_dupe_statement returned null");
	return TextDatumGetCString(text_datum);
}

/*
 * The work_mem of the statement's nodes: they share minhash.group_memory.
 * At most STATEMENT_WORK_MEM_NODES of its sorts, materialized CTEs, hash
 * tables and window tuplestores hold their work_mem at once, so each gets
 * that share of the setting, or the caller's work_mem where that is less
 * (PostgreSQL's floor of 64kB aside): together they hold about the
 * setting, as the call's rows would in memory, beside the result's
 * work_mem.
 */
#define STATEMENT_WORK_MEM_NODES 8

static int
statement_work_mem_kb(const NearDupeCall *call)
{
	uint64		share_kb = call->limit / 1024 / STATEMENT_WORK_MEM_NODES;

	return (int) Max(64, Min((uint64) work_mem, share_kb));
}

/* Sets a planner setting for the statement, at the current GUC nest level. */
static void
set_for_statement(const char *name, const char *value)
{
	(void) set_config_option(name, value, superuser() ? PGC_SUSET : PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
}

void
minhash_near_dupe_run_statement(NearDupeCall *call, bool groups, double recall,
								Tuplestorestate *store, TupleDesc desc)
{
	char	   *statement;
	Portal		portal;
	int			nest_level;
	Datum	   *values = palloc(sizeof(Datum) * desc->natts);
	bool	   *nulls = palloc(sizeof(bool) * desc->natts);

	minhash_near_dupe_forget_rows(call);
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	check_keys(call);

	nest_level = NewGUCNestLevel();
	set_for_statement("enable_hashagg", "off");
	set_for_statement("enable_mergejoin", "off");
	set_for_statement("work_mem", psprintf("%dkB", statement_work_mem_kb(call)));
	statement = statement_text(call, groups, recall);
	portal = SPI_cursor_open_with_args(NULL, statement, 0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	if (portal->tupDesc == NULL || portal->tupDesc->natts != desc->natts)
		elog(ERROR, "near_dupe_statement returned %d columns, not %d",
			 portal->tupDesc == NULL ? 0 : portal->tupDesc->natts, desc->natts);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, STATEMENT_FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			heap_deform_tuple(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, values, nulls);
			tuplestore_putvalues(store, desc, values, nulls);
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	AtEOXact_GUC(true, nest_level);
	SPI_finish();
	minhash_near_dupe_end(call);
}
