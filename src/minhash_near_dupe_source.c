/*
 * minhash_near_dupe_source.c
 *	  What near_dupe_groups() and near_dupe_pairs() share: checking the
 *	  call's source, reading its keys and signatures into memory in one
 *	  scan, ordering the rows by key, and counting every byte the call holds
 *	  against minhash.group_memory.
 *
 * One scan.  The arguments are checked by near_dupe_check_arguments() (SQL,
 * shared with near_dupe_check and near_dupe_query), then one query reads
 * key, key::text (only when the result carries the keys as text and the key
 * is not text already) and signature of every row, on the calling query's
 * snapshot.  The rows held are the ones that query returns, however many: a
 * row-level security policy may let each scan see other rows, so nothing
 * counted by another scan is relied on.  The signatures' parameters are
 * checked as they come.
 *
 * Keys are what the result names rows by, so they must be unique and not
 * null, as a primary key's: a null key stops the read (23502), and two equal
 * keys stop the key sort, which compares every pair of neighbours (23505).
 *
 * Memory.  Everything the call holds is counted as it is allocated, and
 * nothing is allocated that would take the call past minhash.group_memory:
 * the call then stops with 53400.  What it holds: the row array and every
 * other array of the call, palloc'd in its memory context (counted by
 * MemoryContextMemAllocated); the keys and the signatures' values, packed
 * into the blocks of a key arena (counted as each block is taken); a value
 * while it is detoasted (in a scratch context, counted too); the engine's
 * arrays, which the engine charges against what is left before allocating
 * them (src/core/budget.hpp); and the pairs the engine hands back.  Not
 * counted, and so above the setting: the cursor's batch of rows (about
 * FETCH_BYTES, or one row if it is larger), the executor's state for the
 * scan, and the result, which goes into a tuplestore of work_mem that
 * spills to disk beyond it.  So the backend's private memory stays below
 * the setting + work_mem + 2 MB (DESIGN.md, "What a call holds";
 * test/stress/group_memory.sh measures it).
 *
 * A read that would pass the setting stops there when the call can spill
 * (near_dupe_groups, near_dupe_pairs): it lets go of what it holds and
 * reads the rows again with every large array of the call in a temporary
 * file (minhash_near_dupe_spill; src/core/spill_file.cpp maps it), whose
 * size temp_file_limit caps instead of the setting.  Otherwise
 * (near_dupe_groups_append) it goes on without holding anything, adding up
 * what the rest of the rows would take, so that the refusal says how much
 * memory the rows need; it costs one scan of the table.
 */
#include "postgres.h"

#include <unistd.h>

#include "access/detoast.h"
#include "access/htup_details.h"
#include "catalog/pg_inherits.h"
#include "catalog/pg_type.h"
#include "commands/tablespace.h"
#include "executor/spi.h"
#include "mb/pg_wchar.h"
#include "nodes/makefuncs.h"
#include "nodes/value.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "parser/parse_func.h"
#include "storage/fd.h"
#include "utils/builtins.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/typcache.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/* Bytes of rows the cursor fetches at a time (at least one row). */
#define FETCH_BYTES (1024 * 1024)
#define FETCH_ROWS_MAX 10000

/* The key arena's blocks: from 8 kB, doubling up to 4 MB. */
#define ARENA_FIRST_BLOCK (8 * 1024)
#define ARENA_LARGEST_BLOCK (4 * 1024 * 1024)

/* The most rows a call holds: the engine numbers rows in 32 bits. */
#define MAX_ROWS (PG_UINT32_MAX / 2)

/* Key values shown in an error are cut to this many bytes. */
#define KEY_SHOWN_BYTES 64

/* A spilled call's limit when temp_file_limit is -1. */
#define SPILL_UNLIMITED ((uint64) 1 << 62)

/*
 * A spilled call's arrays of this many bytes or more are in its file
 * (the engine's kSpillArrayBytes); smaller ones are palloc'd.
 */
#define SPILL_ARRAY_BYTES (64 * 1024)

/* Room before an array in the file for the block that owns it (MAXALIGNed). */
#define LARGE_HEADER_BYTES 64

/* --- memory ----------------------------------------------------------- */

static const char *
activity(const NearDupeCall *call)
{
	return call->kind == NEAR_DUPE_PAIRS ? "finding pairs" :
		call->kind == NEAR_DUPE_APPEND ? "appending to a grouping" : "grouping";
}

/* minhash.group_memory in kB: -1 takes maintenance_work_mem. */
static int
group_memory_kb(void)
{
	return minhash_group_memory < 0 ? maintenance_work_mem : minhash_group_memory;
}

uint64
minhash_near_dupe_held(const NearDupeCall *call)
{
	return (uint64) MemoryContextMemAllocated(call->context, true) + call->outside;
}

bool
minhash_near_dupe_fits(const NearDupeCall *call, uint64 bytes, int allocations)
{
	/* each allocation may start a block of the context, or round up within one */
	return bytes + (uint64) allocations * 2 * ALLOCSET_SMALL_MAXSIZE <= minhash_near_dupe_room(call);
}

uint64
minhash_near_dupe_room(const NearDupeCall *call)
{
	uint64		held = minhash_near_dupe_held(call);

	return held < call->limit ? call->limit - held : 0;
}

/*
 * Whether the call may hold `bytes` more.  A palloc may also start a new
 * block of the call's context (ALLOCSET_SMALL_SIZES: at most 8 kB), so that
 * much is kept in reserve.
 */
static bool
have_room(const NearDupeCall *call, uint64 bytes)
{
	return bytes + ALLOCSET_SMALL_MAXSIZE <= minhash_near_dupe_room(call);
}

/*
 * A value for minhash.group_memory near `bytes`: in MB, or in kB below 1 MB;
 * rounded up when it is to suffice, down when it is a lower bound.
 */
static char *
setting_text(uint64 bytes, bool round_up)
{
	uint64		unit = bytes >= (1 << 20) ? (1 << 20) : 1024;
	uint64		count = round_up ? (bytes + unit - 1) / unit : bytes / unit;

	return psprintf("%llu%s", (unsigned long long) count, unit == 1024 ? "kB" : "MB");
}

/*
 * Stops a spilled call (53400, as fd.c's own check): its file would pass
 * temp_file_limit, which its raw writes bypass.
 */
pg_noreturn static void
refuse_file(const NearDupeCall *call, uint64 needed, bool suffices, const char *detail)
{
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("temporary file size exceeds temp_file_limit (%dkB)", temp_file_limit),
			 errdetail("Beyond minhash.group_memory the call keeps its rows and arrays in a temporary file, which needs %s%llu kB. %s",
					   suffices ? "" : "more than ",
					   (unsigned long long) ((needed + 1023) / 1024), detail),
			 errhint("Raise temp_file_limit to %s %s, or minhash.group_memory to keep the call in memory.",
					 suffices ? "at least" : "more than", setting_text(needed, true))));
}

void
minhash_near_dupe_refuse(const NearDupeCall *call, uint64 needed, bool suffices,
						 const char *detail)
{
	uint64		needed_kb = suffices ? (needed + 1023) / 1024 : needed / 1024;
	const char *alternative;

	if (call->spilled)
		refuse_file(call, needed, suffices, detail);
	if (call->kind == NEAR_DUPE_APPEND)
		alternative = ": it holds the rows to append, their band keys and the pairs they make with the rows grouped before, never the rows grouped before themselves.";
	else
		alternative = ".";
	ereport(ERROR,
			(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
			 errmsg("%s needs %s%llu kB of memory, more than minhash.group_memory (%d kB)",
					activity(call), suffices ? "" : "at least ",
					(unsigned long long) needed_kb, group_memory_kb()),
			 errdetail("%s%s", detail,
					   minhash_group_memory < 0 ?
					   " minhash.group_memory is -1: the limit is maintenance_work_mem." : ""),
			 errhint("Set minhash.group_memory to %s %s%s", suffices ? "at least" : "more than",
					 setting_text(needed, suffices), alternative)));
}

/* A size as pg_size_pretty() prints it. */
static char *
size_text(uint64 bytes)
{
	return text_to_cstring(DatumGetTextPP(DirectFunctionCall1(pg_size_pretty,
															  Int64GetDatum((int64) bytes))));
}

void
minhash_near_dupe_announce_spill(const NearDupeCall *call, uint64 needed, bool suffices,
								 const char *detail)
{
	const char *what = call->kind == NEAR_DUPE_PAIRS ? "finding near-duplicate pairs" :
		"near-duplicate grouping";
	/* the setting (a spilled call's limit is its file's) */
	uint64		setting = (uint64) group_memory_kb() * 1024;

	/* a lower bound within the setting says only that it needs more */
	bool		known = suffices || needed > setting;

	ereport(NOTICE,
			(known ?
			 errmsg("%s needs %s%s, more than minhash.group_memory (%s): it keeps its rows and arrays in a temporary file",
					what, suffices ? "" : "at least ", size_text(needed), size_text(setting)) :
			 errmsg("%s needs more than minhash.group_memory (%s): it keeps its rows and arrays in a temporary file",
					what, size_text(setting)),
			 errdetail("%s%s", detail,
					   minhash_group_memory < 0 ?
					   " minhash.group_memory is -1: the limit is maintenance_work_mem." : ""),
			 suffices ?
			 errhint("SET minhash.group_memory = '%s' (or more) keeps it in memory.",
					 setting_text(needed, true)) :
			 known ?
			 errhint("Setting minhash.group_memory to at least %s may keep it in memory.",
					 setting_text(needed, true)) :
			 errhint("A larger minhash.group_memory may keep it in memory.")));
}

/*
 * A block of the key arena, or a spilled call's array, in memory like the
 * engine's own (mh_large_alloc: 2 MB pages where the kernel offers them,
 * quick to give back on a cancel; in a spilled call, a region of its file),
 * freed when the call's context goes, at the end or on error (when the
 * call itself may be gone: the release touches only the block), unless
 * freed before (start NULL).
 */
typedef struct ArenaBlock
{
	void	   *start;
	Size		size;
	MemoryContextCallback release;
} ArenaBlock;

static void
release_arena_block(void *arg)
{
	ArenaBlock *block = (ArenaBlock *) arg;

	if (block->start != NULL)
		mh_large_free(block->start, block->size);
	block->start = NULL;
}

/* Stops the call: mh_large_alloc found no memory (or file) for `bytes`. */
pg_noreturn static void
report_large_failure(const NearDupeCall *call, Size bytes, const char *what)
{
	minhash_near_dupe_check_spill_failure(call);
	ereport(ERROR,
			(errcode(ERRCODE_OUT_OF_MEMORY),
			 errmsg("out of memory"),
			 errdetail("Failed on a request of size %zu for the %s to %s.",
					   bytes, what, call->kind != NEAR_DUPE_PAIRS ? "group" : "pair")));
}

/* A block of `size` bytes of mh_large_alloc memory, counted, released with the call. */
static ArenaBlock *
large_block(NearDupeCall *call, Size size, const char *what)
{
	ArenaBlock *block = MemoryContextAllocZero(call->context, sizeof(ArenaBlock));

	block->start = mh_large_alloc(size);
	if (block->start == NULL)
		report_large_failure(call, size, what);
	block->size = size;
	block->release.func = release_arena_block;
	block->release.arg = block;
	MemoryContextRegisterResetCallback(call->context, &block->release);
	call->outside += size;
	return block;
}

/* Whether an array of `bytes` of the call is in its file. */
static bool
in_file(const NearDupeCall *call, Size bytes)
{
	return call->spilled && bytes >= SPILL_ARRAY_BYTES;
}

/* A spilled call's array: its block's address before it. */
static void *
file_array(NearDupeCall *call, Size bytes)
{
	ArenaBlock *block = large_block(call, bytes + LARGE_HEADER_BYTES, "arrays");

	*(ArenaBlock **) block->start = block;
	return (char *) block->start + LARGE_HEADER_BYTES;
}

void *
minhash_near_dupe_alloc(NearDupeCall *call, Size bytes)
{
	bytes = Max(bytes, 1);
	if (!have_room(call, bytes + (in_file(call, bytes) ? LARGE_HEADER_BYTES + sizeof(ArenaBlock) : 0)))
		minhash_near_dupe_refuse(call, minhash_near_dupe_held(call) + bytes, false,
								 psprintf("Its %u rows take %llu kB, and %s them needs %zu bytes more.",
										  call->count,
										  (unsigned long long) (minhash_near_dupe_held(call) / 1024),
										  call->kind != NEAR_DUPE_PAIRS ? "grouping" : "pairing", bytes));
	if (in_file(call, bytes))
		return file_array(call, bytes);
	return MemoryContextAllocExtended(call->context, bytes, MCXT_ALLOC_HUGE);
}

void
minhash_near_dupe_free(NearDupeCall *call, void *memory, Size bytes)
{
	bytes = Max(bytes, 1);
	if (in_file(call, bytes))
	{
		ArenaBlock *block = *(ArenaBlock **) ((char *) memory - LARGE_HEADER_BYTES);

		call->outside -= block->size;
		release_arena_block(block);
	}
	else
		pfree(memory);
}

/*
 * Room for `bytes` (MAXALIGNed) in the key arena, or NULL when the call may
 * not hold that much more.
 */
static void *
arena_alloc(NearDupeCall *call, Size bytes)
{
	void	   *result;

	bytes = MAXALIGN(bytes);
	if ((Size) (call->arena_end - call->arena_next) < bytes)
	{
		ArenaBlock *block;
		uint64		room = minhash_near_dupe_room(call);
		Size		size = Max(bytes, call->arena_block);

		if (!have_room(call, bytes + sizeof(ArenaBlock)))
			return NULL;
		/* A smaller block than planned, if that is what is left. */
		if (!have_room(call, size + sizeof(ArenaBlock)))
			size = room - sizeof(ArenaBlock) - ALLOCSET_SMALL_MAXSIZE;
		block = large_block(call, size, "keys and signatures");
		call->arena_next = block->start;
		call->arena_end = call->arena_next + size;
		if (bytes <= call->arena_block)
			call->arena_block = Min(call->arena_block * 2, ARENA_LARGEST_BLOCK);
	}
	result = call->arena_next;
	call->arena_next += bytes;
	return result;
}

/* --- checking the source ---------------------------------------------- */

/*
 * With a key_type argument, the result's key columns take its type, which
 * must be the key column's own (the json_populate_record convention): say
 * so if it is not.  For a key column of a domain, the domain's base type
 * serves too.
 */
static void
check_key_type(Oid result_type, Oid column_type, const char *key_column, Oid source)
{
	Oid			column_base = getBaseType(column_type);

	if (result_type != column_type && result_type != column_base)
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("key_type %s does not match column \"%s\" of relation \"%s\", of type %s",
						format_type_be(result_type), key_column, get_rel_name(source),
						format_type_be(column_type)),
				 errhint("Pass NULL::%s as key_type: the key columns of the result take its type.",
						 format_type_be(column_type))));
}

void
minhash_near_dupe_begin(FunctionCallInfo fcinfo, NearDupeKind kind, bool typed_keys,
						Oid result_key_type, NearDupeCall *call)
{
	minhash_near_dupe_begin_at(fcinfo, 0, kind, typed_keys, result_key_type, call);
}

/*
 * The quoted schema of near_dupe_statement (1.2 and later), or NULL: the
 * library serves older SQL too, until ALTER EXTENSION minhash UPDATE.
 */
static const char *
statement_schema(const char *schema)
{
	Oid			types[7] = {REGCLASSOID, NAMEOID, NAMEOID, FLOAT8OID, BOOLOID, BOOLOID, FLOAT8OID};

	return minhash_helper_schema(schema, "near_dupe_statement", 7, types);
}

/*
 * Refuses a table with inheritance children (42809), as near_dupe_check_arguments
 * refuses a partitioned one: every read of the source is of its own rows
 * (ONLY), where SELECT would read the children's too, and rows are named by
 * key across the read, the stream and the statement path alike.
 */
static void
refuse_inheritance_parent(const NearDupeCall *call)
{
	List	   *children;

	if (!has_subclass(call->relation))
		return;
	children = find_inheritance_children(call->relation, NoLock);
	if (children == NIL)
		return;
	list_free(children);
	ereport(ERROR,
			(errcode(ERRCODE_WRONG_OBJECT_TYPE),
			 errmsg("cannot group the rows of table \"%s\", which has inheritance children",
					get_rel_name(call->relation)),
			 errhint("Group a table of its keys and signatures, made as in CREATE TEMP TABLE sigs AS SELECT %s, %s FROM %s; grouping the parent alone would miss the children's rows.",
					 quote_identifier(call->key_column), quote_identifier(call->sig_column),
					 quote_qualified_identifier(get_namespace_name(get_rel_namespace(call->relation)),
												get_rel_name(call->relation)))));
}

/*
 * The call's own SQL (the checks, the read, the key check and the statement
 * beyond minhash.group_memory) runs with jit off, at a GUC nest level of
 * its own that minhash_near_dupe_end pops, or the (sub)transaction's abort
 * on error.  These statements scan the whole source, so the planner's costs
 * pass jit_above_cost on any table worth grouping, and LLVM then compiles
 * (and with the inlining and optimizing costs passed, inlines and optimizes)
 * every expression of the plan: memory of the backend's that no memory
 * context counts, so that minhash.group_memory could not cap it, and that
 * for the statement is several times its work_mem.  The scans spend their
 * time in the engine and in sorts, not in expressions, so the compile buys
 * nothing back (test/stress/group_memory.sh runs with jit on).
 */
static int
settings_for_call(void)
{
	int			level = NewGUCNestLevel();

	(void) set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION,
							 GUC_ACTION_SAVE, true, 0, false);
	return level;
}

void
minhash_near_dupe_begin_at(FunctionCallInfo fcinfo, int first, NearDupeKind kind, bool typed_keys,
						   Oid result_key_type, NearDupeCall *call)
{
	char	   *schema = get_namespace_name(get_func_namespace(fcinfo->flinfo->fn_oid));
	Oid			check_types[4] = {REGCLASSOID, NAMEOID, NAMEOID, FLOAT8OID};
	Datum		check_args[4];
	char		check_nulls[4];
	const char *check;
	const char *helper_schema;
	bool		isnull;

	memset(call, 0, sizeof(*call));
	call->kind = kind;
	call->typed_keys = typed_keys;
	call->context = AllocSetContextCreate(CurrentMemoryContext, "near_dupe call",
										  ALLOCSET_SMALL_SIZES);
	call->scratch = AllocSetContextCreate(call->context, "near_dupe detoast", ALLOCSET_SMALL_SIZES);
	call->limit = (uint64) group_memory_kb() * 1024;
	call->arena_block = ARENA_FIRST_BLOCK;
	call->schema = MemoryContextStrdup(call->context, schema);
	call->guc_level = settings_for_call();

	minhash_near_dupe_check_threshold(fcinfo, first + 3);
	for (int i = 0; i < 4; i++)
	{
		check_args[i] = PG_ARGISNULL(first + i) ? (Datum) 0 : PG_GETARG_DATUM(first + i);
		check_nulls[i] = PG_ARGISNULL(first + i) ? 'n' : ' ';
	}
	/*
	 * Where the extension's SQL is still that of 1.0 (this library installed,
	 * ALTER EXTENSION minhash UPDATE not yet run), there is no
	 * near_dupe_check_arguments: near_dupe_check makes the same checks there,
	 * and scans the table besides.
	 */
	helper_schema = minhash_helper_schema(schema, "near_dupe_check_arguments", 4, check_types);
	if (helper_schema != NULL)
		check = psprintf("SELECT %s.near_dupe_check_arguments($1, $2, $3, $4)", helper_schema);
	else
		check = psprintf("SELECT c.key_type FROM %s.near_dupe_check($1, $2, $3, $4) c",
						 quote_identifier(schema));
	call->can_spill = kind != NEAR_DUPE_APPEND;
	if (kind != NEAR_DUPE_APPEND && (helper_schema = statement_schema(schema)) != NULL)
	{
		call->statement_available = true;
		call->statement_schema = MemoryContextStrdup(call->context, helper_schema);
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(check, 4, check_types, check_args, check_nulls, true, 0) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "near_dupe_check_arguments failed");
	call->key_type = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	call->relation = PG_GETARG_OID(first);
	call->key_column = MemoryContextStrdup(call->context, NameStr(*PG_GETARG_NAME(first + 1)));
	call->sig_column = MemoryContextStrdup(call->context, NameStr(*PG_GETARG_NAME(first + 2)));
	call->threshold = PG_ARGISNULL(first + 3) ? minhash_similarity_threshold : PG_GETARG_FLOAT8(first + 3);
	refuse_inheritance_parent(call);
	/* the threshold chooses a band layout, so it must be above 0 */
	minhash_check_layout_threshold(call->threshold);
	if (typed_keys)
		check_key_type(result_key_type, call->key_type, call->key_column, call->relation);
	/* key::text of text, varchar, citext, ... is the key itself */
	call->key_is_text = !typed_keys && IsBinaryCoercible(call->key_type, TEXTOID);
	get_typlenbyval(call->key_type, &call->key_typlen, &call->key_byval);
}

/* --- reading ---------------------------------------------------------- */

/* Keys compare with their type's default btree order and the column's collation. */
static void
prepare_key_order(NearDupeCall *call, Oid collation)
{
	TypeCacheEntry *type = lookup_type_cache(call->key_type, TYPECACHE_LT_OPR);
	MemoryContext old;

	if (!OidIsValid(type->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(call->key_type)),
				 errhint("Groups are ranked by key: use a key column of a type with a btree operator class.")));
	call->key_collation = collation;
	memset(&call->key_order, 0, sizeof(call->key_order));
	old = MemoryContextSwitchTo(call->context);
	call->key_order.ssup_cxt = call->context;
	call->key_order.ssup_collation = collation;
	call->key_order.ssup_nulls_first = false;
	PrepareSortSupportFromOrderingOp(type->lt_opr, &call->key_order);
	MemoryContextSwitchTo(old);
}

/* A key value as text for a message, cut to KEY_SHOWN_BYTES bytes. */
static char *
key_for_message(const NearDupeCall *call, Datum key)
{
	Oid			output;
	bool		varlena;
	char	   *text;
	int			cut;

	getTypeOutputInfo(call->key_type, &output, &varlena);
	text = OidOutputFunctionCall(output, key);
	cut = strlen(text) > KEY_SHOWN_BYTES ? pg_mbcliplen(text, strlen(text), KEY_SHOWN_BYTES) : -1;
	return cut < 0 ? text : psprintf("%.*s...", cut, text);
}

void
minhash_near_dupe_report_duplicate_key(const NearDupeCall *call, Datum key)
{
	ereport(ERROR,
			(errcode(ERRCODE_UNIQUE_VIOLATION),
			 errmsg("key column \"%s\" of relation \"%s\" is not unique",
					call->key_column, get_rel_name(call->relation)),
			 errdetail("Key (%s)=(%s) appears more than once.",
					   call->key_column, key_for_message(call, key)),
			 errhint("Use a unique key column without nulls, such as the primary key.")));
}

/* A null key stops the read (23502): the result names each row by its key. */
void
minhash_near_dupe_report_null_key(const NearDupeCall *call)
{
	ereport(ERROR,
			(errcode(ERRCODE_NOT_NULL_VIOLATION),
			 errmsg("key column \"%s\" of relation \"%s\" contains null values",
					call->key_column, get_rel_name(call->relation)),
			 errdetail("The result names each row by its key."),
			 errhint("Use a unique key column without nulls, such as the primary key.")));
}

/* The signatures' parameters in near_dupe_check's words: they differ. */
void
minhash_near_dupe_report_mixed(const NearDupeCall *call, const MhParams *other)
{
	const MhParams *a = &call->params;
	const char *kind_a = mh_kind_name(a->kind),
			   *kind_b = mh_kind_name(other->kind);

	ereport(ERROR,
			(errcode(ERRCODE_DATA_EXCEPTION),
			 errmsg("column \"%s\" holds minhash signatures built with different parameters",
					call->sig_column),
			 errdetail("Hash values %u to %u, seeds %d to %d, shingle sizes %u to %u, kinds %s to %s.",
					   Min(a->num_perm, other->num_perm), Max(a->num_perm, other->num_perm),
					   Min(a->seed, other->seed), Max(a->seed, other->seed),
					   Min(a->shingle_size, other->shingle_size),
					   Max(a->shingle_size, other->shingle_size),
					   strcmp(kind_a, kind_b) <= 0 ? kind_a : kind_b,
					   strcmp(kind_a, kind_b) <= 0 ? kind_b : kind_a),
			 errhint("Only signatures built the same way can be compared: group each parameter set separately.")));
}

/*
 * What a read that would pass the setting adds up instead of holding: the
 * bytes the rows not held would take.
 */
typedef struct ReadTally
{
	bool		holding;		/* false once the setting is reached */
	uint64		held;			/* what the call held then */
	uint64		rows;			/* rows read in all */
	uint64		signed_rows;	/* of them with a signature */
	uint64		bytes_not_held; /* what the rows read since would take */
} ReadTally;

/* The bytes a varlena datum takes detoasted, and while it is detoasted. */
static Size
detoasted_size(Datum datum, Size *while_detoasting)
{
	struct varlena *value = (struct varlena *) DatumGetPointer(datum);
	Size		size = toast_raw_datum_size(datum);

	/* the value fetched (and, if compressed, decompressed) into scratch */
	*while_detoasting = 0;
	if (VARATT_IS_EXTENDED(value))
		*while_detoasting = size + (VARATT_IS_EXTERNAL(value) ? toast_datum_size(datum) : 0);
	return size;
}

/*
 * A copy of a datum of the given type in the key arena, detoasted; false,
 * holding nothing, when the call may not hold it.  Byval datums are their
 * own copy.
 */
static bool
hold_datum(NearDupeCall *call, Datum datum, int16 typlen, bool byval, Datum *copy)
{
	Size		size,
				while_detoasting = 0;
	void	   *room;

	if (byval)
	{
		*copy = datum;
		return true;
	}
	if (typlen == -1)
		size = detoasted_size(datum, &while_detoasting);
	else
		size = typlen == -2 ? strlen(DatumGetCString(datum)) + 1 : (Size) typlen;
	if (!have_room(call, MAXALIGN(size) + while_detoasting + sizeof(ArenaBlock)))
		return false;
	if (while_detoasting > 0)
	{
		MemoryContext old = MemoryContextSwitchTo(call->scratch);

		datum = PointerGetDatum(detoast_attr((struct varlena *) DatumGetPointer(datum)));
		MemoryContextSwitchTo(old);
	}
	room = arena_alloc(call, size);
	if (room == NULL)
		return false;
	memcpy(room, DatumGetPointer(datum), size);
	MemoryContextReset(call->scratch);
	*copy = PointerGetDatum(room);
	return true;
}

/* The bytes a row would take held: what a read past the setting adds up. */
static Size
row_size(const NearDupeCall *call, Datum key, Datum key_text, bool has_text, Datum sig, bool has_sig)
{
	Size		size = sizeof(NearDupeRow),
				ignored;

	if (!call->key_byval)
		size += MAXALIGN(call->key_typlen == -1 ? detoasted_size(key, &ignored) :
						 call->key_typlen == -2 ? strlen(DatumGetCString(key)) + 1 :
						 (Size) call->key_typlen);
	if (has_text)
		size += MAXALIGN(detoasted_size(key_text, &ignored));
	if (has_sig)
		size += MAXALIGN(detoasted_size(sig, &ignored));
	return size;
}

/* The signature's values in the key arena; false when the call may not hold them. */
static bool
hold_signature(NearDupeCall *call, NearDupeRow *row, Datum datum)
{
	MinHash    *sig;
	MhSummary	summary;
	Size		size,
				while_detoasting;
	uint32	   *values;

	size = detoasted_size(datum, &while_detoasting);
	if (!have_room(call, while_detoasting + size + sizeof(ArenaBlock)))
		return false;
	{
		MemoryContext old = MemoryContextSwitchTo(call->scratch);

		sig = DatumGetMinHashP(datum);
		MemoryContextSwitchTo(old);
	}
	minhash_get_summary(sig, &summary);
	if (call->signed_count == 0)
		call->params = summary.params;
	else if (mh_params_match(&call->params, &summary.params) != MH_OK)
		minhash_near_dupe_report_mixed(call, &summary.params);
	values = arena_alloc(call, sizeof(uint32) * sig->num_perm);
	if (values == NULL)
		return false;
	memcpy(values, sig->values, sizeof(uint32) * sig->num_perm);
	MemoryContextReset(call->scratch);
	row->values = values;
	row->size = summary.distinct_shingles;
	call->signed_count++;
	return true;
}

/* Room for one more row in the row array; false when the call may not hold it. */
static bool
room_for_row(NearDupeCall *call)
{
	uint32		capacity;
	Size		bytes;

	if (call->count < call->capacity)
		return true;
	if (call->count >= MAX_ROWS)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot %s more than %u rows",
						call->kind != NEAR_DUPE_PAIRS ? "group" : "pair", MAX_ROWS)));
	capacity = call->capacity == 0 ? 64 : Min((uint64) call->capacity * 2, MAX_ROWS);
	bytes = sizeof(NearDupeRow) * (Size) capacity;
	/* while it grows, the old array and the new one */
	if (!have_room(call, bytes + LARGE_HEADER_BYTES + sizeof(ArenaBlock)))
		return false;
	if (in_file(call, bytes))
	{
		NearDupeRow *grown = file_array(call, bytes);

		if (call->rows != NULL)
		{
			memcpy(grown, call->rows, sizeof(NearDupeRow) * (Size) call->count);
			minhash_near_dupe_free(call, call->rows, sizeof(NearDupeRow) * (Size) call->capacity);
		}
		call->rows = grown;
	}
	else if (call->rows == NULL)
		call->rows = MemoryContextAllocExtended(call->context, bytes, MCXT_ALLOC_HUGE);
	else
		call->rows = repalloc_huge(call->rows, bytes);
	call->capacity = capacity;
	return true;
}

/* Hold one row; false, when the call may not hold all of it. */
static bool
hold_row(NearDupeCall *call, Datum key, Datum key_text, bool text_null, Datum sig, bool sig_null)
{
	NearDupeRow *row;

	if (!room_for_row(call))
		return false;
	row = &call->rows[call->count];
	memset(row, 0, sizeof(*row));
	if (!hold_datum(call, key, call->key_typlen, call->key_byval, &row->key))
		return false;
	if (!text_null)
	{
		Datum		copy;

		if (!hold_datum(call, key_text, -1, false, &copy))
			return false;
		row->key_text = (text *) DatumGetPointer(copy);
	}
	if (!sig_null && !hold_signature(call, row, sig))
		return false;
	call->count++;
	return true;
}

/*
 * Keep one fetched row (key, key::text or null, signature), or, once the
 * call may hold no more, add up what it would take.
 */
static void
read_row(NearDupeCall *call, HeapTuple tuple, TupleDesc desc, ReadTally *tally)
{
	bool		key_null,
				text_null,
				sig_null;
	Datum		key = heap_getattr(tuple, 1, desc, &key_null);
	Datum		key_text = heap_getattr(tuple, 2, desc, &text_null);
	Datum		sig = heap_getattr(tuple, 3, desc, &sig_null);

	tally->rows++;
	if (!sig_null)
		tally->signed_rows++;
	if (key_null)
		minhash_near_dupe_report_null_key(call);
	if (tally->holding)
	{
		uint64		held_before = minhash_near_dupe_held(call);

		if (hold_row(call, key, key_text, text_null, sig, sig_null))
			return;
		/* A spilled call stops at once: its file would pass temp_file_limit. */
		if (call->spilled)
			refuse_file(call, held_before + row_size(call, key, key_text, !text_null, sig, !sig_null),
						false,
						psprintf("Its first %llu rows take %llu kB as they are read.",
								 (unsigned long long) tally->rows,
								 (unsigned long long) (held_before / 1024)));
		/* This row, partly held, is added up with the rest. */
		tally->holding = false;
		tally->held = held_before;
		MemoryContextReset(call->scratch);
	}
	tally->bytes_not_held += row_size(call, key, key_text, !text_null, sig, !sig_null);
}

bool
minhash_near_dupe_read(NearDupeCall *call)
{
	char	   *query;
	Portal		portal;
	long		fetch = 16;
	char	   *detail;
	ReadTally	tally = {true, 0, 0, 0, 0};

	/* key::text only for a result that carries the keys as text */
	query = psprintf("SELECT s.%s, %s, s.%s FROM ONLY %s.%s s%s",
					 quote_identifier(call->key_column),
					 call->typed_keys || call->key_is_text ? "NULL::pg_catalog.text" :
					 psprintf("s.%s::pg_catalog.text", quote_identifier(call->key_column)),
					 quote_identifier(call->sig_column),
					 quote_identifier(get_namespace_name(get_rel_namespace(call->relation))),
					 quote_identifier(get_rel_name(call->relation)),
					 call->filter != NULL ? call->filter : "");
	if (call->filter_arg_type != InvalidOid && call->filter_generic)
	{
		/*
		 * A generic plan: a custom one would estimate each key of the array,
		 * planning for about as long as the read takes.
		 */
		SPIPlanPtr	plan = SPI_prepare_cursor(query, 1, &call->filter_arg_type,
											  CURSOR_OPT_NO_SCROLL | CURSOR_OPT_GENERIC_PLAN);

		if (plan == NULL)
			elog(ERROR, "SPI_prepare_cursor failed: %s", SPI_result_code_string(SPI_result));
		portal = SPI_cursor_open(NULL, plan, &call->filter_arg, NULL, true);
	}
	else
		portal = SPI_cursor_open_with_args(NULL, query, call->filter_arg_type != InvalidOid ? 1 : 0,
										   &call->filter_arg_type, &call->filter_arg, NULL, true,
										   CURSOR_OPT_NO_SCROLL);
	prepare_key_order(call, TupleDescAttr(portal->tupDesc, 0)->attcollation);
	for (;;)
	{
		uint64		batch_bytes;

		SPI_cursor_fetch(portal, true, fetch);
		if (SPI_processed == 0)
			break;
		for (uint64 i = 0; i < SPI_processed && (tally.holding || !call->can_spill); i++)
			read_row(call, SPI_tuptable->vals[i], SPI_tuptable->tupdesc, &tally);
		/* A call that can spill reads its rows again, into its file. */
		if (!tally.holding && call->can_spill)
		{
			SPI_freetuptable(SPI_tuptable);
			break;
		}
		/* the next batch about FETCH_BYTES */
		batch_bytes = MemoryContextMemAllocated(SPI_tuptable->tuptabcxt, true);
		fetch = (long) Max(1, Min(FETCH_ROWS_MAX, (uint64) FETCH_BYTES * SPI_processed / Max(batch_bytes, 1)));
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
	SPI_finish();
	if (tally.holding)
		return true;
	if (call->can_spill)
	{
		call->read_stopped = true;
		return false;
	}
	detail = psprintf("Its %llu rows take %llu kB as they are read (keys and signatures), before they are %s.",
					  (unsigned long long) tally.rows,
					  (unsigned long long) ((tally.held + tally.bytes_not_held) / 1024),
					  call->kind != NEAR_DUPE_PAIRS ? "grouped" : "paired");
	minhash_near_dupe_refuse(call, tally.held + tally.bytes_not_held, false, detail);
}

/* --- ordering --------------------------------------------------------- */

void
minhash_near_dupe_sort(NearDupeCall *call, uint32 *order, uint32 count, NearDupeRowOrder compare)
{
	uint32	   *from = order,
			   *to;

	if (count < 2)
		return;
	to = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) count);
	for (uint64 width = 1; width < count; width *= 2)
	{
		uint32	   *swap;

		for (uint64 low = 0; low < count; low += 2 * width)
		{
			uint64		middle = Min(low + width, count);
			uint64		high = Min(low + 2 * width, count);
			uint64		a = low,
						b = middle,
						out = low;

			while (out < high)
			{
				if (b >= high || (a < middle && compare(call, from[a], from[b]) <= 0))
					to[out++] = from[a++];
				else
					to[out++] = from[b++];
				if ((out & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
			}
		}
		swap = from;
		from = to;
		to = swap;
	}
	if (from != order)
	{
		memcpy(order, from, sizeof(uint32) * (Size) count);
		minhash_near_dupe_free(call, from, sizeof(uint32) * (Size) count);
	}
	else
		minhash_near_dupe_free(call, to, sizeof(uint32) * (Size) count);
}

/*
 * Key order, which stops at two equal keys: a merge sort compares every two
 * rows that end up next to each other, so it meets every duplicate.
 */
static int
compare_unique_keys(const NearDupeCall *call, uint32 a, uint32 b)
{
	int			cmp = ApplySortComparator(call->rows[a].key, false, call->rows[b].key, false,
										  (SortSupport) &call->key_order);

	if (cmp == 0)
		minhash_near_dupe_report_duplicate_key(call, call->rows[a].key);
	return cmp;
}

uint32 *
minhash_near_dupe_key_order(NearDupeCall *call)
{
	uint32	   *order = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) call->count);
	uint32	   *unsigned_rows;
	uint32		signed_count = 0,
				unsigned_count = 0;

	for (uint32 i = 0; i < call->count; i++)
		order[i] = i;
	minhash_near_dupe_sort(call, order, call->count, compare_unique_keys);
	/* signed rows first, each part still in key order */
	unsigned_rows = minhash_near_dupe_alloc(call, sizeof(uint32) * (Size) (call->count - call->signed_count));
	for (uint32 i = 0; i < call->count; i++)
	{
		if (call->rows[order[i]].values != NULL)
			order[signed_count++] = order[i];
		else
			unsigned_rows[unsigned_count++] = order[i];
	}
	memcpy(order + signed_count, unsigned_rows, sizeof(uint32) * (Size) unsigned_count);
	minhash_near_dupe_free(call, unsigned_rows, sizeof(uint32) * (Size) (call->count - call->signed_count));
	return order;
}

/* --- the engine and the result ------------------------------------------ */

void
minhash_near_dupe_engine_input(NearDupeCall *call, const uint32 *order, uint32 count,
							   const uint32 ***signatures, uint8 **empty)
{
	*signatures = minhash_near_dupe_alloc(call, sizeof(uint32 *) * (Size) count);
	*empty = minhash_near_dupe_alloc(call, sizeof(uint8) * (Size) count);
	for (uint32 i = 0; i < count; i++)
	{
		(*signatures)[i] = call->rows[order[i]].values;
		(*empty)[i] = call->rows[order[i]].size == 0;
	}
}

Datum
minhash_near_dupe_result_key(const NearDupeCall *call, uint32 row)
{
	const NearDupeRow *r = &call->rows[row];

	return r->key_text != NULL ? PointerGetDatum(r->key_text) : r->key;
}

void
minhash_near_dupe_forget_rows(NearDupeCall *call)
{
	MemoryContext parent = MemoryContextGetParent(call->context);
	NearDupeCall kept = *call;

	/* what names the source, copied out of the context that goes */
	kept.key_column = MemoryContextStrdup(parent, call->key_column);
	kept.sig_column = MemoryContextStrdup(parent, call->sig_column);
	kept.schema = MemoryContextStrdup(parent, call->schema);
	if (call->statement_schema != NULL)
		kept.statement_schema = MemoryContextStrdup(parent, call->statement_schema);
	MemoryContextDelete(call->context);

	kept.context = AllocSetContextCreate(parent, "near_dupe call", ALLOCSET_SMALL_SIZES);
	kept.scratch = AllocSetContextCreate(kept.context, "near_dupe detoast", ALLOCSET_SMALL_SIZES);
	kept.rows = NULL;
	kept.count = kept.capacity = kept.signed_count = 0;
	kept.outside = 0;
	kept.arena_next = kept.arena_end = NULL;
	kept.arena_block = ARENA_FIRST_BLOCK;
	*call = kept;
	prepare_key_order(call, call->key_collation);
}

/*
 * Whether a spilled call's file is in use: a call made while another one
 * reads its rows (by a function its source's policy calls, say) takes the
 * statement path instead.
 */
static bool spill_in_use = false;

/*
 * A spilled call's file-backed mode: the engine's token and its own
 * descriptor of the file.  Its own, not fd.c's: fd.c may close a file's
 * descriptor to open another (its pool of descriptors) and reuse the
 * number, while the engine would go on allocating through it.  The
 * duplicate is counted as fd.c's external descriptors are.
 */
typedef struct SpillMode
{
	uint32		token;
	int			fd;
	MemoryContextCallback release;
} SpillMode;

/*
 * Ends a spilled call's file-backed mode, when its context goes: after
 * every block of the context is released (callbacks run newest first), at
 * the end or on error.  The file itself is closed and deleted by fd.c, at
 * the call's end or by the resource owner on error; its mappings stay valid
 * until they are unmapped.
 */
static void
end_spill(void *arg)
{
	SpillMode  *mode = (SpillMode *) arg;

	mh_spill_end(mode->token);
	close(mode->fd);
	ReleaseExternalFD();
	spill_in_use = false;
}

bool
minhash_near_dupe_spill(NearDupeCall *call)
{
	uint64		limit = temp_file_limit < 0 ? SPILL_UNLIMITED : (uint64) temp_file_limit * 1024;
	SpillMode  *mode;
	File		file;
	int			fd;

	minhash_near_dupe_forget_rows(call);
	if (spill_in_use && !call->statement_available)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("%s needs more than minhash.group_memory (%s) while another call keeps its arrays in a temporary file",
						activity(call), size_text(call->limit)),
				 errhint("Set minhash.group_memory higher for this call.")));
	if (spill_in_use)
		return false;
	mode = MemoryContextAllocZero(call->context, sizeof(SpillMode));
	/* temp_tablespaces, as a sort's files; open, just made */
	PrepareTempTablespaces();
	file = OpenTemporaryFile(false);
	if (!AcquireExternalFD())
		ereport(ERROR,
				(errcode(ERRCODE_INSUFFICIENT_RESOURCES),
				 errmsg("could not open a temporary file for %s: too many files open", activity(call)),
				 errhint("Raise max_files_per_process, or minhash.group_memory to keep the call in memory.")));
	fd = dup(FileGetRawDesc(file));
	if (fd < 0)
	{
		ReleaseExternalFD();
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not duplicate descriptor of temporary file \"%s\": %m", FilePathName(file))));
	}
	mode->fd = fd;
	mode->token = mh_spill_begin(fd, limit);
	spill_in_use = true;
	mode->release.func = end_spill;
	mode->release.arg = mode;
	MemoryContextRegisterResetCallback(call->context, &mode->release);
	call->spill_file = file;
	call->spilled = true;
	call->can_spill = false;
	call->limit = limit;
	/* the read finishes the connection begin_at made */
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	elog(DEBUG1, "%s keeps its rows and arrays in temporary file \"%s\"",
		 activity(call), FilePathName(file));
	return true;
}

void
minhash_near_dupe_check_spill_failure(const NearDupeCall *call)
{
	uint64		file_bytes;
	int			failure;

	if (!call->spilled)
		return;
	failure = mh_spill_failure(&file_bytes);
	if (failure == MH_SPILL_FILE_LIMIT)
		refuse_file(call, call->limit, false,
					psprintf("It had %llu kB in its file when it needed more.",
							 (unsigned long long) (file_bytes / 1024)));
	if (failure != 0)
	{
		errno = failure;
		ereport(ERROR,
				(errcode_for_file_access(),
				 errmsg("could not extend temporary file \"%s\": %m", FilePathName(call->spill_file)),
				 errdetail("Beyond minhash.group_memory the call keeps its rows and arrays in a temporary file, which had %llu kB.",
						   (unsigned long long) (file_bytes / 1024)),
				 errhint("Free disk space in the temporary tablespace (temp_tablespaces), or raise minhash.group_memory to keep the call in memory.")));
	}
}

void
minhash_near_dupe_end(NearDupeCall *call)
{
	MemoryContextDelete(call->context);
	call->context = NULL;
	if (call->spilled)
		FileClose(call->spill_file);
	AtEOXact_GUC(true, call->guc_level);
}
