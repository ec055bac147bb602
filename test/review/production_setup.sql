-- A two-wave production of 100,000 realistic documents for the production
-- pages' browser test (production_pages.sh): wave 1 (ids up to 90,000)
-- grouped and every group coded, then wave 2 (the rest, and planted
-- documents) appended.  Planted in wave 2: a new group whose members are
-- identical to each other but not to its pivot, an empty document, a
-- document of numbers only, and a document that resembles a member (not
-- the pivot) of a coded group more than the threshold but that group's
-- pivot less, so that it starts a group of its own and links to it.
-- Needs real_docs (test/corpus/generate_realistic.sql); leaves the tables
-- production_docs, production_groups, production_status and
-- production_planted (what the browser test looks for, by group).
\set threshold 0.6
SET client_min_messages = warning;
DROP TABLE IF EXISTS production_docs, production_groups, production_status, production_planted;
CREATE TABLE production_docs (id bigint PRIMARY KEY, bates text NOT NULL, body text NOT NULL, sig minhash);
INSERT INTO production_docs
SELECT id, 'PROD' || lpad(id::text, 7, '0'), body, sig FROM real_docs WHERE id <= 90000;

CREATE TABLE production_groups AS
SELECT *, 1 AS wave FROM near_dupe_groups('production_docs', 'id', 'sig', :threshold, NULL::bigint);

-- Every group of wave 1 coded, as a reviewer leaves a wave before the next.
CREATE TABLE production_status (group_id bigint PRIMARY KEY, status text NOT NULL, note text,
                                reviewed_by text, reviewed_at timestamptz);
INSERT INTO production_status
SELECT group_id,
       (ARRAY['not responsive', 'responsive', 'privileged'])[1 + (hashint8(group_id) & 2147483647) % 3],
       CASE WHEN group_id % 7 = 0 THEN 'see the cover letter' END,
       'reviewer ' || (1 + group_id % 4), timestamptz '2026-11-20 09:00+00' + group_id * interval '1 second'
  FROM production_groups GROUP BY group_id;

-- The link: a coded group's member M that is furthest from its pivot P;
-- the new document is M with P's lines taken out one by one until it
-- resembles P less than the threshold and M still at least as much.
CREATE TEMP TABLE planted_link AS
WITH members AS (
    SELECT g.group_id, g.key AS member, g.pivot, m.body AS member_body, p.body AS pivot_body
      FROM production_groups g
      JOIN production_docs m ON m.id = g.key
      JOIN production_docs p ON p.id = g.pivot
     WHERE g.key <> g.pivot AND g.resemblance < 0.75
), variants AS (
    SELECT x.group_id, x.member, x.pivot, v.body
      FROM members x
     CROSS JOIN LATERAL (
        SELECT string_agg(l.line, E'\n' ORDER BY l.n) AS body
          FROM regexp_split_to_table(x.member_body, E'\n') WITH ORDINALITY l(line, n)
         WHERE l.line = '' OR strpos(x.pivot_body, l.line) = 0 OR l.n % 4 <> 0) v
)
SELECT v.group_id, v.member, v.pivot, v.body
  FROM variants v
  JOIN production_docs m ON m.id = v.member
  JOIN production_docs p ON p.id = v.pivot
 WHERE resemblance(minhash(v.body), m.sig) >= :threshold
   AND resemblance(minhash(v.body), p.sig) < :threshold - 0.05
 ORDER BY v.group_id LIMIT 1;
SELECT count(*) = 1 AS link_planted FROM planted_link \gset
\if :link_planted
\else
\echo production_setup: ERROR: no coded member to plant a link against
\quit
\endif

-- Wave 2.
INSERT INTO production_docs
SELECT id, 'PROD' || lpad(id::text, 7, '0'), body, sig FROM real_docs WHERE id > 90000;
INSERT INTO production_docs (id, bates, body)
SELECT 100000 + n, 'PROD' || lpad((100000 + n)::text, 7, '0'), b
  FROM (VALUES
    (1, (SELECT body FROM real_docs WHERE id = 95001)),
    (2, (SELECT body || E'\nSent from the second office.' FROM real_docs WHERE id = 95001)),
    (3, (SELECT body || E'\nSent from the second office.' FROM real_docs WHERE id = 95001)),
    (4, (SELECT body || E'\nSent from the second office.' FROM real_docs WHERE id = 95001)),
    (5, ''),
    (6, E'  \n*** --- ***\n'),
    (7, E'2026 11 28\n555 0100 555 0199\n42'),
    (8, (SELECT body FROM planted_link))) v(n, b);
-- the first planted copy is the pivot: give it the smaller key
UPDATE production_docs SET body = body || E'\nThis copy is filed twice.' WHERE id = 95001;
UPDATE production_docs SET sig = minhash(body) WHERE sig IS NULL OR id = 95001;

INSERT INTO production_groups
SELECT *, 2 FROM near_dupe_groups_append('production_groups', 'production_docs', 'id', 'sig', :threshold, NULL::bigint);
-- Group pages read the group table by group_id, as the README advises.
CREATE INDEX ON production_groups (group_id);
ANALYZE production_docs, production_groups, production_status;
-- What the browser test opens: the coded group that gained the most
-- members in wave 2 (ties: the smallest id), the planted groups.
CREATE TABLE production_planted AS
SELECT 'grew' AS what, g.group_id, s.status, count(*) FILTER (WHERE g.wave = 2) AS new_members, NULL::bigint AS linked_group
  FROM production_groups g JOIN production_status s USING (group_id)
 GROUP BY g.group_id, s.status HAVING bool_or(g.wave = 1) AND bool_or(g.wave = 2)
 ORDER BY count(*) FILTER (WHERE g.wave = 2) DESC, g.group_id LIMIT 1;
INSERT INTO production_planted
SELECT 'copies', group_id, NULL::text, NULL::bigint, NULL::bigint FROM production_groups WHERE key = 100002
UNION ALL SELECT 'empty', group_id, NULL, NULL, NULL FROM production_groups WHERE key = 100005
UNION ALL SELECT 'link', group_id, NULL, NULL, (SELECT group_id FROM planted_link) FROM production_groups WHERE key = 100008;
SELECT (SELECT count(*) FROM production_docs) AS documents,
       (SELECT count(DISTINCT group_id) FROM production_groups) AS groups,
       (SELECT count(*) FROM production_status) AS coded,
       (SELECT group_id FROM planted_link) AS linked_group,
       (SELECT group_id FROM production_groups WHERE key = 100008) AS link_group;
