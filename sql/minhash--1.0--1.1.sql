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
