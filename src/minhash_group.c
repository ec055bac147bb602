/*
 * minhash_group.c
 *	  The greedy pivot walk of near_dupe_groups() written as SQL
 *	  (near_dupe_query(..., groups => true)): a window function over
 *	  verified near-duplicate pairs, read in pivot-rank order.
 *
 * near_dupe_groups() runs the walk in memory (mh_group_greedy) and refuses
 * a table that needs more than minhash.group_memory; this SQL form is the
 * path for such a table, and gives the same rows (sql/group.sql checks it
 * exactly where the engine refuses).  The walk is the engine's
 * (src/core/grouping.cpp): rows ranked by distinct shingles descending,
 * then key, then ctid; a row not yet taken becomes a pivot and takes every
 * row not yet taken whose resemblance to it reaches the threshold.  Only rows that have a near-duplicate can be taken, so the
 * walk only needs the verified pairs, each directed from its better-ranked
 * row ("better") to the other ("worse"), sorted by the better row's rank.
 * When the walk reaches a better row, every row ranked above it has been
 * decided already; if nobody took the better row, it is a pivot and takes
 * each of its worse rows that nobody took before.  Which worse row is read
 * first does not matter: a pivot takes all of them.
 *
 * Memory: one hash entry per row taken by a pivot (about 40 bytes), in the
 * window partition's memory; everything else streams through the executor's
 * sorts, which spill to disk under work_mem.
 */
#include "postgres.h"

#include "fmgr.h"
#include "storage/itemptr.h"
#include "utils/hsearch.h"
#include "utils/memutils.h"
#include "windowapi.h"

#include "minhash.h"

/* The walk's state, kept in the window partition's local memory. */
typedef struct GreedyWalk
{
	HTAB	   *taken;			/* rows a pivot has taken, by row address */
	uint64		better;			/* row address of the better row being read */
	bool		have_better;
	bool		better_is_pivot;
} GreedyWalk;

/* The set of taken rows, created on the first call in a partition. */
static HTAB *
taken_rows(GreedyWalk *walk)
{
	HASHCTL		ctl;

	if (walk->taken != NULL)
		return walk->taken;
	ctl.keysize = sizeof(uint64);
	ctl.entrysize = sizeof(uint64);
	/* The partition-local memory lives as long as the partition: so does this. */
	ctl.hcxt = GetMemoryChunkContext(walk);
	walk->taken = hash_create("near_dupe_group_walk taken rows", 1024, &ctl,
							  HASH_ELEM | HASH_BLOBS | HASH_CONTEXT);
	return walk->taken;
}

PG_FUNCTION_INFO_V1(minhash_near_dupe_group_walk);
/*
 * near_dupe_group_walk(better tid, worse tid) OVER (ORDER BY <better's rank>):
 * true when the worse row joins the better row's group.  Rows with a null
 * argument take no part.
 */
Datum
minhash_near_dupe_group_walk(PG_FUNCTION_ARGS)
{
	WindowObject winobj = PG_WINDOW_OBJECT();
	GreedyWalk *walk;
	Datum		better_datum,
				worse_datum;
	bool		better_null,
				worse_null;
	uint64		better,
				worse;
	bool		found;

	walk = (GreedyWalk *) WinGetPartitionLocalMemory(winobj, sizeof(GreedyWalk));
	better_datum = WinGetFuncArgCurrent(winobj, 0, &better_null);
	worse_datum = WinGetFuncArgCurrent(winobj, 1, &worse_null);
	if (better_null || worse_null)
		PG_RETURN_BOOL(false);
	better = minhash_tid_number((ItemPointer) DatumGetPointer(better_datum));
	worse = minhash_tid_number((ItemPointer) DatumGetPointer(worse_datum));
	if (better == worse)
		PG_RETURN_BOOL(false);

	/* A new better row: everyone ranked above it is decided. */
	if (!walk->have_better || walk->better != better)
	{
		walk->better = better;
		walk->have_better = true;
		hash_search(taken_rows(walk), &better, HASH_FIND, &found);
		walk->better_is_pivot = !found;
	}
	if (!walk->better_is_pivot)
		PG_RETURN_BOOL(false);
	hash_search(taken_rows(walk), &worse, HASH_ENTER, &found);
	PG_RETURN_BOOL(!found);
}
