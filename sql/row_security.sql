-- Row-level security whose rows vary from scan to scan: a policy of
-- random() < 0.5, for a plain user.  near_dupe_groups and near_dupe_pairs
-- read the table once and hold what that scan returns, so each call sees
-- some of the rows, and each answer is consistent in itself: every row
-- once, every key in one group, every pair verified.  No internal error.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_rls_reader') THEN
		CREATE ROLE minhash_rls_reader NOSUPERUSER NOCREATEDB NOCREATEROLE;
	END IF;
END $$;
-- Families of three near-copies, and rows without a signature.
CREATE TABLE rls_docs (id int PRIMARY KEY, sig minhash);
INSERT INTO rls_docs
SELECT i, minhash(('memo ' || (i / 3) || ' about the budget review and the travel policy for all staff '
                   || (SELECT string_agg(md5((i / 3) || '.' || w), ' ') FROM generate_series(1, 20) w)
                   || ' signed ' || (i % 3))::text)
  FROM generate_series(1, 600) i;
INSERT INTO rls_docs SELECT i, NULL FROM generate_series(601, 620) i;
ALTER TABLE rls_docs ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_docs_some ON rls_docs FOR SELECT USING (random() < 0.5);
GRANT SELECT ON rls_docs TO minhash_rls_reader;
-- For near_dupe_groups_append: the same rows under keys 10 apart (so that
-- the source's key range is mostly keys it lacks), and a stored grouping of
-- the first half.
CREATE TABLE rls_spaced (id int PRIMARY KEY, sig minhash);
INSERT INTO rls_spaced SELECT id * 10, sig FROM rls_docs;
ALTER TABLE rls_spaced ENABLE ROW LEVEL SECURITY;
CREATE POLICY rls_spaced_some ON rls_spaced FOR SELECT USING (random() < 0.5);
GRANT SELECT ON rls_spaced TO minhash_rls_reader;
CREATE TABLE rls_groups (group_id bigint, key int, pivot int, resemblance float8);
CREATE TEMP TABLE rls_half AS SELECT * FROM rls_spaced WHERE id <= 3000;
INSERT INTO rls_groups SELECT * FROM near_dupe_groups('rls_half', 'id', 'sig', 0.8, NULL::int);
GRANT SELECT ON rls_groups TO minhash_rls_reader;

SET ROLE minhash_rls_reader;
SELECT setseed(0.25);
-- Ten calls of each (the threshold names the call, so that each runs).
SELECT count(*) AS calls,
       bool_and(g.rows BETWEEN 1 AND 619) AS some_rows_each,
       bool_and(g.keys = g.rows) AS every_row_once,
       bool_and(g.pivots_in_own_group) AS pivots_lead,
       bool_and(g.members_reach) AS members_reach_threshold
  FROM generate_series(1, 10) c,
       LATERAL (SELECT count(*) AS rows, count(DISTINCT key) AS keys,
                       bool_and(key <> pivot OR resemblance IS NULL OR resemblance = 1) AS pivots_in_own_group,
                       bool_and(resemblance IS NULL OR resemblance >= 0.8) AS members_reach
                  FROM near_dupe_groups('rls_docs', 'id', 'sig', 0.8 + 0 * c, NULL::int)) g;
SELECT count(*) AS calls,
       bool_and(p.pairs BETWEEN 1 AND 600) AS some_pairs_each,
       bool_and(p.ordered) AS key_a_before_key_b,
       bool_and(p.distinct_pairs = p.pairs) AS every_pair_once,
       bool_and(p.reach) AS pairs_reach_threshold
  FROM generate_series(1, 10) c,
       LATERAL (SELECT count(*) AS pairs, count(DISTINCT (key_a, key_b)) AS distinct_pairs,
                       bool_and(key_a < key_b) AS ordered, bool_and(resemblance >= 0.8) AS reach
                  FROM near_dupe_pairs('rls_docs', 'id', 'sig', 0.8 + 0 * c, NULL::int)) p;
-- near_dupe_groups_append reads the new rows once too (an integer primary
-- key would otherwise take the source's key range from a scan of its own,
-- which a policy shows other rows): each call
-- returns some new rows, each once, none stored, every member at the
-- threshold, the unsigned rows left out (their notice is not shown: its
-- count varies with the policy).
SET client_min_messages = warning;
SELECT count(*) AS calls,
       bool_and(a.rows BETWEEN 1 AND 300) AS some_rows_each,
       bool_and(a.keys = a.rows) AS every_row_once,
       bool_and(a.none_stored) AS none_stored,
       bool_and(a.members_reach) AS members_reach_threshold
  FROM generate_series(1, 10) c,
       LATERAL (SELECT count(*) AS rows, count(DISTINCT key) AS keys,
                       bool_and(key > 3000 AND key <= 6000) AS none_stored,
                       bool_and(resemblance >= 0.8 OR key = pivot) AS members_reach
                  FROM near_dupe_groups_append('rls_groups', 'rls_spaced', 'id', 'sig', 0.8 + 0 * c, NULL::int)) a;
RESET client_min_messages;
-- The text-keyed forms read the same way.
SELECT count(*) > 0 AS grouped FROM near_dupe_groups('rls_docs', 'id', 'sig');
SELECT count(*) > 0 AS paired FROM near_dupe_pairs('rls_docs', 'id', 'sig');
RESET ROLE;

DROP TABLE rls_docs, rls_spaced, rls_groups, rls_half;
DROP ROLE minhash_rls_reader;
