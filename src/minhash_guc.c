/*
 * minhash_guc.c
 *	  The settings: minhash.threshold, read by the % operator, and
 *	  minhash.group_memory, the memory near_dupe_groups() may hold.
 */
#include "postgres.h"

#include <limits.h>

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
