/*
 * minhash_near_dupe_append_new_rows.c
 *	  near_dupe_groups_append(): which rows of the source the read takes,
 *	  those whose key the group table lacks.  Without an index on the key, an
 *	  anti-join in the read itself; with one, the new keys first (the slots
 *	  for an integer key, else an anti-join of the keys alone), and the read
 *	  then takes the rows of those keys.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/syscache.h"

#include "minhash.h"
#include "minhash_near_dupe_append.h"

/*
 * Whether Citus distributes the relation (pg_dist_partition lists it): its
 * heap on the coordinator is then an empty shell, the rows are in the
 * shards, which only a query reaches.
 */
bool
minhash_append_is_citus_table(Oid relation)
{
	Oid			argtypes[1] = {REGCLASSOID};
	Datum		values[1];
	int			status;

	if (!OidIsValid(get_relname_relid("pg_dist_partition", PG_CATALOG_NAMESPACE)))
		return false;
	values[0] = ObjectIdGetDatum(relation);
	status = SPI_execute_with_args("SELECT FROM pg_catalog.pg_dist_partition WHERE logicalrelid = $1",
								   1, argtypes, values, NULL, true, 1);
	if (status != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(status));
	return SPI_processed > 0;
}

static Oid
index_access_method(Oid index)
{
	HeapTuple	tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(index));
	Oid			am = InvalidOid;

	if (HeapTupleIsValid(tuple))
	{
		am = ((Form_pg_class) GETSTRUCT(tuple))->relam;
		ReleaseSysCache(tuple);
	}
	return am;
}

/*
 * Whether the source has a valid btree index, not partial, led by the key
 * column: then the new keys come from an index-only scan, not a scan of
 * the whole table.
 */
static bool
key_index_exists(const NearDupeCall *call)
{
	Relation	relation = table_open(call->relation, AccessShareLock);
	AttrNumber	key_attnum = get_attnum(call->relation, call->key_column);
	List	   *indexes = RelationGetIndexList(relation);
	ListCell   *lc;
	bool		found = false;

	foreach(lc, indexes)
	{
		HeapTuple	tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(lfirst_oid(lc)));
		Form_pg_index index;

		if (!HeapTupleIsValid(tuple))
			continue;
		index = (Form_pg_index) GETSTRUCT(tuple);
		if (index->indisvalid && index->indnatts >= 1 && index->indkey.values[0] == key_attnum &&
			heap_attisnull(tuple, Anum_pg_index_indpred, NULL) &&
			index_access_method(index->indexrelid) == BTREE_AM_OID)
			found = true;
		ReleaseSysCache(tuple);
	}
	list_free(indexes);
	table_close(relation, AccessShareLock);
	return found;
}

/*
 * The new keys as the anti-join of the source's keys with the group table
 * finds them (an index-only scan where the planner finds it cheaper), copied
 * into the call, *bytes the keys' own (not by value) size; NULL, having let
 * go of them, when they would take more than half of what the call may
 * still hold (the read then takes the new rows by the anti-join itself,
 * within the setting).  Run while SPI is connected.
 */
static Datum *
anti_join_keys(NearDupeCall *call, const char *key, const char *not_stored, uint64 *count,
			   uint64 *bytes)
{
	Portal		portal;
	Datum	   *keys = NULL;
	uint64		capacity = 0;
	uint64		budget = minhash_near_dupe_room(call) / 2;
	long		fetch = 64;
	bool		fits = true;

	*count = 0;
	*bytes = 0;
	portal = SPI_cursor_open_with_args(NULL, psprintf("SELECT %s FROM ONLY %s s WHERE %s", key,
													  quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
																				 get_rel_name(call->relation)),
													  not_stored),
									   0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	while (fits)
	{
		SPI_cursor_fetch(portal, true, fetch);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed && fits; i++)
		{
			bool		isnull;
			Datum		value = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			Size		size;

			if (isnull)
				minhash_near_dupe_report_null_key(call);
			size = minhash_append_key_size(call, value);
			if (*bytes + size + sizeof(Datum) * Max(1024, capacity * 2) > budget)
			{
				fits = false;
				break;
			}
			if (*count == capacity)
			{
				capacity = Max(1024, capacity * 2);
				keys = keys == NULL ? MemoryContextAllocExtended(call->context, sizeof(Datum) * capacity, MCXT_ALLOC_HUGE) :
					repalloc_huge(keys, sizeof(Datum) * capacity);
			}
			keys[(*count)++] = minhash_append_copy_key(call, value);
			*bytes += size;
		}
		fetch = minhash_append_next_fetch(SPI_tuptable, SPI_processed);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	if (fits)
		return keys != NULL ? keys : MemoryContextAlloc(call->context, sizeof(Datum));
	if (!call->key_byval)
		for (uint64 i = 0; i < *count; i++)
			pfree(DatumGetPointer(keys[i]));
	if (keys != NULL)
		pfree(keys);
	return NULL;
}

/*
 * Which rows the read takes: those whose key the group table lacks.  The
 * anti-join reads the whole source; with an index on the key it reads the
 * keys alone first (the slots for an integer key, else an anti-join that is
 * an index-only scan where the planner finds it cheaper), and the read then
 * takes the rows of those keys, by a generic plan (a custom one
 * would estimate each of the array's keys) but on Citus, which cannot plan
 * a distributed query with a parameter so.  Run while SPI is connected.
 */
void
minhash_append_choose_new_rows(NearDupeCall *call, GroupTable *table)
{
	const char *key = psprintf("s.%s", quote_identifier(call->key_column));
	char	   *not_stored = psprintf("NOT EXISTS (SELECT FROM %s g WHERE %s %s %s)", table->name,
									  minhash_append_compared(table, "g.key"), table->equal, minhash_append_compared(table, key));
	MemoryContext old;
	Datum	   *keys;
	uint64		count = 0;
	uint64		keys_bytes = 0;
	Oid			array_type = get_array_type(call->key_type);
	int16		typlen;
	bool		typbyval;
	char		typalign;

	old = MemoryContextSwitchTo(call->context);
	call->filter = psprintf(" WHERE %s", not_stored);
	MemoryContextSwitchTo(old);
	/*
	 * Under row-level security another scan of the source may see other rows
	 * (a volatile policy): the read alone says which rows there are.
	 */
	if (!OidIsValid(array_type) || check_enable_rls(call->relation, InvalidOid, false) == RLS_ENABLED ||
		!key_index_exists(call))
		return;
	/* off Citus: a generic plan for the read, and the slots of the keys */
	call->filter_generic = !minhash_append_is_citus_table(call->relation);
	keys = minhash_append_new_integer_keys(call, table, &count);
	if (keys == NULL)
	{
		keys = anti_join_keys(call, key, not_stored, &count, &keys_bytes);
		if (keys == NULL)
			return;
	}
	/* the array is a second copy of the keys: else the read takes them itself */
	get_typlenbyvalalign(call->key_type, &typlen, &typbyval, &typalign);
	if (!minhash_near_dupe_fits(call, keys_bytes + sizeof(Datum) * count + 64 * 1024, 1))
		return;
	old = MemoryContextSwitchTo(call->context);
	call->filter_arg = PointerGetDatum(construct_array(keys, (int) count, call->key_type,
													   typlen, typbyval, typalign));
	call->filter_arg_type = array_type;
	call->filter = psprintf(" WHERE %s %s ANY ($1)", key, table->key_equal);
	MemoryContextSwitchTo(old);
	if (!typbyval)
		for (uint64 i = 0; i < count; i++)
			pfree(DatumGetPointer(keys[i]));
	pfree(keys);
}
