-- Approximate mode (issue 17): near_dupe_groups(..., recall => r) and the
-- index option gin_minhash_ops(threshold = t, recall = r).  recall NULL is
-- exact; a recall takes candidates from the band keys of
-- lsh_index_layout(t, num_perm, r) (the engine's mh_recall_layout), a pair
-- a candidate when it shares one band key; verification is unchanged.

-- The approximate layouts beside the exact ones (the index's, with two spare
-- bands; the in-memory grouping takes two bands fewer).  Longer bands, fewer
-- of them: a pair a little above t (t + 0.05) shares a band with probability
-- at least r.
SELECT t, a.bands, a.rows, a.min_bands, e.bands AS exact_bands, e.rows AS exact_rows,
       round(lsh_probability(least(t + 0.05, (t + 1) / 2), a.bands, a.rows)::numeric, 4) AS recall_at_target,
       round(lsh_probability(t - 0.2, a.bands, a.rows)::numeric, 4) AS at_t_minus_0_2
  FROM unnest(ARRAY[0.5, 0.6, 0.7, 0.8, 0.9]::float8[]) t,
       lsh_index_layout(t, 128, 0.99) a, lsh_index_layout(t, 128) e;
SELECT * FROM lsh_index_layout(0.5, 128, NULL) AS exact_when_null;
SELECT * FROM lsh_index_layout(0.8, 64, 0.9) AS n64;
SELECT lsh_index_layout(NULL, 128, 0.9) IS NULL AS null_threshold_null;

-- Bad recall values: 22023, with a hint.
SELECT * FROM lsh_index_layout(0.5, 128, 0);
SELECT * FROM lsh_index_layout(0.5, 128, 1);
SELECT * FROM lsh_index_layout(0.5, 128, -0.5);
SELECT * FROM lsh_index_layout(0.5, 128, 'NaN');

-- Families of edited copies (member m of family f replaces m words of 80
-- at family-dependent places: neighbours resemble about 0.75 to 0.9), and
-- loners.
CREATE TABLE ax_docs (id int, body text, sig minhash);
INSERT INTO ax_docs (id, body)
SELECT f * 10 + m,
       (SELECT string_agg(CASE WHEN m > 0 AND (w * 7 + f) % 40 < m * 2 THEN 'edit' || m || 'w' || w
                               ELSE 'f' || f || 'w' || w END, ' ' ORDER BY w)
          FROM generate_series(1, 80) w)
  FROM generate_series(1, 40) f, generate_series(0, 4) m;
INSERT INTO ax_docs (id, body)
SELECT 1000 + i, (SELECT string_agg('loner' || i || 'w' || w, ' ') FROM generate_series(1, 30) w)
  FROM generate_series(1, 20) i;
INSERT INTO ax_docs VALUES (2000, '', NULL), (2001, NULL, NULL);
UPDATE ax_docs SET sig = minhash(body) WHERE body IS NOT NULL;
ANALYZE ax_docs;

-- recall NULL is exact: the same rows, bit for bit, as the call without it.
SELECT t,
       (SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int)) AS exact_rows,
       (SELECT count(*) FROM (SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int)
                              EXCEPT ALL
                              SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int, recall => NULL)) d) AS differ,
       (SELECT count(*) FROM (SELECT group_id, key::text, pivot::text, resemblance FROM near_dupe_groups('ax_docs', 'id', 'sig', t)
                              EXCEPT ALL
                              SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::text, recall => NULL)) d) AS differ_text
  FROM unnest(ARRAY[0.5, 0.7, 0.9]::float8[]) t;

-- With a recall: every row once; every member resembles its pivot at least
-- t, as the result says; every pivot heads its own group.  Here (pairs well
-- above t) the approximate groups are the exact ones.
CREATE TEMP TABLE ax_approx AS
SELECT t, g.* FROM unnest(ARRAY[0.5, 0.7, 0.9]::float8[]) t,
       near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int, recall => 0.99) g;
SELECT a.t, count(*) AS rows, count(DISTINCT a.key) AS distinct_keys,
       count(*) FILTER (WHERE a.key <> a.pivot AND NOT (resemblance(m.sig, p.sig) >= a.t)) AS below_threshold,
       count(*) FILTER (WHERE a.key <> a.pivot AND resemblance(m.sig, p.sig) <> a.resemblance) AS wrong_resemblance,
       count(*) FILTER (WHERE a.key <> a.pivot AND NOT EXISTS (SELECT FROM ax_approx h WHERE h.t = a.t AND h.key = a.pivot AND h.pivot = a.pivot)) AS pivot_elsewhere
  FROM ax_approx a JOIN ax_docs m ON m.id = a.key JOIN ax_docs p ON p.id = a.pivot
 GROUP BY a.t ORDER BY a.t;
SELECT t, count(*) AS differ_from_exact
  FROM (SELECT * FROM ax_approx
        EXCEPT ALL
        SELECT t, g.* FROM unnest(ARRAY[0.5, 0.7, 0.9]::float8[]) t,
               near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int) g) d
 GROUP BY t ORDER BY t;
-- Text keys with a recall: key_type text, for a key column of any type.
SELECT group_id, key, pg_typeof(key), pivot, resemblance
  FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.7, NULL::text, recall => 0.99) LIMIT 3;

-- The layout is the recall layout: signatures of 128 values base + i, with
-- chosen values.  At 0.5 the approximate layout is 26 bands of 3 (positions
-- 0 .. 77).  Each twin agrees with the query on 64 positions (resemblance
-- 0.5): positions 78 .. 127 and 14 more.  hit_twin's include band 0 whole
-- (positions 0, 1, 2) and the first position of bands 1 .. 11; miss_twin's
-- the first position of bands 0 .. 13, so no band agrees whole.  Exact
-- grouping puts both with the query; the approximate one only hit_twin.
CREATE FUNCTION ax_signature(agree int[]) RETURNS minhash
LANGUAGE sql IMMUTABLE AS $$
	SELECT ('v1:words:k=5:seed=0:size=500:n=128:' ||
	        string_agg(lpad(to_hex(CASE WHEN i = ANY (agree) THEN 1000 + i ELSE 7000000 + i END), 8, '0'), '' ORDER BY i))::minhash
	  FROM generate_series(0, 127) i
$$;
CREATE TABLE ax_twins (id text, sig minhash);
INSERT INTO ax_twins VALUES
	('a_query', ax_signature(ARRAY(SELECT generate_series(0, 127)))),
	('b_hit_twin', ax_signature(ARRAY(SELECT generate_series(78, 127)) || ARRAY[0, 1, 2] || ARRAY(SELECT 3 * b FROM generate_series(1, 11) b))),
	('c_miss_twin', ax_signature(ARRAY(SELECT generate_series(78, 127)) || ARRAY(SELECT 3 * b FROM generate_series(0, 13) b)));
SELECT id, resemblance(sig, (SELECT sig FROM ax_twins WHERE id = 'a_query')) AS to_query,
       (SELECT count(*) FROM unnest(minhash_bands(sig, 26, 3)) k
         WHERE k = ANY (minhash_bands((SELECT sig FROM ax_twins WHERE id = 'a_query'), 26, 3))) AS shared_band_keys
  FROM ax_twins ORDER BY id;
SELECT * FROM near_dupe_groups('ax_twins', 'id', 'sig', 0.5, NULL::text) ORDER BY key;
SELECT * FROM near_dupe_groups('ax_twins', 'id', 'sig', 0.5, NULL::text, recall => 0.99) ORDER BY key;

-- Bad recall values for grouping.
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 0);
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 1);
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 1.5);
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 'NaN');
-- Positional typed calls still reach the typed overload (keys in their type).
SELECT pg_typeof(key) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int) LIMIT 1;

-- Memory: what the walk holds depends on the layout used.  At 0.5 the
-- exact walk keeps 65 bands, the approximate one 26: a limit between the two
-- (here about 235 kB and 172 kB) refuses the exact grouping and runs the
-- approximate one.  Below both, the approximate refusal says the SQL path is
-- exact only.  The figures are the allocator's: masked.
CREATE FUNCTION pg_temp.error_masked(statement text) RETURNS TABLE (error text, detail text, hint text)
LANGUAGE plpgsql AS $$
DECLARE
	d text;
	h text;
BEGIN
	EXECUTE statement;
	RETURN QUERY SELECT 'no error', NULL::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
	RETURN QUERY SELECT SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N', 'g'),
	                    regexp_replace(d, '[0-9]+', 'N', 'g'), regexp_replace(h, '[0-9]+', 'N', 'g');
END $$;
SET minhash.group_memory = '200kB';
\x on
SELECT * FROM pg_temp.error_masked($$SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int)$$);
\x off
SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 0.99);
SET minhash.group_memory = '64kB';
\x on
SELECT * FROM pg_temp.error_masked($$SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 0.99)$$);
\x off
RESET minhash.group_memory;

-- The index option.  recall with bands and rows is refused; out of range too.
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_ops(bands = 26, rows = 3, recall = 0.99));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5, recall = 1));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5, recall = 0));

-- An approximate index at 0.5: its rows are a subset of a sequential scan's,
-- and it finds every planted pair (resemblance >= 0.55 here).
CREATE INDEX ax_recall ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5, recall = 0.99));
CREATE TEMP TABLE ax_seq AS
SELECT q.id AS q, d.id AS d, resemblance(q.sig, d.sig) AS r
  FROM ax_docs q JOIN ax_docs d ON d.sig %> minhash_query(q.sig, 0.5)
 WHERE q.sig IS NOT NULL;
SET enable_seqscan = off;
CREATE TEMP TABLE ax_idx (q int, d int);
DO $$
DECLARE
	q record;
BEGIN
	FOR q IN SELECT id, sig FROM ax_docs WHERE sig IS NOT NULL LOOP
		INSERT INTO ax_idx SELECT q.id, d.id FROM ax_docs d WHERE d.sig %> minhash_query(q.sig, 0.5);
	END LOOP;
END $$;
CREATE FUNCTION ax_plan_uses(query text, index_name text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line LIKE '%Index Scan on ' || index_name || '%' THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;
SELECT ax_plan_uses('SELECT id FROM ax_docs WHERE sig %> minhash_query((SELECT sig FROM ax_docs WHERE id = 10), 0.5)', 'ax_recall') AS uses_index;
DROP FUNCTION ax_plan_uses(text, text);
SELECT (SELECT count(*) FROM ax_seq) AS seq_rows, (SELECT count(*) FROM ax_idx) AS index_rows,
       (SELECT count(*) FROM (SELECT q, d FROM ax_idx EXCEPT SELECT q, d FROM ax_seq) x) AS index_only,
       (SELECT count(*) FROM ax_seq s WHERE s.r >= 0.55 AND NOT EXISTS (SELECT FROM ax_idx i WHERE i.q = s.q AND i.d = s.d)) AS missed_at_0_55;
-- The twins: the index misses miss_twin, which a sequential scan returns.
CREATE INDEX ax_twins_recall ON ax_twins USING gin (sig gin_minhash_ops(threshold = 0.5, recall = 0.99));
SELECT id FROM ax_twins WHERE sig %> minhash_query((SELECT sig FROM ax_twins WHERE id = 'a_query'), 0.5) ORDER BY id;
RESET enable_seqscan;
SET enable_indexscan = off;
SET enable_bitmapscan = off;
SELECT id FROM ax_twins WHERE sig %> minhash_query((SELECT sig FROM ax_twins WHERE id = 'a_query'), 0.5) ORDER BY id;
RESET enable_indexscan;
RESET enable_bitmapscan;

-- The planner: a generic plan of resembles(sig, $1, $2) cannot see the
-- threshold.  Over an exact index, which reads every posting list below its
-- threshold, the estimator says every row may match; an approximate index
-- never reads everything, so the estimate is matchingsel's, as for a
-- constant query.
CREATE FUNCTION ax_generic_rows() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) EXECUTE ax_lookup(NULL, 0.3)' INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SET plan_cache_mode = force_generic_plan;
PREPARE ax_lookup(minhash, float8) AS SELECT id FROM ax_docs WHERE resembles(sig, $1, $2);
SELECT ax_generic_rows() < 100 AS approximate_index_narrows;
DROP INDEX ax_recall;
CREATE INDEX ax_exact ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5));
SELECT ax_generic_rows() AS exact_index_rows;
DEALLOCATE ax_lookup;
RESET plan_cache_mode;
DROP FUNCTION ax_generic_rows();

DROP TABLE ax_docs, ax_twins;
DROP FUNCTION ax_signature(int[]);
