-- The 1M-document corpus for the scale benchmarks (test/bench/bench_1m.sql,
-- test/bench/group_bench_1m.sql), deterministic: table bench_docs(id, family, body,
-- sig).  100,000 families of 10: member 0 is 80 words drawn from a
-- 50,000-word vocabulary by a hash of (family, position); member m > 0 edits
-- it the way documents drift: m words replaced, m words inserted in the
-- middle, and odd members quote it below a reply of 20 words.  About 2.5
-- minutes on 2 cores, signatures included.  An existing bench_docs is kept.
-- psql variable families: how many families (default 100,000; the sharding
-- test and benchmarks pass fewer).
\if :{?families}
\else
\set families 100000
\endif
SELECT to_regclass('bench_docs') IS NULL AS generate_corpus \gset
\if :generate_corpus
\timing on
CREATE UNLOGGED TABLE bench_docs (id bigint PRIMARY KEY, family int, body text, sig minhash(128));
INSERT INTO bench_docs (id, family, body)
SELECT f::bigint * 10 + m, f,
       CASE WHEN m % 2 = 1 THEN
            (SELECT string_agg('r' || (hashint4(f * 100 + m * 20 + w) & 65535), ' ') FROM generate_series(1, 20) w) || ' '
       ELSE '' END ||
       (SELECT string_agg(CASE WHEN m > 0 AND (hashint4(f * 131 + w) & 63) < m THEN 'x' || (hashint4(f * 7 + m * 80 + w) & 65535)
                               ELSE 'w' || ((hashint4(f * 80 + w) & 2147483647) % 50000) END
                          || CASE WHEN m > 0 AND w = 40 THEN ' ' || repeat('ins' || m || ' ', m) ELSE '' END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 80) w)
  FROM generate_series(0, :families - 1) f, generate_series(0, 9) m;
UPDATE bench_docs SET sig = minhash(body);
\timing off
VACUUM ANALYZE bench_docs;
\endif
