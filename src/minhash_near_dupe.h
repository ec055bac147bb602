/*
 * minhash_near_dupe.h
 *	  What near_dupe_groups() and near_dupe_pairs() share: reading a table's
 *	  keys and signatures into memory (minhash_near_dupe_groups.c), after
 *	  near_dupe_check's checks, on the calling query's snapshot.
 */
#ifndef MINHASH_NEAR_DUPE_H
#define MINHASH_NEAR_DUPE_H

#include "fmgr.h"
#include "utils/sortsupport.h"

#include "minhash.h"

/* The rows read, in table order. */
typedef struct GroupRows
{
	uint32		count;
	uint32		capacity;
	uint64	   *tids;			/* minhash_tid_number: ctid order */
	Datum	   *keys;
	bool	   *key_nulls;
	text	  **key_texts;		/* key::text, NULL for a null key */
	uint64	   *sizes;			/* distinct shingles */
	bool	   *signed_rows;	/* has a signature */
	uint32	  **values;			/* the signature's values, NULL if none */

	/* the values themselves, one signature after another */
	uint32	   *value_store;
	uint32		value_slots;	/* signatures it has room for */
	uint32		value_count;	/* values a signature, from the check */
	uint32		value_slots_used;

	/* the signatures' parameters, from the first one */
	bool		have_params;
	MhParams	params;

	/* how keys compare */
	SortSupportData key_order;

	/* the result's keys are in the key column's type (else key::text) */
	bool		typed_keys;
} GroupRows;

/* A source table, as near_dupe_check found it (arguments 1 to 4 of the call). */
typedef struct NearDupeSource
{
	Oid			relation;
	char	   *key_column;
	char	   *sig_column;
	int64		row_count;
	int64		signed_rows;
	int32		num_perm;
	Oid			key_type;		/* the key column's type */
} NearDupeSource;

/*
 * Connects to SPI and runs near_dupe_check on the call's first four
 * arguments (source, key_column, sig_column, threshold): its errors for bad
 * arguments, a view or partitioned table, mixed parameters.  With
 * typed_keys, the result's key type must be the key column's own.
 */
extern void minhash_near_dupe_check_source(FunctionCallInfo fcinfo, bool typed_keys,
										   Oid result_key_type, NearDupeSource *source);

/*
 * Refuses a null threshold (the call's fourth argument), except where the
 * function is still minhash 1.0's near_dupe_groups (DEFAULT NULL: the
 * setting) (minhash_near_dupe_threshold.c).
 */
extern void minhash_near_dupe_check_threshold(FunctionCallInfo fcinfo);

/* Reads every row of the checked source into rows, in `into`; ends SPI. */
extern void minhash_near_dupe_read_source(const NearDupeSource *source, GroupRows *rows,
										  MemoryContext into);

/* An order of rows: negative, zero or positive as a sorts before b. */
typedef int (*NearDupeRowOrder) (const GroupRows *rows, uint32 a, uint32 b);

/* The rows' numbers in the given order (a merge sort that polls for interrupts). */
extern uint32 *minhash_near_dupe_sort_rows(const GroupRows *rows, NearDupeRowOrder order);

/*
 * What the engine takes of rows order[0 .. count): each row's values and
 * whether its set is empty, in that order (huge allocations in the current
 * context).
 */
extern void minhash_near_dupe_engine_input(const GroupRows *rows, const uint32 *order,
										   uint32 count, const uint32 ***signatures,
										   uint8 **empty);

/* A row's key as the result carries it (typed_keys: its own type, else text). */
extern Datum minhash_near_dupe_result_key(const GroupRows *rows, uint32 row, bool *isnull);

#endif							/* MINHASH_NEAR_DUPE_H */
