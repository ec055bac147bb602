/*
 * minhash_trigger.c
 *	  minhash_flag_duplicates(): a BEFORE INSERT OR UPDATE row trigger that
 *	  sets a flag column of the new row to the key of the most similar
 *	  existing row at or above a threshold, or to NULL.
 *
 *	  CREATE TRIGGER ... BEFORE INSERT OR UPDATE ON docs FOR EACH ROW
 *	  EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8'
 *											   [, 'key_column' [, 'lock']]);
 *
 * The lookup is one SPI query through the %> operator, which the GIN index
 * serves, prepared once per trigger and kept.  Every name in it comes from
 * the catalogs and is quoted, the threshold is parsed here and passed as a
 * parameter, and every operator, function and type is schema-qualified, so
 * neither the trigger's arguments nor the caller's search_path can change
 * what the query does.
 *
 * The query sees what the statement's snapshot sees: rows of transactions
 * that have not committed are invisible, so two near-duplicates inserted at
 * the same time by different transactions are not flagged against each
 * other (README, "Flagging duplicates on insert").  The 'lock' mode
 * serializes them instead: see lock_near_duplicates().
 */
#include "postgres.h"

#include <stdlib.h>

#include "access/htup_details.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/stringinfo.h"
#include "parser/parse_coerce.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "minhash.h"

#define FUNCTION_NAME "minhash_flag_duplicates"

/* What the trigger's arguments say, checked against the table. */
typedef struct FlagConfig
{
	AttrNumber	sig_attnum;
	AttrNumber	flag_attnum;
	AttrNumber	key_attnum;
	Oid			minhash_type;	/* the extension's type */
	Oid			flag_type;
	int32		flag_typmod;
	Oid			key_type;
	int32		key_typmod;
	double		threshold;
	bool		lock_near_duplicates;	/* fifth argument 'lock' */
} FlagConfig;

/* One kept plan per trigger, replaced when its query text changes. */
typedef struct PlanCacheEntry
{
	Oid			trigger_oid;	/* hash key */
	Oid			minhash_type;	/* type of parameter $1 */
	char	   *query;			/* in TopMemoryContext; NULL while preparing */
	SPIPlanPtr	plan;
} PlanCacheEntry;

static HTAB *plan_cache = NULL;

#define LOOKUP_NARGS 3

/* The trigger manager must call us BEFORE INSERT OR UPDATE, FOR EACH ROW. */
static TriggerData *
check_trigger_call(FunctionCallInfo fcinfo)
{
	TriggerData *trigdata;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" was not called by trigger manager", FUNCTION_NAME)));
	trigdata = (TriggerData *) fcinfo->context;
	if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired BEFORE ROW", FUNCTION_NAME),
				 errhint("Create the trigger with BEFORE INSERT OR UPDATE ... FOR EACH ROW.")));
	if (!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) && !TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired for INSERT or UPDATE", FUNCTION_NAME)));
	return trigdata;
}

/* A user column of the table, by its exact (case-sensitive) name. */
static AttrNumber
user_column(Relation rel, const char *name)
{
	int			attnum = SPI_fnumber(RelationGetDescr(rel), name);

	if (attnum <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, RelationGetRelationName(rel)),
				 errhint("Trigger arguments name columns exactly as they are spelled, without quotes.")));
	return (AttrNumber) attnum;
}

static Form_pg_attribute
column_attr(Relation rel, AttrNumber attnum)
{
	return TupleDescAttr(RelationGetDescr(rel), attnum - 1);
}

/*
 * The column of the table's primary key.  Without a single-column primary
 * key the trigger cannot say which row a new one duplicates: that is a state
 * of the table, which adding a key (or naming a key column) fixes, hence
 * object_not_in_prerequisite_state.
 */
static AttrNumber
primary_key_column(Relation rel)
{
	Oid			index_oid = RelationGetPrimaryKeyIndex(rel, false);
	HeapTuple	index_tuple;
	Form_pg_index index;
	AttrNumber	attnum = InvalidAttrNumber;

	if (OidIsValid(index_oid))
	{
		index_tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index_oid));
		if (!HeapTupleIsValid(index_tuple))
			elog(ERROR, "cache lookup failed for index %u", index_oid);
		index = (Form_pg_index) GETSTRUCT(index_tuple);
		if (index->indnkeyatts == 1)
			attnum = index->indkey.values[0];
		ReleaseSysCache(index_tuple);
	}
	if (attnum <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("relation \"%s\" has no single-column primary key",
						RelationGetRelationName(rel)),
				 errhint("Name the key column in the trigger's fourth argument.")));
	return attnum;
}

/* Which trigger's threshold minhash_check_threshold refused. */
static void
threshold_context(void *trigger_name)
{
	errcontext("threshold argument of trigger \"%s\"", (const char *) trigger_name);
}

/*
 * The threshold, parsed here rather than pasted into the query: a number,
 * nothing before or after it but spaces, in [0, 1] (minhash_check_threshold).
 */
static double
parse_threshold(const char *text, const char *trigger_name)
{
	ErrorContextCallback context = {error_context_stack, threshold_context, (void *) trigger_name};
	char	   *end;
	double		value;

	value = strtod(text, &end);
	while (*end == ' ')
		end++;
	if (end == text || *end != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid resemblance threshold for trigger \"%s\": \"%s\"",
						trigger_name, text),
				 errdetail("The threshold must be a number.")));
	error_context_stack = &context;
	minhash_check_threshold(value);
	error_context_stack = context.previous;
	return value;
}

/*
 * The fifth argument, the concurrency mode: 'nolock' (the default: the
 * lookup sees what its snapshot sees) or 'lock' (lock_near_duplicates()).
 */
static bool
parse_lock_mode(const char *text, const char *trigger_name)
{
	if (strcmp(text, "lock") == 0)
		return true;
	if (strcmp(text, "nolock") == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized concurrency mode for trigger \"%s\": \"%s\"",
					trigger_name, text),
			 errdetail("The fifth argument must be \"lock\" or \"nolock\".")));
	return false;				/* keep compiler quiet */
}

/* The extension's minhash type: in the schema of this function. */
static Oid
extension_minhash_type(Oid extension_schema)
{
	Oid			type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									   CStringGetDatum("minhash"),
									   ObjectIdGetDatum(extension_schema));

	if (!OidIsValid(type))
		elog(ERROR, "type minhash not found in schema %u", extension_schema);
	return type;
}

/* Read and check the trigger's arguments against the table. */
static void
read_config(Trigger *trigger, Relation rel, Oid extension_schema, FlagConfig *config)
{
	char	  **args = trigger->tgargs;
	Form_pg_attribute sig_attr,
				flag_attr,
				key_attr;

	if (trigger->tgnargs < 3 || trigger->tgnargs > 5)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\" must have three to five arguments", trigger->tgname),
				 errdetail("It has %d.", trigger->tgnargs),
				 errhint("Give the signature column, the flag column, the threshold and optionally the key column and the concurrency mode, as in %s('sig', 'duplicate_of', '0.8').",
						 FUNCTION_NAME)));

	config->minhash_type = extension_minhash_type(extension_schema);
	config->sig_attnum = user_column(rel, args[0]);
	config->flag_attnum = user_column(rel, args[1]);
	config->threshold = parse_threshold(args[2], trigger->tgname);
	/* an empty key argument stands for the primary key, to reach the mode */
	config->key_attnum = trigger->tgnargs >= 4 && args[3][0] != '\0' ?
		user_column(rel, args[3]) : primary_key_column(rel);
	config->lock_near_duplicates = trigger->tgnargs == 5 && parse_lock_mode(args[4], trigger->tgname);

	sig_attr = column_attr(rel, config->sig_attnum);
	flag_attr = column_attr(rel, config->flag_attnum);
	key_attr = column_attr(rel, config->key_attnum);
	config->flag_type = flag_attr->atttypid;
	config->flag_typmod = flag_attr->atttypmod;
	config->key_type = key_attr->atttypid;
	config->key_typmod = key_attr->atttypmod;

	if (getBaseType(sig_attr->atttypid) != config->minhash_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("signature column \"%s\" is of type %s, not minhash",
						NameStr(sig_attr->attname), format_type_be(sig_attr->atttypid))));
	if (sig_attr->attgenerated != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("signature column \"%s\" is a generated column", NameStr(sig_attr->attname)),
				 errdetail("PostgreSQL computes generated columns after BEFORE triggers, so the trigger would never see a signature."),
				 errhint("Set the column in the INSERT or UPDATE, or in a BEFORE trigger that fires earlier (triggers fire in order of their names).")));
	if (config->flag_attnum == config->key_attnum || config->flag_attnum == config->sig_attnum)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("flag column \"%s\" must differ from the signature and key columns",
						NameStr(flag_attr->attname))));
	if (config->flag_type != config->key_type &&
		!can_coerce_type(1, &config->key_type, &config->flag_type, COERCION_ASSIGNMENT))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("flag column \"%s\" is of type %s, which cannot hold key column \"%s\" of type %s",
						NameStr(flag_attr->attname), format_type_be(config->flag_type),
						NameStr(key_attr->attname), format_type_be(config->key_type)),
				 errhint("Make the flag column of the key column's type.")));
}

/*
 * The lookup: the key of the most similar other row at or above the
 * threshold, ties broken by the smaller key.  $1 is the new signature, $2
 * the threshold, $3 the old row's ctid on UPDATE (NULL on INSERT).
 * %> with minhash_query() is the operator the GIN index serves.  Rows
 * with a NULL key are skipped: NULL means "no duplicate".
 */
static char *
lookup_query(Relation rel, const FlagConfig *config, Oid extension_schema)
{
	const char *ext = quote_identifier(get_namespace_name(extension_schema));
	const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   RelationGetRelationName(rel));
	const char *sig = quote_identifier(NameStr(column_attr(rel, config->sig_attnum)->attname));
	const char *key = quote_identifier(NameStr(column_attr(rel, config->key_attnum)->attname));
	StringInfoData query;

	initStringInfo(&query);
	if (config->flag_type == config->key_type &&
		(config->flag_typmod < 0 || config->flag_typmod == config->key_typmod))
		appendStringInfo(&query, "SELECT t.%s", key);
	else
		appendStringInfo(&query, "SELECT CAST(t.%s AS %s)", key,
						 format_type_extended(config->flag_type, config->flag_typmod,
											  FORMAT_TYPE_FORCE_QUALIFY |
											  (config->flag_typmod >= 0 ? FORMAT_TYPE_TYPEMOD_GIVEN : 0)));
	appendStringInfo(&query,
					 " FROM ONLY %s t"
					 " WHERE t.%s OPERATOR(%s.%%>) %s.minhash_query($1, $2)"
					 " AND t.%s IS NOT NULL"
					 " AND ($3 IS NULL OR t.ctid OPERATOR(pg_catalog.<>) $3)"
					 " ORDER BY %s.resemblance(t.%s, $1) DESC, t.%s"
					 " LIMIT 1",
					 table, sig, ext, ext, key, ext, sig, key);
	return query.data;
}

/* The trigger's kept plan for this query, prepared if it has none yet. */
static SPIPlanPtr
lookup_plan(Oid trigger_oid, const char *query, Oid minhash_type)
{
	PlanCacheEntry *entry;
	bool		found;
	Oid			argtypes[LOOKUP_NARGS] = {minhash_type, FLOAT8OID, TIDOID};
	SPIPlanPtr	plan;

	if (plan_cache == NULL)
	{
		HASHCTL		ctl;

		memset(&ctl, 0, sizeof(ctl));
		ctl.keysize = sizeof(Oid);
		ctl.entrysize = sizeof(PlanCacheEntry);
		plan_cache = hash_create("minhash_flag_duplicates plans", 16, &ctl,
								 HASH_ELEM | HASH_BLOBS);
	}
	entry = (PlanCacheEntry *) hash_search(plan_cache, &trigger_oid, HASH_ENTER, &found);
	if (found && entry->query != NULL)
	{
		if (entry->minhash_type == minhash_type && strcmp(entry->query, query) == 0)
			return entry->plan;
		SPI_freeplan(entry->plan);
		pfree(entry->query);
	}
	/* stays "not prepared" if SPI_prepare raises an error */
	entry->query = NULL;
	entry->plan = NULL;

	plan = SPI_prepare(query, LOOKUP_NARGS, argtypes);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", query,
			 SPI_result_code_string(SPI_result));
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	entry->plan = plan;
	entry->minhash_type = minhash_type;
	entry->query = MemoryContextStrdup(TopMemoryContext, query);
	return plan;
}

/*
 * Run the lookup for signature sig.  Returns the key, converted to the flag
 * column's type and copied into the caller's memory context, or sets
 * *isnull when no row is similar enough.
 */
static Datum
most_similar_key(TriggerData *trigdata, const FlagConfig *config, Oid extension_schema,
				 Datum sig, bool *isnull)
{
	MemoryContext caller_context = CurrentMemoryContext;
	bool		is_update = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event);
	char	   *query = lookup_query(trigdata->tg_relation, config, extension_schema);
	Datum		values[LOOKUP_NARGS];
	char		nulls[LOOKUP_NARGS] = {' ', ' ', ' '};
	SPIPlanPtr	plan;
	Datum		result = (Datum) 0;
	int			status;

	*isnull = true;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = lookup_plan(trigdata->tg_trigger->tgoid, query, config->minhash_type);

	values[0] = sig;
	values[1] = Float8GetDatum(config->threshold);
	if (is_update)
		values[2] = PointerGetDatum(&trigdata->tg_trigtuple->t_self);
	else
	{
		values[2] = (Datum) 0;
		nulls[2] = 'n';
	}

	status = SPI_execute_plan(plan, values, nulls, false, 1);
	if (status != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(status));
	if (SPI_processed > 0)
	{
		Datum		key = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);

		if (!*isnull)
		{
			int16		typlen;
			bool		typbyval;
			MemoryContext spi_context;

			get_typlenbyval(config->flag_type, &typlen, &typbyval);
			spi_context = MemoryContextSwitchTo(caller_context);
			result = datumCopy(key, typbyval, typlen);
			MemoryContextSwitchTo(spi_context);
		}
	}
	SPI_finish();
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
static void
lock_near_duplicates(Relation rel, Datum sig_datum, double threshold)
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

PG_FUNCTION_INFO_V1(minhash_flag_duplicates);
/*
 * minhash_flag_duplicates(sig_column, flag_column, threshold [, key_column
 * [, 'lock' | 'nolock']]): the new row's flag column becomes the key of the
 * most similar other row whose signature resembles the new one at least at
 * the threshold, or NULL (also when the new signature is NULL).
 */
Datum
minhash_flag_duplicates(PG_FUNCTION_ARGS)
{
	TriggerData *trigdata = check_trigger_call(fcinfo);
	Relation	rel = trigdata->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	tuple = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ?
		trigdata->tg_newtuple : trigdata->tg_trigtuple;
	Oid			extension_schema = get_func_namespace(fcinfo->flinfo->fn_oid);
	FlagConfig	config;
	Datum		sig;
	bool		sig_isnull;
	Datum		flag = (Datum) 0;
	bool		flag_isnull = true;
	int			flag_column;

	read_config(trigdata->tg_trigger, rel, extension_schema, &config);
	sig = heap_getattr(tuple, config.sig_attnum, desc, &sig_isnull);
	if (!sig_isnull && config.lock_near_duplicates)
		lock_near_duplicates(rel, sig, config.threshold);
	if (!sig_isnull)
		flag = most_similar_key(trigdata, &config, extension_schema, sig, &flag_isnull);

	flag_column = config.flag_attnum;
	tuple = heap_modify_tuple_by_cols(tuple, desc, 1, &flag_column, &flag, &flag_isnull);
	return PointerGetDatum(tuple);
}
