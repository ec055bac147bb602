/*
 * minhash_near_dupe_groups.c
 *	  near_dupe_groups(): read a table's keys and signatures into memory
 *	  (minhash_near_dupe_source.c), rank the rows, let the engine walk them
 *	  (mh_group_greedy), return the groups.
 *
 * Rank: most distinct shingles first, then key in its type's order; rows
 * without a signature come last, each a group of its own.  Keys are unique
 * (the key sort refuses a duplicate), so the rank is a total order and the
 * groups depend only on the rows.  The rank sort is our own merge sort,
 * which checks for interrupts, as does the engine: nothing here runs for
 * long without a chance to cancel, and nothing is written to disk before
 * the result.
 *
 * Memory: the keys and signatures, the orders, the engine's input and
 * output and its band buckets, all counted against minhash.group_memory as
 * they are allocated (minhash_near_dupe_source.c).  A table that would pass
 * it (as soon as the read reaches the setting, or when the arrays below or
 * the engine's buckets would pass it) is read again and grouped by the same
 * engine with its large arrays in a temporary file (minhash_near_dupe_spill,
 * src/core/spill_file.cpp): the same rows in the same order, by
 * construction, the limit then temp_file_limit.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/* Rank order, on rows in key order: signed rows first, most distinct shingles first. */
int
minhash_near_dupe_compare_rank(const NearDupeCall *call, uint32 a, uint32 b)
{
	const NearDupeRow *ra = &call->rows[a],
			   *rb = &call->rows[b];

	if ((ra->values != NULL) != (rb->values != NULL))
		return ra->values != NULL ? -1 : 1;
	if (ra->size != rb->size)
		return ra->size > rb->size ? -1 : 1;
	return 0;
}

/*
 * The engine's walk over the signed rows, ranked[0 .. count): exact (bands
 * 0), or with candidates from the given approximate layout; it may hold
 * what the call may still hold.
 */
bool
minhash_near_dupe_walk(NearDupeCall *call, const uint32 *ranked, uint32 count, uint32 bands,
			uint32 band_rows, uint32 *pivots, double *resemblance)
{
	const uint32 **signatures;
	uint8	   *empty;
	uint64		memory;
	MhStatus	status;

	minhash_near_dupe_engine_input(call, ranked, count, &signatures, &empty);
	if (bands == 0)
		status = mh_group_greedy(signatures, empty, count, call->params.num_perm, call->threshold,
								 minhash_near_dupe_room(call), minhash_cancel_pending, NULL,
								 pivots, resemblance, &memory);
	else
		status = mh_group_greedy_banded(signatures, empty, count, call->params.num_perm,
										call->threshold, bands, band_rows,
										minhash_near_dupe_room(call), minhash_cancel_pending,
										NULL, pivots, resemblance, &memory);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status == MH_ERR_TOO_LARGE)
	{
		uint64		held = minhash_near_dupe_held(call);
		char	   *detail = psprintf("%u rows, %u of them with a signature of %u values, at threshold %g: the rows take %llu kB, and the grouping's band buckets up to %llu kB more.",
									  call->count, count, call->params.num_perm, call->threshold,
									  (unsigned long long) (held / 1024),
									  (unsigned long long) (memory / 1024));

		if (!call->can_spill)
			minhash_near_dupe_refuse(call, held + memory, true, detail);
		minhash_near_dupe_announce_spill(call, held + memory, true, detail);
		minhash_near_dupe_free(call, signatures, sizeof(uint32 *) * (Size) count);
		minhash_near_dupe_free(call, empty, sizeof(uint8) * (Size) count);
		return false;
	}
	if (status == MH_ERR_OUT_OF_MEMORY)
		minhash_near_dupe_check_spill_failure(call);
	if (status == MH_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Grouping %u signatures of %u values needs more memory than is available.",
						   count, call->params.num_perm),
				 call->kind == NEAR_DUPE_GROUPS ?
				 errhint("near_dupe_query(..., groups => true) gives the same groups as one SQL statement, which works within work_mem.") : 0));
	if (status != MH_OK)
		minhash_report_core_failure(status, "group signatures");
	minhash_near_dupe_free(call, signatures, sizeof(uint32 *) * (Size) count);
	minhash_near_dupe_free(call, empty, sizeof(uint8) * (Size) count);
	return true;
}

/* Put the groups into the result, in pivot rank order, each pivot first. */
static void
emit_groups(NearDupeCall *call, const uint32 *ranked, const uint32 *pivots,
			const double *resemblance, Tuplestorestate *store, TupleDesc desc)
{
	uint32		signed_count = call->signed_count;
	uint32	   *first = minhash_near_dupe_alloc(call, sizeof(uint32) * ((Size) signed_count + 1));
	uint32	   *members = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) signed_count);
	int64		group_id = 0;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	/* A counting sort of the ranked rows by pivot, keeping rank order. */
	memset(first, 0, sizeof(uint32) * ((Size) signed_count + 1));
	for (uint32 i = 0; i < signed_count; i++)
		first[pivots[i] + 1]++;
	for (uint32 p = 0; p < signed_count; p++)
		first[p + 1] += first[p];
	for (uint32 i = 0; i < signed_count; i++)
		members[first[pivots[i]]++] = i;
	/* first[p] now ends pivot p's members: step back to their start. */
	for (uint32 p = signed_count; p > 0; p--)
		first[p] = first[p - 1];
	first[0] = 0;

	for (uint32 p = 0; p < signed_count; p++)
	{
		if (pivots[p] != p)
			continue;
		group_id++;
		for (uint32 m = first[p]; m < first[p + 1]; m++)
		{
			values[0] = Int64GetDatum(group_id);
			values[1] = minhash_near_dupe_result_key(call, ranked[members[m]]);
			values[2] = minhash_near_dupe_result_key(call, ranked[p]);
			values[3] = Float8GetDatum(resemblance[members[m]]);
			tuplestore_putvalues(store, desc, values, nulls);
			if ((m & 0xFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	/* Rows without a signature: each alone, resemblance unknown. */
	nulls[3] = true;
	for (uint32 i = signed_count; i < call->count; i++)
	{
		values[0] = Int64GetDatum(++group_id);
		values[1] = values[2] = minhash_near_dupe_result_key(call, ranked[i]);
		tuplestore_putvalues(store, desc, values, nulls);
		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	minhash_near_dupe_free(call, first, sizeof(uint32) * ((Size) signed_count + 1));
	minhash_near_dupe_free(call, members, sizeof(uint32) * (Size) signed_count);
}

/*
 * What the arrays of a grouping of the rows read take, all of them counted
 * as if held at once (more than at any one time): the key order and its
 * sort's, the rows without a signature, the rank sort's, pivots and
 * resemblances, the engine's input, emit_groups' counting sort; nine
 * allocations.  Checked before the first of them, so that a table whose
 * rows fit but whose arrays would not spills instead of stopping halfway.
 */
static uint64
arrays_bytes(const NearDupeCall *call)
{
	uint64		rows = call->count,
				signed_rows = call->signed_count;

	return 4 * sizeof(uint32) * rows +
		(2 * sizeof(uint32) + sizeof(double) + sizeof(uint32 *) + sizeof(uint8)) * signed_rows +
		2 * sizeof(uint32) * (signed_rows + 1);
}

/*
 * Says the call spills to a temporary file: it needs `held` (what its rows
 * take, `rows` of them, `signed_rows` with a signature), the arrays for
 * them with what minhash_near_dupe_fits keeps in reserve, and the engine's
 * bound on its band buckets (at most count * (10 * bands + 20) bytes), with
 * recall (< 0: exact) choosing the bands.
 */
static void
announce_spill(const NearDupeCall *call, uint64 held, uint64 rows, uint64 signed_rows,
			   double recall, const char *detail)
{
	uint64		more = 4 * sizeof(uint32) * rows +
		(2 * sizeof(uint32) + sizeof(double) + sizeof(uint32 *) + sizeof(uint8)) * signed_rows +
		2 * sizeof(uint32) * (signed_rows + 1) + 9 * 2 * ALLOCSET_SMALL_MAXSIZE;
	bool		bounded = signed_rows < 2;

	if (!bounded && call->params.num_perm > 0)
	{
		uint32		bands = 0,
					band_rows = 0;
		MhPigeonholeLayout layout;

		if (recall >= 0)
			minhash_recall_layout(call->threshold, recall, call->params.num_perm, &bands, &band_rows);
		else if (mh_pigeonhole_layout(call->threshold, call->params.num_perm, 0, &layout) == MH_OK)
			bands = layout.bands;
		more += signed_rows * (10 * (uint64) bands + 20);
		bounded = true;
	}
	minhash_near_dupe_announce_spill(call, held + more, bounded,
									 psprintf("%s Ranking and grouping them takes up to %llu kB more.",
											  detail, (unsigned long long) ((more + 1023) / 1024)));
}

/* Whether the arrays fit; if not, says the call spills. */
static bool
arrays_fit(const NearDupeCall *call, double recall)
{
	uint64		held = minhash_near_dupe_held(call);

	if (minhash_near_dupe_fits(call, arrays_bytes(call), 9))
		return true;
	announce_spill(call, held, call->count, call->signed_count, recall,
				   psprintf("Its %u rows take %llu kB.", call->count, (unsigned long long) (held / 1024)));
	return false;
}

/*
 * Reads and groups the call's rows into the result; false, having put no
 * row there, when they pass minhash.group_memory and the call can spill
 * (recall < 0: exact).
 */
static bool
group_rows(NearDupeCall *call, double recall, Tuplestorestate *store, TupleDesc desc)
{
	uint32	   *ranked;
	uint32	   *pivots;
	double	   *resemblance;
	uint32		recall_bands = 0,	/* 0: exact */
				recall_rows = 0;

	if (!minhash_near_dupe_read(call))
		return false;
	/* what the rows take and need, now that the spilled call holds them all */
	if (call->read_stopped)
	{
		uint64		held = minhash_near_dupe_held(call);

		announce_spill(call, held, call->count, call->signed_count, recall,
					   psprintf("Its %u rows take %llu kB as they are read (keys and signatures), before they are grouped.",
								call->count, (unsigned long long) (held / 1024)));
	}
	if (call->can_spill && !arrays_fit(call, recall))
		return false;
	if (recall >= 0 && call->signed_count > 0)
		minhash_recall_layout(call->threshold, recall, call->params.num_perm,
							  &recall_bands, &recall_rows);

	ranked = minhash_near_dupe_key_order(call);
	minhash_near_dupe_sort(call, ranked, call->count, minhash_near_dupe_compare_rank);
	pivots = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) call->signed_count);
	resemblance = minhash_near_dupe_alloc(call, sizeof(double) * (Size) call->signed_count);
	/* false: the engine's buckets would pass the setting */
	if (call->signed_count > 0 &&
		!minhash_near_dupe_walk(call, ranked, call->signed_count, recall_bands, recall_rows, pivots,
								resemblance))
		return false;
	emit_groups(call, ranked, pivots, resemblance, store, desc);
	return true;
}

PG_FUNCTION_INFO_V1(minhash_near_dupe_groups);
/*
 * near_dupe_groups(source regclass, key_column name, sig_column name,
 * threshold float8 DEFAULT minhash_threshold()): every row in one
 * near-duplicate group, keys as text (1.0 declared DEFAULT NULL, and there a
 * null threshold is the setting: minhash_near_dupe_check_threshold);
 * near_dupe_groups(source, key_column, sig_column,
 * threshold, key_type anyelement, recall float8 DEFAULT NULL): the same,
 * keys in their own type (text: key::text, whatever the column's type), and
 * with a recall, candidates from the approximate layout (mh_recall_layout)
 * instead of the exact one.  Beyond minhash.group_memory, the same again
 * with the call's arrays in a temporary file.
 */
Datum
minhash_near_dupe_groups(PG_FUNCTION_ARGS)
{
	NearDupeCall call;
	bool		approximate = PG_NARGS() >= 6 && !PG_ARGISNULL(5);
	double		recall = approximate ? PG_GETARG_FLOAT8(5) : -1.0;
	TupleDesc	desc;
	Tuplestorestate *store;

	store = minhash_materialize_result(fcinfo, &desc);
	minhash_near_dupe_begin(fcinfo, NEAR_DUPE_GROUPS,
							PG_NARGS() >= 5 && TupleDescAttr(desc, 1)->atttypid != TEXTOID,
							TupleDescAttr(desc, 1)->atttypid, &call);
	call.approximate = approximate;
	if (approximate)
		minhash_check_recall(recall);
	if (!group_rows(&call, recall, store, desc))
	{
		if (!minhash_near_dupe_spill(&call))
		{
			minhash_near_dupe_run_statement(&call, true, recall, store, desc);
			return (Datum) 0;
		}
		if (!group_rows(&call, recall, store, desc))
			elog(ERROR, "a spilled grouping passed its limit without stopping");
	}
	minhash_near_dupe_end(&call);
	return (Datum) 0;
}
