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
-- A long shared passage is folded, its middle in <details>: in the member
-- the passages over 1600 bytes, beside it in the pivot every one, to its
-- first and last words; the change in the middle is listed.
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

-- Nothing drawn twice: the pivot's text once, at the top; members with the
-- pivot's text on one line; members whose texts are the same as each
-- other's (not the pivot's) one section that names them all, beside the
-- pivot with its shared passages folded.
CREATE TABLE review_copies (id text PRIMARY KEY, path text, body text);
INSERT INTO review_copies VALUES
	('p', 'report.txt', 'The quarterly report of the northern sales office lists every customer visit, order and refund for the period.'),
	('p2', 'report copy.txt', 'The quarterly report of the northern sales office lists every customer visit, order and refund for the period.'),
	('s1', 'south/a.txt', 'The quarterly report of the southern sales office lists every customer visit, order and refund for the period.'),
	('s2', 'south/b.txt', 'The quarterly report of the southern sales office lists every customer visit, order and refund for the period.'),
	('s3', NULL, 'The quarterly report of the southern sales office lists every customer visit, order and refund for the period.'),
	('s4', 'south/d.txt', 'The quarterly report of the southern sales office lists every customer visit, order and refund for the period. '),
	('e', 'east.txt', 'The quarterly report of the eastern sales office lists every customer visit, order and refund for the period.');
CREATE TABLE review_copies_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO review_copies_groups VALUES (1, 'p', 'p', 1), (1, 'p2', 'p', 1), (1, 's1', 'p', 0.8), (1, 's2', 'p', 0.8),
	(1, 's3', 'p', 0.8), (1, 's4', 'p', 0.8), (1, 'e', 'p', 0.75);
SELECT near_dupe_review_html('review_copies_groups', 'review_copies', 'id', 'body', 1, 5, 'path') AS page \gset
-- Three of the four southern copies are one text (the fourth has a space
-- more: a text of its own), drawn once; the pivot's text in full once.
SELECT (SELECT count(*) FROM regexp_matches(:'page', '<section class="member"', 'g')) AS member_sections,
	   (SELECT count(*) FROM regexp_matches(:'page', 'class="side pivot"', 'g')) AS pivot_columns,
	   (SELECT count(*) FROM regexp_matches(:'page', 'northern sales office lists every customer visit, order and refund for the period.', 'g')) AS pivot_text_in_full,
	   (SELECT count(*) FROM regexp_matches(:'page', 'southern sales office lists every customer visit, order and refund for the period.', 'g')) AS southern_text_in_full,
	   substring(:'page' FROM '<dd class="size">[0-9]+</dd>') AS size;
\pset format unaligned
\pset tuples_only on
SELECT substring(:'page' FROM '<p class="identical">.*?</p>');
SELECT substring(:'page' FROM '<p class="copies">.*?</p>');
-- The pivot beside a member: what only the pivot has in place, the shared
-- passages folded to their first and last words, the same chunk numbers.
SELECT substring(:'page' FROM '<section class="member" id="m1">.*?</section>');
\pset format aligned
\pset tuples_only off
SELECT count(*) AS links, count(*) FILTER (WHERE strpos(:'page', format('id="%s"', m[1])) > 0) AS resolved
  FROM regexp_matches(:'page', 'href="#([^"]+)"', 'g') m;
-- The production's pages: extra_summary at the end of the summary, the
-- members in new_keys marked new (one of the copies: in its section's list).
SELECT minhash_internal.review_group_page('review_copies_groups', 'review_copies', 'id', 'body', 1, 5, 'path', 2097152,
										  '<p class="nav">navigation</p>', ARRAY['s2', 'e']) AS marked \gset
SELECT strpos(:'marked', '<p class="nav">navigation</p></header>') > 0 AS extra_summary_ends_the_summary,
	   (SELECT count(*) FROM regexp_matches(:'marked', '<span class="new">new</span>', 'g')) AS new_badges,
	   strpos(:'marked', '<span class="key">s2</span> <span class="new">new</span>') > 0 AS copy_marked,
	   strpos(:'marked', '<span class="key">e</span> <span class="new">new</span>') > 0 AS member_marked,
	   :'marked' ~ '\.new[, ][^}]*\{' AS styled;
-- A label or key over 100 characters is cut to 100 and an ellipsis: a
-- text column given as the label column names documents, never prints them.
UPDATE review_copies SET path = repeat('long path ', 30) WHERE id = 'e';
INSERT INTO review_copies VALUES (repeat('k', 150), 'a long key', 'The quarterly report of the western sales office lists every customer visit, order and refund for the period.');
INSERT INTO review_copies_groups VALUES (1, repeat('k', 150), 'p', 0.7);
SELECT DISTINCT length(m[1]) AS label_length, right(m[1], 12) AS ends
  FROM regexp_matches(near_dupe_review_html('review_copies_groups', 'review_copies', 'id', 'body', 1, 5, 'path'),
					  '<span class="(?:label|key)">([^<]{100,})</span>', 'g') m;
CREATE TABLE review_bodies AS SELECT i AS id, repeat(format('document %s says the same long thing again. ', i), 400) AS body FROM generate_series(1, 20) i;
CREATE TABLE review_bodies_groups AS SELECT 1::bigint AS group_id, id AS key, 1 AS pivot, 1 - id / 100.0::float8 AS resemblance FROM review_bodies;
SELECT near_dupe_review_html(group_table => 'review_bodies_groups', source => 'review_bodies', key_column => 'id', text_column => 'body',
							 group_id => 1, min_words => 5, label_column => 'body') AS labelled,
	   near_dupe_review_html(group_table => 'review_bodies_groups', source => 'review_bodies', key_column => 'id', text_column => 'body',
							 group_id => 1, min_words => 5, label_column => 'id') AS unlabelled,
	   near_dupe_review_index_html(group_table => 'review_bodies_groups', source => 'review_bodies', key_column => 'id',
								   label_column => 'body') AS index_page \gset
SELECT (SELECT sum(octet_length(body)) FROM review_bodies) AS text_bytes,
	   octet_length(:'labelled') - octet_length(:'unlabelled') < 20 * 4 * 150 AS labels_add_little,
	   (SELECT max(length(m[1])) FROM regexp_matches(:'labelled', '<span class="label">([^<]*)</span>', 'g') m) AS longest_label,
	   octet_length(:'index_page') < 20000 AS index_page_small,
	   substring(:'index_page' FROM '<td class="pivot">.*?</td>') AS pivot_cell;
-- A document without words: a class badge by its name and a note in
-- place of an empty box; numbers only: a badge.
CREATE TABLE review_classes (id text, body text);
INSERT INTO review_classes VALUES ('empty', ''), ('dots', '... -- !!'), ('n1', '2024 2025 0042 1234 5678 9999'), ('n2', '2024 2025 0042 1234 5678 9998');
CREATE TABLE review_classes_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO review_classes_groups VALUES (1, 'empty', 'empty', 0), (2, 'dots', 'dots', 0), (3, 'n1', 'n1', 1), (3, 'n2', 'n1', 0.8);
\pset format unaligned
\pset tuples_only on
SELECT substring(near_dupe_review_html('review_classes_groups', 'review_classes', 'id', 'body', g, 5, 'id') FROM '<section class="pivot-block".*?</section>')
  FROM generate_series(1, 2) g;
SELECT m[1] FROM regexp_matches(near_dupe_review_html('review_classes_groups', 'review_classes', 'id', 'body', 3, 5, 'id'), '<h[23]>(.*?)</h[23]>', 'g') m;
\pset format aligned
\pset tuples_only off
DROP TABLE review_copies, review_copies_groups, review_bodies, review_bodies_groups, review_classes, review_classes_groups;

DROP TABLE review_docs, review_groups, review_typed, review_typed_groups, review_equal_keys, review_equal_groups;
