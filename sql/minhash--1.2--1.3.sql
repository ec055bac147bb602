/* minhash--1.2--1.3.sql: from 1.2 to 1.3 */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.3'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql and each update script in
-- turn, ending with this one, so a fresh install and an upgraded one run
-- the same statements (test/upgrade/fresh_vs_upgraded.sh).  As in 1.2's
-- script: no object of an older version is dropped, a shipped function is
-- changed only by CREATE OR REPLACE with its arguments and result, and
-- anything else is an overload no older call can reach, or a new name.

----- Labels on review pages -----

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
				ELSE '<span class="label">' || (SELECT h.a_marked FROM @extschema@.highlight(pg_catalog."left"(label, 100), '', 1, 'html') h)
					 || CASE WHEN pg_catalog.length(label) > 100 THEN '&hellip;' ELSE '' END || '</span> ' END
		|| '<span class="key">' || coalesce((SELECT h.a_marked FROM @extschema@.highlight(pg_catalog."left"(key, 100), '', 1, 'html') h)
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
	column_name name;
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
