/*
 * minhash_near_dupe_append.h
 *	  What the phases of near_dupe_groups_append() share: the group table as
 *	  the call knows it (minhash_near_dupe_append_groups.c), the stored keys'
 *	  slots and the new keys (minhash_near_dupe_append_slots.c,
 *	  minhash_near_dupe_append_new_rows.c), the stream of the stored rows past
 *	  the new ones and the pivots it finds (minhash_near_dupe_append_stream.c),
 *	  and the call itself, which joins and groups the new rows and writes the
 *	  result (minhash_near_dupe_append.c).  The rule and how it runs: DESIGN.md,
 *	  "Appending to a stored grouping".
 */
#ifndef MINHASH_NEAR_DUPE_APPEND_H
#define MINHASH_NEAR_DUPE_APPEND_H

#include "executor/spi.h"

#include "minhash_near_dupe.h"

/* Bytes of rows a cursor fetches at a time (at least one row), as the read's. */
#define FETCH_BYTES (1024 * 1024)

/* The hint of every error about the group table. */
#define GROUP_TABLE_HINT "A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...)."

/*
 * The stored rows' integer keys, for telling new keys apart without the
 * executor's hash join, as slots over the source's key range, one a key:
 * 0, not stored; STORED_KEY, stored; STORED_PIVOT + g, stored as the pivot
 * of group g (the smallest g of a key stored twice, as the pivots' query
 * takes it).  A stored key outside the range equals no source key.  A
 * serial key fills its range, so a slot costs 4 bytes a row.
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
	 * The stored keys as the slots read them, with the pivots' groups and
	 * the largest group_id, so that they need no query; else NULL.
	 */
	StoredKeys *stored;
	/*
	 * The lowest resemblance of a stored member to its pivot (a row whose key
	 * is not its pivot), read with the stored keys or with the largest
	 * group_id; above 1 while none is read.
	 */
	double		lowest_member;
} GroupTable;

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

/* --- the call's memory (minhash_near_dupe_append.c) ---------------------- */

/* Room in the call for `bytes` more, else 53400 (what: what needs them). */
extern void minhash_append_need_room(NearDupeCall *call, uint64 bytes, const char *what);

/* A grown copy of an array of `used` elements of `size` bytes, counted. */
extern void *minhash_append_grow(NearDupeCall *call, void *array, uint64 used, uint64 capacity,
								 Size size);

/* What a key not passed by value takes once copied into the call (detoasted). */
extern Size minhash_append_key_size(const NearDupeCall *call, Datum key);

/* A copy of a key in the call's memory, detoasted. */
extern Datum minhash_append_copy_key(NearDupeCall *call, Datum key);

/* How many rows a cursor fetches next, from what its last batch took. */
extern long minhash_append_next_fetch(SPITupleTable *batch, uint64 processed);

/* --- the group table (minhash_near_dupe_append_groups.c) ----------------- */

/*
 * Checks that the group table has the columns of near_dupe_groups' rows and
 * keys that compare with the source's, and fills `table`.  Run while SPI is
 * connected.
 */
extern void minhash_append_check_group_table(NearDupeCall *call, Oid groups, const char *schema,
											 GroupTable *table);

/*
 * Serializes appends to the group table; true when it pushed a snapshot
 * taken after the lock, for the caller to pop.
 */
extern bool minhash_append_lock_group_table(const GroupTable *table);

/* The group table's key (alias g) or a key of the source as compared. */
extern const char *minhash_append_compared(const GroupTable *table, const char *expression);

/* A stored member's resemblance to its pivot (else null), as SQL on alias g. */
extern char *minhash_append_member_resemblance(const GroupTable *table);

/*
 * The largest stored group_id (0 for none), and table->lowest_member, from
 * the slots' read where there was one, else from one scan.  SPI connected.
 */
extern int64 minhash_append_read_summary(GroupTable *table);

/* Refuses a threshold above a stored member's resemblance to its pivot (22023). */
extern void minhash_append_check_threshold(const NearDupeCall *call, const GroupTable *table);

/* --- the new keys (minhash_near_dupe_append_slots.c, _new_rows.c) -------- */

/* A value of int2, int4 or int8 (base_type: a domain's base, looked up once). */
extern int64 minhash_append_integer_datum(Oid base_type, Datum value);

/* The slot of an integer key, NULL outside the source's range. */
extern uint32 *minhash_append_stored_slot(const StoredKeys *set, int64 key);

/*
 * The new keys of an integer key column from the stored keys' slots (which
 * table->stored keeps), *count of them; NULL where the slots do not apply.
 * Run while SPI is connected.
 */
extern Datum *minhash_append_new_integer_keys(NearDupeCall *call, GroupTable *table, uint64 *count);

/* Whether Citus distributes the relation. */
extern bool minhash_append_is_citus_table(Oid relation);

/*
 * Sets the read's filter to the rows whose key the group table lacks.  Run
 * while SPI is connected.
 */
extern void minhash_append_choose_new_rows(NearDupeCall *call, GroupTable *table);

/* --- the stream (minhash_near_dupe_append_stream.c) ---------------------- */

/*
 * Streams every signed row of the source past the probe of the new rows
 * (by_key: the new rows in key order); keeps those that are not new and
 * match one, with their hits.
 */
extern void minhash_append_stream_stored_rows(NearDupeCall *call, MhBandProbe *probe,
											  const uint32 *by_key, uint32 by_key_count,
											  AppendHits *kept);

/*
 * For each kept stored row, its group when it is a pivot (else -1), and its
 * key as a text result carries a pivot.  Run while SPI is connected.
 */
extern void minhash_append_look_up_pivots(NearDupeCall *call, const GroupTable *table,
										  const AppendHits *kept, int64 *group_of, Datum *pivot_text);

#endif							/* MINHASH_NEAR_DUPE_APPEND_H */
