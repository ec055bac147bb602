/*
 * minhash_near_dupe_threshold.c
 *	  The threshold argument of near_dupe_groups() and near_dupe_pairs():
 *	  never null.
 *
 * Their threshold defaults to minhash_threshold(), the setting, so a null
 * one was given on purpose or by mistake, and the likely mistake is a key
 * type in the threshold's place: near_dupe_groups(source, key, sig,
 * NULL::bigint) resolves to the four-argument form with text keys, bigint
 * converting to double precision.  Grouping at the setting with text keys
 * would be an answer to another question; the error names the typed form.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_proc.h"
#include "nodes/pg_list.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"

#include "minhash.h"
#include "minhash_near_dupe.h"

/*
 * Whether the called function declares its threshold DEFAULT NULL, as
 * near_dupe_groups of minhash 1.0 did.  This library serves that definition
 * until ALTER EXTENSION minhash UPDATE, and there a null threshold is the
 * setting, as it was.  The 1.1 definitions default to minhash_threshold()
 * or have no default for it.
 */
static bool
threshold_defaults_to_null(Oid function)
{
	HeapTuple	tuple = SearchSysCache1(PROCOID, ObjectIdGetDatum(function));
	Form_pg_proc proc;
	bool		null_default = false;

	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for function %u", function);
	proc = (Form_pg_proc) GETSTRUCT(tuple);
	/* the threshold, argument 3, is the last of 1.0's four */
	if (proc->pronargs == 4 && proc->pronargdefaults == 1)
	{
		bool		isnull;
		Datum		defaults = SysCacheGetAttr(PROCOID, tuple, Anum_pg_proc_proargdefaults, &isnull);

		if (!isnull)
		{
			Node	   *threshold_default = linitial(castNode(List, stringToNode(TextDatumGetCString(defaults))));

			null_default = IsA(threshold_default, Const) && ((Const *) threshold_default)->constisnull;
		}
	}
	ReleaseSysCache(tuple);
	return null_default;
}

/*
 * Refuse a null threshold (argument `arg`: 3, or 4 after near_dupe_groups_append's
 * group table), saying what to write instead.
 */
void
minhash_near_dupe_check_threshold(FunctionCallInfo fcinfo, int arg)
{
	const char *function;
	const char *groups = arg == 4 ? "groups, " : "";

	if (!PG_ARGISNULL(arg) || threshold_defaults_to_null(fcinfo->flinfo->fn_oid))
		return;
	function = get_func_name(fcinfo->flinfo->fn_oid);
	if (PG_NARGS() == arg + 1)
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("threshold must not be null"),
				 errdetail("The %s argument of %s is the threshold: a key type in its place, such as NULL::bigint, is read as a null threshold.",
						   arg == 4 ? "fifth" : "fourth", function),
				 errhint("Give the key type after the threshold, as in %s(%ssource, key, sig, 0.8, NULL::bigint), or leave the threshold out for the setting minhash.threshold.",
						 function, groups)));
	ereport(ERROR,
			(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
			 errmsg("threshold must not be null"),
			 errhint("Give a threshold between 0 and 1, or minhash_threshold() for the setting minhash.threshold, as in %s(%ssource, key, sig, minhash_threshold(), NULL::bigint).",
					 function, groups)));
}
