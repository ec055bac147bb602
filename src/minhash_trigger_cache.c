/*
 * minhash_trigger_cache.c
 *	  The flagging triggers' per-trigger cache: each trigger's checked
 *	  arguments and kept lookup plan, built on its first row and rebuilt
 *	  after an invalidation; and what is checked once per entry (a Citus
 *	  shard is refused, an index with fastupdate on is warned about).
 */
#include "postgres.h"

#include "access/genam.h"
#include "access/gin_private.h"
#include "catalog/pg_am.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/ilist.h"
#include "utils/builtins.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "minhash.h"
#include "minhash_trigger.h"

/* flag_trigger_by_oid's entries: the current FlagTrigger of a trigger. */
typedef struct FlagTriggerEntry
{
	Oid			trigger_oid;	/* hash key */
	FlagTrigger *flag_trigger;
} FlagTriggerEntry;

/*
 * The per-trigger cache.
 *
 * A FlagTrigger holds what a trigger's first row worked out: the checked
 * arguments, the kept plan of the lookup and the key's conversion.  It is
 * found by trigger OID and stays valid until an invalidation says that what
 * it was built from may have changed:
 *   - the trigger's table (relcache): ALTER TABLE, a column renamed or of
 *     another type, CREATE, DROP or ALTER ... RENAME of a trigger on it, a
 *     primary key added or dropped; a dropped trigger's entry is invalidated
 *     this way and freed, so CREATE/DROP cycles don't grow the cache;
 *   - any schema (pg_namespace): the query names the table's and the
 *     extension's schemas, and the kept plan would re-read those names when
 *     PostgreSQL re-analyzes it;
 *   - the functions in the key's conversion (CachedExpression->is_valid).
 * Callbacks only mark entries invalid: an invalidation can arrive while a
 * plan runs (at any lock).  Invalid entries are freed at the start of a
 * later call, unless a call (an outer one: a key comparison or domain check
 * may run user code that fires the trigger again) still pins them.
 */
static HTAB *flag_trigger_by_oid = NULL;
static dlist_head flag_triggers = DLIST_STATIC_INIT(flag_triggers);
static bool flag_triggers_to_free = false;

/*
 * While an entry is built: its table, and whether an invalidation that may
 * concern it arrived meanwhile.  Building runs no user code, so builds do
 * not nest.
 */
static Oid	building_relid = InvalidOid;
static bool building_invalidated = false;

static void
invalidate_flag_triggers(Oid relid)
{
	dlist_iter	iter;

	dlist_foreach(iter, &flag_triggers)
	{
		FlagTrigger *flag_trigger = dlist_container(FlagTrigger, node, iter.cur);

		if (!OidIsValid(relid) || flag_trigger->relid == relid)
		{
			flag_trigger->valid = false;
			flag_triggers_to_free = true;
		}
	}
	if (!OidIsValid(relid) || relid == building_relid)
		building_invalidated = true;
}

static void
flag_relcache_callback(Datum arg, Oid relid)
{
	invalidate_flag_triggers(relid);
}

static void
flag_namespace_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	invalidate_flag_triggers(InvalidOid);
}

static void
init_flag_trigger_cache(void)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(FlagTriggerEntry);
	flag_trigger_by_oid = hash_create("minhash_flag_duplicates triggers", 16, &ctl,
									  HASH_ELEM | HASH_BLOBS);
	CacheRegisterRelcacheCallback(flag_relcache_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, flag_namespace_callback, (Datum) 0);
}

/* Free the invalid entries no call uses any more. */
static void
free_invalid_flag_triggers(void)
{
	dlist_mutable_iter iter;

	flag_triggers_to_free = false;
	dlist_foreach_modify(iter, &flag_triggers)
	{
		FlagTrigger *flag_trigger = dlist_container(FlagTrigger, node, iter.cur);
		FlagTriggerEntry *entry;

		if (flag_trigger->valid)
			continue;
		entry = hash_search(flag_trigger_by_oid, &flag_trigger->trigger_oid, HASH_FIND, NULL);
		if (entry != NULL && entry->flag_trigger == flag_trigger)
			hash_search(flag_trigger_by_oid, &flag_trigger->trigger_oid, HASH_REMOVE, NULL);
		if (flag_trigger->pins > 0)
		{
			flag_triggers_to_free = true;
			continue;
		}
		dlist_delete(&flag_trigger->node);
		SPI_freeplan(flag_trigger->plan);
		if (flag_trigger->key_to_flag != NULL)
			FreeCachedExpression(flag_trigger->key_to_flag);
		MemoryContextDelete(flag_trigger->context);
	}
}

/*
 * Build a trigger's entry: read and check its arguments, prepare and keep
 * the lookup, plan the key's conversion.  Everything is made in a context
 * under the caller's until it is complete, so an error leaves nothing kept.
 */
static FlagTrigger *
build_flag_trigger(TriggerData *trigdata, Oid function_oid, bool signs)
{
	Relation	rel = trigdata->tg_relation;
	Trigger    *trigger = trigdata->tg_trigger;
	MemoryContext context;
	MemoryContext caller_context;
	FlagTrigger *flag_trigger;
	Oid			extension_schema;
	char	   *query;
	Oid			argtypes[LOOKUP_NARGS];
	SPIPlanPtr	plan;

	building_relid = RelationGetRelid(rel);
	building_invalidated = false;

	/* named after the function (a context's name must be a constant) */
	if (signs)
		context = AllocSetContextCreate(CurrentMemoryContext, SIGN_FUNCTION_NAME, ALLOCSET_SMALL_SIZES);
	else
		context = AllocSetContextCreate(CurrentMemoryContext, FLAG_FUNCTION_NAME, ALLOCSET_SMALL_SIZES);
	caller_context = MemoryContextSwitchTo(context);
	MemoryContextSetIdentifier(context, psprintf("%s on %s", trigger->tgname,
												 RelationGetRelationName(rel)));
	flag_trigger = palloc0(sizeof(FlagTrigger));
	flag_trigger->context = context;
	flag_trigger->builder_keeper.fn_mcxt = context;
	flag_trigger->trigger_oid = trigger->tgoid;
	flag_trigger->relid = RelationGetRelid(rel);
	extension_schema = get_func_namespace(function_oid);
	minhash_trigger_read_config(trigger, rel, extension_schema, signs, &flag_trigger->config);
	query = minhash_trigger_lookup_query(rel, &flag_trigger->config, extension_schema);
	MemoryContextSwitchTo(caller_context);

	argtypes[0] = flag_trigger->config.minhash_type;
	argtypes[1] = TIDOID;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, LOOKUP_NARGS, argtypes);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", query,
			 SPI_result_code_string(SPI_result));
	if (flag_trigger->config.key_to_flag != NULL)
		flag_trigger->key_to_flag = GetCachedExpression(flag_trigger->config.key_to_flag);
	/* the entry is complete: from here on nothing fails */
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	flag_trigger->plan = plan;
	SPI_finish();

	MemoryContextSetParent(context, CacheMemoryContext);
	dlist_push_tail(&flag_triggers, &flag_trigger->node);
	/* built from what may be stale: good for this row, rebuilt on the next */
	flag_trigger->valid = !building_invalidated;
	if (!flag_trigger->valid)
		flag_triggers_to_free = true;
	building_relid = InvalidOid;
	return flag_trigger;
}

/*
 * The index options a trigger's lookups are slow with.
 *
 * With fastupdate on (GIN's default) an index queues new entries in a
 * pending list, and every scan reads the whole list: each row a load
 * inserts makes the next rows' lookups slower, until VACUUM, autovacuum or
 * gin_pending_list_limit merges the list, so that a load ends slower than
 * with no index at all (test/bench/README.md has the figures).  The README
 * creates the index WITH (fastupdate = off); a trigger whose signature
 * column has a GIN index with fastupdate on that can serve its lookup (its
 * operator family holds %>, so not gin_minhash_approx_ops) says so, once
 * per trigger and session.
 */
static List *triggers_warned_fastupdate = NIL;

static void
warn_fastupdate(TriggerData *trigdata, const FlagTrigger *flag_trigger)
{
	Relation	rel = trigdata->tg_relation;
	List	   *indexes;
	ListCell   *cell;

	if (list_member_oid(triggers_warned_fastupdate, flag_trigger->trigger_oid))
		return;
	indexes = RelationGetIndexList(rel);
	foreach(cell, indexes)
	{
		Relation	index = index_open(lfirst_oid(cell), AccessShareLock);
		bool		slow = index->rd_rel->relam == GIN_AM_OID &&
			index->rd_index->indnkeyatts >= 1 &&
			index->rd_index->indkey.values[0] == flag_trigger->config.sig_attnum &&
			OidIsValid(get_opfamily_member(index->rd_opfamily[0], flag_trigger->config.minhash_type,
										   flag_trigger->config.query_type, MINHASH_QUERY_STRATEGY)) &&
			GinGetUseFastUpdate(index);
		char	   *index_name = slow ? quote_qualified_identifier(get_namespace_name(RelationGetNamespace(index)),
																 RelationGetRelationName(index)) : NULL;

		index_close(index, AccessShareLock);
		if (!slow)
			continue;
		{
			MemoryContext caller_context = MemoryContextSwitchTo(TopMemoryContext);

			triggers_warned_fastupdate = lappend_oid(triggers_warned_fastupdate, flag_trigger->trigger_oid);
			MemoryContextSwitchTo(caller_context);
		}
		ereport(WARNING,
				(errmsg("index %s has fastupdate on, which slows down trigger \"%s\"",
						index_name, trigdata->tg_trigger->tgname),
				 errdetail("Every lookup of the trigger reads the index's pending list of recent insertions, which grows with each row inserted until it is merged."),
				 errhint("Run ALTER INDEX %s SET (fastupdate = off), then SELECT gin_clean_pending_list(%s).",
						 index_name, quote_literal_cstr(index_name))));
		break;
	}
	list_free(indexes);
}

/*
 * Citus (test/citus): with citus.enable_unsafe_triggers on, a trigger on a
 * distributed table is created on each shard and fires there, and its
 * lookup reads only that shard, so a duplicate in another shard would go
 * unflagged without a word.  Refuse to run on a shard of a table of more
 * than one shard.  A reference table's or a local table's shard holds every
 * row of its table and is accepted.  Checked when an entry is built: once
 * per trigger and session; without Citus's catalog pg_dist_shard (Citus 13
 * keeps it on every node) it costs one syscache lookup.
 */
static void
refuse_citus_shard(TriggerData *trigdata)
{
	Relation	rel = trigdata->tg_relation;
	Oid			argtypes[2] = {REGCLASSOID, TEXTOID};
	Datum		values[2];
	int			status;

	if (!OidIsValid(get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE)))
		return;
	values[0] = ObjectIdGetDatum(RelationGetRelid(rel));
	values[1] = CStringGetTextDatum(RelationGetRelationName(rel));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* a shard's name is its table's name, '_' and the shard id */
	status = SPI_execute_with_args("SELECT s.logicalrelid::pg_catalog.regclass::pg_catalog.text,"
								   " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard o"
								   "   WHERE o.logicalrelid = s.logicalrelid)::pg_catalog.int4"
								   " FROM pg_catalog.pg_dist_shard s"
								   " WHERE pg_catalog.relation_is_a_known_shard($1)"
								   " AND s.shardid = pg_catalog.substring($2, '_([0-9]+)$')::pg_catalog.int8",
								   2, argtypes, values, NULL, true, 1);
	if (status != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(status));
	if (SPI_processed > 0)
	{
		bool		isnull;
		char	   *table = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		int32		shards = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
														 SPI_tuptable->tupdesc, 2, &isnull));

		/* Citus names a shard's trigger as the shard: "<trigger>_<shard id>" */
		const char *shard_suffix = strrchr(RelationGetRelationName(rel), '_');
		char	   *trigger_name = pstrdup(trigdata->tg_trigger->tgname);
		size_t		name_len = strlen(trigger_name);

		if (shard_suffix != NULL && name_len > strlen(shard_suffix) &&
			strcmp(trigger_name + name_len - strlen(shard_suffix), shard_suffix) == 0)
			trigger_name[name_len - strlen(shard_suffix)] = '\0';
		if (shards > 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("near-duplicate flagging trigger \"%s\" cannot run on a Citus shard",
							trigger_name),
					 errdetail("Relation \"%s\" is one of the %d shards of distributed table %s, and a lookup on it sees only the rows of this shard.",
							   RelationGetRelationName(rel), shards, table),
					 errhint("Drop the trigger and flag duplicates through the coordinator after loading, or use near_dupe_groups() on the distributed table (README, \"Sharding on Citus\").")));
	}
	SPI_finish();
}

/* The trigger's entry, built on its first row or after an invalidation. */
FlagTrigger *
minhash_flag_trigger_for(TriggerData *trigdata, Oid function_oid, bool signs)
{
	Oid			trigger_oid = trigdata->tg_trigger->tgoid;
	FlagTriggerEntry *entry;
	FlagTrigger *flag_trigger;

	if (flag_trigger_by_oid == NULL)
		init_flag_trigger_cache();
	if (flag_triggers_to_free)
		free_invalid_flag_triggers();
	entry = hash_search(flag_trigger_by_oid, &trigger_oid, HASH_FIND, NULL);
	if (entry != NULL)
	{
		flag_trigger = entry->flag_trigger;
		if (flag_trigger->valid &&
			(flag_trigger->key_to_flag == NULL || flag_trigger->key_to_flag->is_valid))
			return flag_trigger;
		flag_trigger->valid = false;
		flag_triggers_to_free = true;
	}
	refuse_citus_shard(trigdata);
	flag_trigger = build_flag_trigger(trigdata, function_oid, signs);
	entry = hash_search(flag_trigger_by_oid, &trigger_oid, HASH_ENTER, NULL);
	entry->flag_trigger = flag_trigger;
	warn_fastupdate(trigdata, flag_trigger);
	return flag_trigger;
}
