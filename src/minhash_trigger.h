/*
 * minhash_trigger.h
 *	  What the files of the two triggers share (minhash_flag_duplicates and
 *	  minhash_sign_and_flag): a trigger's checked arguments, its cached
 *	  entry, and the steps of a row.
 *
 *	  minhash_trigger.c			the trigger functions, a row's steps in order
 *	  minhash_trigger_config.c	the trigger's arguments, read and checked
 *	  minhash_trigger_cache.c	the per-trigger cache of arguments and plan
 *	  minhash_trigger_lookup.c	the lookup query, its run, the 'lock' mode
 *	  minhash_trigger_sign.c	the signing trigger's signature
 */
#ifndef MINHASH_TRIGGER_H
#define MINHASH_TRIGGER_H

#include "access/htup.h"
#include "access/tupdesc.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "lib/ilist.h"
#include "nodes/nodes.h"
#include "utils/plancache.h"
#include "utils/rel.h"

#include "minhash.h"

#define FLAG_FUNCTION_NAME "minhash_flag_duplicates"
#define SIGN_FUNCTION_NAME "minhash_sign_and_flag"

/* What the trigger's arguments say, checked against the table. */
typedef struct FlagConfig
{
	bool		signs;			/* minhash_sign_and_flag: fills the signature */
	AttrNumber	doc_attnum;		/* the document column, when signs */
	MhParams	sign_params;	/* how the signature is built, when signs */
	Oid			sig_domain;		/* the signature column's type if a domain,
								 * whose constraints a signature set here must
								 * pass as an assigned one would; else
								 * InvalidOid */
	Oid			flag_function;	/* minhash_flag_duplicates, when signs */
	AttrNumber	sig_attnum;
	AttrNumber	flag_attnum;
	AttrNumber	key_attnum;
	Oid			minhash_type;	/* the extension's types */
	Oid			query_type;
	Oid			flag_type;
	int32		flag_typmod;
	Oid			key_type;
	int32		key_typmod;
	int16		key_typlen;
	bool		key_typbyval;
	double		threshold;
	bool		lock_near_duplicates;	/* fifth argument 'lock' */
	Node	   *key_to_flag;	/* assignment of a key to the flag column, on
								 * a CaseTestExpr; NULL when a key is stored
								 * as it is */
} FlagConfig;

/*
 * One trigger's checked arguments, kept lookup plan and key conversion.
 * Lives in its own memory context (child of CacheMemoryContext), so that
 * pg_backend_memory_contexts shows one per cached trigger.
 */
typedef struct FlagTrigger
{
	dlist_node	node;			/* in flag_triggers */
	Oid			trigger_oid;
	Oid			relid;			/* the trigger's table */
	bool		valid;			/* false once the table, trigger or a
								 * schema changed: rebuilt on its next row */
	int			pins;			/* calls of the trigger using it now */
	MemoryContext context;		/* holds this struct and config */
	FlagConfig	config;
	SPIPlanPtr	plan;			/* kept */
	CachedExpression *key_to_flag;	/* planned config.key_to_flag, or NULL */
	FmgrInfo	builder_keeper;	/* the signing trigger's: keeps a small
								 * signature builder between rows in context
								 * (only its fn_extra and fn_mcxt are used) */
} FlagTrigger;


/* The lookup's parameters: the new signature, the old row's ctid. */
#define LOOKUP_NARGS 2

static inline Form_pg_attribute
column_attr(Relation rel, AttrNumber attnum)
{
	return TupleDescAttr(RelationGetDescr(rel), attnum - 1);
}

/* minhash_trigger_config.c */
extern void minhash_trigger_read_config(Trigger *trigger, Relation rel, Oid extension_schema, bool signs,
										FlagConfig *config);

/* minhash_trigger_cache.c */
extern FlagTrigger *minhash_flag_trigger_for(TriggerData *trigdata, Oid function_oid, bool signs);

/* minhash_trigger_lookup.c */
extern char *minhash_trigger_lookup_query(Relation rel, const FlagConfig *config, Oid extension_schema);
extern Datum minhash_trigger_most_similar_key(TriggerData *trigdata, const FlagTrigger *flag_trigger,
											  Datum sig, bool *isnull);
extern void minhash_trigger_lock_near_duplicates(Relation rel, Datum sig_datum, double threshold);

/* minhash_trigger_sign.c */
extern HeapTuple minhash_trigger_sign_row(TriggerData *trigdata, FlagTrigger *flag_trigger, HeapTuple tuple);

#endif							/* MINHASH_TRIGGER_H */
