/*
 * minhash_selectivity.c
 *	  The restriction estimators of sig % q, sig %> query and sig %~ query
 *	  (and so of resembles() and resembles_approx()): statistics of mixed
 *	  signatures, and prepared statements whose threshold the planner cannot
 *	  see.
 *
 * Statistics of mixed signatures.  matchingsel, PostgreSQL's estimator for
 * such operators, runs the operator itself on the column's most common
 * values and histogram.  % and %> refuse a signature built with other
 * parameters than the query's, so over a column that holds some, matchingsel
 * would raise while planning (EXPLAIN included) and no query could be
 * planned at all.  The estimate below is matchingsel's
 * (generic_restriction_selectivity: the matching fraction of the common
 * values, and of the histogram for the rest) with a test that counts a
 * statistics value of other parameters as not matching instead of raising.
 * The error stays for the rows a query actually compares.
 *
 * The cost of a gin_minhash_ops scan depends on the threshold.  At or above
 * what the index's layout guarantees, a scan reads a few posting lists; below
 * it, extract_query asks GIN for every item (GIN_SEARCH_MODE_ALL), which
 * reads every posting list of the index (bands entries per row) and rechecks
 * every row: several times the work of a sequential scan.  PostgreSQL's GIN
 * cost estimate sees this only when the query is a constant at planning time
 * (it then calls extract_query).  In a generic plan (a prepared statement
 * after five executions, or plan_cache_mode = force_generic_plan) the query
 * is minhash_query($1, $2): GIN's estimate then assumes one key, and the
 * planner would take the index at any threshold.
 *
 * So when the operand is not a constant and every index on the column that
 * can serve the operator might read everything (the threshold is not known,
 * or is known and below what each gin_minhash_ops index narrows; a
 * gin_minhash_approx_ops index, which serves only %~, narrows at every
 * threshold), this estimator says the clause may keep every row:
 * selectivity 1, an upper bound, which prices the index above a sequential
 * scan.  Otherwise, and for constants (GIN's own estimate is right there),
 * it is the matching estimate above.  A generic plan for minhash_query($1, 0.8) therefore
 * still uses the index, and one for minhash_query($1, $2) scans the table;
 * with plan_cache_mode = auto the plan cache keeps making custom plans while
 * they are cheaper than that.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_am.h"
#include "catalog/pg_statistic.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "minhash.h"

/* num_perm assumed for a column without a typmod: minhash()'s default. */
#define ASSUMED_NUM_PERM	128

/*
 * Whether two signatures are near-duplicates at threshold, false when they
 * were built with other parameters: the test of a statistics value.
 */
static bool
statistic_matches(Datum value, const MinHash *query, double threshold)
{
	MinHash    *sig = DatumGetMinHashP(value);
	MhSummary	ss,
				sq;

	minhash_get_summary(sig, &ss);
	minhash_get_summary(query, &sq);
	if (mh_params_match(&ss.params, &sq.params) != MH_OK)
		return false;
	return mh_resembles(&ss, sig->values, &sq, query->values, threshold) != 0;
}

/* % on a statistics value: (minhash, minhash), minhash.threshold */
static Datum
statistic_similar(PG_FUNCTION_ARGS)
{
	PG_RETURN_BOOL(statistic_matches(PG_GETARG_DATUM(0), PG_GETARG_MINHASH_P(1),
									 minhash_similarity_threshold));
}

/* %> on a statistics value: (minhash, minhash_query) */
static Datum
statistic_query_match(PG_FUNCTION_ARGS)
{
	double		threshold;
	MinHash    *query = minhash_query_signature(PG_GETARG_DATUM(1), &threshold);

	PG_RETURN_BOOL(statistic_matches(PG_GETARG_DATUM(0), query, threshold));
}

/*
 * generic_restriction_selectivity with test in place of the operator's
 * function: the fraction of the column's rows for which the clause in args
 * holds, by the statistics, or DEFAULT_MATCHING_SEL when the other side is
 * not a constant or there are no statistics.  test is called as the
 * operator would be, its arguments in the operator's order.  It has no
 * catalog OID, so the statistics are read only where the user may read the
 * column (statistic_proc_security_check refuses an invalid OID as it
 * refuses the operators' functions, which are not leakproof).
 */
static double
matching_selectivity(PlannerInfo *root, List *args, int varRelid, PGFunction test)
{
	VariableStatData vardata;
	Node	   *other;
	bool		varonleft;
	double		selectivity;

	if (!get_restriction_variable(root, args, varRelid, &vardata, &other, &varonleft))
		return DEFAULT_MATCHING_SEL;
	if (!IsA(other, Const))
		selectivity = DEFAULT_MATCHING_SEL;
	else if (((Const *) other)->constisnull)
		selectivity = 0.0;		/* the operators are strict */
	else
	{
		Datum		constant = ((Const *) other)->constvalue;
		FmgrInfo	proc;
		double		common_sum;
		double		common_selectivity;
		double		null_fraction = 0.0;
		int			histogram_size;

		MemSet(&proc, 0, sizeof(proc));
		proc.fn_addr = test;
		proc.fn_oid = InvalidOid;
		proc.fn_nargs = 2;
		proc.fn_strict = true;
		proc.fn_mcxt = CurrentMemoryContext;

		common_selectivity = mcv_selectivity(&vardata, &proc, InvalidOid, constant, varonleft,
											 &common_sum);
		selectivity = histogram_selectivity(&vardata, &proc, InvalidOid, constant, varonleft,
											10, 1, &histogram_size);
		if (selectivity < 0)
			selectivity = DEFAULT_MATCHING_SEL;
		else if (histogram_size < 100)
		{
			/* a small histogram is trusted in proportion to its size */
			double		weight = histogram_size / 100.0;

			selectivity = selectivity * weight + DEFAULT_MATCHING_SEL * (1.0 - weight);
		}
		selectivity = Max(selectivity, 0.0001);
		selectivity = Min(selectivity, 0.9999);
		if (HeapTupleIsValid(vardata.statsTuple))
			null_fraction = ((Form_pg_statistic) GETSTRUCT(vardata.statsTuple))->stanullfrac;
		/* the histogram covers the non-null values outside the common ones */
		selectivity = selectivity * (1.0 - null_fraction - common_sum) + common_selectivity;
	}
	ReleaseVariableStats(vardata);
	CLAMP_PROBABILITY(selectivity);
	return selectivity;
}

PG_FUNCTION_INFO_V1(minhash_similar_restrict);
/* The restriction estimator of sig % q: matchingsel's, over mixed statistics. */
Datum
minhash_similar_restrict(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(matching_selectivity((PlannerInfo *) PG_GETARG_POINTER(0),
										  (List *) PG_GETARG_POINTER(2),
										  PG_GETARG_INT32(3), statistic_similar));
}

/* The threshold of a minhash_query(sig, <constant>) call, if it is one. */
static bool
constant_threshold(Node *query, Oid query_type, double *threshold)
{
	FuncExpr   *call;
	Node	   *argument;

	if (!IsA(query, FuncExpr))
		return false;
	call = (FuncExpr *) query;
	if (call->funcresulttype != query_type || list_length(call->args) != 2)
		return false;
	argument = (Node *) lsecond(call->args);
	if (!IsA(argument, Const) || ((Const *) argument)->consttype != FLOAT8OID ||
		((Const *) argument)->constisnull)
		return false;
	*threshold = DatumGetFloat8(((Const *) argument)->constvalue);
	return true;
}

/* Whether index's first column is the expression vardata describes. */
static bool
index_on(IndexOptInfo *index, VariableStatData *vardata)
{
	Node	   *expression = vardata->var;

	if (IsA(expression, RelabelType))
		expression = (Node *) ((RelabelType *) expression)->arg;
	if (index->indexkeys[0] != 0)
		return IsA(expression, Var) &&
			((Var *) expression)->varattno == index->indexkeys[0];
	return index->indexprs != NIL && equal(linitial(index->indexprs), expression);
}

/*
 * Whether every index on the column that serves the operator could read
 * every item for this operand: the threshold unknown (threshold_known
 * false), or below what each such index narrows.  False when the column has
 * no such index.  An index serves the operator when its operator family
 * holds it; one whose family lacks %> (gin_minhash_approx_ops) is
 * approximate and narrows at every threshold.
 */
static bool
index_may_read_everything(VariableStatData *vardata, Oid operator, Oid query_type,
						  bool threshold_known, double threshold)
{
	uint32		num_perm = vardata->atttypmod > 0 ? (uint32) vardata->atttypmod : ASSUMED_NUM_PERM;
	bool		indexed = false;
	ListCell   *cell;

	if (vardata->rel == NULL)
		return false;
	foreach(cell, vardata->rel->indexlist)
	{
		IndexOptInfo *index = (IndexOptInfo *) lfirst(cell);

		if (index->relam != GIN_AM_OID || index->ncolumns < 1 ||
			index->opcintype[0] != vardata->vartype || !index_on(index, vardata) ||
			!op_in_opfamily(operator, index->opfamily[0]))
			continue;
		indexed = true;
		if (!OidIsValid(get_opfamily_member(index->opfamily[0], index->opcintype[0], query_type,
											MINHASH_QUERY_STRATEGY)))
			return false;
		/* threshold unknown: no exact index narrows at every one (0) */
		if (threshold_known &&
			minhash_gin_narrows(index->opclassoptions ? index->opclassoptions[0] : NULL,
								num_perm, threshold))
			return false;
	}
	return indexed;
}

PG_FUNCTION_INFO_V1(minhash_query_restrict);
Datum
minhash_query_restrict(PG_FUNCTION_ARGS)
{
	PlannerInfo *root = (PlannerInfo *) PG_GETARG_POINTER(0);
	Oid			operator = PG_GETARG_OID(1);
	List	   *args = (List *) PG_GETARG_POINTER(2);
	int			varRelid = PG_GETARG_INT32(3);
	VariableStatData vardata;
	Node	   *operand;
	bool		varonleft;
	bool		unbounded = false;

	if (get_restriction_variable(root, args, varRelid, &vardata, &operand, &varonleft))
	{
		if (varonleft && !IsA(operand, Const))
		{
			double		threshold = 0;
			bool		known = constant_threshold(operand, exprType(lsecond(args)), &threshold);

			unbounded = index_may_read_everything(&vardata, operator, exprType(lsecond(args)),
												  known, threshold);
		}
		ReleaseVariableStats(vardata);
	}
	if (unbounded)
		PG_RETURN_FLOAT8(1.0);
	PG_RETURN_FLOAT8(matching_selectivity(root, args, varRelid, statistic_query_match));
}
