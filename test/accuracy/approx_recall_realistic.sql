-- Approximate mode (recall => 0.99) on the realistic corpus, measured
-- against exact resemblance (test/accuracy/approx_recall.sql does the same
-- on SpamAssassin, with every pair's exact truth).
--
--   psql -X -d <db with real_docs> [-v sample=3000] -f test/accuracy/approx_recall_realistic.sql
--
-- The corpus: test/corpus/generate_realistic.sql (real_docs, real_families).
-- Two samples of pairs, each with its exact 5-word-shingle resemblance J
-- (shingle_resemblance of the bodies):
--   planted  the planted near-duplicate families (original, derived);
--   exact    the pairs exact mode returns at 0.5 (near_dupe_pairs, NULL
--            recall), which include the near-duplicates nobody planted
--            (boilerplate-only messages, repeated lines).
-- For each threshold t in 0.5 .. 0.9 and the layout lsh_index_layout(t, 128,
-- 0.99), per decile of J: the measured candidate recall (the share of pairs
-- whose signatures share a band key, minhash_bands) beside the predicted one
-- (mean lsh_probability(J, bands, rows)); and end to end, the share of the
-- pairs exact mode finds at t that near_dupe_pairs(..., recall => 0.99)
-- finds too.  Fails if, at some t, fewer than 99 % of the pairs with
-- J >= t + 0.05 are candidates.
\set ON_ERROR_STOP 1
\if :{?sample}
\else
\set sample 3000
\endif
SET work_mem = '256MB';

CREATE TEMP TABLE rr_layouts AS
SELECT t, a.bands, a.rows
  FROM unnest(ARRAY[0.5, 0.6, 0.7, 0.8, 0.9]::float8[]) t, lsh_index_layout(t, 128, 0.99) a;

-- Samples drawn by a hash of the pair, so that a run is repeatable.
CREATE TEMP TABLE rr_pairs AS
SELECT 'planted'::text AS sample, f.original_id AS id_a, f.id AS id_b
  FROM real_families f
 ORDER BY hashint8(f.id), f.id LIMIT :sample;
CREATE TEMP TABLE rr_exact_05 AS
SELECT key_a AS id_a, key_b AS id_b, resemblance
  FROM near_dupe_pairs('real_docs', 'id', 'sig', 0.5, NULL::bigint);
INSERT INTO rr_pairs
SELECT 'exact', id_a, id_b FROM rr_exact_05
 ORDER BY hashint8(id_a * 1000003 + id_b), id_a, id_b LIMIT :sample;

CREATE TEMP TABLE rr_truth AS
SELECT p.sample, p.id_a, p.id_b, shingle_resemblance(a.body, b.body) AS j,
       resemblance(a.sig, b.sig) AS estimate, a.sig AS sig_a, b.sig AS sig_b
  FROM rr_pairs p JOIN real_docs a ON a.id = p.id_a JOIN real_docs b ON b.id = p.id_b;

CREATE TEMP TABLE rr_measured AS
SELECT r.sample, l.t, r.id_a, r.id_b, r.j, r.estimate,
       minhash_bands(r.sig_a, l.bands, l.rows) && minhash_bands(r.sig_b, l.bands, l.rows) AS candidate,
       lsh_probability(r.j, l.bands, l.rows) AS predicted
  FROM rr_truth r CROSS JOIN rr_layouts l;

\echo 'Layouts (recall 0.99, 128 values):'
SELECT t, bands, rows FROM rr_layouts ORDER BY t;

\echo 'Candidate recall per decile of exact J, measured vs predicted:'
SELECT sample, t, width_bucket(j, 0.0, 1.0000001, 10) AS decile,
       round(min(j)::numeric, 2) AS j_from, round(max(j)::numeric, 2) AS j_to, count(*) AS pairs,
       round(avg(candidate::int)::numeric, 4) AS measured, round(avg(predicted)::numeric, 4) AS predicted
  FROM rr_measured WHERE j >= 0.3
 GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

CREATE TEMP TABLE rr_verdict AS
SELECT sample, t, count(*) AS pairs, count(*) FILTER (WHERE NOT candidate) AS missed,
       avg(candidate::int) AS measured, avg(predicted) AS predicted
  FROM rr_measured WHERE j >= t + 0.05 GROUP BY 1, 2;
\echo 'Pairs with J >= t + 0.05: candidate recall, measured vs predicted:'
SELECT sample, t, pairs, missed, round(measured::numeric, 4) AS measured,
       round(predicted::numeric, 4) AS predicted
  FROM rr_verdict ORDER BY 1, 2;

-- End to end: of the sampled pairs exact mode returns at t (estimate >= t),
-- the share near_dupe_pairs(..., recall => 0.99) returns.
CREATE TEMP TABLE rr_found (t float8, id_a bigint, id_b bigint);
DO $$
DECLARE
	l record;
BEGIN
	FOR l IN SELECT t FROM rr_layouts ORDER BY t LOOP
		INSERT INTO rr_found
		SELECT l.t, p.key_a, p.key_b
		  FROM near_dupe_pairs('real_docs', 'id', 'sig', l.t, NULL::bigint, recall => 0.99) p;
	END LOOP;
END
$$;
\echo 'End to end, J >= t + 0.05: of the pairs exact mode returns, the share recall => 0.99 returns:'
SELECT m.sample, m.t, count(*) AS exact_mode_pairs,
       count(f.t) AS approximate_found, round(avg((f.t IS NOT NULL)::int)::numeric, 4) AS share
  FROM rr_measured m
  LEFT JOIN rr_found f ON f.t = m.t AND f.id_a = least(m.id_a, m.id_b) AND f.id_b = greatest(m.id_a, m.id_b)
 WHERE m.estimate >= m.t AND m.j >= m.t + 0.05
 GROUP BY 1, 2 ORDER BY 1, 2;

DO $$
DECLARE
	v record;
BEGIN
	FOR v IN SELECT * FROM rr_verdict ORDER BY sample, t LOOP
		IF v.measured < 0.99 THEN
			RAISE EXCEPTION 'approx_recall_realistic: % pairs at t=%: candidate recall % below 0.99 (% of % missed)',
				v.sample, v.t, round(v.measured::numeric, 4), v.missed, v.pairs;
		END IF;
		RAISE NOTICE 'approx_recall_realistic: % pairs at t=%: candidate recall % >= 0.99 (% pairs)',
			v.sample, v.t, round(v.measured::numeric, 4), v.pairs;
	END LOOP;
END
$$;
