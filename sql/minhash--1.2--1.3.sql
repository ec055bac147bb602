/* minhash--1.2--1.3.sql: from 1.2 to 1.3 */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.3'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql and each update script in
-- turn, ending with this one, so a fresh install and an upgraded one run
-- the same statements (test/upgrade/fresh_vs_upgraded.sh).  As in 1.2's
-- script: no object of an older version is dropped, a shipped function is
-- changed only by CREATE OR REPLACE with its arguments and result, and
-- anything else is an overload no older call can reach, or a new name.

----- Labels on review pages -----

----- Group pages -----

-- One group's page, as near_dupe_review_html draws it, with what the
-- production's pages add: extra_summary (escaped HTML: navigation, the
-- group's review status, what is new) at the end of the summary box, and
-- the members whose keys are in new_keys marked new.  Not strict: the
-- production's pages pass nulls for what they do not show.
CREATE FUNCTION minhash_internal.review_group_page(group_table regclass, source regclass, key_column name, text_column name,
												   group_id bigint, min_words integer, label_column name,
												   max_text_bytes bigint, extra_summary text, new_keys text[])
	RETURNS text
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	problem record;
	found record;
	member record;
	pair record;
	column_name name;
	group_rows bigint;
	pivots bigint;
	pivot_key text;
	pivot_text text;
	pivot_size bigint;
	pivot_doc text;
	member_text text;
	labelled boolean := label_column <> key_column;
	keys text[] := '{}';
	labels text[] := '{}';
	resemblances double precision[] := '{}';
	sizes bigint[] := '{}';
	identical text[] := '{}';
	identical_count bigint := 0;
	shown_max integer := greatest(1, least(max_text_bytes / 16384, 100000))::integer;
	member_count bigint := 0;
	resemblance_sum double precision := 0;
	resemblance_min double precision;
	level bigint;
	remaining bigint;
	sides bigint;
	side_size bigint;
	i integer;
	doc text;
	sections text := '';
	cuts text := '';
	unshown text := '';
	unshown_count integer := 0;
	cut_total bigint := 0;
	heading text;
	body text;
BEGIN
	IF max_text_bytes < 16384 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('max_text_bytes must be at least 16384, not %s', max_text_bytes),
			HINT = 'Give the bytes of document text the page may show, 2097152 (2 MB) by default.';
	END IF;
	IF min_words < 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'min_words must be at least 1', HINT = 'Shared passages are chunks of at least min_words words; 5 by default.';
	END IF;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, group_id, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	FOREACH column_name IN ARRAY ARRAY[key_column, text_column, label_column] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = minhash_internal.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;

	EXECUTE format('SELECT count(*), count(DISTINCT g.pivot::text) + (count(*) > count(g.pivot))::integer, min(g.pivot::text) FROM %s g WHERE g.group_id = $1',
				   group_table)
		INTO group_rows, pivots, pivot_key USING group_id;
	IF group_rows = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'no_data_found',
			MESSAGE = format('group %s not found in %s', group_id, group_table),
			HINT = 'Give a group_id of the group table: near_dupe_review_index_html lists them.';
	ELSIF pivots > 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'data_exception',
			MESSAGE = format('group %s of %s has %s different pivots', group_id, group_table, pivots),
			HINT = 'A group table holds the rows of near_dupe_groups, one pivot per group: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, pivot_key, group_id);
	IF found.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
	END IF;
	-- a null text is drawn as an empty one
	pivot_text := coalesce(found.document, '');
	pivot_size := octet_length(pivot_text);
	pivot_doc := minhash_internal.review_document_html(pivot_key,
		CASE WHEN labelled THEN (minhash_internal.near_dupe_document(source, key_column, label_column, pivot_key, group_id)).document END);

	-- First pass: which members are the pivot's text, and the others' sizes
	-- (their texts are read again one at a time when drawn, so that the
	-- call never holds more than a pair).
	FOR member IN EXECUTE format($q$
		SELECT m.key, m.resemblance
		  FROM (SELECT g.key::text AS key, g.key AS typed_key, g.resemblance::double precision AS resemblance,
					   g.key::text IS NOT DISTINCT FROM g.pivot::text
					   AND row_number() OVER (PARTITION BY g.key::text IS NOT DISTINCT FROM g.pivot::text
											  ORDER BY g.resemblance DESC) = 1 AS pivot_row
				  FROM %s g WHERE g.group_id = $1) m
		 WHERE NOT m.pivot_row
		 ORDER BY m.resemblance DESC, m.typed_key$q$, group_table)
			USING group_id LOOP
		SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, member.key, group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		member_count := member_count + 1;
		resemblance_sum := resemblance_sum + member.resemblance;
		resemblance_min := least(resemblance_min, member.resemblance);
		doc := minhash_internal.review_document_html(member.key,
			CASE WHEN labelled THEN (minhash_internal.near_dupe_document(source, key_column, label_column, member.key, group_id)).document END);
		IF member.key = ANY (new_keys) THEN
			doc := doc || ' <span class="new">new</span>';
		END IF;
		-- byte for byte: a collation may call texts equal that are not
		IF coalesce(found.document, '') COLLATE "C" = pivot_text COLLATE "C" THEN
			identical_count := identical_count + 1;
			IF identical_count <= 1000 THEN
				identical := identical || doc;
			END IF;
		ELSIF cardinality(keys) < shown_max THEN
			keys := keys || member.key;
			labels := labels || doc;
			resemblances := resemblances || member.resemblance;
			sizes := sizes || octet_length(coalesce(found.document, ''))::bigint;
		ELSE
			unshown_count := unshown_count + 1;
			IF unshown_count <= 1000 THEN
				unshown := unshown || format('<li>%s, resemblance %s</li>', doc, round(member.resemblance::numeric, 3));
			END IF;
		END IF;
	END LOOP;

	-- Each side's share of max_text_bytes: sides under the level keep all
	-- of their text, and what they leave is shared among the others.
	remaining := max_text_bytes;
	sides := 2 * cardinality(keys);
	IF sides = 0 THEN
		level := max_text_bytes;
	ELSIF (SELECT sum(s) FROM unnest(sizes) s) + pivot_size * cardinality(keys) <= max_text_bytes THEN
		level := max_text_bytes;
	ELSE
		FOR side_size IN SELECT s FROM (SELECT unnest(sizes) AS s UNION ALL SELECT pivot_size FROM generate_series(1, cardinality(keys))) u ORDER BY s LOOP
			EXIT WHEN side_size * sides > remaining;
			remaining := remaining - side_size;
			sides := sides - 1;
		END LOOP;
		level := CASE WHEN sides = 0 THEN max_text_bytes ELSE remaining / sides END;
	END IF;

	FOR i IN 1 .. cardinality(keys) LOOP
		SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, keys[i], group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		SELECT * INTO pair FROM minhash_internal.review_pair_html(pivot_text, coalesce(found.document, ''::text), min_words, 'm' || i, level, level, 1600, 100);
		IF pair.pivot_cut > 0 OR pair.member_cut > 0 THEN
			cuts := cuts || format('<li><a href="#m%s">%s</a>: %s bytes of the pivot and %s bytes of the member not shown</li>',
								   i, labels[i], pair.pivot_cut, pair.member_cut);
			cut_total := cut_total + pair.pivot_cut + pair.member_cut;
		END IF;
		sections := sections || format($member$<section class="member" id="m%1$s">
<h2>Member %2$s <span class="figures">resemblance %3$s &middot; %4$s words in shared chunks &middot; S<sub>L</sub> %5$s &middot; %6$s</span></h2>
<div class="changes"><h3>Differences from the pivot</h3>%7$s</div>
<div class="pair">
<div class="side pivot"><h3>Pivot %8$s</h3><div class="text">%9$s</div></div>
<div class="side other"><h3>Member %2$s</h3><div class="text">%10$s</div></div>
</div>
</section>
$member$,
			i, labels[i], round(resemblances[i]::numeric, 3), pair.common_words, round(pair.s_l::numeric, 3),
			CASE pair.differences WHEN 0 THEN 'no difference in the words' WHEN 1 THEN '1 difference'
				 ELSE pair.differences || ' differences' END,
			CASE WHEN pair.differences = 0
				 THEN '<p class="no-differences">The same words as the pivot: only spacing, punctuation or letter case differ.</p>'
				 ELSE pair.differences_html END,
			pivot_doc, pair.pivot_html, pair.member_html);
	END LOOP;

	IF cardinality(keys) = 0 THEN
		-- The pivot alone (a group of one, or every member the pivot's text).
		SELECT * INTO pair FROM minhash_internal.review_pair_html(pivot_text, ''::text, min_words, ''::text, level, level, 1600, 100);
		IF pair.pivot_cut > 0 THEN
			cuts := format('<li>the pivot: %s bytes not shown</li>', pair.pivot_cut);
			cut_total := pair.pivot_cut;
		END IF;
		body := format($alone$<p class="alone">%s</p>
<div class="side pivot"><h3>Pivot %s</h3><div class="text">%s</div></div>
$alone$,
			CASE WHEN member_count = 0 THEN 'The pivot has no other member in this group.'
				 ELSE 'Every member has the pivot''s text.' END,
			pivot_doc, pair.pivot_html);
	ELSE
		body := sections;
	END IF;
	IF identical_count > 0 THEN
		body := format('<p class="identical"><strong>%s %s the pivot&#39;s text exactly</strong> (not shown again): %s%s</p>
',
					   identical_count, CASE WHEN identical_count = 1 THEN 'member has' ELSE 'members have' END,
					   array_to_string(identical, ', '),
					   CASE WHEN identical_count > 1000 THEN format(' and %s more', identical_count - 1000) ELSE '' END) || body;
	END IF;
	IF cuts <> '' OR unshown_count > 0 THEN
		body := format('<section class="cut-note"><h2>Not all of this group is on the page</h2>
<p>The page shows at most %s bytes of document text (max_text_bytes).%s</p>%s%s</section>
',
			max_text_bytes,
			CASE WHEN cut_total > 0 THEN format(' %s bytes were left out: the middles of long shared passages first, then the ends of the longest texts.', cut_total) ELSE '' END,
			CASE WHEN cuts <> '' THEN '<ul class="cuts">' || cuts || '</ul>' ELSE '' END,
			CASE WHEN unshown_count > 0 THEN format('<p>%s more %s not drawn (at most %s per page):</p><ul class="unshown">%s%s</ul>',
					unshown_count, CASE WHEN unshown_count = 1 THEN 'member is' ELSE 'members are' END, shown_max, unshown,
					CASE WHEN unshown_count > 1000 THEN format('<li>and %s more</li>', unshown_count - 1000) ELSE '' END)
				 ELSE '' END) || body;
	END IF;

	SELECT h.a_marked INTO heading
	  FROM @extschema@.highlight(format('Near-duplicate group %s of %s', group_id, group_table), '', 1, 'html') h;
	RETURN minhash_internal.review_page_html(heading, 'near_dupe_review_html'::text, format($summary$<dl>
<dt>Documents</dt><dd class="size">%1$s</dd>
<dt>Pivot</dt><dd class="pivot-key">%2$s</dd>
<dt>Mean resemblance</dt><dd class="mean">%3$s</dd>
<dt>Lowest resemblance</dt><dd class="min">%4$s</dd>
<dt>Text</dt><dd class="source">column %5$s of %6$s, shared chunks of %7$s or more words</dd>
</dl>
<p class="legend">Each member stands beside the pivot. <mark data-chunk="1">Highlighted text</mark> is a <mark data-chunk="2">chunk both share</mark>, the same colour on both sides; plain text is on that side only, and each member's differences link to it. Long shared passages are folded: open them to read them.</p>
%8$s$summary$,
		member_count + 1, pivot_doc,
		CASE WHEN member_count = 0 THEN '&ndash;' ELSE round((resemblance_sum / member_count)::numeric, 3)::text END,
		coalesce(round(resemblance_min::numeric, 3)::text, '&ndash;'),
		(SELECT h.a_marked FROM @extschema@.highlight(text_column::text, '', 1, 'html') h),
		(SELECT h.a_marked FROM @extschema@.highlight(source::text, '', 1, 'html') h),
		min_words, coalesce(extra_summary, '')), body);
END $$;

COMMENT ON FUNCTION minhash_internal.review_group_page(regclass, regclass, name, name, bigint, integer, name, bigint, text, text[]) IS 'near_dupe_review_html''s page with extra_summary (escaped HTML) at the end of the summary and the members whose keys are in new_keys marked new';

CREATE OR REPLACE FUNCTION @extschema@.near_dupe_review_html(group_table regclass, source regclass, key_column name, text_column name,
															group_id bigint, min_words integer, label_column name,
															max_text_bytes bigint DEFAULT 2097152)
	RETURNS text
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $function$
SELECT minhash_internal.review_group_page(group_table, source, key_column, text_column, group_id, min_words, label_column,
										  max_text_bytes, NULL::text, NULL::text[])
$function$;

----- Links from new documents to stored groups -----

----- The production's pages -----

-- The check every report makes first, which the production's pages run
-- over the whole group table and source: each key of the group table in
-- one row, naming one row of the source.
CREATE OR REPLACE FUNCTION minhash_internal.near_dupe_report_problem(group_table regclass, members boolean, group_id bigint,
													 source regclass, key_column name,
													 OUT sqlstate text, OUT message text, OUT hint text)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	shape record;
	repeated record;
	rows_read text;
	shown text;
BEGIN
	SELECT * INTO shape FROM minhash_internal.near_dupe_group_table_problem(group_table, members);
	IF shape.message IS NOT NULL THEN
		sqlstate := shape.sqlstate;
		message := shape.message;
		hint := 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
		RETURN;
	END IF;
	IF NOT EXISTS (SELECT FROM pg_catalog.pg_attribute a
					WHERE a.attrelid = group_table AND a.attname = 'key' AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RETURN;
	END IF;
	rows_read := format('SELECT g.group_id::bigint AS group_id, g.key::text AS key FROM %s g', group_table)
				 || CASE WHEN group_id IS NULL THEN '' ELSE ' WHERE g.group_id = $1' END;

	EXECUTE format('WITH repeated AS MATERIALIZED (SELECT r.key, pg_catalog.count(*) AS rows FROM (%s) r GROUP BY r.key HAVING pg_catalog.count(*) > 1) SELECT * FROM repeated ORDER BY repeated.key LIMIT 1',
				   rows_read)
		INTO repeated USING group_id;
	IF repeated.rows IS NOT NULL THEN
		shown := CASE WHEN repeated.key IS NULL THEN 'NULL'
					  ELSE quote_literal(CASE WHEN length(repeated.key) > 40 THEN left(repeated.key, 40) || '...' ELSE repeated.key END) END;
		sqlstate := '21000';
		message := CASE WHEN group_id IS NULL THEN format('key %s is in %s rows of relation %s', shown, repeated.rows, group_table)
						ELSE format('key %s is in %s rows of group %s of relation %s', shown, repeated.rows, group_id, group_table) END;
		hint := format('A group table holds one row per document: delete the extra rows (SELECT key FROM %s GROUP BY key HAVING count(*) > 1 lists them), or group again.',
					   group_table);
		RETURN;
	END IF;
	IF source IS NULL THEN
		RETURN;
	END IF;

	-- Matched as (is null, text) pairs: a null key meets the null key, and
	-- the join stays a hash join.  The repeated keys are found in full
	-- before the first is taken: under ORDER BY ... LIMIT 1 the planner
	-- expects many and walks the keys in order, a nested loop over the
	-- source, quadratic in its rows.
	EXECUTE format($q$
		WITH repeated AS MATERIALIZED (
			SELECT r.group_id, r.key
			  FROM (%1$s) r
			  JOIN %2$s s ON (s.%3$I IS NULL, coalesce(s.%3$I::text, '')) = (r.key IS NULL, coalesce(r.key, ''))
			 GROUP BY r.group_id, r.key HAVING pg_catalog.count(*) > 1)
		SELECT repeated.group_id, repeated.key FROM repeated ORDER BY repeated.key LIMIT 1$q$, rows_read, source, key_column)
		INTO repeated USING group_id;
	IF repeated.group_id IS NOT NULL THEN
		shown := CASE WHEN repeated.key IS NULL THEN 'NULL'
					  ELSE quote_literal(CASE WHEN length(repeated.key) > 40 THEN left(repeated.key, 40) || '...' ELSE repeated.key END) END;
		sqlstate := '21000';
		message := format('key %s of group %s matches more than one row of relation %s', shown, repeated.group_id, source);
		hint := 'Reports find each document by its key: group by a column whose values are unique and not null, such as the primary key.';
	END IF;
END
$function$;

-- Text as HTML: the five characters that could end an element or an
-- attribute written as entities, as highlight() writes them, in one
-- expression the planner inlines (an index of a million rows escapes its
-- statuses and notes without a call per row).
CREATE FUNCTION minhash_internal.review_escape(raw text)
	RETURNS text
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
SELECT pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(pg_catalog.replace(
	   raw, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'), '''', '&#39;')
$$;

COMMENT ON FUNCTION minhash_internal.review_escape(text) IS 'text as HTML: &, <, >, " and '' written as entities, as highlight(text, '''', 1, ''html'') writes them';

-- The index pages' file names: index.html, then index-2.html, ...
CREATE FUNCTION minhash_internal.review_index_file(page bigint)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	RETURN CASE WHEN page = 1 THEN 'index.html' ELSE format('index-%s.html', page) END;
END $$;

COMMENT ON FUNCTION minhash_internal.review_index_file(bigint) IS 'the file name of index page PAGE of near_dupe_review_pages: index.html, index-2.html, ...';

-- The way between index pages: page n of N, then first, previous, next and
-- last, each a link unless it is this page or there is none.
CREATE FUNCTION minhash_internal.review_index_navigation(page bigint, pages bigint)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	RETURN format(E'<nav class="nav"><span>Page %s of %s:</span> <span>%s &middot; %s &middot; %s &middot; %s</span></nav>\n', page, pages,
		CASE WHEN page > 1 THEN format('<a href="%s">first</a>', minhash_internal.review_index_file(1)) ELSE 'first' END,
		CASE WHEN page > 1 THEN format('<a href="%s">previous</a>', minhash_internal.review_index_file(page - 1)) ELSE 'previous' END,
		CASE WHEN page < pages THEN format('<a href="%s">next</a>', minhash_internal.review_index_file(page + 1)) ELSE 'next' END,
		CASE WHEN page < pages THEN format('<a href="%s">last</a>', minhash_internal.review_index_file(pages)) ELSE 'last' END);
END $$;

COMMENT ON FUNCTION minhash_internal.review_index_navigation(bigint, bigint) IS 'the navigation line of index page PAGE of PAGES of near_dupe_review_pages: links to the first, previous, next and last pages';

-- A production as pages a reviewer can work through: the index of every
-- group (groups of one included, each with its class), split into pages of
-- page_size rows, then one page per listed group drawn by review_group_page
-- with the way back to the index and on to the previous and next group,
-- its review status, what the latest wave brought and its links to other
-- groups.  Everything an index row says comes from one pass over the group
-- table and hash joins with the source (labels, and the class of groups of
-- one, whose text alone tells numbers only), the status table and the
-- links: no look-up per group, so that 1M documents stay a matter of
-- seconds.  A label is read cut (names show 100 characters; the order by
-- label looks at 1000), so that a text column given as labels is never
-- held whole.  The planner has no statistics on keys as text and takes those
-- joins for far larger than they are; a merge join would sort the source,
-- texts and all, so it is turned off for the call.  Every string from the tables is escaped; the only links are
-- relative ones to index*.html and group-N.html.
CREATE FUNCTION @extschema@.near_dupe_review_pages(group_table regclass, source regclass, key_column name, text_column name,
												   label_column name DEFAULT NULL, order_by text DEFAULT 'size',
												   page_size integer DEFAULT 1000, status_table regclass DEFAULT NULL,
												   wave_column name DEFAULT NULL, sig_column name DEFAULT NULL,
												   threshold double precision DEFAULT @extschema@.minhash_threshold(),
												   show text DEFAULT 'all', group_pages boolean DEFAULT true,
												   min_words integer DEFAULT 5, max_text_bytes bigint DEFAULT 2097152)
	RETURNS TABLE(file_name text, html text)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp SET enable_mergejoin = off AS $$
DECLARE
	problem record;
	column_name name;
	wave_type regtype;
	wave_base regtype;
	latest bigint;
	earliest bigint;
	marked boolean := false;
	status_columns text[];
	repeated bigint;
	ordering text;
	order_words text;
	waves text;
	statuses text;
	links text;
	item record;
	heading text;
BEGIN
	IF group_table IS NULL OR source IS NULL OR key_column IS NULL OR text_column IS NULL OR order_by IS NULL
	   OR page_size IS NULL OR show IS NULL OR group_pages IS NULL OR min_words IS NULL OR max_text_bytes IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'only label_column, status_table, wave_column, sig_column and threshold may be null',
			HINT = 'Leave an argument out to take its default.';
	END IF;
	ordering := CASE order_by
		WHEN 'size' THEN 'x.size DESC, x.group_id'
		WHEN 'resemblance' THEN 'x.min_resemblance NULLS LAST, x.group_id'
		WHEN 'label' THEN 'x.label NULLS LAST, x.typed_key NULLS LAST, x.group_id'
		WHEN 'group_id' THEN 'x.group_id' END;
	order_words := CASE order_by
		WHEN 'size' THEN 'by size, largest first'
		WHEN 'resemblance' THEN 'by lowest resemblance, lowest first'
		WHEN 'label' THEN CASE WHEN label_column IS NULL OR label_column = key_column THEN 'by the pivot''s key'
							   ELSE 'by the pivot''s label, then key' END
		WHEN 'group_id' THEN 'by group id' END;
	IF ordering IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unrecognized order_by: %s', left(order_by, 40)),
			HINT = 'Order the index by ''size'' (largest first, the default), ''resemblance'' (lowest first), ''label'' or ''group_id''.';
	END IF;
	IF page_size NOT BETWEEN 10 AND 10000 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('page_size must be between 10 and 10000, not %s', page_size),
			HINT = 'Give the number of groups per index page, 1000 by default: a page a browser opens in a moment.';
	END IF;
	IF show NOT IN ('all', 'to review') THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('unrecognized show: %s', left(show, 40)),
			HINT = 'Show ''all'' groups (the default) or those ''to review'': without a status row, or new or grown in the latest wave.';
	END IF;
	IF max_text_bytes < 16384 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('max_text_bytes must be at least 16384, not %s', max_text_bytes),
			HINT = 'Give the bytes of document text a group page may show, 2097152 (2 MB) by default.';
	END IF;
	IF min_words < 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'min_words must be at least 1', HINT = 'Shared passages are chunks of at least min_words words; 5 by default.';
	END IF;
	FOREACH column_name IN ARRAY ARRAY[key_column, text_column, coalesce(label_column, key_column)] LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = minhash_internal.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, NULL::bigint, source, key_column);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message, HINT = problem.hint;
	END IF;

	-- The waves: marks only when the table holds two or more, a null wave
	-- the earliest of all.
	IF wave_column IS NOT NULL THEN
		SELECT a.atttypid::regtype INTO wave_type FROM pg_attribute a
		 WHERE a.attrelid = group_table AND a.attname = wave_column AND a.attnum > 0 AND NOT a.attisdropped;
		IF wave_type IS NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', wave_column, group_table),
				HINT = minhash_internal.near_dupe_column_hint(group_table, wave_column);
		END IF;
		wave_base := wave_type;
		WHILE (SELECT t.typtype = 'd' FROM pg_type t WHERE t.oid = wave_base) LOOP
			SELECT t.typbasetype INTO wave_base FROM pg_type t WHERE t.oid = wave_base;
		END LOOP;
		IF wave_base NOT IN ('pg_catalog.int2'::regtype, 'pg_catalog.int4'::regtype, 'pg_catalog.int8'::regtype) THEN
			RAISE EXCEPTION USING ERRCODE = 'datatype_mismatch',
				MESSAGE = format('column "%s" of relation %s is of type %s, not an integer type', wave_column, group_table, wave_type),
				HINT = 'The wave column numbers the appends: INSERT INTO groups SELECT *, 2 FROM near_dupe_groups_append(...).';
		END IF;
		EXECUTE format('SELECT max(coalesce(g.%1$I::pg_catalog.int8, %2$s)), min(coalesce(g.%1$I::pg_catalog.int8, %2$s)) FROM %3$s g',
					   wave_column, '(-9223372036854775807 - 1)', group_table)
			INTO latest, earliest;
		marked := latest > earliest;
	END IF;

	-- The status table: group_id and status, the others shown when there;
	-- one row per group.
	IF status_table IS NOT NULL THEN
		SELECT array_agg(a.attname::text) INTO status_columns FROM pg_attribute a
		 WHERE a.attrelid = status_table AND a.attnum > 0 AND NOT a.attisdropped;
		FOREACH column_name IN ARRAY ARRAY['group_id', 'status']::name[] LOOP
			IF NOT column_name = ANY (coalesce(status_columns, '{}')) THEN
				RAISE EXCEPTION USING ERRCODE = 'undefined_column',
					MESSAGE = format('column "%s" of relation %s does not exist', column_name, status_table),
					HINT = 'A status table has a row per coded group: group_id, status, and optionally note, reviewed_by and reviewed_at.';
			END IF;
		END LOOP;
		EXECUTE format('SELECT t.group_id::pg_catalog.int8 FROM %s t GROUP BY 1 HAVING pg_catalog.count(*) > 1 ORDER BY 1 LIMIT 1', status_table)
			INTO repeated;
		IF repeated IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = 'cardinality_violation',
				MESSAGE = format('group %s has more than one row in status table %s', repeated, status_table),
				HINT = format('Keep one row per group: ALTER TABLE %s ADD PRIMARY KEY (group_id) once the extra rows are gone.', status_table);
		END IF;
		statuses := format('SELECT t.group_id::pg_catalog.int8 AS group_id, t.status::text AS status, %s AS note, %s AS reviewed_by, %s AS reviewed_at FROM %s t',
						   CASE WHEN 'note' = ANY (status_columns) THEN 't.note::text' ELSE 'NULL::text' END,
						   CASE WHEN 'reviewed_by' = ANY (status_columns) THEN 't.reviewed_by::text' ELSE 'NULL::text' END,
						   CASE WHEN 'reviewed_at' = ANY (status_columns) THEN 't.reviewed_at::text' ELSE 'NULL::text' END,
						   status_table);
	ELSE
		statuses := 'SELECT NULL::pg_catalog.int8 AS group_id, NULL::text AS status, NULL::text AS note, NULL::text AS reviewed_by, NULL::text AS reviewed_at WHERE false';
	END IF;
	links := CASE WHEN sig_column IS NULL
				  THEN 'SELECT NULL::text AS key, NULL::pg_catalog.int8 AS group_id, NULL::pg_catalog.int8 AS linked_group_id, NULL::text AS linked_key, NULL::double precision AS resemblance WHERE false'
				  ELSE format('SELECT l.key, l.group_id, l.linked_group_id, l.linked_key, l.resemblance FROM @extschema@.near_dupe_group_links(%L::pg_catalog.regclass, %L::pg_catalog.regclass, %L::pg_catalog.name, %L::pg_catalog.name, %s::double precision, %L::pg_catalog.name) l',
							  group_table, source, key_column, sig_column, coalesce(threshold::text, 'NULL'), wave_column) END;
	SELECT h.a_marked INTO heading FROM @extschema@.highlight(format('Near-duplicate groups of %s', group_table), '', 1, 'html') h;

	-- $1 page size, $2 group pages or not, $3 the latest wave (marks on) or
	-- null, $4 'to review' or not, $5 the heading, $6 what the index shows,
	-- $7 whether labels are shown.
	FOR item IN EXECUTE format($q$
		WITH grouped AS (
			SELECT g.group_id::pg_catalog.int8 AS group_id, pg_catalog.count(*) AS size,
				   min(g.pivot::text) AS pivot,
				   CASE WHEN pg_catalog.count(*) FILTER (WHERE g.key::text IS NOT DISTINCT FROM g.pivot::text) = 0
						THEN min(g.resemblance::double precision)
						ELSE min(g.resemblance::double precision) FILTER (WHERE g.key::text IS DISTINCT FROM g.pivot::text) END AS min_resemblance,
				   min(g.resemblance::double precision) AS own_resemblance,
				   pg_catalog.count(*) FILTER (WHERE %4$s = $3) AS latest_rows,
				   CASE WHEN $2 THEN pg_catalog.array_agg(g.key::text) FILTER (WHERE %4$s = $3) END AS latest_keys
			  FROM %1$s g GROUP BY 1
		), statuses AS (%5$s
		), links AS MATERIALIZED (%6$s
		), linked AS (
			SELECT l.group_id, pg_catalog.count(DISTINCT l.key) AS linked_documents,
				   pg_catalog.count(DISTINCT l.linked_group_id) AS linked_groups,
				   pg_catalog.array_agg(DISTINCT l.linked_group_id) AS linked_ids,
				   pg_catalog.string_agg(pg_catalog.format('<li>%%s resembles member %%s of group <a href="group-%%s.html">%%s</a> (%%s) at %%s</li>',
						minhash_internal.review_document_html(l.key, NULL::text), minhash_internal.review_document_html(l.linked_key, NULL::text),
						l.linked_group_id, l.linked_group_id,
						coalesce(minhash_internal.review_escape(pg_catalog.left(ls.status, 200)), 'not coded'),
						pg_catalog.round(l.resemblance::numeric, 2)), E'\n' ORDER BY l.key, l.linked_group_id) AS link_lines
			  FROM links l LEFT JOIN statuses ls ON ls.group_id = l.linked_group_id
			 GROUP BY l.group_id
		), described AS (
			SELECT gr.group_id, gr.size, gr.pivot, gr.min_resemblance, gr.latest_rows, gr.latest_keys,
				   s.%3$I AS typed_key, CASE WHEN $7 THEN pg_catalog.left(s.%7$I::text, 1000) END AS label,
				   CASE WHEN gr.size > 1 THEN 'near-duplicates'
						WHEN gr.own_resemblance IS NULL THEN 'no signature'
						WHEN gr.own_resemblance = 0 THEN 'no words'
						ELSE CASE @extschema@.minhash_document_class(s.%2$I::text)
								 WHEN 'no words' THEN 'no words' WHEN 'numbers only' THEN 'numbers only'
								 ELSE 'singleton' END END AS class,
				   $3 IS NOT NULL AND gr.latest_rows = gr.size AS is_new,
				   $3 IS NOT NULL AND gr.latest_rows > 0 AND gr.latest_rows < gr.size AS grew,
				   st.group_id IS NOT NULL AS coded, st.status, st.note, st.reviewed_by, st.reviewed_at,
				   ln.linked_documents, ln.linked_groups, ln.linked_ids, ln.link_lines
			  FROM grouped gr
			  LEFT JOIN %8$s s ON (s.%3$I IS NULL, coalesce(s.%3$I::text, '')) = (gr.pivot IS NULL, coalesce(gr.pivot, ''))
			  LEFT JOIN statuses st ON st.group_id = gr.group_id
			  LEFT JOIN linked ln ON ln.group_id = gr.group_id
		), totals AS (
			SELECT pg_catalog.sum(d.size) AS documents, pg_catalog.count(*) AS groups,
				   pg_catalog.sum(d.size) FILTER (WHERE d.class = 'near-duplicates') AS near_documents,
				   pg_catalog.count(*) FILTER (WHERE d.class = 'near-duplicates') AS near_groups,
				   pg_catalog.count(*) FILTER (WHERE d.class = 'singleton') AS singletons,
				   pg_catalog.count(*) FILTER (WHERE d.class = 'no words') AS no_words,
				   pg_catalog.count(*) FILTER (WHERE d.class = 'numbers only') AS numbers_only,
				   pg_catalog.count(*) FILTER (WHERE d.class = 'no signature') AS no_signature,
				   pg_catalog.count(*) FILTER (WHERE d.coded) AS coded,
				   pg_catalog.count(*) FILTER (WHERE d.is_new) AS new_groups,
				   pg_catalog.count(*) FILTER (WHERE d.grew) AS grown_groups,
				   pg_catalog.sum(d.latest_rows) FILTER (WHERE d.grew) AS new_members,
				   pg_catalog.sum(d.linked_documents) AS linked_documents,
				   pg_catalog.count(*) FILTER (WHERE d.linked_groups > 0) AS linking_groups,
				   pg_catalog.count(*) FILTER (WHERE NOT $4 OR NOT d.coded OR d.is_new OR d.grew) AS shown
			  FROM described d
		), status_counts AS (
			SELECT pg_catalog.string_agg(pg_catalog.format('%%s: %%s', c.shown, c.groups), ', ' ORDER BY c.groups DESC, c.shown) AS line
			  FROM (SELECT minhash_internal.review_escape(pg_catalog.left(d.status, 200)) AS shown,
						   pg_catalog.count(*) AS groups
					  FROM described d WHERE d.coded GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 20) c
		), placed AS (
			SELECT x.*, (x.ord - 1) / $1 + 1 AS page,
				   pg_catalog.lag(x.group_id) OVER (ORDER BY x.ord) AS previous_group,
				   pg_catalog.lead(x.group_id) OVER (ORDER BY x.ord) AS next_group
			  FROM (SELECT x.*, pg_catalog.row_number() OVER (ORDER BY %9$s) AS ord
					  FROM described x WHERE NOT $4 OR NOT x.coded OR x.is_new OR x.grew) x
		), index_rows AS (
			SELECT p.page, pg_catalog.string_agg(pg_catalog.format(
				'<tr><td class="group"><a href="group-%%1$s.html">%%1$s</a></td><td class="coding">%%2$s</td><td class="change">%%3$s</td><td class="size">%%4$s</td><td class="pivot">%%5$s</td><td class="min">%%6$s</td><td class="class">%%7$s</td><td class="links">%%8$s</td></tr>',
				p.group_id,
				CASE WHEN p.coded THEN '<span class="status">' || coalesce(minhash_internal.review_escape(pg_catalog.left(p.status, 200)), '') || '</span>'
					 || coalesce(' <span class="note">' || minhash_internal.review_escape(pg_catalog.left(p.note, 200)) || '</span>', '')
					 ELSE '' END,
				CASE WHEN p.is_new THEN '<span class="mark">new</span>' WHEN p.grew THEN '<span class="mark">grew +' || p.latest_rows || '</span>' ELSE '' END,
				p.size, minhash_internal.review_document_html(p.pivot, p.label),
				coalesce(pg_catalog.round(p.min_resemblance::numeric, 3)::text, '&ndash;'),
				p.class,
				coalesce((SELECT pg_catalog.string_agg(pg_catalog.format('<a href="group-%%1$s.html">near group %%1$s</a>', i), ', ' ORDER BY i)
							FROM (SELECT i FROM pg_catalog.unnest(p.linked_ids) i ORDER BY i LIMIT 10) u)
						 || CASE WHEN p.linked_groups > 10 THEN pg_catalog.format(' and %%s more', p.linked_groups - 10) ELSE '' END, '')),
				E'\n' ORDER BY p.ord) AS lines
			  FROM placed p GROUP BY p.page
		), pages AS (
			SELECT n.page, greatest(1, (t.shown + $1 - 1) / $1) AS pages, r.lines, t, sc.line AS status_line
			  FROM totals t CROSS JOIN status_counts sc
			 CROSS JOIN pg_catalog.generate_series(1::pg_catalog.int8, greatest(1, (t.shown + $1 - 1) / $1)) n(page)
			  LEFT JOIN index_rows r ON r.page = n.page
		)
		SELECT 0 AS kind, p.page AS n, minhash_internal.review_index_file(p.page) AS name,
			   minhash_internal.review_page_html($5 || pg_catalog.format(': page %%s of %%s', p.page, p.pages), 'near_dupe_review_pages'::text,
				   pg_catalog.format($summary$<dl>
<dt>Documents</dt><dd class="documents">%%1$s</dd>
<dt>Groups</dt><dd class="groups">%%2$s</dd>
<dt>Near-duplicates</dt><dd class="near-duplicates">%%3$s documents in %%4$s groups</dd>
<dt>Singletons</dt><dd class="singleton">%%5$s</dd>
<dt>No words</dt><dd class="no-words">%%6$s</dd>
<dt>Numbers only</dt><dd class="numbers-only">%%7$s</dd>
<dt>No signature</dt><dd class="no-signature">%%8$s</dd>
%%9$s%%10$s%%11$s<dt>Shown</dt><dd class="shown">%%12$s</dd>
</dl>
%%13$s$summary$,
					   coalesce((p.t).documents, 0), (p.t).groups, coalesce((p.t).near_documents, 0), (p.t).near_groups,
					   (p.t).singletons, (p.t).no_words, (p.t).numbers_only, (p.t).no_signature,
					   CASE WHEN %10$L THEN pg_catalog.format('<dt>Status</dt><dd class="statuses">%%s%%s%%s groups not coded</dd>
', p.status_line, CASE WHEN p.status_line IS NULL THEN '' ELSE ', ' END, (p.t).groups - (p.t).coded) ELSE '' END,
					   CASE WHEN $3 IS NOT NULL THEN pg_catalog.format('<dt>Latest wave</dt><dd class="wave">wave %%s: %%s new %%s, %%s %%s grew (%%s new %%s)</dd>
', $3, (p.t).new_groups, CASE WHEN (p.t).new_groups = 1 THEN 'group' ELSE 'groups' END,
						   (p.t).grown_groups, CASE WHEN (p.t).grown_groups = 1 THEN 'group' ELSE 'groups' END,
						   coalesce((p.t).new_members, 0), CASE WHEN (p.t).new_members = 1 THEN 'member' ELSE 'members' END) ELSE '' END,
					   CASE WHEN %11$L THEN pg_catalog.format('<dt>Links</dt><dd class="linked">%%s %%s near another group, in %%s %%s</dd>
', coalesce((p.t).linked_documents, 0), CASE WHEN (p.t).linked_documents = 1 THEN 'document' ELSE 'documents' END,
						   (p.t).linking_groups, CASE WHEN (p.t).linking_groups = 1 THEN 'group' ELSE 'groups' END) ELSE '' END,
					   pg_catalog.format('%%s %%s of %%s, %%s', CASE WHEN $4 THEN 'to review:' ELSE 'all' END, (p.t).shown, (p.t).groups, $6),
					   minhash_internal.review_index_navigation(p.page, p.pages)),
				   pg_catalog.format($index$<section class="index">
<table>
<thead><tr><th>Group</th><th>Status</th><th>Mark</th><th>Documents</th><th>Pivot</th><th>Lowest resemblance</th><th>Class</th><th>Links</th></tr></thead>
<tbody>
%%s
</tbody>
</table>
</section>
%%s$index$, coalesce(p.lines, ''), minhash_internal.review_index_navigation(p.page, p.pages))) AS body,
			   NULL::pg_catalog.int8 AS group_id, NULL::text AS extra_summary, NULL::text[] AS new_keys
		  FROM pages p
		UNION ALL
		SELECT 1, p.ord, pg_catalog.format('group-%%s.html', p.group_id), NULL::text, p.group_id,
			   pg_catalog.format('<nav class="nav"><a href="%%s">index page %%s</a> <span>%%s</span> <span>%%s</span></nav>
%%s%%s%%s',
				   minhash_internal.review_index_file(p.page), p.page,
				   CASE WHEN p.previous_group IS NULL THEN 'the first group' ELSE pg_catalog.format('previous: <a href="group-%%1$s.html">group %%1$s</a>', p.previous_group) END,
				   CASE WHEN p.next_group IS NULL THEN 'the last group' ELSE pg_catalog.format('next: <a href="group-%%1$s.html">group %%1$s</a>', p.next_group) END,
				   CASE WHEN NOT %10$L THEN ''
						WHEN NOT p.coded THEN E'<p class="status">Not coded yet.</p>\n'
						ELSE pg_catalog.format(E'<p class="status">Status: <strong>%%s</strong>%%s%%s%%s</p>\n',
							 minhash_internal.review_escape(pg_catalog.left(p.status, 200)),
							 coalesce(' &mdash; ' || minhash_internal.review_escape(pg_catalog.left(p.note, 200)), ''),
							 coalesce(' &middot; by ' || minhash_internal.review_escape(pg_catalog.left(p.reviewed_by, 200)), ''),
							 coalesce(' &middot; at ' || minhash_internal.review_escape(pg_catalog.left(p.reviewed_at, 200)), '')) END,
				   CASE WHEN p.is_new THEN pg_catalog.format(E'<p class="mark">New in wave %%s: every document of this group arrived in the latest wave.</p>\n', $3)
						WHEN p.grew THEN pg_catalog.format(E'<p class="mark">Grew in wave %%s: %%s new %%s, marked new below.</p>\n', $3, p.latest_rows,
														   CASE WHEN p.latest_rows = 1 THEN 'member' ELSE 'members' END)
						ELSE '' END,
				   CASE WHEN p.link_lines IS NULL THEN ''
						ELSE pg_catalog.format(E'<div class="links"><h2>Near other groups</h2><ul>\n%%s\n</ul></div>\n', p.link_lines) END),
			   CASE WHEN p.grew THEN p.latest_keys END
		  FROM placed p WHERE $2
		 ORDER BY 1, 2$q$,
		group_table, text_column, key_column,
		CASE WHEN wave_column IS NULL THEN 'NULL::pg_catalog.int8'
			 ELSE format('coalesce(g.%I::pg_catalog.int8, (-9223372036854775807 - 1))', wave_column) END,
		statuses, links, coalesce(label_column, key_column), source, ordering,
		status_table IS NOT NULL, sig_column IS NOT NULL)
		USING page_size, group_pages, CASE WHEN marked THEN latest END, show = 'to review', heading, order_words,
			  label_column IS NOT NULL AND label_column <> key_column LOOP
		file_name := item.name;
		IF item.kind = 0 THEN
			html := item.body;
		ELSE
			html := minhash_internal.review_group_page(group_table, source, key_column, text_column, item.group_id, min_words,
													   coalesce(label_column, key_column), max_text_bytes, item.extra_summary, item.new_keys);
		END IF;
		RETURN NEXT;
	END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_pages(regclass, regclass, name, name, name, text, integer, regclass, name, name, double precision, text, boolean, integer, bigint) IS 'a production as HTML pages for review, as (file_name, html) rows: index.html, index-2.html, ... listing every group (groups of one included, with their class: near-duplicates, singleton, no words, numbers only, no signature), page_size per page, ordered by order_by (''size'', ''resemblance'', ''label'', ''group_id''), with each group''s status (status_table), its mark from the latest wave (wave_column: new, grew) and its links to other groups (sig_column: near_dupe_group_links); then (group_pages) group-N.html for each listed group with the way back to the index, the previous and next group, its status, mark, new members and links; show ''to review'' lists only groups without a status or new or grown in the latest wave';
