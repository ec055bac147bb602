/*
 * minhash_key_operators.c
 *	  near_dupe_key_operators(): the < and = of a key column's type, spelled
 *	  for the SQL that near_dupe_query and the reports build.
 *
 * Those functions pin search_path to pg_catalog, pg_temp, so an unqualified
 * key = $1 would not find the equality of a type whose operators live in
 * another schema (citext, contrib isn's isbn13), and key < other would
 * compare by some other type's order after an implicit cast.  The operators
 * come from the type cache, as ORDER BY, GROUP BY and near_dupe_groups' own
 * ranking find them (the type's default btree operator class, or for
 * equality its hash class), and are written OPERATOR(schema.name): the
 * query then compares keys exactly as near_dupe_groups does, whatever the
 * caller's path.
 */
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/pg_operator.h"
#include "funcapi.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"
#include "utils/syscache.h"
#include "utils/typcache.h"

#include "minhash.h"

/* OPERATOR(schema.name) for an operator, or NULL for InvalidOid. */
static text *
qualified_operator(Oid operator_oid)
{
	HeapTuple	tuple;
	Form_pg_operator operator;
	char	   *spelled;

	if (!OidIsValid(operator_oid))
		return NULL;
	tuple = SearchSysCache1(OPEROID, ObjectIdGetDatum(operator_oid));
	if (!HeapTupleIsValid(tuple))
		elog(ERROR, "cache lookup failed for operator %u", operator_oid);
	operator = (Form_pg_operator) GETSTRUCT(tuple);
	spelled = psprintf("OPERATOR(%s.%s)",
					   quote_identifier(get_namespace_name(operator->oprnamespace)),
					   NameStr(operator->oprname));
	ReleaseSysCache(tuple);
	return cstring_to_text(spelled);
}

PG_FUNCTION_INFO_V1(minhash_key_operators);
/*
 * near_dupe_key_operators(key_type regtype, OUT lt text, OUT eq text): the
 * type's ordering and equality operators as OPERATOR(schema.name); null
 * where the type has none.
 */
Datum
minhash_key_operators(PG_FUNCTION_ARGS)
{
	Oid			key_type = PG_GETARG_OID(0);
	TypeCacheEntry *type = lookup_type_cache(key_type, TYPECACHE_LT_OPR | TYPECACHE_EQ_OPR);
	TupleDesc	desc;
	Datum		values[2];
	bool		nulls[2];
	text	   *lt = qualified_operator(type->lt_opr);
	text	   *eq = qualified_operator(type->eq_opr);

	if (get_call_result_type(fcinfo, NULL, &desc) != TYPEFUNC_COMPOSITE)
		elog(ERROR, "return type must be a row type");
	desc = BlessTupleDesc(desc);
	values[0] = PointerGetDatum(lt);
	nulls[0] = lt == NULL;
	values[1] = PointerGetDatum(eq);
	nulls[1] = eq == NULL;
	PG_RETURN_DATUM(HeapTupleGetDatum(heap_form_tuple(desc, values, nulls)));
}
