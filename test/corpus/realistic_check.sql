-- Checks a corpus made by generate_realistic.sql (run by hand):
--   psql -X [-v sample=2000] -f test/corpus/realistic_check.sql
-- 1. the exact resemblance shingle_resemblance(original, derived) of a sample
--    of planted pairs (every k-th family), by decile and by kind: it must
--    cover 0.4-1.0;
-- 2. boilerplate: the most frequent lines and 5-word shingles, and in how many
--    documents they occur (a uniform-vocabulary corpus shares none).
\if :{?sample}
\else
\set sample 2000
\endif
\set ON_ERROR_STOP 1
SELECT greatest(1, count(*) / :sample) AS step FROM real_families \gset
DROP TABLE IF EXISTS planted_sample;
CREATE TEMP TABLE planted_sample AS
SELECT f.id, f.original_id, f.kind, f.strength,
       shingle_resemblance(o.body, d.body) AS exact
  FROM real_families f
  JOIN real_docs o ON o.id = f.original_id
  JOIN real_docs d ON d.id = f.id
 WHERE (f.id / 10) % :step = 0;

\echo 'exact resemblance of planted pairs, by decile'
SELECT width_bucket(exact, 0, 1.0000001, 10) AS decile,
       round(min(exact)::numeric, 2) AS lo, round(max(exact)::numeric, 2) AS hi,
       count(*) AS pairs
  FROM planted_sample GROUP BY 1 ORDER BY 1;
\echo 'by kind'
SELECT kind, count(*) AS pairs,
       round(min(exact)::numeric, 2) AS min,
       round(percentile_cont(0.5) WITHIN GROUP (ORDER BY exact)::numeric, 2) AS median,
       round(max(exact)::numeric, 2) AS max,
       round(avg((exact >= 0.4)::int)::numeric, 2) AS share_ge_04
  FROM planted_sample GROUP BY kind ORDER BY kind;

\echo 'boilerplate: most frequent lines in corpus_lines (the pool drawn from)'
SELECT count(*) AS occurrences, round(100.0 * count(*) / (SELECT count(*) FROM corpus_lines), 2) AS pct,
       left(line, 60) AS line
  FROM corpus_lines GROUP BY line ORDER BY count(*) DESC LIMIT 12;

\echo 'boilerplate: 5-word shingles shared by most documents (first 20,000 documents)'
WITH words AS (
    SELECT d.id, w.o, w.w
      FROM real_docs d, regexp_split_to_table(d.body, '\s+') WITH ORDINALITY w(w, o)
     WHERE d.id <= 20000 AND w.w <> ''
), sh AS (
    SELECT DISTINCT id, string_agg(w, ' ') OVER (PARTITION BY id ORDER BY o ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING) AS s,
           count(*) OVER (PARTITION BY id ORDER BY o ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING) AS n
      FROM words
), per AS (
    SELECT s, count(*) AS docs FROM sh WHERE n = 5 GROUP BY s
)
SELECT (SELECT count(*) FROM per) AS distinct_shingles,
       (SELECT count(*) FROM per WHERE docs >= 10) AS in_10_docs_or_more,
       (SELECT count(*) FROM per WHERE docs >= 100) AS in_100_docs_or_more,
       (SELECT max(docs) FROM per) AS max_docs;
WITH words AS (
    SELECT d.id, w.o, w.w
      FROM real_docs d, regexp_split_to_table(d.body, '\s+') WITH ORDINALITY w(w, o)
     WHERE d.id <= 20000 AND w.w <> ''
), sh AS (
    SELECT DISTINCT id, string_agg(w, ' ') OVER (PARTITION BY id ORDER BY o ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING) AS s,
           count(*) OVER (PARTITION BY id ORDER BY o ROWS BETWEEN CURRENT ROW AND 4 FOLLOWING) AS n
      FROM words
)
SELECT count(*) AS docs, left(s, 70) AS shingle FROM sh WHERE n = 5 GROUP BY s ORDER BY count(*) DESC LIMIT 10;
