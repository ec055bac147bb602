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
 * Rows are numbered in key order (signed rows first, key in its type's
 * order with nulls last, then ctid), so that each pair (a < b) the engine
 * returns, sorted, is already in the result's order: key_a before key_b,
 * ordered by key_a, key_b.
 *
 * Memory: the signatures and the rows as near_dupe_groups keeps them, the
 * engine's band sort and the pairs themselves, all within
 * minhash.group_memory: a table whose signatures alone need more is refused
 * before it is read, and a result that grows beyond what is left ends the
 * call with an error that says what to set.  The engine polls for
 * interrupts; nothing here runs for long without a chance to cancel.
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

/*
 * Bytes for each row besides its values and key text: what the reader
 * keeps (minhash_near_dupe_groups.c), the key-order sort, and the arrays
 * handed to the engine.
 */
#define PAIR_ROW_BYTES (sizeof(uint64) * 2 + sizeof(Datum) + sizeof(text *) + sizeof(uint32 *) + \
						sizeof(bool) * 2 + sizeof(uint32) * 2 + sizeof(uint32 *) + sizeof(uint8))

/* Key order: signed rows first, then key (nulls last), then ctid. */
static int
compare_key_order(const GroupRows *rows, uint32 a, uint32 b)
{
	int			cmp;

	if (rows->signed_rows[a] != rows->signed_rows[b])
		return rows->signed_rows[a] ? -1 : 1;
	cmp = ApplySortComparator(rows->keys[a], rows->key_nulls[a],
							  rows->keys[b], rows->key_nulls[b],
							  (SortSupport) &rows->key_order);
	if (cmp != 0)
		return cmp;
	return rows->tids[a] < rows->tids[b] ? -1 : (rows->tids[a] > rows->tids[b] ? 1 : 0);
}

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
 * Memory for the rows, the signatures and the engine's band sort, refused
 * before the table is read when above minhash.group_memory; returns what is
 * left for the pairs.
 */
static uint64
check_memory(const NearDupeSource *source, double threshold)
{
	uint64		budget = (uint64) minhash_group_memory * 1024;
	uint64		needed;

	if (source->row_count > PG_UINT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot pair more than %u rows", PG_UINT32_MAX / 2)));
	needed = (uint64) source->row_count * PAIR_ROW_BYTES +
		(uint64) source->signed_rows * sizeof(uint32) * source->num_perm +
		mh_near_pairs_memory((uint32) source->signed_rows);
	if (needed > budget)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("finding pairs needs about %llu kB of memory before the pairs themselves, more than minhash.group_memory (%d kB)",
						(unsigned long long) (needed / 1024), minhash_group_memory),
				 errdetail("%lld rows, %lld of them with a signature of %d values, at threshold %g.",
						   (long long) source->row_count, (long long) source->signed_rows,
						   source->num_perm, threshold),
				 errhint("Raise minhash.group_memory, or run the query that near_dupe_query(..., groups => false) returns, with enable_hashagg off: it gives the exact pairs without holding the signatures in memory.")));
	return budget - needed;
}

/*
 * The engine's pairs, in `owner`'s memory: freed with it, at the end or on
 * error.  The block is allocated before the engine runs, so that nothing
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

/* The engine's pairs of the signed rows ordered[0 .. count). */
static PairBlock *
find_pairs(const GroupRows *rows, const uint32 *ordered, uint32 count, double threshold,
		   uint32 bands, uint32 band_rows, uint64 max_bytes)
{
	const uint32 **signatures;
	uint8	   *empty;
	PairBlock  *block = palloc0(sizeof(PairBlock));
	MhStatus	status;

	minhash_near_dupe_engine_input(rows, ordered, count, &signatures, &empty);
	block->release.func = release_pairs;
	block->release.arg = block;
	status = mh_near_pairs(signatures, empty, count, rows->params.num_perm, threshold, bands,
						   band_rows, max_bytes, minhash_cancel_pending, NULL,
						   &block->pairs, &block->count, &block->bytes);
	if (status == MH_OK)
		MemoryContextRegisterResetCallback(CurrentMemoryContext, &block->release);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status == MH_ERR_TOO_LARGE)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("the pairs need more memory than minhash.group_memory (%d kB) leaves for them",
						minhash_group_memory),
				 errdetail("%llu pairs at threshold %g took the %llu kB left after the signatures of %u rows.",
						   (unsigned long long) block->count, threshold,
						   (unsigned long long) (max_bytes / 1024), count),
				 errhint("Raise minhash.group_memory (SET minhash.group_memory = '4GB'), or raise the threshold.")));
	if (status == MH_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Pairing %u signatures of %u values needs more memory than is available.",
						   count, rows->params.num_perm),
				 errhint("Raise the threshold, or run the query that near_dupe_query(..., groups => false) returns, with enable_hashagg off: it gives the exact pairs within work_mem.")));
	if (status != MH_OK)
		minhash_report_core_failure(status, "pair signatures");
	pfree(signatures);
	pfree(empty);
	return block;
}

/* Put the pairs into the result, in the engine's order. */
static void
emit_pairs(const GroupRows *rows, const uint32 *ordered, const PairBlock *block,
		   Tuplestorestate *store, TupleDesc desc)
{
	double		num_perm = rows->params.num_perm;
	Datum		values[3];
	bool		nulls[3];

	nulls[2] = false;
	for (uint64 p = 0; p < block->count; p++)
	{
		const MhPair *pair = &block->pairs[p];

		values[0] = minhash_near_dupe_result_key(rows, ordered[pair->a], &nulls[0]);
		values[1] = minhash_near_dupe_result_key(rows, ordered[pair->b], &nulls[1]);
		/* mh_resemblance's own arithmetic: agreeing / num_perm */
		values[2] = Float8GetDatum((double) pair->agreeing / num_perm);
		tuplestore_putvalues(store, desc, values, nulls);
		if ((p & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
}

PG_FUNCTION_INFO_V1(minhash_near_dupe_pairs);
/*
 * near_dupe_pairs(source regclass, key_column name, sig_column name,
 * threshold float8 DEFAULT minhash_threshold()): every pair of rows whose
 * signatures' resemblance reaches threshold (never null), keys as text;
 * near_dupe_pairs(source, key_column, sig_column, threshold, key_type
 * anyelement, recall float8 DEFAULT NULL): the same, keys in their own type
 * (text: key::text, whatever the column's type), and with a recall, the
 * pairs found through the approximate layout (mh_recall_layout).
 */
Datum
minhash_near_dupe_pairs(PG_FUNCTION_ARGS)
{
	NearDupeSource source;
	bool		exact = PG_NARGS() < 6 || PG_ARGISNULL(5);
	double		recall = exact ? 0.0 : PG_GETARG_FLOAT8(5);
	double		threshold;
	MemoryContext work,
				old;
	GroupRows	rows;
	uint32	   *ordered,
				signed_count = 0,
				bands = 0,
				band_rows = 0;
	uint64		pair_budget;
	PairBlock  *block = NULL;
	Oid			result_key_type;
	TupleDesc	desc;
	Tuplestorestate *store;

	if (!exact)
		minhash_check_recall(recall);
	store = minhash_materialize_result(fcinfo, &desc);
	result_key_type = TupleDescAttr(desc, 0)->atttypid;

	/* Everything below lives in one context, deleted at the end. */
	work = AllocSetContextCreate(CurrentMemoryContext, "near_dupe_pairs", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	memset(&rows, 0, sizeof(rows));

	/* key_type text: the keys as text, whatever their type */
	rows.typed_keys = PG_NARGS() >= 5 && result_key_type != TEXTOID;
	minhash_near_dupe_check_source(fcinfo, rows.typed_keys, result_key_type, &source);
	threshold = PG_ARGISNULL(3) ? minhash_similarity_threshold : PG_GETARG_FLOAT8(3);
	if (source.signed_rows >= 2)
		choose_layout(threshold, exact, recall, source.num_perm, &bands, &band_rows);
	pair_budget = check_memory(&source, threshold);
	minhash_near_dupe_read_source(&source, &rows, work);
	MemoryContextSwitchTo(work);

	ordered = minhash_near_dupe_sort_rows(&rows, compare_key_order);
	while (signed_count < rows.count && rows.signed_rows[ordered[signed_count]])
		signed_count++;
	if (signed_count >= 2)
		block = find_pairs(&rows, ordered, signed_count, threshold, bands, band_rows, pair_budget);

	MemoryContextSwitchTo(old);
	if (block != NULL)
		emit_pairs(&rows, ordered, block, store, desc);
	MemoryContextDelete(work);
	return (Datum) 0;
}
