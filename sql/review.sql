-- The review page: near_dupe_review marks both sides of each
-- comparison, and near_dupe_review_html makes one group a complete HTML page.
-- (test/review/review_page.sh renders the page in Chromium and checks the DOM.)
CREATE TABLE review_docs (id text PRIMARY KEY, body text);
-- The pivot: hostile markup, entities, quotes, several lines, a footer.
-- Member 1 drops the footer and inserts a word; member 2 inserts a line and
-- replaces words; its key is markup.
INSERT INTO review_docs VALUES
('<b>pivot</b> & "one"', E'Dear customer, <script>alert(1)</script> your account &amp; balance\n'
	'needs attention today because the bank said so.\n\n'
	'Regards, the team at "Example" & Co''s office\n-- \n'
	'unsubscribe at http://example.com/?a=1&b=2 <img src=x onerror=alert(2)>'),
('member''s <i>one</i>', E'Dear customer, <script>alert(1)</script> your account &amp; balance\n'
	'needs urgent attention today because the bank said so.\n\n'
	'Regards, the team at "Example" & Co''s office'),
('<script>alert("key")</script>', E'Dear customer, <script>alert(1)</script> your account &amp; balance\n'
	'needs attention today because the bank said so.\n'
	'P.S. Reply within <b>24 hours</b>!\n\n'
	'Regards, the people at "Example" & Co''s office\n-- \n'
	'unsubscribe at http://example.com/?a=1&b=2 <img src=x onerror=alert(2)>'),
('alone', 'a text with no near-duplicate at all');
CREATE TABLE review_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO review_groups VALUES
	(1, '<b>pivot</b> & "one"', '<b>pivot</b> & "one"', 1),
	(1, 'member''s <i>one</i>', '<b>pivot</b> & "one"', 0.75),
	(1, '<script>alert("key")</script>', '<b>pivot</b> & "one"', 0.5),
	(2, 'alone', 'alone', 1);

-- Both sides marked: chunk N is the same words in marked (the member) and
-- pivot_marked (the pivot), so what either side lacks is what is unmarked.
-- The pivot's own row has no comparison: pivot_marked is null.
SELECT key, role, marked, pivot_marked
  FROM near_dupe_review('review_groups', 'review_docs', 'id', 'body', 1, 3);
SELECT key, role, marked, pivot_marked
  FROM near_dupe_review('review_groups', 'review_docs', 'id', 'body', 1, 3, 'html');
-- The columns of 1.0 are where they were.
SELECT key, role, resemblance, common_words, round(s_l::numeric, 3) AS s_l
  FROM near_dupe_review('review_groups', 'review_docs', 'id', 'body', 1, 3);

-- The page: one complete document, the same from a fresh call.
SELECT near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', 1, 3) AS page \gset
SELECT left(:'page', 16) AS starts, right(:'page', 8) = E'</html>\n' AS ends_the_document,
	   :'page' = near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', 1, 3) AS repeatable;
-- Every tag in it is one of ours (escaped text has no "<"), with the
-- attributes we write: no script, no image, nothing loaded from elsewhere.
SELECT string_agg(DISTINCT lower(m[1]), ' ' ORDER BY lower(m[1])) AS tags
  FROM regexp_matches(:'page', '<([!/]?[A-Za-z][A-Za-z0-9]*)', 'g') m;
-- (escaped text has no '"' either, so name="value" is always markup)
SELECT string_agg(DISTINCT m[1], ' ' ORDER BY m[1]) AS attributes
  FROM regexp_matches(:'page', '\s([A-Za-z-]+)="', 'g') m;
SELECT :'page' ~* '<script|<img|<link|<iframe|url\(|@import' AS has_active_markup,
	   strpos(:'page', '&lt;script&gt;alert(1)&lt;/script&gt;') > 0 AS script_shown_as_text,
	   strpos(:'page', '&lt;img src=x onerror=alert(2)&gt;') > 0 AS image_shown_as_text,
	   strpos(:'page', '&amp;amp; balance') > 0 AS entity_shown_as_written,
	   strpos(:'page', 'Co&#39;s office') > 0 AS apostrophe_escaped;
-- The page apart from its head (the style sheet): the summary, then each
-- member beside the pivot, shared chunks marked on both sides.  Printed as
-- a user saves the page: unaligned, tuples only.
\pset format unaligned
\pset tuples_only on
SELECT substring(:'page' FROM '<body>.*') AS body;

-- A group of one: the pivot alone.
SELECT substring(near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', 2) FROM '<body>.*') AS body;
-- Keys of another type, a text column of another type.
CREATE TABLE review_typed (n bigint PRIMARY KEY, body varchar(200));
INSERT INTO review_typed SELECT i, 'one two three four five six seven eight ' || i FROM generate_series(1, 2) i;
-- (a groups table with keys of the key column's type, too)
CREATE TABLE review_typed_groups (group_id bigint, key bigint, pivot bigint, resemblance float8);
INSERT INTO review_typed_groups VALUES (7, '1', '1', 1), (7, '2', '1', 0.8);
SELECT substring(near_dupe_review_html('review_typed_groups', 'review_typed', 'n', 'body', 7) FROM '<section.*</section>') AS member;
\pset format aligned
\pset tuples_only off

-- Bad arguments: near_dupe_review's errors; null gives null.
\set VERBOSITY terse
SELECT near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', 3);
SELECT near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', 1, 0);
\set VERBOSITY default
SELECT near_dupe_review_html('review_groups', 'review_docs', 'id', 'body', NULL) IS NULL AS null_group_gives_null;

-- Members whose keys equal the pivot's (numerics written 1.0, 1.00,
-- 1.000): a group of three is a pivot and two members, each its own text.
CREATE TABLE review_equal_keys (k numeric, body text);
INSERT INTO review_equal_keys
SELECT ('1.' || repeat('0', i))::numeric, 'one two three four five six seven eight nine ten, copy ' || i
  FROM generate_series(1, 3) i;
CREATE TABLE review_equal_groups (group_id bigint, key numeric, pivot numeric, resemblance float8);
INSERT INTO review_equal_groups VALUES (1, 1.0, 1.0, 1), (1, 1.00, 1.0, 0.9), (1, 1.000, 1.0, 0.8);
SELECT near_dupe_review_html('review_equal_groups', 'review_equal_keys', 'k', 'body', 1) AS page \gset
SELECT substring(:'page' FROM '<dd class="size">[0-9]+</dd>') AS size,
	   strpos(:'page', 'class="alone"') > 0 AS shown_alone,
	   (SELECT string_agg(m[1] || ': copy ' || m[2], ', ') FROM regexp_matches(:'page', '<h3>Member ([0-9.]+)</h3><div class="text"><mark[^>]*>[^<]*</mark> ([0-9])</div>', 'g') m) AS members;

-- A page a reviewer can finish: documents named by a column of the user's,
-- members with the pivot's exact text on one line, long shared passages
-- folded, each member's differences listed and linked, the text capped.
CREATE TABLE review_prod (id int PRIMARY KEY, path text, body text);
INSERT INTO review_prod VALUES
	(1, 'mail/<b>q3</b> & "budget".eml', 'Subject: Q3 budget. The third quarter budget is attached for review by the finance team, please send comments before Friday.'),
	(2, 'copy one.eml', 'Subject: Q3 budget. The third quarter budget is attached for review by the finance team, please send comments before Friday.'),
	(3, NULL, 'Subject: Q3 budget. The third quarter budget is attached for review by the finance team, please send comments before Friday.'),
	(4, 'revised.eml', 'Subject: Q3 budget (revised). The third quarter budget is attached for review by the finance team, please send comments before Monday.'),
	(5, 'long.txt', (SELECT string_agg('word' || i, ' ') FROM generate_series(1, 2000) i)),
	(6, 'long-edited.txt', (SELECT string_agg(CASE WHEN i = 1000 THEN 'CHANGED' ELSE 'word' || i END, ' ') FROM generate_series(1, 2000) i)),
	(7, 'memo.txt', 'a memo that was saved twice, word for word'),
	(8, 'memo (1).txt', 'a memo that was saved twice, word for word'),
	(9, 'alone.txt', 'a text with no near-duplicate at all');
CREATE TABLE review_prod_groups (group_id bigint, key int, pivot int, resemblance float8);
INSERT INTO review_prod_groups VALUES (1, 1, 1, 1), (1, 2, 1, 1), (1, 3, 1, 1), (1, 4, 1, 0.6),
	(2, 5, 5, 1), (2, 6, 5, 0.99), (3, 7, 7, 1), (3, 8, 7, 1), (4, 9, 9, 1);
-- Six arguments reach the old form, seven the new one.
SELECT p.oid::regprocedure AS form, p.pronargs, p.pronargdefaults FROM pg_proc p
 WHERE p.proname = 'near_dupe_review_html' ORDER BY p.pronargs;
SELECT near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 1, 5, 'path') AS page \gset
\pset format unaligned
\pset tuples_only on
-- Labels escaped beside the keys (a null label: the key alone); the two
-- copies on one line; the revision with its differences, linked.
SELECT substring(:'page' FROM '<header.*');
\pset format aligned
\pset tuples_only off
-- Every link leads to an anchor on the page.
SELECT count(*) AS links, count(*) FILTER (WHERE strpos(:'page', format('id="%s"', m[1])) > 0) AS resolved
  FROM regexp_matches(:'page', 'href="#([^"]+)"', 'g') m;
-- A long shared passage is folded, its middle in <details>, with the same
-- words cut off on both sides; the change in the middle is listed.
SELECT near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 2, 5, 'path') AS long_page \gset
SELECT (SELECT count(*) FROM regexp_matches(:'long_page', '<details class="fold">', 'g')) AS folds,
	   (SELECT array_agg(m[1]) FROM regexp_matches(:'long_page', '<summary>&hellip; ([0-9]+) more shared words</summary>', 'g') m) AS folded_words,
	   strpos(:'long_page', '<li class="replaced"><a href="#m1-m1">replaced</a>: &ldquo;CHANGED&rdquo;') > 0 AS change_listed,
	   strpos(:'long_page', 'class="cut-note"') > 0 AS cut_note;
-- The cap: at 16384 bytes of text (the least), the middles are left out,
-- and the page says so, member by member.
SELECT near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 2, 5, 'path', 16384) AS capped \gset
SELECT octet_length(:'capped') < octet_length(:'long_page') AS smaller,
	   strpos(:'capped', '<details') = 0 AS no_folds,
	   (SELECT count(*) FROM regexp_matches(:'capped', 'class="elided"', 'g')) AS elided,
	   substring(:'capped' FROM '<ul class="cuts">.*?</ul>') AS cuts;
-- A group whose only member is the pivot's text: the member on the
-- identical line, the pivot alone.
\pset format unaligned
\pset tuples_only on
SELECT substring(near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 3, 5, 'path') FROM '<p class="identical">.*');
-- The page of the whole group table: one line per group of two or more,
-- linked by page_name, then the groups of one counted.
SELECT near_dupe_review_index_html('review_prod_groups', 'review_prod', 'id', 'path') AS index_page \gset
SELECT substring(:'index_page' FROM '<body>.*');
\pset format aligned
\pset tuples_only off
SELECT (SELECT string_agg(m[1], ' ') FROM regexp_matches(near_dupe_review_index_html('review_prod_groups', 'review_prod', 'id', 'id', 'pages/g%s.htm'), 'href="([^"]+)"', 'g') m) AS links;
-- Errors: a label column that is not there, a cap too small, a page name
-- that could leave the folder or run a script; nothing of a document echoed.
\set VERBOSITY terse
SELECT near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 1, 5, 'title');
SELECT near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 1, 5, 'path', 1000);
SELECT near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 9, 5, 'path');
SELECT near_dupe_review_index_html('review_prod_groups', 'review_prod', 'id', 'path', 'javascript:alert(%s)');
SELECT near_dupe_review_index_html('review_prod_groups', 'review_prod', 'id', 'path', '../group-%s.html');
SELECT near_dupe_review_index_html('review_prod_groups', 'review_prod', 'id', 'path', 'group.html');
SELECT near_dupe_review_index_html('review_prod_groups', 'review_prod', 'id', 'nope');
SELECT * FROM minhash_internal.review_pair_html('a', 'b', 5, 'm"1', 10, 10);
SELECT * FROM minhash_internal.review_pair_html('a', 'b', 0, 'm1', 10, 10);
\set VERBOSITY default
-- A null text is drawn as an empty one: all of the pivot removed.
UPDATE review_prod SET body = NULL WHERE id = 6;
SELECT substring(near_dupe_review_html('review_prod_groups', 'review_prod', 'id', 'body', 2, 5, 'path', 16384)
				 FROM '<div class="changes">.*?</div>') AS null_member;
DROP TABLE review_prod, review_prod_groups;

DROP TABLE review_docs, review_groups, review_typed, review_typed_groups, review_equal_keys, review_equal_groups;
