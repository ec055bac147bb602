/* minhash--1.2--1.3.sql: from 1.2 to 1.3 */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.3'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql and each update script in
-- turn, ending with this one, so a fresh install and an upgraded one run
-- the same statements (test/upgrade/fresh_vs_upgraded.sh).  As in 1.2's
-- script: no object of an older version is dropped, a shipped function is
-- changed only by CREATE OR REPLACE with its arguments and result, and
-- anything else is an overload no older call can reach, or a new name.

----- Labels on review pages -----

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

-- How a page names a document: its label, when there is one, then its key,
-- both escaped, each cut to its first 100 characters and an ellipsis, so
-- that a text column given as the label column names documents without
-- printing them (cut before escaping: a whole document is never escaped).
CREATE OR REPLACE FUNCTION minhash_internal.review_document_html(key text, label text)
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
BEGIN
	RETURN CASE WHEN label IS NULL THEN ''
				ELSE '<span class="label">' || minhash_internal.review_escape(pg_catalog."left"(label, 100))
					 || CASE WHEN pg_catalog.length(label) > 100 THEN '&hellip;' ELSE '' END || '</span> ' END
		|| '<span class="key">' || coalesce(minhash_internal.review_escape(pg_catalog."left"(key, 100))
											|| CASE WHEN pg_catalog.length(key) > 100 THEN '&hellip;' ELSE '' END, 'NULL') || '</span>';
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_document_html(text, text) IS 'a document''s name on a review page, HTML-escaped: <span class="label"> (if a label is given) and <span class="key">, each cut to its first 100 characters and an ellipsis';

-- The review pages' style sheet: 1.2's, then the badges (a new member, a
-- document's class), the pivot's own block, and the blocks the
-- production's pages add to a summary (.nav, .status, .mark, .links).
-- Every colour added keeps the text's contrast at 7:1 or more (WCAG AAA).
CREATE OR REPLACE FUNCTION minhash_internal.review_style()
	RETURNS text
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
BEGIN
	RETURN $css$body { margin: 0 auto; max-width: 1600px; padding: 20px 24px 40px; background: #f5f6f8; color: #1f2328;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 10px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 12px; margin: 0 0 6px; color: #57606a; text-transform: uppercase; letter-spacing: .04em; }
.summary, .cut-note, .identical, .changes, .index { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px 18px; margin: 0 0 20px; }
.cut-note { border-left: 6px solid #bf8700; }
.identical { border-left: 6px solid #1a7f37; }
.summary dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 8px; }
.summary dt { color: #57606a; }
.summary dd { margin: 0; font-weight: 600; }
.label + .key { color: #57606a; font-weight: normal; }
.label + .key::before { content: "key "; }
.legend { margin: 0; color: #57606a; }
.member { margin-bottom: 22px; }
.figures { font-weight: normal; color: #57606a; font-size: 14px; margin-left: 8px; }
.changes { padding: 8px 14px; margin-bottom: 10px; }
.changes h3 { text-transform: none; }
.differences { margin: 0; padding-left: 24px; font-size: 13px; }
.differences .words, .unshown { color: #57606a; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; align-items: start; }
.side { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 12px; min-width: 0; }
.side.pivot { border-top: 3px solid #8c959f; }
.side.other { border-top: 3px solid #0969da; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
.only { text-decoration: underline dotted #8c959f; }
.only:target { outline: 3px solid #cf222e; }
.fold { display: block; margin: 2px 0; }
.fold > summary { cursor: pointer; color: #57606a; font: 12px system-ui, sans-serif; background: #f0f2f4; }
.elided, .cut { color: #9a6700; font: italic 12px system-ui, sans-serif; }
mark { color: inherit; border-radius: 2px; }
mark[data-chunk$="1"] { background: #ffd1a3; }
mark[data-chunk$="2"] { background: #a3ffbf; }
mark[data-chunk$="3"] { background: #aca3ff; }
mark[data-chunk$="4"] { background: #ffa3ac; }
mark[data-chunk$="5"] { background: #bfffa3; }
mark[data-chunk$="6"] { background: #a3d1ff; }
mark[data-chunk$="7"] { background: #ffa3e3; }
mark[data-chunk$="8"] { background: #f6ffa3; }
mark[data-chunk$="9"] { background: #a3fff6; }
mark[data-chunk$="0"] { background: #e3a3ff; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 4px 10px; border-bottom: 1px solid #d0d7de; }
td.size, td.min { text-align: right; font-variant-numeric: tabular-nums; }
td.group, td.change, td.size, td.min, td.class, td.pivot .key, td .status { white-space: nowrap; }
.new, .doc-class, .mark, .status { display: inline-block; padding: 0 7px; border-radius: 10px; font: 600 12px/1.6 system-ui, sans-serif;
       color: #1f2328; vertical-align: 1px; }
.new, .mark { background: #ffd8a8; border: 1px solid #bc4c00; }
.doc-class { background: #e4e8ee; border: 1px solid #8c959f; }
.status { background: #dbeafe; border: 1px solid #0969da; }
.pivot-block { margin-bottom: 22px; }
.pivot-block > .side { border-top: 3px solid #8c959f; }
.copies { margin: 0 0 10px; padding: 8px 14px; background: #fff; border: 1px solid #d0d7de; border-left: 6px solid #0969da; border-radius: 8px; }
.empty-note { display: block; color: #424a53; font: italic 13px system-ui, sans-serif; }
.side h3 a { color: #0550ae; text-transform: none; letter-spacing: 0; font-weight: normal; }
.summary .nav, .summary .links { margin: 8px 0 0; padding: 8px 0 0; border-top: 1px solid #d0d7de; }
.summary .nav { display: flex; flex-wrap: wrap; gap: 6px 18px; }
.summary .links { padding-left: 20px; }
.summary a { color: #0550ae; }
$css$;
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_style() IS 'the style sheet of the review pages: chunk colours by the last digit of the chunk number, neighbours far apart in hue; badges (new, a document''s class), the pivot''s block, a group''s copies, and the summary''s .nav, .status, .mark and .links';

----- Group pages -----

-- The columns a page reads from the source, each a column of it (42703
-- with the hint of the nearest names otherwise).
CREATE FUNCTION minhash_internal.review_check_columns(source regclass, columns name[])
	RETURNS void
	LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
DECLARE
	column_name name;
BEGIN
	FOREACH column_name IN ARRAY columns LOOP
		IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = column_name AND a.attnum > 0 AND NOT a.attisdropped) THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', column_name, source),
				HINT = minhash_internal.near_dupe_column_hint(source, column_name);
		END IF;
	END LOOP;
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_check_columns(regclass, name[]) IS 'raises 42703, with a hint of the nearest names, unless every name in columns is a column of source (the columns a review page reads)';

-- The checks of a group page's arguments, made by near_dupe_review_pages
-- too before it reads anything, so that a bad value fails at once rather
-- than at the first group page.
CREATE FUNCTION minhash_internal.review_check_page_arguments(min_words integer, max_text_bytes bigint)
	RETURNS void
	LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp AS $function$
BEGIN
	IF max_text_bytes < 16384 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = format('max_text_bytes must be at least 16384, not %s', max_text_bytes),
			HINT = 'Give the bytes of document text a group page may show, 2097152 (2 MB) by default.';
	END IF;
	IF min_words < 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'invalid_parameter_value',
			MESSAGE = 'min_words must be at least 1', HINT = 'Shared passages are chunks of at least min_words words; 5 by default.';
	END IF;
END
$function$;

COMMENT ON FUNCTION minhash_internal.review_check_page_arguments(integer, bigint) IS 'raises 22023 unless min_words >= 1 and max_text_bytes >= 16384 (the arguments of a group page)';

-- One group's page, as near_dupe_review_html draws it, with what the
-- production's pages add: extra_summary (escaped HTML: navigation, the
-- group's review status, what is new) at the end of the summary box, and
-- the members whose keys are in new_keys marked new.  Not strict: the
-- production's pages pass nulls for what they do not show.
--
-- Nothing is drawn twice.  The pivot's text is drawn once, in full, at the
-- top.  Members with the pivot's exact text are one line that names them;
-- members whose texts are the same as each other's, byte for byte, are one
-- section that names them all (sha-256 of the bytes and the length: no two
-- texts are known to share both).  In each section the member's text is
-- drawn whole (long shared passages folded), and the pivot beside it with
-- every shared passage folded to its first and last words: a reviewer
-- reads the pivot once at the top, then, beside each member, sees at once
-- what only the pivot has, in place and linked from the list of
-- differences, and opens a fold to compare a passage (same colours on both
-- sides).  That reads better than a closed pivot column, which hides the
-- removed text the list links to.
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
	folded record;
	group_rows bigint;
	pivots bigint;
	pivot_key text;
	pivot_text text;
	pivot_size bigint;
	pivot_doc text;
	pivot_class text;
	member_text text;
	member_class text;
	digest text;
	labelled boolean := label_column <> key_column;
	-- one entry per distinct text other than the pivot's, in the order of
	-- its first (most resembling) member
	digests text[] := '{}';
	keys text[] := '{}';
	labels text[] := '{}';
	names text[] := '{}';
	copies bigint[] := '{}';
	classes text[] := '{}';
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
	j integer;
	doc text;
	pivot_html text;
	sections text := '';
	cuts text := '';
	unshown text := '';
	unshown_count integer := 0;
	cut_total bigint := 0;
	heading text;
	body text;
	empty_note constant text := '<span class="empty-note">no words: this document is empty or has no letters or digits</span>';
BEGIN
	PERFORM minhash_internal.review_check_page_arguments(min_words, max_text_bytes);
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, group_id, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = problem.hint;
	END IF;
	PERFORM minhash_internal.review_check_columns(source, ARRAY[key_column, text_column, label_column]);

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
	pivot_class := @extschema@.minhash_document_class(pivot_text);
	pivot_doc := minhash_internal.review_document_html(pivot_key,
		CASE WHEN labelled THEN (minhash_internal.near_dupe_document(source, key_column, label_column, pivot_key, group_id)).document END)
		|| CASE WHEN pivot_class <> 'words' THEN format(' <span class="doc-class">%s</span>', pivot_class) ELSE '' END;

	-- First pass: which members are the pivot's text, which share a text,
	-- and the distinct texts' sizes (texts are read again one at a time
	-- when drawn, so that the call never holds more than a pair).
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
		member_text := coalesce(found.document, '');
		member_class := @extschema@.minhash_document_class(member_text);
		member_count := member_count + 1;
		resemblance_sum := resemblance_sum + member.resemblance;
		resemblance_min := least(resemblance_min, member.resemblance);
		doc := minhash_internal.review_document_html(member.key,
			CASE WHEN labelled THEN (minhash_internal.near_dupe_document(source, key_column, label_column, member.key, group_id)).document END)
			|| CASE WHEN member_class <> 'words' THEN format(' <span class="doc-class">%s</span>', member_class) ELSE '' END;
		IF member.key = ANY (new_keys) THEN
			doc := doc || ' <span class="new">new</span>';
		END IF;
		-- byte for byte: a collation may call texts equal that are not
		IF member_text COLLATE "C" = pivot_text COLLATE "C" THEN
			identical_count := identical_count + 1;
			IF identical_count <= 1000 THEN
				identical := identical || doc;
			END IF;
			CONTINUE;
		END IF;
		digest := encode(sha256(convert_to(member_text, getdatabaseencoding())), 'hex') || ':' || octet_length(member_text);
		j := array_position(digests, digest);
		IF j IS NOT NULL THEN
			copies[j] := copies[j] + 1;
			IF copies[j] <= 1000 THEN
				names[j] := names[j] || ', ' || doc;
			END IF;
		ELSIF cardinality(keys) < shown_max THEN
			digests := digests || digest;
			keys := keys || member.key;
			labels := labels || doc;
			names := names || doc;
			copies := copies || 1::bigint;
			classes := classes || member_class;
			resemblances := resemblances || member.resemblance;
			sizes := sizes || octet_length(member_text)::bigint;
		ELSE
			unshown_count := unshown_count + 1;
			IF unshown_count <= 1000 THEN
				unshown := unshown || format('<li>%s, resemblance %s</li>', doc, round(member.resemblance::numeric, 3));
			END IF;
		END IF;
	END LOOP;

	-- Each side's share of max_text_bytes: the pivot's block, then a member
	-- and the pivot beside it per distinct text (the pivot's side holds its
	-- text, folded).  Sides under the level keep all of their text, and
	-- what they leave is shared among the others.
	remaining := max_text_bytes;
	sides := 2 * cardinality(keys) + 1;
	IF (SELECT coalesce(sum(s), 0) FROM unnest(sizes) s) + pivot_size * (cardinality(keys) + 1) <= max_text_bytes THEN
		level := max_text_bytes;
	ELSE
		FOR side_size IN SELECT s FROM (SELECT unnest(sizes) AS s UNION ALL SELECT pivot_size FROM generate_series(0, cardinality(keys))) u ORDER BY s LOOP
			EXIT WHEN side_size * sides > remaining;
			remaining := remaining - side_size;
			sides := sides - 1;
		END LOOP;
		level := CASE WHEN sides = 0 THEN max_text_bytes ELSE remaining / sides END;
	END IF;

	-- The pivot's block: its text once, in full.
	SELECT * INTO pair FROM minhash_internal.review_pair_html(pivot_text, ''::text, min_words, ''::text, level, level, 1600, 100);
	IF pair.pivot_cut > 0 THEN
		cuts := format('<li><a href="#pivot">the pivot</a>: %s bytes not shown</li>', pair.pivot_cut);
		cut_total := pair.pivot_cut;
	END IF;
	body := format($pivot$<section class="pivot-block" id="pivot">
<h2>Pivot %s <span class="figures">%s bytes</span></h2>
<div class="side pivot"><div class="text">%s</div></div>
</section>
$pivot$,
		pivot_doc, pivot_size,
		CASE WHEN pivot_class = 'no words' THEN empty_note || CASE WHEN pair.pivot_html <> '' THEN E'\n' ELSE '' END ELSE '' END || pair.pivot_html);

	FOR i IN 1 .. cardinality(keys) LOOP
		SELECT * INTO found FROM minhash_internal.near_dupe_document(source, key_column, text_column, keys[i], group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		member_text := coalesce(found.document, '');
		SELECT * INTO pair FROM minhash_internal.review_pair_html(pivot_text, member_text, min_words, 'm' || i, level, level, 1600, 100);
		-- The pivot's side again with every shared passage folded: the same
		-- chunks, numbers and anchors (the match does not depend on folds),
		-- and, as nothing of the pivot was cut, the same runs shown.  A
		-- pivot over its budget already leaves its shared middles out.
		pivot_html := pair.pivot_html;
		IF pair.common_words > 0 AND pair.pivot_cut = 0 THEN
			SELECT * INTO folded FROM minhash_internal.review_pair_html(pivot_text, member_text, min_words, 'm' || i, level, level, 16, 100);
			pivot_html := folded.pivot_html;
		END IF;
		IF pair.pivot_cut > 0 OR pair.member_cut > 0 THEN
			cuts := cuts || format('<li><a href="#m%s">%s</a>: %s bytes of the pivot and %s bytes of the member not shown</li>',
								   i, labels[i], pair.pivot_cut, pair.member_cut);
			cut_total := cut_total + pair.pivot_cut + pair.member_cut;
		END IF;
		sections := sections || format($member$<section class="member" id="m%1$s">
<h2>Member %2$s <span class="figures">resemblance %3$s &middot; %4$s words in shared chunks &middot; S<sub>L</sub> %5$s &middot; %6$s</span></h2>
%11$s<div class="changes"><h3>Differences from the pivot</h3>%7$s</div>
<div class="pair">
<div class="side pivot"><h3>Pivot %8$s <a href="#pivot">full text above</a></h3><div class="text">%9$s</div></div>
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
			pivot_doc, pivot_html,
			CASE WHEN classes[i] = 'no words' THEN empty_note || CASE WHEN pair.member_html <> '' THEN E'\n' ELSE '' END ELSE '' END || pair.member_html,
			CASE WHEN copies[i] > 1
				 THEN format(E'<p class="copies"><strong>%s members have this text</strong>, byte for byte (drawn once): %s%s</p>\n',
							 copies[i], names[i], CASE WHEN copies[i] > 1000 THEN format(' and %s more', copies[i] - 1000) ELSE '' END)
				 ELSE '' END);
	END LOOP;

	IF identical_count > 0 THEN
		body := body || format('<p class="identical"><strong>%s %s the pivot&#39;s text exactly</strong> (not shown again): %s%s</p>
',
					   identical_count, CASE WHEN identical_count = 1 THEN 'member has' ELSE 'members have' END,
					   array_to_string(identical, ', '),
					   CASE WHEN identical_count > 1000 THEN format(' and %s more', identical_count - 1000) ELSE '' END);
	END IF;
	IF cardinality(keys) = 0 THEN
		body := body || format(E'<p class="alone">%s</p>\n',
			CASE WHEN member_count = 0 THEN 'The pivot has no other member in this group.'
				 ELSE 'Every member has the pivot''s text.' END);
	ELSE
		body := body || sections;
	END IF;
	IF cuts <> '' OR unshown_count > 0 THEN
		body := format('<section class="cut-note"><h2>Not all of this group is on the page</h2>
<p>The page shows at most %s bytes of document text (max_text_bytes).%s</p>%s%s</section>
',
			max_text_bytes,
			CASE WHEN cut_total > 0 THEN format(' %s bytes were left out: the middles of long shared passages first, then the ends of the longest texts.', cut_total) ELSE '' END,
			CASE WHEN cuts <> '' THEN '<ul class="cuts">' || cuts || '</ul>' ELSE '' END,
			CASE WHEN unshown_count > 0 THEN format('<p>%s more %s not drawn (at most %s distinct texts per page):</p><ul class="unshown">%s%s</ul>',
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
<p class="legend">The pivot's text is drawn once, first. Each other text stands beside the pivot, drawn once for all the members that have it. <mark data-chunk="1">Highlighted text</mark> is a <mark data-chunk="2">chunk both share</mark>, the same colour on both sides; plain text is on that side only, and each member's differences link to it. Beside a member the pivot's shared passages are folded, and long ones are folded in the member: open them to read them.</p>
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
										  max_text_bytes, NULL, NULL)
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_html(regclass, regclass, name, name, bigint, integer, name, bigint) IS 'one group as a self-contained HTML page for review, each document named by label_column and its key (each cut to 100 characters): the pivot''s text once, at the top; members with the pivot''s exact text listed on one line; every other text drawn once, with the names of the members that have it, beside the pivot with its shared passages folded, shared chunks marked alike, long ones folded, and a list of differences linked to where they are; at most max_text_bytes of document text, with a note saying what was left out; every input escaped';

----- Links from new documents to stored groups -----

-- A document that resembles a member of another group at the threshold,
-- but not that group's pivot, sits in a group of its own or of another
-- pivot (near_dupe_groups and near_dupe_groups_append join a document to a
-- pivot only): each link names the other group and the member there it
-- resembles most (ties: the smaller key text).  One near_dupe_pairs call
-- finds every pair at the threshold; one scan of the group table places
-- both ends of each pair in their groups, joined on the keys as text (a
-- null key meets the null key, as the reports match keys) through a hash
-- of the pairs' ends, which stay few beside the table; and each pair
-- across two groups links both ways.  A merge join would sort the whole
-- group table: the planner cannot tell how few the pairs are, so merge
-- joins are off.  With a wave column and two or more waves (a null wave
-- the earliest), only documents of the latest wave link, and only to
-- groups holding a row of an earlier wave.  The group table is checked
-- (near_dupe_report_problem) but not matched against the source, a scan
-- of both as long as the pairs' own: keys are compared as text, the group
-- table's being those of near_dupe_groups over the source.  Not strict:
-- wave_column is null by default.
CREATE FUNCTION @extschema@.near_dupe_group_links(group_table regclass, source regclass, key_column name, sig_column name,
												  threshold double precision DEFAULT @extschema@.minhash_threshold(),
												  wave_column name DEFAULT NULL)
	RETURNS TABLE(key text, group_id bigint, linked_group_id bigint, linked_key text, resemblance double precision)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	SET enable_mergejoin = off AS $$
DECLARE
	problem record;
	wave_type regtype;
	waves boolean := false;
	latest bigint;
	wave text := 'NULL::bigint';
BEGIN
	IF group_table IS NULL OR source IS NULL OR key_column IS NULL OR sig_column IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed',
			MESSAGE = 'group_table, source, key_column and sig_column must not be null',
			HINT = 'Give the group table, the table it groups, and that table''s key and signature columns.';
	ELSIF threshold IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'null_value_not_allowed', MESSAGE = 'threshold must not be null',
			HINT = 'Leave threshold out for the setting minhash.threshold, or give one above 0 and at most 1.';
	END IF;
	-- the source's kind and columns, the signature column's type and the
	-- threshold, as near_dupe_pairs checks them, before any scan
	PERFORM minhash_internal.near_dupe_check_arguments(source, key_column, sig_column, threshold);
	SELECT * INTO problem FROM minhash_internal.near_dupe_group_table_problem(group_table, true);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	IF wave_column IS NOT NULL THEN
		SELECT a.atttypid INTO wave_type FROM pg_attribute a
		 WHERE a.attrelid = group_table AND a.attname = wave_column AND a.attnum > 0 AND NOT a.attisdropped;
		IF NOT FOUND THEN
			RAISE EXCEPTION USING ERRCODE = 'undefined_column',
				MESSAGE = format('column "%s" of relation %s does not exist', wave_column, group_table),
				HINT = minhash_internal.near_dupe_column_hint(group_table, wave_column);
		ELSIF wave_type NOT IN ('smallint'::regtype, 'integer'::regtype, 'bigint'::regtype) THEN
			RAISE EXCEPTION USING ERRCODE = 'datatype_mismatch',
				MESSAGE = format('wave column "%s" of relation %s is of type %s, not an integer type', wave_column, group_table, wave_type),
				HINT = 'The wave column holds the wave each row arrived in, such as 1 for the rows of near_dupe_groups and 2 for those of the first near_dupe_groups_append.';
		END IF;
	END IF;
	SELECT * INTO problem FROM minhash_internal.near_dupe_report_problem(group_table, true, NULL::bigint, NULL::regclass, NULL::name);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message, HINT = problem.hint;
	END IF;
	IF wave_column IS NOT NULL THEN
		-- two waves: two values, or a value and a null (the earliest)
		EXECUTE format('SELECT min(g.%1$I) < max(g.%1$I) OR (count(*) > count(g.%1$I) AND count(g.%1$I) > 0), max(g.%1$I) FROM %2$s g',
					   wave_column, group_table)
			INTO waves, latest;
		wave := format('g.%I::bigint', wave_column);
	END IF;

	RETURN QUERY EXECUTE format($q$
		SELECT DISTINCT ON (l.key, l.linked_group_id) l.key, l.group_id, l.linked_group_id, l.linked_key, l.resemblance
		  FROM (SELECT min(e.key_a) AS key_a, min(e.key_b) AS key_b, min(e.resemblance) AS resemblance,
					   min(e.group_id) FILTER (WHERE e.side = 1) AS group_a, min(e.group_id) FILTER (WHERE e.side = 2) AS group_b,
					   min(e.wave) FILTER (WHERE e.side = 1) AS wave_a, min(e.wave) FILTER (WHERE e.side = 2) AS wave_b
				  FROM (SELECT p.n, s.side, p.key_a, p.key_b, p.resemblance, g.group_id::bigint AS group_id, %2$s AS wave
						  FROM (SELECT row_number() OVER () AS n, p.key_a, p.key_b, p.resemblance
								  FROM @extschema@.near_dupe_pairs($1, $2, $3, $4) p) p
						 CROSS JOIN (VALUES (1), (2)) s(side)
						  JOIN %1$s g
							ON (g.key::text IS NULL, coalesce(g.key::text, ''))
							   = (CASE s.side WHEN 1 THEN p.key_a ELSE p.key_b END IS NULL,
								  coalesce(CASE s.side WHEN 1 THEN p.key_a ELSE p.key_b END, ''))) e
				 GROUP BY e.n) x
		 CROSS JOIN LATERAL (VALUES (x.key_a, x.group_a, x.wave_a, x.group_b, x.key_b, x.resemblance),
									(x.key_b, x.group_b, x.wave_b, x.group_a, x.key_a, x.resemblance))
			   l(key, group_id, wave, linked_group_id, linked_key, resemblance)
		 WHERE x.group_a <> x.group_b %3$s
		 ORDER BY l.key, l.linked_group_id, l.resemblance DESC, l.linked_key$q$,
		group_table, wave,
		CASE WHEN waves THEN
			format('AND l.wave = $5 AND l.linked_group_id IN (SELECT g.group_id::bigint FROM %s g WHERE coalesce(%s < $5, true))', group_table, wave)
		ELSE '' END)
		USING source, key_column, sig_column, threshold, latest;
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_links(regclass, regclass, name, name, double precision, name) IS 'each document of a group table (stored rows of near_dupe_groups) with each other group holding a member it resembles at threshold, and that member (the most resembling; ties: the smaller key text), by key and linked_group_id; with wave_column (an integer column of the group table) and two or more waves, a null wave the earliest: documents of the latest wave, and groups holding a row of an earlier one';

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
-- texts and all, so it is turned off for the call.  Every string from the
-- tables is escaped; the only links are relative ones to index*.html and
-- group-N.html.  show => 'to review' keeps the groups without a status,
-- those new or grown in the latest wave, and those holding a member that a
-- document of the latest wave resembles, so that every link has its page.
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
			HINT = 'Show ''all'' groups (the default) or those ''to review'': without a status row, new or grown in the latest wave, or resembled by a new document.';
	END IF;
	PERFORM minhash_internal.review_check_page_arguments(min_words, max_text_bytes);
	PERFORM minhash_internal.review_check_columns(source, ARRAY[key_column, text_column, coalesce(label_column, key_column)]);
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
				   ln.linked_documents, ln.linked_groups, ln.linked_ids, ln.link_lines,
				   lt.group_id IS NOT NULL AS linked_to
			  FROM grouped gr
			  LEFT JOIN %8$s s ON (s.%3$I IS NULL, coalesce(s.%3$I::text, '')) = (gr.pivot IS NULL, coalesce(gr.pivot, ''))
			  LEFT JOIN statuses st ON st.group_id = gr.group_id
			  LEFT JOIN linked ln ON ln.group_id = gr.group_id
			  LEFT JOIN (SELECT DISTINCT l.linked_group_id AS group_id FROM links l) lt ON lt.group_id = gr.group_id
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
				   pg_catalog.count(*) FILTER (WHERE NOT $4 OR NOT d.coded OR d.is_new OR d.grew OR d.linked_to) AS shown
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
					  FROM described x WHERE NOT $4 OR NOT x.coded OR x.is_new OR x.grew OR x.linked_to) x
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

COMMENT ON FUNCTION @extschema@.near_dupe_review_pages(regclass, regclass, name, name, name, text, integer, regclass, name, name, double precision, text, boolean, integer, bigint) IS 'a production as HTML pages for review, as (file_name, html) rows: index.html, index-2.html, ... listing every group (groups of one included, with their class: near-duplicates, singleton, no words, numbers only, no signature), page_size per page, ordered by order_by (''size'', ''resemblance'', ''label'', ''group_id''), with each group''s status (status_table), its mark from the latest wave (wave_column: new, grew) and its links to other groups (sig_column: near_dupe_group_links); then (group_pages) group-N.html for each listed group with the way back to the index, the previous and next group, its status, mark, new members and links; show ''to review'' lists only groups without a status, new or grown in the latest wave, or holding a member a document of the latest wave resembles (so that every link leads to a page)';
