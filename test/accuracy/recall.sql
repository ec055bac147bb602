-- Recall of the LSH band index on real mail (SpamAssassin bodies).
--
-- Every pair of bodies with exact 5-word-shingle resemblance J >= 0.85 should
-- be a near-duplicate at the default threshold 0.8.  Through the index, a
-- pair is found when its signatures' estimate passes `%`, which the index
-- guarantees to serve exactly; so the misses are the pairs whose MinHash
-- estimate fell below 0.8, predicted by the binomial tail
-- P[Binomial(128, J) >= 103].  The band stage alone (before the recheck)
-- makes a pair a candidate when at least min_bands of the index's bands
-- agree (lsh_index_layout(0.8): 3 of 28 bands of 4), with probability
-- lsh_probability(J, 28, 4, 3).
\set ON_ERROR_STOP 1
SET work_mem = '512MB';
CREATE EXTENSION IF NOT EXISTS minhash;

\set min_j 0.85
\ir ../corpus/exact_pairs.sql

CREATE TEMP TABLE rc_docs AS SELECT id, minhash(body) AS sig FROM spam_messages;
CREATE INDEX ON rc_docs USING gin (sig);
ANALYZE rc_docs;

-- Every document in some pair asks the index for its near-duplicates.
SET enable_seqscan = off;
CREATE TEMP TABLE rc_found AS
SELECT q.id AS id_a, d.id AS id_b
  FROM rc_docs q CROSS JOIN LATERAL (SELECT id FROM rc_docs WHERE sig % q.sig) d
 WHERE q.id IN (SELECT id_a FROM exact_pairs);
RESET enable_seqscan;

-- P[Binomial(n, p) >= k]
CREATE FUNCTION pg_temp.binomial_tail(n int, p float8, k int) RETURNS float8 LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
	log_choose float8 := 0;		-- ln C(n, i)
	log_pmf float8;
	tail float8 := 0;
BEGIN
	IF p >= 1 THEN
		RETURN 1;
	END IF;
	FOR i IN 0..n LOOP
		IF i > 0 THEN
			log_choose := log_choose + ln(n - i + 1) - ln(i);
		END IF;
		IF i >= k THEN
			log_pmf := log_choose + i * ln(p) + (n - i) * ln(1 - p);
			IF log_pmf > -700 THEN		-- exp() below that underflows
				tail := tail + exp(log_pmf);
			END IF;
		END IF;
	END LOOP;
	RETURN tail;
END $$;

CREATE TEMP TABLE rc_layout AS SELECT * FROM lsh_index_layout(0.8, 128);
CREATE TEMP TABLE rc_result AS
SELECT p.j, f.id_a IS NOT NULL AS found,
       (SELECT count(*) FROM unnest(minhash_bands(a.sig, l.bands, l.rows), minhash_bands(b.sig, l.bands, l.rows)) k(x, y)
         WHERE x = y) >= l.min_bands AS band_candidate
  FROM exact_pairs p CROSS JOIN rc_layout l
  JOIN rc_docs a ON a.id = p.id_a JOIN rc_docs b ON b.id = p.id_b
  LEFT JOIN rc_found f ON f.id_a = p.id_a AND f.id_b = p.id_b;

\echo 'Recall through the index at threshold 0.8, pairs with exact J >= 0.85:'
SELECT count(*) AS pairs, count(*) FILTER (WHERE found) AS found,
       round(100.0 * count(*) FILTER (WHERE found) / count(*), 2) AS recall_pct,
       round(100 * avg(pg_temp.binomial_tail(128, j, 103))::numeric, 2) AS predicted_pct
  FROM rc_result;
\echo 'Per band of exact J:'
SELECT round((floor(j * 40) / 40)::numeric, 3) AS j_from, count(*) AS pairs,
       round(100.0 * count(*) FILTER (WHERE found) / count(*), 1) AS recall_pct,
       round(100 * avg(pg_temp.binomial_tail(128, j, 103))::numeric, 1) AS predicted_pct,
       round(100.0 * count(*) FILTER (WHERE band_candidate) / count(*), 1) AS band_stage_pct,
       round(100 * avg(lsh_probability(j, l.bands, l.rows, l.min_bands))::numeric, 1) AS lsh_probability_pct
  FROM rc_result CROSS JOIN rc_layout l GROUP BY 1 ORDER BY 1;

-- The verdict: the index lost nothing that % would have found.
DO $$
DECLARE
	missed bigint;
BEGIN
	SELECT count(*) INTO missed FROM exact_pairs p JOIN rc_docs a ON a.id = p.id_a JOIN rc_docs b ON b.id = p.id_b
	 WHERE a.sig % b.sig AND NOT EXISTS (SELECT 1 FROM rc_found f WHERE f.id_a = p.id_a AND f.id_b = p.id_b);
	IF missed > 0 THEN
		RAISE EXCEPTION 'recall: the index missed % pairs that %% finds', missed;
	END IF;
	RAISE NOTICE 'recall: the index found every pair that %% finds';
END $$;
