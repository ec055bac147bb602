/*
 * minhash_lsh.c
 *	  LSH banding in SQL: the band keys of a signature, the probability that
 *	  a pair becomes a candidate, and the choice of bands and rows.
 */
#include "postgres.h"

#include <math.h>

#include "access/htup_details.h"
#include "catalog/pg_type.h"
#include "funcapi.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/float.h"

#include "minhash.h"

/* Raise the error for a layout the core rejected. */
void
minhash_check_layout(int32 bands, int32 rows, uint32 num_perm)
{
	if (bands < 1 || rows < 1 ||
		mh_check_layout((uint32) bands, (uint32) rows, num_perm) != MH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("%d bands of %d rows do not fit in a signature of %u hash values",
						bands, rows, num_perm),
				 errhint("Bands and rows must be at least 1, and bands times rows at most the number of hash values.")));
}

PG_FUNCTION_INFO_V1(minhash_bands);
/* minhash_bands(sig, bands, rows): one 64-bit key per band */
Datum
minhash_bands(PG_FUNCTION_ARGS)
{
	MinHash    *sig = PG_GETARG_MINHASH_P(0);
	int32		bands = PG_GETARG_INT32(1);
	int32		rows = PG_GETARG_INT32(2);
	uint64	   *keys;
	Datum	   *datums;

	minhash_check_layout(bands, rows, sig->num_perm);
	keys = palloc(sizeof(uint64) * bands);
	if (mh_band_keys(sig->values, sig->num_perm, (uint32) bands, (uint32) rows, keys) != MH_OK)
		elog(ERROR, "could not compute band keys");
	datums = palloc(sizeof(Datum) * bands);
	for (int i = 0; i < bands; i++)
		datums[i] = Int64GetDatum((int64) keys[i]);
	PG_RETURN_ARRAYTYPE_P(construct_array(datums, bands, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE));
}

PG_FUNCTION_INFO_V1(minhash_lsh_probability);
/*
 * lsh_probability(similarity, bands, rows, min_bands) = P[at least min_bands
 * of the bands agree]; with min_bands = 1, 1 - (1 - s^r)^b.
 */
Datum
minhash_lsh_probability(PG_FUNCTION_ARGS)
{
	double		similarity = PG_GETARG_FLOAT8(0);
	int32		bands = PG_GETARG_INT32(1);
	int32		rows = PG_GETARG_INT32(2);
	int32		min_bands = PG_GETARG_INT32(3);

	if (mh_check_threshold(similarity) != MH_OK)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("similarity must be between 0 and 1"),
				 errdetail("The value given was %g.", similarity)));
	if (bands < 1 || rows < 1)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bands and rows must be at least 1")));
	/* the tail sum below takes up to bands terms, uninterruptibly */
	if (bands > MH_MAX_BANDS || rows > MH_MAX_NUM_PERM)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("bands and rows must be at most %d", MH_MAX_NUM_PERM),
				 errdetail("Bands were %d, rows %d; a signature holds at most %d hash values.",
						   bands, rows, MH_MAX_NUM_PERM)));
	if (min_bands < 1 || min_bands > bands)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("min_bands must be between 1 and the number of bands"),
				 errdetail("min_bands was %d, bands %d.", min_bands, bands)));
	PG_RETURN_FLOAT8(mh_lsh_probability_at_least(similarity, (uint32) bands, (uint32) rows,
												 (uint32) min_bands));
}

/*
 * Approximate mode's recall (recall => of near_dupe_groups and
 * near_dupe_pairs, lsh_index_layout): strictly between 0 and 1; NULL, not 0
 * or 1, asks for the exact result.
 */
double
minhash_check_recall(double recall)
{
	if (!(recall > 0.0 && recall < 1.0))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("recall must be between 0 and 1, exclusive"),
				 errdetail("The value given was %s.", float8out_internal(recall)),
				 errhint("Pass NULL for the exact result.")));
	return recall;
}

/*
 * The one rule for a threshold that chooses a band layout (index options,
 * lsh_index_layout, near_dupe_groups, near_dupe_pairs, near_dupe_query): in
 * (0, 1].  At 0 every pair qualifies and no layout narrows anything, so
 * refusing it beats a layout that reads everything.  Plain comparisons
 * (resembles, minhash_query, minhash.threshold) take [0, 1].
 * near_dupe_check raises the same error in SQL.
 */
double
minhash_check_layout_threshold(double threshold)
{
	minhash_check_threshold(threshold);
	if (threshold == 0.0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("threshold must be greater than 0 to choose a band layout"),
				 errdetail("At threshold 0 every pair of signatures qualifies, so no band layout narrows the search."),
				 errhint("Give a threshold greater than 0 and at most 1.")));
	return threshold;
}

/* The approximate layout for recall at threshold (mh_recall_layout), or an error. */
void
minhash_recall_layout(double threshold, double recall, uint32 num_perm,
					  uint32 *bands, uint32 *rows)
{
	MhStatus	status;

	minhash_check_layout_threshold(threshold);
	minhash_check_recall(recall);
	status = mh_recall_layout(threshold, recall, num_perm, bands, rows);
	if (status == MH_ERR_BANDS_RANGE)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("no band layout of %u hash values reaches recall %g at threshold %g",
						num_perm, recall, threshold),
				 errhint("Ask for a lower recall, or use signatures of more hash values.")));
	if (status != MH_OK)
		minhash_report_core_failure(status, "choose the approximate layout");
}

PG_FUNCTION_INFO_V1(minhash_lsh_index_layout);
/*
 * lsh_index_layout(threshold, num_perm, recall) -> (bands, rows, min_bands):
 * the layout gin_minhash_ops takes for its threshold option (in its default
 * layout version: the engine's one pigeonhole layout with that version's
 * spare bands), and how many bands a row at that threshold is sure to share
 * with the query.  With a recall (not null): the approximate layout of
 * gin_minhash_approx_ops (its default layout version) and of
 * near_dupe_groups(..., recall), mh_recall_layout, where a candidate shares
 * one band (min_bands 1, not a guarantee).  Not strict for recall's sake: a
 * null threshold or num_perm gives null.
 */
Datum
minhash_lsh_index_layout(PG_FUNCTION_ARGS)
{
	double		threshold;
	int32		num_perm;
	MhIndexLayoutVersion version;
	MhPigeonholeLayout layout;
	TupleDesc	tupdesc;
	Datum		values[3];
	bool		nulls[3] = {false, false, false};

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		PG_RETURN_NULL();
	threshold = minhash_check_layout_threshold(PG_GETARG_FLOAT8(0));
	num_perm = PG_GETARG_INT32(1);
	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
		minhash_report_params_error(MH_ERR_NUM_PERM_RANGE, num_perm, 0);
	if (PG_NARGS() > 2 && !PG_ARGISNULL(2))
	{
		uint32		bands,
					rows;

		minhash_recall_layout(threshold, PG_GETARG_FLOAT8(2), (uint32) num_perm, &bands, &rows);
		layout.bands = bands;
		layout.rows = rows;
		layout.min_bands = 1;
	}
	else if (mh_index_layout_version(MH_INDEX_LAYOUT_DEFAULT, &version) != MH_OK)
		elog(ERROR, "index layout %d is unknown", MH_INDEX_LAYOUT_DEFAULT);
	else if (mh_pigeonhole_layout(threshold, (uint32) num_perm, version.spare_bands, &layout) != MH_OK)
		elog(ERROR, "no pigeonhole layout at threshold %g", threshold);
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum((int32) layout.bands);
	values[1] = Int32GetDatum((int32) layout.rows);
	values[2] = Int32GetDatum((int32) layout.min_bands);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}

PG_FUNCTION_INFO_V1(minhash_lsh_params);
/*
 * lsh_params(threshold, num_perm, false_positive_weight, false_negative_weight)
 *	  -> (bands, rows, false_positive, false_negative)
 */
Datum
minhash_lsh_params(PG_FUNCTION_ARGS)
{
	double		threshold = minhash_check_threshold(PG_GETARG_FLOAT8(0));
	int32		num_perm = PG_GETARG_INT32(1);
	double		fp_weight = PG_GETARG_FLOAT8(2);
	double		fn_weight = PG_GETARG_FLOAT8(3);
	uint32		bands,
				rows;
	double		false_positive,
				false_negative;
	MhStatus	status;
	TupleDesc	tupdesc;
	Datum		values[4];
	bool		nulls[4] = {false, false, false, false};

	if (num_perm < MH_MIN_NUM_PERM || num_perm > MH_MAX_NUM_PERM)
		minhash_report_params_error(MH_ERR_NUM_PERM_RANGE, num_perm, 0);
	if (isinf(fp_weight) || isinf(fn_weight))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("false positive and false negative weights must be finite"),
				 errdetail("The weights given were %g and %g.", fp_weight, fn_weight)));
	if (isnan(fp_weight) || isnan(fn_weight) || fp_weight < 0 || fn_weight < 0 ||
		fp_weight + fn_weight <= 0)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("false positive and false negative weights must not be negative, and not both zero")));
	/* tens of thousands of layouts at 8,192: the search polls for a cancel */
	status = mh_lsh_params(threshold, (uint32) num_perm, fp_weight, fn_weight,
						   minhash_cancel_pending, NULL,
						   &bands, &rows, &false_positive, &false_negative);
	if (status == MH_ERR_INTERRUPTED)
		minhash_end_interrupted();
	if (status != MH_OK)
		minhash_report_core_failure(status, "choose LSH parameters");
	if (get_call_result_type(fcinfo, NULL, &tupdesc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	values[0] = Int32GetDatum((int32) bands);
	values[1] = Int32GetDatum((int32) rows);
	values[2] = Float8GetDatum(false_positive);
	values[3] = Float8GetDatum(false_negative);
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(BlessTupleDesc(tupdesc), values, nulls)));
}
