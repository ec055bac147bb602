/*
 * minhash_guc.c
 *	  The minhash.threshold setting read by the % operator.
 */
#include "postgres.h"

#include "utils/guc.h"

#include "minhash.h"

double		minhash_similarity_threshold = 0.8;

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
#if PG_VERSION_NUM >= 150000
	MarkGUCPrefixReserved("minhash");
#else
	EmitWarningsOnPlaceholders("minhash");
#endif
}
