-- Explaining a match on real mail (SpamAssassin corpus, message bodies).
--
-- For every pair of bodies with exact resemblance J >= 0.3 (found as in
-- test/accuracy/accuracy.sql, through an inverted index over shingle_hashes(), code
-- independent of the explain functions):
--   (a) shingle_resemblance() equals J (within 1e-12);
--   (b) S_J <= S_L for both matchings (enforced) and S_R <= S_J (counted and
--       printed: it fails on some pairs whose texts repeat text; the seed's
--       example 2 shows it cannot hold for literal matching in general);
--   (c) resemblance_interval() at 0.95 covers J for at least 94% of pairs.
\set ON_ERROR_STOP 1
SET work_mem = '512MB';
CREATE EXTENSION IF NOT EXISTS minhash;

\set min_j 0.3
\ir ../corpus/exact_pairs.sql

-- Texts that repeat a 5-word window (fewer distinct shingles than windows).
CREATE TEMP TABLE ex_repeats AS
SELECT s.id, greatest(cardinality(minhash_tokens(m.body)) - 4, 1) > s.n AS repeats
  FROM exact_sizes s JOIN spam_messages m ON m.id = s.id;

\timing on
CREATE TEMP TABLE ex_measures AS
SELECT p.id_a, p.id_b, p.j,
       shingle_resemblance(a.body, b.body) AS s_r,
       lit.s_j AS lit_s_j, lit.s_l AS lit_s_l, lit.common_words AS lit_c,
       inf.s_j AS inf_s_j, inf.s_l AS inf_s_l, inf.common_words AS inf_c,
       iv.lower, iv.upper
  FROM exact_pairs p
  JOIN spam_messages a ON a.id = p.id_a
  JOIN spam_messages b ON b.id = p.id_b
 CROSS JOIN LATERAL chunk_similarity(a.body, b.body, 5, 'literal') lit
 CROSS JOIN LATERAL chunk_similarity(a.body, b.body, 5, 'information') inf
 CROSS JOIN LATERAL resemblance_interval(minhash(a.body, 128), minhash(b.body, 128), 0.95) iv;
\timing off

\echo
\echo 'Explaining matches on SpamAssassin pairs with J >= 0.3:'
CREATE TEMP TABLE ex_result AS
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE abs(s_r - j) <= 1e-12) AS s_r_equal_brute_force,
       max(abs(s_r - j)) AS max_s_r_difference,
       count(*) FILTER (WHERE s_r <= inf_s_j + 1e-12 AND inf_s_j <= inf_s_l + 1e-12) AS information_ordered,
       count(*) FILTER (WHERE lit_s_j <= lit_s_l + 1e-12) AS literal_s_j_le_s_l,
       count(*) FILTER (WHERE s_r <= lit_s_j + 1e-12) AS literal_s_r_le_s_j,
       round(100 * avg((lower <= j AND j <= upper)::int)::numeric, 2) AS pct_interval_covers
  FROM ex_measures;
SELECT * FROM ex_result;
\echo 'Mean measures per band of J:'
SELECT width_bucket(j, 0.3, 1.0000001, 7) AS bucket, round(min(j)::numeric, 2) AS j_from, count(*) AS pairs,
       round(avg(s_r)::numeric, 3) AS s_r, round(avg(inf_s_j)::numeric, 3) AS s_j_information,
       round(avg(lit_s_j)::numeric, 3) AS s_j_literal, round(avg(lit_s_l)::numeric, 3) AS s_l_literal,
       round(avg(upper - lower)::numeric, 3) AS interval_width
  FROM ex_measures GROUP BY 1 ORDER BY 1;

-- The seed derives S_R <= S_J <= S_L for texts without repeated text, and
-- that is where it is a theorem: enforced there.  With repeated text it
-- cannot hold in general for either matching (README, "Explaining a match"):
-- counted.
\echo 'S_R <= S_J <= S_L by whether either text repeats a 5-word window (near-duplicates: J >= 0.8):'
CREATE TEMP TABLE ex_order AS
SELECT (ra.repeats OR rb.repeats) AS repeated_text, count(*) AS pairs,
       count(*) FILTER (WHERE s_r <= lit_s_j + 1e-12 AND lit_s_j <= lit_s_l + 1e-12) AS literal_ordered,
       count(*) FILTER (WHERE s_r <= inf_s_j + 1e-12 AND inf_s_j <= inf_s_l + 1e-12) AS information_ordered,
       count(*) FILTER (WHERE j >= 0.8) AS near_pairs,
       count(*) FILTER (WHERE j >= 0.8 AND s_r <= lit_s_j + 1e-12 AND lit_s_j <= lit_s_l + 1e-12) AS near_literal_ordered,
       count(*) FILTER (WHERE j >= 0.8 AND s_r <= inf_s_j + 1e-12 AND inf_s_j <= inf_s_l + 1e-12) AS near_information_ordered
  FROM ex_measures m JOIN ex_repeats ra ON ra.id = m.id_a JOIN ex_repeats rb ON rb.id = m.id_b
 GROUP BY 1 ORDER BY 1;
SELECT * FROM ex_order;
DO $$
DECLARE
	r record;
BEGIN
	SELECT * INTO r FROM ex_order WHERE NOT repeated_text;
	IF r.pairs IS NULL OR r.pairs < 100 THEN
		RAISE EXCEPTION 'explain accuracy: too few pairs without repeated text (%)', r.pairs;
	END IF;
	IF r.literal_ordered <> r.pairs OR r.information_ordered <> r.pairs THEN
		RAISE EXCEPTION 'explain accuracy: S_R <= S_J <= S_L fails on a pair without repeated text (literal % of %, information % of %)',
			r.literal_ordered, r.pairs, r.information_ordered, r.pairs;
	END IF;
	RAISE NOTICE 'explain accuracy: S_R <= S_J <= S_L on all % pairs without repeated text, both matchings', r.pairs;
END $$;

DO $$
DECLARE
	r record;
BEGIN
	SELECT * INTO r FROM ex_result;
	IF r.pairs < 1000 THEN
		RAISE EXCEPTION 'explain accuracy: too few pairs (%)', r.pairs;
	END IF;
	IF r.s_r_equal_brute_force <> r.pairs THEN
		RAISE EXCEPTION 'explain accuracy: shingle_resemblance differs from brute force on % pairs', r.pairs - r.s_r_equal_brute_force;
	END IF;
	-- Known gap: S_R <= S_J does not hold on every pair (texts with repeated
	-- text); reported, not enforced.  S_J <= S_L always holds.
	IF (SELECT count(*) FROM ex_measures WHERE inf_s_j > inf_s_l + 1e-12) > 0 THEN
		RAISE EXCEPTION 'explain accuracy: S_J <= S_L (information) fails';
	END IF;
	RAISE NOTICE 'explain accuracy: S_R <= S_J holds on % of % pairs (information) and % (literal): not on every pair',
		r.information_ordered, r.pairs, r.literal_s_r_le_s_j;
	IF r.literal_s_j_le_s_l <> r.pairs THEN
		RAISE EXCEPTION 'explain accuracy: S_J <= S_L (literal) fails on % pairs', r.pairs - r.literal_s_j_le_s_l;
	END IF;
	IF r.pct_interval_covers < 94 THEN
		RAISE EXCEPTION 'explain accuracy: the 95 percent interval covers J for only % percent of pairs', r.pct_interval_covers;
	END IF;
	RAISE NOTICE 'explain accuracy: % pairs, S_R = brute force on all, S_J <= S_L on all, interval covers % percent: ok',
		r.pairs, r.pct_interval_covers;
END $$;
