-- near_dupe_pairs on the realistic corpus and the recall of its planted pairs
-- (run by hand after realistic_groups.sql, which makes planted_exact):
--   psql -X -v t=0.8 [-v recall=0.99] -f test/bench/realistic_pairs.sql
-- Without recall the exact pairs; with it, recall => :recall (keys as text).
\set ON_ERROR_STOP 1
DROP TABLE IF EXISTS realistic_pairs;
CREATE TABLE realistic_pairs (key_a text, key_b text, resemblance double precision);
SET statement_timeout = '300s';
SELECT clock_timestamp() AS t0 \gset
\if :{?recall}
INSERT INTO realistic_pairs SELECT * FROM near_dupe_pairs('real_docs', 'id', 'sig', :t, NULL::text, recall => :recall);
\else
INSERT INTO realistic_pairs SELECT * FROM near_dupe_pairs('real_docs', 'id', 'sig', :t);
\endif
SELECT :t AS threshold, round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 1) AS seconds,
       count(*) AS pairs FROM realistic_pairs;
RESET statement_timeout;
SELECT :t AS threshold, count(*) AS planted_pairs_ge_t_plus_005,
       count(*) FILTER (WHERE EXISTS (SELECT FROM realistic_pairs r
                                       WHERE (r.key_a, r.key_b) IN ((p.id::text, p.original_id::text),
                                                                    (p.original_id::text, p.id::text)))) AS found,
       round(avg(EXISTS (SELECT FROM realistic_pairs r
                          WHERE (r.key_a, r.key_b) IN ((p.id::text, p.original_id::text),
                                                       (p.original_id::text, p.id::text)))::int)::numeric, 4) AS recall
  FROM planted_exact p WHERE p.exact >= :t + 0.05;
