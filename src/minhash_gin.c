/*
 * minhash_gin.c
 *	  The GIN operator classes of minhash, whose keys are a signature's LSH
 *	  band keys (seeds 001 and 003):
 *	  - gin_minhash_ops, exact: serves a % b (threshold from the
 *		minhash.threshold setting), a %> minhash_query(b, t) and
 *		a %~ minhash_query(b, t), and never returns fewer rows than a
 *		sequential scan;
 *	  - gin_minhash_approx_ops, approximate: serves only a %~
 *		minhash_query(b, t), and may return fewer.  Its operator family holds
 *		nothing else, so the planner can never answer an exact query (%, %>,
 *		resembles(), the flagging trigger's lookup) with it.
 *
 * The guarantee.  Let a query ask for resemblance >= t between signatures of
 * n values, and let D be the most positions two signatures may disagree on
 * while passing that test (mh_max_disagreements).  Split b * r <= n
 * positions into b bands of r rows.  A band whose key differs holds at least
 * one disagreeing position, and different bands hold different positions, so
 * a pair that passes has at most D bands that differ: at least b - D bands
 * have equal keys.  Hence
 *	  - when D < b, every row passing the test shares at least b - D keys
 *		with the query, and the consistent function may demand b - D matches;
 *	  - when D >= b, the index proves nothing, and the scan reads every item.
 * Key collisions only add matches, never remove them, so they add candidates
 * and the recheck drops them.  The exact index therefore never returns fewer
 * rows than a sequential scan.
 *
 * The approximate index takes bands and rows from mh_recall_layout(threshold
 * option, recall option), fewer and longer bands, and a row is a candidate
 * when it shares one key with the query (or the b - D keys every passing
 * row shares, when that is more).  A pair a little above the threshold
 * option (mh_recall_target) shares a band with probability recall, so %~
 * through it may return fewer rows than a sequential scan; it never reads
 * every item, whatever the query's threshold.
 *
 * The exact default layout (layout 1, mh_index_layout: mh_pigeonhole_layout
 * with two spare bands) takes b = D + 3 bands for the threshold option, rows
 * = floor(n / b): at 0.8 and n = 128, 28 bands of 4 rows, and a row must
 * share 3 of the 28 keys with the query.  Two bands more than the pigeonhole
 * minimum cost 8% more keys, and buy short keys: a candidate now needs three
 * chance collisions instead of one, so keys of 20 bits (default key_bits)
 * select hardly any extra candidates even at a million rows.  Short keys are
 * what make the index small and quick to build: GIN's build cost and size
 * grow with the number of distinct keys, and 2^20 keys shared by many rows
 * compress into posting lists.
 *
 * An empty signature (a document without words) resembles nothing, so it
 * has no keys: its row is indexed as an item without keys, which only a
 * scan reading every item (D >= b) visits, and whose recheck refuses it; a
 * query with an empty signature extracts no keys and matches nothing without
 * reading the index.  An index built when empty rows had keys stays valid:
 * those keys, of values all ffffffff, meet only by chance a non-empty query,
 * whose recheck refuses the row.
 *
 * The layout is stored with the index.  A GIN opclass cannot keep a
 * metapage, and PostgreSQL records only the opclass options a user gave, so
 * the option `layout` names the version of every choice above (exact layout
 * 1: threshold 0.8, key_bits 20, D + 3 bands, key = band key folded to 32
 * bits; approximate layout 1: threshold 0.8, recall 0.99, key_bits 24,
 * mh_recall_layout's bands, keys folded alike); an index without it is
 * layout 1 by definition.  The engine keeps a table of the layouts it can
 * read (src/core/index_layout.cpp); one it does not know is refused at
 * CREATE INDEX and at every scan or insert.
 */
#include "postgres.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "fmgr.h"
#include "utils/float.h"

#include "minhash.h"

/*
 * The options as PostgreSQL parses them.  PostgreSQL stores only the options
 * a user gave (pg_attribute.attoptions of the index column), so an option
 * left out takes the default registered below, and those defaults say "not
 * given": the index's layout version (option layout, absent: layout 1)
 * decides what not given means, through the engine's table of layouts, so
 * that no later library can change the keys of an existing index.
 */
typedef struct MinHashGinOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			bands;			/* 0: derived from threshold */
	int			rows;			/* 0: derived from threshold */
	double		threshold;		/* the lowest threshold served by keys alone;
								 * negative: the layout's */
	int			key_bits;		/* bits kept of each band key; 0: the layout's */
	int			layout;			/* layout version */
	double		recall;			/* refused: approximate indexes are
								 * gin_minhash_approx_ops */
} MinHashGinOptions;

/* gin_minhash_approx_ops's options, with the same conventions. */
typedef struct MinHashGinApproxOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	double		threshold;		/* negative: the layout's */
	double		recall;			/* negative: the layout's */
	int			key_bits;		/* 0: the layout's */
	int			layout;			/* approximate layout version */
} MinHashGinApproxOptions;

#define THRESHOLD_NOT_GIVEN			(-1.0)
#define RECALL_NOT_GIVEN			(-1.0)
#define KEY_BITS_NOT_GIVEN			0

#define EXACT_OPCLASS	"gin_minhash_ops"
#define APPROX_OPCLASS	"gin_minhash_approx_ops"

pg_noreturn static void report_unknown_layout(const char *opclass, int layout, int latest, int default_layout,
											   bool creating);

/*
 * Refuse an index whose layout this library cannot read or build: its keys
 * would not be the ones the index holds, and scans would silently miss rows.
 */
static void
report_unknown_layout(const char *opclass, int layout, int latest, int default_layout, bool creating)
{
	if (creating)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("%s layout %d is not supported by this version of minhash", opclass, layout),
				 errdetail("The newest layout this version of minhash knows is %d.", latest),
				 errhint("Leave out the layout option to build layout %d.", default_layout)));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("index uses %s layout %d, which this version of minhash cannot read", opclass, layout),
			 errdetail("The newest layout this version of minhash knows is %d: the index was built by another version, whose keys this one cannot compute.",
					   latest),
			 errhint("Install the version of minhash that built the index, or drop the index and create it again without the layout option (REINDEX keeps the layout).")));
}

/*
 * Refuse a threshold option of 0, which no band layout serves
 * (minhash_check_layout_threshold), at CREATE INDEX.
 */
static void
check_threshold_option(relopt_value *values, int count, double threshold)
{
	for (int i = 0; i < count; i++)
		if (values[i].isset && strcmp(values[i].gen->name, "threshold") == 0)
			minhash_check_layout_threshold(threshold);
}

/* What exact_layout() and approx_layout() computed last, and for what. */
typedef struct LayoutCache
{
	bool		valid;
	uint32		num_perm;
	MhIndexLayout layout;
} LayoutCache;

static LayoutCache exact_cache;
static MhIndexOptions exact_cached_options;
static LayoutCache approx_cache;
static MhApproxIndexOptions approx_cached_options;

/* The layout of this gin_minhash_ops index for signatures of num_perm values. */
static void
exact_layout(FunctionCallInfo fcinfo, uint32 num_perm, MhIndexLayout *layout)
{
	MhIndexOptions options;
	MhStatus	status;

	/* zeroed whole, padding too: the cache compares the bytes */
	memset(&options, 0, sizeof(options));
	options.layout = MH_INDEX_LAYOUT_DEFAULT;
	options.threshold = THRESHOLD_NOT_GIVEN;
	options.key_bits = KEY_BITS_NOT_GIVEN;

	if (PG_HAS_OPCLASS_OPTIONS())
	{
		MinHashGinOptions *given = (MinHashGinOptions *) PG_GET_OPCLASS_OPTIONS();

		if (given->layout < 1)
			report_unknown_layout(EXACT_OPCLASS, given->layout, MH_INDEX_LAYOUT_LATEST,
								  MH_INDEX_LAYOUT_DEFAULT, false);
		/* CREATE INDEX refuses it, but a build that took it may have stored it */
		if (given->recall != RECALL_NOT_GIVEN)
			ereport(ERROR,
					(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
					 errmsg("index has the recall option of gin_minhash_ops, which this version of minhash cannot read"),
					 errhint("Drop the index, and create it again with the operator class gin_minhash_approx_ops for an approximate index.")));
		options.layout = (uint32) given->layout;
		options.threshold = given->threshold;
		options.key_bits = (uint32) given->key_bits;
		if (given->bands > 0)
		{
			minhash_check_layout(given->bands, given->rows, num_perm);
			options.bands = (uint32) given->bands;
			options.rows = (uint32) given->rows;
		}
	}
	if (exact_cache.valid && exact_cache.num_perm == num_perm &&
		memcmp(&exact_cached_options, &options, sizeof(options)) == 0)
	{
		*layout = exact_cache.layout;
		return;
	}
	status = mh_index_layout(&options, num_perm, layout);
	if (status == MH_ERR_UNKNOWN_LAYOUT)
		report_unknown_layout(EXACT_OPCLASS, (int) options.layout, MH_INDEX_LAYOUT_LATEST,
							  MH_INDEX_LAYOUT_DEFAULT, false);
	if (status != MH_OK)
		minhash_report_core_failure(status, "choose the index layout");
	exact_cached_options = options;
	exact_cache.num_perm = num_perm;
	exact_cache.layout = *layout;
	exact_cache.valid = true;
}

/* The layout of this gin_minhash_approx_ops index for signatures of num_perm values. */
static void
approx_layout(FunctionCallInfo fcinfo, uint32 num_perm, MhIndexLayout *layout)
{
	MhApproxIndexOptions options;
	MhApproxLayoutVersion version;
	MhStatus	status;

	memset(&options, 0, sizeof(options));
	options.layout = MH_APPROX_LAYOUT_DEFAULT;
	options.threshold = THRESHOLD_NOT_GIVEN;
	options.recall = RECALL_NOT_GIVEN;
	options.key_bits = KEY_BITS_NOT_GIVEN;

	if (PG_HAS_OPCLASS_OPTIONS())
	{
		MinHashGinApproxOptions *given = (MinHashGinApproxOptions *) PG_GET_OPCLASS_OPTIONS();

		if (given->layout < 1)
			report_unknown_layout(APPROX_OPCLASS, given->layout, MH_APPROX_LAYOUT_LATEST,
								  MH_APPROX_LAYOUT_DEFAULT, false);
		options.layout = (uint32) given->layout;
		options.threshold = given->threshold;
		options.recall = given->recall;
		options.key_bits = (uint32) given->key_bits;
	}
	/* the recall layout takes a search: keep the last one */
	if (approx_cache.valid && approx_cache.num_perm == num_perm &&
		memcmp(&approx_cached_options, &options, sizeof(options)) == 0)
	{
		*layout = approx_cache.layout;
		return;
	}
	if (mh_approx_layout_version(options.layout, &version) != MH_OK)
		report_unknown_layout(APPROX_OPCLASS, (int) options.layout, MH_APPROX_LAYOUT_LATEST,
							  MH_APPROX_LAYOUT_DEFAULT, false);
	status = mh_approx_index_layout(&options, num_perm, layout);
	if (status != MH_OK)
	{
		uint32		bands,
					rows;

		/* its errors, should a stored option not fit these signatures */
		minhash_recall_layout(options.threshold >= 0.0 ? options.threshold : version.threshold,
							  options.recall >= 0.0 ? options.recall : version.recall,
							  num_perm, &bands, &rows);
		minhash_report_core_failure(status, "choose the index layout");
	}
	approx_cached_options = options;
	approx_cache.num_perm = num_perm;
	approx_cache.layout = *layout;
	approx_cache.valid = true;
}

/*
 * Whether a gin_minhash_ops index with these opclass options (parsed, as
 * IndexOptInfo keeps them; NULL: none given) narrows a query at threshold
 * over signatures of num_perm values, i.e. whether extract_query would
 * demand matching keys rather than read every item.  For the planner
 * (minhash_selectivity.c), so it never raises: options this library cannot
 * read count as narrowing, and the scan itself reports them.
 */
bool
minhash_gin_narrows(const bytea *options, uint32 num_perm, double threshold)
{
	MhIndexOptions index_options = {MH_INDEX_LAYOUT_DEFAULT, THRESHOLD_NOT_GIVEN, 0, 0, KEY_BITS_NOT_GIVEN};
	MhIndexLayout layout;

	if (options != NULL)
	{
		const MinHashGinOptions *given = (const MinHashGinOptions *) options;

		if (given->layout < 1 || given->bands < 0 || given->rows < 0)
			return true;
		index_options.layout = (uint32) given->layout;
		index_options.threshold = given->threshold;
		index_options.key_bits = (uint32) given->key_bits;
		index_options.bands = (uint32) given->bands;
		index_options.rows = (uint32) given->rows;
	}
	if (mh_index_layout(&index_options, num_perm, &layout) != MH_OK)
		return true;
	return mh_max_disagreements(threshold, num_perm) < layout.bands;
}

/*
 * The GIN keys of a signature (mh_index_keys): one per band, ascending.
 * Keys of fewer bits make rows share keys, so GIN stores fewer, longer
 * (compressed) posting lists; the extra candidates are rechecked.
 */
static Datum *
band_entries(const MinHash *sig, const MhIndexLayout *layout)
{
	int32	   *keys = palloc(sizeof(int32) * layout->bands);
	Datum	   *entries = palloc(sizeof(Datum) * layout->bands);
	MhStatus	status = mh_index_keys(layout, sig->values, sig->num_perm, keys);

	if (status != MH_OK)
		minhash_report_core_failure(status, "compute index keys");
	for (uint32 i = 0; i < layout->bands; i++)
		entries[i] = Int32GetDatum(keys[i]);
	pfree(keys);
	return entries;
}

/*
 * The query's keys, each pointing at the matches a candidate needs
 * (extra_data, read by the consistent functions).
 */
static Datum *
query_entries(const MinHash *sig, const MhIndexLayout *layout, int32 required,
			  int32 *nentries, Pointer **extra_data)
{
	int32	   *shared = palloc(sizeof(int32));

	*shared = required;
	*extra_data = palloc(sizeof(Pointer) * layout->bands);
	for (uint32 i = 0; i < layout->bands; i++)
		(*extra_data)[i] = (Pointer) shared;
	*nentries = (int32) layout->bands;
	return band_entries(sig, layout);
}

/* The query's signature and threshold, by strategy. */
static MinHash *
query_signature(FunctionCallInfo fcinfo, StrategyNumber strategy, double *threshold)
{
	switch (strategy)
	{
		case MINHASH_SIMILAR_STRATEGY:
			*threshold = minhash_similarity_threshold;
			return PG_GETARG_MINHASH_P(0);
		case MINHASH_QUERY_STRATEGY:
		case MINHASH_APPROX_STRATEGY:
			return minhash_query_signature(PG_GETARG_DATUM(0), threshold);
		default:
			elog(ERROR, "unrecognized strategy number: %d", strategy);
	}
}

PG_FUNCTION_INFO_V1(minhash_gin_extract_value);
Datum
minhash_gin_extract_value(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	MhIndexLayout layout;

	exact_layout(fcinfo, sig->num_perm, &layout);
	if (minhash_signature_is_empty(sig))
	{
		*nentries = 0;
		PG_RETURN_POINTER(NULL);
	}
	*nentries = (int32) layout.bands;
	PG_RETURN_POINTER(band_entries(sig, &layout));
}

/*
 * gin_minhash_ops: %, %> and %~ alike, exactly (see the top of this file):
 * b - D matches, or every item below what the layout guarantees.
 */
PG_FUNCTION_INFO_V1(minhash_gin_extract_query);
Datum
minhash_gin_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int32	   *search_mode = (int32 *) PG_GETARG_POINTER(6);
	double		threshold;
	MinHash    *sig = query_signature(fcinfo, strategy, &threshold);
	MhIndexLayout layout;
	uint32		max_disagreements;

	exact_layout(fcinfo, sig->num_perm, &layout);
	if (minhash_signature_is_empty(sig))
	{
		/* no keys in the default mode: GIN returns no row, reading nothing */
		*nentries = 0;
		PG_RETURN_POINTER(NULL);
	}
	max_disagreements = mh_max_disagreements(threshold, sig->num_perm);
	if (max_disagreements >= layout.bands)
	{
		/* below what the layout guarantees: read everything, recheck all */
		*nentries = 0;
		*search_mode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}
	PG_RETURN_POINTER(query_entries(sig, &layout, (int32) (layout.bands - max_disagreements),
									nentries, extra_data));
}

PG_FUNCTION_INFO_V1(minhash_gin_approx_extract_value);
Datum
minhash_gin_approx_extract_value(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	MhIndexLayout layout;

	approx_layout(fcinfo, sig->num_perm, &layout);
	if (minhash_signature_is_empty(sig))
	{
		*nentries = 0;
		PG_RETURN_POINTER(NULL);
	}
	*nentries = (int32) layout.bands;
	PG_RETURN_POINTER(band_entries(sig, &layout));
}

/*
 * gin_minhash_approx_ops: %~ only.  A row is a candidate when it shares one
 * key, or the b - D keys every passing row shares when that is more.
 */
PG_FUNCTION_INFO_V1(minhash_gin_approx_extract_query);
Datum
minhash_gin_approx_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	double		threshold;
	MinHash    *sig;
	MhIndexLayout layout;
	uint32		max_disagreements;

	if (strategy != MINHASH_APPROX_STRATEGY)
		elog(ERROR, "unrecognized strategy number: %d", strategy);
	sig = query_signature(fcinfo, strategy, &threshold);
	approx_layout(fcinfo, sig->num_perm, &layout);
	if (minhash_signature_is_empty(sig))
	{
		*nentries = 0;
		PG_RETURN_POINTER(NULL);
	}
	max_disagreements = mh_max_disagreements(threshold, sig->num_perm);
	PG_RETURN_POINTER(query_entries(sig, &layout,
									max_disagreements < layout.bands ?
									(int32) Max(layout.bands - max_disagreements, 1) : 1,
									nentries, extra_data));
}

/* Matching keys a candidate needs (query_entries). */
static int32
required_matches(int32 nkeys, Pointer *extra_data)
{
	return nkeys == 0 ? 0 : *(int32 *) extra_data[0];
}

PG_FUNCTION_INFO_V1(minhash_gin_consistent);
Datum
minhash_gin_consistent(PG_FUNCTION_ARGS)
{
	bool	   *check = (bool *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	bool	   *recheck = (bool *) PG_GETARG_POINTER(5);
	int32		matches = 0;

	*recheck = true;			/* keys select candidates; signatures decide */
	for (int32 i = 0; i < nkeys; i++)
		matches += check[i] ? 1 : 0;
	PG_RETURN_BOOL(matches >= required_matches(nkeys, extra_data));
}

PG_FUNCTION_INFO_V1(minhash_gin_triconsistent);
Datum
minhash_gin_triconsistent(PG_FUNCTION_ARGS)
{
	GinTernaryValue *check = (GinTernaryValue *) PG_GETARG_POINTER(0);
	int32		nkeys = PG_GETARG_INT32(3);
	Pointer    *extra_data = (Pointer *) PG_GETARG_POINTER(4);
	int32		possible = 0;

	for (int32 i = 0; i < nkeys; i++)
		possible += check[i] != GIN_FALSE ? 1 : 0;
	PG_RETURN_GIN_TERNARY_VALUE(possible >= required_matches(nkeys, extra_data) ? GIN_MAYBE : GIN_FALSE);
}

/*
 * bands and rows come together, and replace the threshold option; the layout
 * must be one this library builds; a threshold option must be above 0; an
 * approximate index is another operator class.  Runs at CREATE INDEX when
 * options are given (PostgreSQL validates stored options only then).
 */
static void
validate_options(void *parsed, relopt_value *values, int count)
{
	MinHashGinOptions *options = (MinHashGinOptions *) parsed;
	MhIndexLayoutVersion version;

	if (options->layout < 1 ||
		mh_index_layout_version((uint32) options->layout, &version) != MH_OK)
		report_unknown_layout(EXACT_OPCLASS, options->layout, MH_INDEX_LAYOUT_LATEST,
							  MH_INDEX_LAYOUT_DEFAULT, true);
	for (int i = 0; i < count; i++)
		if (values[i].isset && strcmp(values[i].gen->name, "recall") == 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("gin_minhash_ops is exact and takes no recall"),
					 errdetail("An approximate index may miss rows, so it has its own operator class, which exact queries never use."),
					 errhint("Create the index with the operator class gin_minhash_approx_ops (threshold = ..., recall = ...), and query it with sig %%~ minhash_query(q, threshold) or resembles_approx(sig, q, threshold).")));
	if ((options->bands == 0) != (options->rows == 0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("options bands and rows must be given together")));
	for (int i = 0; i < count; i++)
		if (values[i].isset && strcmp(values[i].gen->name, "threshold") == 0 && options->bands > 0)
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("give either bands and rows, or threshold"),
					 errhint("A threshold chooses bands and rows that find every pair at or above it.")));
	check_threshold_option(values, count, options->threshold);
}

/* The approximate index's options: a known layout, a threshold above 0, a recall in (0, 1). */
static void
validate_approx_options(void *parsed, relopt_value *values, int count)
{
	MinHashGinApproxOptions *options = (MinHashGinApproxOptions *) parsed;
	MhApproxLayoutVersion version;

	if (options->layout < 1 ||
		mh_approx_layout_version((uint32) options->layout, &version) != MH_OK)
		report_unknown_layout(APPROX_OPCLASS, options->layout, MH_APPROX_LAYOUT_LATEST,
							  MH_APPROX_LAYOUT_DEFAULT, true);
	check_threshold_option(values, count, options->threshold);
	for (int i = 0; i < count; i++)
		if (values[i].isset && strcmp(values[i].gen->name, "recall") == 0 &&
			!(options->recall > 0.0 && options->recall < 1.0))
			ereport(ERROR,
					(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
					 errmsg("recall must be between 0 and 1, exclusive"),
					 errdetail("The value given was %s.", float8out_internal(options->recall)),
					 errhint("Leave the option out for recall %s; an index that finds every row is gin_minhash_ops.",
							 float8out_internal(version.recall))));
}

/*
 * gin_minhash_ops's options.  The defaults of threshold and key_bits are out
 * of their ranges, which a user cannot give: they mean "the layout's"
 * (layout 1: 0.8 and 20), see MinHashGinOptions.  recall is registered only
 * to be refused with a hint.
 */
PG_FUNCTION_INFO_V1(minhash_gin_options);
Datum
minhash_gin_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(MinHashGinOptions));
	add_local_int_reloption(relopts, "bands",
							"number of LSH bands (with rows; default: derived from threshold)",
							0, 0, MH_MAX_NUM_PERM, offsetof(MinHashGinOptions, bands));
	add_local_int_reloption(relopts, "rows",
							"hash values per LSH band (with bands; default: derived from threshold)",
							0, 0, MH_MAX_NUM_PERM, offsetof(MinHashGinOptions, rows));
	add_local_real_reloption(relopts, "threshold",
							 "lowest resemblance that queries find through band keys alone, above 0 (default: the layout's, 0.8)",
							 THRESHOLD_NOT_GIVEN, 0.0, 1.0,
							 offsetof(MinHashGinOptions, threshold));
	add_local_int_reloption(relopts, "key_bits",
							"bits kept of each band key: fewer make a smaller index and more candidates (default: the layout's, 20)",
							KEY_BITS_NOT_GIVEN, 16, 32, offsetof(MinHashGinOptions, key_bits));
	add_local_int_reloption(relopts, "layout",
							"version of the key layout (default 1, the only one; recorded so that later versions keep reading the index)",
							MH_INDEX_LAYOUT_DEFAULT, 1, PG_INT32_MAX,
							offsetof(MinHashGinOptions, layout));
	add_local_real_reloption(relopts, "recall",
							 "not accepted: an approximate index is gin_minhash_approx_ops",
							 RECALL_NOT_GIVEN, 0.0, 1.0,
							 offsetof(MinHashGinOptions, recall));
	register_reloptions_validator(relopts, validate_options);
	PG_RETURN_VOID();
}

/* gin_minhash_approx_ops's options, defaults out of range as above. */
PG_FUNCTION_INFO_V1(minhash_gin_approx_options);
Datum
minhash_gin_approx_options(PG_FUNCTION_ARGS)
{
	local_relopts *relopts = (local_relopts *) PG_GETARG_POINTER(0);

	init_local_reloptions(relopts, sizeof(MinHashGinApproxOptions));
	add_local_real_reloption(relopts, "threshold",
							 "resemblance the recall is reached a little above, above 0 (default: the layout's, 0.8)",
							 THRESHOLD_NOT_GIVEN, 0.0, 1.0,
							 offsetof(MinHashGinApproxOptions, threshold));
	add_local_real_reloption(relopts, "recall",
							 "share of the pairs 0.05 above the threshold that share a band key, between 0 and 1 (default: the layout's, 0.99)",
							 RECALL_NOT_GIVEN, 0.0, 1.0,
							 offsetof(MinHashGinApproxOptions, recall));
	add_local_int_reloption(relopts, "key_bits",
							"bits kept of each band key: fewer make a smaller index and more candidates (default: the layout's, 24)",
							KEY_BITS_NOT_GIVEN, 16, 32, offsetof(MinHashGinApproxOptions, key_bits));
	add_local_int_reloption(relopts, "layout",
							"version of the approximate key layout (default 1, the only one; recorded so that later versions keep reading the index)",
							MH_APPROX_LAYOUT_DEFAULT, 1, PG_INT32_MAX,
							offsetof(MinHashGinApproxOptions, layout));
	register_reloptions_validator(relopts, validate_approx_options);
	PG_RETURN_VOID();
}
