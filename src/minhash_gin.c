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
 * The default layout (mh_guaranteed_layout) takes b = D + 3 bands for the
 * threshold option, rows = floor(n / b): at 0.8 and n = 128, 28 bands of 4
 * rows, and a row must share 3 of the 28 keys with the query.  Two bands
 * more than the pigeonhole minimum cost 8% more keys, and buy short keys: a
 * candidate now needs three chance collisions instead of one, so keys of 20
 * bits (default key_bits) select hardly any extra candidates even at a
 * million rows.  Short keys are what make the index small and quick to build:
 * GIN's build cost and size grow with the number of distinct keys, and 2^20
 * keys shared by many rows compress into posting lists.
 */
#include "postgres.h"

#include "access/gin.h"
#include "access/reloptions.h"
#include "access/stratnum.h"
#include "fmgr.h"

#include "minhash.h"

#define MINHASH_SIMILAR_STRATEGY	1	/* minhash % minhash */
#define MINHASH_QUERY_STRATEGY		2	/* minhash %> minhash_query */

#define DEFAULT_LAYOUT_THRESHOLD	0.8

typedef struct MinHashGinOptions
{
	int32		vl_len_;		/* varlena header (do not touch directly!) */
	int			bands;			/* 0: derived from threshold */
	int			rows;			/* 0: derived from threshold */
	double		threshold;		/* the lowest threshold served by keys alone */
	int			key_bits;		/* bits kept of each band key */
} MinHashGinOptions;

#define DEFAULT_KEY_BITS			20

/*
 * The band layout for signatures of num_perm values in this index, and the
 * bits kept of each key.
 */
static void
index_layout(FunctionCallInfo fcinfo, uint32 num_perm, uint32 *bands, uint32 *rows,
			 int *key_bits)
{
	int			option_bands = 0;
	int			option_rows = 0;
	double		threshold = DEFAULT_LAYOUT_THRESHOLD;

	*key_bits = DEFAULT_KEY_BITS;
	if (PG_HAS_OPCLASS_OPTIONS())
	{
		MinHashGinOptions *options = (MinHashGinOptions *) PG_GET_OPCLASS_OPTIONS();

		option_bands = options->bands;
		option_rows = options->rows;
		threshold = options->threshold;
		*key_bits = options->key_bits;
	}
	if (option_bands > 0)
	{
		minhash_check_layout(option_bands, option_rows, num_perm);
		*bands = (uint32) option_bands;
		*rows = (uint32) option_rows;
	}
	else if (mh_guaranteed_layout(threshold, num_perm, bands, rows) != MH_OK)
	{
		/* no layout guarantees this threshold: the one that comes closest */
		*bands = num_perm;
		*rows = 1;
	}
}

/*
 * The GIN keys of a signature: its band keys folded to 32 bits, of which
 * key_bits are kept.  Fewer bits make rows share keys, so GIN stores fewer,
 * longer (compressed) posting lists; the extra candidates are rechecked.
 */
static Datum *
band_entries(const MinHash *sig, uint32 bands, uint32 rows, int key_bits)
{
	uint32		mask = key_bits >= 32 ? PG_UINT32_MAX : ((uint32) 1 << key_bits) - 1;
	uint64	   *keys = palloc(sizeof(uint64) * bands);
	int32	   *folded = palloc(sizeof(int32) * bands);
	Datum	   *entries = palloc(sizeof(Datum) * bands);

	if (mh_band_keys(sig->values, sig->num_perm, bands, rows, keys) != MH_OK)
		elog(ERROR, "could not compute band keys");
	for (uint32 i = 0; i < bands; i++)
		folded[i] = (int32) ((uint32) (keys[i] ^ (keys[i] >> 32)) & mask);

	/*
	 * GIN sorts each item's keys with the int4 comparator called through
	 * fmgr; handing them over sorted makes that a single pass.
	 */
	minhash_sort_int32(folded, bands);
	for (uint32 i = 0; i < bands; i++)
		entries[i] = Int32GetDatum(folded[i]);
	pfree(keys);
	pfree(folded);
	return entries;
}

PG_FUNCTION_INFO_V1(minhash_gin_extract_value);
Datum
minhash_gin_extract_value(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	int32	   *nentries = (int32 *) PG_GETARG_POINTER(1);
	uint32		bands,
				rows;
	int			key_bits;

	index_layout(fcinfo, sig->num_perm, &bands, &rows, &key_bits);
	*nentries = (int32) bands;
	PG_RETURN_POINTER(band_entries(sig, bands, rows, key_bits));
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
	uint32		bands,
				rows,
				max_disagreements;
	int			key_bits;
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

	index_layout(fcinfo, sig->num_perm, &bands, &rows, &key_bits);
	max_disagreements = mh_max_disagreements(threshold, sig->num_perm);
	if (max_disagreements >= bands)
	{
		/* below what the layout guarantees: read everything, recheck all */
		*nentries = 0;
		*search_mode = GIN_SEARCH_MODE_ALL;
		PG_RETURN_POINTER(NULL);
	}

	required = palloc(sizeof(int32));
	*required = (int32) (bands - max_disagreements);
	*extra_data = palloc(sizeof(Pointer) * bands);
	for (uint32 i = 0; i < bands; i++)
		(*extra_data)[i] = (Pointer) required;
	*nentries = (int32) bands;
	PG_RETURN_POINTER(band_entries(sig, bands, rows, key_bits));
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

/* bands and rows come together, and replace the threshold option. */
static void
validate_options(void *parsed, relopt_value *values, int count)
{
	MinHashGinOptions *options = (MinHashGinOptions *) parsed;

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
}

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
							 "lowest resemblance that queries find through band keys alone",
							 DEFAULT_LAYOUT_THRESHOLD, 0.0, 1.0,
							 offsetof(MinHashGinOptions, threshold));
	add_local_int_reloption(relopts, "key_bits",
							"bits kept of each band key: fewer make a smaller index and more candidates",
							DEFAULT_KEY_BITS, 16, 32, offsetof(MinHashGinOptions, key_bits));
	register_reloptions_validator(relopts, validate_options);
	PG_RETURN_VOID();
}
