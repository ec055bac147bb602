/*
 * minhash_trigger_config.c
 *	  The flagging triggers' arguments, read and checked against the table
 *	  once per trigger (minhash_trigger_cache.c keeps the result): columns by
 *	  their exact names, the threshold, the key column or the primary key,
 *	  the concurrency mode, the signing trigger's document column and
 *	  shingles, and how a key is stored in the flag column.
 */
#include "postgres.h"

#include <stdlib.h>

#include "access/htup_details.h"
#include "catalog/pg_index.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "lib/stringinfo.h"
#include "nodes/makefuncs.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/relcache.h"
#include "utils/syscache.h"

#include "minhash.h"
#include "minhash_trigger.h"

/* minhash(text)'s default number of hash values (sql/minhash--1.0.sql) */
#define DEFAULT_NUM_PERM 128
/* and its default shingle size */
#define DEFAULT_SHINGLE_SIZE 5

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
 * (minhash_trigger_lock_near_duplicates()).
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
void
minhash_trigger_read_config(Trigger *trigger, Relation rel, Oid extension_schema, bool signs, FlagConfig *config)
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
