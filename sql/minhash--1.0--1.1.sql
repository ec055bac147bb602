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

-- The three PL/pgSQL functions of 1.0 that ran with the caller's
-- search_path, where an operator or function with no exact match in
-- pg_catalog (oid = regclass, float8 >= integer, float8 - numeric,
-- format(unknown, name, regclass), count(minhash), ...) could be taken from
-- any schema on the path.  Their bodies name the extension's objects
-- through @extschema@ already.  near_dupe_pairs is pinned as it is;
-- near_dupe_check and near_dupe_query are replaced, pinned, with the changes
-- the pinned path calls for.  resembles() stays unpinned, so that the
-- planner can inline it into sig %> minhash_query(b, threshold): its body
-- qualifies every reference and every argument has the exact type.
-- sql/security.sql checks every SQL and PL/pgSQL function for one or the
-- other, and plants objects for every signature the bodies use.
ALTER FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision)
	SET search_path = pg_catalog, pg_temp;

-- The checks of the arguments near_dupe_groups, near_dupe_pairs and
-- near_dupe_check share: near_dupe_groups and near_dupe_pairs call this,
-- then read the table once themselves, checking the signatures as they
-- come; near_dupe_check calls it, then checks the signatures in a scan of
-- its own.  It names the relation in its messages by its name (a regclass
-- prints schema-qualified under the pinned path).  For a partitioned table
-- the hint says to group a plain table of its keys and signatures: grouping
-- each partition alone misses the pairs across partitions.
CREATE FUNCTION @extschema@.near_dupe_check_arguments(source regclass, key_column name, sig_column name,
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
	RETURN key_type;
END
$function$;
COMMENT ON FUNCTION @extschema@.near_dupe_check_arguments(regclass, name, name, double precision) IS 'checks the arguments of near_dupe_groups, near_dupe_pairs, near_dupe_check and near_dupe_query (a table or materialized view, its key column, a minhash signature column, a threshold between 0 and 1 or null) without reading the table; returns the key column''s type';

-- near_dupe_check: the checks of near_dupe_check_arguments, then a scan
-- that counts the rows and checks that every signature was built the same
-- way, pinned.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_check(source regclass, key_column name, sig_column name,
								threshold double precision,
								OUT row_count bigint, OUT signed bigint, OUT num_perm integer, OUT key_type oid)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	stats record;
BEGIN
	near_dupe_check.key_type := @extschema@.near_dupe_check_arguments(source, key_column, sig_column, threshold);

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

-- near_dupe_query as in 1.0, pinned.  Its query compared keys with an
-- unqualified < and IS NOT DISTINCT FROM, which under the pinned path would
-- miss a key type's own operators (citext's, in the caller's schema) and
-- compare as text: it now names the key type's btree operators.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_query(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT NULL, groups boolean DEFAULT false)
	RETURNS text LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	stats record;
	layout_threshold double precision;
	verify text;
	layout record;
	pairs_query text;
	key_base oid;
	key_lt text;
	key_eq text;
BEGIN
	IF groups IS NULL THEN
		RAISE EXCEPTION 'groups must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT * INTO stats FROM @extschema@.near_dupe_check(source, key_column, sig_column, threshold);

	-- Keys compare by their type's default btree order, as near_dupe_groups
	-- and ORDER BY compare them: its < and = by schema, since the pinned
	-- path may not hold them (citext); pg_catalog's serve the types whose
	-- order comes from a related type (varchar, enums, arrays, records).
	key_base := stats.key_type;
	WHILE (SELECT t.typtype = 'd' FROM pg_catalog.pg_type t WHERE t.oid = key_base) LOOP
		SELECT t.typbasetype INTO key_base FROM pg_catalog.pg_type t WHERE t.oid = key_base;
	END LOOP;
	SELECT pg_catalog.format('OPERATOR(%I.%s)', lt_ns.nspname, lt.oprname),
		   pg_catalog.format('OPERATOR(%I.%s)', eq_ns.nspname, eq.oprname)
	  INTO key_lt, key_eq
	  FROM pg_catalog.pg_opclass c
	  JOIN pg_catalog.pg_am m ON m.oid = c.opcmethod AND m.amname = 'btree'
	  JOIN pg_catalog.pg_amop lt_op ON lt_op.amopfamily = c.opcfamily AND lt_op.amopstrategy = 1
		   AND lt_op.amoplefttype = c.opcintype AND lt_op.amoprighttype = c.opcintype
	  JOIN pg_catalog.pg_operator lt ON lt.oid = lt_op.amopopr
	  JOIN pg_catalog.pg_namespace lt_ns ON lt_ns.oid = lt.oprnamespace
	  JOIN pg_catalog.pg_amop eq_op ON eq_op.amopfamily = c.opcfamily AND eq_op.amopstrategy = 3
		   AND eq_op.amoplefttype = c.opcintype AND eq_op.amoprighttype = c.opcintype
	  JOIN pg_catalog.pg_operator eq ON eq.oid = eq_op.amopopr
	  JOIN pg_catalog.pg_namespace eq_ns ON eq_ns.oid = eq.oprnamespace
	 WHERE c.opcdefault AND c.opcintype = key_base;
	key_lt := coalesce(key_lt, 'OPERATOR(pg_catalog.<)');
	key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');

	-- The threshold, and the band layout that finds every pair at it.  With
	-- no threshold given, the pairs are those of % (the setting itself), and
	-- the layout is taken a hair lower since SHOW rounds the setting.
	IF threshold IS NULL THEN
		layout_threshold := greatest(0, pg_catalog.current_setting('minhash.threshold')::double precision - 1e-6);
		verify := format('sa.%1$I OPERATOR(@extschema@.%%) sb.%1$I', sig_column);
	ELSE
		layout_threshold := threshold;
		verify := format('@extschema@.resemblance(sa.%1$I, sb.%1$I) >= %2$L::double precision', sig_column, threshold);
	END IF;
	IF stats.signed < 2 THEN
		pairs_query := 'SELECT NULL::tid AS tid_a, NULL::tid AS tid_b, NULL::bigint AS size_a, NULL::bigint AS size_b, '
					   || format('NULL::%s AS key_a, NULL::%1$s AS key_b, ', pg_catalog.format_type(stats.key_type, NULL))
					   || 'NULL::double precision AS resemblance WHERE false';
	ELSE
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(layout_threshold, stats.num_perm);
		pairs_query := format($q$
	WITH band_keys AS (
		SELECT s.ctid AS tid, k.band_key
		  FROM ONLY %1$s s CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.minhash_bands(s.%3$I, %4$s, %5$s)) AS k(band_key)
		 WHERE s.%3$I IS NOT NULL%8$s
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
	-- else as a pivot itself (resemblance 1; null for a null signature).
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
	SELECT r.sig_hash FROM rows_read r WHERE r.size IS NOT NULL GROUP BY r.sig_hash HAVING pg_catalog.count(*) > 1
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
		   CASE WHEN t.tid IS NOT NULL THEN t.resemblance WHEN s.size IS NOT NULL THEN 1.0::double precision END AS resemblance
	  FROM rows_read s LEFT JOIN (SELECT * FROM taken UNION ALL SELECT * FROM taken_copies) t ON t.tid = s.tid
)
SELECT dense_rank() OVER (ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid) AS group_id,
	   key::text AS key, pivot_key::text AS pivot, resemblance
  FROM assigned a
 ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid, tid <> pivot_tid, size DESC NULLS LAST, a.key, tid$q$,
		pairs_query, key_column, sig_column, source, verify, key_lt, key_eq);
END
$function$;

-------------------------------------------------------------------------------
-- Estimation and signatures of mixed parameters
-------------------------------------------------------------------------------

-- The C functions behind %, %> and resemblance_interval changed in the
-- library only (same SQL signatures): % and %> (so resembles() and the
-- flagging trigger) are false for a signature built with other parameters
-- instead of raising, so scans, index rechecks and matchingsel's estimate
-- over a column of mixed signatures never fail; resemblance_interval follows
-- the set-returning protocol.  The comments say so.

COMMENT ON FUNCTION minhash_similar(minhash, minhash) IS 'true when the estimated resemblance is at least minhash.threshold; false for signatures built with other parameters';
COMMENT ON OPERATOR %(minhash, minhash) IS 'is a near-duplicate: estimated resemblance at least minhash.threshold (false for signatures built with other parameters)';
COMMENT ON FUNCTION minhash_query_match(minhash, minhash_query) IS 'true when the estimated resemblance is at least the query''s threshold; false for signatures built with other parameters';
COMMENT ON OPERATOR %>(minhash, minhash_query) IS 'is a near-duplicate at the query''s own threshold (false for signatures built with other parameters)';
COMMENT ON FUNCTION resembles(minhash, minhash, double precision) IS 'true when the estimated resemblance is at least threshold: the % operator with the threshold in the query; false for signatures built with other parameters';
COMMENT ON FUNCTION minhash_lt(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than';
COMMENT ON FUNCTION minhash_le(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than or equal';
COMMENT ON FUNCTION minhash_gt(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than';
COMMENT ON FUNCTION minhash_ge(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than or equal';
COMMENT ON FUNCTION minhash_cmp(minhash, minhash) IS 'btree support: order of signatures, their bytes as a little-endian machine stores them';
COMMENT ON OPERATOR <(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than';
COMMENT ON OPERATOR <=(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than or equal';
COMMENT ON OPERATOR >(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than';
COMMENT ON OPERATOR >=(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than or equal';



-------------------------------------------------------------------------------
-- Builders
-------------------------------------------------------------------------------

-- Character shingles with minhash()'s argument order (doc, num_perm,
-- shingle_size, seed).  minhash_chars(doc, q, num_perm, seed) stays as it
-- was: reordering it would silently change the meaning of every positional
-- call (minhash_chars(doc, 3) means q = 3), and views, generated columns and
-- indexes may depend on it.
CREATE FUNCTION minhash_char_shingles(doc text, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_char_shingles' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_char_shingles(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (shingle_size consecutive characters of its words, one space between words); the arguments in minhash()''s order';
COMMENT ON FUNCTION minhash_chars(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (q consecutive characters of its words, one space between words); kept for compatibility: minhash_char_shingles takes the arguments in minhash()''s order';



-------------------------------------------------------------------------------
-- The index layout
-------------------------------------------------------------------------------

-- gin_minhash_ops records its key layout in the option `layout` (absent:
-- layout 1, minhash 1.0's keys), and its other defaults come from that
-- layout, not from the running library (src/minhash_gin.c).  The options
-- procedure is C; only its description changes here.
COMMENT ON FUNCTION minhash_gin_options(internal) IS 'GIN support: the bands, rows, threshold, key_bits and layout options';


-------------------------------------------------------------------------------
-- Grouping
-------------------------------------------------------------------------------

-- One grouping: near_dupe_groups runs the greedy walk in memory, up to
-- minhash.group_memory; a table beyond it is refused, and the path for it is
-- the same grouping as one SQL statement (near_dupe_query(..., groups =>
-- true), walked by near_dupe_group_walk), which sql/group.sql checks gives
-- the same rows exactly where near_dupe_groups refuses.
COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision) IS 'every row in one near-duplicate group: pivots are the rows with the most distinct shingles (ties by key), each taking the rows not yet taken whose resemblance to it is at least threshold; in memory, up to minhash.group_memory (beyond it, run near_dupe_query(..., groups => true))';
COMMENT ON FUNCTION @extschema@.near_dupe_query(regclass, name, name, double precision, boolean) IS 'the query near_dupe_pairs runs (groups false), or the grouping of near_dupe_groups as one SQL statement, the path for a table beyond minhash.group_memory (groups true; run it with enable_hashagg and enable_mergejoin off); checks the arguments and reads the signatures'' parameters';


-------------------------------------------------------------------------------
-- The trigger
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Explain and report functions
-------------------------------------------------------------------------------


-------------------------------------------------------------------------------
-- Everyday use: reports and typed keys
-------------------------------------------------------------------------------

-- Keys in their own type, joinable to the source without a cast: the
-- json_populate_record convention, a typed argument (NULL::bigint) whose
-- type the key columns of the result take; it must be the key column's own
-- type.  The signatures with text keys stay as they were.
CREATE FUNCTION @extschema@.near_dupe_groups(source regclass, key_column name, sig_column name,
								 threshold double precision, key_type anyelement)
	RETURNS TABLE(group_id bigint, key anyelement, pivot anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision, anyelement) IS 'near_dupe_groups with the keys in the key column''s own type, given as key_type (NULL::bigint), so that the result joins the source without a cast';

-- The text keys of near_dupe_query's pairs, read back in the key column's
-- type (text output reads back exactly), after its checks.
CREATE FUNCTION @extschema@.near_dupe_pairs(source regclass, key_column name, sig_column name,
								threshold double precision, key_type anyelement)
	RETURNS TABLE(key_a anyelement, key_b anyelement, resemblance double precision)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET enable_hashagg = off
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	pairs_query text;
	column_type oid;
	column_base oid;
BEGIN
	pairs_query := @extschema@.near_dupe_query(source, key_column, sig_column, threshold, false);
	SELECT a.atttypid INTO column_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	-- For a key column of a domain, the domain's base type serves too.
	column_base := column_type;
	WHILE (SELECT t.typtype = 'd' FROM pg_catalog.pg_type t WHERE t.oid = column_base) LOOP
		SELECT t.typbasetype INTO column_base FROM pg_catalog.pg_type t WHERE t.oid = column_base;
	END LOOP;
	IF pg_catalog.pg_typeof(key_type) NOT IN (column_type, column_base) THEN
		RAISE EXCEPTION 'key_type % does not match column "%" of relation "%", of type %',
			pg_catalog.pg_typeof(key_type), key_column,
			(SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = source), column_type::regtype
			USING ERRCODE = 'datatype_mismatch',
				  HINT = format('Pass NULL::%s as key_type: the key columns of the result take its type.', column_type::regtype);
	END IF;
	RETURN QUERY EXECUTE format('SELECT CAST(p.key_a AS %1$s), CAST(p.key_b AS %1$s), p.resemblance FROM (%2$s) p',
								pg_catalog.format_type(pg_catalog.pg_typeof(key_type), NULL), pairs_query);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision, anyelement) IS 'near_dupe_pairs with the keys in the key column''s own type, given as key_type (NULL::bigint), so that the result joins the source without a cast';

-- What a report needs of its group table (a stored result of
-- near_dupe_groups): group_id of an integer type and, for the reports that
-- read members, key and pivot of one type (text or the key's own) and a
-- numeric resemblance.  The problem, if any, comes back rather than raised,
-- so that each report raises it itself, without a stack of context lines.
CREATE FUNCTION @extschema@.near_dupe_group_table_problem(group_table regclass, members boolean,
								OUT sqlstate text, OUT message text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	relation name;
	kind "char";
	group_id_type oid;
	key_type oid;
	pivot_type oid;
	resemblance_type oid;
BEGIN
	SELECT c.relname, c.relkind INTO relation, kind FROM pg_catalog.pg_class c WHERE c.oid = group_table;
	IF NOT FOUND THEN
		sqlstate := '42P01';
		message := format('relation with OID %s does not exist', group_table::oid);
		RETURN;
	END IF;
	IF kind NOT IN ('r', 'v', 'm', 'f', 'p') THEN
		sqlstate := '42809';
		message := format('"%s" is not a table, view or materialized view', relation);
		RETURN;
	END IF;
	SELECT max(a.atttypid) FILTER (WHERE a.attname = 'group_id'),
		   max(a.atttypid) FILTER (WHERE a.attname = 'key'),
		   max(a.atttypid) FILTER (WHERE a.attname = 'pivot'),
		   max(a.atttypid) FILTER (WHERE a.attname = 'resemblance')
	  INTO group_id_type, key_type, pivot_type, resemblance_type
	  FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = group_table AND a.attnum > 0 AND NOT a.attisdropped;
	IF group_id_type IS NULL THEN
		sqlstate := '42703';
		message := format('column "group_id" of relation "%s" does not exist', relation);
	ELSIF group_id_type NOT IN ('pg_catalog.int8'::pg_catalog.regtype, 'pg_catalog.int4'::pg_catalog.regtype,
								'pg_catalog.int2'::pg_catalog.regtype) THEN
		sqlstate := '42804';
		message := format('column "group_id" of relation "%s" is of type %s, not bigint', relation,
						  group_id_type::pg_catalog.regtype);
	ELSIF NOT members THEN
		RETURN;
	ELSIF key_type IS NULL OR pivot_type IS NULL OR resemblance_type IS NULL THEN
		sqlstate := '42703';
		message := format('column "%s" of relation "%s" does not exist',
						  CASE WHEN key_type IS NULL THEN 'key' WHEN pivot_type IS NULL THEN 'pivot' ELSE 'resemblance' END, relation);
	ELSIF key_type <> pivot_type THEN
		sqlstate := '42804';
		message := format('columns "key" and "pivot" of relation "%s" are of different types, %s and %s', relation,
						  key_type::pg_catalog.regtype, pivot_type::pg_catalog.regtype);
	ELSIF resemblance_type NOT IN ('pg_catalog.float8'::pg_catalog.regtype, 'pg_catalog.float4'::pg_catalog.regtype,
								   'pg_catalog.numeric'::pg_catalog.regtype) THEN
		sqlstate := '42804';
		message := format('column "resemblance" of relation "%s" is of type %s, not double precision', relation,
						  resemblance_type::pg_catalog.regtype);
	END IF;
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_table_problem(regclass, boolean) IS 'what the report functions need of a group table (group_id; with members, key, pivot and resemblance): the SQLSTATE and message of the first thing missing, or nulls';

-- The summary without its repeated columns (review_without_grouping was
-- documents, review_with_grouping was groups): the reviews saved instead.
DROP FUNCTION @extschema@.near_dupe_summary(regclass);

CREATE FUNCTION @extschema@.near_dupe_summary(group_table regclass)
	RETURNS TABLE(documents bigint, groups bigint, singletons bigint, documents_in_groups bigint,
				  reviews_saved bigint, review_saved_pct numeric)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, false);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
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

COMMENT ON FUNCTION @extschema@.near_dupe_summary(regclass) IS 'documents, groups, singletons, documents in groups of two or more, and the reviews saved by reading one document per group instead of every one (count and percentage)';

-- Bars on a log scale, so that a size with a few groups still draws a bar
-- of its own beside thousands of singletons (one and two groups differ up to
-- millions of groups of the largest count).
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_histogram(group_table regclass)
	RETURNS TABLE(group_size bigint, groups bigint, documents bigint, bar text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, false);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
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

COMMENT ON FUNCTION @extschema@.near_dupe_histogram(regclass) IS 'number of groups and documents per group size, with a bar of the number of groups on a log scale (ln(groups + 1); the longest is 40 wide)';

-- Resemblances rounded to 3 decimals for reading; keys typed or text.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_group_stats(group_table regclass)
	RETURNS TABLE(group_id bigint, pivot text, size bigint, avg_resemblance double precision,
				  min_resemblance double precision)
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
	-- The pivot's resemblance to itself (1) is left out of the averages.
	RETURN QUERY EXECUTE format($q$
		SELECT g.group_id::bigint, min(g.pivot::text), count(*),
			   round(avg(g.resemblance::double precision) FILTER (WHERE g.key IS DISTINCT FROM g.pivot)::numeric, 3)::double precision,
			   round(min(g.resemblance::double precision) FILTER (WHERE g.key IS DISTINCT FROM g.pivot)::numeric, 3)::double precision
		  FROM %s g GROUP BY g.group_id HAVING count(*) > 1
		 ORDER BY count(*) DESC, g.group_id
		$q$, group_table);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_stats(regclass) IS 'each group of two or more documents: its pivot, size, and the average and minimum resemblance of its members to the pivot (3 decimals)';


-------------------------------------------------------------------------------
-- Everyday use: input, settings, helpful errors
-------------------------------------------------------------------------------

-- minhash(x) of a varchar or char(n) column.  A one-argument call named like
-- a type with no exact match is read by PostgreSQL as a cast (before any
-- implicit cast of the argument is tried), so minhash(body) of a varchar
-- went through minhash_in and failed.  These exact overloads stop that.  They
-- are the C function of minhash(text): varchar is text in memory, and a
-- char(n)'s padding is spaces at the end, which the word tokenizer skips as
-- it skips them in text (sql/input.sql checks the signatures are equal).
-- An untyped literal still prefers text (string category, preferred type),
-- so minhash('...', 64), minhash(doc => '...') and untyped parameters resolve
-- as before; minhash('...') alone is still a cast, whose error now says how
-- to spell it (src/minhash_io.c).  minhash_chars() is no type name: it took
-- varchar and char(n) through their casts to text already.
CREATE FUNCTION @extschema@.minhash(doc character varying, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_words' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash(character varying, integer, integer, integer) IS 'MinHash signature of a document''s word shingles (shingle_size consecutive words); the same as minhash(doc::text, ...)';

CREATE FUNCTION @extschema@.minhash(doc character, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_words' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash(character, integer, integer, integer) IS 'MinHash signature of a document''s word shingles (shingle_size consecutive words); the same as minhash(doc::text, ...)';

-- Signatures of sets under a name of their own.  minhash(text[]) stays for
-- compatibility, but an untyped argument prefers minhash(text): a driver
-- that sends an array as an untyped parameter ('{a,b,c}') gets the word
-- signature of that text.  minhash_set() has no text form to fall into: an
-- untyped argument is read as text[], a text is refused (42883).
CREATE FUNCTION @extschema@.minhash_set(elements text[], num_perm integer DEFAULT 128, seed integer DEFAULT 0)
	RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_set' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_set(text[], integer, integer) IS 'MinHash signature of a set of strings, each taken as it is (the same as minhash(text[]), which an untyped argument cannot reach)';

-- resemblance(sig, body) with a text body: an error that says to build the
-- body's signature.  The text may be a minhash literal: an untyped literal or
-- parameter in resemblance(sig, '...') now resolves to this function (text
-- is the preferred string type), which reads it as minhash_in did, once per
-- call site.  There is no resemblance(text, minhash): with both,
-- resemblance('...', '...') of two untyped literals would be ambiguous.
CREATE FUNCTION @extschema@.resemblance(a @extschema@.minhash, b text) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_resemblance_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.resemblance(@extschema@.minhash, text) IS 'resemblance(a, b::minhash) for b a minhash literal; for any other text, an error saying to build its signature with minhash()';

-- pgvector's distance operators, <-> and <=>, on signatures: an error naming
-- minhash's own operators, not a bare "operator does not exist".  Not
-- aliases of <%>: pgvector's users expect them to order an index scan, and
-- no minhash index orders; % and %> are the indexable form.
CREATE FUNCTION @extschema@.minhash_vector_l2_operator(@extschema@.minhash, @extschema@.minhash) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_vector_l2_operator(@extschema@.minhash, @extschema@.minhash) IS 'behind <->: raises an error naming the operators to use instead';

CREATE FUNCTION @extschema@.minhash_vector_cosine_operator(@extschema@.minhash, @extschema@.minhash) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_vector_cosine_operator(@extschema@.minhash, @extschema@.minhash) IS 'behind <=>: raises an error naming the operators to use instead';

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.minhash,
	RIGHTARG = @extschema@.minhash,
	FUNCTION = @extschema@.minhash_vector_l2_operator,
	COMMUTATOR = OPERATOR(@extschema@.<->)
);

COMMENT ON OPERATOR @extschema@.<->(@extschema@.minhash, @extschema@.minhash) IS 'not supported (pgvector''s L2 distance): an error naming <%>, % and %>';

CREATE OPERATOR @extschema@.<=> (
	LEFTARG = @extschema@.minhash,
	RIGHTARG = @extschema@.minhash,
	FUNCTION = @extschema@.minhash_vector_cosine_operator,
	COMMUTATOR = OPERATOR(@extschema@.<=>)
);

COMMENT ON OPERATOR @extschema@.<=>(@extschema@.minhash, @extschema@.minhash) IS 'not supported (pgvector''s cosine distance): an error naming <%>, % and %>';




-------------------------------------------------------------------------------
-- Everyday use: the review page
-------------------------------------------------------------------------------

-- near_dupe_group_detail, one definition for 1.1: it checks its group table
-- like the other reports (reports), a key missing from source is an error
-- (input), it rounds resemblance and s_l to 3 decimals, and (here) it marks
-- both sides.  It marked the shared chunks in the member only, so the
-- text a member lacks (a dropped footer, replaced words) did not show.  It
-- gains pivot_marked: the pivot's text with the chunks it shares with that
-- member, numbered as in marked (highlight() marks both sides alike).  The
-- columns of 1.0 stay as they were, in their order; a new column of the
-- result type needs DROP and CREATE (nothing in the extension depends on
-- it; a view of the user's over it must be dropped before the update).
DROP FUNCTION @extschema@.near_dupe_group_detail(regclass, regclass, name, name, bigint, integer, text);

CREATE FUNCTION @extschema@.near_dupe_group_detail(group_table regclass, source regclass, key_column name, text_column name,
									   group_id bigint, min_words integer DEFAULT 5, format text DEFAULT 'text')
	RETURNS TABLE(key text, role text, resemblance double precision, common_words integer,
				  s_l double precision, marked text, pivot_marked text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	key_type text;
	text_type text;
	pivot_key text;
	pivot_text text;
	member record;
	member_text text;
	fetch_text text;
	fetched bigint;
	problem record;
BEGIN
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, true);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	SELECT format_type(a.atttypid, a.atttypmod) INTO key_type
	  FROM pg_attribute a WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF key_type IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', key_column, source);
	END IF;
	SELECT format_type(a.atttypid, a.atttypmod) INTO text_type
	  FROM pg_attribute a WHERE a.attrelid = source AND a.attname = text_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF text_type IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', text_column, source);
	END IF;

	EXECUTE format('SELECT min(pivot::text) FROM %s WHERE group_id = $1', group_table) INTO pivot_key USING group_id;
	IF pivot_key IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'no_data_found',
			MESSAGE = format('group %s not found in %s', group_id, group_table);
	END IF;
	-- The key cast to the column's own type, so that an index on it serves.
	fetch_text := format('SELECT %I::text FROM %s WHERE %I = CAST($1 AS %s)', text_column, source, key_column, key_type);
	EXECUTE fetch_text INTO pivot_text USING pivot_key;
	GET DIAGNOSTICS fetched = ROW_COUNT;
	IF fetched = 0 THEN
		RAISE EXCEPTION 'key % of group % not found in relation %', quote_literal(
				CASE WHEN length(pivot_key) > 40 THEN left(pivot_key, 40) || '...' ELSE pivot_key END),
			group_id, source
			USING ERRCODE = 'no_data_found',
				  HINT = 'Name the table the groups were made from; if rows were deleted since, group again.';
	END IF;

	key := pivot_key;
	role := 'pivot';
	resemblance := 1;
	common_words := NULL;
	s_l := NULL;
	-- Against the empty text: nothing marked, but escaped as format asks.
	SELECT h.a_marked INTO marked FROM @extschema@.highlight(pivot_text, '', min_words, format) h;
	pivot_marked := NULL;
	RETURN NEXT;

	-- Keys as text and resemblances as double precision, whatever the group
	-- table's types (typed keys, a real resemblance): one plan serves all.
	FOR member IN EXECUTE format('SELECT g.key::text AS key, g.resemblance::double precision AS resemblance FROM %s g WHERE g.group_id = $1 AND g.key IS DISTINCT FROM g.pivot ORDER BY g.resemblance DESC, g.key', group_table)
			USING group_id LOOP
		EXECUTE fetch_text INTO member_text USING member.key;
		GET DIAGNOSTICS fetched = ROW_COUNT;
		IF fetched = 0 THEN
			RAISE EXCEPTION 'key % of group % not found in relation %', quote_literal(
					CASE WHEN length(member.key) > 40 THEN left(member.key, 40) || '...' ELSE member.key END),
				group_id, source
				USING ERRCODE = 'no_data_found',
					  HINT = 'Name the table the groups were made from; if rows were deleted since, group again.';
		END IF;
		key := member.key;
		role := 'member';
		resemblance := round(member.resemblance::numeric, 3);
		SELECT c.common_words, round(c.s_l::numeric, 3) INTO common_words, s_l
		  FROM @extschema@.chunk_similarity(pivot_text, member_text, min_words) c;
		-- Both sides of one comparison: chunk N is the same text in both.
		SELECT h.b_marked, h.a_marked INTO marked, pivot_marked
		  FROM @extschema@.highlight(pivot_text, member_text, min_words, format) h;
		RETURN NEXT;
	END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_detail(regclass, regclass, name, name, bigint, integer, text) IS 'one group for review: the pivot''s text, then each member with its resemblance, the words it shares with the pivot in chunks, its text with those chunks marked, and the pivot''s text with the same chunks marked alike (null on the pivot''s row)';

-- One group as a complete HTML page, for a reviewer to open in a browser:
-- a summary, then each member beside its pivot, shared chunks in the same
-- colour on both sides (the colour follows the chunk number's last digit,
-- so neighbouring chunks differ), the text outside them plain: what one side
-- has and the other lacks.  Everything from the tables (texts, keys, names)
-- is HTML-escaped, by highlight()'s escaping; the page loads nothing and
-- its Content-Security-Policy forbids scripts, should anything get through.
-- One text value, so that any client saves it as it is (psql: unaligned,
-- tuples only, \o file); psql's own --html output would escape it again.
CREATE FUNCTION @extschema@.near_dupe_review_html(group_table regclass, source regclass, key_column name, text_column name,
												  group_id bigint, min_words integer DEFAULT 5)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	item record;
	pivot_key text;
	pivot_html text;
	members text := '';
	member_count bigint := 0;
	resemblance_sum double precision := 0;
	resemblance_min double precision;
	heading text;
	body text;
BEGIN
	-- highlight(x, '', 1, 'html') marks nothing: it is the escaping of the
	-- texts, used for every other value from the tables too.
	FOR item IN
		SELECT d.role, d.resemblance::double precision AS resemblance, d.common_words, d.s_l::double precision AS s_l,
			   d.marked, d.pivot_marked,
			   (SELECT h.a_marked FROM @extschema@.highlight(d.key::text, '', 1, 'html') h) AS key_html
		  FROM @extschema@.near_dupe_group_detail(group_table, source, key_column, text_column, group_id, min_words, 'html') d
	LOOP
		IF item.role = 'pivot' THEN
			pivot_key := item.key_html;
			pivot_html := item.marked;
			CONTINUE;
		END IF;
		member_count := member_count + 1;
		resemblance_sum := resemblance_sum + item.resemblance;
		resemblance_min := least(resemblance_min, item.resemblance);
		members := members || format($member$<section class="member">
<h2>Member %1$s <span class="figures">resemblance %2$s &middot; %3$s words in shared chunks &middot; S<sub>L</sub> %4$s</span></h2>
<div class="pair">
<div class="side pivot"><h3>Pivot %5$s</h3><div class="text">%6$s</div></div>
<div class="side other"><h3>Member %1$s</h3><div class="text">%7$s</div></div>
</div>
</section>
$member$,
			item.key_html, round(item.resemblance::numeric, 3), coalesce(item.common_words, 0),
			coalesce(round(item.s_l::numeric, 3)::text, '&ndash;'), pivot_key, item.pivot_marked, item.marked);
	END LOOP;
	IF pivot_key IS NULL THEN
		RETURN NULL;			-- cannot happen: near_dupe_group_detail raises first
	END IF;

	IF member_count = 0 THEN
		body := format($alone$<p class="alone">The pivot has no other member in this group.</p>
<div class="side pivot"><h3>Pivot %s</h3><div class="text">%s</div></div>
$alone$, pivot_key, pivot_html);
	ELSE
		body := members;
	END IF;
	SELECT h.a_marked INTO heading
	  FROM @extschema@.highlight(format('Near-duplicate group %s of %s', group_id, group_table), '', 1, 'html') h;
	RETURN format($page$<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="minhash near_dupe_review_html">
<title>%1$s</title>
<style>
body { margin: 0 auto; max-width: 1600px; padding: 20px 24px 40px; background: #f5f6f8; color: #1f2328;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 10px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 12px; margin: 0 0 6px; color: #57606a; text-transform: uppercase; letter-spacing: .04em; }
.summary { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px 18px; margin-bottom: 20px; }
.summary dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 8px; }
.summary dt { color: #57606a; }
.summary dd { margin: 0; font-weight: 600; }
.legend { margin: 0; color: #57606a; }
.member { margin-bottom: 22px; }
.figures { font-weight: normal; color: #57606a; font-size: 14px; margin-left: 8px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; align-items: start; }
.side { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 12px; min-width: 0; }
.side.pivot { border-top: 3px solid #8c959f; }
.side.other { border-top: 3px solid #0969da; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
mark { color: inherit; border-radius: 2px; }
mark[data-chunk$="1"] { background: #fde68a; }
mark[data-chunk$="2"] { background: #bfdbfe; }
mark[data-chunk$="3"] { background: #bbf7d0; }
mark[data-chunk$="4"] { background: #fbcfe8; }
mark[data-chunk$="5"] { background: #ddd6fe; }
mark[data-chunk$="6"] { background: #fed7aa; }
mark[data-chunk$="7"] { background: #a5f3fc; }
mark[data-chunk$="8"] { background: #d9f99d; }
mark[data-chunk$="9"] { background: #fecaca; }
mark[data-chunk$="0"] { background: #e2e8f0; }
</style>
</head>
<body>
<header class="summary">
<h1>%1$s</h1>
<dl>
<dt>Documents</dt><dd class="size">%2$s</dd>
<dt>Pivot</dt><dd class="pivot-key">%3$s</dd>
<dt>Mean resemblance</dt><dd class="mean">%4$s</dd>
<dt>Lowest resemblance</dt><dd class="min">%5$s</dd>
<dt>Text</dt><dd class="source">column %6$s of %7$s, shared chunks of %8$s or more words</dd>
</dl>
<p class="legend">Each member stands beside the pivot. <mark data-chunk="1">Highlighted text</mark> is a <mark data-chunk="2">chunk both share</mark>, the same colour on both sides; plain text is on that side only.</p>
</header>
%9$s</body>
</html>
$page$,
		heading, member_count + 1, pivot_key,
		CASE WHEN member_count = 0 THEN '&ndash;' ELSE round((resemblance_sum / member_count)::numeric, 3)::text END,
		coalesce(round(resemblance_min::numeric, 3)::text, '&ndash;'),
		(SELECT h.a_marked FROM @extschema@.highlight(text_column::text, '', 1, 'html') h),
		(SELECT h.a_marked FROM @extschema@.highlight(source::text, '', 1, 'html') h),
		min_words, body);
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_html(regclass, regclass, name, name, bigint, integer) IS 'one group as a self-contained HTML page for review: a summary, then each member beside its pivot with the chunks they share marked in the same colour on both sides and what differs plain; every input escaped; save it with psql''s \o in unaligned, tuples-only mode';

-------------------------------------------------------------------------------
-- Everyday use: planning prepared statements
-------------------------------------------------------------------------------

-- A generic plan of resembles(sig, $1, $2) cannot see the threshold, and
-- below what the index's layout guarantees a gin_minhash_ops scan reads
-- every posting list: matchingsel let such plans take the index at any
-- threshold.  %> gets an estimator that says so (src/minhash_selectivity.c):
-- selectivity 1 when the operand is not a constant and the index may read
-- everything, matchingsel otherwise.
CREATE FUNCTION minhash_query_restrict(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_query_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_query_restrict(internal, oid, internal, integer) IS 'restriction estimator of %>: every row when the threshold is unknown at planning, or below what the column''s index narrows; matchingsel otherwise';

ALTER OPERATOR %>(minhash, minhash_query) SET (RESTRICT = minhash_query_restrict);

-------------------------------------------------------------------------------
-- approximate mode (issue 17)
-------------------------------------------------------------------------------

-- recall => asks for the approximate layout (mh_recall_layout in the
-- engine): bands and rows whose S-curve reaches recall a little above the
-- threshold, a pair being a candidate when it shares one band key; fewer,
-- longer bands than the exact layout, so fewer candidates and less memory.
-- Verification is unchanged (resemblance >= threshold).  NULL is exact.
--
-- near_dupe_groups with text keys keeps its four arguments: a fifth
-- double precision argument would take every positional call with a numeric
-- key_type (near_dupe_groups(..., 0.5, NULL::bigint)) away from the typed
-- overload (float8 is the preferred numeric type).  For text keys with a
-- recall, pass NULL::text as key_type: a text key_type now returns key::text
-- for a key column of any type.
DROP FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision, anyelement);
CREATE FUNCTION @extschema@.near_dupe_groups(source regclass, key_column name, sig_column name,
								 threshold double precision, key_type anyelement,
								 recall double precision DEFAULT NULL)
	RETURNS TABLE(group_id bigint, key anyelement, pivot anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision, anyelement, double precision) IS 'near_dupe_groups with the keys in the key column''s own type, given as key_type (NULL::bigint; NULL::text: key::text), so that the result joins the source without a cast; recall (0 < recall < 1) takes candidates from the approximate layout of lsh_index_layout(threshold, num_perm, recall), which may miss a few groupings and needs less memory; NULL is exact';

-- The layout of the index's recall option and of recall =>: min_bands 1.
-- No longer strict (a null recall is the exact layout); a null threshold or
-- num_perm still gives null.
DROP FUNCTION @extschema@.lsh_index_layout(double precision, integer);
CREATE FUNCTION @extschema@.lsh_index_layout(threshold double precision, num_perm integer DEFAULT 128,
								 recall double precision DEFAULT NULL,
								 OUT bands integer, OUT rows integer, OUT min_bands integer)
	AS 'MODULE_PATHNAME', 'minhash_lsh_index_layout' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.lsh_index_layout(double precision, integer, double precision) IS 'the band layout gin_minhash_ops takes for a threshold option, and how many bands every pair at that threshold shares; with a recall, the approximate layout of the recall option and of near_dupe_groups(..., recall), where a candidate shares one band (min_bands 1, no guarantee)';

-- gin_minhash_ops(threshold = t, recall = r): the approximate layout for t,
-- a row a candidate when it shares one key (or the b - D every passing row
-- shares, when more); part of layout 1, which no index had with this option
-- before.  Such an index may return fewer rows than a sequential scan.
COMMENT ON FUNCTION @extschema@.minhash_gin_options(internal) IS 'GIN support: the bands, rows, threshold, key_bits, layout and recall options';
COMMENT ON OPERATOR CLASS @extschema@.gin_minhash_ops USING gin IS 'LSH band index: near-duplicate lookups with % and %> that never miss a row a sequential scan would return (except with the recall option, an approximate index)';

-------------------------------------------------------------------------------
-- Bulk loads: what building a signature costs the planner (issue 17)
-------------------------------------------------------------------------------

-- Building a signature hashes every word and shingle of its document: about
-- twice md5() on the same bytes with words, several times more with
-- character shingles (test/bench/README.md).  At the default COST 1 the
-- planner takes it for free, so CREATE TABLE ... AS SELECT minhash(body)
-- never ran in parallel (a parallel plan saves only CPU, and it saw none).
-- 100 (in units of cpu_operator_cost) is what a signature of a few hundred
-- bytes of text costs measured against a sequential scan's per-row cost;
-- with it such statements get parallel workers.  Nothing else changes: the
-- functions are as IMMUTABLE, STRICT and PARALLEL SAFE as before.
ALTER FUNCTION @extschema@.minhash(text, integer, integer, integer) COST 100;
ALTER FUNCTION @extschema@.minhash(character varying, integer, integer, integer) COST 100;
ALTER FUNCTION @extschema@.minhash(character, integer, integer, integer) COST 100;
ALTER FUNCTION @extschema@.shingle_hashes(text, integer, integer) COST 100;
ALTER FUNCTION @extschema@.minhash_chars(text, integer, integer, integer) COST 500;
ALTER FUNCTION @extschema@.minhash_char_shingles(text, integer, integer, integer) COST 500;

-------------------------------------------------------------------------------
-- near_dupe_pairs in the engine (issue 17)
-------------------------------------------------------------------------------

-- near_dupe_pairs runs in memory (src/minhash_near_dupe_pairs.c, the
-- engine's mh_near_pairs) instead of as near_dupe_query's statement, up to
-- minhash.group_memory: the same pairs, resemblances and order as 1.0 (key_a
-- before key_b in the key's order, ordered by key_a, key_b).  The typed
-- overload takes a recall: NULL (the default) for the exact pairs, those of
-- the self-join with % (or resemblance >= threshold); 0 < recall < 1 for the
-- pairs sharing a band of mh_recall_layout, each verified.  The text version
-- keeps its four arguments: a fifth double precision argument would take
-- every positional call with a numeric key_type (near_dupe_pairs(..., 0.5,
-- NULL::bigint)) away from the typed overload, float8 being the preferred
-- numeric type; for text keys with a recall, pass NULL::text as key_type,
-- which now returns key::text for a key column of any type (as
-- near_dupe_groups does).  near_dupe_query(..., groups => false) stays: the
-- exact pairs as one SQL statement within work_mem, the path for a table
-- beyond minhash.group_memory.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_pairs(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT NULL)
	RETURNS TABLE(key_a text, key_b text, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_pairs' LANGUAGE C STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision) IS 'every pair of rows whose signatures'' resemblance is at least threshold (null: minhash.threshold), key_a before key_b in the key''s order: exactly the pairs of the self-join with %; in memory, up to minhash.group_memory (beyond it, run near_dupe_query(..., groups => false))';

DROP FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision, anyelement);
CREATE FUNCTION @extschema@.near_dupe_pairs(source regclass, key_column name, sig_column name,
								threshold double precision, key_type anyelement,
								recall double precision DEFAULT NULL)
	RETURNS TABLE(key_a anyelement, key_b anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_pairs' LANGUAGE C STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp;

COMMENT ON FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision, anyelement, double precision) IS 'near_dupe_pairs with the keys in the key column''s own type, given as key_type (NULL::bigint; NULL::text: key::text), so that the result joins the source without a cast; recall (0 < recall < 1) finds the pairs through the approximate layout of lsh_index_layout(threshold, num_perm, recall), which may miss a few and runs faster; NULL is exact';
COMMENT ON FUNCTION @extschema@.near_dupe_query(regclass, name, name, double precision, boolean) IS 'the exact pairs of near_dupe_pairs as one SQL statement (groups false; run it with enable_hashagg off), or the grouping of near_dupe_groups as one SQL statement (groups true; run it with enable_hashagg and enable_mergejoin off): the paths for a table beyond minhash.group_memory; checks the arguments and reads the signatures'' parameters';
