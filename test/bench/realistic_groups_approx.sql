-- near_dupe_groups exact vs approximate (recall => 0.99) on the realistic
-- corpus (test/corpus/generate_realistic.sql), run by hand:
--   psql -X -v t=0.6 -f test/bench/realistic_groups_approx.sql
-- For threshold t: the time and groups of the exact grouping and of the
-- approximate one, and for each the recall "same group" of the planted pairs
-- whose exact resemblance is at least t + 0.05 (as realistic_groups.sql);
-- and the share of those pairs whose signatures share a band key of the
-- approximate layout (what the approximate mode can find at all).  The
-- exact resemblances are computed once into planted_exact (all families).
\set ON_ERROR_STOP 1
SELECT to_regclass('planted_exact') IS NULL AS need_exact \gset
\if :need_exact
CREATE TABLE planted_exact AS
SELECT f.id, f.original_id, f.kind, shingle_resemblance(o.body, d.body) AS exact
  FROM real_families f JOIN real_docs o ON o.id = f.original_id JOIN real_docs d ON d.id = f.id;
\endif
SET statement_timeout = '300s';
DROP TABLE IF EXISTS approx_groups;
CREATE TABLE approx_groups (mode text, group_id bigint, key bigint, pivot bigint, resemblance double precision);
SELECT clock_timestamp() AS t0 \gset
INSERT INTO approx_groups SELECT 'exact', g.* FROM near_dupe_groups('real_docs', 'id', 'sig', :t, NULL::bigint) g;
SELECT clock_timestamp() AS t1 \gset
INSERT INTO approx_groups SELECT 'recall 0.99', g.* FROM near_dupe_groups('real_docs', 'id', 'sig', :t, NULL::bigint, recall => 0.99) g;
SELECT clock_timestamp() AS t2 \gset
RESET statement_timeout;
CREATE INDEX ON approx_groups (mode, key);
SELECT l.bands, l.rows FROM lsh_index_layout(:t, 128, 0.99) l \gset
SELECT :t AS threshold, m.mode,
       round(extract(epoch FROM CASE m.mode WHEN 'exact' THEN :'t1'::timestamptz - :'t0'::timestamptz
                                            ELSE :'t2'::timestamptz - :'t1'::timestamptz END)::numeric, 1) AS seconds,
       (SELECT count(DISTINCT group_id) FROM approx_groups g WHERE g.mode = m.mode) AS groups,
       count(*) AS planted_pairs, count(*) FILTER (WHERE ga.group_id = gb.group_id) AS same_group,
       round(avg(coalesce(ga.group_id = gb.group_id, false)::int)::numeric, 4) AS recall
  FROM (VALUES ('exact'), ('recall 0.99')) m(mode)
  CROSS JOIN planted_exact p
  LEFT JOIN approx_groups ga ON ga.mode = m.mode AND ga.key = p.original_id
  LEFT JOIN approx_groups gb ON gb.mode = m.mode AND gb.key = p.id
 WHERE p.exact >= :t + 0.05
 GROUP BY m.mode ORDER BY m.mode;
SELECT :t AS threshold, :bands AS bands, :rows AS rows, count(*) AS planted_pairs,
       round(avg((minhash_bands(o.sig, :bands, :rows) && minhash_bands(d.sig, :bands, :rows))::int)::numeric, 4) AS share_a_band_key
  FROM planted_exact p JOIN real_docs o ON o.id = p.original_id JOIN real_docs d ON d.id = p.id
 WHERE p.exact >= :t + 0.05;
