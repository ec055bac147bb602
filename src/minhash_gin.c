/*
 * minhash_gin.c
 *	  gin_minhash_ops: a GIN operator class whose keys are a signature's LSH
 *	  band keys (seeds 001 and 003), serving a % b (threshold from the
 *	  minhash.threshold setting) and a %> minhash_query(b, t).
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
 * and the recheck drops them.  The index therefore never returns fewer rows
 * than a sequential scan.
 *
 * Except with the recall option (approximate mode, issue 17): bands and rows
 * come from mh_recall_layout(threshold option, recall), fewer and longer
 * bands, and a row is a candidate when it shares one key with the query (or
 * the b - D keys every passing row shares, when that is more).  A pair a
 * little above the threshold (mh_recall_target) shares a band with
 * probability recall, so such an index may return fewer rows than a
 * sequential scan; it never reads every item, whatever the query's
 * threshold.  recall is refused together with bands and rows.
 *
 * The default layout (layout 1, mh_index_layout: mh_pigeonhole_layout with
 * two spare bands) takes b = D + 3 bands for the threshold option, rows =
 * floor(n / b): at 0.8 and n = 128, 28 bands of 4
 * rows, and a row must share 3 of the 28 keys with the query.  Two bands
 * more than the pigeonhole minimum cost 8% more keys, and buy short keys: a
 * candidate now needs three chance collisions instead of one, so keys of 20
 * bits (default key_bits) select hardly any extra candidates even at a
 * million rows.  Short keys are what make the index small and quick to build:
 * GIN's build cost and size grow with the number of distinct keys, and 2^20
 * keys shared by many rows compress into posting lists.
 *
 * The layout is stored with the index.  A GIN opclass cannot keep a
 * metapage, and PostgreSQL records only the opclass options a user gave, so
 * the option `layout` names the version of every choice above (layout 1:
 * threshold 0.8, key_bits 20, D + 3 bands, key = band key folded to 32 bits);
 * an index without it is layout 1 by definition.  The engine keeps a table
 * of the layouts it can read (src/core/index_layout.cpp); one it does not
 * know is refused at CREATE INDEX and at every scan or insert.
 */
#include "postgres.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "fmgr.h"

#include "minhash.h"

#define MINHASH_SIMILAR_STRATEGY	1	/* minhash % minhash */
#define MINHASH_QUERY_STRATEGY		2	/* minhash %> minhash_query */

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
	double		recall;			/* approximate layout; negative: exact */
} MinHashGinOptions;

#define THRESHOLD_NOT_GIVEN			(-1.0)
#define RECALL_NOT_GIVEN			(-1.0)
#define KEY_BITS_NOT_GIVEN			0

pg_noreturn static void report_unknown_layout(int layout, bool creating);
static double minhash_layout_threshold(uint32 layout);

/*
 * Refuse an index whose layout this library cannot read or build: its keys
 * would not be the ones the index holds, and scans would silently miss rows.
 */
static void
report_unknown_layout(int layout, bool creating)
{
	if (creating)
		ereport(ERROR,
				(errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
				 errmsg("gin_minhash_ops layout %d is not supported by this version of minhash", layout),
				 errdetail("The newest layout this version of minhash knows is %d.", MH_INDEX_LAYOUT_LATEST),
				 errhint("Leave out the layout option to build layout %d.", MH_INDEX_LAYOUT_DEFAULT)));
	ereport(ERROR,
			(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
			 errmsg("index uses gin_minhash_ops layout %d, which this version of minhash cannot read", layout),
			 errdetail("The newest layout this version of minhash knows is %d: the index was built by another version, whose keys this one cannot compute.",
					   MH_INDEX_LAYOUT_LATEST),
			 errhint("Install the version of minhash that built the index, or drop the index and create it again without the layout option (REINDEX keeps the layout).")));
}

/* The layout index_layout() computed last, and for what. */
static bool cached_valid = false;
static MhIndexOptions cached_options;
static uint32 cached_num_perm;
static MhIndexLayout cached_layout;

/* The layout of this index for signatures of num_perm values. */
static void
index_layout(FunctionCallInfo fcinfo, uint32 num_perm, MhIndexLayout *layout)
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
			report_unknown_layout(given->layout, false);
		options.layout = (uint32) given->layout;
		options.threshold = given->threshold;
		options.key_bits = (uint32) given->key_bits;
		if (given->bands > 0)
		{
			minhash_check_layout(given->bands, given->rows, num_perm);
			options.bands = (uint32) given->bands;
			options.rows = (uint32) given->rows;
		}
		if (given->recall > 0.0)
			options.recall = given->recall;
	}
	/* the last options' layout: the recall layout takes a search (some 20 us) */
	if (cached_valid && cached_num_perm == num_perm &&
		memcmp(&cached_options, &options, sizeof(options)) == 0)
	{
		*layout = cached_layout;
		return;
	}
	status = mh_index_layout(&options, num_perm, layout);
	if (status != MH_OK && options.recall > 0.0 && status != MH_ERR_UNKNOWN_LAYOUT)
	{
		uint32		bands,
					rows;

		/* its errors, should a stored option not fit these signatures */
		minhash_recall_layout(options.threshold >= 0.0 ? options.threshold :
							  minhash_layout_threshold(options.layout),
							  options.recall, num_perm, &bands, &rows);
	}
	if (status == MH_ERR_UNKNOWN_LAYOUT)
		report_unknown_layout((int) options.layout, false);
	if (status != MH_OK)
		minhash_report_core_failure(status, "choose the index layout");
	cached_options = options;
	cached_num_perm = num_perm;
	cached_layout = *layout;
	cached_valid = true;
}

/*
 * Whether an index with these opclass options (parsed, as IndexOptInfo keeps
 * them; NULL: none given) narrows a query at threshold over signatures of
 * num_perm values, i.e. whether extract_query would demand matching keys
 * rather than read every item.  For the planner (minhash_selectivity.c), so
 * it never raises: options this library cannot read count as narrowing, and
 * the scan itself reports them.
 */
bool
minhash_gin_narrows(const bytea *options, uint32 num_perm, double threshold)
{
	MhIndexOptions index_options = {MH_INDEX_LAYOUT_DEFAULT, THRESHOLD_NOT_GIVEN, 0, 0, KEY_BITS_NOT_GIVEN, 0};
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
		index_options.recall = given->recall > 0.0 ? given->recall : 0.0;
	}
	if (mh_index_layout(&index_options, num_perm, &layout) != MH_OK)
		return true;
	/* an approximate index never reads everything (extract_query) */
	return layout.approximate || mh_max_disagreements(threshold, num_perm) < layout.bands;
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

PG_FUNCTION_INFO_V1(minhash_gin_extract_value);
Datum
minhash_gin_extract_value(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	MhIndexLayout layout;

	index_layout(fcinfo, sig->num_perm, &layout);
	*nentries = (int32) layout.bands;
	PG_RETURN_POINTER(band_entries(sig, &layout));
}

PG_FUNCTION_INFO_V1(minhash_gin_extract_query);
Datum
minhash_gin_extract_query(PG_FUNCTION_ARGS)
{
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	StrategyNumber strategy = PG_GETARG_UINT16(2);
	Pointer   **extra_data = (Pointer **) PG_GETARG_POINTER(4);
	int32	   *search_mode = (int32 *) PG_GETARG_POINTER(6);
	MinHash    *sig;
	double		threshold;
	MhIndexLayout layout;
	uint32		max_disagreements;
	int32	   *required;

	switch (strategy)
	{
		case MINHASH_SIMILAR_STRATEGY:
			sig = PG_GETARG_MINHASH_P(0);
			threshold = minhash_similarity_threshold;
			break;
		case MINHASH_QUERY_STRATEGY:
			sig = minhash_query_signature(PG_GETARG_DATUM(0), &threshold);
			break;
		default:
			elog(ERROR, "unrecognized strategy number: %d", strategy);
	}

	index_layout(fcinfo, sig->num_perm, &layout);
	max_disagreements = mh_max_disagreements(threshold, sig->num_perm);
	if (layout.approximate)
	{
		/*
		 * The recall option: a row is a candidate when it shares one key,
		 * or the b - D keys every passing row shares when that is more.
		 */
		required = palloc(sizeof(int32));
		*required = max_disagreements < layout.bands ?
			(int32) Max(layout.bands - max_disagreements, 1) : 1;
		*extra_data = palloc(sizeof(Pointer) * layout.bands);
		for (uint32 i = 0; i < layout.bands; i++)
			(*extra_data)[i] = (Pointer) required;
		*nentries = (int32) layout.bands;
		PG_RETURN_POINTER(band_entries(sig, &layout));
	}
	if (max_disagreements >= layout.bands)
	{
		/* below what the layout guarantees: read everything, recheck all */
		*nentries = 0;
		*search_mode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

	required = palloc(sizeof(int32));
	*required = (int32) (layout.bands - max_disagreements);
	*extra_data = palloc(sizeof(Pointer) * layout.bands);
	for (uint32 i = 0; i < layout.bands; i++)
		(*extra_data)[i] = (Pointer) required;
	*nentries = (int32) layout.bands;
	PG_RETURN_POINTER(band_entries(sig, &layout));
}

/* Matching keys a candidate needs: b - D (see the top of this file). */
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
 * must be one this library builds.  Runs at CREATE INDEX when options are
 * given (PostgreSQL validates stored options only then).
 */
static void
validate_options(void *parsed, relopt_value *values, int count)
{
	MinHashGinOptions *options = (MinHashGinOptions *) parsed;
	MhIndexLayoutVersion version;

	if (options->layout < 1 ||
		mh_index_layout_version((uint32) options->layout, &version) != MH_OK)
		report_unknown_layout(options->layout, true);
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
	for (int i = 0; i < count; i++)
		if (values[i].isset && strcmp(values[i].gen->name, "recall") == 0)
		{
			if (options->bands > 0)
				ereport(ERROR,
						(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
						 errmsg("give either bands and rows, or recall"),
						 errhint("A recall chooses bands and rows for the threshold option.")));
			minhash_check_recall(options->recall);
		}
}

/* The threshold option's default in a layout version. */
static double
minhash_layout_threshold(uint32 layout)
{
	MhIndexLayoutVersion version;

	if (mh_index_layout_version(layout, &version) != MH_OK)
		report_unknown_layout((int) layout, false);
	return version.threshold;
}

/*
 * The options.  The defaults of threshold and key_bits are out of their
 * ranges, which a user cannot give: they mean "the layout's" (layout 1: 0.8
 * and 20), see MinHashGinOptions.
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
							 "lowest resemblance that queries find through band keys alone (default: the layout's, 0.8)",
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
							 "approximate index: bands and rows reaching this recall a little above the threshold option, a candidate sharing one key (default: exact)",
							 RECALL_NOT_GIVEN, 0.0, 1.0,
							 offsetof(MinHashGinOptions, recall));
	register_reloptions_validator(relopts, validate_options);
	PG_RETURN_VOID();
}
