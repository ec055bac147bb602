-- Approximate mode (recall => 0.99) on real mail: measured against the
-- exact truth (SpamAssassin corpus, message bodies, 128 hash values).
--
-- Truth: the exact 5-word-shingle Jaccard J of every pair of bodies with
-- J >= 0.3 (test/corpus/exact_pairs.sql, an inverted index over
-- shingle_hashes(), as test/accuracy/accuracy.sql).  For each threshold t in
-- 0.5 .. 0.9, the approximate layout lsh_index_layout(t, 128, 0.99) (the
-- engine's mh_recall_layout, used by near_dupe_groups(..., recall) and
-- gin_minhash_approx_ops):
--   - per decile of J: measured candidate recall (share of true pairs whose
--     signatures share at least one band key, minhash_bands) beside the
--     predicted one (mean of lsh_probability(J, bands, rows));
--   - candidates over the whole corpus, approximate vs exact layout;
--   - groups: share of pairs with J >= t + 0.05 in one group, exact vs
--     recall 0.99, and the grouping time of each (not asserted).
-- Verdict (fails the script): at each t, measured recall >= 0.99 over the
-- pairs with J >= t + 0.05; and fewer approximate candidates than exact.
\set ON_ERROR_STOP 1
SET work_mem = '512MB';
CREATE EXTENSION IF NOT EXISTS minhash;

\set min_j 0.3
\ir ../corpus/exact_pairs.sql

CREATE TEMP TABLE ar_docs AS SELECT id, minhash(body, 128) AS sig FROM spam_messages;
CREATE TEMP TABLE ar_layouts AS
SELECT t, a.bands, a.rows, e.bands AS exact_bands, e.rows AS exact_rows, e.min_bands AS exact_min_bands
  FROM unnest(ARRAY[0.5, 0.6, 0.7, 0.8, 0.9]::float8[]) t,
       lsh_index_layout(t, 128, 0.99) a, lsh_index_layout(t, 128) e;

\echo
\echo 'Layouts at 128 values: approximate (recall 0.99) and the exact index layout (bands - D + ... shared: exact_min_bands):'
SELECT * FROM ar_layouts ORDER BY t;

-- Band keys of every body, per threshold: a 64-bit key per band, seeded by
-- the band number, so keys of different bands do not meet (&& is exact up to
-- a 64-bit collision).
CREATE TEMP TABLE ar_keys AS
SELECT l.t, d.id, minhash_bands(d.sig, l.bands, l.rows) AS keys
  FROM ar_layouts l, ar_docs d;
CREATE INDEX ON ar_keys (t, id);
ANALYZE ar_keys;

CREATE TEMP TABLE ar_pairs AS
SELECT l.t, p.id_a, p.id_b, p.j, ka.keys && kb.keys AS candidate,
       lsh_probability(p.j, l.bands, l.rows) AS predicted
  FROM exact_pairs p CROSS JOIN ar_layouts l
  JOIN ar_keys ka ON ka.t = l.t AND ka.id = p.id_a
  JOIN ar_keys kb ON kb.t = l.t AND kb.id = p.id_b;

\echo 'Candidate recall per decile of exact J, measured vs predicted (recall 0.99):'
SELECT t, width_bucket(j, 0.3, 1.0000001, 7) AS decile,
       round(min(j)::numeric, 2) AS j_from, round(max(j)::numeric, 2) AS j_to, count(*) AS pairs,
       round(avg(candidate::int)::numeric, 4) AS measured, round(avg(predicted)::numeric, 4) AS predicted
  FROM ar_pairs GROUP BY 1, 2 ORDER BY 1, 2;

-- At and above the target J >= t + 0.05: the figure the layout promises.
-- Lower bound: one-sided 95% Wilson bound on the measured share.
CREATE TEMP TABLE ar_verdict AS
SELECT t, count(*) AS pairs, count(*) FILTER (WHERE NOT candidate) AS missed,
       avg(candidate::int) AS measured, avg(predicted) AS predicted,
       (avg(candidate::int) + 1.645^2 / (2 * count(*))
        - 1.645 * sqrt(avg(candidate::int) * (1 - avg(candidate::int)) / count(*) + 1.645^2 / (4 * count(*)^2)))
       / (1 + 1.645^2 / count(*)) AS lower_95
  FROM ar_pairs p WHERE j >= t + 0.05 GROUP BY t;
\echo 'Pairs with J >= t + 0.05: measured candidate recall (and a 95% lower bound):'
SELECT t, pairs, missed, round(measured::numeric, 4) AS measured, round(lower_95::numeric, 4) AS lower_95,
       round(predicted::numeric, 4) AS predicted
  FROM ar_verdict ORDER BY t;

-- Candidates over the whole corpus: distinct pairs of distinct signatures
-- sharing a band key (approximate: one of the recall layout's; exact: at
-- least min_bands of the index layout's, exact_min_bands).  Identical
-- signatures count once.
CREATE TEMP TABLE ar_distinct AS
SELECT min(id) AS id, sig FROM ar_docs WHERE minhash_size(sig) > 0 GROUP BY sig;
CREATE TEMP TABLE ar_candidates (t float8, layout text, pairs bigint);
DO $$
DECLARE
	l record;
BEGIN
	FOR l IN SELECT * FROM ar_layouts ORDER BY t LOOP
		INSERT INTO ar_candidates
		SELECT l.t, 'approximate', count(*) FROM (
			SELECT DISTINCT a.id AS id_a, b.id AS id_b
			  FROM (SELECT d.id, k.key, k.band FROM ar_distinct d,
			               unnest(minhash_bands(d.sig, l.bands, l.rows)) WITH ORDINALITY k(key, band)) a
			  JOIN (SELECT d.id, k.key, k.band FROM ar_distinct d,
			               unnest(minhash_bands(d.sig, l.bands, l.rows)) WITH ORDINALITY k(key, band)) b
			    ON a.band = b.band AND a.key = b.key AND a.id < b.id) c;
		INSERT INTO ar_candidates
		SELECT l.t, 'exact', count(*) FROM (
			SELECT a.id AS id_a, b.id AS id_b
			  FROM (SELECT d.id, k.key, k.band FROM ar_distinct d,
			               unnest(minhash_bands(d.sig, l.exact_bands, l.exact_rows)) WITH ORDINALITY k(key, band)) a
			  JOIN (SELECT d.id, k.key, k.band FROM ar_distinct d,
			               unnest(minhash_bands(d.sig, l.exact_bands, l.exact_rows)) WITH ORDINALITY k(key, band)) b
			    ON a.band = b.band AND a.key = b.key AND a.id < b.id
			 GROUP BY 1, 2 HAVING count(*) >= l.exact_min_bands) c;
	END LOOP;
END $$;
\echo 'Candidate pairs (distinct signatures, whole corpus): approximate vs exact layout:'
SELECT a.t, a.pairs AS approximate, e.pairs AS exact, round(a.pairs::numeric / nullif(e.pairs, 0), 3) AS ratio
  FROM ar_candidates a JOIN ar_candidates e ON e.t = a.t AND e.layout = 'exact'
 WHERE a.layout = 'approximate' ORDER BY a.t;

-- Groups: exact and recall 0.99, each timed (informational).
CREATE TEMP TABLE ar_groups (t float8, mode text, key int, pivot int);
CREATE TEMP TABLE ar_group_times (t float8, mode text, ms numeric);
DO $$
DECLARE
	t float8;
	started timestamptz;
BEGIN
	FOREACH t IN ARRAY ARRAY[0.5, 0.6, 0.7, 0.8, 0.9]::float8[] LOOP
		started := clock_timestamp();
		INSERT INTO ar_groups SELECT t, 'exact', g.key, g.pivot FROM near_dupe_groups('ar_docs', 'id', 'sig', t, NULL::int) g;
		INSERT INTO ar_group_times VALUES (t, 'exact', round(extract(epoch FROM clock_timestamp() - started)::numeric * 1000));
		started := clock_timestamp();
		INSERT INTO ar_groups SELECT t, 'recall 0.99', g.key, g.pivot FROM near_dupe_groups('ar_docs', 'id', 'sig', t, NULL::int, recall => 0.99) g;
		INSERT INTO ar_group_times VALUES (t, 'recall 0.99', round(extract(epoch FROM clock_timestamp() - started)::numeric * 1000));
	END LOOP;
END $$;
CREATE INDEX ON ar_groups (t, mode, key);
ANALYZE ar_groups;
\echo 'Pairs with J >= t + 0.05 in one group, and grouping time (ms, 6,046 rows):'
SELECT p.t, m.mode, count(*) AS pairs,
       round(avg((ga.pivot = gb.pivot)::int)::numeric, 4) AS same_group,
       (SELECT ms FROM ar_group_times x WHERE x.t = p.t AND x.mode = m.mode) AS ms
  FROM ar_pairs p CROSS JOIN (VALUES ('exact'), ('recall 0.99')) m(mode)
  JOIN ar_groups ga ON ga.t = p.t AND ga.mode = m.mode AND ga.key = p.id_a
  JOIN ar_groups gb ON gb.t = p.t AND gb.mode = m.mode AND gb.key = p.id_b
 WHERE p.j >= p.t + 0.05
 GROUP BY p.t, m.mode ORDER BY p.t, m.mode;

-- The verdict.
DO $$
DECLARE
	v record;
	c record;
BEGIN
	IF (SELECT count(*) FROM ar_verdict) <> 5 THEN
		RAISE EXCEPTION 'approx_recall: a threshold has no pairs at t + 0.05';
	END IF;
	FOR v IN SELECT * FROM ar_verdict ORDER BY t LOOP
		IF v.measured < 0.99 THEN
			RAISE EXCEPTION 'approx_recall: t=% measured candidate recall % < 0.99 (% of % pairs missed)',
				v.t, round(v.measured::numeric, 4), v.missed, v.pairs;
		END IF;
		RAISE NOTICE 'approx_recall: t=% pairs=% measured=% (95%% lower bound %): ok',
			v.t, v.pairs, round(v.measured::numeric, 4), round(v.lower_95::numeric, 4);
	END LOOP;
	FOR c IN SELECT a.t, a.pairs AS approx, e.pairs AS exact
	           FROM ar_candidates a JOIN ar_candidates e ON e.t = a.t AND e.layout = 'exact'
	          WHERE a.layout = 'approximate' ORDER BY a.t LOOP
		IF c.approx > c.exact THEN
			RAISE EXCEPTION 'approx_recall: t=% approximate layout has more candidates (%) than the exact one (%)',
				c.t, c.approx, c.exact;
		END IF;
		RAISE NOTICE 'approx_recall: t=% candidates approximate % <= exact %: ok', c.t, c.approx, c.exact;
	END LOOP;
END $$;
