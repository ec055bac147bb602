/*
 * minhash_internal_schema.c
 *	  Where the SQL that the glue runs finds the extension's helper
 *	  functions: the schema minhash_internal from 1.2 on, the extension's
 *	  own schema in a database whose extension SQL is still older (this
 *	  library installed, ALTER EXTENSION minhash UPDATE not yet run).
 */
#include "postgres.h"

#include "catalog/dependency.h"
#include "catalog/namespace.h"
#include "catalog/pg_namespace.h"
#include "catalog/pg_proc.h"
#include "commands/extension.h"
#include "nodes/value.h"
#include "parser/parse_func.h"
#include "utils/builtins.h"
#include "utils/lsyscache.h"

#include "minhash.h"

/* Whether the function or schema (class_id, object_id) belongs to minhash. */
static bool
extension_member(Oid class_id, Oid object_id)
{
	Oid			extension = get_extension_oid("minhash", true);

	return OidIsValid(extension) && OidIsValid(object_id) &&
		getExtensionOfObject(class_id, object_id) == extension;
}

/*
 * The quoted schema of the extension's helper name(types), looked up first
 * in minhash_internal, then in extension_schema (the extension's own, where
 * older SQL keeps it); NULL when neither has it.  Only an object of the
 * extension counts: in a database still at 1.1, a schema minhash_internal
 * that someone else made, and what it holds, are never called into.
 */
const char *
minhash_helper_schema(const char *extension_schema, const char *name, int nargs, const Oid *types)
{
	const char *schemas[2] = {MINHASH_INTERNAL_SCHEMA, extension_schema};

	for (int i = 0; i < 2; i++)
	{
		Oid			function;

		if (i == 0 && !extension_member(NamespaceRelationId, get_namespace_oid(schemas[i], true)))
			continue;
		function = LookupFuncName(list_make2(makeString(pstrdup(schemas[i])), makeString(pstrdup(name))),
								  nargs, types, true);
		if (extension_member(ProcedureRelationId, function))
			return quote_identifier(schemas[i]);
	}
	return NULL;
}
