-- Accuracy of resemblance() on real mail (SpamAssassin corpus, message bodies).
--
-- Exact 5-word-shingle Jaccard J of every pair of bodies, through an inverted
-- index over shingle hashes (shingle_hashes() is the exact set minhash()
-- samples); then, for every pair with J >= 0.3, the MinHash estimate at 128
-- and 256 values.  Passes when, at both sizes, the mean error is within
-- +-0.01 and at least 93% of pairs fall inside 1.96 * sqrt(J(1-J)/n).
\set ON_ERROR_STOP 1
SET work_mem = '512MB';
CREATE EXTENSION IF NOT EXISTS minhash;

\set min_j 0.3
\ir ../corpus/exact_pairs.sql

CREATE TEMP TABLE acc_signatures AS
SELECT id, minhash(body, 128) AS sig128, minhash(body, 256) AS sig256 FROM spam_messages;

CREATE TEMP TABLE acc_estimates AS
SELECT n, j, CASE n WHEN 128 THEN resemblance(a.sig128, b.sig128) ELSE resemblance(a.sig256, b.sig256) END AS r
  FROM exact_pairs
  JOIN acc_signatures a ON a.id = id_a
  JOIN acc_signatures b ON b.id = id_b
 CROSS JOIN (VALUES (128), (256)) AS sizes(n);

\echo
\echo 'Pairs of bodies by exact resemblance J (5-word shingles):'
SELECT count(*) AS pairs_j_ge_0_3,
       count(*) FILTER (WHERE j >= 0.8) AS pairs_j_ge_0_8,
       count(*) FILTER (WHERE j = 1) AS identical_shingle_sets
  FROM exact_pairs;

\echo 'Estimate vs exact, per number of hash values:'
CREATE TEMP TABLE acc_result AS
SELECT n AS num_perm, count(*) AS pairs,
       round(avg(r - j)::numeric, 5) AS mean_error,
       round(avg(abs(r - j))::numeric, 5) AS mean_abs_error,
       round(100 * avg((abs(r - j) <= 1.96 * sqrt(j * (1 - j) / n))::int)::numeric, 2) AS pct_inside_1_96_sigma
  FROM acc_estimates GROUP BY n ORDER BY n;
SELECT * FROM acc_result;

\echo 'Mean estimate per decile of J (128 values):'
SELECT width_bucket(j, 0.3, 1.0000001, 7) AS bucket, round(min(j)::numeric, 2) AS j_from, round(max(j)::numeric, 2) AS j_to,
       count(*) AS pairs, round(avg(j)::numeric, 4) AS mean_j, round(avg(r)::numeric, 4) AS mean_estimate
  FROM acc_estimates WHERE n = 128 GROUP BY 1 ORDER BY 1;

-- The verdict: fails the script (ON_ERROR_STOP) when a target is missed.
DO $$
DECLARE
	result record;
BEGIN
	IF (SELECT count(*) FROM acc_result) <> 2 OR (SELECT min(pairs) FROM acc_result) < 1000 THEN
		RAISE EXCEPTION 'accuracy: too few pairs to judge';
	END IF;
	FOR result IN SELECT * FROM acc_result LOOP
		IF abs(result.mean_error) > 0.01 THEN
			RAISE EXCEPTION 'accuracy: n=% mean error % is outside +-0.01', result.num_perm, result.mean_error;
		END IF;
		IF result.pct_inside_1_96_sigma < 93 THEN
			RAISE EXCEPTION 'accuracy: n=% only % of pairs inside 1.96 sigma (need 93%%)', result.num_perm, result.pct_inside_1_96_sigma || '%';
		END IF;
		RAISE NOTICE 'accuracy: n=% pairs=% mean error=% inside 1.96 sigma=%: ok',
			result.num_perm, result.pairs, result.mean_error, result.pct_inside_1_96_sigma || '%';
	END LOOP;
END $$;

-- Not a verdict: how much the figures move with the hash family's seed.
-- Pairs share documents (a spam campaign makes many pairs of the same
-- messages), so their errors are correlated and one seed's mean error
-- wanders more than 1/sqrt(pairs) would suggest.
\echo 'The same figures at 128 values for seeds 1 to 4 (informational):'
CREATE TEMP TABLE acc_seed_signatures AS
SELECT id, seed, minhash(body, 128, 5, seed) AS sig FROM spam_messages, generate_series(1, 4) AS seed;
SELECT a.seed, round(avg(resemblance(a.sig, b.sig) - j)::numeric, 5) AS mean_error,
       round(100 * avg((abs(resemblance(a.sig, b.sig) - j) <= 1.96 * sqrt(j * (1 - j) / 128))::int)::numeric, 2) AS pct_inside_1_96_sigma
  FROM exact_pairs
  JOIN acc_seed_signatures a ON a.id = id_a
  JOIN acc_seed_signatures b ON b.id = id_b AND b.seed = a.seed
 GROUP BY a.seed ORDER BY a.seed;
