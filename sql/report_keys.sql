-- Reports count each document once.  A report finds each document by its
-- key: a key stored in more than one row of the group table (two appends
-- at once, a row inserted twice), or naming more than one row of the
-- source, would be counted twice, so every report refuses it (21000).  A
-- null key names the one document whose key is null, as in near_dupe_review
-- (found by IS NULL); a second null key is a repeated key.
--
-- Seven documents: 1, 2 and 3 near-copies, 4 and 5 near-copies, 6 alone,
-- 7 numbers only.
CREATE TABLE rk_docs (id integer PRIMARY KEY, subject text, body text, sig minhash);
INSERT INTO rk_docs (id, subject, body) VALUES
	(1, 'budget', 'the budget review of the third quarter with every figure attached for the board'),
	(2, 'budget, corrected', 'the budget review of the third quarter with every figure attached for the board, corrected'),
	(3, 'Fwd: budget', 'Fwd: the budget review of the third quarter with every figure attached for the board'),
	(4, 'digest', 'the weekly security digest lists the patches the help desk installed on every laptop'),
	(5, 'Fwd: digest', 'the weekly security digest lists the patches the help desk installed on every laptop today'),
	(6, 'parking', 'the garage on elm street is closed on friday for repairs'),
	(7, 'numbers', '12 34 56 78');
UPDATE rk_docs SET sig = minhash(body);
CREATE TABLE rk_groups AS SELECT * FROM near_dupe_groups('rk_docs', 'id', 'sig', 0.5, NULL::integer);
SELECT * FROM rk_groups ORDER BY group_id, key;

-- Each report, by a call that names the group table (%1$s), the source
-- (%2$s) and a group (%3$s); the SQLSTATE it raises, or 'ran'.
CREATE TABLE rk_calls (report text, call text);
INSERT INTO rk_calls VALUES
	('near_dupe_totals', 'SELECT * FROM near_dupe_totals(%1$L)'),
	('near_dupe_summary', 'SELECT * FROM near_dupe_summary(%1$L)'),
	('near_dupe_histogram', 'SELECT * FROM near_dupe_histogram(%1$L)'),
	('near_dupe_group_stats', 'SELECT * FROM near_dupe_group_stats(%1$L)'),
	('near_dupe_group_stats typed', 'SELECT * FROM near_dupe_group_stats(%1$L, NULL::integer)'),
	('near_dupe_classes', 'SELECT * FROM near_dupe_classes(%1$L)'),
	('near_dupe_classes with text', 'SELECT * FROM near_dupe_classes(%1$L, %2$L, ''id'', ''body'')'),
	('near_dupe_review', 'SELECT * FROM near_dupe_review(%1$L, %2$L, ''id'', ''body'', %3$s)'),
	('near_dupe_group_detail', 'SELECT * FROM near_dupe_group_detail(%1$L, %2$L, ''id'', ''body'', %3$s)'),
	('near_dupe_review_html', 'SELECT near_dupe_review_html(%1$L, %2$L, ''id'', ''body'', %3$s)'),
	('near_dupe_review_html labelled', 'SELECT near_dupe_review_html(%1$L, %2$L, ''id'', ''body'', %3$s, 5, ''subject'')'),
	('near_dupe_review_index_html', 'SELECT near_dupe_review_index_html(%1$L, %2$L, ''id'', ''subject'')'),
	('near_dupe_review_pages', 'SELECT count(*) FROM near_dupe_review_pages(%1$L, %2$L, ''id'', ''body'', ''subject'')');
CREATE FUNCTION pg_temp.outcome(call text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	-- every column read: an unread column's function would not run
	EXECUTE 'SELECT string_agg(r::text, '''') FROM (' || call || ') r';
	RETURN 'ran';
EXCEPTION WHEN OTHERS THEN
	RETURN SQLSTATE;
END $$;
-- Every report of the Reference is in the list.
SELECT DISTINCT p.proname FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
   AND p.proname ~ '^near_dupe_(totals|summary|histogram|group_stats|classes|review|group_detail)'
   AND p.proname NOT IN (SELECT split_part(report, ' ', 1) FROM rk_calls)
 ORDER BY 1;
-- A sound group table: every report runs.
SELECT report, pg_temp.outcome(format(call, 'rk_groups', 'rk_docs', 1)) FROM rk_calls ORDER BY report;

-- A key stored twice, in group 1, as two appends at once stored it: the
-- group table says 8 documents for 7.  Every report refuses it.
CREATE TABLE rk_repeated AS SELECT * FROM rk_groups;
INSERT INTO rk_repeated SELECT * FROM rk_groups WHERE key = 2;
SELECT count(*) AS rows, count(DISTINCT key) AS documents FROM rk_repeated;
SELECT report, pg_temp.outcome(format(call, 'rk_repeated', 'rk_docs', 1)) FROM rk_calls ORDER BY report;
-- Said once in full: which key, how many rows, what to do.
SELECT * FROM near_dupe_totals('rk_repeated');
SELECT * FROM near_dupe_review('rk_repeated', 'rk_docs', 'id', 'body', 1);
-- A report on one group reads that group's rows only: a key repeated in
-- another group does not stop it.
SELECT key, role FROM near_dupe_review('rk_repeated', 'rk_docs', 'id', 'body', 2);
-- The same key in two groups is a repeated key too.
UPDATE rk_repeated SET group_id = 2, pivot = 4 WHERE ctid = (SELECT max(ctid) FROM rk_repeated WHERE key = 2);
SELECT report, pg_temp.outcome(format(call, 'rk_repeated', 'rk_docs', 1)) FROM rk_calls
 WHERE report !~ 'review|detail' ORDER BY report;
-- In text group tables alike.
CREATE TABLE rk_repeated_text AS SELECT group_id, key::text AS key, pivot::text AS pivot, resemblance FROM rk_groups;
INSERT INTO rk_repeated_text SELECT group_id, key::text, pivot::text, resemblance FROM rk_groups WHERE key = 6;
SELECT report, pg_temp.outcome(format(call, 'rk_repeated_text', 'rk_docs', 3)) FROM rk_calls ORDER BY report;

-- A key that names two rows of the source: the reports that read the
-- source refuse it, the others do not read it.
CREATE TABLE rk_docs_twice AS SELECT * FROM rk_docs;
INSERT INTO rk_docs_twice SELECT * FROM rk_docs WHERE id = 1;
SELECT report, pg_temp.outcome(format(call, 'rk_groups', 'rk_docs_twice', 1)) FROM rk_calls ORDER BY report;
SELECT * FROM near_dupe_classes('rk_groups', 'rk_docs_twice', 'id', 'body');
SELECT near_dupe_review_index_html('rk_groups', 'rk_docs_twice', 'id', 'subject');
-- A repeated key that no group names is none of the reports' business.
DELETE FROM rk_docs_twice WHERE ctid = (SELECT max(ctid) FROM rk_docs_twice WHERE id = 1);
INSERT INTO rk_docs_twice (id, body) VALUES (99, 'not grouped'), (99, 'not grouped either');
SELECT report, pg_temp.outcome(format(call, 'rk_groups', 'rk_docs_twice', 1)) FROM rk_calls ORDER BY report;

-- Null keys, as a grouping of 1.0 could store them (near_dupe_groups now
-- refuses them): document 2, the pivot of group 1, has no key.  One null
-- key is one document: each report counts what it counts with the key.
CREATE TABLE rk_null_docs AS SELECT * FROM rk_docs;
UPDATE rk_null_docs SET id = NULL WHERE id = 2;
CREATE TABLE rk_null AS
SELECT group_id, CASE WHEN key <> 2 THEN key END AS key, CASE WHEN pivot <> 2 THEN pivot END AS pivot, resemblance
  FROM rk_groups;
SELECT report, pg_temp.outcome(format(call, 'rk_null', 'rk_null_docs', 1)) FROM rk_calls ORDER BY report;
CREATE FUNCTION pg_temp.result(call text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	result text;
BEGIN
	EXECUTE 'SELECT string_agg(r::text, E''\n'') FROM (' || call || ') r' INTO result;
	RETURN result;
END $$;
-- The reports that show no key: the same results.
SELECT report, pg_temp.result(format(call, 'rk_groups', 'rk_docs', 1)) = pg_temp.result(format(call, 'rk_null', 'rk_null_docs', 1)) AS same
  FROM rk_calls WHERE report ~ 'totals|summary|histogram|classes' ORDER BY report;
-- The others show the null key where the key was.
SELECT * FROM near_dupe_group_stats('rk_null', NULL::integer);
SELECT key, role, resemblance, marked FROM near_dupe_review('rk_null', 'rk_null_docs', 'id', 'body', 1);
SELECT strpos(near_dupe_review_html('rk_null', 'rk_null_docs', 'id', 'body', 1, 5, 'subject'),
			  '<h3>Pivot <span class="label">budget, corrected</span> <span class="key">NULL</span> <a href="#pivot">') > 0 AS null_pivot_page,
	   strpos(near_dupe_review_index_html('rk_null', 'rk_null_docs', 'id', 'subject'),
			  '<td class="pivot"><span class="label">budget, corrected</span> <span class="key">NULL</span></td>') > 0 AS null_pivot_indexed;
-- The numbers-only document found by its null key.
CREATE TABLE rk_null_numbers_docs AS SELECT * FROM rk_docs;
UPDATE rk_null_numbers_docs SET id = NULL WHERE id = 7;
CREATE TABLE rk_null_numbers AS
SELECT group_id, CASE WHEN key <> 7 THEN key END AS key, CASE WHEN pivot <> 7 THEN pivot END AS pivot, resemblance
  FROM rk_groups;
SELECT * FROM near_dupe_classes('rk_null_numbers', 'rk_null_numbers_docs', 'id', 'body');
SELECT count(*) AS differing_classes FROM (
	(SELECT * FROM near_dupe_classes('rk_null_numbers', 'rk_null_numbers_docs', 'id', 'body'))
	EXCEPT ALL (SELECT * FROM near_dupe_classes('rk_groups', 'rk_docs', 'id', 'body'))) x;
-- A second null key is a repeated key, in the group table or the source.
INSERT INTO rk_null SELECT * FROM rk_null WHERE key IS NULL;
SELECT report, pg_temp.outcome(format(call, 'rk_null', 'rk_null_docs', 1)) FROM rk_calls ORDER BY report;
DELETE FROM rk_null WHERE key IS NULL;
INSERT INTO rk_null VALUES (9, NULL, NULL, 0);
INSERT INTO rk_null_docs (id, subject, body) VALUES (NULL, 'another', 'another document without a key');
SELECT report, pg_temp.outcome(format(call, 'rk_null', 'rk_null_docs', 9)) FROM rk_calls ORDER BY report;
SELECT * FROM near_dupe_review('rk_null', 'rk_null_docs', 'id', 'body', 9);

DROP TABLE rk_docs, rk_groups, rk_calls, rk_repeated, rk_repeated_text, rk_docs_twice, rk_null_docs, rk_null, rk_null_numbers_docs, rk_null_numbers;
