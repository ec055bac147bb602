/*
 * minhash_trigger_lookup.c
 *	  The flagging triggers' lookup: the query that finds the most similar
 *	  other row (kept as a plan by minhash_trigger_cache.c), its run for a
 *	  new row with the key stored as an assignment stores it, and the 'lock'
 *	  mode's advisory locks taken before it.
 */
#include "postgres.h"

#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"

#include "minhash.h"
#include "minhash_trigger.h"

/*
 * The lookup: the key of the most similar other row at or above the
 * threshold, in the key column's type, ties broken by the smaller key.  $1
 * is the new signature, $2 the old row's ctid on UPDATE (NULL on INSERT).
 * %> with minhash_query() is the operator the GIN index serves.  Rows
 * with a NULL key are skipped: NULL means "no duplicate".
 * The threshold, fixed for the trigger, is written into the query as a
 * float8 constant (%.17g reads back as the same double), not passed as a
 * parameter: after five rows the kept plan becomes a generic plan, and the
 * planner takes the index for it only when it can see that the index
 * narrows the lookup at this threshold (minhash_selectivity.c).
 */
char *
minhash_trigger_lookup_query(Relation rel, const FlagConfig *config, Oid extension_schema)
{
	const char *ext = quote_identifier(get_namespace_name(extension_schema));
	const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   RelationGetRelationName(rel));
	const char *sig = quote_identifier(NameStr(column_attr(rel, config->sig_attnum)->attname));
	const char *key = quote_identifier(NameStr(column_attr(rel, config->key_attnum)->attname));
	StringInfoData query;

	initStringInfo(&query);
	appendStringInfo(&query, "SELECT t.%s", key);
	appendStringInfo(&query,
					 " FROM ONLY %s t"
					 " WHERE t.%s OPERATOR(%s.%%>) %s.minhash_query($1, '%.17g'::pg_catalog.float8)"
					 " AND t.%s IS NOT NULL"
					 " AND ($2 IS NULL OR t.ctid OPERATOR(pg_catalog.<>) $2)"
					 " ORDER BY %s.resemblance(t.%s, $1) DESC, t.%s"
					 " LIMIT 1",
					 table, sig, ext, ext, config->threshold, key, ext, sig, key);
	return query.data;
}

/*
 * The key as the flag column's value, converted as an assignment converts
 * it.  A key that does not fit (too long, out of range, refused by a domain:
 * SQLSTATE classes 22 and 23) is reported as the trigger's error, keeping
 * the SQLSTATE; the key itself is not shown.
 */
static Datum
key_as_flag(TriggerData *trigdata, const FlagTrigger *flag_trigger, Datum key, bool *isnull)
{
	MemoryContext caller_context = CurrentMemoryContext;
	ExprState  *assignment = ExecInitExpr((Expr *) flag_trigger->key_to_flag->expr, NULL);
	ExprContext *econtext = CreateStandaloneExprContext();
	Datum		flag = (Datum) 0;

	econtext->caseValue_datum = key;
	econtext->caseValue_isNull = false;
	PG_TRY();
	{
		flag = ExecEvalExpr(assignment, econtext, isnull);
	}
	PG_CATCH();
	{
		const FlagConfig *config = &flag_trigger->config;
		Relation	rel = trigdata->tg_relation;
		ErrorData  *edata;
		int			category;

		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		category = ERRCODE_TO_CATEGORY(edata->sqlerrcode);
		if (category != ERRCODE_DATA_EXCEPTION && category != ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(edata->sqlerrcode),
				 errmsg("key of the most similar row does not fit flag column \"%s\" of relation \"%s\"",
						NameStr(column_attr(rel, config->flag_attnum)->attname),
						RelationGetRelationName(rel)),
				 errdetail("Trigger \"%s\" stores key column \"%s\" of type %s in a column of type %s: %s.",
						   trigdata->tg_trigger->tgname,
						   NameStr(column_attr(rel, config->key_attnum)->attname),
						   format_type_with_typemod(config->key_type, config->key_typmod),
						   format_type_with_typemod(config->flag_type, config->flag_typmod),
						   edata->message),
				 errhint("Make the flag column of the key column's type.")));
	}
	PG_END_TRY();
	FreeExprContext(econtext, true);
	return flag;
}

/*
 * Where an error of the lookup arose.  Its comparisons refuse a row whose
 * signature was built with other parameters than the new row's, and their
 * message speaks of the first and the second signature: the first is the
 * table's row, the second the new row's.
 */
typedef struct LookupContext
{
	const char *trigger_name;
	Relation	rel;
	const char *sig_column;
} LookupContext;

static void
lookup_context(void *arg)
{
	const LookupContext *lookup = (const LookupContext *) arg;

	errcontext("trigger \"%s\" comparing the new row's signature (the second) with column \"%s\" of table \"%s\"",
			   lookup->trigger_name, lookup->sig_column, RelationGetRelationName(lookup->rel));
}

/*
 * Run the lookup for signature sig.  Returns the key, converted to the flag
 * column's type and in the caller's memory context, or sets *isnull when no
 * row is similar enough.
 */
Datum
minhash_trigger_most_similar_key(TriggerData *trigdata, const FlagTrigger *flag_trigger, Datum sig, bool *isnull)
{
	const FlagConfig *config = &flag_trigger->config;
	MemoryContext caller_context = CurrentMemoryContext;
	Datum		values[LOOKUP_NARGS];
	char		nulls[LOOKUP_NARGS] = {' ', ' '};
	Datum		result = (Datum) 0;
	int			status;
	LookupContext lookup;
	ErrorContextCallback context;

	*isnull = true;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	values[0] = sig;
	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
		values[1] = PointerGetDatum(&trigdata->tg_trigtuple->t_self);
	else
	{
		values[1] = (Datum) 0;
		nulls[1] = 'n';
	}

	lookup.trigger_name = trigdata->tg_trigger->tgname;
	lookup.rel = trigdata->tg_relation;
	lookup.sig_column = NameStr(column_attr(trigdata->tg_relation, config->sig_attnum)->attname);
	context.previous = error_context_stack;
	context.callback = lookup_context;
	context.arg = &lookup;
	error_context_stack = &context;
	status = SPI_execute_plan(flag_trigger->plan, values, nulls, false, 1);
	error_context_stack = context.previous;
	if (status != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(status));
	if (SPI_processed > 0)
	{
		Datum		key = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);

		if (!*isnull)
		{
			MemoryContext spi_context = MemoryContextSwitchTo(caller_context);

			result = datumCopy(key, config->key_typbyval, config->key_typlen);
			MemoryContextSwitchTo(spi_context);
		}
	}
	SPI_finish();
	if (!*isnull && flag_trigger->key_to_flag != NULL)
		result = key_as_flag(trigdata, flag_trigger, result, isnull);
	return result;
}

/*
 * The 'lock' mode: before the lookup, take a transaction-level advisory lock
 * on each band of the new signature, so that a concurrent transaction
 * inserting a near-duplicate waits until this one ends, and its lookup (a new
 * snapshot under READ COMMITTED) then sees this row.
 *
 * The bands are the engine's pigeonhole layout with no spare bands
 * (mh_pigeonhole_layout, as the grouping takes it): two signatures
 * resembling each other at least at the threshold disagree on at most
 * max_disagreements positions, fewer than there are bands, so some band
 * agrees entirely and both rows lock its key.  When every pair qualifies
 * (threshold 0) there is one lock for the whole table.  A key is (table OID,
 * the band key folded to 32 bits): a collision only makes two unrelated
 * inserts wait for each other.  Taken in ascending order, so two single-row
 * transactions cannot deadlock; a transaction that inserts several rows
 * takes each row's locks in turn and may (PostgreSQL then detects it).
 */
void
minhash_trigger_lock_near_duplicates(Relation rel, Datum sig_datum, double threshold)
{
	MinHash    *sig = DatumGetMinHashP(sig_datum);
	MhPigeonholeLayout layout;
	bool		pigeonhole = mh_pigeonhole_layout(threshold, sig->num_perm, 0, &layout) == MH_OK;
	int32		table_key = (int32) RelationGetRelid(rel);
	uint32		nkeys = pigeonhole ? layout.bands : 1;
	int32	   *keys = palloc0(sizeof(int32) * nkeys);
	uint32		i;

	if (pigeonhole)
	{
		uint64	   *band_keys = palloc(sizeof(uint64) * nkeys);

		if (mh_band_keys(sig->values, sig->num_perm, layout.bands, layout.rows, band_keys) != MH_OK)
			elog(ERROR, "could not compute band keys");
		for (i = 0; i < nkeys; i++)
			keys[i] = (int32) (uint32) (band_keys[i] ^ (band_keys[i] >> 32));
		pfree(band_keys);
	}
	minhash_sort_int32(keys, nkeys);
	for (i = 0; i < nkeys; i++)
		if (i == 0 || keys[i] != keys[i - 1])
			DirectFunctionCall2(pg_advisory_xact_lock_int4,
								Int32GetDatum(table_key), Int32GetDatum(keys[i]));
	pfree(keys);
}
