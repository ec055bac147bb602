/*
 * minhash_guc.c
 *	  The settings: minhash.threshold, read by the % operator, and
 *	  minhash.group_memory, the memory near_dupe_groups() and
 *	  near_dupe_pairs() may hold; and minhash_threshold(), the first as a
 *	  number.
 *
 * minhash.group_memory is -1 by default: the limit is then
 * maintenance_work_mem, as autovacuum_work_mem's -1 is.  Both functions
 * hold a whole table's keys and signatures at once, like CREATE INDEX, and
 * maintenance_work_mem is what an administrator has already sized for one
 * such operation of a session; it is PGC_USERSET as well, so a user grouping
 * a large table raises either for the session.  One setting covers both
 * functions: they hold the same rows, and pairs are one more array.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "minhash.h"

double		minhash_similarity_threshold = 0.8;
int			minhash_group_memory = -1;	/* kB; -1: maintenance_work_mem */

void		_PG_init(void);

/* Smallest minhash.group_memory besides -1, in kB. */
#define GROUP_MEMORY_MIN 64

static bool
check_group_memory(int *newval, void **extra, GucSource source)
{
	if (*newval == -1 || *newval >= GROUP_MEMORY_MIN)
		return true;
	GUC_check_errdetail("minhash.group_memory must be -1 (use maintenance_work_mem) or at least %d kB.",
						GROUP_MEMORY_MIN);
	return false;
}

void
_PG_init(void)
{
	DefineCustomRealVariable("minhash.threshold",
							 "Sets the resemblance at or above which the % operator reports a near-duplicate.",
							 "Resemblance is the estimated fraction of shingles two documents share.",
							 &minhash_similarity_threshold,
							 0.8, 0.0, 1.0,
							 PGC_USERSET, 0,
							 NULL, NULL, NULL);
	DefineCustomIntVariable("minhash.group_memory",
							"Sets the most memory near_dupe_groups() and near_dupe_pairs() hold in memory.",
							"They hold every key and signature of the table in memory; beyond it they keep them and their arrays in a temporary file. -1 uses maintenance_work_mem.",
							&minhash_group_memory,
							-1, -1, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							check_group_memory, NULL, NULL);
	MarkGUCPrefixReserved("minhash");
}

PG_FUNCTION_INFO_V1(minhash_threshold);
/*
 * minhash_threshold(): minhash.threshold as the % operator reads it.
 * SHOW and current_setting() print a real setting to six significant
 * digits, so current_setting('minhash.threshold')::float8 may differ from
 * it; this is the value itself.  It is the default threshold of the
 * grouping functions, whose threshold is otherwise never null.
 */
Datum
minhash_threshold(PG_FUNCTION_ARGS)
{
	PG_RETURN_FLOAT8(minhash_similarity_threshold);
}
