/*
 * minhash_trigger.c
 *	  minhash_flag_duplicates(): a BEFORE INSERT OR UPDATE row trigger that
 *	  sets a flag column of the new row to the key of the most similar
 *	  existing row at or above a threshold, or to NULL.
 *
 *	  CREATE TRIGGER ... BEFORE INSERT OR UPDATE ON docs FOR EACH ROW
 *	  EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8'
 *											   [, 'key_column' [, 'lock']]);
 *
 *	  minhash_sign_and_flag() does the same after filling the signature from
 *	  a document column when the statement did not set it (sign_row()):
 *
 *	  EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'duplicate_of',
 *			'0.8' [, 'key_column' [, 'lock' [, '5 words']]]);
 *
 * The lookup is one SPI query through the %> operator, which a
 * gin_minhash_ops index serves (never a gin_minhash_approx_ops one, whose
 * operator family lacks it).  Every name in it comes from the catalogs and
 * is quoted, the threshold is parsed here and written as a float8 constant,
 * and every operator and function is schema-qualified, so neither the
 * trigger's arguments nor the caller's search_path can change what the
 * query does.  The key is stored in the flag column as an assignment stores
 * it: a key that does not fit is an error, never a truncated key naming
 * another row.
 *
 * Each trigger's arguments are read, checked against the table and turned
 * into a kept plan once, on its first row, and again after the table, the
 * trigger or a schema changes (see "The per-trigger cache" below).
 *
 * The query sees what the statement's snapshot sees: rows of transactions
 * that have not committed are invisible, so two near-duplicates inserted at
 * the same time by different transactions are not flagged against each
 * other (README, "Flagging duplicates on insert").  The 'lock' mode
 * serializes them instead: see lock_near_duplicates().
 */
#include "postgres.h"

#include <stdlib.h>

#include "access/detoast.h"
#include "access/genam.h"
#include "access/gin_private.h"
#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "catalog/pg_index.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_trigger.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/executor.h"
#include "executor/spi.h"
#include "lib/ilist.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/hsearch.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/plancache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "minhash.h"

#define FLAG_FUNCTION_NAME "minhash_flag_duplicates"
#define SIGN_FUNCTION_NAME "minhash_sign_and_flag"

/* minhash(text)'s default number of hash values (sql/minhash--1.0.sql) */
#define DEFAULT_NUM_PERM 128
/* and its default shingle size */
#define DEFAULT_SHINGLE_SIZE 5

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

/* flag_trigger_by_oid's entries: the current FlagTrigger of a trigger. */
typedef struct FlagTriggerEntry
{
	Oid			trigger_oid;	/* hash key */
	FlagTrigger *flag_trigger;
} FlagTriggerEntry;

#define LOOKUP_NARGS 2

/* The trigger manager must call us BEFORE INSERT OR UPDATE, FOR EACH ROW. */
static TriggerData *
check_trigger_call(FunctionCallInfo fcinfo, const char *function_name)
{
	TriggerData *trigdata;

	if (!CALLED_AS_TRIGGER(fcinfo))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" was not called by trigger manager", function_name)));
	trigdata = (TriggerData *) fcinfo->context;
	if (!TRIGGER_FIRED_FOR_ROW(trigdata->tg_event) || !TRIGGER_FIRED_BEFORE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired BEFORE ROW", function_name),
				 errhint("Create the trigger with BEFORE INSERT OR UPDATE ... FOR EACH ROW.")));
	if (!TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) && !TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
		ereport(ERROR,
				(errcode(ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED),
				 errmsg("function \"%s\" must be fired for INSERT or UPDATE", function_name)));
	return trigdata;
}

/*
 * The columns a name not found probably meant, as SQL literals ('body' or
 * 'Body'): those spelled the same once its quotes are removed and case is
 * ignored.  Empty if none.
 */
static char *
columns_meant(Relation rel, const char *name)
{
	TupleDesc	desc = RelationGetDescr(rel);
	size_t		length = strlen(name);
	StringInfoData unquoted;
	StringInfoData meant;

	initStringInfo(&unquoted);
	if (length > 1 && name[0] == '"' && name[length - 1] == '"')
	{
		for (size_t i = 1; i < length - 1; i++)
		{
			appendStringInfoChar(&unquoted, name[i]);
			if (name[i] == '"' && i + 1 < length - 1 && name[i + 1] == '"')
				i++;
		}
	}
	else
		appendStringInfoString(&unquoted, name);

	initStringInfo(&meant);
	for (int i = 0; i < desc->natts; i++)
	{
		Form_pg_attribute attr = TupleDescAttr(desc, i);

		if (attr->attisdropped || pg_strcasecmp(NameStr(attr->attname), unquoted.data) != 0)
			continue;
		if (meant.len > 0)
			appendStringInfoString(&meant, " or ");
		appendStringInfoString(&meant, quote_literal_cstr(NameStr(attr->attname)));
	}
	pfree(unquoted.data);
	return meant.data;
}

/*
 * A user column of the table, by its exact (case-sensitive) name: trigger
 * arguments are strings, taken as written.
 */
static AttrNumber
user_column(Relation rel, const char *name)
{
	int			attnum = SPI_fnumber(RelationGetDescr(rel), name);

	if (attnum <= 0)
	{
		char	   *meant = columns_meant(rel, name);

		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_COLUMN),
				 errmsg("column \"%s\" of relation \"%s\" does not exist",
						name, RelationGetRelationName(rel)),
				 meant[0] != '\0' ?
				 errhint("Trigger arguments name columns exactly as they are spelled, case and all, without quotes: write %s.",
						 meant) :
				 errhint("Trigger arguments name columns exactly as they are spelled, case and all, without quotes.")));
	}
	return (AttrNumber) attnum;
}

static Form_pg_attribute
column_attr(Relation rel, AttrNumber attnum)
{
	return TupleDescAttr(RelationGetDescr(rel), attnum - 1);
}

/*
 * The column of the table's primary key.  Without a single-column primary
 * key the trigger cannot say which row a new one duplicates: that is a state
 * of the table, which adding a key (or naming a key column) fixes, hence
 * object_not_in_prerequisite_state.
 */
static AttrNumber
primary_key_column(Relation rel, const char *key_ordinal)
{
	Oid			index_oid = RelationGetPrimaryKeyIndex(rel, false);
	HeapTuple	index_tuple;
	Form_pg_index index;
	AttrNumber	attnum = InvalidAttrNumber;

	if (OidIsValid(index_oid))
	{
		index_tuple = SearchSysCache1(INDEXRELID, ObjectIdGetDatum(index_oid));
		if (!HeapTupleIsValid(index_tuple))
			elog(ERROR, "cache lookup failed for index %u", index_oid);
		index = (Form_pg_index) GETSTRUCT(index_tuple);
		if (index->indnkeyatts == 1)
			attnum = index->indkey.values[0];
		ReleaseSysCache(index_tuple);
	}
	if (attnum <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("relation \"%s\" has no single-column primary key",
						RelationGetRelationName(rel)),
				 errhint("Name the key column in the trigger's %s argument.", key_ordinal)));
	return attnum;
}

/* Which trigger's threshold minhash_check_threshold refused. */
static void
threshold_context(void *trigger_name)
{
	errcontext("threshold argument of trigger \"%s\"", (const char *) trigger_name);
}

/*
 * The threshold, parsed here rather than pasted into the query: a number,
 * nothing before or after it but spaces, in [0, 1] (minhash_check_threshold).
 */
static double
parse_threshold(const char *text, const char *trigger_name)
{
	ErrorContextCallback context = {error_context_stack, threshold_context, (void *) trigger_name};
	char	   *end;
	double		value;

	value = strtod(text, &end);
	while (*end == ' ')
		end++;
	if (end == text || *end != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid resemblance threshold for trigger \"%s\": \"%s\"",
						trigger_name, minhash_echo_prefix(text)),
				 errdetail("The threshold must be a number.")));
	error_context_stack = &context;
	minhash_check_threshold(value);
	error_context_stack = context.previous;
	return value;
}

/* Trigger arguments by position, for messages. */
static const char *const ordinals[] = {"first", "second", "third", "fourth", "fifth", "sixth", "seventh"};

/*
 * The argument after the key column, the concurrency mode: 'nolock' (the
 * default: the lookup sees what its snapshot sees) or 'lock'
 * (lock_near_duplicates()).
 */
static bool
parse_lock_mode(const char *text, const char *trigger_name, const char *ordinal)
{
	if (strcmp(text, "lock") == 0)
		return true;
	if (strcmp(text, "nolock") == 0)
		return false;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("unrecognized concurrency mode for trigger \"%s\": \"%s\"",
					trigger_name, minhash_echo_prefix(text)),
			 errdetail("The %s argument must be \"lock\" or \"nolock\".", ordinal)));
	return false;				/* keep compiler quiet */
}

/* One of the extension's types: in the schema of this function. */
static Oid
extension_type(Oid extension_schema, const char *name)
{
	Oid			type = GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
									   CStringGetDatum(name),
									   ObjectIdGetDatum(extension_schema));

	if (!OidIsValid(type))
		elog(ERROR, "type %s not found in schema %u", name, extension_schema);
	return type;
}

/*
 * How a key becomes the flag column's value: the conversion an INSERT or
 * UPDATE of that column applies (assignment: a length or range that does
 * not fit is an error, where an explicit cast would truncate), on a
 * CaseTestExpr standing for the key.  *conversion is NULL when the key is
 * stored as it is.  False when the key's type has no assignment cast to the
 * flag column's.
 */
static bool
key_assignment(const FlagConfig *config, Oid key_collation, Node **conversion)
{
	CaseTestExpr *key = makeNode(CaseTestExpr);
	Node	   *assigned;

	key->typeId = config->key_type;
	key->typeMod = config->key_typmod;
	key->collation = key_collation;
	assigned = coerce_to_target_type(NULL, (Node *) key, config->key_type,
									 config->flag_type, config->flag_typmod,
									 COERCION_ASSIGNMENT, COERCE_IMPLICIT_CAST, -1);
	*conversion = NULL;
	if (assigned == NULL)
		return false;
	/* the same value, or the same bytes under another type name */
	if (assigned != (Node *) key &&
		!(IsA(assigned, RelabelType) && ((RelabelType *) assigned)->arg == (Expr *) key))
		*conversion = assigned;
	return true;
}

/* Which trigger's shingles minhash_text_params refused. */
static void
shingles_context(void *trigger_name)
{
	errcontext("shingles argument of trigger \"%s\"", (const char *) trigger_name);
}

/*
 * The signing trigger's last argument, how the document is shingled: a
 * shingle size and "words" (minhash(text)) or "chars"
 * (minhash_char_shingles(text)), as in '5 words' or '3 chars'.  The number
 * of hash values is the signature column's; the seed is minhash()'s
 * default, 0.
 */
static MhParams
parse_shingles(const char *text, int32 num_perm, const char *trigger_name)
{
	ErrorContextCallback context = {error_context_stack, shingles_context, (void *) trigger_name};
	char	   *end;
	long		size = strtol(text, &end, 10);
	const char *unit = end + strspn(end, " ");
	bool		words = strncmp(unit, "words", 5) == 0;
	bool		chars = strncmp(unit, "chars", 5) == 0;
	MhParams	params;

	if (end == text || unit == end || !(words || chars) || unit[5 + strspn(unit + 5, " ")] != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("unrecognized shingles for trigger \"%s\": \"%s\"",
						trigger_name, minhash_echo_prefix(text)),
				 errdetail("The seventh argument must be a shingle size and \"words\" or \"chars\", as in '5 words' (minhash(text)) or '3 chars' (minhash_char_shingles(text))."),
				 errhint("Leave it out for '5 words', what minhash(text) builds.")));
	error_context_stack = &context;
	params = minhash_text_params(words ? MH_KIND_WORDS : MH_KIND_CHARS, num_perm, size > PG_INT32_MAX || size < 0 ? -1 : (int32) size, 0);
	error_context_stack = context.previous;
	return params;
}

/*
 * minhash_flag_duplicates, whose triggers the signing trigger lets fire
 * after it (they change no signature), or InvalidOid.
 */
static Oid
flagging_function(Oid extension_schema)
{
	List	   *name = list_make2(makeString(get_namespace_name(extension_schema)),
								  makeString(FLAG_FUNCTION_NAME));

	return LookupFuncName(name, 0, NULL, true);
}

/*
 * The signing trigger's document column: a user column of a string type
 * the word builders take (text, varchar, char(n), or a domain over one),
 * that the row holds when BEFORE triggers fire (not generated).
 */
static AttrNumber
document_column(Relation rel, const char *name)
{
	AttrNumber	attnum = user_column(rel, name);
	Form_pg_attribute attr = column_attr(rel, attnum);
	Oid			base_type = getBaseType(attr->atttypid);

	if (base_type != TEXTOID && base_type != VARCHAROID && base_type != BPCHAROID)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("document column \"%s\" is of type %s, not text",
						NameStr(attr->attname), format_type_be(attr->atttypid)),
				 errhint("Name a column of type text, varchar or char(n) in the trigger's first argument, or sign the rows in the statement and use %s.",
						 FLAG_FUNCTION_NAME)));
	if (attr->attgenerated != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("document column \"%s\" is a generated column", NameStr(attr->attname)),
				 errdetail("PostgreSQL computes generated columns after BEFORE triggers, so the trigger would never see a document."),
				 errhint("Name the column the generated one is computed from.")));
	return attnum;
}

/*
 * The number of hash values the signature column holds, minhash(n), or
 * minhash(text)'s default when it does not say; and its domain, if any.
 */
static int32
signature_num_perm(Form_pg_attribute sig_attr, Oid *domain)
{
	int32		typmod = sig_attr->atttypmod;
	Oid			base_type = getBaseTypeAndTypmod(sig_attr->atttypid, &typmod);

	*domain = base_type != sig_attr->atttypid ? sig_attr->atttypid : InvalidOid;
	return typmod >= 0 ? typmod : DEFAULT_NUM_PERM;
}

/*
 * Read and check the trigger's arguments against the table.  The signing
 * trigger's arguments are the flagging trigger's, after the document column
 * and followed by the shingles.
 */
static void
read_config(Trigger *trigger, Relation rel, Oid extension_schema, bool signs, FlagConfig *config)
{
	int			first = signs ? 1 : 0;	/* position of the signature column */
	char	  **args = trigger->tgargs + first;
	int			nargs = trigger->tgnargs - first;
	Form_pg_attribute sig_attr,
				flag_attr,
				key_attr;

	if (!signs && (nargs < 3 || nargs > 5))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\" must have three to five arguments", trigger->tgname),
				 errdetail("It has %d.", trigger->tgnargs),
				 errhint("Give the signature column, the flag column, the threshold and optionally the key column and the concurrency mode, as in %s('sig', 'duplicate_of', '0.8').",
						 FLAG_FUNCTION_NAME)));
	if (signs && (nargs < 3 || nargs > 6))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("trigger \"%s\" must have four to seven arguments", trigger->tgname),
				 errdetail("It has %d.", trigger->tgnargs),
				 errhint("Give the document column, the signature column, the flag column, the threshold and optionally the key column, the concurrency mode and the shingles, as in %s('body', 'sig', 'duplicate_of', '0.8').",
						 SIGN_FUNCTION_NAME)));

	config->signs = signs;
	config->minhash_type = extension_type(extension_schema, "minhash");
	config->query_type = extension_type(extension_schema, "minhash_query");
	if (signs)
		config->doc_attnum = document_column(rel, trigger->tgargs[0]);
	config->sig_attnum = user_column(rel, args[0]);
	config->flag_attnum = user_column(rel, args[1]);
	config->threshold = parse_threshold(args[2], trigger->tgname);
	/* an empty key argument stands for the primary key, to reach the mode */
	config->key_attnum = nargs >= 4 && args[3][0] != '\0' ?
		user_column(rel, args[3]) : primary_key_column(rel, ordinals[first + 3]);
	/* the signing trigger's empty mode stands for 'nolock', to reach the shingles */
	config->lock_near_duplicates = nargs >= 5 && !(signs && args[4][0] == '\0') &&
		parse_lock_mode(args[4], trigger->tgname, ordinals[first + 4]);

	sig_attr = column_attr(rel, config->sig_attnum);
	flag_attr = column_attr(rel, config->flag_attnum);
	key_attr = column_attr(rel, config->key_attnum);
	config->flag_type = flag_attr->atttypid;
	config->flag_typmod = flag_attr->atttypmod;
	config->key_type = key_attr->atttypid;
	config->key_typmod = key_attr->atttypmod;

	if (getBaseType(sig_attr->atttypid) != config->minhash_type)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("signature column \"%s\" is of type %s, not minhash",
						NameStr(sig_attr->attname), format_type_be(sig_attr->atttypid))));
	if (sig_attr->attgenerated != '\0')
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("signature column \"%s\" is a generated column", NameStr(sig_attr->attname)),
				 errdetail("PostgreSQL computes generated columns after BEFORE triggers, so the trigger would never see a signature."),
				 errhint("Set the column in the INSERT or UPDATE, or in a BEFORE trigger that fires earlier (triggers fire in order of their names).")));
	if (config->flag_attnum == config->key_attnum || config->flag_attnum == config->sig_attnum)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("flag column \"%s\" must differ from the signature and key columns",
						NameStr(flag_attr->attname))));
	if (signs && config->flag_attnum == config->doc_attnum)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("flag column \"%s\" must differ from the document column",
						NameStr(flag_attr->attname)),
				 errhint("Name a column of its own for the flag: the trigger writes the key of the most similar row in it.")));
	if (signs)
	{
		int32		num_perm = signature_num_perm(sig_attr, &config->sig_domain);

		config->sign_params = nargs == 6 ?
			parse_shingles(args[5], num_perm, trigger->tgname) :
			minhash_text_params(MH_KIND_WORDS, num_perm, DEFAULT_SHINGLE_SIZE, 0);
		config->flag_function = flagging_function(extension_schema);
	}
	if (!key_assignment(config, key_attr->attcollation, &config->key_to_flag))
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("flag column \"%s\" is of type %s, which cannot hold key column \"%s\" of type %s",
						NameStr(flag_attr->attname), format_type_be(config->flag_type),
						NameStr(key_attr->attname), format_type_be(config->key_type)),
				 errhint("Make the flag column of the key column's type.")));
	get_typlenbyval(config->key_type, &config->key_typlen, &config->key_typbyval);
}

/*
 * The lookup: the key of the most similar other row at or above the
 * threshold, in the key column's type, ties broken by the smaller key.  $1
 * is the new signature, $2 the old row's ctid on UPDATE (NULL on INSERT).
 * %> with minhash_query() is the operator the GIN index serves.  Rows
 * with a NULL key are skipped: NULL means "no duplicate".
 * The threshold, fixed for the trigger, is written into the query as a
 * float8 constant (%.17g reads back as the same double), not passed as a
 * parameter: after five rows the kept plan becomes a generic plan, and the
 * planner takes the index for it only when it can see that the index
 * narrows the lookup at this threshold (minhash_selectivity.c).
 */
static char *
lookup_query(Relation rel, const FlagConfig *config, Oid extension_schema)
{
	const char *ext = quote_identifier(get_namespace_name(extension_schema));
	const char *table = quote_qualified_identifier(get_namespace_name(RelationGetNamespace(rel)),
												   RelationGetRelationName(rel));
	const char *sig = quote_identifier(NameStr(column_attr(rel, config->sig_attnum)->attname));
	const char *key = quote_identifier(NameStr(column_attr(rel, config->key_attnum)->attname));
	StringInfoData query;

	initStringInfo(&query);
	appendStringInfo(&query, "SELECT t.%s", key);
	appendStringInfo(&query,
					 " FROM ONLY %s t"
					 " WHERE t.%s OPERATOR(%s.%%>) %s.minhash_query($1, '%.17g'::pg_catalog.float8)"
					 " AND t.%s IS NOT NULL"
					 " AND ($2 IS NULL OR t.ctid OPERATOR(pg_catalog.<>) $2)"
					 " ORDER BY %s.resemblance(t.%s, $1) DESC, t.%s"
					 " LIMIT 1",
					 table, sig, ext, ext, config->threshold, key, ext, sig, key);
	return query.data;
}

/*
 * The per-trigger cache.
 *
 * A FlagTrigger holds what a trigger's first row worked out: the checked
 * arguments, the kept plan of the lookup and the key's conversion.  It is
 * found by trigger OID and stays valid until an invalidation says that what
 * it was built from may have changed:
 *   - the trigger's table (relcache): ALTER TABLE, a column renamed or of
 *     another type, CREATE, DROP or ALTER ... RENAME of a trigger on it, a
 *     primary key added or dropped; a dropped trigger's entry is invalidated
 *     this way and freed, so CREATE/DROP cycles don't grow the cache;
 *   - any schema (pg_namespace): the query names the table's and the
 *     extension's schemas, and the kept plan would re-read those names when
 *     PostgreSQL re-analyzes it;
 *   - the functions in the key's conversion (CachedExpression->is_valid).
 * Callbacks only mark entries invalid: an invalidation can arrive while a
 * plan runs (at any lock).  Invalid entries are freed at the start of a
 * later call, unless a call (an outer one: a key comparison or domain check
 * may run user code that fires the trigger again) still pins them.
 */
static HTAB *flag_trigger_by_oid = NULL;
static dlist_head flag_triggers = DLIST_STATIC_INIT(flag_triggers);
static bool flag_triggers_to_free = false;

/*
 * While an entry is built: its table, and whether an invalidation that may
 * concern it arrived meanwhile.  Building runs no user code, so builds do
 * not nest.
 */
static Oid	building_relid = InvalidOid;
static bool building_invalidated = false;

static void
invalidate_flag_triggers(Oid relid)
{
	dlist_iter	iter;

	dlist_foreach(iter, &flag_triggers)
	{
		FlagTrigger *flag_trigger = dlist_container(FlagTrigger, node, iter.cur);

		if (!OidIsValid(relid) || flag_trigger->relid == relid)
		{
			flag_trigger->valid = false;
			flag_triggers_to_free = true;
		}
	}
	if (!OidIsValid(relid) || relid == building_relid)
		building_invalidated = true;
}

static void
flag_relcache_callback(Datum arg, Oid relid)
{
	invalidate_flag_triggers(relid);
}

static void
flag_namespace_callback(Datum arg, int cacheid, uint32 hashvalue)
{
	invalidate_flag_triggers(InvalidOid);
}

static void
init_flag_trigger_cache(void)
{
	HASHCTL		ctl;

	memset(&ctl, 0, sizeof(ctl));
	ctl.keysize = sizeof(Oid);
	ctl.entrysize = sizeof(FlagTriggerEntry);
	flag_trigger_by_oid = hash_create("minhash_flag_duplicates triggers", 16, &ctl,
									  HASH_ELEM | HASH_BLOBS);
	CacheRegisterRelcacheCallback(flag_relcache_callback, (Datum) 0);
	CacheRegisterSyscacheCallback(NAMESPACEOID, flag_namespace_callback, (Datum) 0);
}

/* Free the invalid entries no call uses any more. */
static void
free_invalid_flag_triggers(void)
{
	dlist_mutable_iter iter;

	flag_triggers_to_free = false;
	dlist_foreach_modify(iter, &flag_triggers)
	{
		FlagTrigger *flag_trigger = dlist_container(FlagTrigger, node, iter.cur);
		FlagTriggerEntry *entry;

		if (flag_trigger->valid)
			continue;
		entry = hash_search(flag_trigger_by_oid, &flag_trigger->trigger_oid, HASH_FIND, NULL);
		if (entry != NULL && entry->flag_trigger == flag_trigger)
			hash_search(flag_trigger_by_oid, &flag_trigger->trigger_oid, HASH_REMOVE, NULL);
		if (flag_trigger->pins > 0)
		{
			flag_triggers_to_free = true;
			continue;
		}
		dlist_delete(&flag_trigger->node);
		SPI_freeplan(flag_trigger->plan);
		if (flag_trigger->key_to_flag != NULL)
			FreeCachedExpression(flag_trigger->key_to_flag);
		MemoryContextDelete(flag_trigger->context);
	}
}

/*
 * Build a trigger's entry: read and check its arguments, prepare and keep
 * the lookup, plan the key's conversion.  Everything is made in a context
 * under the caller's until it is complete, so an error leaves nothing kept.
 */
static FlagTrigger *
build_flag_trigger(TriggerData *trigdata, Oid function_oid, bool signs)
{
	Relation	rel = trigdata->tg_relation;
	Trigger    *trigger = trigdata->tg_trigger;
	MemoryContext context;
	MemoryContext caller_context;
	FlagTrigger *flag_trigger;
	Oid			extension_schema;
	char	   *query;
	Oid			argtypes[LOOKUP_NARGS];
	SPIPlanPtr	plan;

	building_relid = RelationGetRelid(rel);
	building_invalidated = false;

	/* named after the function (a context's name must be a constant) */
	if (signs)
		context = AllocSetContextCreate(CurrentMemoryContext, SIGN_FUNCTION_NAME, ALLOCSET_SMALL_SIZES);
	else
		context = AllocSetContextCreate(CurrentMemoryContext, FLAG_FUNCTION_NAME, ALLOCSET_SMALL_SIZES);
	caller_context = MemoryContextSwitchTo(context);
	MemoryContextSetIdentifier(context, psprintf("%s on %s", trigger->tgname,
												 RelationGetRelationName(rel)));
	flag_trigger = palloc0(sizeof(FlagTrigger));
	flag_trigger->context = context;
	flag_trigger->builder_keeper.fn_mcxt = context;
	flag_trigger->trigger_oid = trigger->tgoid;
	flag_trigger->relid = RelationGetRelid(rel);
	extension_schema = get_func_namespace(function_oid);
	read_config(trigger, rel, extension_schema, signs, &flag_trigger->config);
	query = lookup_query(rel, &flag_trigger->config, extension_schema);
	MemoryContextSwitchTo(caller_context);

	argtypes[0] = flag_trigger->config.minhash_type;
	argtypes[1] = TIDOID;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	plan = SPI_prepare(query, LOOKUP_NARGS, argtypes);
	if (plan == NULL)
		elog(ERROR, "SPI_prepare failed for \"%s\": %s", query,
			 SPI_result_code_string(SPI_result));
	if (flag_trigger->config.key_to_flag != NULL)
		flag_trigger->key_to_flag = GetCachedExpression(flag_trigger->config.key_to_flag);
	/* the entry is complete: from here on nothing fails */
	if (SPI_keepplan(plan) != 0)
		elog(ERROR, "SPI_keepplan failed");
	flag_trigger->plan = plan;
	SPI_finish();

	MemoryContextSetParent(context, CacheMemoryContext);
	dlist_push_tail(&flag_triggers, &flag_trigger->node);
	/* built from what may be stale: good for this row, rebuilt on the next */
	flag_trigger->valid = !building_invalidated;
	if (!flag_trigger->valid)
		flag_triggers_to_free = true;
	building_relid = InvalidOid;
	return flag_trigger;
}

/*
 * The index options a trigger's lookups are slow with.
 *
 * With fastupdate on (GIN's default) an index queues new entries in a
 * pending list, and every scan reads the whole list: each row a load
 * inserts makes the next rows' lookups slower, until VACUUM, autovacuum or
 * gin_pending_list_limit merges the list (test/bench/trigger_index.sh:
 * 2,000 rows load about 37 times slower than with fastupdate off, slower
 * than with no index at all).  The README creates the index WITH (fastupdate
 * = off); a trigger whose signature column has a GIN index with fastupdate
 * on that can serve its lookup (its operator family holds %>, so not
 * gin_minhash_approx_ops) says so, once per trigger and session.
 */
static List *triggers_warned_fastupdate = NIL;

static void
warn_fastupdate(TriggerData *trigdata, const FlagTrigger *flag_trigger)
{
	Relation	rel = trigdata->tg_relation;
	List	   *indexes;
	ListCell   *cell;

	if (list_member_oid(triggers_warned_fastupdate, flag_trigger->trigger_oid))
		return;
	indexes = RelationGetIndexList(rel);
	foreach(cell, indexes)
	{
		Relation	index = index_open(lfirst_oid(cell), AccessShareLock);
		bool		slow = index->rd_rel->relam == GIN_AM_OID &&
			index->rd_index->indnkeyatts >= 1 &&
			index->rd_index->indkey.values[0] == flag_trigger->config.sig_attnum &&
			OidIsValid(get_opfamily_member(index->rd_opfamily[0], flag_trigger->config.minhash_type,
										   flag_trigger->config.query_type, MINHASH_QUERY_STRATEGY)) &&
			GinGetUseFastUpdate(index);
		char	   *index_name = slow ? quote_qualified_identifier(get_namespace_name(RelationGetNamespace(index)),
																 RelationGetRelationName(index)) : NULL;

		index_close(index, AccessShareLock);
		if (!slow)
			continue;
		{
			MemoryContext caller_context = MemoryContextSwitchTo(TopMemoryContext);

			triggers_warned_fastupdate = lappend_oid(triggers_warned_fastupdate, flag_trigger->trigger_oid);
			MemoryContextSwitchTo(caller_context);
		}
		ereport(WARNING,
				(errmsg("index %s has fastupdate on, which slows down trigger \"%s\"",
						index_name, trigdata->tg_trigger->tgname),
				 errdetail("Every lookup of the trigger reads the index's pending list of recent insertions, which grows with each row inserted until it is merged."),
				 errhint("Run ALTER INDEX %s SET (fastupdate = off), then SELECT gin_clean_pending_list(%s).",
						 index_name, quote_literal_cstr(index_name))));
		break;
	}
	list_free(indexes);
}

/*
 * Citus (test/citus): with citus.enable_unsafe_triggers on, a trigger on a
 * distributed table is created on each shard and fires there, and its
 * lookup reads only that shard, so a duplicate in another shard would go
 * unflagged without a word.  Refuse to run on a shard of a table of more
 * than one shard.  A reference table's or a local table's shard holds every
 * row of its table and is accepted.  Checked when an entry is built: once
 * per trigger and session; without Citus's catalog pg_dist_shard (Citus 13
 * keeps it on every node) it costs one syscache lookup.
 */
static void
refuse_citus_shard(TriggerData *trigdata)
{
	Relation	rel = trigdata->tg_relation;
	Oid			argtypes[2] = {REGCLASSOID, TEXTOID};
	Datum		values[2];
	int			status;

	if (!OidIsValid(get_relname_relid("pg_dist_shard", PG_CATALOG_NAMESPACE)))
		return;
	values[0] = ObjectIdGetDatum(RelationGetRelid(rel));
	values[1] = CStringGetTextDatum(RelationGetRelationName(rel));
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	/* a shard's name is its table's name, '_' and the shard id */
	status = SPI_execute_with_args("SELECT s.logicalrelid::pg_catalog.regclass::pg_catalog.text,"
								   " (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard o"
								   "   WHERE o.logicalrelid = s.logicalrelid)::pg_catalog.int4"
								   " FROM pg_catalog.pg_dist_shard s"
								   " WHERE pg_catalog.relation_is_a_known_shard($1)"
								   " AND s.shardid = pg_catalog.substring($2, '_([0-9]+)$')::pg_catalog.int8",
								   2, argtypes, values, NULL, true, 1);
	if (status != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_with_args failed: %s", SPI_result_code_string(status));
	if (SPI_processed > 0)
	{
		bool		isnull;
		char	   *table = SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1);
		int32		shards = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0],
														 SPI_tuptable->tupdesc, 2, &isnull));

		/* Citus names a shard's trigger as the shard: "<trigger>_<shard id>" */
		const char *shard_suffix = strrchr(RelationGetRelationName(rel), '_');
		char	   *trigger_name = pstrdup(trigdata->tg_trigger->tgname);
		size_t		name_len = strlen(trigger_name);

		if (shard_suffix != NULL && name_len > strlen(shard_suffix) &&
			strcmp(trigger_name + name_len - strlen(shard_suffix), shard_suffix) == 0)
			trigger_name[name_len - strlen(shard_suffix)] = '\0';
		if (shards > 1)
			ereport(ERROR,
					(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
					 errmsg("near-duplicate flagging trigger \"%s\" cannot run on a Citus shard",
							trigger_name),
					 errdetail("Relation \"%s\" is one of the %d shards of distributed table %s, and a lookup on it sees only the rows of this shard.",
							   RelationGetRelationName(rel), shards, table),
					 errhint("Drop the trigger and flag duplicates through the coordinator after loading, or use near_dupe_groups() on the distributed table (README, \"Sharding on Citus\").")));
	}
	SPI_finish();
}

/* The trigger's entry, built on its first row or after an invalidation. */
static FlagTrigger *
flag_trigger_for(TriggerData *trigdata, Oid function_oid, bool signs)
{
	Oid			trigger_oid = trigdata->tg_trigger->tgoid;
	FlagTriggerEntry *entry;
	FlagTrigger *flag_trigger;

	if (flag_trigger_by_oid == NULL)
		init_flag_trigger_cache();
	if (flag_triggers_to_free)
		free_invalid_flag_triggers();
	entry = hash_search(flag_trigger_by_oid, &trigger_oid, HASH_FIND, NULL);
	if (entry != NULL)
	{
		flag_trigger = entry->flag_trigger;
		if (flag_trigger->valid &&
			(flag_trigger->key_to_flag == NULL || flag_trigger->key_to_flag->is_valid))
			return flag_trigger;
		flag_trigger->valid = false;
		flag_triggers_to_free = true;
	}
	refuse_citus_shard(trigdata);
	flag_trigger = build_flag_trigger(trigdata, function_oid, signs);
	entry = hash_search(flag_trigger_by_oid, &trigger_oid, HASH_ENTER, NULL);
	entry->flag_trigger = flag_trigger;
	warn_fastupdate(trigdata, flag_trigger);
	return flag_trigger;
}

/*
 * The key as the flag column's value, converted as an assignment converts
 * it.  A key that does not fit (too long, out of range, refused by a domain:
 * SQLSTATE classes 22 and 23) is reported as the trigger's error, keeping
 * the SQLSTATE; the key itself is not shown.
 */
static Datum
key_as_flag(TriggerData *trigdata, const FlagTrigger *flag_trigger, Datum key, bool *isnull)
{
	MemoryContext caller_context = CurrentMemoryContext;
	ExprState  *assignment = ExecInitExpr((Expr *) flag_trigger->key_to_flag->expr, NULL);
	ExprContext *econtext = CreateStandaloneExprContext();
	Datum		flag = (Datum) 0;

	econtext->caseValue_datum = key;
	econtext->caseValue_isNull = false;
	PG_TRY();
	{
		flag = ExecEvalExpr(assignment, econtext, isnull);
	}
	PG_CATCH();
	{
		const FlagConfig *config = &flag_trigger->config;
		Relation	rel = trigdata->tg_relation;
		ErrorData  *edata;
		int			category;

		MemoryContextSwitchTo(caller_context);
		edata = CopyErrorData();
		category = ERRCODE_TO_CATEGORY(edata->sqlerrcode);
		if (category != ERRCODE_DATA_EXCEPTION && category != ERRCODE_INTEGRITY_CONSTRAINT_VIOLATION)
			PG_RE_THROW();
		FlushErrorState();
		ereport(ERROR,
				(errcode(edata->sqlerrcode),
				 errmsg("key of the most similar row does not fit flag column \"%s\" of relation \"%s\"",
						NameStr(column_attr(rel, config->flag_attnum)->attname),
						RelationGetRelationName(rel)),
				 errdetail("Trigger \"%s\" stores key column \"%s\" of type %s in a column of type %s: %s.",
						   trigdata->tg_trigger->tgname,
						   NameStr(column_attr(rel, config->key_attnum)->attname),
						   format_type_with_typemod(config->key_type, config->key_typmod),
						   format_type_with_typemod(config->flag_type, config->flag_typmod),
						   edata->message),
				 errhint("Make the flag column of the key column's type.")));
	}
	PG_END_TRY();
	FreeExprContext(econtext, true);
	return flag;
}

/*
 * Where an error of the lookup arose.  Its comparisons refuse a row whose
 * signature was built with other parameters than the new row's, and their
 * message speaks of the first and the second signature: the first is the
 * table's row, the second the new row's.
 */
typedef struct LookupContext
{
	const char *trigger_name;
	Relation	rel;
	const char *sig_column;
} LookupContext;

static void
lookup_context(void *arg)
{
	const LookupContext *lookup = (const LookupContext *) arg;

	errcontext("trigger \"%s\" comparing the new row's signature (the second) with column \"%s\" of table \"%s\"",
			   lookup->trigger_name, lookup->sig_column, RelationGetRelationName(lookup->rel));
}

/*
 * Run the lookup for signature sig.  Returns the key, converted to the flag
 * column's type and in the caller's memory context, or sets *isnull when no
 * row is similar enough.
 */
static Datum
most_similar_key(TriggerData *trigdata, const FlagTrigger *flag_trigger, Datum sig, bool *isnull)
{
	const FlagConfig *config = &flag_trigger->config;
	MemoryContext caller_context = CurrentMemoryContext;
	Datum		values[LOOKUP_NARGS];
	char		nulls[LOOKUP_NARGS] = {' ', ' '};
	Datum		result = (Datum) 0;
	int			status;
	LookupContext lookup;
	ErrorContextCallback context;

	*isnull = true;
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");

	values[0] = sig;
	if (TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
		values[1] = PointerGetDatum(&trigdata->tg_trigtuple->t_self);
	else
	{
		values[1] = (Datum) 0;
		nulls[1] = 'n';
	}

	lookup.trigger_name = trigdata->tg_trigger->tgname;
	lookup.rel = trigdata->tg_relation;
	lookup.sig_column = NameStr(column_attr(trigdata->tg_relation, config->sig_attnum)->attname);
	context.previous = error_context_stack;
	context.callback = lookup_context;
	context.arg = &lookup;
	error_context_stack = &context;
	status = SPI_execute_plan(flag_trigger->plan, values, nulls, false, 1);
	error_context_stack = context.previous;
	if (status != SPI_OK_SELECT)
		elog(ERROR, "SPI_execute_plan failed: %s", SPI_result_code_string(status));
	if (SPI_processed > 0)
	{
		Datum		key = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, isnull);

		if (!*isnull)
		{
			MemoryContext spi_context = MemoryContextSwitchTo(caller_context);

			result = datumCopy(key, config->key_typbyval, config->key_typlen);
			MemoryContextSwitchTo(spi_context);
		}
	}
	SPI_finish();
	if (!*isnull && flag_trigger->key_to_flag != NULL)
		result = key_as_flag(trigdata, flag_trigger, result, isnull);
	return result;
}

/*
 * The 'lock' mode: before the lookup, take a transaction-level advisory lock
 * on each band of the new signature, so that a concurrent transaction
 * inserting a near-duplicate waits until this one ends, and its lookup (a new
 * snapshot under READ COMMITTED) then sees this row.
 *
 * The bands are the engine's pigeonhole layout with no spare bands
 * (mh_pigeonhole_layout, as the grouping takes it): two signatures
 * resembling each other at least at the threshold disagree on at most
 * max_disagreements positions, fewer than there are bands, so some band
 * agrees entirely and both rows lock its key.  When every pair qualifies
 * (threshold 0) there is one lock for the whole table.  A key is (table OID,
 * the band key folded to 32 bits): a collision only makes two unrelated
 * inserts wait for each other.  Taken in ascending order, so two single-row
 * transactions cannot deadlock; a transaction that inserts several rows
 * takes each row's locks in turn and may (PostgreSQL then detects it).
 */
static void
lock_near_duplicates(Relation rel, Datum sig_datum, double threshold)
{
	MinHash    *sig = DatumGetMinHashP(sig_datum);
	MhPigeonholeLayout layout;
	bool		pigeonhole = mh_pigeonhole_layout(threshold, sig->num_perm, 0, &layout) == MH_OK;
	int32		table_key = (int32) RelationGetRelid(rel);
	uint32		nkeys = pigeonhole ? layout.bands : 1;
	int32	   *keys = palloc0(sizeof(int32) * nkeys);
	uint32		i;

	if (pigeonhole)
	{
		uint64	   *band_keys = palloc(sizeof(uint64) * nkeys);

		if (mh_band_keys(sig->values, sig->num_perm, layout.bands, layout.rows, band_keys) != MH_OK)
			elog(ERROR, "could not compute band keys");
		for (i = 0; i < nkeys; i++)
			keys[i] = (int32) (uint32) (band_keys[i] ^ (band_keys[i] >> 32));
		pfree(band_keys);
	}
	minhash_sort_int32(keys, nkeys);
	for (i = 0; i < nkeys; i++)
		if (i == 0 || keys[i] != keys[i - 1])
			DirectFunctionCall2(pg_advisory_xact_lock_int4,
								Int32GetDatum(table_key), Int32GetDatum(keys[i]));
	pfree(keys);
}

/*
 * The first BEFORE ROW trigger on the table for this event that fires after
 * this one (triggers fire in order of their names) and whose function is
 * neither function_oid nor also_oid, or NULL: one that may change the row
 * after the lookup has run.
 */
static const char *
later_before_trigger(TriggerData *trigdata, Oid function_oid, Oid also_oid)
{
	TriggerDesc *triggers = trigdata->tg_relation->trigdesc;
	int16		event = TRIGGER_FIRED_BY_INSERT(trigdata->tg_event) ? TRIGGER_TYPE_INSERT : TRIGGER_TYPE_UPDATE;
	bool		after_this = false;

	for (int i = 0; triggers != NULL && i < triggers->numtriggers; i++)
	{
		Trigger    *trigger = &triggers->triggers[i];
		bool		enabled = SessionReplicationRole == SESSION_REPLICATION_ROLE_REPLICA ?
			trigger->tgenabled == TRIGGER_FIRES_ON_REPLICA || trigger->tgenabled == TRIGGER_FIRES_ALWAYS :
			trigger->tgenabled == TRIGGER_FIRES_ON_ORIGIN || trigger->tgenabled == TRIGGER_FIRES_ALWAYS;

		if (trigger->tgoid == trigdata->tg_trigger->tgoid)
			after_this = true;
		else if (after_this && enabled && trigger->tgfoid != function_oid && trigger->tgfoid != also_oid &&
				 TRIGGER_TYPE_MATCHES(trigger->tgtype, TRIGGER_TYPE_ROW, TRIGGER_TYPE_BEFORE, event))
			return trigger->tgname;
	}
	return NULL;
}

/*
 * A row without a signature is not looked up: the trigger knows only the
 * signature column, not the document's, so it cannot tell a row with no
 * document from one whose signature is not set yet, and it flags neither.
 * It can tell when the signature may be set after it: by a BEFORE trigger
 * that fires later.  Then a null signature is an error, not a row left
 * quietly unflagged.  (A generated signature column is refused when the
 * trigger's arguments are read: it is computed after every BEFORE trigger.)
 */
static void
check_null_signature(TriggerData *trigdata, const FlagTrigger *flag_trigger, Oid function_oid)
{
	const char *later = later_before_trigger(trigdata, function_oid, InvalidOid);
	const char *trigger_name = trigdata->tg_trigger->tgname;

	if (later != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("signature column \"%s\" of relation \"%s\" is null when trigger \"%s\" runs",
						NameStr(column_attr(trigdata->tg_relation, flag_trigger->config.sig_attnum)->attname),
						RelationGetRelationName(trigdata->tg_relation), trigger_name),
				 errdetail("Trigger \"%s\" fires after it, and may set the signature after the lookup.", later),
				 errhint("BEFORE triggers fire in order of their names: rename them so that \"%s\" sorts after every other, and set the signature in the statement or in a trigger that fires earlier.",
						 trigger_name)));
}

/*
 * The signing trigger must fire after every BEFORE ROW trigger but the
 * extension's own: one that fired after it could clear the signature or
 * change the document once the signature is built and the row flagged,
 * leaving a row with a document and no signature, or a signature and a
 * flag of another text, without a word.  A BEFORE trigger cannot see what
 * later ones do, so the order itself is the error (the flagging trigger's
 * own rule, check_null_signature, for a signature a later trigger may set).
 */
static void
check_signs_last(TriggerData *trigdata, const FlagTrigger *flag_trigger, Oid function_oid)
{
	const char *later = later_before_trigger(trigdata, function_oid, flag_trigger->config.flag_function);
	const char *trigger_name = trigdata->tg_trigger->tgname;

	if (later != NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("trigger \"%s\" of relation \"%s\" fires after trigger \"%s\", which signs the row",
						later, RelationGetRelationName(trigdata->tg_relation), trigger_name),
				 errdetail("A BEFORE trigger that fires after \"%s\" could clear the signature or change the document once the row is signed and flagged.",
						   trigger_name),
				 errhint("BEFORE triggers fire in order of their names: rename them so that \"%s\" sorts after every other.",
						 trigger_name)));
}

/*
 * The signing trigger's first step: the new row with its signature filled
 * from its document when the statement did not set it, so that a row with a
 * document always has a signature.
 *   - A signature the statement set is kept as it is (not rebuilt to check
 *     it: that would cost what the statement saved by building it, and a
 *     signature copied from elsewhere is the statement's to choose).
 *   - A NULL signature beside a document is built.
 *   - On UPDATE, a document that changed under a signature that did not
 *     (NEW.sig IS NOT DISTINCT FROM OLD.sig) is signed again: the old
 *     signature is of the old text.  A document set to NULL so gets a NULL
 *     signature, and the row a NULL flag.
 * The signature is what minhash(doc, num_perm) builds (or the builder the
 * shingles argument names).  A small builder is kept with the trigger's
 * entry, not in the trigger's FmgrInfo: COPY looks that up while in its
 * per-row memory context, which is reset after every row.  No user code
 * runs while a signature is built, so a nested call never finds it in use.
 */
static HeapTuple
sign_row(TriggerData *trigdata, FlagTrigger *flag_trigger, HeapTuple tuple)
{
	const FlagConfig *config = &flag_trigger->config;
	TupleDesc	desc = RelationGetDescr(trigdata->tg_relation);
	int			sig_column = config->sig_attnum;
	bool		doc_isnull;
	Datum		doc = heap_getattr(tuple, config->doc_attnum, desc, &doc_isnull);
	bool		sig_isnull;
	Datum		sig = heap_getattr(tuple, config->sig_attnum, desc, &sig_isnull);
	bool		sign = sig_isnull && !doc_isnull;

	if (!sign && TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event))
	{
		HeapTuple	old = trigdata->tg_trigtuple;
		bool		old_doc_isnull;
		Datum		old_doc = heap_getattr(old, config->doc_attnum, desc, &old_doc_isnull);
		bool		old_sig_isnull;
		Datum		old_sig = heap_getattr(old, config->sig_attnum, desc, &old_sig_isnull);

		sign = minhash_same_varlena(sig, sig_isnull, old_sig, old_sig_isnull) &&
			!minhash_same_varlena(doc, doc_isnull, old_doc, old_doc_isnull);
	}
	if (!sign)
		return tuple;

	sig_isnull = doc_isnull;
	if (!doc_isnull)
		sig = PointerGetDatum(minhash_sign_text(&flag_trigger->builder_keeper, minhash_fetch_text(doc),
												&config->sign_params));
	if (OidIsValid(config->sig_domain))
		domain_check(sig, sig_isnull, config->sig_domain, NULL, CurrentMemoryContext);
	return heap_modify_tuple_by_cols(tuple, desc, 1, &sig_column, &sig, &sig_isnull);
}

/*
 * The row's flag column set from its signature (see below), for either
 * trigger; the signing one first fills the signature (sign_row).
 */
static Datum
flag_row(FunctionCallInfo fcinfo, bool signs)
{
	TriggerData *trigdata = check_trigger_call(fcinfo, signs ? SIGN_FUNCTION_NAME : FLAG_FUNCTION_NAME);
	Relation	rel = trigdata->tg_relation;
	TupleDesc	desc = RelationGetDescr(rel);
	HeapTuple	tuple = TRIGGER_FIRED_BY_UPDATE(trigdata->tg_event) ?
		trigdata->tg_newtuple : trigdata->tg_trigtuple;
	Oid			function_oid = fcinfo->flinfo->fn_oid;
	FlagTrigger *flag_trigger = flag_trigger_for(trigdata, function_oid, signs);
	Datum		sig;
	bool		sig_isnull;
	bool		look_up;
	Datum		flag = (Datum) 0;
	bool		flag_isnull = true;
	int			flag_column = flag_trigger->config.flag_attnum;

	flag_trigger->pins++;
	PG_TRY();
	{
		if (signs)
		{
			check_signs_last(trigdata, flag_trigger, function_oid);
			tuple = sign_row(trigdata, flag_trigger, tuple);
		}
		sig = heap_getattr(tuple, flag_trigger->config.sig_attnum, desc, &sig_isnull);
		if (sig_isnull)
			check_null_signature(trigdata, flag_trigger, function_oid);
		/*
		 * An empty signature (a document without words) resembles nothing:
		 * its flag stays null, with no lookup and no lock to take.  The
		 * lookup's %> never names an empty row either.
		 */
		look_up = !sig_isnull && !minhash_signature_is_empty(DatumGetMinHashP(sig));
		if (look_up && flag_trigger->config.lock_near_duplicates)
			lock_near_duplicates(rel, sig, flag_trigger->config.threshold);
		if (look_up)
			flag = most_similar_key(trigdata, flag_trigger, sig, &flag_isnull);
	}
	PG_FINALLY();
	{
		flag_trigger->pins--;
	}
	PG_END_TRY();

	tuple = heap_modify_tuple_by_cols(tuple, desc, 1, &flag_column, &flag, &flag_isnull);
	return PointerGetDatum(tuple);
}

PG_FUNCTION_INFO_V1(minhash_flag_duplicates);
/*
 * minhash_flag_duplicates(sig_column, flag_column, threshold [, key_column
 * [, 'lock' | 'nolock']]): the new row's flag column becomes the key of the
 * most similar other row whose signature resembles the new one at least at
 * the threshold, or NULL (also when the new signature is empty, or NULL
 * unless a later BEFORE trigger may set it: check_null_signature).
 */
Datum
minhash_flag_duplicates(PG_FUNCTION_ARGS)
{
	return flag_row(fcinfo, false);
}

PG_FUNCTION_INFO_V1(minhash_sign_and_flag);
/*
 * minhash_sign_and_flag(doc_column, sig_column, flag_column, threshold
 * [, key_column [, 'lock' | 'nolock' [, shingles]]]): the signature column
 * filled from the document column when the statement did not set it
 * (sign_row), then the flag set as minhash_flag_duplicates sets it.
 */
Datum
minhash_sign_and_flag(PG_FUNCTION_ARGS)
{
	return flag_row(fcinfo, true);
}
