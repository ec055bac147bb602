-- near_dupe_pairs and near_dupe_groups on real mail (SpamAssassin bodies).
--
-- Checks (the suite fails on any of them): near_dupe_pairs returns exactly
-- the pairs of the brute-force self-join with % (all 18 million pairs
-- compared); near_dupe_groups partitions the rows, every member reaches the
-- threshold against its pivot, and the groups are those of the greedy walk
-- done independently here (PL/pgSQL) over the pairs; and where
-- near_dupe_groups refuses (minhash.group_memory 1MB), the SQL formulation,
-- near_dupe_query(..., groups => true), returns its rows, in its order.
-- Prints: pair recall and precision against exact shingle resemblance
-- J >= 0.8, and how many memberships (row -> pivot) of the groups built the
-- same way from exact J (and exact sizes) the MinHash groups reproduce.
\set ON_ERROR_STOP 1
SET work_mem = '256MB';
CREATE EXTENSION IF NOT EXISTS minhash;

CREATE TEMP TABLE ga_docs AS SELECT id, minhash(body) AS sig FROM spam_messages;
ANALYZE ga_docs;

\timing on
CREATE TEMP TABLE ga_pairs AS SELECT key_a::int AS a, key_b::int AS b, resemblance FROM near_dupe_pairs('ga_docs', 'id', 'sig', 0.8);
CREATE TEMP TABLE ga_groups AS SELECT n, group_id, key::int AS id, pivot::int AS pivot, resemblance FROM near_dupe_groups('ga_docs', 'id', 'sig', 0.8) WITH ORDINALITY AS g(group_id, key, pivot, resemblance, n);
SET minhash.group_memory = '1MB';
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
	BEGIN
		PERFORM count(*) FROM near_dupe_groups('ga_docs', 'id', 'sig', 0.8);
		RAISE EXCEPTION 'group accuracy: near_dupe_groups did not refuse at minhash.group_memory 1MB';
	EXCEPTION WHEN configuration_limit_exceeded THEN
		NULL;
	END;
	SELECT count(*) INTO n FROM ga_groups g FULL JOIN ga_groups_sql q USING (n)
	 WHERE (g.group_id, g.id, g.pivot, g.resemblance) IS DISTINCT FROM (q.group_id, q.id, q.pivot, q.resemblance);
	IF n > 0 THEN
		RAISE EXCEPTION 'group accuracy: the SQL formulation differs from near_dupe_groups in % rows', n;
	END IF;
	RAISE NOTICE 'group accuracy: pairs = brute force, groups partition the rows, members reach 0.8, groups = the greedy walk = the SQL formulation where near_dupe_groups refuses';
END $$;
