/*
 * minhash_near_dupe_append.c
 *	  near_dupe_groups_append(): the rows of a source that a stored grouping
 *	  (a table of near_dupe_groups' rows) does not hold yet, grouped without
 *	  moving a row that it holds.
 *
 * The rule.  A new row joins the stored group whose pivot it resembles most
 * at the threshold (ties to the smaller group_id); a stored row is a pivot
 * when its key is its pivot, so a stored singleton counts.  The new rows
 * that join none are grouped among themselves by near_dupe_groups' greedy
 * walk (the groups of mh_group_greedy, or mh_group_greedy_banded with
 * recall =>, walked with the probe's band keys), under group ids above the
 * largest stored one, numbered in pivot rank order as
 * near_dupe_groups numbers its groups.  So every member resembles its pivot
 * at the threshold, and a new pivot resembles no stored pivot at it (with
 * recall =>, none that shares a band key with it).  A new row whose
 * document has no words (an empty set) joins nothing and takes no member:
 * it is a group of its own, resemblance 0, as a row without a signature is
 * (resemblance null), after the other new groups.
 *
 * How.  The new rows are read as near_dupe_groups reads a whole table
 * (minhash_near_dupe_source.c), through an anti-join of the source against
 * the group table, which PostgreSQL's executor runs within work_mem; for an
 * integer key with an index, the group table is read once into a slot a
 * key of the source's range instead (new_integer_keys), which also tells
 * its pivots and their groups.  The new rows are held with their band keys
 * (the engine's band probe, src/core/band_probe.cpp).  Then every signed
 * row of the source is streamed past once, its signature only: each probes
 * the new rows' keys, and only a row with a verified hit that is not itself
 * new is kept, with its hits.  The few rows so kept are looked up (in the
 * slots, or in the group table): those that are pivots give their group.
 * So the call holds the new rows, their keys and the hits (and the slots,
 * 4 bytes a key), never the stored rows' signatures; the stream holds one
 * batch of rows at a time, as the read does.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/tuptable.h"
#include "storage/bufmgr.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"
#include "catalog/pg_am.h"
#include "catalog/pg_class.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "utils/acl.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/syscache.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/* Rows the stream fetches at a time. */
#define STREAM_ROWS 2000

/*
 * The stored rows' integer keys, for telling new keys apart without the
 * executor's hash join, as slots over the source's key range, one a key:
 * 0, not stored; STORED_KEY, stored; STORED_PIVOT + g, stored as the pivot
 * of group g (the smallest g of a key stored twice, as look_up_pivots'
 * query takes it).  A stored key outside the range equals no source key.
 * A serial key fills its range, so a slot costs 4 bytes a row.
 */
#define STORED_KEY 1
#define STORED_PIVOT 2

typedef struct StoredKeys
{
	uint32	   *slots;
	int64		first;			/* the source's smallest key */
	uint64		span;			/* slots: largest - first + 1 */
	bool		pivots;			/* the slots tell pivots apart */
	int64		largest_group_id;	/* 0 while none is read */
} StoredKeys;

/* What the call knows of the group table. */
typedef struct GroupTable
{
	Oid			relation;
	char	   *name;			/* schema-qualified, quoted */
	bool		by_text;		/* its keys are text: compare key::text */
	char	   *equal;			/* how keys compare with the group table's:
								 * OPERATOR(schema.=) */
	char	   *key_equal;		/* the source key type's own = */
	/*
	 * The stored keys as new_integer_keys read them, with the pivots' groups
	 * and the largest group_id, so that they need no query; else NULL.
	 */
	StoredKeys *stored;
} GroupTable;

static int64 integer_datum(Oid base_type, Datum value);
static uint32 *stored_slot(const StoredKeys *set, int64 key);

/* A verified pair: new row (its rank) and stored row (its number). */
typedef struct AppendHit
{
	uint32		rank;
	uint32		old;
	uint32		agreeing;
} AppendHit;

/* The stored rows kept (with a hit), and the hits. */
typedef struct AppendHits
{
	Datum	   *old_keys;
	uint32		old_count;
	uint32		old_capacity;
	AppendHit  *hits;
	uint64		count;
	uint64		capacity;
} AppendHits;

/* --- the group table --------------------------------------------------- */

/* The hint of every error about the group table. */
#define GROUP_TABLE_HINT "A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...)."

/*
 * The group table has group_id, key, pivot and resemblance as the reports
 * need them (near_dupe_group_table_problem), and its keys compare with the
 * source's: of the key column's own type (or its domain's base type), or
 * text, as near_dupe_groups writes them without key_type.  Run while SPI is
 * connected (by minhash_near_dupe_begin_at).
 */
static void
check_group_table(NearDupeCall *call, Oid groups, const char *schema, GroupTable *table)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		args[1] = {ObjectIdGetDatum(groups)};
	bool		isnull;
	Datum		sqlstate;
	Oid			key_type;
	TypeCacheEntry *type;
	MemoryContext old;

	/* near_dupe_groups_append came with 1.2: its helpers are in minhash_internal */
	if (SPI_execute_with_args("SELECT p.sqlstate, p.message FROM " MINHASH_INTERNAL_SCHEMA
							  ".near_dupe_group_table_problem($1, true) p",
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "near_dupe_group_table_problem failed");
	sqlstate = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
	{
		char	   *code = TextDatumGetCString(sqlstate);

		ereport(ERROR,
				(errcode(MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4])),
				 errmsg("%s", SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2)),
				 errhint(GROUP_TABLE_HINT)));
	}
	table->relation = groups;
	table->stored = NULL;
	/* what the call keeps outlives SPI's memory */
	old = MemoryContextSwitchTo(call->context);
	table->name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(groups)),
											 get_rel_name(groups));
	key_type = get_atttype(groups, get_attnum(groups, "key"));
	if (getBaseType(key_type) == getBaseType(call->key_type))
		table->by_text = false;
	else if (IsBinaryCoercible(key_type, TEXTOID))
		table->by_text = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"key\" of relation \"%s\" is of type %s, which does not compare with column \"%s\" of relation \"%s\", of type %s",
						get_rel_name(groups), format_type_be(key_type), call->key_column,
						get_rel_name(call->relation), format_type_be(call->key_type)),
				 errhint("Append to the group table made from this source: its keys are of the key column's type (near_dupe_groups(..., NULL::%s)) or text (near_dupe_groups without key_type).",
						 format_type_be(call->key_type))));
	/* the key type's own =, for keys of the source's type */
	{
		Oid			equal;
		HeapTuple	tuple;
		Form_pg_operator operator;

		type = lookup_type_cache(getBaseType(call->key_type), TYPECACHE_EQ_OPR);
		equal = type->eq_opr;
		if (!OidIsValid(equal))
			ereport(ERROR,
					(errcode(ERRCODE_UNDEFINED_FUNCTION),
					 errmsg("could not identify an equality operator for type %s",
							format_type_be(call->key_type)),
					 errhint("Keys are matched to the group table's: use a key column of a type with a btree operator class.")));
		tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(equal));
		if (!HeapTupleIsValid(tuple))
			elog(ERROR, "cache lookup failed for operator %u", equal);
		operator = (Form_pg_operator) GETSTRUCT(tuple);
		table->key_equal = psprintf("OPERATOR(%s.%s)",
									quote_identifier(get_namespace_name(operator->oprnamespace)),
									NameStr(operator->oprname));
		ReleaseSysCache(tuple);
	}
	table->equal = table->by_text ? "OPERATOR(pg_catalog.=)" : table->key_equal;
	MemoryContextSwitchTo(old);
}

/* The group table's key (alias g) or a key of the source as compared. */
static const char *
compared(const GroupTable *table, const char *expression)
{
	return table->by_text ? psprintf("%s::pg_catalog.text", expression) : expression;
}

/* --- streaming the stored rows ------------------------------------------ */

/* Frees the band probe with the call's context, at the end or on error. */
typedef struct ProbeHolder
{
	MhBandProbe *probe;
	MemoryContextCallback release;
} ProbeHolder;

static void
release_probe(void *arg)
{
	ProbeHolder *holder = (ProbeHolder *) arg;

	if (holder->probe != NULL)
		mh_band_probe_free(holder->probe);
	holder->probe = NULL;
}

/* Room in the call for `bytes` more, else 53400. */
static void
need_room(NearDupeCall *call, uint64 bytes, const char *what)
{
	if (bytes + ALLOCSET_SMALL_MAXSIZE > minhash_near_dupe_room(call))
		minhash_near_dupe_refuse(call, minhash_near_dupe_held(call) + bytes, false,
								 psprintf("Its %u new rows take %llu kB, and %s needs %llu bytes more.",
										  call->count,
										  (unsigned long long) (minhash_near_dupe_held(call) / 1024),
										  what, (unsigned long long) bytes));
}

/* A grown copy of an array of `used` elements of `size` bytes, counted. */
static void *
grow(NearDupeCall *call, void *array, uint64 used, uint64 capacity, Size size)
{
	void	   *bigger;

	need_room(call, capacity * size, "keeping the pairs it finds");
	bigger = MemoryContextAllocExtended(call->context, capacity * size, MCXT_ALLOC_HUGE);
	if (array != NULL)
	{
		memcpy(bigger, array, used * size);
		pfree(array);
	}
	return bigger;
}

/* Whether a stored key is one of the new rows' (by_key: their rows in key order). */
static bool
is_new_key(const NearDupeCall *call, const uint32 *by_key, uint32 count, Datum key)
{
	uint32		low = 0,
				high = count;

	while (low < high)
	{
		uint32		middle = low + (high - low) / 2;
		int			cmp = ApplySortComparator(call->rows[by_key[middle]].key, false, key, false,
											  (SortSupport) &call->key_order);

		if (cmp == 0)
			return true;
		if (cmp < 0)
			low = middle + 1;
		else
			high = middle;
	}
	return false;
}

/*
 * Whether a key lies within the new keys' range (two comparisons): outside
 * it, as most stored keys of a serial key are, it is not a new one.
 */
static bool
in_new_range(const NearDupeCall *call, const uint32 *by_key, uint32 count, Datum key)
{
	return count > 0 &&
		ApplySortComparator(call->rows[by_key[0]].key, false, key, false, (SortSupport) &call->key_order) <= 0 &&
		ApplySortComparator(call->rows[by_key[count - 1]].key, false, key, false, (SortSupport) &call->key_order) >= 0;
}

/* What the stream carries from row to row. */
typedef struct Stream
{
	NearDupeCall *call;
	MhBandProbe *probe;
	const uint32 *by_key;		/* the new rows in key order */
	uint32		by_key_count;
	uint32	   *found_rows;
	uint32	   *found_agreeing;
	AppendHits *kept;
} Stream;

/*
 * One row of the source streamed past the probe: kept, with its hits, when
 * it is not new and resembles a new row at the threshold.
 */
static void
stream_row(Stream *stream, Datum key, Datum sig_datum)
{
	NearDupeCall *call = stream->call;
	AppendHits *kept = stream->kept;
	MinHash    *sig = DatumGetMinHashP(sig_datum);
	MhSummary	summary;
	uint32		found = 0;
	MhStatus	status = MH_OK;
	bool		maybe_new;

	minhash_get_summary(sig, &summary);
	if (mh_params_match(&call->params, &summary.params) != MH_OK)
		minhash_near_dupe_report_mixed(call, &summary.params);
	/*
	 * A new row is not probed where that is cheap to tell: it would find
	 * itself in every band, each a lookup in the band keys, for nothing
	 * kept.  A key passed by value (an integer) compares in a few
	 * instructions, so every key in the new ones' range is searched for
	 * first; other keys (text under a collation) only when the probe found
	 * something, as few do.  An empty set resembles nothing: it is no pivot
	 * to join.
	 */
	maybe_new = in_new_range(call, stream->by_key, stream->by_key_count, key);
	if (maybe_new && call->key_byval && is_new_key(call, stream->by_key, stream->by_key_count, key))
		found = 0;
	else if (summary.distinct_shingles > 0)
		status = mh_band_probe_find(stream->probe, sig->values, stream->found_rows,
									stream->found_agreeing, &found);
	if ((Pointer) sig != DatumGetPointer(sig_datum))
		pfree(sig);
	if (status != MH_OK)
		minhash_report_core_failure(status, "probe the rows to append");
	if (found == 0 ||
		(maybe_new && !call->key_byval && is_new_key(call, stream->by_key, stream->by_key_count, key)))
		return;
	if (kept->old_count == kept->old_capacity)
	{
		uint32		capacity = Max(64, kept->old_capacity * 2);

		kept->old_keys = grow(call, kept->old_keys, kept->old_count, capacity, sizeof(Datum));
		kept->old_capacity = capacity;
	}
	if (!call->key_byval)
		need_room(call, datumGetSize(key, false, call->key_typlen), "keeping the keys of the rows it matches");
	{
		MemoryContext old = MemoryContextSwitchTo(call->context);

		kept->old_keys[kept->old_count] = datumCopy(key, call->key_byval, call->key_typlen);
		MemoryContextSwitchTo(old);
	}
	for (uint32 f = 0; f < found; f++)
	{
		if (kept->count == kept->capacity)
		{
			uint64		capacity = Max(256, kept->capacity * 2);

			kept->hits = grow(call, kept->hits, kept->count, capacity, sizeof(AppendHit));
			kept->capacity = capacity;
		}
		kept->hits[kept->count].rank = stream->found_rows[f];
		kept->hits[kept->count].old = kept->old_count;
		kept->hits[kept->count].agreeing = stream->found_agreeing[f];
		kept->count++;
	}
	kept->old_count++;
}

/*
 * Streams every signed row of the source past the probe.  The read of the
 * new rows has checked the caller's privileges on both columns; without
 * row-level security the rows come straight from a scan of the table on
 * the calling query's snapshot, with no copy (most of a stream's time
 * would otherwise be SPI's copy of each row); with it, through a cursor,
 * so that the policies apply as they did to the read.  A table Citus
 * distributes is read through a cursor too: on the coordinator its own
 * heap is an empty shell, the rows are in the shards, which only a query
 * reaches.
 */
static bool
relation_is_known_to_citus(Oid relation)
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

static void
stream_stored_rows(NearDupeCall *call, MhBandProbe *probe, const uint32 *by_key, uint32 by_key_count,
				   AppendHits *kept)
{
	Stream		stream;
	uint64		seen = 0;

	stream.call = call;
	stream.probe = probe;
	stream.by_key = by_key;
	stream.by_key_count = by_key_count;
	stream.found_rows = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) Max(call->count, 1));
	stream.found_agreeing = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) Max(call->count, 1));
	stream.kept = kept;

	if (check_enable_rls(call->relation, InvalidOid, false) != RLS_ENABLED &&
		!relation_is_known_to_citus(call->relation))
	{
		Relation	relation = table_open(call->relation, AccessShareLock);
		AttrNumber	key_attnum = get_attnum(call->relation, call->key_column);
		AttrNumber	sig_attnum = get_attnum(call->relation, call->sig_column);
		TupleTableSlot *slot = table_slot_create(relation, NULL);
		TableScanDesc scan = table_beginscan(relation, GetActiveSnapshot(), 0, NULL);
		MemoryContext per_row = AllocSetContextCreate(CurrentMemoryContext, "near_dupe_groups_append row",
													  ALLOCSET_SMALL_SIZES);
		Buffer		last_buffer = InvalidBuffer;

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		key_null,
						sig_null;
			Datum		key;
			Datum		sig;

			/*
			 * A page new to the scan is asked for whole, at once: it has
			 * most likely just been copied in from the kernel's cache
			 * (a table larger than a quarter of shared_buffers is read
			 * through a small ring) and is not in the CPU's cache, so each
			 * tuple's header, attributes and signature would otherwise be
			 * a miss of its own, one after another.
			 */
			if (TTS_IS_BUFFERTUPLE(slot) && ((BufferHeapTupleTableSlot *) slot)->buffer != last_buffer)
			{
				last_buffer = ((BufferHeapTupleTableSlot *) slot)->buffer;
				if (BufferIsValid(last_buffer))
				{
					const char *page = BufferGetPage(last_buffer);

					for (Size offset = 0; offset < BLCKSZ; offset += 64)
						__builtin_prefetch(page + offset);
				}
			}
			key = slot_getattr(slot, key_attnum, &key_null);
			sig = slot_getattr(slot, sig_attnum, &sig_null);

			if (!key_null && !sig_null)
			{
				MemoryContext old = MemoryContextSwitchTo(per_row);

				stream_row(&stream, key, sig);
				MemoryContextSwitchTo(old);
				MemoryContextReset(per_row);
			}
			if ((++seen & 0x3FF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		MemoryContextDelete(per_row);
		table_close(relation, AccessShareLock);
	}
	else
	{
		char	   *query;
		Portal		portal;

		query = psprintf("SELECT s.%s, s.%s FROM ONLY %s s WHERE s.%s IS NOT NULL",
						 quote_identifier(call->key_column), quote_identifier(call->sig_column),
						 quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
													get_rel_name(call->relation)),
						 quote_identifier(call->sig_column));
		portal = SPI_cursor_open_with_args(NULL, query, 0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
		for (;;)
		{
			SPI_cursor_fetch(portal, true, STREAM_ROWS);
			if (SPI_processed == 0)
				break;
			for (uint64 i = 0; i < SPI_processed; i++)
			{
				bool		key_null,
							sig_null;
				Datum		key = heap_getattr(SPI_tuptable->vals[i], 1, SPI_tuptable->tupdesc, &key_null);
				Datum		sig = heap_getattr(SPI_tuptable->vals[i], 2, SPI_tuptable->tupdesc, &sig_null);

				if (!key_null && !sig_null)
					stream_row(&stream, key, sig);
			}
			SPI_freetuptable(SPI_tuptable);
			CHECK_FOR_INTERRUPTS();
		}
		SPI_cursor_close(portal);
	}
	pfree(stream.found_rows);
	pfree(stream.found_agreeing);
}

/*
 * look_up_pivots from the pivots read with the stored keys: a binary search
 * of each kept key.  A pivot's text is its key's (key::text), which is what
 * the query returns.
 */
static void
look_up_kept_pivots(NearDupeCall *call, const GroupTable *table, const AppendHits *kept,
					int64 *group_of, Datum *pivot_text)
{
	Oid			key_base = getBaseType(call->key_type);

	for (uint32 i = 0; i < kept->old_count; i++)
	{
		int64		key = integer_datum(key_base, kept->old_keys[i]);
		const uint32 *slot = stored_slot(table->stored, key);

		if (slot == NULL || *slot < STORED_PIVOT)
			continue;
		group_of[i] = *slot - STORED_PIVOT;
		if (!call->typed_keys)
		{
			MemoryContext old = MemoryContextSwitchTo(call->context);

			pivot_text[i] = CStringGetTextDatum(psprintf(INT64_FORMAT, key));
			MemoryContextSwitchTo(old);
		}
	}
}

/*
 * For each kept stored row, its group when it is a pivot (else -1), and its
 * key as the result carries a pivot: group_of[] and pivot_text[] (text
 * results only).  One query, the kept keys as an array; or the pivots read
 * with the stored keys (look_up_kept_pivots).
 */
static void
look_up_pivots(NearDupeCall *call, const GroupTable *table, const AppendHits *kept,
			   int64 *group_of, Datum *pivot_text)
{
	Oid			array_type = get_array_type(call->key_type);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum		args[1];
	Oid			types[1];
	char	   *query;
	MemoryContext old;

	for (uint32 i = 0; i < kept->old_count; i++)
		group_of[i] = -1;
	if (kept->old_count == 0)
		return;
	if (table->stored != NULL && table->stored->pivots)
	{
		look_up_kept_pivots(call, table, kept, group_of, pivot_text);
		return;
	}
	if (!OidIsValid(array_type))
		elog(ERROR, "no array type for type %s", format_type_be(call->key_type));
	get_typlenbyvalalign(call->key_type, &typlen, &typbyval, &typalign);
	args[0] = PointerGetDatum(construct_array(kept->old_keys, (int) kept->old_count, call->key_type,
											  typlen, typbyval, typalign));
	types[0] = array_type;
	query = psprintf("SELECT k.i, g.group_id::pg_catalog.int8, k.key::pg_catalog.text"
					 " FROM pg_catalog.unnest($1) WITH ORDINALITY k(key, i)"
					 " JOIN %s g ON %s %s %s"
					 " WHERE %s %s %s",
					 table->name, compared(table, "g.key"), table->equal, compared(table, "k.key"),
					 compared(table, "g.key"), table->equal, compared(table, "g.pivot"));
	if (SPI_execute_with_args(query, 1, types, args, NULL, true, 0) != SPI_OK_SELECT)
		elog(ERROR, "looking up the pivots failed");
	old = MemoryContextSwitchTo(call->context);
	for (uint64 r = 0; r < SPI_processed; r++)
	{
		bool		isnull;
		int64		i = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 1, &isnull)) - 1;
		Datum		group_id = SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 2, &isnull);

		/* a negative group_id is no group to join (and none that near_dupe_groups makes) */
		if (isnull || DatumGetInt64(group_id) < 0)
			continue;
		/* a key stored twice: its smaller group */
		if (group_of[i] >= 0 && group_of[i] <= DatumGetInt64(group_id))
			continue;
		group_of[i] = DatumGetInt64(group_id);
		if (!call->typed_keys)
			pivot_text[i] = datumCopy(SPI_getbinval(SPI_tuptable->vals[r], SPI_tuptable->tupdesc, 3, &isnull),
									  false, -1);
	}
	MemoryContextSwitchTo(old);
	SPI_freetuptable(SPI_tuptable);
}

/* The largest stored group_id, 0 for an empty group table. */
static int64
largest_group_id(const GroupTable *table)
{
	bool		isnull;
	Datum		largest;

	if (table->stored != NULL)
		return table->stored->largest_group_id;
	if (SPI_execute(psprintf("SELECT pg_catalog.max(g.group_id)::pg_catalog.int8 FROM %s g", table->name),
					true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading the largest group_id failed");
	largest = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : Max(DatumGetInt64(largest), 0);
}

/* --- reading the new rows ---------------------------------------------- */

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
 * The integer whose output text is exactly text[0 .. length), within
 * [min, max]: an optional '-', then "0" or digits without a leading zero
 * (not "-0").  Any other text is no integer's text, so no key::text
 * equals it.
 */
static bool
canonical_integer(const char *text, int length, int64 min, int64 max, int64 *value)
{
	bool		negative = length > 0 && text[0] == '-';
	int			start = negative ? 1 : 0;
	uint64		magnitude = 0;
	uint64		bound = negative ? (uint64) (-(min + 1)) + 1 : (uint64) max;

	if (length == start || length - start > 19)
		return false;
	if (text[start] == '0' && (length - start > 1 || negative))
		return false;
	for (int i = start; i < length; i++)
	{
		if (text[i] < '0' || text[i] > '9')
			return false;
		magnitude = magnitude * 10 + (uint64) (text[i] - '0');
	}
	if (magnitude > bound)
		return false;
	*value = negative ? (magnitude == (uint64) PG_INT64_MAX + 1 ? PG_INT64_MIN : -(int64) magnitude) : (int64) magnitude;
	return true;
}

/* int2, int4 or int8 (or a domain over one): the range of its values */
static bool
integer_key_range(Oid type, int64 *min, int64 *max)
{
	switch (getBaseType(type))
	{
		case INT2OID:
			*min = PG_INT16_MIN;
			*max = PG_INT16_MAX;
			return true;
		case INT4OID:
			*min = PG_INT32_MIN;
			*max = PG_INT32_MAX;
			return true;
		case INT8OID:
			*min = PG_INT64_MIN;
			*max = PG_INT64_MAX;
			return true;
		default:
			return false;
	}
}

/* A value of int2, int4 or int8 (base_type: a domain's base, looked up once) */
static int64
integer_datum(Oid base_type, Datum value)
{
	switch (base_type)
	{
		case INT2OID:
			return DatumGetInt16(value);
		case INT4OID:
			return DatumGetInt32(value);
		default:
			return DatumGetInt64(value);
	}
}

/* The slot of an integer key, NULL outside the source's range. */
static uint32 *
stored_slot(const StoredKeys *set, int64 key)
{
	uint64		offset = (uint64) key - (uint64) set->first;

	return key >= set->first && offset < set->span ? &set->slots[offset] : NULL;
}

/*
 * Marks a stored key (a text that is no integer's output in [min, max]
 * equals no key::text, and is passed over), as the pivot of group pivot_of
 * (else -1).
 */
static void
add_stored_key(StoredKeys *set, const GroupTable *table, Oid column_type, Datum key, int64 pivot_of,
			   int64 min, int64 max)
{
	int64		value;
	uint32	   *slot;

	if (!table->by_text)
		value = integer_datum(column_type, key);
	else
	{
		text	   *key_text = DatumGetTextPP(key);
		bool		integer = canonical_integer(VARDATA_ANY(key_text), VARSIZE_ANY_EXHDR(key_text), min, max, &value);

		if ((Pointer) key_text != DatumGetPointer(key))
			pfree(key_text);
		if (!integer)
			return;
	}
	slot = stored_slot(set, value);
	if (slot == NULL)
		return;
	if (pivot_of > (int64) (PG_UINT32_MAX - STORED_PIVOT))
	{
		/* a group_id beyond a slot: the pivots come from a query */
		set->pivots = false;
		pivot_of = -1;
	}
	if (pivot_of >= 0 && (*slot < STORED_PIVOT || (uint32) pivot_of < *slot - STORED_PIVOT))
		*slot = (uint32) pivot_of + STORED_PIVOT;
	else if (*slot == 0)
		*slot = STORED_KEY;
}

/*
 * Whether a row read directly from the group table is its group's pivot:
 * key = pivot, as the key's type compares them, or as texts, byte for byte
 * (a deterministic collation's equality).
 */
static bool
row_is_pivot(const GroupTable *table, Oid column_type, Datum key, Datum pivot)
{
	if (!table->by_text)
		return integer_datum(column_type, key) == integer_datum(column_type, pivot);
	return minhash_same_varlena(key, false, pivot, false);
}

/*
 * The source's smallest and largest keys (from the key's index), and
 * whether the slots of that range fit in work_mem * hash_mem_multiplier
 * (the executor's bound for the hash join that runs otherwise) and in the
 * call's memory.
 */
static bool
stored_keys_begin(NearDupeCall *call, StoredKeys *set)
{
	const char *key = quote_identifier(call->key_column);
	bool		first_null,
				last_null;
	int64		last;

	if (SPI_execute(psprintf("SELECT pg_catalog.min(s.%1$s)::pg_catalog.int8, pg_catalog.max(s.%1$s)::pg_catalog.int8 FROM ONLY %2$s s",
							 key,
							 quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
														get_rel_name(call->relation))),
					true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading the range of the source's keys failed");
	set->first = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &first_null));
	last = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &last_null));
	SPI_freetuptable(SPI_tuptable);
	if (first_null || last_null)
		return false;
	set->span = (uint64) last - (uint64) set->first + 1;
	if (set->span == 0 || set->span > get_hash_memory_limit() / sizeof(uint32) ||
		!minhash_near_dupe_fits(call, set->span * sizeof(uint32), 1))
		return false;
	set->slots = MemoryContextAllocExtended(call->context, set->span * sizeof(uint32), MCXT_ALLOC_HUGE | MCXT_ALLOC_ZERO);
	set->pivots = true;
	set->largest_group_id = 0;
	return true;
}

/*
 * The new keys as the empty slots, where they are few (a serial key, a
 * production appended at its end): a fourth of the stored keys at most, so
 * that their read costs about what reading the source's keys would.  An
 * empty slot whose key the source lacks (a deleted row) is read as no row.
 * The source's keys are not read, but for a NULL key, refused as by the
 * read of each key (the index finds it).
 */
static bool
empty_slots_are_new_keys(NearDupeCall *call, const StoredKeys *set, Oid key_base, Datum **keys, uint64 *count)
{
	uint64		empty = 0;
	bool		isnull;

	for (uint64 i = 0; i < set->span; i++)
		if (set->slots[i] == 0)
			empty++;
	if (empty > Max((set->span - empty) / 4, 1024))
		return false;
	if (SPI_execute(psprintf("SELECT EXISTS (SELECT FROM ONLY %s s WHERE s.%s IS NULL)",
							 quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
														get_rel_name(call->relation)),
							 quote_identifier(call->key_column)),
					true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "looking for a null key failed");
	if (DatumGetBool(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull)))
		minhash_near_dupe_report_null_key(call);
	SPI_freetuptable(SPI_tuptable);
	need_room(call, sizeof(Datum) * Max(empty, 1), "reading the new keys");
	*keys = MemoryContextAllocExtended(call->context, sizeof(Datum) * Max(empty, 1), MCXT_ALLOC_HUGE);
	*count = 0;
	for (uint64 i = 0; i < set->span; i++)
	{
		int64		key = (int64) ((uint64) set->first + i);

		if (set->slots[i] != 0)
			continue;
		(*keys)[(*count)++] = key_base == INT2OID ? Int16GetDatum((int16) key) :
			key_base == INT4OID ? Int32GetDatum((int32) key) : Int64GetDatum(key);
	}
	return true;
}

/*
 * The new keys of an integer key column, without the executor's hash join:
 * the stored keys marked in their slots (StoredKeys), then the source's
 * keys read (an index-only scan) and those with an empty slot kept.  The
 * group table is scanned directly where the caller may read it whole (a
 * plain table, no row-level security), else read through SPI, as the
 * source is (so that row-level security applies as to the read); either
 * way the slots tell its pivots apart, and it is read no more.  NULL,
 * having read nothing of the source but the ends of its index, for a Citus
 * table (the anti-join runs on its shards), when the group table's keys
 * compare under a nondeterministic collation, or when the slots do not fit
 * (stored_keys_begin).  Run while SPI is connected.
 */
static Datum *
new_integer_keys(NearDupeCall *call, GroupTable *table, uint64 *count)
{
	StoredKeys *set;
	int64		min,
				max;
	Oid			column_type;
	int32		column_typmod;
	Oid			collation;
	Oid			group_id_type;
	Oid			key_base = getBaseType(call->key_type);
	bool		pivots_compare;
	Portal		portal;
	Datum	   *keys = NULL;
	uint64		capacity = 0;

	/* Citus joins the group table with the shards where they are */
	if (!integer_key_range(call->key_type, &min, &max) || !call->filter_generic)
		return NULL;
	get_atttypetypmodcoll(table->relation, get_attnum(table->relation, "key"), &column_type, &column_typmod, &collation);
	column_type = getBaseType(column_type);
	if (table->by_text && OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return NULL;
	group_id_type = get_atttype(table->relation, get_attnum(table->relation, "group_id"));
	/* key = pivot as texts under the key's collation, else (a conflict) as a query says */
	if (table->by_text)
	{
		Oid			pivot_type;
		int32		pivot_typmod;
		Oid			pivot_collation;

		get_atttypetypmodcoll(table->relation, get_attnum(table->relation, "pivot"), &pivot_type, &pivot_typmod,
							  &pivot_collation);
		pivots_compare = pivot_collation == collation;
	}
	else
		pivots_compare = true;

	set = MemoryContextAllocZero(call->context, sizeof(StoredKeys));
	if (!stored_keys_begin(call, set))
	{
		pfree(set);
		return NULL;
	}
	set->pivots = pivots_compare;
	if (get_rel_relkind(table->relation) == RELKIND_RELATION && !has_subclass(table->relation) &&
		pg_class_aclcheck(table->relation, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(table->relation, InvalidOid, false) != RLS_ENABLED &&
		!relation_is_known_to_citus(table->relation))
	{
		/* a plain table the caller may read whole: scanned without SPI's copy of each row */
		Relation	relation = table_open(table->relation, AccessShareLock);
		AttrNumber	key_attnum = get_attnum(table->relation, "key");
		AttrNumber	pivot_attnum = get_attnum(table->relation, "pivot");
		AttrNumber	group_id_attnum = get_attnum(table->relation, "group_id");
		TupleTableSlot *slot = table_slot_create(relation, NULL);
		TableScanDesc scan = table_beginscan(relation, GetActiveSnapshot(), 0, NULL);
		uint64		seen = 0;

		while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
		{
			bool		key_null,
						pivot_null,
						group_null;
			Datum		key = slot_getattr(slot, key_attnum, &key_null);
			Datum		pivot = slot_getattr(slot, pivot_attnum, &pivot_null);
			Datum		group_id = slot_getattr(slot, group_id_attnum, &group_null);
			int64		pivot_of = -1;

			if (!group_null)
			{
				set->largest_group_id = Max(set->largest_group_id, integer_datum(group_id_type, group_id));
				if (pivots_compare && !key_null && !pivot_null && row_is_pivot(table, column_type, key, pivot))
					pivot_of = integer_datum(group_id_type, group_id);
			}
			if (!key_null)
				add_stored_key(set, table, column_type, key, pivot_of, min, max);
			if ((++seen & 0x3FF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		table_endscan(scan);
		ExecDropSingleTupleTableSlot(slot);
		table_close(relation, AccessShareLock);
	}
	else
	{
		portal = SPI_cursor_open_with_args(NULL,
										   psprintf("SELECT g.key, g.group_id::pg_catalog.int8, %s FROM %s g",
													pivots_compare ?
													psprintf("%s %s %s", compared(table, "g.key"), table->equal,
															 compared(table, "g.pivot")) :
													"NULL::pg_catalog.bool",
													table->name),
										   0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
		for (;;)
		{
			SPI_cursor_fetch(portal, true, 10000);
			if (SPI_processed == 0)
				break;
			for (uint64 i = 0; i < SPI_processed; i++)
			{
				bool		key_null,
							group_null,
							pivot_null;
				Datum		key = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &key_null);
				Datum		group_id = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 2, &group_null);
				Datum		is_pivot = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 3, &pivot_null);
				int64		pivot_of = -1;

				if (!group_null)
				{
					set->largest_group_id = Max(set->largest_group_id, DatumGetInt64(group_id));
					if (!pivot_null && DatumGetBool(is_pivot))
						pivot_of = DatumGetInt64(group_id);
				}
				if (!key_null)
					add_stored_key(set, table, column_type, key, pivot_of, min, max);
			}
			SPI_freetuptable(SPI_tuptable);
			CHECK_FOR_INTERRUPTS();
		}
		SPI_cursor_close(portal);
	}

	*count = 0;
	table->stored = set;
	if (empty_slots_are_new_keys(call, set, key_base, &keys, count))
		return keys;
	/* in key order, the index's: an index-only scan, not a scan of the table */
	portal = SPI_cursor_open_with_args(NULL, psprintf("SELECT s.%1$s FROM ONLY %2$s s ORDER BY s.%1$s",
													  quote_identifier(call->key_column),
													  quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
																				 get_rel_name(call->relation))),
									   0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;
			Datum		key = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			const uint32 *slot;

			if (isnull)
				minhash_near_dupe_report_null_key(call);
			slot = stored_slot(set, integer_datum(key_base, key));
			if (slot == NULL)
				elog(ERROR, "a key of the source lies outside the range of its keys");
			if (*slot != 0)
				continue;
			if (*count == capacity)
			{
				capacity = Max(1024, capacity * 2);
				need_room(call, sizeof(Datum) * capacity, "reading the new keys");
				keys = keys == NULL ? MemoryContextAllocExtended(call->context, sizeof(Datum) * capacity, MCXT_ALLOC_HUGE) :
					repalloc_huge(keys, sizeof(Datum) * capacity);
			}
			keys[(*count)++] = key;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	if (keys == NULL)
		keys = MemoryContextAlloc(call->context, sizeof(Datum));
	return keys;
}

/*
 * Which rows the read takes: those whose key the group table lacks.  The
 * anti-join reads the whole source; with an index on the key it reads the
 * keys alone first (new_integer_keys for an integer key, else an anti-join
 * that is an index-only scan where the planner finds it cheaper), and the
 * read then takes the rows of those keys, by a generic plan (a custom one
 * would estimate each of the array's keys) but on Citus, which cannot plan
 * a distributed query with a parameter so.  Run while SPI is connected.
 */
static void
choose_new_rows(NearDupeCall *call, GroupTable *table)
{
	const char *key = psprintf("s.%s", quote_identifier(call->key_column));
	char	   *not_stored = psprintf("NOT EXISTS (SELECT FROM %s g WHERE %s %s %s)", table->name,
									  compared(table, "g.key"), table->equal, compared(table, key));
	MemoryContext old;
	Datum	   *keys;
	uint64		count = 0;
	bool		from_spi = false;
	Oid			array_type = get_array_type(call->key_type);
	int16		typlen;
	bool		typbyval;
	char		typalign;

	old = MemoryContextSwitchTo(call->context);
	call->filter = psprintf(" WHERE %s", not_stored);
	MemoryContextSwitchTo(old);
	if (!OidIsValid(array_type) || !key_index_exists(call))
		return;
	/* off Citus: a generic plan for the read, and the slots of the keys */
	call->filter_generic = !relation_is_known_to_citus(call->relation);
	keys = new_integer_keys(call, table, &count);
	if (keys == NULL)
	{
		if (SPI_execute(psprintf("SELECT %s FROM ONLY %s s WHERE %s", key,
								 quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
															get_rel_name(call->relation)),
								 not_stored), true, 0) != SPI_OK_SELECT)
			elog(ERROR, "reading the new keys failed");
		need_room(call, sizeof(Datum) * (SPI_processed + 1), "reading the new keys");
		keys = MemoryContextAlloc(call->context, sizeof(Datum) * (SPI_processed + 1));
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		isnull;

			keys[i] = SPI_getbinval(SPI_tuptable->vals[i], SPI_tuptable->tupdesc, 1, &isnull);
			if (isnull)
				minhash_near_dupe_report_null_key(call);
		}
		count = SPI_processed;
		from_spi = true;
	}
	/* copied into the array before SPI's tuples (a key may point there) go */
	get_typlenbyvalalign(call->key_type, &typlen, &typbyval, &typalign);
	old = MemoryContextSwitchTo(call->context);
	call->filter_arg = PointerGetDatum(construct_array(keys, (int) count, call->key_type,
													   typlen, typbyval, typalign));
	call->filter_arg_type = array_type;
	call->filter = psprintf(" WHERE %s %s ANY ($1)", key, table->key_equal);
	MemoryContextSwitchTo(old);
	pfree(keys);
	if (from_spi)
		SPI_freetuptable(SPI_tuptable);
}

/* --- the new groups ------------------------------------------------------ */

/*
 * The batch rule's walk over the new rows that join no stored group (rest,
 * ranks rest_rank[0 .. rest_count) in the probe), with the probe's band
 * keys: pivots[] and resemblance[] as minhash_near_dupe_walk fills them for
 * rest.  False, having placed nothing, without a probe, when it has no
 * layout (every row a candidate) or no room left for its bucket lists:
 * then minhash_near_dupe_walk groups them, within the call's memory.
 */
static bool
walk_with_probe(NearDupeCall *call, MhBandProbe *probe, uint32 full_count, const int64 *join_group,
				const uint32 *rest_rank, uint32 rest_count, uint32 *pivots, double *resemblance)
{
	uint32	   *probe_pivots;
	double	   *probe_resemblance;
	uint32	   *rest_of;
	MhStatus	status;

	if (probe == NULL)
		return false;
	probe_pivots = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) full_count);
	probe_resemblance = minhash_near_dupe_alloc(call, sizeof(double) * (Size) full_count);
	/* a row that joins a stored group is placed already */
	for (uint32 i = 0; i < full_count; i++)
		probe_pivots[i] = join_group[i] >= 0 ? i : PG_UINT32_MAX;
	status = mh_band_probe_walk(probe, minhash_cancel_pending, NULL, probe_pivots, probe_resemblance);
	if (status == MH_ERR_BANDS_RANGE || status == MH_ERR_TOO_LARGE)
	{
		pfree(probe_pivots);
		pfree(probe_resemblance);
		return false;
	}
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status != MH_OK)
		minhash_report_core_failure(status, "group the rows to append");
	/* from the probe's rows (ranks) to rest's */
	rest_of = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) full_count);
	for (uint32 r = 0; r < rest_count; r++)
		rest_of[rest_rank[r]] = r;
	for (uint32 r = 0; r < rest_count; r++)
	{
		pivots[r] = rest_of[probe_pivots[rest_rank[r]]];
		resemblance[r] = probe_resemblance[rest_rank[r]];
	}
	pfree(rest_of);
	pfree(probe_pivots);
	pfree(probe_resemblance);
	return true;
}

/* --- the result ---------------------------------------------------------- */

static void
put_row(Tuplestorestate *store, TupleDesc desc, int64 group_id, Datum key, Datum pivot,
		double resemblance, bool resemblance_null)
{
	Datum		values[4];
	bool		nulls[4] = {false, false, false, resemblance_null};

	values[0] = Int64GetDatum(group_id);
	values[1] = key;
	values[2] = pivot;
	values[3] = Float8GetDatum(resemblance);
	tuplestore_putvalues(store, desc, values, nulls);
}

PG_FUNCTION_INFO_V1(minhash_near_dupe_groups_append);
/*
 * near_dupe_groups_append(groups regclass, source regclass, key_column name,
 * sig_column name, threshold float8 DEFAULT minhash_threshold()): the rows
 * of source whose key groups does not hold, as rows of groups (keys as
 * text); near_dupe_groups_append(groups, source, key_column, sig_column,
 * threshold, key_type anyelement, recall float8 DEFAULT NULL): keys in
 * their own type, and with a recall, candidates from the approximate layout.
 */
Datum
minhash_near_dupe_groups_append(PG_FUNCTION_ARGS)
{
	NearDupeCall call;
	GroupTable	table;
	AppendHits	kept = {0};
	uint32	   *ranked,
			   *by_key;
	uint32		full_count = 0,
				rest_count = 0,
				recall_bands = 0,
				recall_rows = 0;
	uint32	   *rest,
			   *rest_rank;
	uint32	   *pivots;
	double	   *resemblance;
	int64	   *join_group,
			   *group_of;
	uint32	   *join_old,
			   *join_agreeing;
	Datum	   *pivot_text;
	int64		next_id;
	bool		approximate = PG_NARGS() >= 7 && !PG_ARGISNULL(6);
	char	   *schema = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
	TupleDesc	desc;
	Tuplestorestate *store;
	ProbeHolder *holder = NULL;
	const uint32 **signatures = NULL;
	uint8	   *empty = NULL;
	uint64		probe_memory = 0;

	store = minhash_materialize_result(fcinfo, &desc);
	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("group table must not be null"),
				 errhint(GROUP_TABLE_HINT)));
	minhash_near_dupe_begin_at(fcinfo, 1, NEAR_DUPE_APPEND,
							   PG_NARGS() >= 6 && TupleDescAttr(desc, 1)->atttypid != TEXTOID,
							   TupleDescAttr(desc, 1)->atttypid, &call);
	call.approximate = approximate;
	check_group_table(&call, PG_GETARG_OID(0), schema, &table);
	if (approximate)
		minhash_check_recall(PG_GETARG_FLOAT8(6));
	choose_new_rows(&call, &table);
	minhash_near_dupe_read(&call);
	if (approximate && call.signed_count > 0)
		minhash_recall_layout(call.threshold, PG_GETARG_FLOAT8(6), call.params.num_perm,
							  &recall_bands, &recall_rows);

	/* key order (refusing a key twice), kept for telling new keys apart */
	ranked = minhash_near_dupe_key_order(&call);
	by_key = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) call.signed_count);
	memcpy(by_key, ranked, sizeof(uint32) * (Size) call.signed_count);
	minhash_near_dupe_sort(&call, ranked, call.count, minhash_near_dupe_compare_rank);
	/* rank order puts the empty sets last among the signed rows */
	while (full_count < call.signed_count && call.rows[ranked[full_count]].size > 0)
		full_count++;

	join_group = minhash_near_dupe_alloc(&call, sizeof(int64) * (Size) Max(full_count, 1));
	join_old = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) Max(full_count, 1));
	join_agreeing = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) Max(full_count, 1));
	for (uint32 i = 0; i < full_count; i++)
		join_group[i] = -1;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	next_id = largest_group_id(&table) + 1;
	if (full_count > 0)
	{
		uint64		memory;
		MhStatus	status;

		minhash_near_dupe_engine_input(&call, ranked, full_count, &signatures, &empty);
		holder = MemoryContextAllocZero(call.context, sizeof(ProbeHolder));
		holder->release.func = release_probe;
		holder->release.arg = holder;
		MemoryContextRegisterResetCallback(call.context, &holder->release);
		status = mh_band_probe_build(signatures, empty, full_count, call.params.num_perm,
									 call.threshold, recall_bands, recall_rows,
									 minhash_near_dupe_room(&call), minhash_cancel_pending, NULL,
									 &holder->probe, &memory);
		if (status == MH_ERR_INTERRUPTED)
			minhash_end_interrupted();
		if (status == MH_ERR_TOO_LARGE)
			minhash_near_dupe_refuse(&call, minhash_near_dupe_held(&call) + memory, true,
									 psprintf("%u new rows, %u of them with a signature of %u values, at threshold %g: the rows take %llu kB, and their band keys up to %llu kB more.",
											  call.count, full_count, call.params.num_perm, call.threshold,
											  (unsigned long long) (minhash_near_dupe_held(&call) / 1024),
											  (unsigned long long) (memory / 1024)));
		if (status != MH_OK)
			minhash_report_core_failure(status, "hold the rows to append");
		call.outside += memory;
		probe_memory = memory;

		stream_stored_rows(&call, holder->probe, by_key, call.signed_count, &kept);
	}
	group_of = minhash_near_dupe_alloc(&call, sizeof(int64) * (Size) Max(kept.old_count, 1));
	pivot_text = minhash_near_dupe_alloc(&call, sizeof(Datum) * (Size) Max(kept.old_count, 1));
	look_up_pivots(&call, &table, &kept, group_of, pivot_text);
	SPI_finish();

	/* each new row's best stored pivot: most agreeing, then smallest group_id */
	for (uint64 h = 0; h < kept.count; h++)
	{
		const AppendHit *hit = &kept.hits[h];
		int64		group = group_of[hit->old];

		if (group < 0)
			continue;
		if (join_group[hit->rank] < 0 || hit->agreeing > join_agreeing[hit->rank] ||
			(hit->agreeing == join_agreeing[hit->rank] && group < join_group[hit->rank]))
		{
			join_group[hit->rank] = group;
			join_old[hit->rank] = hit->old;
			join_agreeing[hit->rank] = hit->agreeing;
		}
	}

	/* the others, grouped among themselves by the batch rule */
	rest = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) Max(full_count, 1));
	rest_rank = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) Max(full_count, 1));
	for (uint32 i = 0; i < full_count; i++)
		if (join_group[i] < 0)
		{
			rest_rank[rest_count] = i;
			rest[rest_count++] = ranked[i];
		}
	pivots = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) Max(rest_count, 1));
	resemblance = minhash_near_dupe_alloc(&call, sizeof(double) * (Size) Max(rest_count, 1));
	if (rest_count > 0 &&
		!walk_with_probe(&call, holder != NULL ? holder->probe : NULL, full_count, join_group, rest_rank,
						 rest_count, pivots, resemblance))
		minhash_near_dupe_walk(&call, rest, rest_count, recall_bands, recall_rows, pivots,
							   resemblance);
	if (holder != NULL)
	{
		/* the probe is done with */
		call.outside -= probe_memory;
		mh_band_probe_free(holder->probe);
		holder->probe = NULL;
		pfree(signatures);
		pfree(empty);
	}

	/* the rows joining stored groups, in rank order */
	for (uint32 i = 0; i < full_count; i++)
	{
		if (join_group[i] < 0)
			continue;
		put_row(store, desc, join_group[i], minhash_near_dupe_result_key(&call, ranked[i]),
				call.typed_keys ? kept.old_keys[join_old[i]] : pivot_text[join_old[i]],
				(double) join_agreeing[i] / call.params.num_perm, false);
		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	/* the new groups, numbered in pivot rank order, each pivot first */
	{
		uint32	   *first = minhash_near_dupe_alloc(&call, sizeof(uint32) * ((Size) rest_count + 1));
		uint32	   *members = minhash_near_dupe_alloc(&call, sizeof(uint32) * (Size) Max(rest_count, 1));

		memset(first, 0, sizeof(uint32) * ((Size) rest_count + 1));
		for (uint32 i = 0; i < rest_count; i++)
			first[pivots[i] + 1]++;
		for (uint32 p = 0; p < rest_count; p++)
			first[p + 1] += first[p];
		for (uint32 i = 0; i < rest_count; i++)
			members[first[pivots[i]]++] = i;
		for (uint32 p = rest_count; p > 0; p--)
			first[p] = first[p - 1];
		first[0] = 0;
		for (uint32 p = 0; p < rest_count; p++)
		{
			if (pivots[p] != p)
				continue;
			for (uint32 m = first[p]; m < first[p + 1]; m++)
			{
				put_row(store, desc, next_id, minhash_near_dupe_result_key(&call, rest[members[m]]),
						minhash_near_dupe_result_key(&call, rest[p]), resemblance[members[m]], false);
				if ((m & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
			}
			next_id++;
		}
	}
	/* empty sets, then rows without a signature: each a group of its own */
	for (uint32 i = full_count; i < call.count; i++)
	{
		Datum		key = minhash_near_dupe_result_key(&call, ranked[i]);

		put_row(store, desc, next_id++, key, key, 0.0, i >= call.signed_count);
		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	minhash_near_dupe_end(&call);
	return (Datum) 0;
}
