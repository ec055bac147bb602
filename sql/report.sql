-- Reports on near-duplicate groups, over a stored groups table.
CREATE TABLE report_docs (id int PRIMARY KEY, body text);
INSERT INTO report_docs VALUES
  (1, 'the quick brown fox jumps over the lazy dog again and again'),
  (2, 'the quick brown fox jumps over the lazy dog again and again and again'),
  (3, 'a completely different text about nothing in particular at all'),
  (4, 'the quick brown fox jumps over the lazy cat again and again'),
  (5, 'five <b>words</b> & a "quote"');
-- Groups as near_dupe_groups returns them: 2 pivots 1 and 4; 3 and 5 alone.
CREATE TABLE report_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO report_groups VALUES (1, '2', '2', 1), (1, '1', '2', 0.9), (1, '4', '2', 0.8),
                                 (2, '3', '3', 1), (3, '5', '5', 1);

-- Five documents, three groups: two reviews saved (40%).
SELECT * FROM near_dupe_totals('report_groups');
SELECT * FROM near_dupe_histogram('report_groups');
-- The pivot's own resemblance (1) is not averaged in.
SELECT * FROM near_dupe_group_stats('report_groups');

-- One group side by side: shared chunks marked alike, differences unmarked.
SELECT * FROM near_dupe_review('report_groups', 'report_docs', 'id', 'body', 1);
SELECT key, role, marked FROM near_dupe_review('report_groups', 'report_docs', 'id', 'body', 1, 5, 'html');
-- A group of one: the pivot alone.
SELECT key, role, marked FROM near_dupe_review('report_groups', 'report_docs', 'id', 'body', 3, 5, 'html');

-- An empty groups table.
CREATE TABLE report_none (LIKE report_groups);
SELECT * FROM near_dupe_totals('report_none');
SELECT count(*) FROM near_dupe_histogram('report_none');
SELECT count(*) FROM near_dupe_group_stats('report_none');

-- Bad arguments.
SELECT * FROM near_dupe_review('report_groups', 'report_docs', 'id', 'body', 7);
SELECT * FROM near_dupe_review('report_groups', 'report_docs', 'no_such_key', 'body', 1);
SELECT * FROM near_dupe_review('report_groups', 'report_docs', 'id', 'no "body"', 1);
SELECT * FROM near_dupe_review('report_groups', 'report_docs', 'id', 'body', 1, 0);
SELECT * FROM near_dupe_totals('no_such_table');
SELECT * FROM near_dupe_totals(NULL);
SELECT * FROM near_dupe_review('report_groups', 'report_docs', 'id', 'body', NULL);

-- A hostile operator in a schema earlier on the path, matching the report's
-- numeric * bigint better than the built-in numeric * numeric, is not used.
CREATE SCHEMA report_hostile;
CREATE FUNCTION report_hostile.times(numeric, bigint) RETURNS numeric LANGUAGE sql AS 'SELECT -1::numeric';
CREATE OPERATOR report_hostile.* (LEFTARG = numeric, RIGHTARG = bigint, FUNCTION = report_hostile.times);
SET search_path = report_hostile, public;
SELECT 100.0 * 5::bigint AS hostile_operator_in_effect;
SELECT review_saved_pct FROM near_dupe_totals('report_groups');
RESET search_path;
DROP SCHEMA report_hostile CASCADE;

DROP TABLE report_docs, report_groups, report_none;
