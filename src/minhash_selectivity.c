/*
 * minhash_selectivity.c
 *	  The restriction estimator of sig %> query and sig %~ query (and so of
 *	  resembles() and resembles_approx()): planning prepared statements whose
 *	  threshold the planner cannot see.
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
 * it is matchingsel.  A generic plan for minhash_query($1, 0.8) therefore
 * still uses the index, and one for minhash_query($1, $2) scans the table;
 * with plan_cache_mode = auto the plan cache keeps making custom plans while
 * they are cheaper than that.
 */
#include "postgres.h"

#include "catalog/pg_am.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "utils/fmgrprotos.h"
#include "utils/lsyscache.h"
#include "utils/selfuncs.h"

#include "minhash.h"

/* num_perm assumed for a column without a typmod: minhash()'s default. */
#define ASSUMED_NUM_PERM	128

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
	return matchingsel(fcinfo);
}
