/*
 * minhash_near_dupe.h
 *	  What near_dupe_groups() and near_dupe_pairs() share
 *	  (minhash_near_dupe_source.c): checking the call's source, reading its
 *	  keys and signatures into memory in one scan, ordering the rows by key
 *	  (which refuses a key column that is not unique), and counting every
 *	  byte the call holds against minhash.group_memory.
 */
#ifndef MINHASH_NEAR_DUPE_H
#define MINHASH_NEAR_DUPE_H

#include "fmgr.h"
#include "utils/sortsupport.h"
#include "utils/tuplestore.h"

#include "minhash.h"

/* Which function reads: the messages and hints differ. */
typedef enum NearDupeKind
{
	NEAR_DUPE_GROUPS,
	NEAR_DUPE_PAIRS,
	NEAR_DUPE_APPEND			/* near_dupe_groups_append */
} NearDupeKind;

/* One row read. */
typedef struct NearDupeRow
{
	Datum		key;			/* in its own type, never null */
	text	   *key_text;		/* key::text when the result needs it and it
								 * is not the key itself, else NULL */
	const uint32 *values;		/* the signature's values; NULL: no signature */
	uint64		size;			/* the signature's distinct shingles */
} NearDupeRow;

/*
 * One call: its source, the rows read, and the memory it holds.  Every
 * byte is counted: what is palloc'd (in `context`), the key arena's
 * blocks and the engine's pairs (`outside`).
 */
typedef struct NearDupeCall
{
	NearDupeKind kind;
	bool		approximate;	/* recall given */

	/*
	 * The call may run as one SQL statement (near_dupe_statement, which the
	 * extension's SQL has from 1.2 on; never for near_dupe_groups_append):
	 * what a call beyond minhash.group_memory runs when another call's
	 * temporary file is in use (minhash_near_dupe_spill).
	 */
	bool		statement_available;

	/*
	 * Beyond the setting near_dupe_groups and near_dupe_pairs run the same
	 * engine with their arrays in a temporary file (spilled, from
	 * minhash_near_dupe_spill on): can_spill until then.  Their limit is
	 * then temp_file_limit, not the setting.
	 */
	bool		can_spill;
	bool		spilled;
	int			spill_file;		/* fd.c's File */
	const char *schema;			/* the extension's */
	const char *statement_schema;	/* near_dupe_statement's, quoted */

	/* the source, as the checks found it */
	Oid			relation;
	const char *key_column;
	const char *sig_column;
	Oid			key_type;
	double		threshold;		/* the argument, or minhash.threshold */
	const char *filter;			/* NULL, or a WHERE clause on the source's
								 * rows (alias s) that the read adds */
	Oid			filter_arg_type;	/* InvalidOid, or the type of the filter's $1 */
	Datum		filter_arg;		/* its value */
	bool		filter_generic;	/* plan the read generically (Citus cannot
								 * plan a distributed query so) */

	/* the result's keys are in the key column's type (else key::text) */
	bool		typed_keys;
	/* key::text is the key itself (text, varchar, ...): not held twice */
	bool		key_is_text;

	/* the rows, in the order read */
	NearDupeRow *rows;
	uint32		count;
	uint32		capacity;
	uint32		signed_count;
	MhParams	params;			/* the signatures', from the first one */

	/* how keys compare: their type's btree order and the column's collation */
	SortSupportData key_order;
	Oid			key_collation;
	int16		key_typlen;
	bool		key_byval;

	/*
	 * The read stopped at the setting (can_spill): the call says it spills
	 * once it has read all the rows into its file, and so knows what they
	 * need.
	 */
	bool		read_stopped;

	/* memory */
	MemoryContext context;		/* everything palloc'd for the call */
	MemoryContext scratch;		/* one value while it is detoasted */
	uint64		outside;		/* bytes held outside `context` */
	uint64		limit;			/* minhash.group_memory, in bytes */
	int			guc_level;		/* the nest level of the call's own settings */
	char	   *arena_next;		/* the key arena's free room */
	char	   *arena_end;
	Size		arena_block;	/* the next block's size */
} NearDupeCall;

/*
 * Starts a call: its memory context (a child of the current one), the
 * checks of the call's first four arguments (source, key_column,
 * sig_column, threshold) with near_dupe_check_arguments' errors, and with
 * typed_keys the check that result_key_type is the key column's own type.
 */
extern void minhash_near_dupe_begin(FunctionCallInfo fcinfo, NearDupeKind kind, bool typed_keys,
									Oid result_key_type, NearDupeCall *call);

/*
 * The same, for a function whose source, key_column, sig_column and
 * threshold are its arguments first .. first + 3 (near_dupe_groups_append's
 * come after the group table).
 */
extern void minhash_near_dupe_begin_at(FunctionCallInfo fcinfo, int first, NearDupeKind kind,
									   bool typed_keys, Oid result_key_type, NearDupeCall *call);

/*
 * Refuses a null threshold (the call's argument `arg`), except where the
 * function is still minhash 1.0's near_dupe_groups (DEFAULT NULL: the
 * setting) (minhash_near_dupe_threshold.c).
 */
extern void minhash_near_dupe_check_threshold(FunctionCallInfo fcinfo, int arg);

/*
 * Reads every row the source's scan returns, counting what it holds; true
 * when it holds them all.  A call that would pass minhash.group_memory
 * returns false there with can_spill (call->read_stopped), else reads on
 * only to add up what the rest would take and stops (53400).
 * A null key stops the call (23502), as do signatures of different
 * parameters (22000).
 */
extern bool minhash_near_dupe_read(NearDupeCall *call);

/*
 * Whether the call may hold `bytes` more, allocated in up to `allocations`
 * pieces.
 */
extern bool minhash_near_dupe_fits(const NearDupeCall *call, uint64 bytes, int allocations);

/*
 * Lets go of every row the call holds, keeping its source, so that it can
 * read them again into its file (minhash_near_dupe_spill) or run the
 * statement (minhash_near_dupe_statement.c).
 */
extern void minhash_near_dupe_forget_rows(NearDupeCall *call);

/*
 * Lets go of every row the call holds and goes on with its arrays in a
 * temporary file, the call's limit then temp_file_limit (the rows are to
 * be read again); false, holding nothing, when another call's file is in
 * use (a call made while that one reads, by a function its scan runs): the
 * statement is left, or without it the call stops (53400).
 */
extern bool minhash_near_dupe_spill(NearDupeCall *call);

/*
 * Stops a spilled call whose file could not grow: past temp_file_limit
 * (53400) or the disk full (53100); returns if neither is why an allocation
 * failed.
 */
extern void minhash_near_dupe_check_spill_failure(const NearDupeCall *call);

/* Stops the call (23505): `key` appears more than once. */
pg_noreturn extern void minhash_near_dupe_report_duplicate_key(const NearDupeCall *call, Datum key);

/*
 * Beyond minhash.group_memory: runs the call as one SQL statement
 * (near_dupe_statement: groups or pairs; recall < 0: exact) and puts its
 * rows, the ones the engine would have returned in the same order, into the
 * result.  The call holds nothing after.
 */
extern void minhash_near_dupe_run_statement(NearDupeCall *call, bool groups, double recall,
											Tuplestorestate *store, TupleDesc desc);

/* Stops the call (23502): a key is null. */
pg_noreturn extern void minhash_near_dupe_report_null_key(const NearDupeCall *call);

/*
 * Stops the call (22000): a signature's parameters differ from the rows'
 * read (call->params).
 */
pg_noreturn extern void minhash_near_dupe_report_mixed(const NearDupeCall *call,
													   const MhParams *other);

/* An order of rows: negative, zero or positive as row a sorts before b. */
typedef int (*NearDupeRowOrder) (const NearDupeCall *call, uint32 a, uint32 b);

/*
 * The rows' numbers in key order: signed rows first, each part in key order.
 * A key that appears twice stops the call (23505).
 */
extern uint32 *minhash_near_dupe_key_order(NearDupeCall *call);

/*
 * Sorts order[0 .. count) by `order`, stably (a merge sort that polls for
 * interrupts).
 */
extern void minhash_near_dupe_sort(NearDupeCall *call, uint32 *order, uint32 count,
								   NearDupeRowOrder compare);

/*
 * palloc, in the call's context, of bytes the call may still hold, else
 * 53400; in a spilled call large arrays are in its file.  Freed with
 * minhash_near_dupe_free and the same size.
 */
extern void *minhash_near_dupe_alloc(NearDupeCall *call, Size bytes);
extern void minhash_near_dupe_free(NearDupeCall *call, void *memory, Size bytes);

/* What the call may still hold: the engine's grant. */
extern uint64 minhash_near_dupe_room(const NearDupeCall *call);

/* What the call holds. */
extern uint64 minhash_near_dupe_held(const NearDupeCall *call);

/*
 * Stops the call (53400): it needs `needed` bytes, more than
 * minhash.group_memory; `suffices`: with that many it would not have been
 * stopped, else it needs at least that many.  detail: what took them.
 */
pg_noreturn extern void minhash_near_dupe_refuse(const NearDupeCall *call, uint64 needed,
												 bool suffices, const char *detail);

/*
 * Says (NOTICE) that the call keeps its arrays in a temporary file, beyond
 * minhash.group_memory: it needs `needed` bytes (`suffices`: with that many
 * it would run in memory, else at least that many); detail: what took them.
 */
extern void minhash_near_dupe_announce_spill(const NearDupeCall *call, uint64 needed,
											 bool suffices, const char *detail);

/*
 * What the engine takes of rows order[0 .. count): each row's values and
 * whether its set is empty, in that order, counted.
 */
extern void minhash_near_dupe_engine_input(NearDupeCall *call, const uint32 *order,
										   uint32 count, const uint32 ***signatures,
										   uint8 **empty);

/* A row's key as the result carries it (typed_keys: its own type, else text). */
extern Datum minhash_near_dupe_result_key(const NearDupeCall *call, uint32 row);

/*
 * The engine's greedy walk over rows ranked[0 .. count), all signed, in rank
 * order: exact (bands 0) or with the given approximate layout
 * (minhash_near_dupe_groups.c).  False when its buckets would pass
 * minhash.group_memory and the call can spill (else that stops the call,
 * 53400).
 */
extern bool minhash_near_dupe_walk(NearDupeCall *call, const uint32 *ranked, uint32 count,
								   uint32 bands, uint32 band_rows, uint32 *pivots,
								   double *resemblance);

/* Rank order: signed rows first, most distinct shingles first (then key order). */
extern int	minhash_near_dupe_compare_rank(const NearDupeCall *call, uint32 a, uint32 b);

/*
 * Ends the call: everything it held is freed, and the settings its SQL ran
 * under (jit off) are the caller's again.
 */
extern void minhash_near_dupe_end(NearDupeCall *call);

#endif							/* MINHASH_NEAR_DUPE_H */
