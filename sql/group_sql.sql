-- One grouping, two implementations: near_dupe_groups (the engine, in
-- memory, up to minhash.group_memory) and the statement of
-- near_dupe_query(..., groups => true) (SQL, walked by
-- near_dupe_group_walk, the path beyond that cap).  Both take their band
-- layout from the engine's pigeonhole layout, which finds every pair at the
-- threshold, so both walk the same pairs; here they give the same rows in
-- the same order on every input the engine accepts: thresholds over a grid
-- (0.01 to 1 by 0.01 at 16 and 128 values, by 0.05 at 1, 2, 3, 64 and 256;
-- 0 chooses no layout and both refuse it),
-- at every boundary (n - k) / n where a signature of n values gains or loses
-- a band, and left out (the minhash.threshold setting, which % reads);
-- integer keys, text keys (whose order is not the integers'), keys in their
-- own type; ties of size everywhere, identical signatures whose keys rank
-- before and after their original's, documents without words (each a
-- group of its own, resemblance 0, two of them identical), a document shorter
-- than a shingle, and a null signature (keys are unique and not null, as
-- near_dupe_groups requires).  The approximate grouping
-- (recall =>) exists in the engine only: the SQL path is exact.

-- Families of documents of 60 words: member m of family f replaces words
-- chosen by a hash, about m in 60, so that resemblances within a family
-- spread from 1 down to 0.1 and every threshold of the grid splits them
-- differently; all but the short one and the empty ones have 56 shingles.
CREATE TABLE gs_docs (id int, k text, body text);
INSERT INTO gs_docs
SELECT f * 100 + m, 'K' || (f * 100 + m),
       (SELECT string_agg(CASE WHEN abs(hashint4(f * 10000 + m * 100 + w)) % 60 < m THEN 'r' || f || '_' || m || '_' || w
                               ELSE 'f' || f || 'w' || w END, ' ' ORDER BY w)
          FROM generate_series(1, 60) w)
  FROM generate_series(1, 8) f, generate_series(0, 11) m;
INSERT INTO gs_docs
SELECT -d.id, 'K-' || d.id, d.body FROM gs_docs d WHERE d.id IN (103, 507)
UNION ALL SELECT 10000 + d.id, 'K' || (10000 + d.id), d.body FROM gs_docs d WHERE d.id IN (103, 204)
UNION ALL VALUES (9001, 'K9001', ''), (9002, 'K9002', ' ... '), (9006, 'K9006', '😀 -- 🎉'),
                 (9007, 'K9007', ' ... '), (9003, 'K9003', 'three short words'),
                 (9004, 'K9004', (SELECT body FROM gs_docs WHERE id = 305)), (9005, 'K9005', NULL);
CREATE TABLE gs (id int, k text, sig_1 minhash, sig_2 minhash, sig_3 minhash, sig_16 minhash,
                 sig_64 minhash, sig_128 minhash, sig_256 minhash);
INSERT INTO gs
SELECT id, k, minhash(body, 1), minhash(body, 2), minhash(body, 3), minhash(body, 16),
       minhash(body, 64), minhash(body, 128), minhash(body, 256)
  FROM gs_docs;
ANALYZE gs;

-- One comparison: the engine's rows and the statement's rows, both as
-- (group_id, key, pivot, resemblance) text, position by position.  Keys are
-- the integer id (text results), the text k, or the integer id in its own
-- type; a null threshold leaves the argument out.
CREATE FUNCTION pg_temp.engine_vs_sql(sig_column name, key_kind text, t float8)
RETURNS TABLE (groups bigint, rows bigint, differences bigint)
LANGUAGE plpgsql AS $$
DECLARE
	key_column name := CASE key_kind WHEN 'text' THEN 'k' ELSE 'id' END;
	engine text[];
	by_sql text[];
	group_count bigint;
BEGIN
	EXECUTE format('SELECT array_agg((g.group_id, g.key::text, g.pivot::text, g.resemblance)::text ORDER BY g.n), max(g.group_id)
	                  FROM near_dupe_groups(''gs'', %L, %L%s%s) WITH ORDINALITY g(group_id, key, pivot, resemblance, n)',
	               key_column, sig_column,
	               CASE WHEN t IS NULL AND key_kind <> 'typed' THEN '' ELSE format(', %L::float8', t) END,
	               CASE WHEN key_kind = 'typed' THEN ', NULL::integer' ELSE '' END)
	  INTO engine, group_count;
	EXECUTE format('SELECT array_agg((g.group_id, g.key, g.pivot, g.resemblance)::text) FROM (%s) g',
	               CASE WHEN t IS NULL THEN near_dupe_query('gs', key_column, sig_column, groups => true)
	                    ELSE near_dupe_query('gs', key_column, sig_column, t, groups => true) END)
	  INTO by_sql;
	RETURN QUERY SELECT group_count, count(*), count(*) FILTER (WHERE a IS DISTINCT FROM b)
	  FROM unnest(engine, by_sql) u(a, b);
END $$;

-- The rows of the statement a near_dupe_query returns.
CREATE FUNCTION pg_temp.sql_groups(query text)
RETURNS TABLE (group_id bigint, key text, pivot text, resemblance double precision)
LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE query;
END $$;

SET enable_hashagg = off;
SET enable_mergejoin = off;

-- The grid and the boundaries, each threshold with one kind of key in turn.
CREATE TEMP TABLE gs_cases AS
SELECT n, t, (ARRAY['integer', 'text', 'typed'])[1 + (row_number() OVER (PARTITION BY n ORDER BY t))::int % 3] AS key_kind
  FROM (SELECT n, i / 100.0::float8 AS t
          FROM unnest(ARRAY[16, 128]) n, generate_series(1, 100) i
        UNION
        SELECT n, i / 20.0::float8
          FROM unnest(ARRAY[1, 2, 3, 64, 256]) n, generate_series(1, 20) i
        UNION
        SELECT n, (n - k)::float8 / n
          FROM unnest(ARRAY[1, 2, 3, 16, 64, 128, 256]) n, generate_series(0, n - 1) k
         WHERE n <= 16 OR k % (n / 16) = 0) c;
CREATE TEMP TABLE gs_results AS
SELECT c.*, v.*
  FROM gs_cases c, pg_temp.engine_vs_sql(format('sig_%s', c.n), c.key_kind, c.t) v;
SELECT n AS num_perm, count(*) AS thresholds, count(DISTINCT groups) AS distinct_group_counts,
       min(groups) AS fewest_groups, max(groups) AS most_groups, sum(rows) AS rows_compared,
       sum(differences) AS differences
  FROM gs_results GROUP BY n ORDER BY n;
-- Any threshold where they differ, by name (none).
SELECT * FROM gs_results WHERE differences > 0 ORDER BY n, t;
-- Documents without words: each alone in its group, its own pivot, with
-- resemblance 0, at every threshold of the grid, in both.
SELECT count(*) AS checked, count(*) FILTER (WHERE g.key <> g.pivot OR g.resemblance <> 0 OR g.size <> 1) AS not_alone
  FROM (SELECT x.*, count(*) OVER (PARTITION BY x.path, x.t, x.group_id) AS size
          FROM (SELECT 'engine' AS path, t, e.* FROM unnest(ARRAY[0.05, 0.3, 0.8, 1]) t, near_dupe_groups('gs', 'k', 'sig_16', t) e
                UNION ALL
                SELECT 'sql', t, s.* FROM unnest(ARRAY[0.05, 0.3, 0.8, 1]) t,
                       LATERAL pg_temp.sql_groups(near_dupe_query('gs', 'k', 'sig_16', t, groups => true)) s) x) g
 WHERE g.key IN ('K9001', 'K9002', 'K9006', 'K9007');

-- The threshold left out: the setting, exactly as % reads it, also where
-- SHOW rounds it (0.123456789) and just above 0.
CREATE FUNCTION pg_temp.engine_vs_sql_at(setting text, key_kind text)
RETURNS TABLE (groups bigint, rows bigint, differences bigint)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_catalog.set_config('minhash.threshold', setting, true);
	RETURN QUERY SELECT * FROM pg_temp.engine_vs_sql('sig_128', key_kind, NULL);
END $$;
SELECT s AS setting, k AS key_kind, v.*
  FROM unnest(ARRAY['1e-7', '0.123456789', '0.5', '0.8', '1']) s,
       unnest(ARRAY['integer', 'text']) k,
       pg_temp.engine_vs_sql_at(s, k) v
 ORDER BY 1, 2;
RESET minhash.threshold;

RESET enable_hashagg;
RESET enable_mergejoin;
DROP TABLE gs, gs_docs, gs_cases, gs_results;
