-- Exact 5-word-shingle resemblance J of every pair of spam_messages bodies
-- with J >= :min_j, for the accuracy suites: through an inverted index over
-- shingle_hashes() (the exact set minhash() samples, code independent of
-- the estimators under test).  Creates the temporary tables
--   exact_shingles(id, h)   one row per distinct shingle of a body
--   exact_sizes(id, n)      distinct shingles per body (bodies with some)
--   exact_pairs(id_a, id_b, j), id_a < id_b
-- Use: \set min_j 0.3  then  \ir ../corpus/exact_pairs.sql
CREATE TEMP TABLE exact_shingles AS
SELECT id, unnest(shingle_hashes(body)) AS h FROM spam_messages;
CREATE TEMP TABLE exact_sizes AS SELECT id, count(*) AS n FROM exact_shingles GROUP BY id;
CREATE TEMP TABLE exact_pairs AS
SELECT id_a, id_b, common::float8 / (sa.n + sb.n - common) AS j
  FROM (SELECT a.id AS id_a, b.id AS id_b, count(*) AS common
          FROM exact_shingles a JOIN exact_shingles b ON a.h = b.h AND a.id < b.id
         GROUP BY 1, 2) c
  JOIN exact_sizes sa ON sa.id = id_a
  JOIN exact_sizes sb ON sb.id = id_b
 WHERE common::float8 / (sa.n + sb.n - common) >= :min_j;
