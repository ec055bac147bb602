/*
 * minhash_near_dupe_append_slots.c
 *	  near_dupe_groups_append(): the new keys of an integer key column without
 *	  the executor's hash join.  The group table is read once into a slot a
 *	  key of the source's key range (4 bytes each: empty, stored, or stored
 *	  as the pivot of group g), which also gives the largest group_id, the
 *	  lowest resemblance of a stored member, and later the kept rows' groups.
 *	  The new keys are then the empty slots where they are few, else the
 *	  source's keys whose slot is empty.
 */
#include "postgres.h"

#include <math.h>

#include "access/table.h"
#include "access/tableam.h"
#include "catalog/pg_class.h"
#include "catalog/pg_collation.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "minhash.h"
#include "minhash_near_dupe_append.h"

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
int64
minhash_append_integer_datum(Oid base_type, Datum value)
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
uint32 *
minhash_append_stored_slot(const StoredKeys *set, int64 key)
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
		value = minhash_append_integer_datum(column_type, key);
	else
	{
		text	   *key_text = DatumGetTextPP(key);
		bool		integer = canonical_integer(VARDATA_ANY(key_text), VARSIZE_ANY_EXHDR(key_text), min, max, &value);

		if ((Pointer) key_text != DatumGetPointer(key))
			pfree(key_text);
		if (!integer)
			return;
	}
	slot = minhash_append_stored_slot(set, value);
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
		return minhash_append_integer_datum(column_type, key) == minhash_append_integer_datum(column_type, pivot);
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
	minhash_append_need_room(call, sizeof(Datum) * Max(empty, 1), "reading the new keys");
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
 * Whether a group table of text keys tells its pivots by key = pivot as
 * texts under the key's collation; a pivot column of another collation
 * makes that comparison a conflict, and the pivots then come from a query.
 */
static bool
pivots_compare(const GroupTable *table, Oid key_collation)
{
	Oid			pivot_type;
	int32		pivot_typmod;
	Oid			pivot_collation;

	if (!table->by_text)
		return true;
	get_atttypetypmodcoll(table->relation, get_attnum(table->relation, "pivot"), &pivot_type, &pivot_typmod,
						  &pivot_collation);
	return pivot_collation == key_collation;
}

/*
 * Whether the group table may be scanned directly: a plain table without
 * children, whose resemblance is a float, that the caller may read whole
 * (no row-level security) and that Citus does not distribute.
 */
static bool
group_table_scannable(const GroupTable *table)
{
	Oid			resemblance_type = get_atttype(table->relation, get_attnum(table->relation, "resemblance"));

	return get_rel_relkind(table->relation) == RELKIND_RELATION && !has_subclass(table->relation) &&
		(resemblance_type == FLOAT8OID || resemblance_type == FLOAT4OID) &&
		pg_class_aclcheck(table->relation, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
		check_enable_rls(table->relation, InvalidOid, false) != RLS_ENABLED &&
		!minhash_append_is_citus_table(table->relation);
}

/* How the stored rows are read into the slots. */
typedef struct SlotsRead
{
	StoredKeys *set;
	GroupTable *table;
	Oid			column_type;	/* the key column's base type */
	Oid			group_id_type;
	int64		min;			/* the key type's range */
	int64		max;
	bool		pivots_compare;
} SlotsRead;

/*
 * One stored row into the slots: its key (is_pivot: as the pivot of
 * group_id), the largest group_id, and a member's resemblance (member:
 * NaN for none) into the lowest.
 */
static void
add_stored_row(SlotsRead *read, bool key_null, Datum key, bool group_null, int64 group_id,
			   bool is_pivot, double member)
{
	int64		pivot_of = -1;

	if (!isnan(member))
		read->table->lowest_member = Min(read->table->lowest_member, member);
	if (!group_null)
	{
		read->set->largest_group_id = Max(read->set->largest_group_id, group_id);
		if (is_pivot)
			pivot_of = group_id;
	}
	if (!key_null)
		add_stored_key(read->set, read->table, read->column_type, key, pivot_of, read->min, read->max);
}

/* The stored rows into the slots by a scan of the group table, with no copy of a row. */
static void
scan_stored_rows(SlotsRead *read)
{
	Oid			relid = read->table->relation;
	Relation	relation = table_open(relid, AccessShareLock);
	AttrNumber	key_attnum = get_attnum(relid, "key");
	AttrNumber	pivot_attnum = get_attnum(relid, "pivot");
	AttrNumber	group_id_attnum = get_attnum(relid, "group_id");
	AttrNumber	resemblance_attnum = get_attnum(relid, "resemblance");
	bool		float8_resemblance = get_atttype(relid, resemblance_attnum) == FLOAT8OID;
	TupleTableSlot *slot = table_slot_create(relation, NULL);
	TableScanDesc scan = table_beginscan(relation, GetActiveSnapshot(), 0, NULL);
	uint64		seen = 0;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		key_null,
					pivot_null,
					group_null,
					resemblance_null;
		Datum		key = slot_getattr(slot, key_attnum, &key_null);
		Datum		pivot = slot_getattr(slot, pivot_attnum, &pivot_null);
		Datum		group_id = slot_getattr(slot, group_id_attnum, &group_null);
		Datum		resemblance = slot_getattr(slot, resemblance_attnum, &resemblance_null);
		bool		is_pivot = !key_null && !pivot_null &&
			row_is_pivot(read->table, read->column_type, key, pivot);
		double		member = NAN;

		if (!key_null && !pivot_null && !resemblance_null && !is_pivot)
			member = float8_resemblance ? DatumGetFloat8(resemblance) : (double) DatumGetFloat4(resemblance);
		add_stored_row(read, key_null, key, group_null,
					   group_null ? 0 : minhash_append_integer_datum(read->group_id_type, group_id),
					   read->pivots_compare && is_pivot, member);
		if ((++seen & 0x3FF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	table_endscan(scan);
	ExecDropSingleTupleTableSlot(slot);
	table_close(relation, AccessShareLock);
}

/* The stored rows into the slots through a cursor (policies apply). */
static void
read_stored_rows(SlotsRead *read)
{
	const GroupTable *table = read->table;
	Portal		portal;

	portal = SPI_cursor_open_with_args(NULL,
									   psprintf("SELECT g.key, g.group_id::pg_catalog.int8, %s, %s FROM %s g",
												read->pivots_compare ?
												psprintf("%s %s %s", minhash_append_compared(table, "g.key"), table->equal,
														 minhash_append_compared(table, "g.pivot")) :
												"NULL::pg_catalog.bool",
												minhash_append_member_resemblance(table), table->name),
									   0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, 10000);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			HeapTuple	row = SPI_tuptable->vals[i];
			TupleDesc	desc = SPI_tuptable->tupdesc;
			bool		key_null,
						group_null,
						pivot_null,
						member_null;
			Datum		key = SPI_getbinval(row, desc, 1, &key_null);
			Datum		group_id = SPI_getbinval(row, desc, 2, &group_null);
			Datum		is_pivot = SPI_getbinval(row, desc, 3, &pivot_null);
			Datum		member = SPI_getbinval(row, desc, 4, &member_null);

			add_stored_row(read, key_null, key, group_null, group_null ? 0 : DatumGetInt64(group_id),
						   !pivot_null && DatumGetBool(is_pivot),
						   member_null ? NAN : DatumGetFloat8(member));
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
}

/*
 * The source's keys (an index-only scan, in key order) whose slot is empty.
 * The read of the range and this one are on one snapshot, and the source has
 * no row-level security here (minhash_append_choose_new_rows), so every key
 * lies in the range.
 */
static Datum *
source_keys_in_empty_slots(NearDupeCall *call, const StoredKeys *set, Oid key_base, uint64 *count)
{
	Portal		portal;
	Datum	   *keys = NULL;
	uint64		capacity = 0;

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
			slot = minhash_append_stored_slot(set, minhash_append_integer_datum(key_base, key));
			if (slot == NULL)
				elog(ERROR, "a key of the source lies outside the range of its keys");
			if (*slot != 0)
				continue;
			if (*count == capacity)
			{
				capacity = Max(1024, capacity * 2);
				minhash_append_need_room(call, sizeof(Datum) * capacity, "reading the new keys");
				keys = keys == NULL ? MemoryContextAllocExtended(call->context, sizeof(Datum) * capacity, MCXT_ALLOC_HUGE) :
					repalloc_huge(keys, sizeof(Datum) * capacity);
			}
			keys[(*count)++] = key;
		}
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	return keys != NULL ? keys : MemoryContextAlloc(call->context, sizeof(Datum));
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
Datum *
minhash_append_new_integer_keys(NearDupeCall *call, GroupTable *table, uint64 *count)
{
	SlotsRead	read;
	int32		column_typmod;
	Oid			collation;
	Oid			key_base = getBaseType(call->key_type);
	Datum	   *keys;

	/* Citus joins the group table with the shards where they are */
	if (!integer_key_range(call->key_type, &read.min, &read.max) || !call->filter_generic)
		return NULL;
	get_atttypetypmodcoll(table->relation, get_attnum(table->relation, "key"), &read.column_type,
						  &column_typmod, &collation);
	read.column_type = getBaseType(read.column_type);
	if (table->by_text && OidIsValid(collation) && !get_collation_isdeterministic(collation))
		return NULL;
	read.group_id_type = get_atttype(table->relation, get_attnum(table->relation, "group_id"));
	read.pivots_compare = pivots_compare(table, collation);
	read.table = table;
	read.set = MemoryContextAllocZero(call->context, sizeof(StoredKeys));
	if (!stored_keys_begin(call, read.set))
	{
		pfree(read.set);
		return NULL;
	}
	read.set->pivots = read.pivots_compare;
	if (group_table_scannable(table))
		scan_stored_rows(&read);
	else
		read_stored_rows(&read);

	*count = 0;
	table->stored = read.set;
	if (empty_slots_are_new_keys(call, read.set, key_base, &keys, count))
		return keys;
	return source_keys_in_empty_slots(call, read.set, key_base, count);
}
