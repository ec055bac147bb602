/*
 * minhash_distributed.c
 *	  What the procedures near_dupe_pairs_distributed_into and
 *	  near_dupe_groups_distributed_into need from C.  They commit after each
 *	  step, so that the workers' disk holds one step's work at a time, and
 *	  COMMIT fails inside a transaction block; PL/pgSQL cannot tell that it
 *	  is in one, so they ask here before any work begins.
 */
#include "postgres.h"

#include "access/xact.h"
#include "utils/builtins.h"

#include "minhash.h"

PG_FUNCTION_INFO_V1(near_dupe_distributed_refuse_transaction_block);

Datum
near_dupe_distributed_refuse_transaction_block(PG_FUNCTION_ARGS)
{
	if (IsTransactionBlock())
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("%s cannot run inside a transaction block", text_to_cstring(PG_GETARG_TEXT_PP(0))),
				 errdetail("It commits after each step, so that the workers hold one step's work at a time."),
				 errhint("Run CALL on its own, outside BEGIN and COMMIT (from psycopg, with autocommit on).")));
	PG_RETURN_VOID();
}
