/* minhash--1.0--1.1.sql: from 1.0 to 1.1 (the hardening and everyday-use changes) */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.1'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql and then this script, so a
-- fresh install and an upgraded one run the same statements
-- (test/upgrade checks the two are identical object by object).  Sections by
-- concern; keep each change in its own section.

-------------------------------------------------------------------------------
-- Pinned search_path: no function body resolves a name through the
-- caller's path
-------------------------------------------------------------------------------

-- The PL/pgSQL functions of 1.0 that ran with the caller's search_path.  Their
-- bodies name the extension's objects through @extschema@ already; under the
-- pinned path an operator or function with no exact match in pg_catalog
-- (oid = regclass, float8 >= integer, format(unknown, name, regclass), ...)
-- can no longer be taken from a schema the caller put on the path.
-- resembles() stays unpinned, so that the planner can inline it into
-- sig %> minhash_query(b, threshold): its body qualifies every reference and
-- every argument has the exact type.  sql/security.sql checks both.
ALTER FUNCTION @extschema@.near_dupe_query(regclass, name, name, double precision, boolean)
	SET search_path = pg_catalog, pg_temp;
ALTER FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision)
	SET search_path = pg_catalog, pg_temp;

-- near_dupe_check as in 1.0, pinned, and naming the relation in its messages
-- by its name (a regclass prints schema-qualified under the pinned path).
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_check(source regclass, key_column name, sig_column name,
								threshold double precision,
								OUT row_count bigint, OUT signed bigint, OUT num_perm integer, OUT key_type oid)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	kind "char";
	relation name;
	sig_type oid;
	sig_typmod integer;
	stats record;
BEGIN
	IF source IS NULL OR key_column IS NULL OR sig_column IS NULL THEN
		RAISE EXCEPTION 'source, key column and signature column must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT c.relkind, c.relname INTO kind, relation FROM pg_catalog.pg_class c WHERE c.oid = source;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'relation with OID % does not exist', source::oid USING ERRCODE = 'undefined_table';
	END IF;
	IF kind = 'p' THEN
		RAISE EXCEPTION 'cannot group the rows of partitioned table "%"', relation
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Group each partition, or a table made from the partitioned table.';
	ELSIF kind NOT IN ('r', 'm') THEN
		RAISE EXCEPTION '"%" is not a table or materialized view', relation
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Rows are addressed by ctid: make a table from a view or query first.';
	END IF;
	SELECT a.atttypid INTO near_dupe_check.key_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', key_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	SELECT a.atttypid, a.atttypmod INTO sig_type, sig_typmod FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = sig_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', sig_column, relation
			USING ERRCODE = 'undefined_column';
	END IF;
	IF sig_type <> '@extschema@.minhash'::pg_catalog.regtype THEN
		RAISE EXCEPTION 'column "%" is of type %, not minhash', sig_column,
			pg_catalog.format_type(sig_type, sig_typmod)
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	IF threshold IS NOT NULL AND NOT (threshold BETWEEN 0 AND 1) THEN
		RAISE EXCEPTION 'resemblance threshold must be between 0 and 1'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given was %s.', threshold);
	END IF;

	-- Every signature must be comparable with every other: one parameter set.
	EXECUTE format($q$
		SELECT count(*) AS row_count, count(s.%1$I) AS signed,
			   min(@extschema@.minhash_num_perm(s.%1$I)) AS min_n, max(@extschema@.minhash_num_perm(s.%1$I)) AS max_n,
			   min(@extschema@.minhash_seed(s.%1$I)) AS min_seed, max(@extschema@.minhash_seed(s.%1$I)) AS max_seed,
			   min(coalesce(@extschema@.minhash_shingle_size(s.%1$I), 0)) FILTER (WHERE s.%1$I IS NOT NULL) AS min_k,
			   max(coalesce(@extschema@.minhash_shingle_size(s.%1$I), 0)) FILTER (WHERE s.%1$I IS NOT NULL) AS max_k,
			   min(@extschema@.minhash_kind(s.%1$I)) AS min_kind, max(@extschema@.minhash_kind(s.%1$I)) AS max_kind
		  FROM ONLY %2$s s$q$, sig_column, source) INTO stats;
	IF stats.min_n <> stats.max_n OR stats.min_seed <> stats.max_seed OR stats.min_k <> stats.max_k
	   OR stats.min_kind <> stats.max_kind THEN
		RAISE EXCEPTION 'column "%" holds minhash signatures built with different parameters', sig_column
			USING ERRCODE = 'data_exception',
				  DETAIL = format('Hash values %s to %s, seeds %s to %s, shingle sizes %s to %s, kinds %s to %s.',
								  stats.min_n, stats.max_n, stats.min_seed, stats.max_seed,
								  stats.min_k, stats.max_k, stats.min_kind, stats.max_kind),
				  HINT = 'Only signatures built the same way can be compared: group each parameter set separately.';
	END IF;

	row_count := stats.row_count;
	signed := stats.signed;
	num_perm := stats.min_n;
END
$function$;

-------------------------------------------------------------------------------
-- Estimation and signatures of mixed parameters
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Builders
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- The index layout
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Grouping
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- The trigger
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Explain and report functions
-------------------------------------------------------------------------------

