/*
 * minhash_near_dupe_append_stream.c
 *	  near_dupe_groups_append(): every signed row of the source streamed past
 *	  the new rows' band keys, its signature only; a row that is not new and
 *	  resembles a new one at the threshold is kept, with its hits.  Then the
 *	  kept rows that are pivots give their groups (from the slots, or one
 *	  query on the group table).
 */
#include "postgres.h"

#include "access/detoast.h"
#include "access/htup_details.h"
#include "access/table.h"
#include "access/tableam.h"
#include "executor/spi.h"
#include "executor/tuptable.h"
#include "miscadmin.h"
#include "storage/bufmgr.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/snapmgr.h"

#include "minhash.h"
#include "minhash_near_dupe_append.h"

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

		kept->old_keys = minhash_append_grow(call, kept->old_keys, kept->old_count, capacity, sizeof(Datum));
		kept->old_capacity = capacity;
	}
	if (!call->key_byval)
		minhash_append_need_room(call, minhash_append_key_size(call, key), "keeping the keys of the rows it matches");
	kept->old_keys[kept->old_count] = minhash_append_copy_key(call, key);
	for (uint32 f = 0; f < found; f++)
	{
		if (kept->count == kept->capacity)
		{
			uint64		capacity = Max(256, kept->capacity * 2);

			kept->hits = minhash_append_grow(call, kept->hits, kept->count, capacity, sizeof(AppendHit));
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
 * The stream by a scan of the table on the calling query's snapshot, with
 * no copy of a row (most of a stream's time would otherwise be SPI's copy
 * of each row).
 */
static void
stream_by_scan(Stream *stream)
{
	NearDupeCall *call = stream->call;
	Relation	relation = table_open(call->relation, AccessShareLock);
	AttrNumber	key_attnum = get_attnum(call->relation, call->key_column);
	AttrNumber	sig_attnum = get_attnum(call->relation, call->sig_column);
	TupleTableSlot *slot = table_slot_create(relation, NULL);
	TableScanDesc scan = table_beginscan(relation, GetActiveSnapshot(), 0, NULL);
	MemoryContext per_row = AllocSetContextCreate(CurrentMemoryContext, "near_dupe_groups_append row",
												  ALLOCSET_SMALL_SIZES);
	Buffer		last_buffer = InvalidBuffer;
	uint64		seen = 0;

	while (table_scan_getnextslot(scan, ForwardScanDirection, slot))
	{
		bool		key_null,
					sig_null;
		Datum		key;
		Datum		sig;

		/*
		 * A page new to the scan is asked for whole, at once: it has most
		 * likely just been copied in from the kernel's cache (a table larger
		 * than a quarter of shared_buffers is read through a small ring) and
		 * is not in the CPU's cache, so each tuple's header, attributes and
		 * signature would otherwise be a miss of its own, one after another.
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

			stream_row(stream, key, sig);
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

/* The stream through a cursor, about FETCH_BYTES at a time. */
static void
stream_by_cursor(Stream *stream)
{
	NearDupeCall *call = stream->call;
	Portal		portal;
	long		fetch = 16;

	portal = SPI_cursor_open_with_args(NULL,
									   psprintf("SELECT s.%s, s.%s FROM ONLY %s s WHERE s.%s IS NOT NULL",
												quote_identifier(call->key_column), quote_identifier(call->sig_column),
												quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
																		   get_rel_name(call->relation)),
												quote_identifier(call->sig_column)),
									   0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, fetch);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed; i++)
		{
			bool		key_null,
						sig_null;
			Datum		key = heap_getattr(SPI_tuptable->vals[i], 1, SPI_tuptable->tupdesc, &key_null);
			Datum		sig = heap_getattr(SPI_tuptable->vals[i], 2, SPI_tuptable->tupdesc, &sig_null);

			if (!key_null && !sig_null)
				stream_row(stream, key, sig);
		}
		fetch = minhash_append_next_fetch(SPI_tuptable, SPI_processed);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
}

/*
 * Streams every signed row of the source past the probe.  The read of the
 * new rows has checked the caller's privileges on both columns; without
 * row-level security the rows come straight from a scan of the table; with
 * it, through a cursor, so that the policies apply as they did to the read.
 * A table Citus distributes is read through a cursor too: on the
 * coordinator its own heap is an empty shell, the rows are in the shards,
 * which only a query reaches.  Run while SPI is connected.
 */
void
minhash_append_stream_stored_rows(NearDupeCall *call, MhBandProbe *probe, const uint32 *by_key,
								  uint32 by_key_count, AppendHits *kept)
{
	Stream		stream;

	stream.call = call;
	stream.probe = probe;
	stream.by_key = by_key;
	stream.by_key_count = by_key_count;
	stream.found_rows = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) Max(call->count, 1));
	stream.found_agreeing = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) Max(call->count, 1));
	stream.kept = kept;
	if (check_enable_rls(call->relation, InvalidOid, false) != RLS_ENABLED &&
		!minhash_append_is_citus_table(call->relation))
		stream_by_scan(&stream);
	else
		stream_by_cursor(&stream);
	pfree(stream.found_rows);
	pfree(stream.found_agreeing);
}

/*
 * The kept rows' groups from the pivots read with the stored keys (their
 * slots).  A pivot's text is its key's (key::text), which is what the query
 * returns.
 */
static void
look_up_kept_pivots(NearDupeCall *call, const GroupTable *table, const AppendHits *kept,
					int64 *group_of, Datum *pivot_text)
{
	Oid			key_base = getBaseType(call->key_type);

	for (uint32 i = 0; i < kept->old_count; i++)
	{
		int64		key = minhash_append_integer_datum(key_base, kept->old_keys[i]);
		const uint32 *slot = minhash_append_stored_slot(table->stored, key);

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
 * One row of the pivots' query (kept row number, group_id, key::text): the
 * kept row's group, and its text for a text result, counted.
 */
static void
take_pivot(NearDupeCall *call, HeapTuple row, TupleDesc desc, int64 *group_of, Datum *pivot_text)
{
	bool		isnull;
	int64		i = DatumGetInt64(SPI_getbinval(row, desc, 1, &isnull)) - 1;
	Datum		group_id = SPI_getbinval(row, desc, 2, &isnull);
	Datum		text_key;
	MemoryContext old;

	/* a negative group_id is no group to join (and none that near_dupe_groups makes) */
	if (isnull || DatumGetInt64(group_id) < 0)
		return;
	/* a key stored twice: its smaller group */
	if (group_of[i] >= 0 && group_of[i] <= DatumGetInt64(group_id))
		return;
	group_of[i] = DatumGetInt64(group_id);
	if (call->typed_keys)
		return;
	text_key = SPI_getbinval(row, desc, 3, &isnull);
	minhash_append_need_room(call, toast_raw_datum_size(text_key), "keeping the pivots' keys");
	old = MemoryContextSwitchTo(call->context);
	pivot_text[i] = PointerGetDatum(PG_DETOAST_DATUM_COPY(text_key));
	MemoryContextSwitchTo(old);
}

/*
 * For each kept stored row, its group when it is a pivot (else -1), and its
 * key as the result carries a pivot: group_of[] and pivot_text[] (text
 * results only).  One query, the kept keys as an array; or the pivots read
 * with the stored keys (look_up_kept_pivots).
 */
void
minhash_append_look_up_pivots(NearDupeCall *call, const GroupTable *table, const AppendHits *kept,
			   int64 *group_of, Datum *pivot_text)
{
	Oid			array_type = get_array_type(call->key_type);
	int16		typlen;
	bool		typbyval;
	char		typalign;
	Datum		args[1];
	Oid			types[1];
	char	   *query;
	Portal		portal;
	long		fetch = 64;

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
					 table->name, minhash_append_compared(table, "g.key"), table->equal, minhash_append_compared(table, "k.key"),
					 minhash_append_compared(table, "g.key"), table->equal, minhash_append_compared(table, "g.pivot"));
	portal = SPI_cursor_open_with_args(NULL, query, 1, types, args, NULL, true, CURSOR_OPT_NO_SCROLL);
	for (;;)
	{
		SPI_cursor_fetch(portal, true, fetch);
		if (SPI_processed == 0)
			break;
		for (uint64 r = 0; r < SPI_processed; r++)
			take_pivot(call, SPI_tuptable->vals[r], SPI_tuptable->tupdesc, group_of, pivot_text);
		fetch = minhash_append_next_fetch(SPI_tuptable, SPI_processed);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
}
