-- near_dupe_pairs and near_dupe_groups on real mail (SpamAssassin bodies).
--
-- Checks (the suite fails on any of them): near_dupe_pairs returns exactly
-- the pairs of the brute-force self-join with % (all 18 million pairs
-- compared); near_dupe_groups partitions the rows, every member reaches the
-- threshold against its pivot, and the groups are those of the greedy walk
-- done independently here (PL/pgSQL) over the pairs; and beyond
-- minhash.group_memory (1MB), near_dupe_groups (then one SQL statement) and
-- the SQL formulation, near_dupe_query(..., groups => true), return its
-- rows, in its order.
-- Prints: pair recall and precision against exact shingle resemblance
-- J >= 0.8, and how many memberships (row -> pivot) of the groups built the
-- same way from exact J (and exact sizes) the MinHash groups reproduce.
-- Then near_dupe_pairs at 0.5 .. 0.9 (the end of this file): exact equals
-- the brute-force self-join at each threshold (checked), and with recall
-- 0.99 the share of the brute-force pairs found per resemblance decile
-- beside the mean lsh_probability of the recall layout (checked: at least
-- 0.99 of the pairs at t + 0.05 and above, overall), and the time of the
-- SQL formulation (near_dupe_query's statement) beside the engine's.
\set ON_ERROR_STOP 1
SET work_mem = '256MB';
CREATE EXTENSION IF NOT EXISTS minhash;

CREATE TEMP TABLE ga_docs AS SELECT id, minhash(body) AS sig FROM spam_messages;
ANALYZE ga_docs;

\timing on
CREATE TEMP TABLE ga_pairs AS SELECT key_a::int AS a, key_b::int AS b, resemblance FROM near_dupe_pairs('ga_docs', 'id', 'sig', 0.8);
CREATE TEMP TABLE ga_groups AS SELECT n, group_id, key::int AS id, pivot::int AS pivot, resemblance FROM near_dupe_groups('ga_docs', 'id', 'sig', 0.8) WITH ORDINALITY AS g(group_id, key, pivot, resemblance, n);
SET minhash.group_memory = '1MB';
CREATE TEMP TABLE ga_groups_spilled AS SELECT n, group_id, key::int AS id, pivot::int AS pivot, resemblance FROM near_dupe_groups('ga_docs', 'id', 'sig', 0.8) WITH ORDINALITY AS g(group_id, key, pivot, resemblance, n);
SELECT near_dupe_query('ga_docs', 'id', 'sig', 0.8, groups => true) AS groups_query \gset
SET enable_hashagg = off;
SET enable_mergejoin = off;
CREATE TEMP TABLE ga_groups_sql AS SELECT row_number() OVER () AS n, group_id, key::int AS id, pivot::int AS pivot, resemblance FROM (:groups_query) g;
RESET enable_hashagg;
RESET enable_mergejoin;
SET minhash.threshold = 0.8;
CREATE TEMP TABLE ga_brute AS
SELECT x.id AS a, y.id AS b, resemblance(x.sig, y.sig) AS resemblance FROM ga_docs x JOIN ga_docs y ON x.id < y.id WHERE x.sig % y.sig;
\timing off

CREATE TEMP TABLE ga_taken (id int PRIMARY KEY, pivot int);
-- The greedy walk, written independently: rows ranked by (size desc, id);
-- an untaken row becomes a pivot and takes its untaken neighbours.
CREATE FUNCTION pg_temp.greedy_groups(pairs regclass, sizes regclass) RETURNS TABLE (id int, pivot int)
LANGUAGE plpgsql AS $$
DECLARE
	u record;
BEGIN
	TRUNCATE ga_taken;
	EXECUTE format('CREATE TEMP VIEW ga_edges AS SELECT a AS u, b AS v FROM %1$s UNION ALL SELECT b, a FROM %1$s', pairs);
	FOR u IN EXECUTE format('SELECT DISTINCT e.u, s.size FROM ga_edges e JOIN %s s ON s.id = e.u ORDER BY s.size DESC, e.u', sizes) LOOP
		CONTINUE WHEN EXISTS (SELECT 1 FROM ga_taken t WHERE t.id = u.u);
		INSERT INTO ga_taken VALUES (u.u, u.u);
		INSERT INTO ga_taken SELECT e.v, u.u FROM ga_edges e WHERE e.u = u.u ON CONFLICT DO NOTHING;
	END LOOP;
	DROP VIEW ga_edges;
	RETURN QUERY EXECUTE format('SELECT s.id, coalesce(t.pivot, s.id) FROM %s s LEFT JOIN ga_taken t ON t.id = s.id', sizes);
END $$;

CREATE TEMP TABLE ga_sizes AS SELECT id, minhash_size(sig) AS size FROM ga_docs;
CREATE TEMP TABLE ga_walk AS SELECT * FROM pg_temp.greedy_groups('ga_pairs', 'ga_sizes');

-- Exact resemblance J of every pair sharing a shingle (an inverted index),
-- and the same greedy groups from the pairs with J >= 0.8 and exact sizes.
CREATE TEMP TABLE ga_shingles AS SELECT id, unnest(shingle_hashes(body)) AS h FROM spam_messages;
CREATE TEMP TABLE ga_exact_sizes AS SELECT m.id, count(s.h) AS size FROM spam_messages m LEFT JOIN ga_shingles s ON s.id = m.id GROUP BY m.id;
CREATE TEMP TABLE ga_exact AS
SELECT a, b, common::float8 / (sa.size + sb.size - common) AS j
  FROM (SELECT x.id AS a, y.id AS b, count(*) AS common
          FROM ga_shingles x JOIN ga_shingles y ON x.h = y.h AND x.id < y.id GROUP BY 1, 2) c
  JOIN ga_exact_sizes sa ON sa.id = a JOIN ga_exact_sizes sb ON sb.id = b
 WHERE common::float8 / (sa.size + sb.size - common) >= 0.8;
-- Bodies without words: J = 1 between any two (the same empty set).
INSERT INTO ga_exact SELECT x.id, y.id, 1 FROM ga_exact_sizes x JOIN ga_exact_sizes y ON x.id < y.id WHERE x.size = 0 AND y.size = 0;
CREATE TEMP TABLE ga_exact_groups AS SELECT * FROM pg_temp.greedy_groups('ga_exact', 'ga_exact_sizes');

\echo 'near_dupe_pairs at 0.8 against the brute-force self-join (every pair compared) and against exact J >= 0.8:'
SELECT (SELECT count(*) FROM ga_pairs) AS pairs, (SELECT count(*) FROM ga_brute) AS brute_force_pairs,
       (SELECT count(*) FROM (SELECT * FROM ga_brute EXCEPT SELECT * FROM ga_pairs) x) AS missing,
       (SELECT count(*) FROM (SELECT * FROM ga_pairs EXCEPT SELECT * FROM ga_brute) x) AS extra,
       (SELECT count(*) FROM ga_exact) AS exact_pairs,
       round(100.0 * (SELECT count(*) FROM ga_exact e JOIN ga_pairs p USING (a, b)) / (SELECT count(*) FROM ga_exact), 2) AS recall_pct,
       round(100.0 * (SELECT count(*) FROM ga_exact e JOIN ga_pairs p USING (a, b)) / (SELECT count(*) FROM ga_pairs), 2) AS precision_pct;

\echo 'near_dupe_groups at 0.8 against the same greedy groups built from exact J >= 0.8 and exact sizes:'
WITH m AS (SELECT id, pivot FROM ga_groups), e AS (SELECT id, pivot FROM ga_exact_groups),
     co_m AS (SELECT x.id AS a, y.id AS b FROM m x JOIN m y ON x.pivot = y.pivot AND x.id < y.id),
     co_e AS (SELECT x.id AS a, y.id AS b FROM e x JOIN e y ON x.pivot = y.pivot AND x.id < y.id)
SELECT (SELECT count(DISTINCT pivot) FROM m) AS groups, (SELECT count(DISTINCT pivot) FROM e) AS exact_groups,
       (SELECT count(*) FROM (SELECT pivot FROM m GROUP BY pivot HAVING count(*) > 1) x) AS groups_of_2_plus,
       (SELECT count(*) FROM (SELECT pivot FROM e GROUP BY pivot HAVING count(*) > 1) x) AS exact_groups_of_2_plus,
       (SELECT count(*) FROM e WHERE id <> pivot) AS exact_memberships,
       (SELECT count(*) FROM e JOIN m USING (id, pivot) WHERE id <> pivot) AS reproduced,
       round(100.0 * (SELECT count(*) FROM e JOIN m USING (id, pivot) WHERE id <> pivot)
             / nullif((SELECT count(*) FROM e WHERE id <> pivot), 0), 2) AS reproduced_pct,
       (SELECT count(*) FROM e JOIN m USING (id) WHERE e.id <> e.pivot AND e.pivot <> m.pivot AND m.id <> m.pivot) AS other_pivot,
       (SELECT count(*) FROM e JOIN m USING (id) WHERE e.id <> e.pivot AND m.id = m.pivot) AS left_alone,
       round(100.0 * (SELECT count(*) FROM co_e JOIN co_m USING (a, b)) / nullif((SELECT count(*) FROM co_e), 0), 2) AS same_group_recall_pct,
       round(100.0 * (SELECT count(*) FROM co_e JOIN co_m USING (a, b)) / nullif((SELECT count(*) FROM co_m), 0), 2) AS same_group_precision_pct;

-- The verdict.
DO $$
DECLARE
	n bigint;
BEGIN
	SELECT count(*) INTO n FROM ((SELECT * FROM ga_brute EXCEPT SELECT * FROM ga_pairs)
								 UNION ALL (SELECT * FROM ga_pairs EXCEPT SELECT * FROM ga_brute)) x;
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: near_dupe_pairs differs from the brute-force self-join in % pairs', n;
	END IF;
	SELECT (SELECT count(*) FROM ga_docs) - count(DISTINCT id) + (count(*) - count(DISTINCT id)) INTO n FROM ga_groups;
	IF n <> 0 THEN
		RAISE EXCEPTION 'group accuracy: the groups are not a partition of the rows';
	END IF;
	SELECT count(*) INTO n FROM ga_groups g JOIN ga_docs m ON m.id = g.id JOIN ga_docs p ON p.id = g.pivot
	 WHERE resemblance(m.sig, p.sig) < 0.8 OR g.resemblance <> resemblance(m.sig, p.sig);
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: % members below the threshold against their pivot', n;
	END IF;
	SELECT count(*) INTO n FROM ((SELECT id, pivot FROM ga_groups EXCEPT SELECT id, pivot FROM ga_walk)
								 UNION ALL (SELECT id, pivot FROM ga_walk EXCEPT SELECT id, pivot FROM ga_groups)) x;
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: % rows differ from the greedy walk over the pairs', n;
	END IF;
	SELECT count(*) INTO n FROM ga_groups g FULL JOIN ga_groups_spilled q USING (n)
	 WHERE (g.group_id, g.id, g.pivot, g.resemblance) IS DISTINCT FROM (q.group_id, q.id, q.pivot, q.resemblance);
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: near_dupe_groups beyond minhash.group_memory differs from it in memory in % rows', n;
	END IF;
	SELECT count(*) INTO n FROM ga_groups g FULL JOIN ga_groups_sql q USING (n)
	 WHERE (g.group_id, g.id, g.pivot, g.resemblance) IS DISTINCT FROM (q.group_id, q.id, q.pivot, q.resemblance);
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: the SQL formulation differs from near_dupe_groups in % rows', n;
	END IF;
	RAISE NOTICE 'group accuracy: pairs = brute force, groups partition the rows, members reach 0.8, groups = the greedy walk = near_dupe_groups and the SQL formulation beyond minhash.group_memory';
END $$;

-- near_dupe_pairs at 0.5 .. 0.9, exact and with recall 0.99, against the
-- brute-force self-join (every pair at 0.5 once; each threshold its part).
RESET minhash.group_memory;
CREATE TEMP TABLE ga_brute_05 AS
SELECT x.id AS a, y.id AS b, resemblance(x.sig, y.sig) AS resemblance
  FROM ga_docs x JOIN ga_docs y ON x.id < y.id WHERE resembles(x.sig, y.sig, 0.5);
-- mh_recall_layout(t, 0.99, 128): bands and rows of recall => 0.99 at 128
-- values (deterministic; lsh_index_layout(t, 128, 0.99) where it takes a
-- recall, which must agree).
CREATE TEMP TABLE ga_recall_layout (threshold float8, bands int, rows int);
INSERT INTO ga_recall_layout VALUES (0.5, 26, 3), (0.6, 24, 4), (0.7, 17, 5), (0.8, 15, 8), (0.9, 8, 16);
DO $$
DECLARE
	l record;
	got record;
BEGIN
	IF to_regprocedure('lsh_index_layout(double precision, integer, double precision)') IS NOT NULL THEN
		FOR l IN SELECT * FROM ga_recall_layout LOOP
			EXECUTE 'SELECT bands, rows FROM lsh_index_layout($1, 128, 0.99)' INTO got USING l.threshold;
			IF (got.bands, got.rows) IS DISTINCT FROM (l.bands, l.rows) THEN
				RAISE EXCEPTION 'group accuracy: the recall layout at % is %x%, not %x%', l.threshold, got.bands, got.rows, l.bands, l.rows;
			END IF;
		END LOOP;
	END IF;
END $$;

CREATE TEMP TABLE ga_pairs_by_t (threshold float8, mode text, a int, b int, resemblance float8);
CREATE TEMP TABLE ga_times (threshold float8, sql_s numeric, exact_s numeric, recall_099_s numeric);
DO $$
DECLARE
	t float8;
	t0 timestamptz;
	sql_s numeric;
	exact_s numeric;
	recall_s numeric;
BEGIN
	PERFORM set_config('enable_hashagg', 'off', true);
	FOREACH t IN ARRAY ARRAY[0.5, 0.6, 0.7, 0.8, 0.9] LOOP
		t0 := clock_timestamp();
		EXECUTE 'SELECT count(*) FROM (' || near_dupe_query('ga_docs', 'id', 'sig', t) || ') q';
		sql_s := extract(epoch FROM clock_timestamp() - t0);
		t0 := clock_timestamp();
		INSERT INTO ga_pairs_by_t SELECT t, 'exact', key_a, key_b, p.resemblance FROM near_dupe_pairs('ga_docs', 'id', 'sig', t, NULL::int) p;
		exact_s := extract(epoch FROM clock_timestamp() - t0);
		t0 := clock_timestamp();
		INSERT INTO ga_pairs_by_t SELECT t, 'recall', key_a, key_b, p.resemblance FROM near_dupe_pairs('ga_docs', 'id', 'sig', t, NULL::int, recall => 0.99) p;
		recall_s := extract(epoch FROM clock_timestamp() - t0);
		INSERT INTO ga_times VALUES (t, round(sql_s, 3), round(exact_s, 3), round(recall_s, 3));
	END LOOP;
END $$;

\echo 'near_dupe_pairs, exact and recall => 0.99, against the brute-force self-join, and seconds (the SQL formulation: near_dupe_query''s statement):'
SELECT t.threshold, l.bands || 'x' || l.rows AS recall_layout,
       (SELECT count(*) FROM ga_brute_05 b WHERE b.resemblance >= t.threshold) AS brute_force,
       (SELECT count(*) FROM ga_pairs_by_t p WHERE p.threshold = t.threshold AND p.mode = 'exact') AS exact,
       (SELECT count(*) FROM ga_pairs_by_t p WHERE p.threshold = t.threshold AND p.mode = 'recall') AS recall_099,
       t.sql_s, t.exact_s, t.recall_099_s
  FROM ga_times t JOIN ga_recall_layout l USING (threshold) ORDER BY t.threshold;

\echo 'recall => 0.99: share of the brute-force pairs found by resemblance decile, beside the mean lsh_probability of the layout:'
SELECT b.threshold, b.decile, count(*) AS pairs, count(p.a) AS found,
       round(count(p.a)::numeric / count(*), 4) AS share_found,
       round(avg(lsh_probability(b.resemblance, l.bands, l.rows))::numeric, 4) AS predicted
  FROM (SELECT t.threshold, b.*, least(floor(b.resemblance * 10) / 10, 0.9) AS decile
          FROM ga_recall_layout t JOIN ga_brute_05 b ON b.resemblance >= t.threshold) b
  JOIN ga_recall_layout l USING (threshold)
  LEFT JOIN ga_pairs_by_t p ON p.threshold = b.threshold AND p.mode = 'recall' AND (p.a, p.b) = (b.a, b.b)
 GROUP BY b.threshold, b.decile ORDER BY b.threshold, b.decile;

\echo 'recall => 0.99, pairs at t + 0.05 and above:'
SELECT l.threshold, count(*) AS pairs, count(p.a) AS found, round(count(p.a)::numeric / count(*), 4) AS share_found
  FROM ga_recall_layout l JOIN ga_brute_05 b ON b.resemblance >= l.threshold + 0.05
  LEFT JOIN ga_pairs_by_t p ON p.threshold = l.threshold AND p.mode = 'recall' AND (p.a, p.b) = (b.a, b.b)
 GROUP BY l.threshold ORDER BY l.threshold;

DO $$
DECLARE
	n bigint;
	share numeric;
BEGIN
	SELECT count(*) INTO n FROM ga_recall_layout t,
		LATERAL ((SELECT b.a, b.b, b.resemblance FROM ga_brute_05 b WHERE b.resemblance >= t.threshold
		          EXCEPT SELECT p.a, p.b, p.resemblance FROM ga_pairs_by_t p WHERE p.threshold = t.threshold AND p.mode = 'exact')
		         UNION ALL
		         (SELECT p.a, p.b, p.resemblance FROM ga_pairs_by_t p WHERE p.threshold = t.threshold AND p.mode = 'exact'
		          EXCEPT SELECT b.a, b.b, b.resemblance FROM ga_brute_05 b WHERE b.resemblance >= t.threshold)) d;
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: exact near_dupe_pairs differs from the brute-force self-join in % pairs at 0.5 .. 0.9', n;
	END IF;
	SELECT count(*) INTO n FROM ga_pairs_by_t p WHERE p.mode = 'recall'
	   AND NOT EXISTS (SELECT 1 FROM ga_pairs_by_t e WHERE e.mode = 'exact' AND (e.threshold, e.a, e.b, e.resemblance) = (p.threshold, p.a, p.b, p.resemblance));
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: % pairs of recall => 0.99 are not exact pairs', n;
	END IF;
	SELECT count(p.a)::numeric / nullif(count(*), 0) INTO share
	  FROM ga_recall_layout l JOIN ga_brute_05 b ON b.resemblance >= l.threshold + 0.05
	  LEFT JOIN ga_pairs_by_t p ON p.threshold = l.threshold AND p.mode = 'recall' AND (p.a, p.b) = (b.a, b.b);
	IF share < 0.99 THEN
		RAISE EXCEPTION 'group accuracy: recall => 0.99 found % of the pairs at t + 0.05 and above', round(share, 4);
	END IF;
	RAISE NOTICE 'group accuracy: exact near_dupe_pairs = brute force at 0.5 .. 0.9; recall => 0.99 returns exact pairs only and % of those at t + 0.05 and above', round(share, 4);
END $$;
