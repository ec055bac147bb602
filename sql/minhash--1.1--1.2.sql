/* minhash--1.1--1.2.sql: from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.2'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql, minhash--1.0--1.1.sql and
-- then this script, so a fresh install and an upgraded one run the same
-- statements (test/upgrade/fresh_vs_upgraded.sh checks the two are identical
-- object by object, from 1.0 and from 1.1).  Each object is created or
-- changed in one place, in sections by concern, with its one comment.
--
-- It never drops an object of 1.0 or 1.1: a user's view or function may
-- depend on any of them, and ALTER EXTENSION minhash UPDATE would then stop.
-- A shipped function keeps its arguments and its result and is changed only
-- by CREATE OR REPLACE; anything else is an overload that no older call can
-- reach, or a new name.

----- Helpers: not API -----

-- The functions that only serve other functions live in a schema of the
-- extension's own, minhash_internal, that is on nobody's search_path, so
-- that a user meets only the API the README's Reference lists; its USAGE
-- is granted to PUBLIC because every function runs with its caller's
-- rights, and a caller's EXECUTE of a helper is checked as for any call.
-- Plain CREATE SCHEMA: a schema of that name made by someone else stops the
-- update.  The functions that implement types, operators, opclasses and
-- aggregates stay with their objects.
CREATE SCHEMA minhash_internal;
GRANT USAGE ON SCHEMA minhash_internal TO PUBLIC;
COMMENT ON SCHEMA minhash_internal IS 'helper functions of the extension minhash, which its functions call: not API';

ALTER FUNCTION @extschema@.near_dupe_check_arguments(regclass, name, name, double precision) SET SCHEMA minhash_internal;
ALTER FUNCTION @extschema@.near_dupe_column_hint(regclass, name) SET SCHEMA minhash_internal;
ALTER FUNCTION @extschema@.near_dupe_document(regclass, name, name, text, bigint) SET SCHEMA minhash_internal;
ALTER FUNCTION @extschema@.near_dupe_group_table_problem(regclass, boolean) SET SCHEMA minhash_internal;
ALTER FUNCTION @extschema@.near_dupe_key_operators(regtype) SET SCHEMA minhash_internal;
ALTER FUNCTION @extschema@.minhash_literal_signature(text, text) SET SCHEMA minhash_internal;

-- The functions of 1.1 that call one, as in 1.1 but for the helper's
-- schema.
CREATE OR REPLACE FUNCTION minhash_internal.near_dupe_check_arguments(source regclass, key_column name, sig_column name,
								threshold double precision)
	RETURNS oid LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	kind "char";
	relation name;
	key_type oid;
	sig_type oid;
	sig_typmod integer;
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
				  HINT = pg_catalog.format('Group a table of its keys and signatures, made as in CREATE TEMP TABLE sigs AS SELECT %I, %I FROM %s; grouping each partition alone misses the pairs across partitions.', key_column, sig_column, source);
	ELSIF kind NOT IN ('r', 'm') THEN
		RAISE EXCEPTION '"%" is not a table or materialized view', relation
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Rows are addressed by ctid: make a table from a view or query first.';
	END IF;
	SELECT a.atttypid INTO key_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', key_column, relation
			USING ERRCODE = 'undefined_column', HINT = minhash_internal.near_dupe_column_hint(source, key_column);
	END IF;
	SELECT a.atttypid, a.atttypmod INTO sig_type, sig_typmod FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = sig_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', sig_column, relation
			USING ERRCODE = 'undefined_column', HINT = minhash_internal.near_dupe_column_hint(source, sig_column);
	END IF;
	IF sig_type <> '@extschema@.minhash'::pg_catalog.regtype THEN
		RAISE EXCEPTION 'column "%" is of type %, not minhash', sig_column,
			pg_catalog.format_type(sig_type, sig_typmod)
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	IF threshold IS NOT NULL AND NOT (threshold BETWEEN 0 AND 1) THEN
		RAISE EXCEPTION 'resemblance threshold must be between 0 and 1'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given was %s.', threshold);
	ELSIF threshold = 0 THEN
		RAISE EXCEPTION 'threshold must be greater than 0 to choose a band layout'
			USING ERRCODE = 'invalid_parameter_value', HINT = 'Give a threshold greater than 0 and at most 1.',
				  DETAIL = 'At threshold 0 every pair of signatures qualifies, so no band layout narrows the search.';
	END IF;
	RETURN key_type;
END
$function$;

CREATE OR REPLACE FUNCTION @extschema@.near_dupe_check(source regclass, key_column name, sig_column name,
								threshold double precision,
								OUT row_count bigint, OUT signed bigint, OUT num_perm integer, OUT key_type oid)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	stats record;
BEGIN
	near_dupe_check.key_type := minhash_internal.near_dupe_check_arguments(source, key_column, sig_column, threshold);

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

----- Reports count each document once -----

-- What a report needs beyond the group table's columns
-- (near_dupe_group_table_problem): that each key names one document.  A
-- key in two rows of the group table (two appends at once, a row inserted
-- twice) would be counted twice, and so would a key naming two rows of the
-- source, where a report reads the source (source not null).  Keys compare
-- as text, as near_dupe_groups wrote them; a null key names the one
-- document whose key is null, so a second null key is a repeated key.  A
-- report on one group (group_id not null) checks the rows it reads, that
-- group's; the others check the whole table.  A group table without a key
-- column (near_dupe_totals and near_dupe_histogram need group_id only) has
-- no key to repeat.  The problem comes back rather than raised, so that
-- each report raises it itself, without a stack of context lines.
CREATE FUNCTION minhash_internal.near_dupe_report_problem(group_table regclass, members boolean, group_id bigint,
													 source regclass, key_column name,
													 OUT sqlstate text, OUT message text, OUT hint text)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	shape record;
	repeated record;
	rows_read text;
	shown text;
BEGIN
	SELECT * INTO shape FROM minhash_internal.near_dupe_group_table_problem(group_table, members);
	IF shape.message IS NOT NULL THEN
		sqlstate := shape.sqlstate;
		message := shape.message;
		hint := 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
					WHERE a.attrelid = group_table AND a.attname = 'key' AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RETURN;
	END IF;
	rows_read := format('SELECT g.group_id::bigint AS group_id, g.key::text AS key FROM %s g', group_table)
				 || CASE WHEN group_id IS NULL THEN '' ELSE ' WHERE g.group_id = $1' END;

	EXECUTE format('SELECT r.key, pg_catalog.count(*) AS rows FROM (%s) r GROUP BY r.key HAVING pg_catalog.count(*) > 1 ORDER BY r.key LIMIT 1',
				   rows_read)
		INTO repeated USING group_id;
	IF repeated.rows IS NOT NULL THEN
		shown := CASE WHEN repeated.key IS NULL THEN 'NULL'
					  ELSE quote_literal(CASE WHEN length(repeated.key) > 40 THEN left(repeated.key, 40) || '...' ELSE repeated.key END) END;
		sqlstate := '21000';
		message := CASE WHEN group_id IS NULL THEN format('key %s is in %s rows of relation %s', shown, repeated.rows, group_table)
						ELSE format('key %s is in %s rows of group %s of relation %s', shown, repeated.rows, group_id, group_table) END;
		hint := format('A group table holds one row per document: delete the extra rows (SELECT key FROM %s GROUP BY key HAVING count(*) > 1 lists them), or group again.',
					   group_table);
		RETURN;
	END IF;
	IF source IS NULL THEN
		RETURN;
	END IF;

	-- Matched as (is null, text) pairs: a null key meets the null key, and
	-- the join stays a hash join.
	EXECUTE format($q$
		SELECT r.group_id, r.key
		  FROM (%1$s) r
		  JOIN %2$s s ON (s.%3$I IS NULL, coalesce(s.%3$I::text, '')) = (r.key IS NULL, coalesce(r.key, ''))
		 GROUP BY r.group_id, r.key HAVING pg_catalog.count(*) > 1
		 ORDER BY r.key LIMIT 1$q$, rows_read, source, key_column)
		INTO repeated USING group_id;
	IF repeated.group_id IS NOT NULL THEN
		shown := CASE WHEN repeated.key IS NULL THEN 'NULL'
					  ELSE quote_literal(CASE WHEN length(repeated.key) > 40 THEN left(repeated.key, 40) || '...' ELSE repeated.key END) END;
		sqlstate := '21000';
		message := format('key %s of group %s matches more than one row of relation %s', shown, repeated.group_id, source);
		hint := 'Reports find each document by its key: group by a column whose values are unique and not null, such as the primary key.';
	END IF;
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_report_problem(regclass, boolean, bigint, regclass, name) IS 'what every report checks first: the group table''s columns (near_dupe_group_table_problem), then that no key is in two of the rows it reads (of group group_id, or all) nor, with a source, names two rows of source; the SQLSTATE, message and hint of the first problem, or nulls';

-- The reports of 1.1 that read only the group table, with that check.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_totals(group_table regclass)
	RETURNS TABLE(documents bigint, groups bigint, singletons bigint, documents_in_groups bigint,
				  reviews_saved bigint, review_saved_pct numeric)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, false, NULL::bigint, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	RETURN QUERY EXECUTE format($q$
		SELECT count(*), count(DISTINCT g.group_id),
			   count(*) FILTER (WHERE s.size = 1), count(*) FILTER (WHERE s.size > 1),
			   count(*) - count(DISTINCT g.group_id),
			   CASE WHEN count(*) = 0 THEN 0::numeric
					ELSE round(100.0 * (count(*) - count(DISTINCT g.group_id)) / count(*), 1) END
		  FROM %1$s g JOIN (SELECT group_id, count(*) AS size FROM %1$s GROUP BY group_id) s USING (group_id)
		$q$, group_table);
END
$function$;

CREATE OR REPLACE FUNCTION @extschema@.near_dupe_histogram(group_table regclass)
	RETURNS TABLE(group_size bigint, groups bigint, documents bigint, bar text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, false, NULL::bigint, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	RETURN QUERY EXECUTE format($q$
		SELECT size, count(*), sum(size)::bigint,
			   repeat('#', ceil(40 * ln(count(*)::double precision + 1)
								/ ln(max(count(*)) OVER ()::double precision + 1))::integer)
		  FROM (SELECT group_id, count(*) AS size FROM %s GROUP BY group_id) s
		 GROUP BY size ORDER BY size
		$q$, group_table);
END
$function$;

CREATE OR REPLACE FUNCTION @extschema@.near_dupe_group_stats(group_table regclass, key_type anyelement)
	RETURNS TABLE(group_id bigint, pivot anyelement, size bigint, avg_resemblance double precision,
				  min_resemblance double precision)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
	result_type oid := pg_catalog.pg_typeof(key_type);
	pivot_type oid;
	pivot_base oid;
BEGIN
	IF group_table IS NULL THEN
		RAISE EXCEPTION 'group_table must not be null' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, NULL::bigint, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	SELECT a.atttypid INTO pivot_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = group_table AND a.attname = 'pivot' AND a.attnum > 0 AND NOT a.attisdropped;
	pivot_base := pivot_type;
	WHILE (SELECT t.typtype = 'd' FROM pg_catalog.pg_type t WHERE t.oid = pivot_base) LOOP
		SELECT t.typbasetype INTO pivot_base FROM pg_catalog.pg_type t WHERE t.oid = pivot_base;
	END LOOP;
	IF result_type NOT IN (pivot_type, pivot_base, 'pg_catalog.text'::pg_catalog.regtype) THEN
		RAISE EXCEPTION 'key_type % does not match column "pivot" of relation "%", of type %',
			result_type::pg_catalog.regtype, (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = group_table),
			pivot_type::pg_catalog.regtype
			USING ERRCODE = 'datatype_mismatch',
				  HINT = format('Pass NULL::%s as key_type (or NULL::text for the pivot as text).', pivot_type::pg_catalog.regtype);
	END IF;
	-- One aggregation, no sort of the whole table: the pivot's own row is
	-- left out by arithmetic.  Among the rows whose key is the pivot's (kp),
	-- it is the one with the highest resemblance (a null one first, as
	-- ORDER BY resemblance DESC takes it); the others are members.  One pivot
	-- per group; should a table hold several, the least as text.  The typed
	-- pivot is the row that prints as that one.
	RETURN QUERY EXECUTE format($q$
		WITH r AS (
			SELECT g.group_id::bigint AS group_id, g.pivot, g.pivot::text AS pivot_text,
				   g.resemblance::double precision AS resemblance,
				   g.key::text IS NOT DISTINCT FROM g.pivot::text AS kp
			  FROM %1$s g
		), s AS (
			SELECT r.group_id, pg_catalog.count(*) AS size, min(r.pivot_text) AS pivot_text,
				   CASE WHEN pg_catalog.count(*) FILTER (WHERE r.kp) = 0
							 OR pg_catalog.count(*) FILTER (WHERE r.kp AND r.resemblance IS NULL) > 0
						THEN sum(r.resemblance) / nullif(pg_catalog.count(r.resemblance), 0)
						ELSE (sum(r.resemblance) - max(r.resemblance) FILTER (WHERE r.kp))
							 / nullif(pg_catalog.count(r.resemblance) - 1, 0) END AS avg_resemblance,
				   CASE WHEN pg_catalog.count(*) FILTER (WHERE r.kp) = 0
							 OR pg_catalog.count(*) FILTER (WHERE r.kp AND r.resemblance IS NULL) > 0
						THEN min(r.resemblance)
						ELSE least(min(r.resemblance) FILTER (WHERE NOT r.kp),
								   CASE WHEN pg_catalog.count(*) FILTER (WHERE r.kp) > 1
										THEN min(r.resemblance) FILTER (WHERE r.kp) END) END AS min_resemblance
			  FROM r GROUP BY r.group_id HAVING pg_catalog.count(*) > 1
		)
		SELECT s.group_id, %2$s, s.size,
			   round(s.avg_resemblance::numeric, 3)::double precision,
			   round(s.min_resemblance::numeric, 3)::double precision
		  FROM s%3$s
		 ORDER BY s.size DESC, s.group_id
		$q$, group_table,
		CASE WHEN result_type = 'pg_catalog.text'::pg_catalog.regtype THEN 's.pivot_text'
			 ELSE format('CAST(p.pivot AS %s)', pg_catalog.format_type(result_type, NULL)) END,
		CASE WHEN result_type = 'pg_catalog.text'::pg_catalog.regtype THEN ''
			 ELSE ' LEFT JOIN (SELECT DISTINCT ON (r.group_id) r.group_id, r.pivot FROM r ORDER BY r.group_id, r.pivot_text) p'
				  || ' ON p.group_id = s.group_id' END);
END
$function$;

CREATE OR REPLACE FUNCTION @extschema@.minhash_similar_text(a @extschema@.minhash, b text) RETURNS boolean
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	AS $$ SELECT a OPERATOR(@extschema@.%) minhash_internal.minhash_literal_signature(b, '%') $$;

CREATE OR REPLACE FUNCTION @extschema@.resembles(a @extschema@.minhash, b text, threshold double precision) RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$ SELECT a OPERATOR(@extschema@.%>) @extschema@.minhash_query(minhash_internal.minhash_literal_signature(b, 'resembles'), threshold) $$;

-- near_dupe_document, besides, passes its key type to
-- near_dupe_key_operators as the regtype it takes.
CREATE OR REPLACE FUNCTION minhash_internal.near_dupe_document(source regclass, key_column name, text_column name,
											   key text, group_id bigint,
											   OUT document text, OUT sqlstate text, OUT message text, OUT hint text)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	key_type oid;
	key_eq text;
	condition text;
	found_row record;
	exact boolean;
	matches integer := 0;
	shown text := CASE WHEN key IS NULL THEN 'NULL'
					   ELSE quote_literal(CASE WHEN length(key) > 40 THEN left(key, 40) || '...' ELSE key END) END;
BEGIN
	IF source IS NULL OR key_column IS NULL OR text_column IS NULL THEN
		sqlstate := '22004';
		message := 'source, key column and text column must not be null';
		RETURN;
	END IF;
	SELECT a.atttypid INTO key_type FROM pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF key_type IS NULL THEN
		sqlstate := '42703';
		message := format('column "%s" of relation %s does not exist', key_column, source);
		hint := minhash_internal.near_dupe_column_hint(source, key_column);
		RETURN;
	END IF;
	IF key IS NULL THEN
		condition := format('s.%I IS NULL', key_column);
	ELSE
		SELECT o.eq INTO key_eq FROM minhash_internal.near_dupe_key_operators(key_type::regtype) o;
		IF key_eq IS NULL THEN
			sqlstate := '42883';
			message := format('could not identify an equality operator for type %s', format_type(key_type, NULL));
			hint := 'The report finds each document by its key: use a key column of a type with equality.';
			RETURN;
		END IF;
		-- the column's type without its typmod: a cast to varchar(n) would cut the key
		condition := format('s.%1$I %2$s CAST($1 AS %3$s)', key_column, key_eq, format_type(key_type, NULL));
	END IF;
	FOR found_row IN EXECUTE format('SELECT s.%1$I::text AS document, s.%2$I::text IS NOT DISTINCT FROM $1 AS exact FROM %3$s s WHERE %4$s ORDER BY 2 DESC LIMIT 2',
									text_column, key_column, source, condition)
			USING key LOOP
		matches := matches + 1;
		IF matches = 1 THEN
			document := found_row.document;
			exact := found_row.exact;
		ELSIF found_row.exact OR NOT exact THEN
			document := NULL;
			sqlstate := '21000';
			message := format('key %s of group %s matches more than one row of relation %s', shown, group_id, source);
			hint := 'Reports find each document by its key: group by a column whose values are unique and not null, such as the primary key.';
		END IF;
	END LOOP;
	IF matches = 0 THEN
		sqlstate := '02000';
		message := format('key %s of group %s not found in relation %s', shown, group_id, source);
		hint := 'Name the table the groups were made from; if rows were deleted since, group again.';
	END IF;
END
$function$;

----- Review pages a reviewer can finish -----

-- One member beside its pivot for near_dupe_review_html: both texts marked
-- as highlight() marks them, the words of one side only wrapped in anchors
-- that a list of differences links to, long shared passages folded in
-- <details>, and each side held to a budget of bytes (what is left out is
-- counted, and said on the page where it is).  Everything from the texts is
-- HTML-escaped.  An empty anchor draws the pivot alone, without anchors.
CREATE FUNCTION minhash_internal.review_pair_html(pivot text, member text, min_words integer, anchor text,
											 pivot_budget bigint, member_budget bigint,
											 fold_bytes integer DEFAULT 1600, max_differences integer DEFAULT 100)
	RETURNS TABLE(pivot_html text, member_html text, differences_html text, differences bigint,
				  common_words integer, s_l double precision, pivot_cut bigint, member_cut bigint)
	AS 'MODULE_PATHNAME', 'minhash_review_pair_html' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;

COMMENT ON FUNCTION minhash_internal.review_pair_html(text, text, integer, text, bigint, bigint, integer, integer) IS 'one member beside its pivot as HTML, for review pages: shared chunks marked alike, text of one side only anchored (ANCHOR-pN, ANCHOR-mN) and listed as inserted, removed or replaced, chunks over fold_bytes folded in <details>, each side cut to its budget of escaped bytes (the bytes left out in pivot_cut and member_cut)';

-- One group as a page a reviewer can finish, each document named by a
-- column of the user's (a path, a subject, a Bates number) beside its key.
-- Members with exactly the pivot's text (byte for byte: a member that only
-- differs in spacing or case is shown, as one shared passage, folded) are
-- one line that lists them.  The others stand beside the pivot, each with
-- its list of differences linked to where they are.  max_text_bytes bounds
-- the document text on the page: each side of each pair gets an equal share
-- of it, those under their share giving the rest to the others, and at most
-- max_text_bytes / 16384 members are drawn (the rest are listed); a note at
-- the top says what was left out, member by member.  Seven arguments at
-- least, so that no call of the six-argument form reaches it.
CREATE FUNCTION @extschema@.near_dupe_review_html(group_table regclass, source regclass, key_column name, text_column name,
												  group_id bigint, min_words integer, label_column name,
												  max_text_bytes bigint DEFAULT 2097152)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	problem record;
	found record;
	member record;
	pair record;
	column_name name;
	group_rows bigint;
	pivots bigint;
	pivot_key text;
	pivot_text text;
	pivot_size bigint;
	pivot_doc text;
	member_text text;
	labelled boolean := label_column <> key_column;
	keys text[] := '{}';
	labels text[] := '{}';
	resemblances double precision[] := '{}';
	sizes bigint[] := '{}';
	identical text[] := '{}';
	identical_count bigint := 0;
	shown_max integer := greatest(1, least(max_text_bytes / 16384, 100000))::integer;
	member_count bigint := 0;
	resemblance_sum double precision := 0;
	resemblance_min double precision;
	level bigint;
	remaining bigint;
	sides bigint;
	side_size bigint;
	i integer;
	doc text;
	sections text := '';
	cuts text := '';
	unshown text := '';
	unshown_count integer := 0;
	cut_total bigint := 0;
	heading text;
	body text;
BEGIN
	IF max_text_bytes < 16384 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('max_text_bytes must be at least 16384, not %s', max_text_bytes),
			HINT = 'Give the bytes of document text the page may show, 2097152 (2 MB) by default.';
	END IF;
	IF min_words < 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'min_words must be at least 1', HINT = 'Shared passages are chunks of at least min_words words; 5 by default.';
	END IF;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, group_id, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	FOREACH column_name IN ARRAY ARRAY[key_column, text_column, label_column] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = minhash_internal.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;

	EXECUTE format('SELECT count(*), count(DISTINCT g.pivot::text) + (count(*) > count(g.pivot))::integer, min(g.pivot::text) FROM %s g WHERE g.group_id = $1',
				   group_table)
		INTO group_rows, pivots, pivot_key USING group_id;
	IF group_rows = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'no_data_found',
			MESSAGE = format('group %s not found in %s', group_id, group_table),
			HINT = 'Give a group_id of the group table: near_dupe_review_index_html lists them.';
	ELSIF pivots > 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'data_exception',
			MESSAGE = format('group %s of %s has %s different pivots', group_id, group_table, pivots),
			HINT = 'A group table holds the rows of near_dupe_groups, one pivot per group: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, pivot_key, group_id);
	IF found.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
	END IF;
	-- a null text is drawn as an empty one
	pivot_text := coalesce(found.document, '');
	pivot_size := octet_length(pivot_text);
	pivot_doc := minhash_internal.review_document_html(pivot_key,
		CASE WHEN labelled THEN (minhash_internal.near_dupe_document(source, key_column, label_column, pivot_key, group_id)).document END);

	-- First pass: which members are the pivot's text, and the others' sizes
	-- (their texts are read again one at a time when drawn, so that the
	-- call never holds more than a pair).
	FOR member IN EXECUTE format($q$
		SELECT m.key, m.resemblance
		  FROM (SELECT g.key::text AS key, g.key AS typed_key, g.resemblance::double precision AS resemblance,
					   g.key::text IS NOT DISTINCT FROM g.pivot::text
					   AND row_number() OVER (PARTITION BY g.key::text IS NOT DISTINCT FROM g.pivot::text
											  ORDER BY g.resemblance DESC) = 1 AS pivot_row
				  FROM %s g WHERE g.group_id = $1) m
		 WHERE NOT m.pivot_row
		 ORDER BY m.resemblance DESC, m.typed_key$q$, group_table)
			USING group_id LOOP
		SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, member.key, group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		member_count := member_count + 1;
		resemblance_sum := resemblance_sum + member.resemblance;
		resemblance_min := least(resemblance_min, member.resemblance);
		doc := minhash_internal.review_document_html(member.key,
			CASE WHEN labelled THEN (minhash_internal.near_dupe_document(source, key_column, label_column, member.key, group_id)).document END);
		-- byte for byte: a collation may call texts equal that are not
		IF coalesce(found.document, '') COLLATE "C" = pivot_text COLLATE "C" THEN
			identical_count := identical_count + 1;
			IF identical_count <= 1000 THEN
				identical := identical || doc;
			END IF;
		ELSIF cardinality(keys) < shown_max THEN
			keys := keys || member.key;
			labels := labels || doc;
			resemblances := resemblances || member.resemblance;
			sizes := sizes || octet_length(coalesce(found.document, ''))::bigint;
		ELSE
			unshown_count := unshown_count + 1;
			IF unshown_count <= 1000 THEN
				unshown := unshown || format('<li>%s, resemblance %s</li>', doc, round(member.resemblance::numeric, 3));
			END IF;
		END IF;
	END LOOP;

	-- Each side's share of max_text_bytes: sides under the level keep all
	-- of their text, and what they leave is shared among the others.
	remaining := max_text_bytes;
	sides := 2 * cardinality(keys);
	IF sides = 0 THEN
		level := max_text_bytes;
	ELSIF (SELECT sum(s) FROM unnest(sizes) s) + pivot_size * cardinality(keys) <= max_text_bytes THEN
		level := max_text_bytes;
	ELSE
		FOR side_size IN SELECT s FROM (SELECT unnest(sizes) AS s UNION ALL SELECT pivot_size FROM generate_series(1, cardinality(keys))) u ORDER BY s LOOP
			EXIT WHEN side_size * sides > remaining;
			remaining := remaining - side_size;
			sides := sides - 1;
		END LOOP;
		level := CASE WHEN sides = 0 THEN max_text_bytes ELSE remaining / sides END;
	END IF;

	FOR i IN 1 .. cardinality(keys) LOOP
		SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, keys[i], group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		SELECT * INTO pair FROM minhash_internal.review_pair_html(pivot_text, coalesce(found.document, ''::text), min_words, 'm' || i, level, level, 1600, 100);
		IF pair.pivot_cut > 0 OR pair.member_cut > 0 THEN
			cuts := cuts || format('<li><a href="#m%s">%s</a>: %s bytes of the pivot and %s bytes of the member not shown</li>',
								   i, labels[i], pair.pivot_cut, pair.member_cut);
			cut_total := cut_total + pair.pivot_cut + pair.member_cut;
		END IF;
		sections := sections || format($member$<section class="member" id="m%1$s">
<h2>Member %2$s <span class="figures">resemblance %3$s &middot; %4$s words in shared chunks &middot; S<sub>L</sub> %5$s &middot; %6$s</span></h2>
<div class="changes"><h3>Differences from the pivot</h3>%7$s</div>
<div class="pair">
<div class="side pivot"><h3>Pivot %8$s</h3><div class="text">%9$s</div></div>
<div class="side other"><h3>Member %2$s</h3><div class="text">%10$s</div></div>
</div>
</section>
$member$,
			i, labels[i], round(resemblances[i]::numeric, 3), pair.common_words, round(pair.s_l::numeric, 3),
			CASE pair.differences WHEN 0 THEN 'no difference in the words' WHEN 1 THEN '1 difference'
				 ELSE pair.differences || ' differences' END,
			CASE WHEN pair.differences = 0
				 THEN '<p class="no-differences">The same words as the pivot: only spacing, punctuation or letter case differ.</p>'
				 ELSE pair.differences_html END,
			pivot_doc, pair.pivot_html, pair.member_html);
	END LOOP;

	IF cardinality(keys) = 0 THEN
		-- The pivot alone (a group of one, or every member the pivot's text).
		SELECT * INTO pair FROM minhash_internal.review_pair_html(pivot_text, ''::text, min_words, ''::text, level, level, 1600, 100);
		IF pair.pivot_cut > 0 THEN
			cuts := format('<li>the pivot: %s bytes not shown</li>', pair.pivot_cut);
			cut_total := pair.pivot_cut;
		END IF;
		body := format($alone$<p class="alone">%s</p>
<div class="side pivot"><h3>Pivot %s</h3><div class="text">%s</div></div>
$alone$,
			CASE WHEN member_count = 0 THEN 'The pivot has no other member in this group.'
				 ELSE 'Every member has the pivot''s text.' END,
			pivot_doc, pair.pivot_html);
	ELSE
		body := sections;
	END IF;
	IF identical_count > 0 THEN
		body := format('<p class="identical"><strong>%s %s the pivot&#39;s text exactly</strong> (not shown again): %s%s</p>
',
					   identical_count, CASE WHEN identical_count = 1 THEN 'member has' ELSE 'members have' END,
					   array_to_string(identical, ', '),
					   CASE WHEN identical_count > 1000 THEN format(' and %s more', identical_count - 1000) ELSE '' END) || body;
	END IF;
	IF cuts <> '' OR unshown_count > 0 THEN
		body := format('<section class="cut-note"><h2>Not all of this group is on the page</h2>
<p>The page shows at most %s bytes of document text (max_text_bytes).%s</p>%s%s</section>
',
			max_text_bytes,
			CASE WHEN cut_total > 0 THEN format(' %s bytes were left out: the middles of long shared passages first, then the ends of the longest texts.', cut_total) ELSE '' END,
			CASE WHEN cuts <> '' THEN '<ul class="cuts">' || cuts || '</ul>' ELSE '' END,
			CASE WHEN unshown_count > 0 THEN format('<p>%s more %s not drawn (at most %s per page):</p><ul class="unshown">%s%s</ul>',
					unshown_count, CASE WHEN unshown_count = 1 THEN 'member is' ELSE 'members are' END, shown_max, unshown,
					CASE WHEN unshown_count > 1000 THEN format('<li>and %s more</li>', unshown_count - 1000) ELSE '' END)
				 ELSE '' END) || body;
	END IF;

	SELECT h.a_marked INTO heading
	  FROM @extschema@.highlight(format('Near-duplicate group %s of %s', group_id, group_table), '', 1, 'html') h;
	RETURN minhash_internal.review_page_html(heading, 'near_dupe_review_html'::text, format($summary$<dl>
<dt>Documents</dt><dd class="size">%1$s</dd>
<dt>Pivot</dt><dd class="pivot-key">%2$s</dd>
<dt>Mean resemblance</dt><dd class="mean">%3$s</dd>
<dt>Lowest resemblance</dt><dd class="min">%4$s</dd>
<dt>Text</dt><dd class="source">column %5$s of %6$s, shared chunks of %7$s or more words</dd>
</dl>
<p class="legend">Each member stands beside the pivot. <mark data-chunk="1">Highlighted text</mark> is a <mark data-chunk="2">chunk both share</mark>, the same colour on both sides; plain text is on that side only, and each member's differences link to it. Long shared passages are folded: open them to read them.</p>
$summary$,
		member_count + 1, pivot_doc,
		CASE WHEN member_count = 0 THEN '&ndash;' ELSE round((resemblance_sum / member_count)::numeric, 3)::text END,
		coalesce(round(resemblance_min::numeric, 3)::text, '&ndash;'),
		(SELECT h.a_marked FROM @extschema@.highlight(text_column::text, '', 1, 'html') h),
		(SELECT h.a_marked FROM @extschema@.highlight(source::text, '', 1, 'html') h),
		min_words), body);
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_html(regclass, regclass, name, name, bigint, integer, name, bigint) IS 'one group as a self-contained HTML page for review, each document named by label_column and its key: members with the pivot''s exact text listed on one line, the others beside the pivot with shared chunks marked alike, long ones folded, and a list of differences linked to where they are; at most max_text_bytes of document text, with a note saying what was left out; every input escaped';

-- The six-argument form is the new one with the key as the only name.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_review_html(group_table regclass, source regclass, key_column name, text_column name,
															group_id bigint, min_words integer DEFAULT 5)
	RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $function$
SELECT @extschema@.near_dupe_review_html(group_table, source, key_column, text_column, group_id, min_words, key_column,
									   pg_catalog.int8(2097152))
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_html(regclass, regclass, name, name, bigint, integer) IS 'one group as a self-contained HTML page for review, documents named by their key: near_dupe_review_html(..., min_words, label_column) with the key column as the label and at most 2 MB of document text';

-- How a page names a document: its label, when there is one, then its key;
-- both escaped.
CREATE FUNCTION minhash_internal.review_document_html(key text, label text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
BEGIN
	RETURN CASE WHEN label IS NULL THEN ''
				ELSE '<span class="label">' || (SELECT h.a_marked FROM @extschema@.highlight(label, '', 1, 'html') h) || '</span> ' END
		|| '<span class="key">' || coalesce((SELECT h.a_marked FROM @extschema@.highlight(key, '', 1, 'html') h), 'NULL') || '</span>';
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_document_html(text, text) IS 'a document''s name on a review page, HTML-escaped: <span class="label"> (if a label is given) and <span class="key">';

-- The one page both review pages are drawn in: a complete HTML document
-- with the style sheet inline and a Content-Security-Policy that allows
-- nothing else (no script, nothing loaded), the title also the heading of
-- a summary box, then the content.  The title, summary and content come
-- escaped; generator names the function that drew the page.
CREATE FUNCTION minhash_internal.review_page_html(title text, generator text, summary text, content text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
BEGIN
	RETURN format($page$<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="minhash %2$s">
<title>%1$s</title>
<style>
%5$s</style>
</head>
<body>
<header class="summary">
<h1>%1$s</h1>
%3$s</header>
%4$s</body>
</html>
$page$,
		title, generator, summary, content, minhash_internal.review_style());
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_page_html(text, text, text, text) IS 'the page of near_dupe_review_html and near_dupe_review_index_html: doctype, head with the style sheet and a policy that loads nothing, a summary box headed by the title, then the content; every argument already escaped';

-- The review pages' style sheet.  Shared chunks take their colour from the
-- last digit of their number, so neighbouring chunks always differ; the ten
-- hues go round the colour wheel in steps of 108 degrees from 30 (HSL,
-- saturation 100%, lightness 82%), so that any two neighbours are far apart
-- (CIELAB distance 48 or more), with the text's contrast above 7:1 (WCAG
-- AAA); test/review/check_dom.py checks both.
CREATE FUNCTION minhash_internal.review_style()
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
BEGIN
	RETURN $css$body { margin: 0 auto; max-width: 1600px; padding: 20px 24px 40px; background: #f5f6f8; color: #1f2328;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 10px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 12px; margin: 0 0 6px; color: #57606a; text-transform: uppercase; letter-spacing: .04em; }
.summary, .cut-note, .identical, .changes, .index { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px 18px; margin: 0 0 20px; }
.cut-note { border-left: 6px solid #bf8700; }
.identical { border-left: 6px solid #1a7f37; }
.summary dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 8px; }
.summary dt { color: #57606a; }
.summary dd { margin: 0; font-weight: 600; }
.label + .key { color: #57606a; font-weight: normal; }
.label + .key::before { content: "key "; }
.legend { margin: 0; color: #57606a; }
.member { margin-bottom: 22px; }
.figures { font-weight: normal; color: #57606a; font-size: 14px; margin-left: 8px; }
.changes { padding: 8px 14px; margin-bottom: 10px; }
.changes h3 { text-transform: none; }
.differences { margin: 0; padding-left: 24px; font-size: 13px; }
.differences .words, .unshown { color: #57606a; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; align-items: start; }
.side { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 12px; min-width: 0; }
.side.pivot { border-top: 3px solid #8c959f; }
.side.other { border-top: 3px solid #0969da; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.only { text-decoration: underline dotted #8c959f; }
.only:target { outline: 3px solid #cf222e; }
.fold { display: block; margin: 2px 0; }
.fold > summary { cursor: pointer; color: #57606a; font: 12px system-ui, sans-serif; background: #f0f2f4; }
.elided, .cut { color: #9a6700; font: italic 12px system-ui, sans-serif; }
mark { color: inherit; border-radius: 2px; }
mark[data-chunk$="1"] { background: #ffd1a3; }
mark[data-chunk$="2"] { background: #a3ffbf; }
mark[data-chunk$="3"] { background: #aca3ff; }
mark[data-chunk$="4"] { background: #ffa3ac; }
mark[data-chunk$="5"] { background: #bfffa3; }
mark[data-chunk$="6"] { background: #a3d1ff; }
mark[data-chunk$="7"] { background: #ffa3e3; }
mark[data-chunk$="8"] { background: #f6ffa3; }
mark[data-chunk$="9"] { background: #a3fff6; }
mark[data-chunk$="0"] { background: #e3a3ff; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid #d0d7de; }
td.size, td.min { text-align: right; font-variant-numeric: tabular-nums; }
$css$;
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_style() IS 'the style sheet of the review pages (near_dupe_review_html, near_dupe_review_index_html): chunk colours by the last digit of the chunk number, neighbours far apart in hue';

-- The page for a whole group table, from which a reviewer works through a
-- production: one line per group of two or more (its size, its pivot's
-- label and key, its lowest resemblance), each linked to the group's page
-- under the file name page_name gives it (%s is the group id; a relative
-- name of letters, digits, '.', '_', '-' and '/', so that a link can only
-- lead to a page saved beside this one), then the count of documents that
-- are groups of one, which have no page: documents with words alone in
-- their group apart from those without words (resemblance 0, which
-- resemble nothing) and rows without a signature (resemblance null), as
-- near_dupe_classes(group_table) tells them.
CREATE FUNCTION @extschema@.near_dupe_review_index_html(group_table regclass, source regclass, key_column name,
														label_column name, page_name text DEFAULT 'group-%s.html')
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	problem record;
	column_name name;
	rows text;
	groups bigint;
	grouped bigint;
	singletons bigint;
	no_words bigint;
	no_signature bigint;
	heading text;
BEGIN
	IF page_name !~ '^[A-Za-z0-9._%-][A-Za-z0-9._/%-]*$' OR array_length(string_to_array(page_name, '%s'), 1) <> 2
	   OR strpos(replace(page_name, '%s', ''), '%') > 0 OR strpos(page_name, '..') > 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'page_name must be a relative file name with one %s for the group id',
			HINT = 'Use letters, digits, ''.'', ''_'', ''-'' and ''/'', as in ''group-%s.html'' (the default).';
	END IF;
	FOREACH column_name IN ARRAY ARRAY[key_column, label_column] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = minhash_internal.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, NULL::bigint, source, key_column);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;

	-- Labels by one join on the keys as text (a hash join, not a look-up
	-- per group), a null key meeting the null key; each names one row, as
	-- checked above.
	EXECUTE format($q$
		SELECT count(*), coalesce(sum(l.size), 0),
			   coalesce(string_agg(format('<tr><td class="group"><a href="%%s">%%s</a></td><td class="size">%%s</td><td class="pivot">%%s</td><td class="min">%%s</td></tr>',
										  replace($1, '%%s', l.group_id::text), l.group_id, l.size,
										  minhash_internal.review_document_html(l.pivot, CASE WHEN $2 THEN l.label END),
										  round(l.min_resemblance::numeric, 3)),
								   E'\n' ORDER BY l.group_id), '')
		  FROM (SELECT st.group_id, st.pivot, st.size, st.min_resemblance, s.%2$I::text AS label
				  FROM @extschema@.near_dupe_group_stats(%1$L::pg_catalog.regclass) st
				  LEFT JOIN %3$s s ON (s.%4$I IS NULL, coalesce(s.%4$I::text, '')) = (st.pivot IS NULL, coalesce(st.pivot, ''))) l$q$,
		group_table, label_column, source, key_column)
		INTO groups, grouped, rows USING page_name, label_column <> key_column;
	EXECUTE format($q$
		SELECT count(*), count(*) FILTER (WHERE o.resemblance = 0), count(*) FILTER (WHERE o.resemblance IS NULL)
		  FROM (SELECT min(g.resemblance) AS resemblance FROM %s g GROUP BY g.group_id HAVING count(*) = 1) o$q$,
		group_table)
		INTO singletons, no_words, no_signature;

	SELECT h.a_marked INTO heading
	  FROM @extschema@.highlight(format('Near-duplicate groups of %s', group_table), '', 1, 'html') h;
	RETURN minhash_internal.review_page_html(heading, 'near_dupe_review_index_html'::text, format($summary$<dl>
<dt>Groups of two or more</dt><dd class="groups">%1$s</dd>
<dt>Documents in them</dt><dd class="grouped">%2$s</dd>
<dt>Groups of one</dt><dd class="singletons">%3$s</dd>
<dt>Documents</dt><dd class="documents">%4$s</dd>
</dl>
<p class="legend">One line per group of two or more: open a group to read its members beside their pivot. Documents that are groups of one have no page.</p>
$summary$,
		groups, grouped, singletons, grouped + singletons),
		format($index$<section class="index">
<table>
<thead><tr><th>Group</th><th>Documents</th><th>Pivot</th><th>Lowest resemblance</th></tr></thead>
<tbody>
%1$s
</tbody>
</table>
<p class="singletons">and %2$s %3$s of one, not listed: %4$s</p>
</section>
$index$,
		rows, singletons, CASE WHEN singletons = 1 THEN 'group' ELSE 'groups' END,
		format('<span class="alone">%s</span> %s, <span class="no-words">%s</span> %s without words, <span class="no-signature">%s</span> without a signature',
			   singletons - no_words - no_signature, CASE WHEN singletons - no_words - no_signature = 1 THEN 'singleton' ELSE 'singletons' END,
			   no_words, CASE WHEN no_words = 1 THEN 'document' ELSE 'documents' END, no_signature)));
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_index_html(regclass, regclass, name, name, text) IS 'a group table as one HTML page for review: one line per group of two or more (size, pivot''s label and key, lowest resemblance) linked to the group''s page, named by page_name (''group-%s.html''), then the count of groups of one: singletons, documents without words, rows without a signature; every input escaped';

-------------------------------------------------------------------------------
-- Appending to a stored grouping
-------------------------------------------------------------------------------

-- near_dupe_groups_append: the rows of source that the group table (rows
-- of near_dupe_groups, stored) does not hold yet, as rows to insert into it,
-- so that a grouping grows without moving a row or renumbering a group
-- (src/minhash_near_dupe_append.c).  A new row joins the stored group whose
-- pivot it resembles most at the threshold (ties to the smaller group_id;
-- a stored singleton is its own pivot); the others are grouped among
-- themselves as near_dupe_groups groups, under group ids above the largest
-- stored.  It holds the new rows and the pairs they make with stored rows,
-- never the stored rows.  Arguments as near_dupe_groups' after the group
-- table: key_column and sig_column are names, the threshold defaults to
-- the setting and is never null, the text overload keeps five arguments
-- (a sixth double precision one would take a positional numeric key_type
-- away from the typed overload), and recall => is on the typed overload.
CREATE FUNCTION @extschema@.near_dupe_groups_append(groups regclass, source regclass, key_column name,
								 sig_column name,
								 threshold double precision DEFAULT @extschema@.minhash_threshold())
	RETURNS TABLE(group_id bigint, key text, pivot text, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups_append' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups_append(regclass, regclass, name, name, double precision) IS 'the rows of source whose key the group table (stored rows of near_dupe_groups) does not hold, as rows to insert into it: each joins the stored group whose pivot it resembles most at threshold (ties to the smaller group_id), else the new rows are grouped among themselves as near_dupe_groups groups, under group ids above the largest stored; stored rows never move; rows without a signature are left out (a notice counts them); appends into one group table run one at a time (SHARE UPDATE EXCLUSIVE on it), and a threshold above a stored member''s resemblance is refused';

CREATE FUNCTION @extschema@.near_dupe_groups_append(groups regclass, source regclass, key_column name,
								 sig_column name, threshold double precision, key_type anyelement,
								 recall double precision DEFAULT NULL)
	RETURNS TABLE(group_id bigint, key anyelement, pivot anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups_append' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups_append(regclass, regclass, name, name, double precision, anyelement, double precision) IS 'near_dupe_groups_append with the keys in the key column''s own type, given as key_type (NULL::bigint; NULL::text: key::text); recall (0 < recall < 1) takes candidates from the approximate layout of lsh_index_layout(threshold, num_perm, recall), as near_dupe_groups(..., recall) does; NULL is exact';

-------------------------------------------------------------------------------
-- Documents without words
-------------------------------------------------------------------------------

-- A document without words (empty, whitespace, punctuation, emoji) has the
-- empty signature, size 0, which resembles nothing, itself included: the
-- engine's rule (mh_resembles), which %, %>, %~, resemblance(), the index,
-- the trigger, near_dupe_pairs and near_dupe_groups follow.  A signature
-- holds hashes and cannot tell a document of numbers only from one of
-- words; the text can, read by the tokenizer of minhash(), so that 'no
-- words' is exactly a document whose signature is empty.
CREATE FUNCTION @extschema@.minhash_document_class(doc text) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_document_class(text) IS 'the class of a document by the words minhash() sees: ''no words'' (its signature is empty and resembles nothing), ''numbers only'' (every word is decimal digits), or ''words''';

-- The statement's grouping leaves an empty signature out of the band keys,
-- the copies and the pairs, and makes it a group of its own with
-- resemblance 0, as the engine's walk does (sql/group_sql.sql compares
-- them; the statement is near_dupe_statement's, in "Grouping beyond
-- minhash.group_memory" below).

-- The classes of a group table's documents, as review tools show them
-- apart: documents in groups of two or more, documents with words alone in
-- their group, documents without words and rows without a signature.  A
-- group table tells the last two by the resemblance near_dupe_groups gives
-- a row alone in its group: 0 for a document without words, which
-- resembles nothing (itself included), null for no signature.  The text
-- form also tells documents of numbers only, by their text
-- (minhash_document_class): a signature cannot.  Each document counts in
-- the first class it fits; groups counts the distinct groups of the
-- class's documents.  A new function: near_dupe_totals and
-- near_dupe_histogram keep their columns, and count those documents among
-- the groups of one.
CREATE FUNCTION @extschema@.near_dupe_classes(group_table regclass)
	RETURNS TABLE(class text, documents bigint, groups bigint)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, NULL::bigint, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	RETURN QUERY EXECUTE format($q$
		WITH sized AS (
			SELECT g.group_id, g.resemblance,
				   pg_catalog.count(*) OVER (PARTITION BY g.group_id) AS size
			  FROM %s g
		), classed AS (
			SELECT s.group_id,
				   CASE WHEN s.size > 1 THEN 1
						WHEN s.resemblance IS NULL THEN 4
						WHEN s.resemblance = 0 THEN 3
						ELSE 2 END AS rank
			  FROM sized s
		)
		SELECT (ARRAY['near-duplicates', 'singletons', 'no words', 'no signature'])[r.rank],
			   pg_catalog.count(c.group_id), pg_catalog.count(DISTINCT c.group_id)
		  FROM pg_catalog.generate_series(1, 4) r(rank) LEFT JOIN classed c ON c.rank = r.rank
		 GROUP BY r.rank ORDER BY r.rank
		$q$, group_table);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_classes(regclass) IS 'documents and groups of a group table by class: near-duplicates (groups of two or more), singletons (documents with words alone in their group), no words (empty signatures, which resemble nothing: resemblance 0), no signature (null resemblance)';

CREATE FUNCTION @extschema@.near_dupe_classes(group_table regclass, source regclass, key_column name, text_column name)
	RETURNS TABLE(class text, documents bigint, groups bigint)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
	column_name name;
BEGIN
	FOREACH column_name IN ARRAY ARRAY[key_column, text_column] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name
														AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = minhash_internal.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, NULL::bigint, source, key_column);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	-- Keys matched by their text, as near_dupe_groups wrote them, a null key
	-- meeting the null key; a key the source does not hold has no text, and
	-- keeps the class its group gives.
	RETURN QUERY EXECUTE format($q$
		WITH sized AS (
			SELECT g.group_id, g.key::text AS key, g.resemblance,
				   pg_catalog.count(*) OVER (PARTITION BY g.group_id) AS size
			  FROM %1$s g
		), classed AS (
			SELECT z.group_id,
				   CASE WHEN z.resemblance IS NULL AND z.size = 1 THEN 5
						WHEN d.class = 'no words' OR (z.size = 1 AND z.resemblance = 0) THEN 3
						WHEN d.class = 'numbers only' THEN 4
						WHEN z.size > 1 THEN 1
						ELSE 2 END AS rank
			  FROM sized z
			  LEFT JOIN (SELECT s.%2$I::text AS key, @extschema@.minhash_document_class(s.%3$I::text) AS class
						   FROM %4$s s) d ON (d.key IS NULL, coalesce(d.key, '')) = (z.key IS NULL, coalesce(z.key, ''))
		)
		SELECT (ARRAY['near-duplicates', 'singletons', 'no words', 'numbers only', 'no signature'])[r.rank],
			   pg_catalog.count(c.group_id), pg_catalog.count(DISTINCT c.group_id)
		  FROM pg_catalog.generate_series(1, 5) r(rank) LEFT JOIN classed c ON c.rank = r.rank
		 GROUP BY r.rank ORDER BY r.rank
		$q$, group_table, key_column, text_column, source);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_classes(regclass, regclass, name, name) IS 'near_dupe_classes(group_table) with documents of numbers only (minhash_document_class of the text column, matched by key) counted apart from the groups they are in';

-- near_dupe_review's pivot row says the resemblance the group table gives
-- it, as the members' rows do: a pivot without words, alone in its group,
-- resembles nothing, and a review that said 1 would call it a duplicate of
-- itself.  near_dupe_group_detail reads its rows from here; the review
-- pages show no resemblance for a pivot.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_review(group_table regclass, source regclass, key_column name, text_column name,
								 group_id bigint, min_words integer DEFAULT 5, format text DEFAULT 'text')
	RETURNS TABLE(key text, role text, resemblance double precision, common_words integer,
				  s_l double precision, marked text, pivot_marked text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	group_rows bigint;
	pivots bigint;
	pivot_key text;
	pivot_rows bigint;
	pivot_resemblance double precision;
	pivot_text text;
	member record;
	member_text text;
	found record;
	problem record;
BEGIN
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, group_id, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', key_column, source),
			HINT = minhash_internal.near_dupe_column_hint(source, key_column);
	END IF;
	IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = text_column AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', text_column, source),
			HINT = minhash_internal.near_dupe_column_hint(source, text_column);
	END IF;

	-- The group and its one pivot, which may be a null key (a row without
	-- one is its own group's pivot), and the resemblance of the pivot's own
	-- row: the row the members' query below leaves out.
	EXECUTE format($q$
		SELECT count(*), count(DISTINCT g.pivot::text) + (count(*) > count(g.pivot))::integer, min(g.pivot::text),
			   count(*) FILTER (WHERE g.key::text IS NOT DISTINCT FROM g.pivot::text),
			   (array_agg(g.resemblance::double precision ORDER BY g.resemblance DESC)
					FILTER (WHERE g.key::text IS NOT DISTINCT FROM g.pivot::text))[1]
		  FROM %s g WHERE g.group_id = $1$q$,
				   group_table)
		INTO group_rows, pivots, pivot_key, pivot_rows, pivot_resemblance USING group_id;
	IF group_rows = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'no_data_found',
			MESSAGE = format('group %s not found in %s', group_id, group_table);
	ELSIF pivots > 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'data_exception',
			MESSAGE = format('group %s of %s has %s different pivots', group_id, group_table, pivots),
			HINT = 'A group table holds the rows of near_dupe_groups, one pivot per group: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, pivot_key, group_id);
	IF found.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
	END IF;
	pivot_text := found.document;

	key := pivot_key;
	role := 'pivot';
	-- The group table's: 1 for a document with words, 0 for one without
	-- (it resembles nothing, itself included), null for a row without a
	-- signature.  A table without the pivot's row (a user's selection of
	-- rows) says nothing of it: 1, the pivot against itself.
	resemblance := CASE WHEN pivot_rows = 0 THEN 1 ELSE round(pivot_resemblance::numeric, 3) END;
	common_words := NULL;
	s_l := NULL;
	-- Against the empty text: nothing marked, but escaped as format asks.
	SELECT h.a_marked INTO marked FROM @extschema@.highlight(pivot_text, '', min_words, format) h;
	pivot_marked := NULL;
	RETURN NEXT;

	-- Every row but the pivot's own: the one whose key is the pivot's (the
	-- highest resemblance if several are).  A member's key can equal the
	-- pivot's (1.00 and 1.0 as numeric, or a key column that is not
	-- unique), so rows are told apart by position, not by key.  Keys as
	-- text and resemblances as double precision, whatever the group table's
	-- types (typed keys, a real resemblance): one plan serves all.
	FOR member IN EXECUTE format($q$
		SELECT m.key, m.resemblance
		  FROM (SELECT g.key::text AS key, g.key AS typed_key, g.resemblance::double precision AS resemblance,
					   g.key::text IS NOT DISTINCT FROM g.pivot::text
					   AND row_number() OVER (PARTITION BY g.key::text IS NOT DISTINCT FROM g.pivot::text
											  ORDER BY g.resemblance DESC) = 1 AS pivot_row
				  FROM %s g WHERE g.group_id = $1) m
		 WHERE NOT m.pivot_row
		 ORDER BY m.resemblance DESC, m.typed_key$q$, group_table)
			USING group_id LOOP
		SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, member.key, group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		member_text := found.document;
		key := member.key;
		role := 'member';
		resemblance := round(member.resemblance::numeric, 3);
		SELECT c.common_words, round(c.s_l::numeric, 3) INTO common_words, s_l
		  FROM @extschema@.chunk_similarity(pivot_text, member_text, min_words, 'literal'::text) c;
		-- Both sides of one comparison: chunk N is the same text in both.
		SELECT h.b_marked, h.a_marked INTO marked, pivot_marked
		  FROM @extschema@.highlight(pivot_text, member_text, min_words, format) h;
		RETURN NEXT;
	END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review(regclass, regclass, name, name, bigint, integer, text) IS 'one group for review: the pivot''s text with the group table''s resemblance (0: no words, null: no signature), then each member with its resemblance, the words it shares with the pivot in chunks, its text with those chunks marked, and the pivot''s text with the same chunks marked alike (null on the pivot''s row)';

-------------------------------------------------------------------------------
-- Signing and flagging on insert
-------------------------------------------------------------------------------

-- minhash_flag_duplicates()'s arguments after a document column, and a
-- shingles argument last; it builds the signature the statement did not set
-- (src/minhash_trigger_sign.c) and then flags as minhash_flag_duplicates
-- does.  Runs a query: VOLATILE, and a trigger never runs in a parallel
-- worker.
CREATE FUNCTION @extschema@.minhash_sign_and_flag() RETURNS trigger
	AS 'MODULE_PATHNAME', 'minhash_sign_and_flag' LANGUAGE C;

COMMENT ON FUNCTION @extschema@.minhash_sign_and_flag() IS 'BEFORE INSERT OR UPDATE row trigger; arguments (doc_column, sig_column, flag_column, threshold [, key_column [, ''lock'' | ''nolock'' [, shingles such as ''5 words'' or ''3 chars'']]]): sets a signature the statement left unset, or that an UPDATE of the document left as it was, to minhash(doc, num_perm of the column), then flags as minhash_flag_duplicates';

-------------------------------------------------------------------------------
-- Grouping beyond minhash.group_memory
-------------------------------------------------------------------------------

-- near_dupe_groups and near_dupe_pairs hold every signature in memory up to
-- minhash.group_memory; beyond it they run the same grouping (or the same
-- pairs) as one SQL statement, whose sorts spill to disk beyond work_mem and
-- whose walk (near_dupe_group_walk) holds only the rows taken into a group,
-- and return its rows (src/minhash_near_dupe_statement.c).  The statement is
-- built here, in one place, for them and for near_dupe_query: with the keys
-- as text or, for the typed overloads (typed_keys), in the key column's own
-- type (a text form of a key need not read back as the same key), and with
-- the approximate layout for recall => (NULL: exact).  sql/group_sql.sql
-- checks that it gives the engine's rows on every input, sql/group.sql
-- that the functions give the same rows either way.
CREATE FUNCTION minhash_internal.near_dupe_statement(source regclass, key_column name, sig_column name,
									threshold double precision, groups boolean, typed_keys boolean,
									recall double precision)
	RETURNS text LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3
	AS $function$
DECLARE
	stats record;
	verify text;
	layout record;
	pairs_query text;
	key_lt text;
	key_eq text;
	key_cast text := CASE WHEN typed_keys THEN '' ELSE '::text' END;
BEGIN
	IF groups IS NULL THEN
		RAISE EXCEPTION 'groups must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF threshold IS NULL THEN
		RAISE EXCEPTION 'threshold must not be null'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Give a threshold between 0 and 1, or leave it out for the setting minhash.threshold.';
	END IF;
	SELECT * INTO stats FROM @extschema@.near_dupe_check(source, key_column, sig_column, threshold);

	-- Keys compare by their type's own order, as near_dupe_groups and ORDER
	-- BY compare them.  A type without one fails in the query's ORDER BY,
	-- with PostgreSQL's error.
	SELECT o.lt, o.eq INTO key_lt, key_eq FROM minhash_internal.near_dupe_key_operators(stats.key_type::regtype) o;
	key_lt := coalesce(key_lt, 'OPERATOR(pg_catalog.<)');
	key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');

	-- The band layout that finds every pair at the threshold: the engine's
	-- pigeonhole layout (mh_pigeonhole_layout, through lsh_index_layout)
	-- with the index's spare bands, a pair being a candidate when it shares
	-- min_bands of them, and kept when it resembles at the threshold.  An
	-- empty signature (no words) resembles nothing: it has no band keys
	-- here, and the verification refuses it too, as % does.
	-- With a recall, the layout is the engine's approximate one
	-- (mh_recall_layout, min_bands 1): the candidates are then exactly the
	-- pairs sharing one of its bands, the ones the engine's banded walk
	-- (mh_group_greedy_banded) and mh_near_pairs compare, so the walk over
	-- the verified pairs is that walk (identical signatures share every
	-- band, so copies still go with the best-ranked of them).
	-- near_dupe_groups takes the same layout with no spare bands (a
	-- candidate shares one band): both find every pair at the threshold, so
	-- both walk the same pairs.  Spare bands cost the engine memory, and
	-- save this query the candidates that share one band by chance.
	verify := format('@extschema@.resemblance(sa.%1$I, sb.%1$I) >= %2$L::double precision', sig_column, threshold)
			  || format(' AND @extschema@.minhash_size(sa.%1$I) > 0 AND @extschema@.minhash_size(sb.%1$I) > 0', sig_column);
	IF stats.signed < 2 THEN
		pairs_query := 'SELECT NULL::tid AS tid_a, NULL::tid AS tid_b, NULL::bigint AS size_a, NULL::bigint AS size_b, '
					   || format('NULL::%s AS key_a, NULL::%1$s AS key_b, ', pg_catalog.format_type(stats.key_type, NULL))
					   || 'NULL::double precision AS resemblance WHERE false';
	ELSE
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(threshold, stats.num_perm, recall);
		pairs_query := format($q$
	WITH band_keys AS (
		SELECT s.ctid AS tid, k.band_key
		  FROM ONLY %1$s s CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.minhash_bands(s.%3$I, %4$s, %5$s)) AS k(band_key)
		 WHERE @extschema@.minhash_size(s.%3$I) > 0%8$s
	), buckets AS (
		SELECT pg_catalog.array_agg(tid) AS tids FROM band_keys GROUP BY band_key HAVING count(*) > 1
	), candidates AS (
		SELECT least(a.tid, b.tid) AS tid_a, greatest(a.tid, b.tid) AS tid_b
		  FROM buckets CROSS JOIN LATERAL pg_catalog.unnest(tids) WITH ORDINALITY AS a(tid, i)
			   CROSS JOIN LATERAL pg_catalog.unnest(tids[i + 1:]) AS b(tid)
		 WHERE a.tid <> b.tid
		 GROUP BY 1, 2 HAVING count(*) >= %6$s
	)
	SELECT c.tid_a, c.tid_b,
		   @extschema@.minhash_size(sa.%3$I) AS size_a, @extschema@.minhash_size(sb.%3$I) AS size_b,
		   sa.%2$I AS key_a, sb.%2$I AS key_b,
		   @extschema@.resemblance(sa.%3$I, sb.%3$I) AS resemblance
	  FROM candidates c JOIN ONLY %1$s sa ON sa.ctid = c.tid_a JOIN ONLY %1$s sb ON sb.ctid = c.tid_b
	 WHERE %7$s$q$,
			source, key_column, sig_column, layout.bands, layout.rows, layout.min_bands, verify,
			CASE WHEN groups THEN '
		   AND NOT EXISTS (SELECT 1 FROM copies c WHERE c.tid = s.ctid)' ELSE '' END);
	END IF;

	IF NOT groups THEN
		-- key_a sorts before key_b in the key column's own order (nulls last;
		-- equal keys in physical order).
		RETURN format($q$
SELECT first_key%4$s AS key_a, second_key%4$s AS key_b, resemblance
  FROM (SELECT CASE WHEN a_first THEN key_a ELSE key_b END AS first_key,
			   CASE WHEN a_first THEN key_b ELSE key_a END AS second_key, resemblance
		  FROM (SELECT p.*, coalesce(p.key_a %2$s p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
							OR (coalesce(p.key_a %3$s p.key_b, p.key_a IS NULL AND p.key_b IS NULL)
								AND p.tid_a < p.tid_b) AS a_first
				  FROM (%1$s) p) d) o
 ORDER BY first_key, second_key$q$, pairs_query, key_lt, key_eq, key_cast);
	END IF;

	-- Rank: most distinct shingles first, then key (nulls last), then ctid
	-- (only for equal keys).  Each pair is directed from its better-ranked
	-- row; the walk reads them in the better row's rank order.  Every row of
	-- the table comes out once: with its pivot if the walk gave it one,
	-- else as a pivot itself (resemblance 1; 0 for an empty signature, which
	-- resembles nothing, itself included, and so is never a copy nor in a
	-- pair; null for a null signature).
	-- Copies: a row whose signature is identical to a better-ranked row's
	-- (within the threshold of itself) goes wherever that row goes, since
	-- every resemblance of the two is the same; so only the best-ranked of
	-- identical signatures takes part in the pairs, and n copies of one
	-- document cost n rows instead of n^2 / 2 pairs.  Identical signatures
	-- are found by a 64-bit hash, then compared whole.  The table is read
	-- once for what these stages need (rows_read), so that their sorts and
	-- hashes do not carry the signatures along.
	RETURN format($q$
WITH rows_read AS (
	SELECT s.ctid AS tid, s.%2$I AS key, @extschema@.minhash_size(s.%3$I) AS size,
		   @extschema@.minhash_hash_extended(s.%3$I, 0::bigint) AS sig_hash
	  FROM ONLY %4$s s
), twins AS (
	SELECT r.sig_hash FROM rows_read r WHERE r.size > 0 GROUP BY r.sig_hash HAVING pg_catalog.count(*) > 1
), copies AS (
	SELECT x.tid, x.rep_tid, x.rep_key, x.size, x.resemblance
	  FROM (SELECT y.*,
				   (SELECT CASE WHEN sb.%3$I OPERATOR(@extschema@.=) sa.%3$I AND %5$s
								THEN @extschema@.resemblance(sa.%3$I, sb.%3$I) END
					  FROM ONLY %4$s sa, ONLY %4$s sb WHERE sa.ctid = y.rep_tid AND sb.ctid = y.tid) AS resemblance
			  FROM (SELECT r.tid, r.size,
						   pg_catalog.first_value(r.tid) OVER same_hash AS rep_tid,
						   pg_catalog.first_value(r.key) OVER same_hash AS rep_key
					  FROM rows_read r JOIN twins w ON w.sig_hash = r.sig_hash
					WINDOW same_hash AS (PARTITION BY r.sig_hash ORDER BY r.key, r.tid)) y
			 WHERE y.tid <> y.rep_tid
			OFFSET 0) x
	 WHERE x.resemblance IS NOT NULL
), pairs AS (%1$s
), directed AS (
	SELECT CASE WHEN a_better THEN tid_a ELSE tid_b END AS better_tid,
		   CASE WHEN a_better THEN tid_b ELSE tid_a END AS worse_tid,
		   CASE WHEN a_better THEN size_a ELSE size_b END AS better_size,
		   CASE WHEN a_better THEN key_a ELSE key_b END AS better_key, resemblance
	  FROM (SELECT p.*, p.size_a > p.size_b
						OR (p.size_a = p.size_b
							AND (coalesce(p.key_a %6$s p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
								 OR (coalesce(p.key_a %7$s p.key_b, p.key_a IS NULL AND p.key_b IS NULL)
									 AND p.tid_a < p.tid_b))) AS a_better
			  FROM pairs p) d
), taken AS (
	SELECT worse_tid AS tid, better_tid AS pivot_tid, better_size AS pivot_size, better_key AS pivot_key, resemblance
	  FROM (SELECT d.*, @extschema@.near_dupe_group_walk(better_tid, worse_tid)
						  OVER (ORDER BY better_size DESC, better_key, better_tid) AS joins
			  FROM directed d) w
	 WHERE joins
), taken_copies AS (
	SELECT c.tid, coalesce(t.pivot_tid, c.rep_tid) AS pivot_tid,
		   CASE WHEN t.tid IS NULL THEN c.size ELSE t.pivot_size END AS pivot_size,
		   CASE WHEN t.tid IS NULL THEN c.rep_key ELSE t.pivot_key END AS pivot_key,
		   CASE WHEN t.tid IS NULL THEN c.resemblance ELSE t.resemblance END AS resemblance
	  FROM copies c LEFT JOIN taken t ON t.tid = c.rep_tid
), assigned AS (
	SELECT s.tid, s.key, s.size,
		   coalesce(t.pivot_tid, s.tid) AS pivot_tid,
		   CASE WHEN t.tid IS NULL THEN s.size ELSE t.pivot_size END AS pivot_size,
		   CASE WHEN t.tid IS NULL THEN s.key ELSE t.pivot_key END AS pivot_key,
		   CASE WHEN t.tid IS NOT NULL THEN t.resemblance WHEN s.size > 0 THEN 1.0::double precision
				WHEN s.size = 0 THEN 0.0::double precision END AS resemblance
	  FROM rows_read s LEFT JOIN (SELECT * FROM taken UNION ALL SELECT * FROM taken_copies) t ON t.tid = s.tid
)
SELECT dense_rank() OVER (ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid) AS group_id,
	   key%8$s AS key, pivot_key%8$s AS pivot, resemblance
  FROM assigned a
 ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid, tid <> pivot_tid, size DESC NULLS LAST, a.key, tid$q$,
		pairs_query, key_column, sig_column, source, verify, key_lt, key_eq, key_cast);
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_statement(regclass, name, name, double precision, boolean, boolean, double precision) IS 'internal: the statement of near_dupe_query, with the keys in their own type (typed_keys) and the approximate layout of lsh_index_layout(threshold, num_perm, recall) (recall not null); near_dupe_groups and near_dupe_pairs run it beyond minhash.group_memory';

-- The statement is near_dupe_statement's with text keys, exact.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_query(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT @extschema@.minhash_threshold(), groups boolean DEFAULT false)
	RETURNS text LANGUAGE sql STABLE PARALLEL RESTRICTED
	AS $function$
SELECT minhash_internal.near_dupe_statement(source, key_column, sig_column, threshold, groups, false, NULL)
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_query(regclass, name, name, double precision, boolean) IS 'the exact pairs of near_dupe_pairs as one SQL statement (groups false; run it with enable_hashagg off), or the grouping of near_dupe_groups as one SQL statement (groups true; run it with enable_hashagg and enable_mergejoin off), as they run it beyond minhash.group_memory; checks the arguments and reads the signatures'' parameters';

COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision) IS 'every row in one near-duplicate group: pivots are the rows with the most distinct shingles (ties by key), each taking the rows not yet taken whose resemblance to it is at least threshold; in memory up to minhash.group_memory, beyond it as one SQL statement whose sorts spill to disk (near_dupe_query(..., groups => true))';

COMMENT ON FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision) IS 'every pair of rows whose signatures'' resemblance is at least threshold (default minhash_threshold(), the setting), key_a before key_b in the key''s order: exactly the pairs of the self-join with %; in memory up to minhash.group_memory, beyond it as one SQL statement whose sorts spill to disk (near_dupe_query(..., groups => false))';

-------------------------------------------------------------------------------
-- Pairs and groups of a Citus-distributed table
-------------------------------------------------------------------------------

-- near_dupe_pairs and near_dupe_groups read every signature into one
-- backend; on a Citus table that backend is the coordinator's.  The
-- _distributed forms below leave the band work to the workers, through
-- Citus itself (repartitioned INSERT ... SELECT and co-located joins), and
-- bring to the coordinator only the verified pairs (and, for groups, one
-- row per row that some pivot takes).  They create tables, so they are
-- functions of their own, VOLATILE, not a branch of the STABLE ones.  The
-- key column must be the table's distribution column (hash): every join on
-- the key is then co-located, and no repartition join needs to be turned
-- on.  test/citus/README.md gives the recipe and what each step ships.
--
-- A byte sketch of a signature (the low byte of each value, with the
-- signature's parameters) and the bound it gives: the fraction of positions
-- where the sketch agrees with another signature is at least the
-- resemblance of the two, since equal values have equal low bytes.  The
-- distributed pairs ship sketches to rule candidates out, and whole
-- signatures only for the rest (src/minhash_sketch.c).
CREATE FUNCTION @extschema@.minhash_byte_sketch(sig @extschema@.minhash) RETURNS bytea
	AS 'MODULE_PATHNAME', 'minhash_byte_sketch' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_byte_sketch(@extschema@.minhash) IS 'the byte sketch of a signature: its parameters and the low byte of each hash value, a quarter of its size; resemblance_bound(sketch, sig) bounds the resemblance of the sketched signature and sig from above';

CREATE FUNCTION @extschema@.resemblance_bound(sketch bytea, sig @extschema@.minhash) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_resemblance_bound' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.resemblance_bound(bytea, @extschema@.minhash) IS 'the fraction of positions where a byte sketch (minhash_byte_sketch(a)) agrees with sig: at least resemblance(a, sig), equal but for chance agreements (1 in 256 per position); 0 when either set is empty; an error for signatures of other parameters';

-- An unlogged work table of one call, distributed by distribution_column:
-- co-located with the table colocate_with, or ('none') on its own with
-- shard_count shards.  Returns its qualified name.
CREATE FUNCTION minhash_internal.near_dupe_distributed_work_table(work_schema name, table_name name, columns text,
								distribution_column name, colocate_with text, shard_count integer)
	RETURNS text LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	qualified text := format('%I.%I', work_schema, table_name);
BEGIN
	EXECUTE format('CREATE UNLOGGED TABLE %s (%s)', qualified, columns);
	IF colocate_with = 'none' THEN
		PERFORM pg_catalog.create_distributed_table(qualified::regclass, distribution_column, colocate_with => 'none',
													shard_count => shard_count);
	ELSE
		PERFORM pg_catalog.create_distributed_table(qualified::regclass, distribution_column, colocate_with => colocate_with);
	END IF;
	RETURN qualified;
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_work_table(name, name, text, name, text, integer) IS 'creates an unlogged work table of the _distributed forms, distributed by distribution_column, co-located with colocate_with (or on its own with shard_count shards when it is ''none''); returns its qualified name';

-- near_dupe_distributed_bands checks the arguments as near_dupe_pairs
-- does (near_dupe_check: the signatures' parameters, pushed down to the
-- shards as aggregates), refuses a table that is not hash-distributed by
-- the key column, or whose keys repeat, then runs the first steps into
-- work tables distributed beside the source:
--   <work>_bands (band_key, key, slice)  by band_key: every row's band keys
--       of lsh_index_layout (exact, min_bands of them) or of the recall
--       layout (one band), shipped from the shards to the band key's shard;
--       empty and null signatures have none (they resemble nothing).  slice
--       is the slice (from 0) of the pairs in which the row is key_a: a hash
--       of the key, so that each pair falls in one slice;
-- and creates the work tables that near_dupe_distributed_slice fills, one
-- slice of the pairs at a time:
--   <work>_cand (key_a, key_b)        by key_a, co-located with the source:
--       each pair of the slice sharing a band, once per band, from a
--       self-join of the band table on each of its shards;
--   <work>_sketched (key_a, key_b, size_a, sketch_a)  by key_b: the pairs
--       sharing min_bands bands (counted where key_a's rows are), with
--       key_a's byte sketch (minhash_byte_sketch: a quarter of a signature),
--       joined on its shard;
--   <work>_half (key_a, key_b, size_a, size_b, sig_b)  by key_a: the pairs
--       whose resemblance_bound(sketch_a, sig_b) reaches the threshold (at
--       least their resemblance, so no pair at it is dropped), with key_b's
--       signature, joined on its shard.  Whole signatures cross between
--       nodes for these pairs only, not for every candidate.
-- With set_copies_aside (the groups), identical signatures are set aside
-- first, as near_dupe_query sets them aside: a row whose signature is
-- identical to a row of a smaller key goes wherever that row goes (every
-- resemblance of the two is the same, and so is their rank), so only the
-- smallest key of identical signatures takes part in the band work, and n
-- copies of one document cost n rows instead of n^2 / 2 pairs:
--   <work>_hashes (sig_hash, key, size)  by sig_hash: a 64-bit hash of every
--       non-empty signature, shipped from the shards to the hash's shard;
--   <work>_twins (key, rep_key, size)   by rep_key: each row whose hash an
--       earlier key shares, with the smallest such key (a window on each
--       shard of the hashes);
--   <work>_twin_sigs (key, rep_key, size, rep_sig)  by key: with rep_key's
--       signature, joined on its shard;
--   <work>_copies (key, rep_key, size, resemblance)  by key: the twins whose
--       signature is rep_key's, compared whole on key's shard.  The caller
--       drops it.
-- The work tables are unlogged: they live for one call, and writing them
-- to the WAL as well would double what the workers write (at 10M rows,
-- 280M band keys).  It returns the layout's min_bands (null when fewer than
-- two rows have a non-empty signature: there is no band work) and the
-- number of slices: slices, or one per million such rows when it is null.
-- A 64-bit band key shared by chance makes a pair a candidate that the
-- engine's approximate layout would not look at (it compares the band's
-- values); with recall, such a pair would be returned if it also resembles
-- at the threshold (at 10M rows and 15 bands, about one chance in a
-- thousand that a collision happens at all).
CREATE FUNCTION minhash_internal.near_dupe_distributed_bands(source regclass, key_column name, sig_column name,
								threshold double precision, recall double precision, work name,
								set_copies_aside boolean, slices integer,
								OUT min_bands integer, OUT slice_count integer)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3
	AS $function$
DECLARE
	stats record;
	layout record;
	relation name;
	work_schema name;
	dist_column text;
	dist_method "char";
	shard_count integer;
	key_decl text;
	duplicate text;
	copies_table text;
	not_a_copy text := '';
BEGIN
	IF threshold IS NULL THEN
		RAISE EXCEPTION 'threshold must not be null'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Give a threshold between 0 and 1, or leave it out for the setting minhash.threshold.';
	END IF;
	IF recall IS NOT NULL AND NOT (recall > 0 AND recall < 1) THEN
		RAISE EXCEPTION 'recall must be between 0 and 1, exclusive'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given was %s.', recall),
				  HINT = 'Pass NULL for the exact result.';
	END IF;
	IF slices IS NOT NULL AND NOT (slices BETWEEN 1 AND 1024) THEN
		RAISE EXCEPTION 'slices must be between 1 and 1024'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given was %s.', slices),
				  HINT = 'Leave it out for one slice per million rows; each slice reads the band keys once more.';
	END IF;
	PERFORM minhash_internal.near_dupe_check_arguments(source, key_column, sig_column, threshold);
	SELECT c.relname, c.relnamespace::regnamespace::name INTO relation, work_schema
	  FROM pg_catalog.pg_class c WHERE c.oid = source;

	-- Citus's catalog, read only if Citus is installed (a plain table of a
	-- database without Citus gets the same error as any other).
	IF pg_catalog.to_regclass('pg_catalog.pg_dist_partition') IS NOT NULL THEN
		EXECUTE $q$SELECT pg_catalog.column_to_column_name(p.logicalrelid, p.partkey), p.partmethod,
						  (SELECT pg_catalog.count(*) FROM pg_catalog.pg_dist_shard d WHERE d.logicalrelid = p.logicalrelid)
					 FROM pg_catalog.pg_dist_partition p WHERE p.logicalrelid = $1$q$
			INTO dist_column, dist_method, shard_count USING source;
	END IF;
	IF dist_method IS NULL THEN
		RAISE EXCEPTION 'table "%" is not a distributed table', relation
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Use near_dupe_pairs() or near_dupe_groups() for a table of one node; the _distributed forms take a table distributed by hash with create_distributed_table().';
	ELSIF dist_method <> 'h' THEN
		RAISE EXCEPTION 'table "%" is not a distributed table', relation
			USING ERRCODE = 'wrong_object_type',
				  DETAIL = 'It is a Citus reference or local table: each copy holds every row.',
				  HINT = 'Use near_dupe_pairs() or near_dupe_groups() for a table of one node; the _distributed forms take a table distributed by hash with create_distributed_table().';
	END IF;
	IF dist_column <> key_column::text THEN
		RAISE EXCEPTION 'key column "%" is not the distribution column of table "%"', key_column, relation
			USING ERRCODE = 'invalid_parameter_value',
				  DETAIL = format('Table "%s" is distributed by column "%s"; the work is joined on the key, shard by shard.', relation, dist_column),
				  HINT = format('Give %L as key_column if it is unique, or redistribute the table by its unique key with alter_distributed_table(..., distribution_column => %L).', dist_column, key_column);
	END IF;

	SELECT * INTO stats FROM @extschema@.near_dupe_check(source, key_column, sig_column, threshold);

	-- The result names each row by its key: keys are unique, as for
	-- near_dupe_pairs.  A unique index on the key alone says so; otherwise
	-- each shard looks for a repeated key (rows of one key share a shard).
	-- The distribution column is never null.
	IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_index i JOIN pg_catalog.pg_attribute a
					   ON a.attrelid = i.indrelid AND a.attnum = i.indkey[0]
					WHERE i.indrelid = source AND i.indisunique AND i.indnkeyatts = 1
					  AND i.indpred IS NULL AND i.indexprs IS NULL AND a.attname = key_column) THEN
		EXECUTE format('SELECT s.%1$I::text FROM %2$s s GROUP BY s.%1$I HAVING pg_catalog.count(*) > 1 LIMIT 1',
					   key_column, source) INTO duplicate;
		IF duplicate IS NOT NULL THEN
			RAISE EXCEPTION 'key column "%" of relation "%" is not unique', key_column, relation
				USING ERRCODE = 'unique_violation',
					  DETAIL = format('Key (%s)=(%s) appears more than once.', key_column, pg_catalog.left(duplicate, 64)),
					  HINT = 'Use a unique key column without nulls, such as the primary key.';
		END IF;
	END IF;

	-- The key columns of the work tables: the key's type and collation, so
	-- that they compare and hash as the source's and co-locate with it.
	SELECT pg_catalog.format_type(a.atttypid, a.atttypmod)
		   || CASE WHEN a.attcollation <> 0 THEN format(' COLLATE %I.%I', n.nspname, c.collname) ELSE '' END
	  INTO key_decl
	  FROM pg_catalog.pg_attribute a
	  LEFT JOIN pg_catalog.pg_collation c ON c.oid = a.attcollation
	  LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.collnamespace
	 WHERE a.attrelid = source AND a.attname = key_column;

	PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_bands',
		format('band_key bigint, key %s, slice integer', key_decl), 'band_key', 'none', shard_count);
	PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_cand',
		format('key_a %s, key_b %1$s', key_decl), 'key_a', source::text, NULL);
	PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_sketched',
		format('key_a %s, key_b %1$s, size_a bigint, sketch_a bytea', key_decl), 'key_b', source::text, NULL);
	PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_half',
		format('key_a %s, key_b %1$s, size_a bigint, size_b bigint, sig_b @extschema@.minhash', key_decl), 'key_a', source::text, NULL);
	IF set_copies_aside THEN
		copies_table := minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_copies',
			format('key %s, rep_key %1$s, size bigint, resemblance double precision', key_decl), 'key', source::text, NULL);
	END IF;
	slice_count := coalesce(slices, greatest(1, ceil(stats.signed / 1000000.0)::integer));
	IF stats.signed < 2 THEN
		RETURN;
	END IF;
	IF recall IS NULL THEN
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(threshold, stats.num_perm);
	ELSE
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(threshold, stats.num_perm, recall);
	END IF;
	min_bands := layout.min_bands;

	IF set_copies_aside THEN
		PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_hashes',
			format('sig_hash bigint, key %s, size bigint', key_decl), 'sig_hash', 'none', shard_count);
		PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_twins',
			format('key %s, rep_key %1$s, size bigint', key_decl), 'rep_key', source::text, NULL);
		PERFORM minhash_internal.near_dupe_distributed_work_table(work_schema, work || '_twin_sigs',
			format('key %s, rep_key %1$s, size bigint, rep_sig @extschema@.minhash', key_decl), 'key', source::text, NULL);
		EXECUTE format($q$INSERT INTO %1$I.%2$I (sig_hash, key, size)
			SELECT @extschema@.minhash_hash_extended(s.%5$I, 0::bigint), s.%4$I, @extschema@.minhash_size(s.%5$I)
			  FROM %3$s s WHERE @extschema@.minhash_size(s.%5$I) > 0$q$,
			work_schema, work || '_hashes', source, key_column, sig_column);
		EXECUTE format($q$INSERT INTO %1$I.%2$I (key, rep_key, size)
			SELECT h.key, h.rep_key, h.size
			  FROM (SELECT h.key, h.size, pg_catalog.first_value(h.key) OVER (PARTITION BY h.sig_hash ORDER BY h.key) AS rep_key
					  FROM %1$I.%3$I h) h
			 WHERE h.key <> h.rep_key$q$,
			work_schema, work || '_twins', work || '_hashes');
		EXECUTE format('DROP TABLE %I.%I', work_schema, work || '_hashes');
		EXECUTE format($q$INSERT INTO %1$I.%2$I (key, rep_key, size, rep_sig)
			SELECT t.key, t.rep_key, t.size, s.%6$I FROM %1$I.%3$I t JOIN %4$s s ON s.%5$I = t.rep_key$q$,
			work_schema, work || '_twin_sigs', work || '_twins', source, key_column, sig_column);
		EXECUTE format('DROP TABLE %I.%I', work_schema, work || '_twins');
		EXECUTE format($q$INSERT INTO %1$s (key, rep_key, size, resemblance)
			SELECT w.key, w.rep_key, w.size, @extschema@.resemblance(w.rep_sig, s.%6$I)
			  FROM %2$I.%3$I w JOIN %4$s s ON s.%5$I = w.key
			 WHERE s.%6$I OPERATOR(@extschema@.=) w.rep_sig
			   AND @extschema@.resemblance(w.rep_sig, s.%6$I) >= %7$L::double precision$q$,
			copies_table, work_schema, work || '_twin_sigs', source, key_column, sig_column, threshold);
		EXECUTE format('DROP TABLE %I.%I', work_schema, work || '_twin_sigs');
		not_a_copy := format(' AND NOT EXISTS (SELECT 1 FROM %s c WHERE c.key = s.%I)', copies_table, key_column);
	END IF;

	EXECUTE format($q$INSERT INTO %1$I.%2$I (band_key, key, slice)
		SELECT k.band_key, s.%4$I, %9$s
		  FROM %3$s s CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.minhash_bands(s.%5$I, %6$s, %7$s)) AS k(band_key)
		 WHERE @extschema@.minhash_size(s.%5$I) > 0%8$s$q$,
		work_schema, work || '_bands', source, key_column, sig_column, layout.bands, layout.rows, not_a_copy,
		CASE WHEN slice_count = 1 THEN '0'
			 ELSE format('pg_catalog.abs(pg_catalog.hashtextextended(s.%I::pg_catalog.text, 0) %% %s)', key_column, slice_count) END);
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_bands(regclass, name, name, double precision, double precision, name, boolean, integer) IS 'the first steps behind the _distributed forms: checks the arguments and that the table is hash-distributed by its unique key, fills the work table <work>_bands of every row''s band keys on the workers (with set_copies_aside, <work>_copies of the rows identical to a row of a smaller key, which take no part in the band work), creates the work tables the slices fill, and returns the layout''s min_bands (null: no band work) and the number of slices';

-- One slice of the pairs (from 1 to slice_count: the pairs whose key_a
-- has slice - 1 in the band table): fills <work>_cand, then <work>_sketched,
-- adds the pairs within the sketches' bound to <work>_half and empties the
-- first two.  It returns the query of the verified pairs of <work>_half
-- (key_a, key_b, size_a, size_b, resemblance; key_a before key_b in the
-- key type's order), a join with the source on each shard of the source,
-- verified as near_dupe_query verifies.
CREATE FUNCTION minhash_internal.near_dupe_distributed_slice(source regclass, key_column name, sig_column name,
								threshold double precision, work name, min_bands integer,
								slice integer, slice_count integer)
	RETURNS text LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3
	AS $function$
DECLARE
	work_schema name;
	key_lt text;
	candidates bigint;
	within_bound bigint;
BEGIN
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	IF min_bands IS NOT NULL THEN
		SELECT o.lt INTO key_lt
		  FROM pg_catalog.pg_attribute a, minhash_internal.near_dupe_key_operators(a.atttypid::regtype) o
		 WHERE a.attrelid = source AND a.attname = key_column;
		key_lt := coalesce(key_lt, 'OPERATOR(pg_catalog.<)');
		EXECUTE format($q$INSERT INTO %1$I.%2$I (key_a, key_b)
			SELECT a.key, b.key FROM %1$I.%3$I a JOIN %1$I.%3$I b ON b.band_key = a.band_key AND a.key %4$s b.key%5$s$q$,
			work_schema, work || '_cand', work || '_bands', key_lt,
			CASE WHEN slice_count > 1 THEN format(' WHERE a.slice = %s', slice - 1) ELSE '' END);
		EXECUTE format($q$INSERT INTO %1$I.%2$I (key_a, key_b, size_a, sketch_a)
			SELECT c.key_a, c.key_b, @extschema@.minhash_size(s.%6$I), @extschema@.minhash_byte_sketch(s.%6$I)
			  FROM (SELECT w.key_a, w.key_b FROM %1$I.%3$I w GROUP BY w.key_a, w.key_b HAVING pg_catalog.count(*) >= %7$s) c
			  JOIN %4$s s ON s.%5$I = c.key_a$q$,
			work_schema, work || '_sketched', work || '_cand', source, key_column, sig_column, min_bands);
		GET DIAGNOSTICS candidates = ROW_COUNT;
		EXECUTE format('TRUNCATE %I.%I', work_schema, work || '_cand');
		EXECUTE format($q$INSERT INTO %1$I.%2$I (key_a, key_b, size_a, size_b, sig_b)
			SELECT h.key_a, h.key_b, h.size_a, @extschema@.minhash_size(s.%6$I), s.%6$I
			  FROM %1$I.%3$I h JOIN %4$s s ON s.%5$I = h.key_b
			 WHERE @extschema@.resemblance_bound(h.sketch_a, s.%6$I) >= %7$L::double precision
			   AND @extschema@.minhash_size(s.%6$I) > 0$q$,
			work_schema, work || '_half', work || '_sketched', source, key_column, sig_column, threshold);
		GET DIAGNOSTICS within_bound = ROW_COUNT;
		EXECUTE format('TRUNCATE %I.%I', work_schema, work || '_sketched');
		IF slice_count = 1 THEN
			RAISE DEBUG 'near_dupe_distributed_candidates: % candidate pairs, % within the sketches'' bound', candidates, within_bound;
		ELSE
			RAISE DEBUG 'near_dupe_distributed_candidates: slice % of %: % candidate pairs, % within the sketches'' bound',
				slice, slice_count, candidates, within_bound;
		END IF;
	END IF;

	RETURN format($q$SELECT h.key_a, h.key_b, h.size_a, h.size_b,
		   @extschema@.resemblance(s.%5$I, h.sig_b) AS resemblance
	  FROM %1$I.%2$I h JOIN %3$s s ON s.%4$I = h.key_a
	 WHERE @extschema@.resemblance(s.%5$I, h.sig_b) >= %6$L::double precision$q$,
		work_schema, work || '_half', source, key_column, sig_column, threshold);
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_slice(regclass, name, name, double precision, name, integer, integer, integer) IS 'one slice of the band work behind the _distributed forms: the candidate pairs of the slice (those whose key_a hashes to it), ruled out by byte sketches on the workers, the rest added with one side''s signature to the work table <work>_half; returns the query of the verified pairs of <work>_half (key_a, key_b, size_a, size_b, resemblance)';

-- The band work of one call in one transaction (the functions): the band
-- keys, one slice of every pair, and the query of the verified pairs; the
-- caller drops <work>_half.
CREATE FUNCTION minhash_internal.near_dupe_distributed_candidates(source regclass, key_column name, sig_column name,
								threshold double precision, recall double precision, work name,
								set_copies_aside boolean)
	RETURNS text LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	bands record;
	pairs_query text;
	work_schema name;
BEGIN
	SELECT * INTO bands
	  FROM minhash_internal.near_dupe_distributed_bands(source, key_column, sig_column, threshold, recall, work, set_copies_aside, 1);
	pairs_query := minhash_internal.near_dupe_distributed_slice(source, key_column, sig_column, threshold, work, bands.min_bands, 1, 1);
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	EXECUTE format('DROP TABLE %1$I.%2$I, %1$I.%3$I, %1$I.%4$I', work_schema, work || '_bands', work || '_cand', work || '_sketched');
	RETURN pairs_query;
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_candidates(regclass, name, name, double precision, double precision, name, boolean) IS 'the band work behind near_dupe_pairs_distributed and near_dupe_groups_distributed, in one transaction: fills the work table <work>_half of candidate pairs with one side''s signature on the workers (whole signatures shipped only for the pairs whose resemblance_bound reaches the threshold) (with set_copies_aside, <work>_copies), and returns the query of the verified pairs (key_a, key_b, size_a, size_b, resemblance)';

-- A name for a call's work tables, unused in the source's schema:
-- minhash_work_<backend pid>_<n>.
CREATE FUNCTION minhash_internal.near_dupe_distributed_work_name(source regclass) RETURNS name
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work_schema name;
	work name;
BEGIN
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	FOR n IN 1 .. 1000 LOOP
		work := format('minhash_work_%s_%s', pg_catalog.pg_backend_pid(), n);
		IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_class c
						WHERE c.relnamespace = work_schema::regnamespace AND c.relname LIKE work || '\_%') THEN
			RETURN work;
		END IF;
	END LOOP;
	RAISE EXCEPTION 'could not find an unused name for the work tables of table "%"', source
		USING ERRCODE = 'duplicate_table',
			  HINT = format('Drop the tables minhash_work_%s_* left in its schema.', pg_catalog.pg_backend_pid());
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_work_name(regclass) IS 'a name for the work tables of one call of near_dupe_pairs_distributed or near_dupe_groups_distributed, unused in the source''s schema: minhash_work_<backend pid>_<n>';

-- The work tables an interrupted call left behind (a cancel, a timeout, an
-- error after a step committed: the procedures commit each step): every
-- table named as near_dupe_distributed_work_name names them, in any schema,
-- whose backend is gone, or is the caller's own (no call of this session
-- runs while it runs), and that the caller may drop.  A backend that is
-- alive may be running a call, so its tables stay.  Returns the tables
-- dropped.
CREATE FUNCTION @extschema@.near_dupe_distributed_cleanup() RETURNS SETOF text
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work_table text;
BEGIN
	FOR work_table IN
		SELECT format('%I.%I', n.nspname, c.relname)
		  FROM pg_catalog.pg_class c
		  JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
		 WHERE c.relkind = 'r' AND c.relpersistence <> 't'
		   AND c.relname ~ '^minhash_work_[0-9]{1,9}_[0-9]+_(bands|cand|sketched|half|pairs|hashes|twins|twin_sigs|copies|assign)$'
		   AND NOT EXISTS (SELECT FROM pg_catalog.pg_stat_activity a
							WHERE a.pid = pg_catalog.substring(c.relname, '^minhash_work_([0-9]+)_')::integer
							  AND a.pid <> pg_catalog.pg_backend_pid())
		   AND pg_catalog.pg_has_role(c.relowner, 'USAGE')
		 ORDER BY 1
	LOOP
		EXECUTE format('DROP TABLE %s', work_table);
		RETURN NEXT work_table;
	END LOOP;
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_distributed_cleanup() IS 'drops the work tables minhash_work_<pid>_<n>_* that an interrupted near_dupe_pairs_distributed_into, near_dupe_groups_distributed_into or _distributed function left behind, for backends that are gone and the caller''s own, that the caller may drop; returns their names';

-- The pairs of near_dupe_pairs (text keys; with recall, those of
-- near_dupe_pairs(..., NULL::text, recall)), in its order: verified on the
-- shards, merged and sorted on the coordinator.
CREATE FUNCTION @extschema@.near_dupe_pairs_distributed(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT @extschema@.minhash_threshold(),
								recall double precision DEFAULT NULL)
	RETURNS TABLE(key_a text, key_b text, resemblance double precision)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work name := minhash_internal.near_dupe_distributed_work_name(source);
	pairs_query text;
BEGIN
	pairs_query := minhash_internal.near_dupe_distributed_candidates(source, key_column, sig_column, threshold, recall, work, false);
	RETURN QUERY EXECUTE format('SELECT p.key_a::text, p.key_b::text, p.resemblance FROM (%s) p ORDER BY p.key_a, p.key_b',
								pairs_query);
	EXECUTE format('DROP TABLE %I.%I', (SELECT c.relnamespace::regnamespace::name FROM pg_catalog.pg_class c WHERE c.oid = source),
				   work || '_half');
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_pairs_distributed(regclass, name, name, double precision, double precision) IS 'near_dupe_pairs of a Citus table distributed by its key (text keys; recall as near_dupe_pairs(..., NULL::text, recall)): the same pairs in the same order, the band work done on the workers, only the pairs on the coordinator; creates and drops work tables minhash_work_<pid>_<n>_* in the source''s schema';

-- The walk of the groups over the verified pairs (pairs_query: key_a,
-- key_b, size_a, size_b, resemblance), on the coordinator, and the rows
-- each pivot takes written beside the source.  The walk
-- (near_dupe_group_walk, the window function of near_dupe_query) runs over
-- the pairs only, held in temporary tables: rows without a pair need
-- nothing there, and copies set aside (see near_dupe_distributed_bands)
-- only a row each.  Its result, one row per row a pivot takes (and per
-- copy), goes to the work table <work>_assign (key, pivot_key, pivot_size,
-- resemblance), co-located with the source, whose name it returns; it drops
-- <work>_copies.
CREATE FUNCTION minhash_internal.near_dupe_distributed_assign(source regclass, key_column name, work name,
								pairs_query text, caller text)
	RETURNS text LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work_schema name;
	key_lt text;
	assign_table text;
	pairs_count bigint;
	copies_count bigint;
BEGIN
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	SELECT o.lt INTO key_lt
	  FROM pg_catalog.pg_attribute a, minhash_internal.near_dupe_key_operators(a.atttypid::regtype) o
	 WHERE a.attrelid = source AND a.attname = key_column;
	key_lt := coalesce(key_lt, 'OPERATOR(pg_catalog.<)');

	-- The pairs, then each paired row once; the walk addresses rows by
	-- their place in the latter.
	EXECUTE format('CREATE TEMP TABLE %I AS %s', work || '_pairs', pairs_query);
	EXECUTE format($q$CREATE TEMP TABLE %1$I AS
		SELECT p.key_a AS key, p.size_a AS size FROM %2$I p UNION SELECT p.key_b, p.size_b FROM %2$I p$q$,
		work || '_rows', work || '_pairs');
	EXECUTE format('ANALYZE %I, %I', work || '_pairs', work || '_rows');
	IF pg_catalog.current_setting('client_min_messages') LIKE 'debug%' THEN
		EXECUTE format('SELECT pg_catalog.count(*) FROM %I', work || '_pairs') INTO pairs_count;
	END IF;

	assign_table := format('%I.%I', work_schema, work || '_assign');
	EXECUTE format($q$CREATE UNLOGGED TABLE %1$s AS SELECT p.key_a AS key, p.key_b AS pivot_key, p.size_b AS pivot_size, p.resemblance
		FROM pg_temp.%2$I p WHERE false$q$, assign_table, work || '_pairs');
	PERFORM pg_catalog.create_distributed_table(assign_table::regclass, 'key', colocate_with => source::text);

	-- Each pair directed from its better-ranked row (more distinct
	-- shingles, then the smaller key), read in the better row's rank order.
	-- The rows taken, then the copies set aside: each goes where the row it
	-- copies went, or, if that row is a pivot, to it.
	EXECUTE format($q$CREATE TEMP TABLE %1$I AS
		SELECT w.worse_key AS key, w.better_key AS pivot_key, w.better_size AS pivot_size, w.resemblance
		  FROM (SELECT d.*, @extschema@.near_dupe_group_walk(d.better_tid, d.worse_tid)
							  OVER (ORDER BY d.better_size DESC, d.better_key, d.better_tid) AS joins
				  FROM (SELECT CASE WHEN e.a_better THEN ra.ctid ELSE rb.ctid END AS better_tid,
							   CASE WHEN e.a_better THEN rb.ctid ELSE ra.ctid END AS worse_tid,
							   CASE WHEN e.a_better THEN e.size_a ELSE e.size_b END AS better_size,
							   CASE WHEN e.a_better THEN e.key_a ELSE e.key_b END AS better_key,
							   CASE WHEN e.a_better THEN e.key_b ELSE e.key_a END AS worse_key,
							   e.resemblance
						  FROM (SELECT p.*, p.size_a > p.size_b OR (p.size_a = p.size_b AND p.key_a %4$s p.key_b) AS a_better
								  FROM pg_temp.%2$I p) e
						  JOIN pg_temp.%3$I ra ON ra.key = e.key_a
						  JOIN pg_temp.%3$I rb ON rb.key = e.key_b) d) w
		 WHERE w.joins$q$,
		work || '_taken', work || '_pairs', work || '_rows', key_lt);
	EXECUTE format('DROP TABLE pg_temp.%I, pg_temp.%I', work || '_pairs', work || '_rows');
	EXECUTE format('CREATE TEMP TABLE %I AS SELECT * FROM %I.%I', work || '_copies', work_schema, work || '_copies');
	EXECUTE format('DROP TABLE %I.%I', work_schema, work || '_copies');
	EXECUTE format('ANALYZE %I, %I', work || '_taken', work || '_copies');
	IF pg_catalog.current_setting('client_min_messages') LIKE 'debug%' THEN
		EXECUTE format('SELECT pg_catalog.count(*) FROM %I', work || '_copies') INTO copies_count;
		RAISE DEBUG '%: % verified pairs on the coordinator, % copies set aside', caller, pairs_count, copies_count;
	END IF;
	EXECUTE format($q$INSERT INTO %1$s (key, pivot_key, pivot_size, resemblance)
		SELECT t.key, t.pivot_key, t.pivot_size, t.resemblance FROM pg_temp.%2$I t
		UNION ALL
		SELECT c.key, coalesce(t.pivot_key, c.rep_key), CASE WHEN t.key IS NULL THEN c.size ELSE t.pivot_size END,
			   CASE WHEN t.key IS NULL THEN c.resemblance ELSE t.resemblance END
		  FROM pg_temp.%3$I c LEFT JOIN pg_temp.%2$I t ON t.key = c.rep_key$q$,
		assign_table, work || '_taken', work || '_copies');
	EXECUTE format('DROP TABLE pg_temp.%I, pg_temp.%I', work || '_taken', work || '_copies');
	RETURN assign_table;
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_assign(regclass, name, name, text, text) IS 'the greedy walk behind near_dupe_groups_distributed and near_dupe_groups_distributed_into, on the coordinator over the verified pairs of pairs_query only: writes the rows each pivot takes (and the copies set aside) to the work table <work>_assign beside the source and returns its name';

-- Every row of the source as near_dupe_groups gives it, from a co-located
-- join of the source with <work>_assign on the shards: the coordinator
-- sorts the rows (a sort that spills to disk beyond work_mem) and numbers
-- the groups in the same pass: a group's first row is its pivot, the one
-- row of it that no pivot took.  Ranked as near_dupe_groups ranks: most
-- distinct shingles first, then key; an unpaired row is a group of its own
-- with resemblance 1, 0 for an empty signature, null for none.  The query
-- (group_id, key, pivot, resemblance: the keys as text, or of the key's
-- type), in near_dupe_groups' order.
CREATE FUNCTION minhash_internal.near_dupe_distributed_groups_query(source regclass, key_column name, sig_column name,
								assign_table text, keys_as_text boolean)
	RETURNS text LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
BEGIN
	RETURN format($q$
SELECT pg_catalog.count(*) FILTER (WHERE NOT g.taken)
		   OVER (ORDER BY g.pivot_size DESC NULLS LAST, g.pivot_key, g.taken, g.size DESC NULLS LAST, g.key
				 ROWS UNBOUNDED PRECEDING) AS group_id,
	   g.key%5$s AS key, g.pivot_key%5$s AS pivot, g.resemblance
  FROM (SELECT s.%3$I AS key, @extschema@.minhash_size(s.%4$I) AS size, a.key IS NOT NULL AS taken,
			   coalesce(a.pivot_key, s.%3$I) AS pivot_key,
			   CASE WHEN a.key IS NULL THEN @extschema@.minhash_size(s.%4$I) ELSE a.pivot_size END AS pivot_size,
			   CASE WHEN a.key IS NOT NULL THEN a.resemblance
					WHEN @extschema@.minhash_size(s.%4$I) > 0 THEN 1.0::double precision
					WHEN @extschema@.minhash_size(s.%4$I) = 0 THEN 0.0::double precision END AS resemblance
		  FROM %1$s s LEFT JOIN %2$s a ON a.key = s.%3$I) g
 ORDER BY g.pivot_size DESC NULLS LAST, g.pivot_key, g.taken, g.size DESC NULLS LAST, g.key$q$,
		source, assign_table, key_column, sig_column, CASE WHEN keys_as_text THEN '::pg_catalog.text' ELSE '' END);
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_groups_query(regclass, name, name, text, boolean) IS 'the query of every row of a distributed table in its group, from the work table of the rows the pivots take (near_dupe_distributed_assign): group_id, key, pivot, resemblance, in near_dupe_groups'' order';

-- The groups of near_dupe_groups (text keys; with recall, those of
-- near_dupe_groups(..., NULL::text, recall)), in its order.
CREATE FUNCTION @extschema@.near_dupe_groups_distributed(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT @extschema@.minhash_threshold(),
								recall double precision DEFAULT NULL)
	RETURNS TABLE(group_id bigint, key text, pivot text, resemblance double precision)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work name := minhash_internal.near_dupe_distributed_work_name(source);
	pairs_query text;
	assign_table text;
	caller_work_mem text;
BEGIN
	pairs_query := minhash_internal.near_dupe_distributed_candidates(source, key_column, sig_column, threshold, recall, work, true);
	assign_table := minhash_internal.near_dupe_distributed_assign(source, key_column, work, pairs_query, 'near_dupe_groups_distributed');
	EXECUTE format('DROP TABLE %I.%I', (SELECT c.relnamespace::regnamespace::name FROM pg_catalog.pg_class c WHERE c.oid = source),
				   work || '_half');

	-- The last statement holds three buffers of every row on the
	-- coordinator at once, each spilling to disk beyond work_mem: Citus's
	-- tuple store of the shards' rows, the sort, and this function's
	-- result.  They share work_mem, so that the coordinator holds about
	-- work_mem for them however large the table.
	caller_work_mem := pg_catalog.current_setting('work_mem');
	PERFORM pg_catalog.set_config('work_mem',
		greatest(64, (SELECT g.setting::integer FROM pg_catalog.pg_settings g WHERE g.name = 'work_mem') / 3) || 'kB',
		true);
	RETURN QUERY EXECUTE minhash_internal.near_dupe_distributed_groups_query(source, key_column, sig_column, assign_table, true);
	PERFORM pg_catalog.set_config('work_mem', caller_work_mem, true);
	EXECUTE format('DROP TABLE %s', assign_table);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_groups_distributed(regclass, name, name, double precision, double precision) IS 'near_dupe_groups of a Citus table distributed by its key (text keys; recall as near_dupe_groups(..., NULL::text, recall)): the same rows in the same order, the band work done on the workers, the greedy walk on the coordinator over the pairs only; creates and drops work tables minhash_work_<pid>_<n>_* in the source''s schema';

-------------------------------------------------------------------------------
-- Pairs and groups of a Citus-distributed table into a table, a step per
-- transaction
-------------------------------------------------------------------------------

-- The functions above are one transaction, and nothing a step writes
-- leaves the workers' disk before it ends: Citus keeps each repartitioned
-- step's intermediate files until then, and a dropped or emptied table's
-- files go at commit.  So they need every step's work at once
-- (test/citus/README.md has the figures).  The procedures
-- below commit after the band keys and after each slice of the pairs, so
-- that the workers hold the band keys and one slice's candidates at a
-- time; each slice reads the band keys once more.  The verified pairs
-- collect in <work>_pairs (key_a, key_b, size_a, size_b, resemblance),
-- co-located with the source, and the result goes to a new table,
-- distributed beside the source.  A procedure that commits may not carry a
-- SET clause, so these set search_path themselves, first and after each
-- COMMIT, and leave the work to functions that pin it.

-- The first transaction: the result table (an error if it exists, before
-- any work; an unqualified name goes to the source's schema), then
-- <work>_pairs and the band keys (near_dupe_distributed_bands).  Returns
-- the result table's name, min_bands and the number of slices.
CREATE FUNCTION minhash_internal.near_dupe_distributed_into_start(source regclass, key_column name, sig_column name,
								result_table text, threshold double precision, recall double precision,
								slices integer, groups boolean, work name,
								OUT result_name text, OUT min_bands integer, OUT slice_count integer)
	LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work_schema name;
	result_parts text[];
	bands record;
BEGIN
	IF result_table IS NULL THEN
		RAISE EXCEPTION 'result_table must not be null'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Give the name of a table to create for the result, such as ''near_dupes'' or ''review.near_dupes''.';
	END IF;
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	result_parts := pg_catalog.parse_ident(result_table);
	IF pg_catalog.cardinality(result_parts) > 2 THEN
		RAISE EXCEPTION 'improper table name for the result: %', result_table
			USING ERRCODE = 'invalid_name',
				  HINT = 'Give a table name, or a schema and a table name (schema.table).';
	END IF;
	result_name := CASE pg_catalog.cardinality(result_parts)
					   WHEN 1 THEN format('%I.%I', work_schema, result_parts[1])
					   ELSE format('%I.%I', result_parts[1], result_parts[2]) END;
	IF groups THEN
		EXECUTE format('CREATE TABLE %s AS SELECT NULL::bigint AS group_id, s.%I AS key, s.%2$I AS pivot, NULL::double precision AS resemblance FROM %s s WHERE false',
					   result_name, key_column, source);
	ELSE
		EXECUTE format('CREATE TABLE %s AS SELECT s.%I AS key_a, s.%2$I AS key_b, NULL::double precision AS resemblance FROM %s s WHERE false',
					   result_name, key_column, source);
	END IF;

	SELECT * INTO bands
	  FROM minhash_internal.near_dupe_distributed_bands(source, key_column, sig_column, threshold, recall, work, groups, slices);
	min_bands := bands.min_bands;
	slice_count := bands.slice_count;
	PERFORM pg_catalog.create_distributed_table(result_name::regclass, CASE WHEN groups THEN 'key' ELSE 'key_a' END,
												colocate_with => source::text);
	EXECUTE format('CREATE UNLOGGED TABLE %I.%I AS SELECT h.key_a, h.key_b, h.size_a, h.size_b, NULL::double precision AS resemblance FROM %1$I.%3$I h WHERE false',
				   work_schema, work || '_pairs', work || '_half');
	PERFORM pg_catalog.create_distributed_table(format('%I.%I', work_schema, work || '_pairs')::regclass, 'key_a',
												colocate_with => source::text);
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_into_start(regclass, name, name, text, double precision, double precision, integer, boolean, name) IS 'the first transaction of near_dupe_pairs_distributed_into and near_dupe_groups_distributed_into: creates the result table, the work table <work>_pairs and the band keys; returns the result table''s name, the layout''s min_bands and the number of slices';

-- One transaction per slice: its verified pairs into <work>_pairs.
CREATE FUNCTION minhash_internal.near_dupe_distributed_into_slice(source regclass, key_column name, sig_column name,
								threshold double precision, work name, min_bands integer,
								slice integer, slice_count integer)
	RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work_schema name;
BEGIN
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	EXECUTE format('INSERT INTO %I.%I (key_a, key_b, size_a, size_b, resemblance) %s', work_schema, work || '_pairs',
				   minhash_internal.near_dupe_distributed_slice(source, key_column, sig_column, threshold, work, min_bands,
														   slice, slice_count));
	EXECUTE format('TRUNCATE %I.%I', work_schema, work || '_half');
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_into_slice(regclass, name, name, double precision, name, integer, integer, integer) IS 'a transaction of near_dupe_pairs_distributed_into and near_dupe_groups_distributed_into: the verified pairs of one slice into the work table <work>_pairs';

-- The last transaction: the result from <work>_pairs (the groups: the walk
-- on the coordinator, then every row), and the work tables dropped.
CREATE FUNCTION minhash_internal.near_dupe_distributed_into_finish(source regclass, key_column name, sig_column name,
								result_name text, groups boolean, work name, caller text)
	RETURNS void LANGUAGE plpgsql VOLATILE PARALLEL UNSAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	work_schema name;
	assign_table text;
BEGIN
	SELECT c.relnamespace::regnamespace::name INTO work_schema FROM pg_catalog.pg_class c WHERE c.oid = source;
	EXECUTE format('DROP TABLE %1$I.%2$I, %1$I.%3$I, %1$I.%4$I, %1$I.%5$I', work_schema,
				   work || '_bands', work || '_cand', work || '_sketched', work || '_half');
	IF NOT groups THEN
		EXECUTE format('INSERT INTO %s (key_a, key_b, resemblance) SELECT p.key_a, p.key_b, p.resemblance FROM %I.%I p',
					   result_name, work_schema, work || '_pairs');
		EXECUTE format('DROP TABLE %I.%I', work_schema, work || '_pairs');
		RETURN;
	END IF;
	assign_table := minhash_internal.near_dupe_distributed_assign(source, key_column, work,
		format('SELECT p.key_a, p.key_b, p.size_a, p.size_b, p.resemblance FROM %I.%I p', work_schema, work || '_pairs'), caller);
	EXECUTE format('DROP TABLE %I.%I', work_schema, work || '_pairs');
	-- Every row passes through the coordinator to be numbered: Citus's tuple
	-- store of the shards' rows, the sort and the rows to insert share
	-- work_mem, each spilling to disk beyond its third.
	PERFORM pg_catalog.set_config('work_mem',
		greatest(64, (SELECT g.setting::integer FROM pg_catalog.pg_settings g WHERE g.name = 'work_mem') / 3) || 'kB',
		true);
	EXECUTE format('INSERT INTO %s (group_id, key, pivot, resemblance) %s', result_name,
				   minhash_internal.near_dupe_distributed_groups_query(source, key_column, sig_column, assign_table, false));
	EXECUTE format('DROP TABLE %s', assign_table);
END
$function$;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_into_finish(regclass, name, name, text, boolean, name, text) IS 'the last transaction of near_dupe_pairs_distributed_into and near_dupe_groups_distributed_into: the result from the work table <work>_pairs into the result table, the work tables dropped';

CREATE FUNCTION minhash_internal.near_dupe_distributed_refuse_transaction_block(procedure text) RETURNS void
	AS 'MODULE_PATHNAME', 'near_dupe_distributed_refuse_transaction_block' LANGUAGE C VOLATILE STRICT PARALLEL UNSAFE;

COMMENT ON FUNCTION minhash_internal.near_dupe_distributed_refuse_transaction_block(text) IS 'an error (25001) inside a transaction block, where the procedure named would fail at its first COMMIT';

CREATE PROCEDURE minhash_internal.near_dupe_distributed_into(source regclass, key_column name, sig_column name,
								result_table text, threshold double precision, recall double precision,
								slices integer, groups boolean, caller text)
	LANGUAGE plpgsql
	AS $procedure$
DECLARE
	work name;
	start record;
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	PERFORM minhash_internal.near_dupe_distributed_refuse_transaction_block(caller);
	work := minhash_internal.near_dupe_distributed_work_name(source);
	SELECT * INTO start
	  FROM minhash_internal.near_dupe_distributed_into_start(source, key_column, sig_column, result_table, threshold, recall,
														slices, groups, work);
	FOR slice_number IN 1 .. start.slice_count LOOP
		COMMIT;
		PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
		PERFORM minhash_internal.near_dupe_distributed_into_slice(source, key_column, sig_column, threshold, work,
															 start.min_bands, slice_number, start.slice_count);
	END LOOP;
	COMMIT;
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	PERFORM minhash_internal.near_dupe_distributed_into_finish(source, key_column, sig_column, start.result_name, groups, work,
														  caller);
END
$procedure$;

COMMENT ON PROCEDURE minhash_internal.near_dupe_distributed_into(regclass, name, name, text, double precision, double precision, integer, boolean, text) IS 'the steps of near_dupe_pairs_distributed_into and near_dupe_groups_distributed_into, each committed: the band keys, each slice of the pairs, the result';

-- Into result_table (created; an error if it exists): the pairs of
-- near_dupe_pairs_distributed (key_a, key_b of the key's type, resemblance),
-- distributed by key_a beside the source.
CREATE PROCEDURE @extschema@.near_dupe_pairs_distributed_into(source regclass, key_column name, sig_column name,
								result_table text,
								threshold double precision DEFAULT @extschema@.minhash_threshold(),
								recall double precision DEFAULT NULL, slices integer DEFAULT NULL)
	LANGUAGE plpgsql
	AS $procedure$
DECLARE
	caller_path text := pg_catalog.current_setting('search_path');
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	CALL minhash_internal.near_dupe_distributed_into(source, key_column, sig_column, result_table, threshold, recall, slices,
												false, 'near_dupe_pairs_distributed_into');
	-- The pinned path was set again after the last COMMIT, in the
	-- transaction the caller goes on with: give it back the caller's.
	PERFORM pg_catalog.set_config('search_path', caller_path, true);
END
$procedure$;

COMMENT ON PROCEDURE @extschema@.near_dupe_pairs_distributed_into(regclass, name, name, text, double precision, double precision, integer) IS 'the pairs of near_dupe_pairs_distributed written to a new table result_table (key_a, key_b, resemblance), distributed by key_a beside the source, committing after each step (outside a transaction block only) so that the workers hold one slice of the candidate pairs at a time: slices, or one per million rows';

-- Into result_table (created; an error if it exists): the rows of
-- near_dupe_groups_distributed (group_id, key and pivot of the key's type,
-- resemblance), distributed by key beside the source.
CREATE PROCEDURE @extschema@.near_dupe_groups_distributed_into(source regclass, key_column name, sig_column name,
								result_table text,
								threshold double precision DEFAULT @extschema@.minhash_threshold(),
								recall double precision DEFAULT NULL, slices integer DEFAULT NULL)
	LANGUAGE plpgsql
	AS $procedure$
DECLARE
	caller_path text := pg_catalog.current_setting('search_path');
BEGIN
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	CALL minhash_internal.near_dupe_distributed_into(source, key_column, sig_column, result_table, threshold, recall, slices,
												true, 'near_dupe_groups_distributed_into');
	-- The pinned path was set again after the last COMMIT, in the
	-- transaction the caller goes on with: give it back the caller's.
	PERFORM pg_catalog.set_config('search_path', caller_path, true);
END
$procedure$;

COMMENT ON PROCEDURE @extschema@.near_dupe_groups_distributed_into(regclass, name, name, text, double precision, double precision, integer) IS 'the groups of near_dupe_groups_distributed written to a new table result_table (group_id, key, pivot, resemblance), distributed by key beside the source, committing after each step (outside a transaction block only) so that the workers hold one slice of the candidate pairs at a time: slices, or one per million rows';

----- What the 1.2 library changed before this update (keep this section last) -----

-- The library serves every installed version's SQL, so 1.2's rule for a
-- document without words (its signature resembles nothing, itself included)
-- reached 1.1's functions as soon as the library was installed; every other
-- result of 1.1's functions is the same (test/upgrade/library_diff.sh).
-- Values a 1.1 database stored from those functions may hold the old
-- answers: say which of the user's objects can, and what to do.  Only when
-- the database has a signature column or an object over those functions, so
-- a fresh install says nothing.  Creates nothing.
DO $warning$
DECLARE
	ext oid := (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname OPERATOR(pg_catalog.=) 'minhash');
	sig_type oid := (SELECT t.oid FROM pg_catalog.pg_type t
					   WHERE t.typname OPERATOR(pg_catalog.=) 'minhash'
						 AND t.typnamespace OPERATOR(pg_catalog.=) (SELECT e.extnamespace FROM pg_catalog.pg_extension e
																	  WHERE e.oid OPERATOR(pg_catalog.=) ext));
	yours text[];
BEGIN
	SELECT pg_catalog.array_agg(what ORDER BY what) INTO yours FROM (
		-- columns of signatures
		SELECT pg_catalog.format('column %s.%I', a.attrelid::pg_catalog.regclass, a.attname) AS what
		  FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid OPERATOR(pg_catalog.=) a.attrelid
		 WHERE a.atttypid OPERATOR(pg_catalog.=) sig_type AND NOT a.attisdropped
		   AND c.relkind OPERATOR(pg_catalog.=) ANY ('{r,p,m,f}'::pg_catalog."char"[])
		UNION
		-- indexes, materialized views, generated columns, constraints and
		-- triggers of the user's over a changed function or operator (views
		-- and functions compute again on each call: not listed)
		SELECT pg_catalog.pg_describe_object(d.classid, d.objid, d.objsubid)
		  FROM pg_catalog.pg_depend d
		  JOIN pg_catalog.pg_depend m ON m.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_extension'::pg_catalog.regclass
									  AND m.refobjid OPERATOR(pg_catalog.=) ext AND m.deptype OPERATOR(pg_catalog.=) 'e'
									  AND m.classid OPERATOR(pg_catalog.=) d.refclassid AND m.objid OPERATOR(pg_catalog.=) d.refobjid
		 WHERE d.deptype OPERATOR(pg_catalog.<>) 'e'
		   AND d.classid OPERATOR(pg_catalog.=) ANY (ARRAY['pg_catalog.pg_class', 'pg_catalog.pg_attrdef', 'pg_catalog.pg_constraint',
														  'pg_catalog.pg_trigger', 'pg_catalog.pg_rewrite']::pg_catalog.regclass[]::pg_catalog.oid[])
		   AND (EXISTS (SELECT 1 FROM pg_catalog.pg_proc p
						 WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_proc'::pg_catalog.regclass
						   AND p.oid OPERATOR(pg_catalog.=) d.refobjid
						   AND p.proname OPERATOR(pg_catalog.=) ANY ('{resemblance,containment,minhash_distance,minhash_similar,minhash_similar_text,minhash_query_match,resembles,resembles_approx,resemblance_interval,shingle_resemblance,chunk_similarity,minhash_flag_duplicates}'::pg_catalog.name[]))
				OR EXISTS (SELECT 1 FROM pg_catalog.pg_operator o
							WHERE d.refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_operator'::pg_catalog.regclass
							  AND o.oid OPERATOR(pg_catalog.=) d.refobjid
							  AND o.oprname OPERATOR(pg_catalog.=) ANY ('{%,%>,%~,<%>}'::pg_catalog.name[])))
		   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend x
							WHERE x.classid OPERATOR(pg_catalog.=) d.classid AND x.objid OPERATOR(pg_catalog.=) d.objid
							  AND x.deptype OPERATOR(pg_catalog.=) 'e')
		   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_rewrite r JOIN pg_catalog.pg_class v ON v.oid OPERATOR(pg_catalog.=) r.ev_class
							WHERE d.classid OPERATOR(pg_catalog.=) 'pg_catalog.pg_rewrite'::pg_catalog.regclass
							  AND r.oid OPERATOR(pg_catalog.=) d.objid AND v.relkind OPERATOR(pg_catalog.=) 'v')) found;
	IF yours IS NULL THEN
		RETURN;
	END IF;
	RAISE WARNING 'since the minhash 1.2 library was installed, a document without words resembles nothing, itself included'
		USING DETAIL = pg_catalog.format('For a signature of size 0 (a text without words), resemblance(), containment() and shingle_resemblance() now give 0, <%%> 1, chunk_similarity() s_j and s_l 0, resemblance_interval() [0, 0], and %%, %%>, %%~, resembles() and resembles_approx() false at every threshold (before 1.2: 1 and true for two of them, and true at threshold 0); the flagging trigger, near_dupe_pairs and near_dupe_groups no longer pair such rows. Every other result, the signatures and the GIN index keys are unchanged. Yours that may hold the old answers: %s.',
										 pg_catalog.array_to_string(yours[1:20], ', ')
										 OPERATOR(pg_catalog.||) CASE WHEN pg_catalog.cardinality(yours) OPERATOR(pg_catalog.>) 20
																	  THEN pg_catalog.format(' and %s more', pg_catalog.cardinality(yours) OPERATOR(pg_catalog.-) 20) ELSE '' END),
			  HINT = 'Recompute what you stored from these functions for rows whose minhash_size(sig) is 0: UPDATE t SET sig = sig WHERE minhash_size(sig) = 0 re-flags them and recomputes generated columns; REINDEX expression indexes over these functions, refresh materialized views, and group again tables of near_dupe_groups that hold such rows. GIN indexes need nothing. See CHANGELOG.md, "Upgrading from 1.1".';
END
$warning$;
