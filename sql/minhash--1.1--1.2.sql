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
-- them).
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_query(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT @extschema@.minhash_threshold(), groups boolean DEFAULT false)
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
	SELECT o.lt, o.eq INTO key_lt, key_eq FROM @extschema@.near_dupe_key_operators(stats.key_type) o;
	key_lt := coalesce(key_lt, 'OPERATOR(pg_catalog.<)');
	key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');

	-- The band layout that finds every pair at the threshold: the engine's
	-- pigeonhole layout (mh_pigeonhole_layout, through lsh_index_layout)
	-- with the index's spare bands, a pair being a candidate when it shares
	-- min_bands of them, and kept when it resembles at the threshold.  An
	-- empty signature (no words) resembles nothing: it has no band keys
	-- here, and the verification refuses it too, as % does.
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
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(threshold, stats.num_perm);
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
SELECT first_key::text AS key_a, second_key::text AS key_b, resemblance
  FROM (SELECT CASE WHEN a_first THEN key_a ELSE key_b END AS first_key,
			   CASE WHEN a_first THEN key_b ELSE key_a END AS second_key, resemblance
		  FROM (SELECT p.*, coalesce(p.key_a %2$s p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
							OR (coalesce(p.key_a %3$s p.key_b, p.key_a IS NULL AND p.key_b IS NULL)
								AND p.tid_a < p.tid_b) AS a_first
				  FROM (%1$s) p) d) o
 ORDER BY first_key, second_key$q$, pairs_query, key_lt, key_eq);
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
		   @extschema@.minhash_hash_extended(s.%3$I, 0) AS sig_hash
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
	   key::text AS key, pivot_key::text AS pivot, resemblance
  FROM assigned a
 ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid, tid <> pivot_tid, size DESC NULLS LAST, a.key, tid$q$,
		pairs_query, key_column, sig_column, source, verify, key_lt, key_eq);
END
$function$;


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
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, true);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
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
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, true);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	FOREACH column_name IN ARRAY ARRAY[key_column, text_column] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name
														AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = @extschema@.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;
	-- Keys matched by their text, as near_dupe_groups wrote them; a key the
	-- source does not hold has no text, and keeps the class its group gives.
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
						   FROM %4$s s) d ON d.key = z.key
		)
		SELECT (ARRAY['near-duplicates', 'singletons', 'no words', 'numbers only', 'no signature'])[r.rank],
			   pg_catalog.count(c.group_id), pg_catalog.count(DISTINCT c.group_id)
		  FROM pg_catalog.generate_series(1, 5) r(rank) LEFT JOIN classed c ON c.rank = r.rank
		 GROUP BY r.rank ORDER BY r.rank
		$q$, group_table, key_column, text_column, source);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_classes(regclass, regclass, name, name) IS 'near_dupe_classes(group_table) with documents of numbers only (minhash_document_class of the text column, matched by key) counted apart from the groups they are in';
