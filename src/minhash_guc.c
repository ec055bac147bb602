/*
 * minhash_guc.c
 *	  The settings: minhash.threshold, read by the % operator, and
 *	  minhash.group_memory, the memory near_dupe_groups() may hold; and
 *	  minhash_threshold(), the first as a number.
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "minhash.h"

double		minhash_similarity_threshold = 0.8;
int			minhash_group_memory = 1024 * 1024;	/* kB */

void		_PG_init(void);

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
							"Sets the most memory near_dupe_groups() may use.",
							"It holds every signature of the table in memory; a table that needs more is refused before it is read.",
							&minhash_group_memory,
							1024 * 1024, 64, MAX_KILOBYTES,
							PGC_USERSET, GUC_UNIT_KB,
							NULL, NULL, NULL);
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
