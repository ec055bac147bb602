-- Checks on the content of test/upgrade/roundtrip_content.sql wherever it ended up
-- (a restored dump, an upgraded cluster, or the original): signatures
-- recomputed from the text are identical, text and binary (COPY BINARY)
-- round trips are exact, both exact indexes are used and return what a
-- sequential scan returns (the approximate index beside one is not used for
-- them), the approximate index serves resembles_approx with a subset of
-- those rows, and the trigger still flags a near-copy.  Runs in one
-- transaction that is rolled back, so the content is left as it was.  Its
-- output is deterministic: the scripts compare it between the source and the
-- copy.  Needs psql variable workdir: a directory the client may write (the
-- COPY BINARY file goes there: \copy takes no variables, so psql moves there).
\set ON_ERROR_STOP on
\cd :workdir
\pset tuples_only on
\pset format unaligned
SET client_min_messages = warning;
BEGIN;

-- A failed check stops the script with its name.
CREATE FUNCTION pg_temp.rt_require(ok bool, what text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN
	IF ok IS NOT TRUE THEN
		RAISE EXCEPTION 'round trip check failed: %', what;
	END IF;
	RETURN 'ok: ' || what;
END $$;

-- Signatures recomputed here equal the stored ones, to the byte.
SELECT pg_temp.rt_require(count(*) = 1000 AND bool_and(minhash_send(sig) = minhash_send(minhash(body))
                                                 AND minhash_send(sig256) = minhash_send(minhash(body, 256))
                                                 AND minhash_send(sig_chars) = minhash_send(minhash_chars(body))
                                                 AND minhash_send(sig_set) = minhash_send(minhash(string_to_array(body, ' '), 64, 7))
                                                 AND minhash_send(sig_k3) = minhash_send(minhash(body, 128, 3, 42))),
                          'stored signatures = signatures computed now (1000 rows, 5 kinds)')
  FROM rt_docs WHERE id < 1000;
SELECT pg_temp.rt_require(minhash_size(sig) = 0 AND minhash_size(sig256) = 0 AND sig::text LIKE '%:size=0:%'
                          AND (SELECT sig FROM rt_docs WHERE id = 5001) = sig,
                          'the empty signature')
  FROM rt_docs WHERE id = 5000;
SELECT pg_temp.rt_require(minhash_size_is_estimated(sig) AND sig::text LIKE '%size~%'
                          AND sig = (SELECT minhash_union(sig) FROM rt_docs WHERE id < 20),
                          'the union (estimated size)')
  FROM rt_docs WHERE id = 2147483647;

-- Text round trip of every value, compared as text and as bytes.
SELECT pg_temp.rt_require(bool_and(c.v::text::minhash::text = c.v::text
                                   AND minhash_send(c.v::text::minhash) = minhash_send(c.v))
                          AND count(*) = (SELECT count(sig) + count(sig256) + count(sig_chars) + count(sig_set) + count(sig_k3) FROM rt_docs),
                          'text round trip of ' || count(*) || ' signatures')
  FROM rt_docs, LATERAL (VALUES (sig), (sig256), (sig_chars), (sig_set), (sig_k3)) c(v) WHERE c.v IS NOT NULL;
SELECT pg_temp.rt_require(bool_and(q::text::minhash_query::text = q::text), 'text round trip of ' || count(q) || ' minhash_query values')
  FROM rt_docs WHERE q IS NOT NULL;
-- Typmods are enforced on the way back in.
SELECT pg_temp.rt_require(bool_and(sig::text::minhash(128) = sig), 'minhash(128) accepts its own text form') FROM rt_docs;

-- COPY BINARY out and back in (minhash_send, then minhash_recv with the
-- column typmods).  minhash_query has a binary form only if it has send and
-- receive functions.
SELECT typsend <> 0 AND typreceive <> 0 AS query_has_binary FROM pg_type WHERE typname = 'minhash_query' \gset
\if :query_has_binary
\copy (SELECT id, sig, sig256, sig_chars, sig_set, sig_k3, q FROM rt_docs ORDER BY id) TO 'rt_copy.bin' WITH (FORMAT binary)
CREATE TEMP TABLE rt_copy (id int, sig minhash(128), sig256 minhash(256), sig_chars minhash, sig_set minhash(64), sig_k3 minhash, q minhash_query);
\copy rt_copy FROM 'rt_copy.bin' WITH (FORMAT binary)
\else
\echo 'note: type minhash_query has no binary send/receive functions; COPY BINARY round trip without the q column'
\copy (SELECT id, sig, sig256, sig_chars, sig_set, sig_k3 FROM rt_docs ORDER BY id) TO 'rt_copy.bin' WITH (FORMAT binary)
CREATE TEMP TABLE rt_copy (id int, sig minhash(128), sig256 minhash(256), sig_chars minhash, sig_set minhash(64), sig_k3 minhash);
\copy rt_copy FROM 'rt_copy.bin' WITH (FORMAT binary)
ALTER TABLE rt_copy ADD COLUMN q minhash_query;
UPDATE rt_copy c SET q = d.q FROM rt_docs d WHERE d.id = c.id;
\endif
SELECT pg_temp.rt_require(count(*) = (SELECT count(*) FROM rt_docs)
                          AND bool_and(minhash_send(c.sig) IS NOT DISTINCT FROM minhash_send(d.sig)
                                       AND minhash_send(c.sig256) IS NOT DISTINCT FROM minhash_send(d.sig256)
                                       AND minhash_send(c.sig_chars) IS NOT DISTINCT FROM minhash_send(d.sig_chars)
                                       AND minhash_send(c.sig_set) IS NOT DISTINCT FROM minhash_send(d.sig_set)
                                       AND minhash_send(c.sig_k3) IS NOT DISTINCT FROM minhash_send(d.sig_k3)
                                       AND c.sig::text IS NOT DISTINCT FROM d.sig::text
                                       AND c.sig_k3::text IS NOT DISTINCT FROM d.sig_k3::text
                                       AND c.q::text IS NOT DISTINCT FROM d.q::text),
                          'COPY BINARY round trip of ' || count(*) || ' rows')
  FROM rt_copy c JOIN rt_docs d USING (id);
-- A binary value for a column of another typmod is refused.
\copy (SELECT sig256 FROM rt_docs WHERE id = 1) TO 'rt_copy.bin' WITH (FORMAT binary)
CREATE TEMP TABLE rt_copy128 (sig minhash(128));
SAVEPOINT before_wrong_typmod;
\echo '(an error is expected here:)'
\set ON_ERROR_STOP off
\copy rt_copy128 FROM 'rt_copy.bin' WITH (FORMAT binary)
\set ON_ERROR_STOP on
ROLLBACK TO SAVEPOINT before_wrong_typmod;
SELECT pg_temp.rt_require(count(*) = 0, 'COPY BINARY refuses 256 values for minhash(128)') FROM rt_copy128;

-- The indexes are used, and return what a sequential scan returns.  (Few
-- queries: these rows are wide, their signatures are TOASTed, and a
-- sequential-scan join detoasts one for every pair.)
CREATE TEMP TABLE rt_plans (what text, plan text);
CREATE FUNCTION pg_temp.rt_hits(use_index bool) RETURNS TABLE (form text, query int, hit int) LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', CASE WHEN use_index THEN 'off' ELSE 'on' END, true);
	PERFORM set_config('enable_bitmapscan', CASE WHEN use_index THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('minhash.threshold', '0.9', true);
	-- EXECUTE: a static query would keep the plan made under the first
	-- call's settings.
	RETURN QUERY EXECUTE $q$SELECT '%', q.id, d.id FROM rt_docs q JOIN rt_docs d ON d.sig % q.sig WHERE q.id % 40 = 0$q$;
	RETURN QUERY EXECUTE $q$SELECT '%>', q.id, d.id FROM rt_docs q JOIN rt_docs d ON d.sig %> q.q WHERE q.id % 40 = 1$q$;
	RETURN QUERY EXECUTE $q$SELECT 'sig256 resembles', q.id, d.id FROM rt_docs q JOIN rt_docs d ON resembles(d.sig256, q.sig256, 0.75) WHERE q.id % 40 = 2$q$;
	RETURN QUERY EXECUTE $q$SELECT 'resembles_approx', q.id, d.id FROM rt_docs q JOIN rt_docs d ON resembles_approx(d.sig, q.sig, 0.6) WHERE q.id % 40 = 3$q$;
END $$;
CREATE FUNCTION pg_temp.rt_plan(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	line text;
	plan text := '';
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
		plan := plan || line || E'\n';
	END LOOP;
	RETURN plan;
END $$;
SELECT pg_temp.rt_require(pg_temp.rt_plan('SELECT id FROM rt_docs WHERE sig % (SELECT sig FROM rt_docs WHERE id = 7)') LIKE '%Bitmap Index Scan on rt_docs_sig%'
                          AND pg_temp.rt_plan('SELECT id FROM rt_docs WHERE sig %> (SELECT q FROM rt_docs WHERE id = 7)') LIKE '%Bitmap Index Scan on rt_docs_sig%'
                          AND pg_temp.rt_plan('SELECT id FROM rt_docs WHERE resembles(sig256, (SELECT sig256 FROM rt_docs WHERE id = 7), 0.75)') LIKE '%Bitmap Index Scan on rt_docs_sig256%',
                          'both indexes are used (%, %>, resembles)');
-- (A constant query: the planner then sees that rt_docs_sig reads every
-- posting list at 0.6.)
SELECT pg_temp.rt_require(pg_temp.rt_plan(format('SELECT id FROM rt_docs WHERE resembles_approx(sig, %L::minhash, 0.6)', sig)) LIKE '%Bitmap Index Scan on rt_approx%',
                          'the approximate index is used (resembles_approx)')
  FROM rt_docs WHERE id = 7;
CREATE TEMP TABLE rt_by_index AS SELECT * FROM pg_temp.rt_hits(true);
CREATE TEMP TABLE rt_by_scan AS SELECT * FROM pg_temp.rt_hits(false);
SELECT form, count(*) AS rows, count(DISTINCT query) AS queries FROM rt_by_scan GROUP BY form ORDER BY form;
SELECT pg_temp.rt_require((SELECT count(*) FROM (SELECT * FROM rt_by_index EXCEPT ALL SELECT * FROM rt_by_scan) a) = 0
                          AND (SELECT count(*) FROM (SELECT * FROM rt_by_scan WHERE form <> 'resembles_approx'
                                                     EXCEPT ALL SELECT * FROM rt_by_index) b) = 0
                          AND (SELECT count(*) FROM rt_by_scan) > 100,
                          'index = sequential scan, approximate index a subset (' || (SELECT count(*) FROM rt_by_scan) || ' rows)');

-- The trigger: rows flagged at insert kept their flags, and it still flags.
SELECT pg_temp.rt_require(count(*) FILTER (WHERE id >= 6000) = 10 AND count(*) FILTER (WHERE id BETWEEN 6000 AND 6009 AND dup_of = (id - 6000) * 20 + 3) = 10,
                          'flags set at insert time kept (' || count(*) || ' flagged rows)')
  FROM rt_docs WHERE dup_of IS NOT NULL;
INSERT INTO rt_docs (id, body, sig)
SELECT 7000, body || ' copied again', minhash(body || ' copied again') FROM rt_docs WHERE id = 734;
INSERT INTO rt_docs (id, body, sig) VALUES (7001, 'nothing like anything else here', minhash('nothing like anything else here'::text));
UPDATE rt_docs SET body = body WHERE id = 734;
SELECT id, dup_of FROM rt_docs WHERE id IN (7000, 7001, 734) ORDER BY id;
SELECT pg_temp.rt_require((SELECT dup_of FROM rt_docs WHERE id = 7000) IS NOT NULL
                          AND (SELECT dup_of FROM rt_docs WHERE id = 7001) IS NULL
                          AND (SELECT dup_of FROM rt_docs WHERE id = 734) IS NOT NULL,
                          'the trigger flags a near-copy on INSERT and UPDATE, and not a new text');
ROLLBACK;
