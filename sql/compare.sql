-- Comparing signatures.
CREATE TABLE cmp_docs (id int PRIMARY KEY, doc text, sig minhash(256));
-- Documents with known shingle overlap: doc 1 is 40 distinct words; doc n
-- replaces the last n-1 words, so it shares 40 - (n-1) - 4 of 36 shingles.
INSERT INTO cmp_docs
SELECT n, d, minhash(d, 256)
  FROM (SELECT n, string_agg(CASE WHEN w > 40 - (n - 1) THEN 'new' || w ELSE 'word' || w END, ' ' ORDER BY w) AS d
          FROM generate_series(1, 20) n, generate_series(1, 40) w GROUP BY n) s;

-- resemblance estimates the Jaccard index of the shingle sets: compare with
-- the exact value from shingle_hashes() (within 4 standard errors).
WITH exact AS (
  SELECT b.id,
         (SELECT count(*) FROM unnest(shingle_hashes(a.doc)) x WHERE x = ANY (shingle_hashes(b.doc)))::float8 /
         (SELECT count(DISTINCT x) FROM unnest(shingle_hashes(a.doc) || shingle_hashes(b.doc)) x) AS j,
         resemblance(a.sig, b.sig) AS r
    FROM cmp_docs a, cmp_docs b WHERE a.id = 1)
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE abs(r - j) <= 4 * sqrt(greatest(j * (1 - j), 1e-9) / 256)) AS within_4_sigma,
       min(j) FILTER (WHERE id = 1) AS self_exact, min(r) FILTER (WHERE id = 1) AS self_estimate
  FROM exact;

-- <%> is 1 - resemblance and is symmetric.
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE a.sig <%> b.sig = 1 - resemblance(a.sig, b.sig)) AS distance_ok,
       count(*) FILTER (WHERE resemblance(a.sig, b.sig) = resemblance(b.sig, a.sig)) AS symmetric
  FROM cmp_docs a, cmp_docs b;

-- % reads minhash.threshold (default 0.8); SET and SET LOCAL change it.
SHOW minhash.threshold;
SELECT count(*) AS at_default FROM cmp_docs a, cmp_docs b WHERE a.sig % b.sig;
SELECT count(*) AS expected_at_default FROM cmp_docs a, cmp_docs b WHERE resemblance(a.sig, b.sig) >= 0.8;
BEGIN;
SET LOCAL minhash.threshold = 0.5;
SELECT count(*) AS at_local_half FROM cmp_docs a, cmp_docs b WHERE a.sig % b.sig;
SELECT count(*) AS expected_at_half FROM cmp_docs a, cmp_docs b WHERE resemblance(a.sig, b.sig) >= 0.5;
COMMIT;
SHOW minhash.threshold;
SET minhash.threshold = 1;
SELECT count(*) AS identical_only FROM cmp_docs a, cmp_docs b WHERE a.sig % b.sig;
SET minhash.threshold = 0;
SELECT count(*) AS everything FROM cmp_docs a, cmp_docs b WHERE a.sig % b.sig;
SET minhash.threshold = 1.5;
SET minhash.threshold = -0.1;
SET minhash.threshold = 'NaN';
RESET minhash.threshold;

-- resembles(a, b, t): the same predicate with the threshold in the query.
SELECT count(*) FILTER (WHERE resembles(a.sig, b.sig, 0.5) = (resemblance(a.sig, b.sig) >= 0.5)) AS agree,
       count(*) AS pairs
  FROM cmp_docs a, cmp_docs b;
SELECT resembles(a.sig, a.sig, 1.0) AS self, resembles(a.sig, a.sig, 0) AS zero FROM cmp_docs a WHERE id = 1;
SELECT resembles(a.sig, a.sig, 1.01) FROM cmp_docs a WHERE id = 1;
SELECT resembles(a.sig, a.sig, -1) FROM cmp_docs a WHERE id = 1;
SELECT resembles(a.sig, a.sig, 'NaN') FROM cmp_docs a WHERE id = 1;
SELECT resembles(a.sig, a.sig, NULL) IS NULL AS strict FROM cmp_docs a WHERE id = 1;

-- Containment: a short memo quoted whole in a long reply is contained in it
-- (estimate near 1), while the reply is mostly new text.
WITH memo AS (SELECT 'please review the attached contract before the meeting on friday and send me your comments by noon' AS t),
     reply AS (SELECT 'thanks i read it twice and i have several questions about the indemnity clause the payment schedule the termination rights and the governing law section which seems to be missing ' || t AS t FROM memo)
SELECT round(containment(minhash(m.t, 256), minhash(r.t, 256))::numeric, 1) AS memo_in_reply,
       containment(minhash(r.t, 256), minhash(m.t, 256)) < 0.6 AS reply_in_memo_small,
       minhash_size(minhash(m.t, 256)) AS memo_shingles, minhash_size(minhash(r.t, 256)) AS reply_shingles
  FROM memo m, reply r;
-- Nothing is contained in or contains an empty signature, which resembles
-- nothing.
SELECT containment(minhash(''::text), minhash('a b c d e'::text)) AS empty_in_words,
       containment(minhash('a b c d e'::text), minhash(''::text)) AS words_in_empty;

-- NULLs.
SELECT resemblance(NULL, sig) IS NULL AS a, (sig % NULL) IS NULL AS b, (NULL <%> sig) IS NULL AS c,
       containment(sig, NULL) IS NULL AS d
  FROM cmp_docs WHERE id = 1;

-- PARALLEL SAFE is true: workers compute the same answers, and % sees the
-- session's threshold in every worker.
SET max_parallel_workers_per_gather = 2;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SELECT set_config(name, 'on', false) AS forced_parallel FROM pg_settings WHERE name IN ('force_parallel_mode', 'debug_parallel_query');
SET minhash.threshold = 0.5;
-- PostgreSQL 17 and later print the subquery's value as (InitPlan 1).col1,
-- not $0, and no "Params Evaluated" line: expected/compare_1.out has that plan.
EXPLAIN (COSTS OFF) SELECT count(*) FROM cmp_docs a WHERE a.sig % (SELECT sig FROM cmp_docs WHERE id = 1);
SELECT count(*) AS parallel_at_half,
       count(*) FILTER (WHERE resemblance(a.sig, b.sig) >= 0.5) AS expected
  FROM cmp_docs a, cmp_docs b WHERE a.sig % b.sig;
SELECT count(*) FILTER (WHERE minhash(doc, 256) = sig) AS rebuilt_in_workers, count(*) AS docs FROM cmp_docs;
RESET ALL;
