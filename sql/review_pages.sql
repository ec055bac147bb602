-- near_dupe_review_pages: a two-wave production as pages a reviewer can
-- work through.  Every claim is checked against SQL over the group table:
-- each group listed once, pages of page_size, every order, the marks of the
-- latest wave, statuses, links, and the way between pages.
-- (test/review/ renders such pages in Chromium.)

-- The first wave: three copies of a licence (one with a hostile label), a
-- memo and its revision, a contract and its revision, a document alone, an
-- empty one, one of numbers only, a row without a signature, and 24 fillers
-- (groups of one) so that the index needs several pages.
CREATE TABLE rp_docs (id int PRIMARY KEY, path text, body text, sig minhash, wave int);
CREATE FUNCTION pg_temp.words(first int, n int, changed int[] DEFAULT '{}') RETURNS text LANGUAGE sql AS
$$ SELECT string_agg(CASE WHEN i = ANY (changed) THEN 'other' || i ELSE 'word' || i END, ' ' ORDER BY i) FROM generate_series(first, first + n - 1) i $$;
INSERT INTO rp_docs (id, path, body, wave) VALUES
	(1, 'vendor/<b>licence</b> & "copy".txt', 'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files, to deal in the software without restriction.', 1),
	(2, 'licence.txt', 'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files, to deal in the software without restriction.', 1),
	(3, NULL, 'Permission is hereby granted, free of charge, to any person obtaining a copy of this software and associated documentation files, to deal in the software without restriction!', 1),
	(4, 'memo.txt', pg_temp.words(1, 60), 1),
	(5, 'memo-edited.txt', pg_temp.words(1, 60, '{45,50,55}'), 1),
	(6, 'alone.txt', 'a text with no near-duplicate at all, written once and never copied anywhere', 1),
	(7, 'empty.txt', '', 1),
	(8, 'numbers.csv', '12 34 56 78 90 12 34', 1),
	(9, 'unsigned.txt', 'a row whose signature was never computed', 1),
	(10, 'contract.txt', pg_temp.words(1000, 50), 1),
	(11, 'contract-v2.txt', pg_temp.words(1000, 50, '{1040}'), 1);
INSERT INTO rp_docs (id, path, body, wave)
SELECT 100 + i, format('filler-%s.txt', i), pg_temp.words(5000 + 100 * i, 30), 1 FROM generate_series(0, 23) i;
UPDATE rp_docs SET sig = minhash(body) WHERE id <> 9;
CREATE TABLE rp_groups AS SELECT *, 1 AS wave FROM near_dupe_groups('rp_docs', 'id', 'sig', 0.5);
-- The second wave: a third contract (the contract's group grows), a new
-- pair, and a memo edited again that resembles the revision (0.55) but not
-- the memo, the pivot (0.23): a group of its own, linked to the memo's.
INSERT INTO rp_docs (id, path, body, wave) VALUES
	(12, 'contract-v3.txt', pg_temp.words(1000, 50, '{1010}'), 2),
	(13, 'new-a.txt', pg_temp.words(9000, 40), 2),
	(14, 'new-b.txt', pg_temp.words(9000, 40, '{9030}'), 2),
	(15, 'memo-edited-again.txt', pg_temp.words(1, 60, '{15,20,25,45,50,55}'), 2);
UPDATE rp_docs SET sig = minhash(body) WHERE wave = 2;
INSERT INTO rp_groups SELECT *, 2 FROM near_dupe_groups_append('rp_groups', 'rp_docs', 'id', 'sig', 0.5);
-- The coding of the first wave: the contract's group and the licence's.
CREATE TABLE rp_status (group_id bigint PRIMARY KEY, status text, note text, reviewed_by text, reviewed_at date);
INSERT INTO rp_status
SELECT g.group_id, s.status, s.note, s.reviewed_by, s.reviewed_at
  FROM (VALUES (10, 'reviewed', 'contract <drafts> & "notes"', 'alice', date '2026-01-02'),
			   (1, 'privileged', NULL, NULL, NULL)) s(pivot, status, note, reviewed_by, reviewed_at)
  JOIN rp_groups g ON g.key::int = s.pivot;
SELECT g.group_id, g.key, g.wave, s.status
  FROM rp_groups g LEFT JOIN rp_status s USING (group_id) WHERE g.key::int < 100 ORDER BY g.group_id, g.key::int;

-- Every page, ten groups to an index page.
CREATE TABLE rp_pages AS
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', label_column => 'path', page_size => 10,
									 status_table => 'rp_status', wave_column => 'wave', sig_column => 'sig', threshold => 0.5);
-- The index rows, page by page, in the order they appear.
CREATE FUNCTION pg_temp.index_rows(pages regclass)
	RETURNS TABLE(page int, ord bigint, group_id bigint, status text, mark text, size int, pivot text, min text, class text, links text)
	LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT coalesce(substring(p.file_name FROM '^index-([0-9]+)\.html$')::int, 1),
			   r.n, r.m[1]::bigint, r.m[2], r.m[3], r.m[4]::int, r.m[5], r.m[6], r.m[7], r.m[8]
		  FROM %s p,
			   regexp_matches(p.html, '<tr><td class="group"><a href="group-[0-9]+\.html">([0-9]+)</a></td><td class="coding">((?:[^<]|<(?!/td>))*)</td><td class="change">(?:<span class="mark">)?([^<]*)(?:</span>)?</td><td class="size">([0-9]+)</td><td class="pivot">((?:[^<]|<(?!/td>))*)</td><td class="min">([^<]*)</td><td class="class">([^<]*)</td><td class="links">((?:[^<]|<(?!/td>))*)</td></tr>', 'g')
				 WITH ORDINALITY r(m, n)
		 WHERE p.file_name LIKE 'index%%'$q$, pages);
END $$;
CREATE TABLE rp_rows AS
SELECT i.*, row_number() OVER (ORDER BY i.page, i.ord) AS position FROM pg_temp.index_rows('rp_pages') i;
-- The files: four index pages (33 groups), then a page per group.
SELECT count(*) FILTER (WHERE file_name LIKE 'index%') AS index_pages,
	   string_agg(file_name, ' ') FILTER (WHERE file_name LIKE 'index%') AS index_files,
	   count(*) FILTER (WHERE file_name ~ '^group-[0-9]+\.html$') AS group_pages,
	   (SELECT count(DISTINCT group_id) FROM rp_groups) AS groups
  FROM rp_pages;
-- Every document's group is listed exactly once across the index pages,
-- and nothing else is.
SELECT (SELECT count(*) FROM rp_rows) AS rows, (SELECT count(DISTINCT group_id) FROM rp_rows) AS distinct_groups,
	   (SELECT count(*) FROM rp_docs d WHERE NOT EXISTS (
			SELECT FROM rp_groups g JOIN rp_rows r USING (group_id) WHERE g.key::int = d.id)) AS documents_not_listed,
	   (SELECT count(*) FROM rp_rows r WHERE NOT EXISTS (SELECT FROM rp_groups g WHERE g.group_id = r.group_id)) AS rows_of_no_group,
	   (SELECT count(*) FROM rp_rows r WHERE r.size <> (SELECT count(*) FROM rp_groups g WHERE g.group_id = r.group_id)) AS wrong_sizes;
-- Pages of page_size rows, the last holding the rest; each says where it is.
SELECT page, count(*) AS rows,
	   (SELECT substring(p.html FROM '<nav class="nav">.*?</nav>') FROM rp_pages p
		 WHERE p.file_name = CASE WHEN r.page = 1 THEN 'index.html' ELSE format('index-%s.html', r.page) END) AS navigation
  FROM rp_rows r GROUP BY page ORDER BY page;
-- The summary counts by class, as near_dupe_classes does.
SELECT substring(html FROM '<dl>.*</dl>') AS summary FROM rp_pages WHERE file_name = 'index.html';
SELECT c.class, c.documents,
	   (SELECT count(*) FROM rp_rows r WHERE r.class = c.class OR (c.class = 'singletons' AND r.class = 'singleton')) AS groups_listed
  FROM near_dupe_classes('rp_groups', 'rp_docs', 'id', 'body') c;
-- The rows of the documents of the fixture (the fillers are singletons):
-- status escaped, marks of the latest wave, classes, links.
SELECT position, group_id, status, mark, size, pivot, min, class, links FROM rp_rows WHERE class <> 'singleton' OR pivot !~ 'filler' ORDER BY position;
-- The marks against the group table: new when every row is of the latest
-- wave, grew +N when N of them are.
SELECT count(*) AS groups,
	   count(*) FILTER (WHERE r.mark = CASE WHEN w.latest = w.size THEN 'new' WHEN w.latest > 0 THEN 'grew +' || w.latest ELSE '' END) AS marks_right
  FROM rp_rows r JOIN (SELECT group_id, count(*) AS size, count(*) FILTER (WHERE wave = 2) AS latest FROM rp_groups GROUP BY group_id) w USING (group_id);

-- Each order: the group ids of the index, page after page, against an
-- ORDER BY over the group table.
CREATE TABLE rp_expected_order AS
WITH g AS (
	SELECT g.group_id, count(*) AS size, min(g.resemblance) FILTER (WHERE g.key <> g.pivot) AS lowest,
		   min(g.pivot)::int AS pivot
	  FROM rp_groups g GROUP BY g.group_id
)
SELECT 'size' AS order_by, string_agg(g.group_id::text, ' ' ORDER BY g.size DESC, g.group_id) AS ids FROM g
UNION ALL
SELECT 'resemblance', string_agg(g.group_id::text, ' ' ORDER BY g.lowest NULLS LAST, g.group_id) FROM g
UNION ALL
SELECT 'label', string_agg(g.group_id::text, ' ' ORDER BY d.path NULLS LAST, d.id, g.group_id) FROM g JOIN rp_docs d ON d.id = g.pivot
UNION ALL
SELECT 'group_id', string_agg(g.group_id::text, ' ' ORDER BY g.group_id) FROM g;
CREATE FUNCTION pg_temp.listed(order_by text, page_size int, show text DEFAULT 'all') RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	DROP TABLE IF EXISTS rp_some;
	CREATE TEMP TABLE rp_some AS
	SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', label_column => 'path', order_by => order_by,
										 page_size => page_size, status_table => 'rp_status', wave_column => 'wave',
										 show => show, group_pages => false);
	RETURN (SELECT string_agg(i.group_id::text, ' ' ORDER BY i.page, i.ord) FROM pg_temp.index_rows('rp_some') i);
END $$;
SELECT e.order_by, pg_temp.listed(e.order_by, 10) = e.ids AS same_order, e.ids
  FROM rp_expected_order e ORDER BY e.order_by;
-- Pages of 25: two pages, the same order.
SELECT pg_temp.listed('size', 25) = (SELECT ids FROM rp_expected_order WHERE order_by = 'size') AS same_order;
SELECT count(*) AS pages, string_agg(file_name, ' ') AS files, sum((SELECT count(*) FROM regexp_matches(html, '<tr><td', 'g'))) AS rows FROM rp_some;
-- Only what is to review: groups without a status, and those new or grown
-- in the latest wave (the coded contract's group grew; the licence's is
-- left out).
SELECT pg_temp.listed('group_id', 10, 'to review') = (
		SELECT string_agg(group_id::text, ' ' ORDER BY group_id)
		  FROM (SELECT g.group_id FROM rp_groups g LEFT JOIN rp_status s USING (group_id)
				 GROUP BY g.group_id HAVING bool_and(s.group_id IS NULL) OR bool_or(g.wave = 2)) t) AS to_review;
SELECT substring(html FROM '<dd class="shown">[^<]*</dd>') AS shown FROM rp_some WHERE file_name = 'index.html';
DROP TABLE rp_some;

-- Group pages: one per listed group, in the index's order; each links to
-- the index page that lists it and to the previous and next group of the
-- index (none before the first, none after the last).
CREATE TABLE rp_navigation AS
SELECT substring(p.file_name FROM '[0-9]+')::bigint AS group_id,
	   substring(p.html FROM '<nav class="nav"><a href="(index[-0-9]*\.html)">') AS index_file,
	   substring(p.html FROM 'previous: <a href="group-([0-9]+)\.html">')::bigint AS previous_group,
	   substring(p.html FROM 'next: <a href="group-([0-9]+)\.html">')::bigint AS next_group,
	   p.html
  FROM rp_pages p WHERE p.file_name LIKE 'group-%';
SELECT count(*) AS group_pages,
	   count(*) FILTER (WHERE n.index_file = CASE WHEN r.page = 1 THEN 'index.html' ELSE format('index-%s.html', r.page) END) AS right_index,
	   count(*) FILTER (WHERE n.previous_group IS NOT DISTINCT FROM r.previous_group) AS right_previous,
	   count(*) FILTER (WHERE n.next_group IS NOT DISTINCT FROM r.next_group) AS right_next,
	   count(*) FILTER (WHERE n.previous_group IS NULL AND strpos(n.html, 'the first group') > 0) AS first,
	   count(*) FILTER (WHERE n.next_group IS NULL AND strpos(n.html, 'the last group') > 0) AS last
  FROM rp_navigation n
  JOIN (SELECT r.group_id, r.page, lag(r.group_id) OVER w AS previous_group, lead(r.group_id) OVER w AS next_group
		  FROM rp_rows r WINDOW w AS (ORDER BY r.position)) r USING (group_id);
-- The group pages come in the index's order.
SELECT (SELECT string_agg(substring(file_name FROM '[0-9]+'), ' ' ORDER BY n) FROM (SELECT file_name, row_number() OVER () AS n FROM rp_pages) p
		 WHERE file_name LIKE 'group-%')
	   = (SELECT string_agg(group_id::text, ' ' ORDER BY position) FROM rp_rows) AS index_order;
-- The coded contract's group that grew: its status, its mark, and its new
-- member (the contract's third version) marked new, the others not.
\pset format unaligned
\pset tuples_only on
SELECT substring(n.html FROM '<nav class="nav">.*?</header>') FROM rp_navigation n JOIN rp_groups g USING (group_id) WHERE g.key = '12';
\pset format aligned
\pset tuples_only off
SELECT (SELECT string_agg(DISTINCT m[1], ' ') FROM regexp_matches(n.html, '<span class="key">([0-9]+)</span> <span class="new">new</span>', 'g') m) AS marked_new,
	   (SELECT count(*) FROM regexp_matches(n.html, 'class="new"', 'g'))
	   = (SELECT count(*) FROM regexp_matches(n.html, '<span class="key">12</span> <span class="new">new</span>', 'g')) AS only_those
  FROM rp_navigation n JOIN rp_groups g USING (group_id) WHERE g.key = '12';
-- The new group, the uncoded group and the new memo linked to the memo's
-- group (its member 5, not its pivot).
\pset format unaligned
\pset tuples_only on
SELECT substring(n.html FROM '<nav class="nav">.*?</header>') FROM rp_navigation n JOIN rp_groups g USING (group_id) WHERE g.key IN ('13', '15') ORDER BY g.key;
\pset format aligned
\pset tuples_only off
-- Every link of every page is an anchor of the page or a relative link to
-- a page of the set.
SELECT count(*) FILTER (WHERE NOT (m[1] LIKE '#%' AND strpos(p.html, format('id="%s"', substr(m[1], 2))) > 0)
						  AND NOT (m[1] ~ '^(index(-[0-9]+)?|group-[0-9]+)\.html$'
								   AND EXISTS (SELECT FROM rp_pages q WHERE q.file_name = m[1]))) AS unresolved,
	   count(*) FILTER (WHERE m[1] !~ '^#') AS to_a_page
  FROM rp_pages p, regexp_matches(p.html, 'href="([^"]*)"', 'g') m;
-- Nothing of the tables is markup on a page.
SELECT count(*) FILTER (WHERE html ~ '<b>|<drafts>|<script') AS raw_markup,
	   count(*) FILTER (WHERE strpos(html, 'vendor/&lt;b&gt;licence&lt;/b&gt; &amp; &quot;copy&quot;.txt') > 0) AS escaped_label
  FROM rp_pages;

-- Without a wave column, or with one wave only, nothing is marked; without
-- a status table, no status; without sig_column, no links.
SELECT file_name, substring(html FROM '<dl>.*</dl>') AS summary
  FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', group_pages => false);
CREATE TABLE rp_first_wave AS SELECT * FROM rp_groups WHERE wave = 1;
SELECT strpos(html, 'class="wave"') > 0 AS wave_line, strpos(html, '<span class="mark">') > 0 AS marks
  FROM near_dupe_review_pages('rp_first_wave', 'rp_docs', 'id', 'body', wave_column => 'wave', group_pages => false);
-- A null wave is the earliest: with the first wave's rows null, the same
-- marks.
UPDATE rp_groups SET wave = NULL WHERE wave = 1;
SELECT count(*) FILTER (WHERE mark = 'new') AS new, string_agg(mark, ' ') FILTER (WHERE mark LIKE 'grew%') AS grew
  FROM (SELECT (regexp_matches(html, '<td class="change">(?:<span class="mark">)?([^<]*)', 'g'))[1] AS mark
		  FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', wave_column => 'wave', group_pages => false)) m;
UPDATE rp_groups SET wave = 1 WHERE wave IS NULL;
-- An empty group table: one index page, no row.
CREATE TABLE rp_none AS SELECT * FROM rp_groups WHERE false;
SELECT file_name, substring(html FROM '<dd class="shown">[^<]*</dd>') AS shown, strpos(html, '<tr><td') AS rows
  FROM near_dupe_review_pages('rp_none', 'rp_docs', 'id', 'body');

-- Errors: each with what to do.
\set SHOW_CONTEXT never
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', order_by => 'date');
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', page_size => 9);
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', page_size => 10001);
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', show => 'new');
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', order_by => NULL);
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', label_column => 'title');
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', wave_column => 'Wave');
ALTER TABLE rp_first_wave ALTER COLUMN wave TYPE text;
SELECT * FROM near_dupe_review_pages('rp_first_wave', 'rp_docs', 'id', 'body', wave_column => 'wave');
CREATE TABLE rp_bad_status (group_id bigint, state text);
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', status_table => 'rp_bad_status');
ALTER TABLE rp_status DROP CONSTRAINT rp_status_pkey;
INSERT INTO rp_status SELECT group_id, 'responsive' FROM rp_status WHERE status = 'privileged';
SELECT * FROM near_dupe_review_pages('rp_groups', 'rp_docs', 'id', 'body', status_table => 'rp_status');
\set SHOW_CONTEXT errors

DROP TABLE rp_docs, rp_groups, rp_status, rp_pages, rp_rows, rp_expected_order, rp_navigation, rp_first_wave, rp_none, rp_bad_status;
