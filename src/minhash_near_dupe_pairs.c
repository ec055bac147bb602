/*
 * minhash_near_dupe_pairs.c
 *	  near_dupe_pairs(): read a table's signatures into memory as
 *	  near_dupe_groups() does (minhash_near_dupe_groups.c), number the rows
 *	  in key order, let the engine find the pairs (mh_near_pairs), return
 *	  them.
 *
 * Exact (recall NULL): the engine looks at the pairs sharing a band of the
 * pigeonhole layout with no spare bands, which no pair at the threshold
 * misses, so the result is that of the self-join with % (or resemblance >=
 * threshold).  Approximate (0 < recall < 1): the bands of mh_recall_layout,
 * the layout every approximate path uses; a pair at mh_recall_target
 * (threshold) is found with probability at least recall.  Either way every
 * pair returned is verified: its signatures' resemblance reaches the
 * threshold.
 *
 * Rows are numbered in key order (signed rows first, keys in their type's
 * order; they are unique, the key sort refuses a duplicate), so that each
 * pair (a < b) the engine returns, sorted, is already in the result's
 * order: key_a before key_b, ordered by key_a, key_b.
 *
 * Memory: the keys and signatures as near_dupe_groups holds them, the
 * engine's band sort and the pairs themselves, all counted against
 * minhash.group_memory as they are allocated (minhash_near_dupe_source.c).
 * A call that would pass it (as soon as the read reaches the setting, or
 * when the arrays or the engine's band sort and pairs would pass it) reads
 * the rows again and runs the same engine with its large arrays in a
 * temporary file (minhash_near_dupe_spill): the same pairs in the same
 * order, the limit then temp_file_limit.  The engine polls for interrupts;
 * nothing here runs for long without a chance to cancel.
 */
#include "postgres.h"

#include "catalog/pg_type.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/builtins.h"
#include "utils/float.h"
#include "utils/memutils.h"
#include "utils/tuplestore.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/* The bands the engine looks at: exact (no recall) or for the recall. */
static void
choose_layout(double threshold, bool exact, double recall, int32 num_perm,
			  uint32 *bands, uint32 *rows)
{
	if (exact)
	{
		MhPigeonholeLayout layout;

		if (mh_pigeonhole_layout(threshold, (uint32) num_perm, 0, &layout) != MH_OK)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("no band layout finds every pair at threshold %g", threshold),
					 errdetail("At threshold %g every position of two signatures may disagree.", threshold)));
		*bands = layout.bands;
		*rows = layout.rows;
		return;
	}
	minhash_recall_layout(threshold, recall, (uint32) num_perm, bands, rows);
}

/*
 * The engine's pairs, in the call's memory: freed with it, at the end or on
 * error (the call itself may be gone by then: the release touches only the
 * block).  The block is allocated before the engine runs, so that nothing
 * can fail between the engine handing its memory over and its release
 * being registered.
 */
typedef struct PairBlock
{
	MhPair	   *pairs;
	uint64		count;
	size_t		bytes;
	MemoryContextCallback release;
} PairBlock;

static void
release_pairs(void *arg)
{
	PairBlock  *block = (PairBlock *) arg;

	if (block->pairs != NULL)
		mh_large_free(block->pairs, block->bytes);
	block->pairs = NULL;
}

/*
 * The engine's pairs of the signed rows ordered[0 .. count); NULL when they
 * would pass minhash.group_memory and the call can spill.
 */
static PairBlock *
find_pairs(NearDupeCall *call, const uint32 *ordered, uint32 count, uint32 bands,
		   uint32 band_rows)
{
	const uint32 **signatures;
	uint8	   *empty;
	PairBlock  *block = minhash_near_dupe_alloc(call, sizeof(PairBlock));
	uint64		held,
				memory;
	MhStatus	status;

	minhash_near_dupe_engine_input(call, ordered, count, &signatures, &empty);
	block->release.func = release_pairs;
	block->release.arg = block;
	held = minhash_near_dupe_held(call);
	status = mh_near_pairs(signatures, empty, count, call->params.num_perm, call->threshold,
						   bands, band_rows, minhash_near_dupe_room(call), minhash_cancel_pending,
						   NULL, &block->pairs, &block->count, &block->bytes, &memory);
	if (status == MH_OK)
	{
		MemoryContextRegisterResetCallback(call->context, &block->release);
		call->outside += block->bytes;
	}
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status == MH_ERR_TOO_LARGE)
	{
		char	   *detail = block->count > 0 ?
			psprintf("%llu pairs at threshold %g took the %llu kB left after the %u rows (%llu kB).",
					 (unsigned long long) block->count, call->threshold,
					 (unsigned long long) ((call->limit - held) / 1024),
					 call->count, (unsigned long long) (held / 1024)) :
			psprintf("%u rows, %u of them with a signature of %u values, at threshold %g: the rows take %llu kB, and the band sort %llu kB more.",
					 call->count, count, call->params.num_perm, call->threshold,
					 (unsigned long long) (held / 1024),
					 (unsigned long long) (memory / 1024));

		if (!call->can_spill)
			minhash_near_dupe_refuse(call, held + memory, false, detail);
		minhash_near_dupe_announce_spill(call, held + memory, false, detail);
		minhash_near_dupe_free(call, signatures, sizeof(uint32 *) * (Size) count);
		minhash_near_dupe_free(call, empty, sizeof(uint8) * (Size) count);
		return NULL;
	}
	if (status == MH_ERR_OUT_OF_MEMORY)
		minhash_near_dupe_check_spill_failure(call);
	if (status == MH_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Pairing %u signatures of %u values needs more memory than is available.",
						   count, call->params.num_perm),
				 errhint("Raise the threshold, or run the query that near_dupe_query(..., groups => false) returns, with enable_hashagg off: it gives the exact pairs within work_mem.")));
	if (status != MH_OK)
		minhash_report_core_failure(status, "pair signatures");
	minhash_near_dupe_free(call, signatures, sizeof(uint32 *) * (Size) count);
	minhash_near_dupe_free(call, empty, sizeof(uint8) * (Size) count);
	return block;
}

/* Put the pairs into the result, in the engine's order. */
static void
emit_pairs(const NearDupeCall *call, const uint32 *ordered, const PairBlock *block,
		   Tuplestorestate *store, TupleDesc desc)
{
	double		num_perm = call->params.num_perm;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	for (uint64 p = 0; p < block->count; p++)
	{
		const MhPair *pair = &block->pairs[p];

		values[0] = minhash_near_dupe_result_key(call, ordered[pair->a]);
		values[1] = minhash_near_dupe_result_key(call, ordered[pair->b]);
		/* mh_resemblance's own arithmetic: agreeing / num_perm */
		values[2] = Float8GetDatum((double) pair->agreeing / num_perm);
		tuplestore_putvalues(store, desc, values, nulls);
		if ((p & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

/*
 * Whether the arrays fit: the key order and its sort's, the rows without a
 * signature, the engine's input, its pair block (six allocations).  If not,
 * says the call spills.
 */
static bool
arrays_fit(const NearDupeCall *call)
{
	uint64		bytes = 3 * sizeof(uint32) * (uint64) call->count +
		(sizeof(uint32 *) + sizeof(uint8)) * (uint64) call->signed_count + sizeof(PairBlock),
				held = minhash_near_dupe_held(call);

	if (minhash_near_dupe_fits(call, bytes, 6))
		return true;
	/* with what minhash_near_dupe_fits keeps in reserve for new blocks */
	minhash_near_dupe_announce_spill(call, held + bytes + 6 * 2 * ALLOCSET_SMALL_MAXSIZE, false,
									 psprintf("Its %u rows take %llu kB, and ordering them %llu kB more, besides the band sort and the pairs.",
											  call->count, (unsigned long long) (held / 1024),
											  (unsigned long long) ((bytes + 1023) / 1024)));
	return false;
}

/*
 * Reads and pairs the call's rows into the result; false, having put no row
 * there, when they pass minhash.group_memory and the call can spill.
 */
static bool
pair_rows(NearDupeCall *call, bool exact, double recall, Tuplestorestate *store, TupleDesc desc)
{
	uint32	   *ordered;
	uint32		bands = 0,
				band_rows = 0;
	PairBlock  *block;

	if (!minhash_near_dupe_read(call))
		return false;
	/* what the rows take, now that the spilled call holds them all */
	if (call->read_stopped)
	{
		uint64		held = minhash_near_dupe_held(call);

		minhash_near_dupe_announce_spill(call, held, false,
										 psprintf("Its %u rows take %llu kB as they are read (keys and signatures), before they are paired. Ordering them, the band sort and the pairs take more.",
												  call->count, (unsigned long long) (held / 1024)));
	}
	if (call->can_spill && !arrays_fit(call))
		return false;
	if (call->signed_count >= 2)
		choose_layout(call->threshold, exact, recall, call->params.num_perm, &bands, &band_rows);

	ordered = minhash_near_dupe_key_order(call);
	if (call->signed_count >= 2)
	{
		block = find_pairs(call, ordered, call->signed_count, bands, band_rows);
		if (block == NULL)
			return false;
		emit_pairs(call, ordered, block, store, desc);
	}
	return true;
}

PG_FUNCTION_INFO_V1(minhash_near_dupe_pairs);
/*
 * near_dupe_pairs(source regclass, key_column name, sig_column name,
 * threshold float8 DEFAULT minhash_threshold()): every pair of rows whose
 * signatures' resemblance reaches threshold (never null), keys as text;
 * near_dupe_pairs(source, key_column, sig_column, threshold, key_type
 * anyelement, recall float8 DEFAULT NULL): the same, keys in their own type
 * (text: key::text, whatever the column's type), and with a recall, the
 * pairs found through the approximate layout (mh_recall_layout).  Beyond
 * minhash.group_memory, the same again with the call's arrays in a
 * temporary file.
 */
Datum
minhash_near_dupe_pairs(PG_FUNCTION_ARGS)
{
	NearDupeCall call;
	bool		exact = PG_NARGS() < 6 || PG_ARGISNULL(5);
	double		recall = exact ? 0.0 : PG_GETARG_FLOAT8(5);
	Oid			result_key_type;
	TupleDesc	desc;
	Tuplestorestate *store;

	if (!exact)
		minhash_check_recall(recall);
	store = minhash_materialize_result(fcinfo, &desc);
	result_key_type = TupleDescAttr(desc, 0)->atttypid;
	/* key_type text: the keys as text, whatever their type */
	minhash_near_dupe_begin(fcinfo, NEAR_DUPE_PAIRS, PG_NARGS() >= 5 && result_key_type != TEXTOID,
							result_key_type, &call);
	call.approximate = !exact;
	if (!pair_rows(&call, exact, recall, store, desc))
	{
		if (!minhash_near_dupe_spill(&call))
		{
			minhash_near_dupe_run_statement(&call, false, exact ? -1.0 : recall, store, desc);
			return (Datum) 0;
		}
		if (!pair_rows(&call, exact, recall, store, desc))
			elog(ERROR, "a spilled pairing passed its limit without stopping");
	}
	minhash_near_dupe_end(&call);
	return (Datum) 0;
}
