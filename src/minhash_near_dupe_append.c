/*
 * minhash_near_dupe_append.c
 *	  near_dupe_groups_append(): the rows of a source that a stored grouping
 *	  (a table of near_dupe_groups' rows) does not hold yet, grouped without
 *	  moving a row that it holds.  This file runs the call phase by phase
 *	  and keeps what the phases share of its memory; the phases are in
 *	  minhash_near_dupe_append_*.c (minhash_near_dupe_append.h).
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
 * it is a group of its own, resemblance 0, after the other new groups.  A
 * row without a signature is not returned (a notice counts them): stored,
 * it would be skipped by every later append.
 *
 * How.  The call first locks the group table against other appends
 * (_groups.c), and refuses a threshold the stored grouping contradicts.
 * The new rows are read as near_dupe_groups reads a whole table
 * (minhash_near_dupe_source.c), through an anti-join of the source against
 * the group table, which PostgreSQL's executor runs within work_mem; for an
 * integer key with an index, the group table is read once into a slot a
 * key of the source's range instead (_slots.c), which also tells its
 * pivots and their groups.  The new rows are held with their band keys
 * (the engine's band probe, src/core/band_probe.cpp).  Then every signed
 * row of the source is streamed past once, its signature only (_stream.c):
 * each probes the new rows' keys, and only a row with a verified hit that
 * is not itself new is kept, with its hits.  The few rows so kept are
 * looked up (in the slots, or in the group table): those that are pivots
 * give their group.  So the call holds the new rows, their keys and the
 * hits (and the slots, 4 bytes a key), never the stored rows' signatures;
 * the stream holds one batch of rows at a time, as the read does.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/tuplestore.h"

#include "minhash.h"
#include "minhash_near_dupe_append.h"

/* --- what the phases share of the call's memory ------------------------- */

/*
 * How many rows a cursor fetches next: about FETCH_BYTES, as the read
 * fetches, from what the last batch of `processed` rows took.
 */
long
minhash_append_next_fetch(SPITupleTable *batch, uint64 processed)
{
	uint64		batch_bytes = MemoryContextMemAllocated(batch->tuptabcxt, true);

	return (long) Max(1, Min(10000, (uint64) FETCH_BYTES * processed / Max(batch_bytes, 1)));
}

/* Room in the call for `bytes` more, else 53400. */
void
minhash_append_need_room(NearDupeCall *call, uint64 bytes, const char *what)
{
	if (bytes + ALLOCSET_SMALL_MAXSIZE > minhash_near_dupe_room(call))
		minhash_near_dupe_refuse(call, minhash_near_dupe_held(call) + bytes, false,
								 psprintf("Its %u new rows take %llu kB, and %s needs %llu bytes more.",
										  call->count,
										  (unsigned long long) (minhash_near_dupe_held(call) / 1024),
										  what, (unsigned long long) bytes));
}

/* A grown copy of an array of `used` elements of `size` bytes, counted. */
void *
minhash_append_grow(NearDupeCall *call, void *array, uint64 used, uint64 capacity, Size size)
{
	void	   *bigger;

	minhash_append_need_room(call, capacity * size, "keeping the pairs it finds");
	bigger = MemoryContextAllocExtended(call->context, capacity * size, MCXT_ALLOC_HUGE);
	if (array != NULL)
	{
		memcpy(bigger, array, used * size);
		pfree(array);
	}
	return bigger;
}

/*
 * What a key not passed by value takes once copied into the call: a key read
 * from a table may be a TOAST pointer of a few bytes for a value of many
 * kB, so it is counted and copied detoasted.
 */
Size
minhash_append_key_size(const NearDupeCall *call, Datum key)
{
	if (call->key_byval)
		return 0;
	if (call->key_typlen == -1)
		return toast_raw_datum_size(key);
	return datumGetSize(key, false, call->key_typlen);
}

/* A copy of a key in the call's memory, detoasted. */
Datum
minhash_append_copy_key(NearDupeCall *call, Datum key)
{
	MemoryContext old;
	Datum		copy;

	if (call->key_byval)
		return key;
	old = MemoryContextSwitchTo(call->context);
	copy = call->key_typlen == -1 ? PointerGetDatum(PG_DETOAST_DATUM_COPY(key)) :
		datumCopy(key, false, call->key_typlen);
	MemoryContextSwitchTo(old);
	return copy;
}

/* --- the probe, the new groups and the result ---------------------------- */

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

/*
 * Rows without a signature are not placed: stored, they would be skipped by
 * every later append (their key is stored), so they would never join a
 * group.  Left out, they are new rows again once signed.
 */
static void
report_unsigned_rows(const NearDupeCall *call)
{
	uint32		unsigned_rows = call->count - call->signed_count;

	if (unsigned_rows == 0)
		return;
	ereport(NOTICE,
			(errmsg("%u new rows of \"%s\" have no signature and were left out",
					unsigned_rows, get_rel_name(call->relation)),
			 errhint("Sign them (UPDATE ... SET %s = minhash(...)) and append again: a later append places them.",
					 quote_identifier(call->sig_column))));
}

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

/* --- the call, phase by phase -------------------------------------------- */

/* What the phases of one call carry from one to the next. */
typedef struct AppendCall
{
	NearDupeCall call;
	GroupTable	table;
	bool		fresh_snapshot; /* a snapshot pushed after the lock */
	uint32		recall_bands;	/* the approximate layout, else 0 */
	uint32		recall_rows;
	int64		next_id;		/* the first new group's id */

	/* the new rows: rank order, signed key order, the non-empty signed ones */
	uint32	   *ranked;
	uint32	   *by_key;
	uint32		full_count;

	/* the probe of the new rows' band keys, and what it was built from */
	ProbeHolder *holder;
	uint64		probe_memory;
	const uint32 **signatures;
	uint8	   *empty;

	/* the stored rows kept, and the stored group each new row joins (-1: none) */
	AppendHits	kept;
	int64	   *join_group;
	uint32	   *join_old;		/* the kept row it joins */
	uint32	   *join_agreeing;
	Datum	   *pivot_text;		/* a kept pivot's key as text (text results) */

	/* the rows that join none, grouped: rest[i] (rank rest_rank[i]) */
	uint32	   *rest;
	uint32	   *rest_rank;
	uint32		rest_count;
	uint32	   *pivots;
	double	   *resemblance;
} AppendCall;

/*
 * Checks the call, locks the group table, chooses the new rows, checks the
 * threshold against the stored grouping and reads the new rows.
 */
static void
begin_append(FunctionCallInfo fcinfo, TupleDesc desc, AppendCall *append)
{
	bool		approximate = PG_NARGS() >= 7 && !PG_ARGISNULL(6);
	char	   *schema = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
	NearDupeCall *call = &append->call;

	if (PG_ARGISNULL(0))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("group table must not be null"),
				 errhint(GROUP_TABLE_HINT)));
	minhash_near_dupe_begin_at(fcinfo, 1, NEAR_DUPE_APPEND,
							   PG_NARGS() >= 6 && TupleDescAttr(desc, 1)->atttypid != TEXTOID,
							   TupleDescAttr(desc, 1)->atttypid, call);
	call->approximate = approximate;
	minhash_append_check_group_table(call, PG_GETARG_OID(0), schema, &append->table);
	if (approximate)
		minhash_check_recall(PG_GETARG_FLOAT8(6));
	append->fresh_snapshot = minhash_append_lock_group_table(&append->table);
	minhash_append_choose_new_rows(call, &append->table);
	append->next_id = minhash_append_read_summary(&append->table) + 1;
	minhash_append_check_threshold(call, &append->table);
	minhash_near_dupe_read(call);
	if (approximate && call->signed_count > 0)
		minhash_recall_layout(call->threshold, PG_GETARG_FLOAT8(6), call->params.num_perm,
							  &append->recall_bands, &append->recall_rows);
}

/*
 * The new rows in key order (refusing a key twice; kept for telling new
 * keys apart) and in rank order, where the empty sets come last among the
 * signed rows: full_count signed rows with words.
 */
static void
rank_new_rows(AppendCall *append)
{
	NearDupeCall *call = &append->call;

	append->ranked = minhash_near_dupe_key_order(call);
	append->by_key = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) call->signed_count);
	memcpy(append->by_key, append->ranked, sizeof(uint32) * (Size) call->signed_count);
	minhash_near_dupe_sort(call, append->ranked, call->count, minhash_near_dupe_compare_rank);
	append->full_count = 0;
	while (append->full_count < call->signed_count && call->rows[append->ranked[append->full_count]].size > 0)
		append->full_count++;
}

/* The new rows' band keys, held (the engine's band probe), counted. */
static void
build_probe(AppendCall *append)
{
	NearDupeCall *call = &append->call;
	uint64		memory;
	MhStatus	status;

	minhash_near_dupe_engine_input(call, append->ranked, append->full_count, &append->signatures,
								   &append->empty);
	append->holder = MemoryContextAllocZero(call->context, sizeof(ProbeHolder));
	append->holder->release.func = release_probe;
	append->holder->release.arg = append->holder;
	MemoryContextRegisterResetCallback(call->context, &append->holder->release);
	status = mh_band_probe_build(append->signatures, append->empty, append->full_count, call->params.num_perm,
								 call->threshold, append->recall_bands, append->recall_rows,
								 minhash_near_dupe_room(call), minhash_cancel_pending, NULL,
								 &append->holder->probe, &memory);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status == MH_ERR_TOO_LARGE)
		minhash_near_dupe_refuse(call, minhash_near_dupe_held(call) + memory, true,
								 psprintf("%u new rows, %u of them with a signature of %u values, at threshold %g: the rows take %llu kB, and their band keys up to %llu kB more.",
										  call->count, append->full_count, call->params.num_perm, call->threshold,
										  (unsigned long long) (minhash_near_dupe_held(call) / 1024),
										  (unsigned long long) (memory / 1024)));
	if (status != MH_OK)
		minhash_report_core_failure(status, "hold the rows to append");
	call->outside += memory;
	append->probe_memory = memory;
}

/*
 * The stored rows that resemble a new one (the stream past the probe), and
 * their groups where they are pivots.
 */
static void
find_stored_pivots(AppendCall *append, int64 **group_of)
{
	NearDupeCall *call = &append->call;

	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (append->full_count > 0)
	{
		build_probe(append);
		minhash_append_stream_stored_rows(call, append->holder->probe, append->by_key, call->signed_count,
										  &append->kept);
	}
	*group_of = minhash_near_dupe_alloc(call, sizeof(int64) * (Size) Max(append->kept.old_count, 1));
	append->pivot_text = minhash_near_dupe_alloc(call, sizeof(Datum) * (Size) Max(append->kept.old_count, 1));
	minhash_append_look_up_pivots(call, &append->table, &append->kept, *group_of, append->pivot_text);
	SPI_finish();
}

/* Each new row's best stored pivot: most agreeing, then smallest group_id. */
static void
join_stored_groups(AppendCall *append, const int64 *group_of)
{
	NearDupeCall *call = &append->call;
	Size		rows = (Size) Max(append->full_count, 1);

	append->join_group = minhash_near_dupe_alloc(call, sizeof(int64) * rows);
	append->join_old = minhash_near_dupe_alloc(call, sizeof(uint32) * rows);
	append->join_agreeing = minhash_near_dupe_alloc(call, sizeof(uint32) * rows);
	for (uint32 i = 0; i < append->full_count; i++)
		append->join_group[i] = -1;
	for (uint64 h = 0; h < append->kept.count; h++)
	{
		const AppendHit *hit = &append->kept.hits[h];
		int64		group = group_of[hit->old];

		if (group < 0)
			continue;
		if (append->join_group[hit->rank] < 0 || hit->agreeing > append->join_agreeing[hit->rank] ||
			(hit->agreeing == append->join_agreeing[hit->rank] && group < append->join_group[hit->rank]))
		{
			append->join_group[hit->rank] = group;
			append->join_old[hit->rank] = hit->old;
			append->join_agreeing[hit->rank] = hit->agreeing;
		}
	}
}

/*
 * The new rows that join no stored group, grouped among themselves by the
 * batch rule (with the probe's band keys where it can); then the probe is
 * let go of.
 */
static void
group_the_rest(AppendCall *append)
{
	NearDupeCall *call = &append->call;
	Size		rows = (Size) Max(append->full_count, 1);

	append->rest = minhash_near_dupe_alloc(call, sizeof(uint32) * rows);
	append->rest_rank = minhash_near_dupe_alloc(call, sizeof(uint32) * rows);
	append->rest_count = 0;
	for (uint32 i = 0; i < append->full_count; i++)
		if (append->join_group[i] < 0)
		{
			append->rest_rank[append->rest_count] = i;
			append->rest[append->rest_count++] = append->ranked[i];
		}
	append->pivots = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) Max(append->rest_count, 1));
	append->resemblance = minhash_near_dupe_alloc(call, sizeof(double) * (Size) Max(append->rest_count, 1));
	if (append->rest_count > 0 &&
		!walk_with_probe(call, append->holder != NULL ? append->holder->probe : NULL, append->full_count,
						 append->join_group, append->rest_rank, append->rest_count, append->pivots,
						 append->resemblance))
		minhash_near_dupe_walk(call, append->rest, append->rest_count, append->recall_bands,
							   append->recall_rows, append->pivots, append->resemblance);
	if (append->holder != NULL)
	{
		call->outside -= append->probe_memory;
		mh_band_probe_free(append->holder->probe);
		append->holder->probe = NULL;
		pfree(append->signatures);
		pfree(append->empty);
	}
}

/* The rows joining stored groups, in rank order. */
static void
put_joined_rows(AppendCall *append, Tuplestorestate *store, TupleDesc desc)
{
	NearDupeCall *call = &append->call;

	for (uint32 i = 0; i < append->full_count; i++)
	{
		uint32		old = append->join_old[i];

		if (append->join_group[i] < 0)
			continue;
		put_row(store, desc, append->join_group[i], minhash_near_dupe_result_key(call, append->ranked[i]),
				call->typed_keys ? append->kept.old_keys[old] : append->pivot_text[old],
				(double) append->join_agreeing[i] / call->params.num_perm, false);
		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/* The new groups, numbered in pivot rank order, each pivot first. */
static void
put_new_groups(AppendCall *append, Tuplestorestate *store, TupleDesc desc)
{
	NearDupeCall *call = &append->call;
	uint32		count = append->rest_count;
	uint32	   *first = minhash_near_dupe_alloc(call, sizeof(uint32) * ((Size) count + 1));
	uint32	   *members = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) Max(count, 1));

	/* members by pivot: a counting sort, stable, so each pivot's come in rank order */
	memset(first, 0, sizeof(uint32) * ((Size) count + 1));
	for (uint32 i = 0; i < count; i++)
		first[append->pivots[i] + 1]++;
	for (uint32 p = 0; p < count; p++)
		first[p + 1] += first[p];
	for (uint32 i = 0; i < count; i++)
		members[first[append->pivots[i]]++] = i;
	for (uint32 p = count; p > 0; p--)
		first[p] = first[p - 1];
	first[0] = 0;
	for (uint32 p = 0; p < count; p++)
	{
		if (append->pivots[p] != p)
			continue;
		for (uint32 m = first[p]; m < first[p + 1]; m++)
		{
			put_row(store, desc, append->next_id,
					minhash_near_dupe_result_key(call, append->rest[members[m]]),
					minhash_near_dupe_result_key(call, append->rest[p]), append->resemblance[members[m]], false);
			if ((m & 0xFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
		append->next_id++;
	}
}

/* The empty sets: each a group of its own, resemblance 0. */
static void
put_empty_rows(AppendCall *append, Tuplestorestate *store, TupleDesc desc)
{
	NearDupeCall *call = &append->call;

	for (uint32 i = append->full_count; i < call->signed_count; i++)
	{
		Datum		key = minhash_near_dupe_result_key(call, append->ranked[i]);

		put_row(store, desc, append->next_id++, key, key, 0.0, false);
		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
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
	AppendCall	append;
	TupleDesc	desc;
	Tuplestorestate *store = minhash_materialize_result(fcinfo, &desc);
	int64	   *group_of;

	memset(&append, 0, sizeof(append));
	begin_append(fcinfo, desc, &append);
	rank_new_rows(&append);
	find_stored_pivots(&append, &group_of);
	join_stored_groups(&append, group_of);
	group_the_rest(&append);
	put_joined_rows(&append, store, desc);
	put_new_groups(&append, store, desc);
	put_empty_rows(&append, store, desc);
	report_unsigned_rows(&append.call);
	minhash_near_dupe_end(&append.call);
	if (append.fresh_snapshot)
		PopActiveSnapshot();
	return (Datum) 0;
}
