-- near_dupe_groups on the realistic corpus (test/corpus/generate_realistic.sql),
-- and the recall of its planted pairs (run by hand):
--   psql -X -v t=0.8 -f test/bench/realistic_groups.sql
-- Prints the time of near_dupe_groups at threshold t (statement_timeout
-- 300 s), the groups it found, and the recall: of the planted pairs whose
-- exact resemblance is at least t + 0.05, how many ended in one group.
-- The exact resemblances are computed once into planted_exact (all families).
\set ON_ERROR_STOP 1
\ir ../corpus/planted_exact.sql
DROP TABLE IF EXISTS realistic_groups;
CREATE TABLE realistic_groups (group_id bigint, key text, pivot text, resemblance double precision);
SET statement_timeout = '300s';
SELECT clock_timestamp() AS t0 \gset
INSERT INTO realistic_groups SELECT * FROM near_dupe_groups('real_docs', 'id', 'sig', :t);
SELECT :t AS threshold, round(extract(epoch FROM clock_timestamp() - :'t0')::numeric, 1) AS seconds,
       count(DISTINCT group_id) AS groups, count(*) AS rows_in_groups
  FROM realistic_groups;
RESET statement_timeout;
SELECT :t AS threshold, count(*) AS planted_pairs_ge_t_plus_005,
       count(*) FILTER (WHERE ga.group_id = gb.group_id) AS same_group,
       round(avg(coalesce(ga.group_id = gb.group_id, false)::int)::numeric, 4) AS recall
  FROM planted_exact p
  LEFT JOIN realistic_groups ga ON ga.key = p.original_id::text
  LEFT JOIN realistic_groups gb ON gb.key = p.id::text
 WHERE p.exact >= :t + 0.05;
-- The misses: is the signatures' estimate below t (MinHash error), or did the
-- greedy grouping put the two into different groups although it is >= t?
SELECT :t AS threshold,
       count(*) FILTER (WHERE resemblance(o.sig, d.sig) < :t) AS missed_estimate_below_t,
       count(*) FILTER (WHERE resemblance(o.sig, d.sig) >= :t) AS missed_split_by_grouping
  FROM planted_exact p
  JOIN real_docs o ON o.id = p.original_id JOIN real_docs d ON d.id = p.id
  LEFT JOIN realistic_groups ga ON ga.key = p.original_id::text
  LEFT JOIN realistic_groups gb ON gb.key = p.id::text
 WHERE p.exact >= :t + 0.05 AND NOT coalesce(ga.group_id = gb.group_id, false);
