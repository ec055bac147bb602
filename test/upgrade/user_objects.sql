-- A 1.0 user's objects over the extension, made before ALTER EXTENSION
-- minhash UPDATE (test/upgrade/fresh_vs_upgraded.sh runs this in the 1.0
-- database, then test/upgrade/user_objects_check.sql after the update).
-- Expects the tables docs (id, body, sig) and doc_groups (near_dupe_groups'
-- rows) of fresh_vs_upgraded.sh.
--
-- Made here, in schema user_space:
-- * a view over every function of the installed extension that returns a
--   set or a record (found in pg_proc, not listed by hand), each called
--   with only its arguments that have no default, the values taken by
--   parameter name and type from upgrade_example_args below (a function
--   with an argument that has no example value stops the test: add one);
-- * SQL functions of the user's that call the extension's functions: one
--   with a SQL-standard body (BEGIN ATOMIC, whose references PostgreSQL
--   records as dependencies, as it does a view's) and two with a string
--   body (checked only when called);
-- * what every one of them returns now, and the extension's members with
--   each function's result, to compare after the update.

SET client_min_messages = warning;
CREATE SCHEMA user_space;
SET search_path = user_space, public;

CREATE TABLE upgrade_example_args (name name, type regtype, value text, PRIMARY KEY (name, type));
INSERT INTO upgrade_example_args VALUES
	('threshold', 'double precision', '0.8'),
	('num_perm', 'integer', '128'),
	('source', 'regclass', $$'public.docs'$$),
	('key_column', 'name', $$'id'$$),
	('sig_column', 'name', $$'sig'$$),
	('text_column', 'name', $$'body'$$),
	('group_table', 'regclass', $$'public.doc_groups'$$),
	('group_id', 'bigint', '1'),
	('a', 'text', $$'the budget review of every office was late this year, said the memo'$$),
	('b', 'text', $$'the budget review of every office was early this year, said the memo'$$),
	('a', 'minhash', $$public.minhash('the budget review of every office was late this year, said the memo'::text)$$),
	('b', 'minhash', $$public.minhash('the budget review of every office was early this year, said the memo'::text)$$),
	('recall', 'double precision', '0.99'),
	('key_type', 'anyelement', 'NULL::text'),
	('key_type', 'regtype', $$'integer'$$),
	('key', 'text', $$'1'$$),
	('members', 'boolean', 'true'),
	('groups', 'regclass', $$'public.doc_groups'$$);

-- The views, one per function returning a set or a record.
CREATE TABLE upgrade_user_views (view_name name PRIMARY KEY, function_name name, function_identity text);
DO $$
DECLARE
	f record;
	call_args text[];
	arg record;
	value text;
	view_name name;
BEGIN
	FOR f IN
		SELECT p.oid, p.proname, p.oid::regprocedure::text AS identity
		  FROM pg_proc p JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
		   AND p.prokind = 'f'
		   -- helpers are not API (a user builds nothing on them)
		   AND (SELECT n.nspname FROM pg_namespace n WHERE n.oid = p.pronamespace) <> 'minhash_internal'
		   AND (p.proretset OR p.prorettype = 'record'::regtype
				OR (SELECT t.typtype FROM pg_type t WHERE t.oid = p.prorettype) = 'c')
		 ORDER BY p.oid::regprocedure::text
	LOOP
		call_args := '{}';
		-- Input arguments in order, the ones with no default only.
		FOR arg IN
			SELECT a.name, a.type
			  FROM (SELECT p.proargnames[o] AS name, t AS type, o
					  FROM pg_proc p, unnest(p.proargtypes::oid[]) WITH ORDINALITY u(t, o)
					 WHERE p.oid = f.oid AND p.proallargtypes IS NULL
					UNION ALL
					SELECT p.proargnames[o], t, o
					  FROM pg_proc p, unnest(p.proallargtypes, p.proargmodes) WITH ORDINALITY u(t, m, o)
					 WHERE p.oid = f.oid AND m IN ('i', 'b')) a
			 ORDER BY a.o
			 LIMIT (SELECT p.pronargs - p.pronargdefaults FROM pg_proc p WHERE p.oid = f.oid)
		LOOP
			SELECT e.value INTO value FROM upgrade_example_args e WHERE e.name = arg.name AND e.type = arg.type;
			IF NOT FOUND THEN
				RAISE EXCEPTION 'no example value for argument % (%) of %', arg.name, arg.type::regtype, f.identity
					USING HINT = 'Add one to upgrade_example_args in test/upgrade/user_objects.sql.';
			END IF;
			call_args := call_args || value;
		END LOOP;
		view_name := 'v_' || f.proname || '_' || (SELECT count(*) + 1 FROM upgrade_user_views u WHERE u.function_name = f.proname);
		EXECUTE format('CREATE VIEW %I AS SELECT * FROM public.%I(%s)', view_name, f.proname, array_to_string(call_args, ', '));
		INSERT INTO upgrade_user_views VALUES (view_name, f.proname, f.identity);
	END LOOP;
END $$;

-- The user's functions.
CREATE FUNCTION user_reviews_with_grouping(group_table regclass) RETURNS bigint
	LANGUAGE sql STABLE
BEGIN ATOMIC
	SELECT s.review_with_grouping FROM public.near_dupe_summary(group_table) s;
END;
CREATE FUNCTION user_group_marked(group_id bigint) RETURNS SETOF text
	LANGUAGE sql STABLE
	AS $$ SELECT d.key || ':' || d.role || ':' || d.marked
			FROM public.near_dupe_group_detail('public.doc_groups', 'public.docs', 'id', 'body', group_id) d $$;
CREATE FUNCTION user_layout_bands(threshold double precision) RETURNS integer
	LANGUAGE sql IMMUTABLE
	AS $$ SELECT l.bands FROM public.lsh_index_layout(threshold, 128) l $$;
CREATE VIEW v_user_functions AS
SELECT user_reviews_with_grouping('public.doc_groups') AS reviews_with_grouping,
	   (SELECT array_agg(m ORDER BY m) FROM user_group_marked(1) m) AS group_marked,
	   user_layout_bands(0.8) AS layout_bands;
INSERT INTO upgrade_user_views VALUES ('v_user_functions', NULL, NULL);

-- What 1.1 changes on purpose in the values of a 1.0 function's columns:
-- each such column is compared through the expression given (%I its name),
-- before and after the update alike.  Every other column must be equal.
CREATE TABLE upgrade_intended_changes (function_name name, column_name name, compared_as text, why text,
									   PRIMARY KEY (function_name, column_name));
INSERT INTO upgrade_intended_changes VALUES
	('near_dupe_histogram', 'bar', $$'bar'$$, 'the bar is drawn on a log scale, 40 wide'),
	('near_dupe_group_stats', 'avg_resemblance', 'round(%I::numeric, 3)', 'rounded to 3 decimals'),
	('near_dupe_group_stats', 'min_resemblance', 'round(%I::numeric, 3)', 'rounded to 3 decimals'),
	('near_dupe_group_detail', 'resemblance', 'round(%I::numeric, 3)', 'rounded to 3 decimals'),
	('near_dupe_group_detail', 's_l', 'round(%I::numeric, 3)', 'rounded to 3 decimals');

-- The rows of a view, as sorted text, each intended change applied.
CREATE FUNCTION upgrade_view_rows(view_name name) RETURNS text[]
	LANGUAGE plpgsql STABLE
	AS $$
DECLARE
	columns text;
	result text[];
BEGIN
	-- The Citus forms need a distributed table: their views hold only the
	-- dependency the update must keep.
	IF (SELECT u.function_name FROM upgrade_user_views u WHERE u.view_name = upgrade_view_rows.view_name) LIKE '%\_distributed' THEN
		RETURN NULL;
	END IF;
	SELECT string_agg(coalesce(format(c.compared_as, a.attname), format('%I', a.attname)), ', ' ORDER BY a.attnum)
	  INTO columns
	  FROM pg_attribute a
	  LEFT JOIN upgrade_user_views u ON u.view_name = upgrade_view_rows.view_name
	  LEFT JOIN upgrade_intended_changes c ON c.function_name = u.function_name AND c.column_name = a.attname
	 WHERE a.attrelid = format('%I', upgrade_view_rows.view_name)::regclass AND a.attnum > 0 AND NOT a.attisdropped;
	EXECUTE format('SELECT array_agg(r ORDER BY r) FROM (SELECT ROW(%s)::text AS r FROM %I) x', columns, upgrade_view_rows.view_name)
	  INTO result;
	RETURN coalesce(result, '{}');
END $$;

CREATE TABLE upgrade_rows_before AS
SELECT u.view_name, upgrade_view_rows(u.view_name) AS rows,
	   (SELECT string_agg(format('%s %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attnum)
		  FROM pg_attribute a WHERE a.attrelid = format('%I', u.view_name)::regclass AND a.attnum > 0) AS columns
  FROM upgrade_user_views u;

-- The extension's members, and each function's result.
CREATE TABLE upgrade_members_before AS
SELECT (pg_identify_object(d.classid, d.objid, d.objsubid)).identity AS identity,
	   (pg_identify_object(d.classid, d.objid, d.objsubid)).type AS type,
	   CASE WHEN d.classid = 'pg_proc'::regclass THEN pg_get_function_result(d.objid) END AS result
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash');

SELECT 'user objects: ' || (SELECT count(*) FROM upgrade_user_views WHERE function_name IS NOT NULL)
	   || ' views over functions returning a set or a record, 3 functions of the user''s';
