/*
 * minhash_near_dupe_groups.c
 *	  near_dupe_groups(): read a table's signatures into memory, rank the
 *	  rows, let the engine walk them (mh_group_greedy), return the groups.
 *
 * The arguments are checked by near_dupe_check() (SQL, shared with
 * near_dupe_query), then one query reads ctid, key, key::text (unless the
 * result carries the keys in their own type) and signature of every row;
 * all of it runs on the calling query's snapshot.  Rank: most
 * distinct shingles first, then key in its type's order (nulls last), then
 * ctid; rows without a signature come last, each a group of its own.  The
 * rank sort is our own merge sort, which checks for interrupts, as does the
 * engine: nothing here runs for long without a chance to cancel, and
 * nothing is written to disk before the result.
 *
 * Memory: the signatures (4 * num_perm bytes a row), the keys, and the
 * engine's band buckets (mh_group_greedy), all freed at the end; a table
 * that needs more than minhash.group_memory is refused before it is read.
 * For such a table the path is the same grouping as one SQL statement,
 * near_dupe_query(..., groups => true), whose sorts spill to disk
 * (sql/group.sql checks it gives these rows exactly where this refuses).
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "storage/itemptr.h"
#include "utils/builtins.h"
#include "utils/datum.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/sortsupport.h"
#include "utils/tuplestore.h"
#include "utils/typcache.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/* Rows fetched from the cursor at a time. */
#define FETCH_ROWS 10000

static void *
huge_array(Size size, Size count)
{
	return palloc_extended(Max(size * count, 1), MCXT_ALLOC_HUGE);
}

/* The engine's input, rows in the given order (minhash_near_dupe.h). */
void
minhash_near_dupe_engine_input(const GroupRows *rows, const uint32 *order, uint32 count,
							   const uint32 ***signatures, uint8 **empty)
{
	*signatures = huge_array(sizeof(uint32 *), count);
	*empty = huge_array(sizeof(uint8), count);
	for (uint32 i = 0; i < count; i++)
	{
		(*signatures)[i] = rows->values[order[i]];
		(*empty)[i] = rows->sizes[order[i]] == 0;
	}
}

/* Room, in `into`, for the rows near_dupe_check counted on the same snapshot. */
static void
allocate_rows(GroupRows *rows, uint32 capacity, MemoryContext into)
{
	MemoryContext old = MemoryContextSwitchTo(into);

	rows->tids = huge_array(sizeof(uint64), capacity);
	rows->keys = huge_array(sizeof(Datum), capacity);
	rows->key_nulls = huge_array(sizeof(bool), capacity);
	rows->key_texts = huge_array(sizeof(text *), capacity);
	rows->sizes = huge_array(sizeof(uint64), capacity);
	rows->signed_rows = huge_array(sizeof(bool), capacity);
	rows->values = huge_array(sizeof(uint32 *), capacity);
	rows->capacity = capacity;
	MemoryContextSwitchTo(old);
}

/* Keys compare with their type's default btree order and the column's collation. */
static void
prepare_key_order(GroupRows *rows, Oid key_type, Oid collation)
{
	TypeCacheEntry *type = lookup_type_cache(key_type, TYPECACHE_LT_OPR);

	if (!OidIsValid(type->lt_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an ordering operator for type %s",
						format_type_be(key_type)),
				 errhint("Groups are ranked by key: use a key column of a type with a btree operator class.")));
	memset(&rows->key_order, 0, sizeof(rows->key_order));
	rows->key_order.ssup_cxt = CurrentMemoryContext;
	rows->key_order.ssup_collation = collation;
	rows->key_order.ssup_nulls_first = false;
	PrepareSortSupportFromOrderingOp(type->lt_opr, &rows->key_order);
}

/*
 * The signatures' values take most of the memory (4 * num_perm bytes a
 * row), so they go in memory like the engine's own (mh_large_alloc: 2 MB
 * pages where the kernel offers them, quick to give back on a cancel),
 * freed when the memory context goes, at the end or on error.
 */
typedef struct LargeBlock
{
	void	   *start;
	Size		size;
	MemoryContextCallback release;
} LargeBlock;

static void
release_large_block(void *arg)
{
	LargeBlock *block = (LargeBlock *) arg;

	mh_large_free(block->start, block->size);
}

static uint32 *
allocate_values(MemoryContext owner, Size size)
{
	LargeBlock *block = MemoryContextAllocZero(owner, sizeof(LargeBlock));

	block->size = Max(size, 1);
	block->start = mh_large_alloc(block->size);
	if (block->start == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Failed on a request of size %zu for the signatures to group.", size)));
	block->release.func = release_large_block;
	block->release.arg = block;
	MemoryContextRegisterResetCallback(owner, &block->release);
	return block->start;
}

/* Keep one fetched row: its parts are copied into the current context. */
static void
keep_row(GroupRows *rows, HeapTuple tuple, TupleDesc desc, Form_pg_attribute key_attr)
{
	bool		isnull;
	Datum		datum;
	uint32		i = rows->count;
	ItemPointer tid;

	if (i >= rows->capacity)
		elog(ERROR, "more rows than near_dupe_check counted (%u)", rows->capacity);
	tid = (ItemPointer) DatumGetPointer(heap_getattr(tuple, 1, desc, &isnull));
	rows->tids[i] = minhash_tid_number(tid);

	datum = heap_getattr(tuple, 2, desc, &rows->key_nulls[i]);
	rows->keys[i] = rows->key_nulls[i] ? (Datum) 0 :
		datumCopy(datum, key_attr->attbyval, key_attr->attlen);
	datum = heap_getattr(tuple, 3, desc, &isnull);
	rows->key_texts[i] = isnull || rows->typed_keys ? NULL : DatumGetTextPCopy(datum);

	datum = heap_getattr(tuple, 4, desc, &isnull);
	rows->signed_rows[i] = !isnull;
	rows->values[i] = NULL;
	rows->sizes[i] = 0;
	if (!isnull)
	{
		MinHash    *sig = DatumGetMinHashP(datum);
		MhSummary	summary;

		minhash_get_summary(sig, &summary);
		if (!rows->have_params)
		{
			rows->params = summary.params;
			rows->have_params = true;
		}
		else if (mh_params_match(&rows->params, &summary.params) != MH_OK)
			minhash_report_mismatch(&rows->params, &summary.params);
		rows->sizes[i] = summary.distinct_shingles;
		/* The check counted the signed rows on this same snapshot. */
		if (rows->value_slots_used >= rows->value_slots || sig->num_perm != rows->value_count)
			elog(ERROR, "the signatures differ from what near_dupe_check counted");
		rows->values[i] = rows->value_store + (Size) rows->value_slots_used++ * sig->num_perm;
		memcpy(rows->values[i], sig->values, sizeof(uint32) * sig->num_perm);
		if ((Pointer) sig != DatumGetPointer(datum))
			pfree(sig);
	}
	rows->count++;
}

/* Read every row of the table through a cursor, into `into`. */
static void
read_rows(GroupRows *rows, const char *query, MemoryContext into)
{
	Portal		portal;
	bool		prepared = false;

	portal = SPI_cursor_open_with_args(NULL, query, 0, NULL, NULL, NULL, true, CURSOR_OPT_NO_SCROLL);
	for (;;)
	{
		MemoryContext old;

		SPI_cursor_fetch(portal, true, FETCH_ROWS);
		if (SPI_processed == 0)
			break;
		old = MemoryContextSwitchTo(into);
		if (!prepared)
		{
			Form_pg_attribute key_attr = TupleDescAttr(SPI_tuptable->tupdesc, 1);

			prepare_key_order(rows, key_attr->atttypid, key_attr->attcollation);
			prepared = true;
		}
		for (uint64 i = 0; i < SPI_processed; i++)
			keep_row(rows, SPI_tuptable->vals[i], SPI_tuptable->tupdesc,
					 TupleDescAttr(SPI_tuptable->tupdesc, 1));
		MemoryContextSwitchTo(old);
		SPI_freetuptable(SPI_tuptable);
		CHECK_FOR_INTERRUPTS();
	}
	SPI_cursor_close(portal);
}

/*
 * Rank order: signed rows first, by distinct shingles descending; then key
 * (nulls last); then ctid.
 */
static int
compare_rank(const GroupRows *rows, uint32 a, uint32 b)
{
	int			cmp;

	if (rows->signed_rows[a] != rows->signed_rows[b])
		return rows->signed_rows[a] ? -1 : 1;
	if (rows->sizes[a] != rows->sizes[b])
		return rows->sizes[a] > rows->sizes[b] ? -1 : 1;
	cmp = ApplySortComparator(rows->keys[a], rows->key_nulls[a],
							  rows->keys[b], rows->key_nulls[b],
							  (SortSupport) &rows->key_order);
	if (cmp != 0)
		return cmp;
	return rows->tids[a] < rows->tids[b] ? -1 : (rows->tids[a] > rows->tids[b] ? 1 : 0);
}

/*
 * The rows' numbers in the given order (rank order: compare_rank): a
 * bottom-up merge sort, which checks for interrupts as it goes
 * (PostgreSQL's in-memory sorts do not).
 */
uint32 *
minhash_near_dupe_sort_rows(const GroupRows *rows, NearDupeRowOrder compare)
{
	uint32		count = rows->count;
	uint32	   *order = huge_array(sizeof(uint32), count);
	uint32	   *merged = huge_array(sizeof(uint32), count);

	for (uint32 i = 0; i < count; i++)
		order[i] = i;
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
				if (b >= high || (a < middle && compare(rows, order[a], order[b]) <= 0))
					merged[out++] = order[a++];
				else
					merged[out++] = order[b++];
				if ((out & 0xFFF) == 0)
					CHECK_FOR_INTERRUPTS();
			}
		}
		swap = order;
		order = merged;
		merged = swap;
	}
	pfree(merged);
	return order;
}

/*
 * The engine's walk over the signed rows, ranked[0 .. count): exact (bands
 * 0), or with candidates from the given approximate layout.
 */
static void
walk_groups(const GroupRows *rows, const uint32 *ranked, uint32 count, double threshold,
			uint32 bands, uint32 band_rows, uint32 *pivots, double *resemblance)
{
	const uint32 **signatures;
	uint8	   *empty;
	MhStatus	status;

	minhash_near_dupe_engine_input(rows, ranked, count, &signatures, &empty);
	if (bands == 0)
		status = mh_group_greedy(signatures, empty, count, rows->params.num_perm, threshold,
								 minhash_cancel_pending, NULL, pivots, resemblance);
	else
		status = mh_group_greedy_banded(signatures, empty, count, rows->params.num_perm,
										threshold, bands, band_rows,
										minhash_cancel_pending, NULL, pivots, resemblance);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status == MH_ERR_OUT_OF_MEMORY)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory"),
				 errdetail("Grouping %u signatures of %u values needs more memory than is available.",
						   count, rows->params.num_perm),
				 errhint("near_dupe_query(..., groups => true) gives the same groups as one SQL statement, which works within work_mem.")));
	if (status != MH_OK)
		minhash_report_core_failure(status, "group signatures");
	pfree(signatures);
	pfree(empty);
}

/*
 * A row's key as the result carries it: in the key column's own type when
 * the caller named it (key_type), else as text.
 */
Datum
minhash_near_dupe_result_key(const GroupRows *rows, uint32 row, bool *isnull)
{
	if (rows->typed_keys)
	{
		*isnull = rows->key_nulls[row];
		return rows->keys[row];
	}
	*isnull = rows->key_texts[row] == NULL;
	return PointerGetDatum(rows->key_texts[row]);
}

/* Put the groups into the result, in pivot rank order, each pivot first. */
static void
emit_groups(const GroupRows *rows, const uint32 *ranked, uint32 signed_count,
			const uint32 *pivots, const double *resemblance,
			Tuplestorestate *store, TupleDesc desc)
{
	uint32	   *first = huge_array(sizeof(uint32), (Size) signed_count + 1);
	uint32	   *members = huge_array(sizeof(uint32), signed_count);
	int64		group_id = 0;
	Datum		values[4];
	bool		nulls[4];

	/* A counting sort of the ranked rows by pivot, keeping rank order. */
	memset(first, 0, sizeof(uint32) * ((Size) signed_count + 1));
	for (uint32 i = 0; i < signed_count; i++)
		first[pivots[i] + 1]++;
	for (uint32 p = 0; p < signed_count; p++)
		first[p + 1] += first[p];
	for (uint32 i = 0; i < signed_count; i++)
		members[first[pivots[i]]++] = i;
	/* first[p] now ends pivot p's members: step back to their start. */
	for (uint32 p = signed_count; p > 0; p--)
		first[p] = first[p - 1];
	first[0] = 0;

	for (uint32 p = 0; p < signed_count; p++)
	{
		uint32		pivot_row;

		if (pivots[p] != p)
			continue;
		group_id++;
		pivot_row = ranked[p];
		for (uint32 m = first[p]; m < first[p + 1]; m++)
		{
			uint32		row = ranked[members[m]];

			values[0] = Int64GetDatum(group_id);
			nulls[0] = false;
			values[1] = minhash_near_dupe_result_key(rows, row, &nulls[1]);
			values[2] = minhash_near_dupe_result_key(rows, pivot_row, &nulls[2]);
			values[3] = Float8GetDatum(resemblance[members[m]]);
			nulls[3] = false;
			tuplestore_putvalues(store, desc, values, nulls);
			if ((m & 0xFFF) == 0)
				CHECK_FOR_INTERRUPTS();
		}
	}
	/* Rows without a signature: each alone, resemblance unknown. */
	for (uint32 i = signed_count; i < rows->count; i++)
	{
		values[0] = Int64GetDatum(++group_id);
		nulls[0] = false;
		values[1] = values[2] = minhash_near_dupe_result_key(rows, ranked[i], &nulls[1]);
		nulls[2] = nulls[1];
		nulls[3] = true;
		tuplestore_putvalues(store, desc, values, nulls);
		if ((i & 0xFFF) == 0)
			CHECK_FOR_INTERRUPTS();
	}
	pfree(first);
	pfree(members);
}

/* Bytes the glue keeps for each row besides its values and key text. */
#define ROW_BYTES (sizeof(uint64) * 3 + sizeof(Datum) + sizeof(text *) + sizeof(uint32 *) * 2 + \
				   sizeof(uint32) * 4 + sizeof(double) + 4)

/*
 * Refuse, before reading anything, a table whose grouping needs more than
 * minhash.group_memory: the rows, the signatures' values and the engine's
 * buckets (key texts not counted), for the layout the walk uses (bands 0:
 * exact).
 */
static void
check_memory(int64 row_count, int64 signed_rows, int32 num_perm, double threshold,
			 uint32 bands)
{
	uint64		needed;

	if (row_count > PG_UINT32_MAX / 2)
		ereport(ERROR,
				(errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
				 errmsg("cannot group more than %u rows", PG_UINT32_MAX / 2)));
	if (signed_rows == 0)
		return;
	needed = (uint64) row_count * ROW_BYTES + (uint64) signed_rows * sizeof(uint32) * num_perm +
		(bands == 0 ? mh_group_memory((uint32) signed_rows, (uint32) num_perm, threshold) :
		 mh_group_memory_banded((uint32) signed_rows, bands));
	if (needed / 1024 > (uint64) minhash_group_memory && bands != 0)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("grouping needs about %llu kB of memory, more than minhash.group_memory (%d kB)",
						(unsigned long long) (needed / 1024), minhash_group_memory),
				 errdetail("%lld rows, %lld of them with a signature of %d values, at threshold %g with %u bands for the recall.",
						   (long long) row_count, (long long) signed_rows, num_perm, threshold, bands),
				 errhint("Set minhash.group_memory to at least %lluMB: the grouping as one SQL statement, near_dupe_query(..., groups => true), is exact only.",
						 (unsigned long long) ((needed / 1024 + 1023) / 1024))));
	if (needed / 1024 > (uint64) minhash_group_memory)
		ereport(ERROR,
				(errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
				 errmsg("grouping needs about %llu kB of memory, more than minhash.group_memory (%d kB)",
						(unsigned long long) (needed / 1024), minhash_group_memory),
				 errdetail("%lld rows, %lld of them with a signature of %d values, at threshold %g.",
						   (long long) row_count, (long long) signed_rows, num_perm, threshold),
				 errhint("Set minhash.group_memory to at least %lluMB, or run the query that near_dupe_query(..., groups => true) returns, with enable_hashagg and enable_mergejoin off: it gives the same groups without holding the signatures in memory.",
						 (unsigned long long) ((needed / 1024 + 1023) / 1024))));
}

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

/*
 * Connect to SPI and check the call's source with near_dupe_check (source,
 * key_column, sig_column, threshold: the first four arguments of
 * near_dupe_groups and near_dupe_pairs), with its errors for bad arguments,
 * a view, mixed parameters (one scan).  With typed keys the result's key
 * type must be the key column's own.  The threshold, or minhash.threshold
 * for a null one, chooses a band layout, so it must be above 0.
 */
void
minhash_near_dupe_check_source(FunctionCallInfo fcinfo, bool typed_keys, Oid result_key_type,
							   NearDupeSource *source)
{
	Oid			schema = get_func_namespace(fcinfo->flinfo->fn_oid);
	const char *schema_name = quote_identifier(get_namespace_name(schema));
	Oid			check_types[4] = {REGCLASSOID, NAMEOID, NAMEOID, FLOAT8OID};
	Datum		check_args[4];
	char		check_nulls[4];
	bool		isnull;

	minhash_near_dupe_check_threshold(fcinfo);
	for (int i = 0; i < 4; i++)
	{
		check_args[i] = PG_ARGISNULL(i) ? (Datum) 0 : PG_GETARG_DATUM(i);
		check_nulls[i] = PG_ARGISNULL(i) ? 'n' : ' ';
	}
	if (SPI_connect() != SPI_OK_CONNECT)
		elog(ERROR, "SPI_connect failed");
	if (SPI_execute_with_args(psprintf("SELECT c.row_count, c.signed, c.num_perm, c.key_type FROM %s.near_dupe_check($1, $2, $3, $4) c",
									   schema_name),
							  4, check_types, check_args, check_nulls, true, 0) != SPI_OK_SELECT ||
		SPI_processed != 1)
		elog(ERROR, "near_dupe_check failed");
	source->row_count = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull));
	source->signed_rows = DatumGetInt64(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull));
	source->num_perm = DatumGetInt32(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 3, &isnull));
	source->key_type = DatumGetObjectId(SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 4, &isnull));
	source->relation = PG_GETARG_OID(0);
	source->key_column = NameStr(*PG_GETARG_NAME(1));
	source->sig_column = NameStr(*PG_GETARG_NAME(2));
	minhash_check_layout_threshold(PG_ARGISNULL(3) ? minhash_similarity_threshold : PG_GETARG_FLOAT8(3));
	if (typed_keys)
		check_key_type(result_key_type, source->key_type, source->key_column, source->relation);
}

/*
 * Read every row of the source minhash_near_dupe_check_source checked into
 * rows (rows->typed_keys set), in `into`; then end SPI.
 */
void
minhash_near_dupe_read_source(const NearDupeSource *source, GroupRows *rows, MemoryContext into)
{
	char	   *query;

	allocate_rows(rows, (uint32) source->row_count, into);
	if (source->signed_rows > 0)
	{
		rows->value_slots = (uint32) source->signed_rows;
		rows->value_count = (uint32) source->num_perm;
		rows->value_store = allocate_values(into, sizeof(uint32) * (Size) source->num_perm * rows->value_slots);
	}
	/* key::text only for a result that carries the keys as text */
	query = psprintf("SELECT s.ctid, s.%s, %s, s.%s FROM ONLY %s.%s s",
					 quote_identifier(source->key_column),
					 rows->typed_keys ? "NULL::pg_catalog.text" :
					 psprintf("s.%s::pg_catalog.text", quote_identifier(source->key_column)),
					 quote_identifier(source->sig_column),
					 quote_identifier(get_namespace_name(get_rel_namespace(source->relation))),
					 quote_identifier(get_rel_name(source->relation)));
	read_rows(rows, query, into);
	SPI_finish();
}

PG_FUNCTION_INFO_V1(minhash_near_dupe_groups);
/*
 * near_dupe_groups(source regclass, key_column name, sig_column name,
 * threshold float8 DEFAULT minhash_threshold()): every row in one
 * near-duplicate group, keys as text (1.0 declared DEFAULT NULL, and there a
 * null threshold is the setting: minhash_near_dupe_check_threshold);
 * near_dupe_groups(source, key_column, sig_column,
 * threshold, key_type anyelement, recall float8 DEFAULT NULL): the same,
 * keys in their own type (text: key::text, whatever the column's type), and
 * with a recall, candidates from the approximate layout (mh_recall_layout)
 * instead of the exact one.  (1.0's four arguments, and 1.1 before recall,
 * five.)
 */
Datum
minhash_near_dupe_groups(PG_FUNCTION_ARGS)
{
	NearDupeSource source;
	double		threshold;
	MemoryContext work,
				old;
	GroupRows	rows;
	uint32	   *ranked,
				signed_count = 0;
	uint32	   *pivots;
	double	   *resemblance;
	uint32		recall_bands = 0,	/* 0: exact */
				recall_rows = 0;
	TupleDesc	desc;
	Tuplestorestate *store;

	store = minhash_materialize_result(fcinfo, &desc);

	/* Everything below lives in one context, deleted at the end. */
	work = AllocSetContextCreate(CurrentMemoryContext, "near_dupe_groups", ALLOCSET_DEFAULT_SIZES);
	old = MemoryContextSwitchTo(work);
	memset(&rows, 0, sizeof(rows));

	rows.typed_keys = PG_NARGS() >= 5 && TupleDescAttr(desc, 1)->atttypid != TEXTOID;
	minhash_near_dupe_check_source(fcinfo, rows.typed_keys, TupleDescAttr(desc, 1)->atttypid, &source);
	threshold = PG_ARGISNULL(3) ? minhash_similarity_threshold : PG_GETARG_FLOAT8(3);
	if (PG_NARGS() >= 6 && !PG_ARGISNULL(5) && source.signed_rows > 0)
		minhash_recall_layout(threshold, PG_GETARG_FLOAT8(5), (uint32) source.num_perm,
							  &recall_bands, &recall_rows);
	else if (PG_NARGS() >= 6 && !PG_ARGISNULL(5))
		minhash_check_recall(PG_GETARG_FLOAT8(5));
	check_memory(source.row_count, source.signed_rows, source.num_perm, threshold, recall_bands);
	minhash_near_dupe_read_source(&source, &rows, work);
	MemoryContextSwitchTo(work);

	ranked = minhash_near_dupe_sort_rows(&rows, compare_rank);
	while (signed_count < rows.count && rows.signed_rows[ranked[signed_count]])
		signed_count++;
	pivots = huge_array(sizeof(uint32), signed_count);
	resemblance = huge_array(sizeof(double), signed_count);
	if (signed_count > 0)
		walk_groups(&rows, ranked, signed_count, threshold, recall_bands, recall_rows,
					pivots, resemblance);

	MemoryContextSwitchTo(old);
	emit_groups(&rows, ranked, signed_count, pivots, resemblance, store, desc);
	MemoryContextDelete(work);
	return (Datum) 0;
}
