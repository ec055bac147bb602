/*
 * minhash_near_dupe_append_groups.c
 *	  near_dupe_groups_append(): the group table.  Its columns and how its
 *	  keys compare with the source's, the lock that serializes appends to
 *	  it, its largest group_id and the lowest resemblance of a stored member,
 *	  and the refusal of a threshold that the stored grouping contradicts.
 */
#include "postgres.h"

#include <math.h>

#include "access/xact.h"
#include "access/xlog.h"
#include "catalog/pg_operator.h"
#include "catalog/pg_type.h"
#include "executor/spi.h"
#include "miscadmin.h"
#include "parser/parse_coerce.h"
#include "storage/lmgr.h"
#include "utils/acl.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
#include "utils/snapmgr.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "minhash.h"
#include "minhash_near_dupe_append.h"

/*
 * The source key type's own = (its domain's base type's), spelled
 * OPERATOR(schema.=) for the SQL that compares keys of that type.
 */
static char *
key_type_equality(const NearDupeCall *call)
{
	TypeCacheEntry *type = lookup_type_cache(getBaseType(call->key_type), TYPECACHE_EQ_OPR);
	HeapTuple	tuple;
	Form_pg_operator operator;
	char	   *spelled;

	if (!OidIsValid(type->eq_opr))
		ereport(ERROR,
				(errcode(ERRCODE_UNDEFINED_FUNCTION),
				 errmsg("could not identify an equality operator for type %s",
						format_type_be(call->key_type)),
				 errhint("Keys are matched to the group table's: use a key column of a type with a btree operator class.")));
	tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(type->eq_opr));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for operator %u", type->eq_opr);
	operator = (Form_pg_operator) GETSTRUCT(tuple);
	spelled = psprintf("OPERATOR(%s.%s)", quote_identifier(get_namespace_name(operator->oprnamespace)),
					   NameStr(operator->oprname));
	ReleaseSysCache(tuple);
	return spelled;
}

/*
 * The group table has group_id, key, pivot and resemblance as the reports
 * need them (near_dupe_group_table_problem), and its keys compare with the
 * source's: of the key column's own type (or its domain's base type), or
 * text, as near_dupe_groups writes them without key_type.  Run while SPI is
 * connected (by minhash_near_dupe_begin_at).
 */
void
minhash_append_check_group_table(NearDupeCall *call, Oid groups, const char *schema, GroupTable *table)
{
	Oid			types[1] = {REGCLASSOID};
	Datum		args[1] = {ObjectIdGetDatum(groups)};
	bool		isnull;
	Datum		sqlstate;
	Oid			key_type;
	MemoryContext old;

	/* near_dupe_groups_append came with 1.2: its helpers are in minhash_internal */
	if (SPI_execute_with_args("SELECT p.sqlstate, p.message FROM " MINHASH_INTERNAL_SCHEMA
							  ".near_dupe_group_table_problem($1, true) p",
							  1, types, args, NULL, true, 1) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "near_dupe_group_table_problem failed");
	sqlstate = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	if (!isnull)
	{
		char	   *code = TextDatumGetCString(sqlstate);

		ereport(ERROR,
				(errcode(MAKE_SQLSTATE(code[0], code[1], code[2], code[3], code[4])),
				 errmsg("%s", SPI_getvalue(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2)),
				 errhint(GROUP_TABLE_HINT)));
	}
	table->relation = groups;
	table->stored = NULL;
	table->lowest_member = 2.0;
	/* what the call keeps outlives SPI's memory */
	old = MemoryContextSwitchTo(call->context);
	table->name = quote_qualified_identifier(get_namespace_name(get_rel_namespace(groups)),
											 get_rel_name(groups));
	key_type = get_atttype(groups, get_attnum(groups, "key"));
	if (getBaseType(key_type) == getBaseType(call->key_type))
		table->by_text = false;
	else if (IsBinaryCoercible(key_type, TEXTOID))
		table->by_text = true;
	else
		ereport(ERROR,
				(errcode(ERRCODE_DATATYPE_MISMATCH),
				 errmsg("column \"key\" of relation \"%s\" is of type %s, which does not compare with column \"%s\" of relation \"%s\", of type %s",
						get_rel_name(groups), format_type_be(key_type), call->key_column,
						get_rel_name(call->relation), format_type_be(call->key_type)),
				 errhint("Append to the group table made from this source: its keys are of the key column's type (near_dupe_groups(..., NULL::%s)) or text (near_dupe_groups without key_type).",
						 format_type_be(call->key_type))));
	table->key_equal = key_type_equality(call);
	table->equal = table->by_text ? "OPERATOR(pg_catalog.=)" : table->key_equal;
	MemoryContextSwitchTo(old);
}

/*
 * Serializes appends to one group table, so that two at once never place a
 * key twice: SHARE UPDATE EXCLUSIVE conflicts with itself but not with
 * readers nor with the INSERT that stores the result (ROW EXCLUSIVE, which
 * INSERT INTO groups SELECT ... takes before the call runs), and is held to
 * the end of the transaction.  Only a caller who may insert into the group
 * table, outside a read-only transaction and a standby, takes it: others
 * cannot store what they read, and so cannot block those who do.  Under
 * READ COMMITTED the reads then take a snapshot taken after the lock (true:
 * pushed, for the caller to pop), so that they see what an append that held
 * it before committed; a transaction snapshot cannot, so there an append
 * that had to wait is refused (40001).
 */
bool
minhash_append_lock_group_table(const GroupTable *table)
{
	if (RecoveryInProgress() || XactReadOnly ||
		pg_class_aclcheck(table->relation, GetUserId(), ACL_INSERT) != ACLCHECK_OK)
		return false;
	if (!ConditionalLockRelationOid(table->relation, ShareUpdateExclusiveLock))
	{
		LockRelationOid(table->relation, ShareUpdateExclusiveLock);
		if (IsolationUsesXactSnapshot())
			ereport(ERROR,
					(errcode(ERRCODE_T_R_SERIALIZATION_FAILURE),
					 errmsg("could not serialize access due to a concurrent append to \"%s\"",
							get_rel_name(table->relation)),
					 errhint("Run the transaction again; in REPEATABLE READ or SERIALIZABLE, LOCK TABLE %s IN SHARE UPDATE EXCLUSIVE MODE before the first query.",
							 table->name)));
	}
	if (IsolationUsesXactSnapshot())
		return false;
	PushActiveSnapshot(GetTransactionSnapshot());
	return true;
}

/* The group table's key (alias g) or a key of the source as compared. */
const char *
minhash_append_compared(const GroupTable *table, const char *expression)
{
	return table->by_text ? psprintf("%s::pg_catalog.text", expression) : expression;
}

/*
 * A stored member's resemblance to its pivot (else null), as a query on the
 * group table (alias g) reads it.
 */
char *
minhash_append_member_resemblance(const GroupTable *table)
{
	return psprintf("CASE WHEN NOT (%s %s %s) THEN g.resemblance::pg_catalog.float8 END",
					minhash_append_compared(table, "g.key"), table->equal, minhash_append_compared(table, "g.pivot"));
}

/*
 * The largest stored group_id (0 for an empty group table) and the lowest
 * resemblance of a stored member, from the read of the stored keys where
 * there was one, else from one scan of the group table.  Run while SPI is
 * connected.
 */
int64
minhash_append_read_summary(GroupTable *table)
{
	bool		isnull;
	Datum		largest;
	Datum		lowest;

	if (table->stored != NULL)
		return table->stored->largest_group_id;
	if (SPI_execute(psprintf("SELECT pg_catalog.max(g.group_id)::pg_catalog.int8, pg_catalog.min(%s) FROM %s g",
							 minhash_append_member_resemblance(table), table->name),
					true, 0) != SPI_OK_SELECT || SPI_processed != 1)
		elog(ERROR, "reading the largest group_id failed");
	lowest = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 2, &isnull);
	if (!isnull)
		table->lowest_member = DatumGetFloat8(lowest);
	largest = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, 1, &isnull);
	return isnull ? 0 : Max(DatumGetInt64(largest), 0);
}

/*
 * Refuses a threshold that the stored grouping contradicts: a stored member
 * resembles its pivot below it, so the grouping was made at a lower one, and
 * new rows would join its groups by a rule its own members do not meet.
 * Resemblances are stored as agreeing values / num_perm; the margin absorbs
 * a float4 or numeric column's rounding of them.
 */
void
minhash_append_check_threshold(const NearDupeCall *call, const GroupTable *table)
{
	/* shown rounded down, so that the threshold the hint gives passes */
	double		lowest = floor(table->lowest_member * 1e6) / 1e6;

	if (table->lowest_member > 1.0 || table->lowest_member >= call->threshold - 1e-6)
		return;
	ereport(ERROR,
			(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
			 errmsg("threshold %g is above the resemblance of members of the stored grouping", call->threshold),
			 errdetail("A member of \"%s\" resembles its pivot at %g: the grouping was made at a threshold of at most %g.",
					   get_rel_name(table->relation), lowest, lowest),
			 errhint("Append at a threshold of at most %g, or group the whole source again at %g.",
					 lowest, call->threshold)));
}
