-- near_dupe_group_links: documents that resemble a member of another group
-- at the threshold, checked against a brute-force self-join; then the
-- argument names of every report and page function.

-- Chains of windows: document m of chain c is the words m*25+1 .. m*25+100
-- of the chain's own vocabulary, so that neighbours resemble each other
-- about 0.59 (71 shared 5-word shingles of 121) and documents two apart
-- about 0.32.  Document 1 has five words more, so that it is the pivot of
-- the first wave's 0, 1 and 2 at 0.45, and document 3 of the second wave
-- resembles member 2 but not the pivot.  Copies make ties between members,
-- a bridge is half of one chain and half of the next, and an empty
-- document and a row without a signature link to nothing.
CREATE TABLE links_docs (id text PRIMARY KEY, body text, sig minhash, wave integer, title text);
INSERT INTO links_docs (id, body, wave)
SELECT format('c%s_%s', c, m),
       (SELECT string_agg(format('c%sw%s', c, w), ' ' ORDER BY w) FROM generate_series(m * 25 + 1, m * 25 + 100) w)
       || CASE WHEN m = 1 THEN format(' c%1$sx1 c%1$sx2 c%1$sx3 c%1$sx4 c%1$sx5', c) ELSE '' END,
       CASE WHEN m < 3 THEN 1 ELSE 2 END
  FROM generate_series(1, 6) c, generate_series(0, 5) m;
INSERT INTO links_docs (id, body, wave)
SELECT format('c%s_%s_copy', c, m), d.body, 1
  FROM generate_series(1, 3) c, generate_series(1, 2) m
  JOIN links_docs d ON true WHERE d.id = format('c%s_%s', c, m);
INSERT INTO links_docs (id, body, wave)
SELECT format('bridge%s', c),
       (SELECT string_agg(format('c%sw%s', c + (w > 50)::integer, w), ' ' ORDER BY w) FROM generate_series(1, 100) w),
       2
  FROM generate_series(1, 2) c;
INSERT INTO links_docs (id, body, wave) VALUES ('empty1', '', 1), ('empty2', '', 2), ('unsigned', NULL, 2);
UPDATE links_docs SET sig = minhash(body), title = 'Letter ' || id WHERE body IS NOT NULL;
ANALYZE links_docs;

-- The first wave grouped, the second appended (as the README's rolling
-- workflow does it).
CREATE TABLE links_wave1 AS SELECT id, sig FROM links_docs WHERE wave = 1;
CREATE TABLE links_groups AS SELECT *, 1 AS wave FROM near_dupe_groups('links_wave1', 'id', 'sig', 0.45);
INSERT INTO links_groups SELECT *, 2 FROM near_dupe_groups_append('links_groups', 'links_docs', 'id', 'sig', 0.45);
SELECT wave, count(*) AS rows, count(DISTINCT group_id) AS groups FROM links_groups GROUP BY wave ORDER BY wave;

-- The fixture holds what the test is about: c1_3 (wave 2) resembles c1_2,
-- a member of a stored group of the first wave, at the threshold, but not
-- that group's pivot, so it started a group of its own.
SELECT d.id, g.group_id, g.pivot, g.wave,
       resemblance(d.sig, (SELECT sig FROM links_docs WHERE id = 'c1_2')) >= 0.45 AS resembles_c1_2,
       resemblance(d.sig, (SELECT p.sig FROM links_docs p WHERE p.id = (SELECT pivot FROM links_groups WHERE key = 'c1_2'))) >= 0.45 AS resembles_its_pivot,
       (SELECT group_id FROM links_groups WHERE key = 'c1_2') AS group_of_c1_2,
       (SELECT pivot FROM links_groups WHERE key = 'c1_2') AS pivot_of_c1_2
  FROM links_docs d JOIN links_groups g ON g.key = d.id
 WHERE d.id = 'c1_3';

-- Every link by brute force: each document against each member of every
-- other group, the most resembling member per group kept (ties: the
-- smaller key); the documents of the latest wave against stored groups
-- when waves count.
CREATE FUNCTION pg_temp.links_brute(t double precision, waves boolean)
RETURNS TABLE (key text, group_id bigint, linked_group_id bigint, linked_key text, resemblance double precision)
LANGUAGE sql AS $$
	SELECT DISTINCT ON (a.key, b.group_id) a.key, a.group_id, b.group_id, b.key, resemblance(da.sig, db.sig)
	  FROM links_groups a JOIN links_docs da ON da.id = a.key,
	       links_groups b JOIN links_docs db ON db.id = b.key
	 WHERE a.group_id <> b.group_id AND resemblance(da.sig, db.sig) >= t
	   AND (NOT waves OR (a.wave = (SELECT max(wave) FROM links_groups)
	                      AND b.group_id IN (SELECT s.group_id FROM links_groups s WHERE s.wave < (SELECT max(wave) FROM links_groups))))
	 ORDER BY a.key, b.group_id, resemblance(da.sig, db.sig) DESC, b.key
$$;

-- With the wave column: the link from c1_3 names the stored group and its
-- member c1_2.
SELECT l.*, l.linked_group_id = (SELECT group_id FROM links_groups WHERE key = 'c1_2') AS names_the_group
  FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45, 'wave') l
 WHERE l.key = 'c1_3';

-- Every link, with and without the wave column, the same rows and order as
-- the brute force at three thresholds.
SELECT t, waves,
       (SELECT count(*) FROM pg_temp.links_brute(t, waves)) AS links,
       (SELECT array_agg(l ORDER BY n) FROM (SELECT l, row_number() OVER () AS n
          FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', t, CASE WHEN waves THEN 'wave' END) l) f)
       = (SELECT array_agg(b ORDER BY b.key, b.linked_group_id) FROM pg_temp.links_brute(t, waves) b) AS same_as_brute_force
  FROM (VALUES (0.45), (0.3), (0.6)) v(t), (VALUES (false), (true)) w(waves)
 ORDER BY waves, t;

-- The links in full without waves, and in order (by key, linked_group_id).
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45) WHERE key LIKE 'c2%' OR key LIKE 'bridge%';

-- One wave only, or a null wave and one other: a null wave is the
-- earliest, so the second case has two waves.
CREATE TABLE links_one_wave AS SELECT group_id, key, pivot, resemblance, 7::smallint AS wave FROM links_groups;
SELECT count(*) = (SELECT count(*) FROM pg_temp.links_brute(0.45, false)) AS every_link
  FROM near_dupe_group_links('links_one_wave', 'links_docs', 'id', 'sig', 0.45, 'wave');
UPDATE links_one_wave SET wave = NULL WHERE key IN (SELECT key FROM links_groups WHERE wave = 1);
SELECT count(*) = (SELECT count(*) FROM pg_temp.links_brute(0.45, true)) AS latest_wave_links
  FROM near_dupe_group_links('links_one_wave', 'links_docs', 'id', 'sig', 0.45, 'wave');

-- A group table with bigint keys (near_dupe_groups(..., NULL::bigint)):
-- keys meet as text, and the links are the brute force's.
CREATE TABLE links_num AS SELECT row_number() OVER (ORDER BY id) AS num, id, sig FROM links_docs;
CREATE TABLE links_num_groups AS SELECT * FROM near_dupe_groups('links_num', 'num', 'sig', 0.45, NULL::bigint);
SELECT (SELECT array_agg(l) FROM near_dupe_group_links('links_num_groups', 'links_num', 'num', 'sig', 0.45) l)
	   = (SELECT array_agg(b ORDER BY b.key, b.linked_group_id)
			FROM (SELECT DISTINCT ON (a.key::text, b.group_id) a.key::text AS key, a.group_id, b.group_id AS linked_group_id,
						 b.key::text AS linked_key, resemblance(da.sig, db.sig) AS resemblance
					FROM links_num_groups a JOIN links_num da ON da.num = a.key,
						 links_num_groups b JOIN links_num db ON db.num = b.key
				   WHERE a.group_id <> b.group_id AND resemblance(da.sig, db.sig) >= 0.45
				   ORDER BY a.key::text, b.group_id, resemblance(da.sig, db.sig) DESC, b.key::text) b) AS bigint_keys;

-- The threshold left out is the setting.
SET minhash.threshold = 0.45;
SELECT count(*) = (SELECT count(*) FROM pg_temp.links_brute(0.45, false)) AS setting
  FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig');
RESET minhash.threshold;

-- Errors.
\set VERBOSITY terse
ALTER TABLE links_one_wave ADD COLUMN wave_text text;
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'ID', 'sig');
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'signature');
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'body');
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45, 'Wave');
SELECT * FROM near_dupe_group_links('links_one_wave', 'links_docs', 'id', 'sig', 0.45, 'wave_text');
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45, 'resemblance');
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', NULL);
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 1.5);
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', NULL, 'sig');
SELECT * FROM near_dupe_group_links('links_wave1', 'links_docs', 'id', 'sig');
\set VERBOSITY default
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45, 'wave_number');
INSERT INTO links_groups SELECT * FROM links_groups WHERE key = 'c1_3';
SELECT * FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45, 'wave');
DELETE FROM links_groups WHERE ctid = (SELECT max(ctid) FROM links_groups WHERE key = 'c1_3');

-- Arguments a user can guess.  Every argument of the report and page
-- functions has a name, and a name means one thing: the same type in each,
-- and a column of type name is called ..._column.
CREATE TEMP VIEW links_report_arguments AS
SELECT p.oid::regprocedure AS function, a.name, a.mode, a.type::regtype AS type
  FROM pg_proc p
  JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
				  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash'),
	   unnest(coalesce(p.proallargtypes, p.proargtypes::oid[]),
			  coalesce(p.proargmodes, array_fill('i'::"char", ARRAY[p.pronargs])),
			  coalesce(p.proargnames, array_fill(''::text, ARRAY[p.pronargs]))) a(type, mode, name)
 WHERE p.pronamespace = 'public'::regnamespace
   AND p.proname IN ('near_dupe_totals', 'near_dupe_histogram', 'near_dupe_group_stats', 'near_dupe_classes',
					 'near_dupe_review', 'near_dupe_group_detail', 'near_dupe_summary', 'near_dupe_review_html',
					 'near_dupe_review_index_html', 'near_dupe_group_links', 'near_dupe_review_pages');
SELECT count(DISTINCT function) >= 13 AS every_report_read FROM links_report_arguments;
SELECT function, name FROM links_report_arguments WHERE mode IN ('i', 'b') AND name = '' ORDER BY 1, 2;
SELECT name, string_agg(DISTINCT type::text, ', ') AS types
  FROM links_report_arguments WHERE mode IN ('i', 'b') GROUP BY name HAVING count(DISTINCT type) > 1 ORDER BY 1;
SELECT DISTINCT function, name FROM links_report_arguments
 WHERE mode IN ('i', 'b') AND type = 'name'::regtype AND name NOT LIKE '%\_column' ORDER BY 1, 2;
-- Every other function a user calls by name has its arguments named, but
-- for 1.0's signature accessors of one argument and its aggregate, listed
-- here.  The functions PostgreSQL calls itself (a type's input and output,
-- an operator's, an opclass's support, a cast) are left out.
SELECT p.oid::regprocedure AS unnamed
  FROM pg_proc p
  JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
				  AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
 WHERE p.pronamespace = 'public'::regnamespace AND p.pronargs > 0
   AND (p.proargnames IS NULL OR '' = ANY (p.proargnames))
   AND NOT EXISTS (SELECT FROM pg_type t WHERE p.oid IN (t.typinput, t.typoutput, t.typreceive, t.typsend, t.typmodin, t.typmodout))
   AND NOT EXISTS (SELECT FROM pg_operator o WHERE p.oid IN (o.oprcode, o.oprrest, o.oprjoin))
   AND NOT EXISTS (SELECT FROM pg_amproc a WHERE a.amproc = p.oid)
   AND NOT EXISTS (SELECT FROM pg_cast c WHERE c.castfunc = p.oid)
 ORDER BY p.oid::regprocedure::text COLLATE "C";

-- Named calls, in another order, draw the pages positional calls draw.
SELECT near_dupe_review_html('links_groups', 'links_docs', 'id', 'body', 1, 5, 'title', 65536)
	   = near_dupe_review_html(max_text_bytes => 65536, label_column => 'title', min_words => 5, group_id => 1,
							   text_column => 'body', key_column => 'id', source => 'links_docs', group_table => 'links_groups')
	   AS review_html_named,
	   near_dupe_review_html('links_groups', 'links_docs', 'id', 'body', 1)
	   = near_dupe_review_html(group_id => 1, text_column => 'body', key_column => 'id', source => 'links_docs',
							   group_table => 'links_groups')
	   AS review_html_6_named,
	   near_dupe_review_index_html('links_groups', 'links_docs', 'id', 'title', 'g%s.html')
	   = near_dupe_review_index_html(page_name => 'g%s.html', label_column => 'title', key_column => 'id',
									 source => 'links_docs', group_table => 'links_groups')
	   AS index_html_named,
	   near_dupe_review_index_html('links_groups', 'links_docs', 'id', 'title')
	   = near_dupe_review_index_html(label_column => 'title', key_column => 'id', source => 'links_docs',
									 group_table => 'links_groups')
	   AS index_html_default_page_name,
	   (SELECT array_agg(l) FROM near_dupe_group_links('links_groups', 'links_docs', 'id', 'sig', 0.45, 'wave') l)
	   = (SELECT array_agg(l) FROM near_dupe_group_links(wave_column => 'wave', threshold => 0.45, sig_column => 'sig',
														 key_column => 'id', source => 'links_docs', group_table => 'links_groups') l)
	   AS group_links_named;
-- The pages are what they are about: the group's members and the labels.
SELECT strpos(near_dupe_review_html('links_groups', 'links_docs', 'id', 'body', 1, 5, 'title', 65536), 'Letter c1_2') > 0 AS member_label,
	   strpos(near_dupe_review_index_html('links_groups', 'links_docs', 'id', 'title', 'g%s.html'), 'href="g1.html"') > 0 AS group_link;
