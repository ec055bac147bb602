-- The steps of test/bench/append_bench.sh on a realistic corpus (real_docs):
--   psql -v step=setup -v first=N -v t=T -v recall=R|null -f append_bench.sql
--     ab_first: the rows id <= first; ab_groups: their grouping, stored
--     (near_dupe_groups, keys as text), vacuumed as a stored table would be;
--     ab_new: the other rows, the new ones, alone.
--   psql -v step=check -v t=T -v recall=R|null -f append_bench.sql
--     the rules of near_dupe_groups_append on ab_appended (its result)
--     against ab_groups and real_docs, and what a full regrouping
--     (ab_regroup) does differently.  Prints one line of checks; with
--     -v short=1 a broken rule stops the script (ON_ERROR_STOP).
-- ab_tiny and ab_tiny_groups (setup) warm a session up: the library and the
-- catalogs.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET minhash.group_memory = '8GB';
\if :{?short}
\else
\set short 0
\endif

SELECT :'step' = 'setup' AS setup, :'step' = 'check' AS check, :'recall' = 'null' AS exact \gset
\if :setup
DROP TABLE IF EXISTS ab_first, ab_groups, ab_tiny, ab_tiny_groups, ab_regroup, ab_appended, ab_new, ab_new_groups;
-- A table as it stands once loaded and vacuumed: hint bits set, pages
-- all-visible (else the first call to scan it pays for that, not its work).
VACUUM ANALYZE real_docs;
CREATE TABLE ab_first AS SELECT id, sig FROM real_docs WHERE id <= :first;
CREATE TABLE ab_tiny AS SELECT id, sig FROM real_docs WHERE id <= 100;
VACUUM ANALYZE ab_first;
VACUUM ANALYZE ab_tiny;
-- the new rows alone, for the floor (append_bench.sh)
CREATE TABLE ab_new AS SELECT id, sig FROM real_docs WHERE id > :first;
VACUUM ANALYZE ab_new;
CREATE TABLE ab_tiny_groups AS SELECT * FROM near_dupe_groups('ab_tiny', 'id', 'sig', 0.8) WHERE key::bigint <= 50;
CREATE TABLE ab_groups AS SELECT * FROM near_dupe_groups('ab_first', 'id', 'sig', :t, NULL::text, :recall);
VACUUM ANALYZE ab_groups;
SELECT count(*) AS stored_rows, count(DISTINCT group_id) AS stored_groups, max(group_id) AS last_group_id FROM ab_groups;
\endif

\if :check
-- Indexes for the checks' lookups by group and by key (not for the calls).
CREATE INDEX IF NOT EXISTS ab_groups_group_id ON ab_groups (group_id);
CREATE INDEX IF NOT EXISTS ab_groups_key ON ab_groups (key);
CREATE INDEX IF NOT EXISTS ab_appended_group_id ON ab_appended (group_id);
CREATE INDEX IF NOT EXISTS ab_appended_key ON ab_appended (key);
ANALYZE ab_groups;
ANALYZE ab_appended;
-- The exact pairs between the new rows and the stored pivots (and among
-- the new rows), for the exact rules: near_dupe_pairs over both.
\if :exact
CREATE TEMP TABLE ab_mix AS
SELECT d.id, d.sig, true AS new FROM real_docs d JOIN ab_appended a ON d.id = a.key::bigint
UNION ALL
SELECT d.id, d.sig, false FROM real_docs d JOIN ab_groups g ON d.id = g.key::bigint AND g.key = g.pivot
 WHERE d.sig IS NOT NULL;
CREATE TEMP TABLE ab_cross AS
SELECT CASE WHEN x.new THEN p.key_a ELSE p.key_b END AS new_id,
       CASE WHEN x.new THEN p.key_b ELSE p.key_a END AS old_id, p.resemblance
  FROM near_dupe_pairs('ab_mix', 'id', 'sig', :t, NULL::bigint) p
  JOIN ab_mix x ON x.id = p.key_a JOIN ab_mix y ON y.id = p.key_b
 WHERE x.new <> y.new;
\else
CREATE TEMP TABLE ab_cross (new_id bigint, old_id bigint, resemblance float8);
\endif
CREATE TEMP TABLE nr AS
SELECT a.*, d.sig, d.sig IS NOT NULL AND minhash_size(d.sig) > 0 AS words
  FROM ab_appended a JOIN real_docs d ON d.id = a.key::bigint;
CREATE INDEX ON nr (key);
ANALYZE nr;
WITH last AS (SELECT max(group_id) AS id FROM ab_groups),
     best AS (SELECT c.new_id, max(c.resemblance) AS r FROM ab_cross c GROUP BY c.new_id),
     checks AS (
SELECT
  (SELECT count(*) FROM ab_appended) = (SELECT count(*) FROM real_docs) - (SELECT count(*) FROM ab_groups)
  AND NOT EXISTS (SELECT FROM ab_appended a JOIN ab_groups g USING (key))
  AND (SELECT count(DISTINCT key) FROM ab_appended) = (SELECT count(*) FROM ab_appended)
  AND (SELECT count(*) FROM nr) = (SELECT count(*) FROM ab_appended)
    AS same_rows,
  NOT EXISTS (SELECT FROM ab_appended a, last WHERE a.group_id <= last.id
               AND NOT EXISTS (SELECT FROM ab_groups g WHERE g.group_id = a.group_id AND g.key = g.pivot AND g.pivot = a.pivot))
  AND NOT EXISTS (SELECT FROM ab_appended a, last WHERE a.group_id > last.id
               AND NOT EXISTS (SELECT FROM ab_appended p WHERE p.group_id = a.group_id AND p.key = a.pivot AND p.pivot = p.key))
    AS ids,
  NOT EXISTS (SELECT FROM nr JOIN real_docs p ON p.id = nr.pivot::bigint
               WHERE nr.words AND NOT (resemblance(nr.sig, p.sig) >= :t AND resemblance(nr.sig, p.sig) = nr.resemblance))
    AS at_threshold,
  CASE WHEN :'exact'::boolean THEN
  (SELECT count(*) FROM ab_cross c JOIN ab_appended a ON a.key = c.new_id::text AND a.key = a.pivot, last
    WHERE a.group_id > last.id) END AS new_pivots_near_old,
  CASE WHEN :'exact'::boolean THEN
  (SELECT count(*) FROM nr LEFT JOIN best b ON b.new_id::text = nr.key, last
    WHERE nr.words AND CASE WHEN b.r IS NULL THEN nr.group_id <= last.id
                            ELSE nr.group_id > last.id OR nr.resemblance <> b.r
                              OR nr.group_id <> (SELECT min(g.group_id) FROM ab_cross c JOIN ab_groups g ON g.key = c.old_id::text
                                                  WHERE c.new_id = b.new_id AND c.resemblance = b.r) END) END AS not_best_join,
  (SELECT count(*) FROM ab_appended a, last WHERE a.group_id <= last.id) AS joined,
  (SELECT count(DISTINCT group_id) FROM ab_appended a, last WHERE a.group_id > last.id) AS new_groups,
  (SELECT count(*) FROM nr, last WHERE NOT nr.words) AS without_words)
SELECT :t AS threshold, :'recall' AS recall, c.same_rows, c.ids, c.at_threshold,
       coalesce(c.new_pivots_near_old::text, 'n/a') AS new_pivots_near_old,
       coalesce(c.not_best_join::text, 'n/a') AS not_best_join, c.joined, c.new_groups, c.without_words,
       c.same_rows AND c.ids AND c.at_threshold
       AND (NOT :'exact'::boolean OR (c.new_pivots_near_old = 0 AND c.not_best_join = 0)) AS all_rules_hold
  FROM checks c \gset ab_
SELECT :'ab_threshold' AS threshold, :'ab_recall' AS recall, :'ab_same_rows' AS same_rows, :'ab_ids' AS ids,
       :'ab_at_threshold' AS at_threshold, :'ab_new_pivots_near_old' AS new_pivots_near_old,
       :'ab_not_best_join' AS not_best_join, :'ab_joined' AS joined, :'ab_new_groups' AS new_groups,
       :'ab_all_rules_hold' AS all_rules_hold;
-- How the full regrouping differs on the same rows: the new rows it puts
-- in a group with a stored row's pivot other than append's, and the stored
-- rows whose group it changes (append never moves one).
SELECT (SELECT count(*) FROM ab_appended a JOIN ab_regroup r USING (key) WHERE r.pivot <> a.pivot) AS new_rows_other_pivot_in_regroup,
       (SELECT count(*) FROM ab_groups g JOIN ab_regroup r USING (key) WHERE r.pivot <> g.pivot) AS stored_rows_moved_by_regroup;
\if :short
SELECT :'ab_all_rules_hold'::boolean AS ok \gset
\if :ok
\else
\echo 'append_bench: a rule of near_dupe_groups_append does not hold'
SELECT 1 / 0;
\endif
\endif
\endif
