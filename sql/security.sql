-- Security: no function runs with its owner's rights, a plain user can use
-- every feature, and the extension's own SQL is immune to objects planted
-- in schemas earlier on the caller's search_path.

-- No SECURITY DEFINER function, no function that is not the extension's.
SELECT count(*) AS security_definer_functions
  FROM pg_proc p
  JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash') AND p.prosecdef;

-- A plain user (no superuser, no special rights) uses every feature on a
-- table of its own.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_reviewer') THEN
		CREATE ROLE minhash_reviewer NOSUPERUSER NOCREATEDB NOCREATEROLE;
	END IF;
END $$;
CREATE SCHEMA reviewer_space AUTHORIZATION minhash_reviewer;
SET ROLE minhash_reviewer;
SET search_path = reviewer_space, public;
CREATE TABLE memos (id int PRIMARY KEY, body text, sig minhash(128), duplicate_of int);
CREATE INDEX ON memos USING gin (sig);
CREATE TRIGGER memos_flag BEFORE INSERT OR UPDATE ON memos
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8');
INSERT INTO memos (id, body, sig)
SELECT i, b, minhash(b)
  FROM generate_series(1, 6) i,
       LATERAL (SELECT 'quarterly memo number ' || (i % 2) || ' about the budget review and the travel policy for all staff' AS b) x;
SELECT id, duplicate_of FROM memos ORDER BY id;
SELECT count(*) AS near_pairs FROM near_dupe_pairs('memos', 'id', 'sig');
CREATE TEMP TABLE memo_groups AS SELECT * FROM near_dupe_groups('memos', 'id', 'sig');
SELECT documents, groups FROM near_dupe_totals('memo_groups');
SELECT count(*) AS detail_rows FROM near_dupe_review('memo_groups', 'memos', 'id', 'body', 1);
SELECT resemblance(minhash_union(sig), minhash('quarterly memo number 1 about the budget review and the travel policy for all staff'::text)) > 0 AS union_works FROM memos;
SELECT s_j FROM chunk_similarity('a b c d e f g', 'a b c d e f h');
SELECT lower < upper AS interval_works FROM resemblance_interval(minhash('a b c d e f g'::text), minhash('a b c d e f h'::text));
DROP TABLE memo_groups;
RESET ROLE;
RESET search_path;

-- Objects planted in a schema that comes first on the search path, each a
-- better or equal match than the real one, do not change what the
-- extension's functions compute.
CREATE SCHEMA planted;
CREATE FUNCTION planted.always(minhash, minhash) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR planted.% (LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = planted.always);
CREATE FUNCTION planted.resemblance(minhash, minhash) RETURNS float8 LANGUAGE sql AS 'SELECT 1.0::float8';
CREATE FUNCTION planted.always_q(minhash, minhash_query) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR planted.%> (LEFTARG = minhash, RIGHTARG = minhash_query, FUNCTION = planted.always_q);
CREATE FUNCTION planted.minhash_bands(minhash, integer, integer) RETURNS bigint[] LANGUAGE sql AS 'SELECT ARRAY[1::bigint]';
CREATE FUNCTION planted.times(numeric, bigint) RETURNS numeric LANGUAGE sql AS 'SELECT -1::numeric';
CREATE OPERATOR planted.* (LEFTARG = numeric, RIGHTARG = bigint, FUNCTION = planted.times);
CREATE TABLE planted_docs (id int PRIMARY KEY, sig minhash);
INSERT INTO planted_docs SELECT i, minhash(('document ' || i || ' has its own words entirely distinct from the others ' || i)::text)
  FROM generate_series(1, 20) i;
-- What the answers are with a clean path.
SELECT count(*) AS pairs_clean FROM near_dupe_pairs('planted_docs', 'id', 'sig');
SELECT count(DISTINCT group_id) AS groups_clean FROM near_dupe_groups('planted_docs', 'id', 'sig');
SELECT count(*) AS resembles_clean FROM planted_docs a, planted_docs b WHERE resembles(a.sig, b.sig, 0.8);
SET search_path = planted, public;
-- The planted operator is in effect for plain queries ...
SELECT count(*) AS plain_query_sees_planted FROM planted_docs a, planted_docs b WHERE a.sig % b.sig;
-- ... but not inside the extension.
SELECT count(*) AS pairs FROM public.near_dupe_pairs('planted_docs', 'id', 'sig');
SELECT count(DISTINCT group_id) AS groups FROM public.near_dupe_groups('planted_docs', 'id', 'sig');
SELECT count(*) AS resembles FROM planted_docs a, planted_docs b WHERE public.resembles(a.sig, b.sig, 0.8);
RESET search_path;
DROP SCHEMA planted CASCADE;
DROP SCHEMA reviewer_space CASCADE;
DROP ROLE minhash_reviewer;

-- One search_path rule: no function of the extension resolves a name
-- through the caller's path.  A PL/pgSQL function pins its search_path to
-- pg_catalog, pg_temp.  A PL/pgSQL procedure may commit, and one that
-- commits may not carry a SET clause: each sets the path with set_config
-- as its first statement and again after each COMMIT.  A SQL function
-- (inlined by the planner, which a SET clause would stop) and a C function
-- (whose SQL, if it runs any, names every object by schema) carry no SET
-- clause; a SQL body may name operators and functions only with their
-- schema, OPERATOR(schema.op) and schema.function(...), with no cast and
-- no other operator (string literals aside).  Any function added against
-- the rule shows up here; the C functions that run SQL are run on a
-- hostile path below.
CREATE TEMP VIEW search_path_rule_violations AS
WITH extension_functions AS (
	SELECT p.oid::regprocedure AS fn, l.lanname, p.prokind, p.prosrc, p.proconfig,
		   regexp_replace(regexp_replace(regexp_replace(p.prosrc, '''[^'']*''', '''''', 'g'),
										 'OPERATOR\s*\(\s*\w+\s*\.\s*[^)\s]+\s*\)', ' ', 'g'),
						  '\m\w+\s*\.\s*\w+\s*\(', ' , (', 'g') AS unqualified_part
	  FROM pg_proc p
	  JOIN pg_language l ON l.oid = p.prolang
	  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
	 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
)
SELECT f.fn AS function,
	   CASE WHEN f.lanname = 'plpgsql' AND f.prokind = 'p' THEN 'procedure without set_config(''search_path'', ''pg_catalog, pg_temp'', true) first and after each COMMIT'
			WHEN f.lanname = 'plpgsql' THEN 'search_path not pinned to pg_catalog, pg_temp'
			WHEN f.proconfig IS NOT NULL THEN 'SET clause on a function in ' || f.lanname
			WHEN f.unqualified_part ~ '[-+*/<>=~!@#%^&|`?:]' THEN 'unqualified operator or cast in the body'
			ELSE 'unqualified function call in the body' END AS problem
  FROM extension_functions f
 WHERE CASE f.lanname
			WHEN 'plpgsql' THEN
				CASE WHEN f.prokind = 'p'
					 THEN f.proconfig IS NOT NULL
						  OR f.prosrc !~ '^\s*(DECLARE[^;]*(;[^;]*)*?)?\mBEGIN\s+PERFORM pg_catalog\.set_config\(''search_path'', ''pg_catalog, pg_temp'', true\);'
						  OR f.prosrc ~* 'COMMIT\s*;(?!\s*PERFORM pg_catalog\.set_config\(''search_path'', ''pg_catalog, pg_temp'', true\);)'
					 ELSE NOT coalesce('search_path=pg_catalog, pg_temp' = ANY (f.proconfig), false) END
			WHEN 'sql' THEN f.proconfig IS NOT NULL
							OR f.unqualified_part ~ '[-+*/<>=~!@#%^&|`?:]'
							OR f.unqualified_part ~ '\m\w+\s*\('
			ELSE f.proconfig IS NOT NULL END;
SELECT * FROM search_path_rule_violations ORDER BY function::text, problem;
-- The check sees a PL/pgSQL function added to the extension without a
-- pinned path, a procedure that commits without setting the path again, a
-- SQL body with an unqualified operator, and a pinned C function.
BEGIN;
CREATE FUNCTION public.minhash_unpinned_probe(a minhash) RETURNS bigint LANGUAGE plpgsql AS 'BEGIN RETURN public.minhash_size(a); END';
ALTER EXTENSION minhash ADD FUNCTION public.minhash_unpinned_probe(minhash);
CREATE PROCEDURE public.minhash_unpinned_procedure() LANGUAGE plpgsql
	AS 'BEGIN PERFORM pg_catalog.set_config(''search_path'', ''pg_catalog, pg_temp'', true); COMMIT; PERFORM public.minhash_size(NULL); END';
ALTER EXTENSION minhash ADD PROCEDURE public.minhash_unpinned_procedure();
CREATE OR REPLACE FUNCTION public.resembles(a minhash, b minhash, threshold double precision) RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$ SELECT a %> public.minhash_query(b, threshold) $$;
ALTER FUNCTION public.near_dupe_groups(regclass, name, name, double precision) SET search_path = pg_catalog, pg_temp;
SELECT * FROM search_path_rule_violations ORDER BY function::text, problem;
ROLLBACK;
-- The functions that are checked: every SQL and PL/pgSQL function, and how
-- many C functions.
SELECT p.oid::regprocedure AS function, l.lanname AS language, p.proconfig
  FROM pg_proc p
  JOIN pg_language l ON l.oid = p.prolang
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
   AND l.lanname IN ('sql', 'plpgsql')
 ORDER BY p.oid::regprocedure::text;
SELECT count(*) > 50 AS c_functions_checked
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
   AND p.prolang = (SELECT oid FROM pg_language WHERE lanname = 'c');

-- Planted code does not run.  A schema first on the caller's path holds,
-- each calling hijack.ran() (which raises a NOTICE, so that a hijack shows in
-- the output):
--   * an operator for every pair of common built-in types that pg_catalog
--     has no exact operator for (oid = regclass, oid <> regtype,
--     float8 >= integer, float8 - numeric, ...): the built-in one wins only
--     on an exact match, and pg_catalog is searched first;
--   * format() for the argument types the bodies pass it (format(text,
--     VARIADIC "any") is never an exact match), count(minhash);
--   * a copy of every function and operator of the extension, same name and
--     argument types (the extension's schema comes after it on the path).
-- Then every SQL and PL/pgSQL function, and the C functions that run SQL
-- (near_dupe_groups, near_dupe_pairs, the trigger), run on that path, down
-- their error branches too.
CREATE SCHEMA hijack;
CREATE FUNCTION hijack.ran(what text) RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
	RAISE NOTICE 'planted % ran as %', what, current_user;
END $$;
DO $$
DECLARE
	types text[] := ARRAY['oid', 'regclass', 'regtype', 'regproc', 'regnamespace', 'smallint', 'integer', 'bigint',
						  'real', 'double precision', 'numeric', 'text', 'name', '"char"', 'character varying',
						  'boolean', 'tid'];
	ops text[] := ARRAY['=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/'];
	l text;
	r text;
	op text;
	result text;
	n integer := 0;
BEGIN
	FOREACH l IN ARRAY types LOOP
		FOREACH r IN ARRAY types LOOP
			FOREACH op IN ARRAY ops LOOP
				CONTINUE WHEN EXISTS (SELECT FROM pg_catalog.pg_operator o
									   WHERE o.oprname = op AND o.oprleft = l::regtype AND o.oprright = r::regtype
										 AND o.oprnamespace = 'pg_catalog'::regnamespace);
				BEGIN
					EXECUTE format('SELECT pg_catalog.pg_typeof(NULL::%s OPERATOR(pg_catalog.%s) NULL::%s)::text', l, op, r)
						INTO result;
				EXCEPTION WHEN OTHERS THEN
					CONTINUE;	-- no built-in operator serves these types at all
				END;
				n := n + 1;
				EXECUTE format($f$CREATE FUNCTION hijack.planted_op_%s(%s, %s) RETURNS %s LANGUAGE plpgsql
								  SET search_path = pg_catalog AS $b$
								  BEGIN PERFORM hijack.ran(%L); RETURN $1 %s $2; END $b$ $f$,
							   n, l, r, result, format('operator %s %s %s', l, op, r), op);
				EXECUTE format('CREATE OPERATOR hijack.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = hijack.planted_op_%s)',
							   op, l, r, n);
			END LOOP;
		END LOOP;
	END LOOP;
	RAISE NOTICE 'planted % cross-type operators', CASE WHEN n > 400 THEN 'over 400' ELSE n::text END;
END $$;
DO $$
DECLARE
	signatures text[] := ARRAY['text', 'name', 'regclass', 'double precision', 'integer', 'bigint',
							   'name, regclass', 'name, double precision', 'bigint, regclass', 'regclass, name',
							   'name, regclass, name, text', 'text, name, name, regclass, text',
							   'integer, integer, integer, integer, integer, integer, text, text',
							   'regclass, name, name, integer, integer, integer, text, text'];
	args text;
BEGIN
	-- Each returns what the built-in format() does, so that the caller goes
	-- on and meets any other planted object.
	FOREACH args IN ARRAY signatures LOOP
		EXECUTE format($f$CREATE FUNCTION hijack.format(text, %s) RETURNS text LANGUAGE plpgsql
						  SET search_path = pg_catalog AS $b$
						  BEGIN PERFORM hijack.ran('format(text, %s)'); RETURN pg_catalog.format(%s); END $b$ $f$,
					   args, args,
					   (SELECT string_agg('$' || i, ', ') FROM generate_series(1, array_length(string_to_array(args, ','), 1) + 1) i));
	END LOOP;
END $$;
CREATE FUNCTION hijack.count_step(bigint, minhash) RETURNS bigint LANGUAGE plpgsql SET search_path = pg_catalog AS $$
BEGIN
	PERFORM hijack.ran('count(minhash)');
	RETURN $1 + 1;
END $$;
CREATE AGGREGATE hijack.count(minhash) (SFUNC = hijack.count_step, STYPE = bigint, INITCOND = '0');
-- Copies of the extension's functions (those PL/pgSQL can declare) and
-- operators.
DO $$
DECLARE
	f record;
	n integer := 0;
BEGIN
	FOR f IN
		SELECT p.proname, pg_catalog.pg_get_function_arguments(p.oid) AS args,
			   pg_catalog.pg_get_function_result(p.oid) AS result,
			   p.proretset OR p.proargmodes IS NOT NULL AS returns_rows
		  FROM pg_catalog.pg_proc p
		  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		 WHERE d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'minhash')
		   AND p.prokind = 'f'
		   AND NOT EXISTS (SELECT FROM pg_catalog.pg_type t
							WHERE t.typtype = 'p' AND (t.oid = p.prorettype OR t.oid = ANY (p.proargtypes)))
	LOOP
		EXECUTE format($f$CREATE FUNCTION hijack.%I(%s) RETURNS %s LANGUAGE plpgsql
						  SET search_path = pg_catalog AS $b$
						  BEGIN PERFORM hijack.ran(%L); RETURN%s; END $b$ $f$,
					   f.proname, f.args, f.result, f.proname || '()', CASE WHEN f.returns_rows THEN '' ELSE ' NULL' END);
		n := n + 1;
	END LOOP;
	FOR f IN
		SELECT o.oprname, o.oprleft::regtype AS l, o.oprright::regtype AS r, o.oprcode::regproc AS code,
			   o.oprresult::regtype AS result, n2.nspname
		  FROM pg_catalog.pg_operator o
		  JOIN pg_catalog.pg_namespace n2 ON n2.oid = o.oprnamespace
		  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_operator'::regclass AND d.objid = o.oid AND d.deptype = 'e'
		 WHERE d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'minhash')
	LOOP
		n := n + 1;
		EXECUTE format($f$CREATE FUNCTION hijack.planted_ext_op_%s(%s, %s) RETURNS %s LANGUAGE plpgsql
						  SET search_path = pg_catalog AS $b$
						  BEGIN PERFORM hijack.ran(%L); RETURN $1 OPERATOR(%I.%s) $2; END $b$ $f$,
					   n, f.l, f.r, f.result, format('operator %s %s %s', f.l, f.oprname, f.r), f.nspname, f.oprname);
		EXECUTE format('CREATE OPERATOR hijack.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = hijack.planted_ext_op_%s)',
					   f.oprname, f.l, f.r, n);
	END LOOP;
END $$;
-- The planted objects are in effect for plain queries on that path.
SET search_path = hijack, public;
SELECT 'pg_class'::regclass::oid = 'pg_class'::regclass AS plain_query_sees_planted;
RESET search_path;

-- A table with duplicates, a trigger, a view, mixed signatures.
CREATE TABLE hijack_docs (id int PRIMARY KEY, body text, sig minhash(128), duplicate_of int);
CREATE INDEX ON hijack_docs USING gin (sig);
CREATE TRIGGER hijack_docs_flag BEFORE INSERT OR UPDATE ON hijack_docs
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8');
CREATE TRIGGER hijack_docs_flag_locked BEFORE INSERT OR UPDATE ON hijack_docs
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8', 'id', 'lock');
CREATE VIEW hijack_view AS SELECT * FROM hijack_docs;
CREATE TABLE hijack_mixed (id int, sig minhash);
INSERT INTO hijack_mixed VALUES (1, minhash('a b c d e f g'::text)), (2, minhash('a b c d e f g'::text, 64));

SET search_path = hijack, public;
INSERT INTO hijack_docs (id, body, sig)
SELECT i, b, public.minhash(b)
  FROM generate_series(1, 8) i,
	   LATERAL (SELECT 'quarterly memo number ' || (i % 3) || ' about the budget review and the travel policy for all staff' AS b) x;
UPDATE hijack_docs SET body = body WHERE id = 1;
SELECT id, duplicate_of FROM hijack_docs ORDER BY id;
SELECT * FROM public.near_dupe_check('hijack_docs', 'id', 'sig', 0.8);
SELECT * FROM public.near_dupe_check('hijack_docs', 'id', 'sig', NULL);
SELECT * FROM public.near_dupe_check('hijack_docs', 'id', 'sig', 1.5);
SELECT * FROM public.near_dupe_check('hijack_view', 'id', 'sig', 0.8);
SELECT * FROM public.near_dupe_check('hijack_docs', 'no_such_column', 'sig', 0.8);
SELECT * FROM public.near_dupe_check('hijack_docs', 'id', 'body', 0.8);
SELECT * FROM public.near_dupe_check('hijack_mixed', 'id', 'sig', 0.8);
SELECT count(*) AS pairs FROM public.near_dupe_pairs('hijack_docs', 'id', 'sig', 0.8);
SELECT count(*) AS pairs_at_setting FROM public.near_dupe_pairs('hijack_docs', 'id', 'sig');
SELECT count(*) AS rows_grouped, max(group_id) AS groups FROM public.near_dupe_groups('hijack_docs', 'id', 'sig', 0.8);
SELECT count(*) AS rows_grouped_at_setting FROM public.near_dupe_groups('hijack_docs', 'id', 'sig');
SELECT * FROM public.near_dupe_groups('hijack_mixed', 'id', 'sig', 0.8);
-- The query texts near_dupe_query returns, run on this path too.
DO $$
DECLARE
	rows_returned bigint;
	threshold double precision;
	groups boolean;
BEGIN
	FOREACH threshold IN ARRAY ARRAY[0.8, NULL] LOOP
		FOREACH groups IN ARRAY ARRAY[false, true] LOOP
			EXECUTE 'SELECT pg_catalog.count(*) FROM (' ||
					CASE WHEN threshold IS NULL THEN public.near_dupe_query('hijack_docs', 'id', 'sig', groups => groups)
						 ELSE public.near_dupe_query('hijack_docs', 'id', 'sig', threshold, groups) END || ') q'
				INTO rows_returned;
			RAISE NOTICE 'near_dupe_query(threshold %, groups %): % rows', coalesce(threshold::text, 'omitted'), groups, rows_returned;
		END LOOP;
	END LOOP;
END $$;
CREATE TEMP TABLE hijack_groups AS SELECT * FROM public.near_dupe_groups('hijack_docs', 'id', 'sig', 0.8);
SELECT * FROM public.near_dupe_totals('hijack_groups');
SELECT group_size, groups, documents FROM public.near_dupe_histogram('hijack_groups');
SELECT group_id, pivot, size FROM public.near_dupe_group_stats('hijack_groups');
SELECT key, role FROM public.near_dupe_review('hijack_groups', 'hijack_docs', 'id', 'body', 1);
SELECT key, role FROM public.near_dupe_review('hijack_groups', 'hijack_docs', 'id', 'body', 1, 3, 'html');
SELECT key, role FROM public.near_dupe_review('hijack_groups', 'hijack_docs', 'id', 'body', 99);
SELECT key, role FROM public.near_dupe_review('hijack_groups', 'hijack_docs', 'id', 'no_such_column', 1);
-- The forms with 1.0's columns, on this path too.
SELECT * FROM public.near_dupe_summary('hijack_groups');
SELECT group_id, pivot, size FROM public.near_dupe_group_stats('hijack_groups', NULL::text);
SELECT key, role FROM public.near_dupe_group_detail('hijack_groups', 'hijack_docs', 'id', 'body', 1, 3, 'html');
-- Typed keys, and group tables the reports cannot read, on this path too.
SELECT count(*) AS typed_group_rows FROM public.near_dupe_groups('hijack_docs', 'id', 'sig', 0.8, NULL::integer);
SELECT count(*) AS typed_pairs FROM public.near_dupe_pairs('hijack_docs', 'id', 'sig', 0.8, NULL::integer);
SELECT * FROM public.near_dupe_groups('hijack_docs', 'id', 'sig', 0.8, NULL::bigint);
SELECT * FROM public.near_dupe_pairs('hijack_docs', 'id', 'sig', 0.8, NULL::bigint);
CREATE TEMP TABLE hijack_typed_groups AS SELECT * FROM public.near_dupe_groups('hijack_docs', 'id', 'sig', 0.8, NULL::integer);
SELECT group_id, pivot, size FROM public.near_dupe_group_stats('hijack_typed_groups');
SELECT key, role FROM public.near_dupe_review('hijack_typed_groups', 'hijack_docs', 'id', 'body', 1);
CREATE TEMP TABLE hijack_bad_groups (group_id text, key integer, pivot text, resemblance text);
SELECT * FROM public.near_dupe_totals('hijack_docs');
SELECT * FROM minhash_internal.near_dupe_group_table_problem('hijack_docs_pkey', false);
SELECT * FROM minhash_internal.near_dupe_group_table_problem('hijack_bad_groups', false);
ALTER TABLE hijack_bad_groups ALTER group_id TYPE smallint USING NULL;
SELECT * FROM minhash_internal.near_dupe_group_table_problem('hijack_bad_groups', false);
SELECT * FROM minhash_internal.near_dupe_group_table_problem('hijack_bad_groups', true);
ALTER TABLE hijack_bad_groups ALTER pivot TYPE integer USING NULL;
SELECT * FROM minhash_internal.near_dupe_group_table_problem('hijack_bad_groups', true);
ALTER TABLE hijack_bad_groups DROP resemblance;
SELECT * FROM minhash_internal.near_dupe_group_table_problem('hijack_bad_groups', true);
DROP TABLE hijack_typed_groups, hijack_bad_groups;
SELECT strpos(public.near_dupe_review_html('hijack_groups', 'hijack_docs', 'id', 'body', 1), '<mark data-chunk="1">') > 0 AS review_page;
SELECT public.near_dupe_review_html('hijack_groups', 'hijack_docs', 'id', 'body', 99);
SELECT count(*) AS resembles_pairs FROM hijack_docs a, hijack_docs b WHERE public.resembles(a.sig, b.sig, 0.8);
SELECT count(*) AS resembles_literal_pairs FROM hijack_docs a, hijack_docs b WHERE public.resembles(a.sig, b.sig::text, 0.8);
SELECT count(*) AS similar_literal_pairs FROM hijack_docs a, hijack_docs b WHERE a.sig OPERATOR(public.%) b.sig::text;
SELECT count(*) FROM hijack_docs WHERE public.resembles(sig, body, 0.8);
SELECT count(*) FROM hijack_docs WHERE sig OPERATOR(public.%) body;
SELECT count(*) AS resembles_approx_pairs FROM hijack_docs a, hijack_docs b WHERE public.resembles_approx(a.sig, b.sig, 0.8);
-- resembles() is still inlined into the indexable operator on this path.
-- PostgreSQL 17 and later print the subquery's value as (InitPlan 1).col1,
-- not $0: expected/security_1.out has that plan.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM hijack_docs WHERE public.resembles(sig, (SELECT sig FROM hijack_docs WHERE id = 2), 0.8);
RESET enable_seqscan;
RESET search_path;
DROP TABLE hijack_groups;
SET client_min_messages = warning;
DROP SCHEMA hijack CASCADE;
RESET client_min_messages;
DROP VIEW hijack_view;
DROP TABLE hijack_docs, hijack_mixed;
DROP VIEW search_path_rule_violations;

-- Under the pinned path, keys still compare by their own type's order when
-- its operators live outside pg_catalog: citext orders 'a' before 'B' where
-- text (collation "C") orders 'B' first.  key_a is the lesser key of each
-- pair, and the pivot of a tie on size is the lesser key, the same in the
-- query of near_dupe_query as in near_dupe_groups.
CREATE EXTENSION citext;
CREATE TABLE citext_keys (k citext COLLATE "C", sig minhash);
INSERT INTO citext_keys VALUES
	('B', minhash('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'::text)),
	('a', minhash('one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen thirty'::text)),
	('c', minhash('ten eleven twelve thirteen fourteen fifteen sixteen'::text));
SELECT k, minhash_size(sig) FROM citext_keys ORDER BY k;
SELECT * FROM near_dupe_pairs('citext_keys', 'k', 'sig', 0.8);
SELECT * FROM near_dupe_groups('citext_keys', 'k', 'sig', 0.8);
SET enable_hashagg = off;
SELECT near_dupe_query('citext_keys', 'k', 'sig', 0.8, true) AS groups_query \gset
-- The query's text, run on a path without the key type's schema (as
-- near_dupe_pairs runs its own under the pinned path).
SET search_path = pg_catalog, pg_temp;
:groups_query;
RESET search_path;
RESET enable_hashagg;
DROP TABLE citext_keys;
DROP EXTENSION citext;
