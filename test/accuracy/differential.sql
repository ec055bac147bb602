-- Index = sequential scan, differentially (run by test/accuracy/differential.sh in a
-- database of its own).  A deterministic corpus of 102,350 rows and 11,197
-- (query signature, threshold) pairs with thresholds from 0 to 1, through
-- sig % q (minhash.threshold set per query), sig %> minhash_query(q, t) and
-- resembles(sig, q, t): the rows a GIN index scan returns (enable_seqscan
-- off, bitmap scans on; the plan of each run is checked) must be exactly the
-- rows a sequential scan returns (bitmap scans off).  Three indexes in turn:
-- the default, (bands = 16, rows = 8) and (key_bits = 16).  Prints one line
-- per check and a summary; ends with an error if any check found a
-- difference.
--
-- Where the time goes.  A query whose threshold the index layout cannot
-- guarantee (28 bands of 4 at n = 128 guarantee t > 100/128 = 0.78125;
-- 16 bands of 8 guarantee t > 112/128 = 0.875) reads the whole index and
-- rechecks every row: about half a second on 100,000 rows.  So the bulk of
-- the queries (t in (0.78125, 1]) runs against the large table; only a few
-- of the rest (t = 0 twice, 1e-9, 0.5, 0.78125 and just below) run on it,
-- and 250 more low thresholds (10 of them 0) run on a 2,630-row subset with
-- its own index.  The sequential-scan answer of the banded queries comes
-- from one join (each query signature against every row, once, kept if it
-- passes the lowest banded threshold through %>; a query keeps the pairs
-- whose resemblance reaches its threshold); 36 of them are also run one by
-- one as literal sequential scans through each form and compared with the
-- join.  Every other reference answer is a literal sequential scan per query.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;

SELECT clock_timestamp() AS t_start \gset
\set elapsed 'SELECT round(extract(epoch FROM clock_timestamp() - ' :'t_start' '::timestamptz)) AS s'
:elapsed \gset
\echo '[1/6] corpus (at' :s 's)'

-- 4,500 families of 22 members.  Member 0 is 40 words drawn from a
-- 50,000-word vocabulary by a hash of (family, position); member m replaces
-- each word with probability about 2m^2/1024 (the same positions as m grows,
-- three spellings of the replacement) and appends m % 5 words, so that
-- resemblances within a family spread over 0..1.
CREATE TABLE diff_docs (id int PRIMARY KEY, family int, body text, sig minhash(128));
INSERT INTO diff_docs (id, family, body, sig)
SELECT id, f, body, minhash(body)
  FROM (SELECT f * 22 + m AS id, f,
               (SELECT string_agg(CASE WHEN (hashint4(f * 64 + w) & 1023) < m * m * 2
                                       THEN 'e' || (hashint4(f * 64 + w + (m % 3) * 7919) & 65535)
                                       ELSE 'w' || ((hashint4(f * 40 + w) & 2147483647) % 50000) END,
                                  ' ' ORDER BY w)
                  FROM generate_series(1, 40 + m % 5) w) AS body
          FROM generate_series(0, 4499) f, generate_series(0, 21) m) g;

-- Specials: empty documents (two spellings, one signature), one-word and
-- shorter-than-a-shingle documents (many copies each), exact copies of
-- family members, rows without a signature.
INSERT INTO diff_docs (id, family, body, sig)
SELECT 1000000 + i, -1, b, minhash(b)
  FROM generate_series(0, 99) i, LATERAL (SELECT CASE WHEN i % 2 = 0 THEN '' ELSE '... !!!' END AS b) x;
INSERT INTO diff_docs (id, family, body, sig)
SELECT 1000100 + i, -2, b, minhash(b)
  FROM generate_series(0, 199) i, LATERAL (SELECT 'solo' || (i % 40) AS b) x;
INSERT INTO diff_docs (id, family, body, sig)
SELECT 1000300 + i, d.family, d.body, d.sig
  FROM generate_series(0, 499) i JOIN diff_docs d ON d.id = (i * 197) % 99000;
INSERT INTO diff_docs (id, family, body, sig)
SELECT 1000800 + i, -3, 'no signature', NULL FROM generate_series(0, 49) i;
INSERT INTO diff_docs (id, family, body, sig)
SELECT 1000850 + i, -4, b, minhash(b)
  FROM generate_series(0, 99) i, LATERAL (SELECT 'short' || (i % 10) || ' words ' || (i % 7) AS b) x;

-- The guarantee at its edge: signatures that differ from a source row in
-- exactly d positions, one per band (positions 0, s, 2s, ...; s = 4 for the
-- default 28 bands of 4, s = 8 for 16 bands of 8), the worst case for the
-- pigeonhole bound.  Resemblance to the source: exactly (128 - d) / 128.
CREATE FUNCTION diff_perturb(sig minhash, d int, stride int) RETURNS minhash
LANGUAGE sql IMMUTABLE STRICT AS $$
	SELECT (left(t, length(t) - 1024) ||
	        string_agg(CASE WHEN i % stride = 0 AND i / stride < d
	                        THEN lpad(to_hex(('x' || substr(right(t, 1024), i * 8 + 1, 8))::bit(32)::int # 1), 8, '0')
	                        ELSE substr(right(t, 1024), i * 8 + 1, 8) END, '' ORDER BY i))::minhash
	  FROM (SELECT sig::text AS t) s, generate_series(0, 127) i
	 GROUP BY t
$$;
-- 100 sources x d = 13..32 at stride 4 (resemblance 0.898 .. 0.75), 50
-- sources x d = 9..16 at stride 8 (0.930 .. 0.875).
INSERT INTO diff_docs (id, family, body, sig)
SELECT 2000000 + src * 100 + d, -5, NULL, diff_perturb(s.sig, d, 4)
  FROM generate_series(0, 99) src JOIN diff_docs s ON s.id = ((src * 45 + 7) % 4500) * 22 + src % 3,
       generate_series(13, 32) d;
INSERT INTO diff_docs (id, family, body, sig)
SELECT 3000000 + src * 100 + d, -6, NULL, diff_perturb(s.sig, d, 8)
  FROM generate_series(0, 49) src JOIN diff_docs s ON s.id = ((src * 90 + 11) % 4500) * 22 + src % 2,
       generate_series(9, 16) d;
ANALYZE diff_docs;

-- The subset for low thresholds: 100 families and an eighth of the specials.
CREATE TABLE diff_small AS
SELECT * FROM diff_docs WHERE (family BETWEEN 0 AND 99) OR (id >= 1000000 AND id % 8 = 0);
ALTER TABLE diff_small ADD PRIMARY KEY (id);
ANALYZE diff_small;

SELECT (SELECT count(*) FROM diff_docs) AS n_docs, (SELECT count(*) FROM diff_small) AS n_small \gset

:elapsed \gset
\echo '[2/6] queries (at' :s 's)'
-- Query signatures for the large table: family members of every edit rate,
-- the sources of the edge rows, worst-case perturbations of members (the
-- query side of the edge), texts not in the table, and the specials.
CREATE TABLE diff_qsigs (sid int PRIMARY KEY, kind text, sig minhash(128));
INSERT INTO diff_qsigs SELECT s, 'member', d.sig
  FROM generate_series(0, 219) s JOIN diff_docs d ON d.id = ((s * 37) % 4500) * 22 + s % 22;
INSERT INTO diff_qsigs SELECT 300 + src, 'edge source', s.sig
  FROM generate_series(0, 99) src JOIN diff_docs s ON s.id = ((src * 45 + 7) % 4500) * 22 + src % 3;
INSERT INTO diff_qsigs SELECT 400 + e, 'edge query',
       CASE WHEN e < 40 THEN diff_perturb(d.sig, 13 + e % 20, 4) ELSE diff_perturb(d.sig, 9 + e % 8, 8) END
  FROM generate_series(0, 59) e JOIN diff_docs d ON d.id = ((e * 71 + 3) % 4500) * 22 + e % 4;
INSERT INTO diff_qsigs SELECT 500 + s, 'new text', minhash(
       (SELECT string_agg(CASE WHEN (hashint4(f * 64 + w + 99991) & 255) < 2 + (s % 10) * 4
                               THEN 'n' || (hashint4(f * 64 + w) & 65535)
                               ELSE 'w' || ((hashint4(f * 40 + w) & 2147483647) % 50000) END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 40 + s % 3) w))
  FROM generate_series(0, 34) s, LATERAL (SELECT (s * 89 + 5) % 4500 AS f) x;
INSERT INTO diff_qsigs VALUES
	(600, 'special', minhash(''::text)),
	(601, 'special', minhash('solo7'::text)),
	(602, 'special', minhash('short3 words 3'::text)),
	(603, 'special', minhash('a word nobody wrote'::text)),
	(604, 'special', (SELECT sig FROM diff_docs WHERE id = 1000300));

-- Thresholds, banded (above what the default layout guarantees, 0.78125):
-- for every signature 1, 0.8 and 0.8 -/+ 1/128, then 20 more: k/128 exactly
-- (where the disagreement bound D changes), k/128 -/+ 1e-9, and uniform in
-- (0.78125, 1].
CREATE TABLE diff_queries (qid int PRIMARY KEY, sid int, target text, path text, t float8,
                           sig minhash(128), qq minhash_query);
INSERT INTO diff_queries (qid, sid, target, path, t)
SELECT row_number() OVER (ORDER BY sid, j), sid, 'docs', 'banded', t
  FROM (SELECT s.sid, j,
               CASE WHEN j < 4 THEN (ARRAY[1.0, 0.8, 0.8 - 1.0 / 128, 0.8 + 1.0 / 128])[j + 1]::float8
                    WHEN j % 4 = 0 THEN (101 + h % 28) / 128.0::float8
                    WHEN j % 4 = 1 THEN (102 + h % 27) / 128.0::float8 - 1e-9
                    WHEN j % 4 = 2 THEN (101 + h % 27) / 128.0::float8 + 1e-9
                    ELSE 0.78125 + 1e-6 + (h % 1000000) / 1000000.0 * (1 - 0.78125 - 1e-6) END AS t
          FROM diff_qsigs s, generate_series(0, 25) j,
               LATERAL (SELECT hashint4(s.sid * 100 + j) & 2147483647 AS h) x) q;
-- The layout boundary itself: 0.78125 + 1e-12 needs one matching band key
-- of 28, 0.78125 reads everything.  Full scans (below) are few on this table.
INSERT INTO diff_queries (qid, sid, target, path, t)
SELECT 20000 + sid, sid, 'docs', 'banded', 0.78125 + 1e-12 FROM diff_qsigs WHERE sid % 25 = 0;
INSERT INTO diff_queries (qid, sid, target, path, t) VALUES
	(30001, 1, 'docs', 'full', 0),
	(30002, 600, 'docs', 'full', 0),
	(30003, 301, 'docs', 'full', 1e-9),
	(30004, 5, 'docs', 'full', 0.5),
	(30005, 302, 'docs', 'full', 0.78125),
	(30006, 405, 'docs', 'full', 0.78125 - 1e-9);
UPDATE diff_queries q SET sig = s.sig FROM diff_qsigs s WHERE s.sid = q.sid;
-- Low thresholds on the subset: 250 queries, signatures of its rows, t
-- uniform in [0, 0.78125], every 10th exactly k/128, every 25th 0.
INSERT INTO diff_queries (qid, sid, target, path, t, sig)
SELECT 40000 + i, NULL, 'small', 'full',
       CASE WHEN i % 25 = 0 THEN 0
            WHEN i % 10 = 0 THEN (h % 101) / 128.0::float8
            ELSE (h % 1000001) / 1000000.0 * 0.78125 END,
       (SELECT sig FROM diff_small WHERE sig IS NOT NULL ORDER BY hashint4(id * 31 + i), id LIMIT 1)
  FROM generate_series(0, 249) i, LATERAL (SELECT hashint4(i * 7 + 1) & 2147483647 AS h) x;
UPDATE diff_queries SET qq = minhash_query(sig, t);
ANALYZE diff_queries;

SELECT count(*) AS n_queries,
       count(*) FILTER (WHERE target = 'docs' AND path = 'banded') AS n_banded,
       count(*) FILTER (WHERE path = 'full') AS n_full,
       count(*) FILTER (WHERE t = 0) AS n_zero, count(*) FILTER (WHERE t = 1) AS n_one
  FROM diff_queries \gset
\echo '  ' :n_queries 'queries:' :n_banded 'banded on' :n_docs 'rows,' :n_full 'full-scan,' :n_zero 'at t = 0,' :n_one 'at t = 1;' :n_small 'rows in the subset'
SELECT width_bucket(t, 0, 1.000001, 10) AS bucket, min(t), max(t), count(*) AS queries
  FROM diff_queries GROUP BY 1 ORDER BY 1;

-- Hits of every run: run name, query, row.  diff_ran: which queries a run ran.
CREATE UNLOGGED TABLE diff_hits (run text, qid int, id int);
CREATE UNLOGGED TABLE diff_ran (run text, qid int);
CREATE TABLE diff_runs (run text PRIMARY KEY, queries int, seconds numeric);

-- Runs the queries picked by `selection` against `docs` through `form`, by
-- index or by sequential scan, and records what each returns.  Checks the
-- plan of the first query: a Bitmap Index Scan, or a Seq Scan and nothing
-- else.
CREATE FUNCTION diff_run(run text, docs regclass, form text, use_index bool, selection text)
RETURNS int LANGUAGE plpgsql AS $$
DECLARE
	q record;
	n int := 0;
	started timestamptz := clock_timestamp();
	cond text;
	plan text;
	line text;
BEGIN
	PERFORM set_config('enable_seqscan', CASE WHEN use_index THEN 'off' ELSE 'on' END, true);
	PERFORM set_config('enable_bitmapscan', CASE WHEN use_index THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	cond := CASE form WHEN '%' THEN 'sig % $1'
	                  WHEN '%>' THEN 'sig %> $2'
	                  WHEN 'resembles' THEN 'resembles(sig, $1, $3)' END;
	FOR q IN EXECUTE format('SELECT qid, sig, qq, t FROM diff_queries WHERE %s ORDER BY qid', selection) LOOP
		IF form = '%' THEN
			PERFORM set_config('minhash.threshold', q.t::text, true);
		END IF;
		IF n = 0 THEN
			plan := '';
			FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM %s WHERE %s', docs, cond)
					USING q.sig, q.qq, q.t LOOP
				plan := plan || line || E'\n';
			END LOOP;
			IF use_index AND plan NOT LIKE '%Bitmap Index Scan on%' OR
			   NOT use_index AND (plan NOT LIKE '%Seq Scan on%' OR plan LIKE '%Bitmap%') THEN
				RAISE EXCEPTION 'run %: unexpected plan:%', run, E'\n' || plan;
			END IF;
		END IF;
		EXECUTE format('INSERT INTO diff_hits SELECT %L, $4, id FROM %s WHERE %s', run, docs, cond)
			USING q.sig, q.qq, q.t, q.qid;
		INSERT INTO diff_ran VALUES (run, q.qid);
		n := n + 1;
	END LOOP;
	INSERT INTO diff_runs VALUES (run, n, round(extract(epoch FROM clock_timestamp() - started)::numeric, 1));
	RETURN n;
END $$;

-- Rows in one run and not the other (both ways, as multisets), over the
-- queries run `a` ran; `b` must have run all of them.
CREATE TABLE diff_checks (check_name text, queries int, rows bigint, differences bigint);
CREATE FUNCTION diff_compare(check_name text, a text, b text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
	n_queries int;
	missing int;
	n_rows bigint;
	n_diff bigint;
BEGIN
	SELECT count(*) INTO n_queries FROM diff_ran WHERE run = a;
	SELECT count(*) INTO missing FROM (SELECT qid FROM diff_ran WHERE run = a EXCEPT SELECT qid FROM diff_ran WHERE run = b) x;
	IF n_queries = 0 OR missing > 0 THEN
		RAISE EXCEPTION 'check %: run % ran % queries, % of them not in run %', check_name, a, n_queries, missing, b;
	END IF;
	SELECT count(*) INTO n_rows FROM diff_hits WHERE run = a;
	WITH ha AS (SELECT qid, id FROM diff_hits WHERE run = a),
	     hb AS (SELECT h.qid, h.id FROM diff_hits h WHERE h.run = b
	               AND h.qid IN (SELECT qid FROM diff_ran WHERE run = a))
	SELECT (SELECT count(*) FROM (SELECT * FROM ha EXCEPT ALL SELECT * FROM hb) x) +
	       (SELECT count(*) FROM (SELECT * FROM hb EXCEPT ALL SELECT * FROM ha) y)
	  INTO n_diff;
	INSERT INTO diff_checks VALUES (check_name, n_queries, n_rows, n_diff);
	IF n_diff > 0 THEN
		RAISE WARNING 'check %: % differences between % and %; first ones:%', check_name, n_diff, a, b,
			(SELECT string_agg(format(E'\n  query %s (t = %s): row %s only in %s', d.qid, q.t, d.id, d.side), '')
			   FROM (SELECT * FROM ((SELECT qid, id, a AS side FROM diff_hits WHERE run = a
			                         EXCEPT SELECT qid, id, a FROM diff_hits WHERE run = b)
			                        UNION ALL
			                        (SELECT qid, id, b FROM diff_hits WHERE run = b AND qid IN (SELECT qid FROM diff_ran WHERE run = a)
			                         EXCEPT SELECT qid, id, b FROM diff_hits WHERE run = a)) u
			         ORDER BY qid, id LIMIT 10) d JOIN diff_queries q USING (qid));
	END IF;
END $$;

:elapsed \gset
\echo '[3/6] sequential-scan answers (at' :s 's)'
-- The banded queries' reference: every query signature against every row in
-- one sequential-scan join, through %> at the lowest banded threshold.
SELECT min(t) AS banded_min FROM diff_queries WHERE target = 'docs' AND path = 'banded' \gset
SET enable_bitmapscan = off;
SET enable_indexscan = off;
ALTER TABLE diff_qsigs ADD COLUMN qq minhash_query;
UPDATE diff_qsigs SET qq = minhash_query(sig, :banded_min);
CREATE TABLE diff_pairs AS
SELECT s.sid, d.id, resemblance(d.sig, s.sig) AS r
  FROM diff_qsigs s JOIN diff_docs d ON d.sig %> s.qq;
RESET enable_bitmapscan;
RESET enable_indexscan;
INSERT INTO diff_hits
SELECT 'docs/seqscan join', q.qid, p.id FROM diff_queries q JOIN diff_pairs p USING (sid)
 WHERE q.target = 'docs' AND q.path = 'banded' AND p.r >= q.t;
INSERT INTO diff_ran SELECT 'docs/seqscan join', qid FROM diff_queries WHERE target = 'docs' AND path = 'banded';
-- 40 banded queries as literal sequential scans through each form, to check
-- the join against the operators themselves; and every full-scan query.
SELECT diff_run('docs/seqscan %', 'diff_docs', '%', false, 'target = ''docs'' AND (path = ''full'' OR qid % 307 = 1)'),
       diff_run('docs/seqscan %>', 'diff_docs', '%>', false, 'target = ''docs'' AND (path = ''full'' OR qid % 307 = 1)'),
       diff_run('docs/seqscan resembles', 'diff_docs', 'resembles', false, 'target = ''docs'' AND (path = ''full'' OR qid % 307 = 1)'),
       diff_run('small/seqscan %', 'diff_small', '%', false, 'target = ''small'''),
       diff_run('small/seqscan %>', 'diff_small', '%>', false, 'target = ''small'''),
       diff_run('small/seqscan resembles', 'diff_small', 'resembles', false, 'target = ''small''') \gset

:elapsed \gset
\echo '[4/6] default index (28 bands of 4, 20-bit keys) (at' :s 's)'
CREATE INDEX diff_docs_sig ON diff_docs USING gin (sig);
CREATE INDEX diff_small_sig ON diff_small USING gin (sig);
SELECT diff_run('docs/default %', 'diff_docs', '%', true, 'target = ''docs'''),
       diff_run('docs/default %>', 'diff_docs', '%>', true, 'target = ''docs'''),
       diff_run('docs/default resembles', 'diff_docs', 'resembles', true, 'target = ''docs'' AND (path = ''full'' AND qid % 2 = 0 OR qid % 4 = 0)'),
       diff_run('small/default %', 'diff_small', '%', true, 'target = ''small'''),
       diff_run('small/default %>', 'diff_small', '%>', true, 'target = ''small'''),
       diff_run('small/default resembles', 'diff_small', 'resembles', true, 'target = ''small'' AND qid % 3 = 0') \gset

:elapsed \gset
\echo '[5/6] explicit options: (bands = 16, rows = 8), then (key_bits = 16) (at' :s 's)'
DROP INDEX diff_docs_sig;
CREATE INDEX diff_docs_sig ON diff_docs USING gin (sig gin_minhash_ops (bands = 16, rows = 8));
-- 16 bands guarantee t > 0.875: a fifth of the banded queries above that,
-- and two at the boundary (0.875 + 1e-12: one key of 16; 0.875: all).
INSERT INTO diff_queries (qid, sid, target, path, t, sig, qq)
SELECT 50000 + sid, sid, 'docs', 'boundary16', t, sig, minhash_query(sig, t)
  FROM diff_qsigs, LATERAL (VALUES (0.875::float8 + 1e-12), (0.875)) v(t)
 WHERE sid IN (300, 450) AND (t = 0.875) = (sid = 450);
SELECT diff_run('docs/bands16 %', 'diff_docs', '%', true, 'path = ''banded'' AND t > 0.875 AND qid % 5 = 0 OR path = ''boundary16'''),
       diff_run('docs/bands16 %>', 'diff_docs', '%>', true, 'path = ''banded'' AND t > 0.875 AND qid % 5 = 1 OR path = ''boundary16'''),
       diff_run('docs/seqscan boundary16', 'diff_docs', '%>', false, 'path = ''boundary16''') \gset
INSERT INTO diff_hits SELECT 'docs/seqscan join', qid, id FROM diff_hits WHERE run = 'docs/seqscan boundary16';
INSERT INTO diff_ran SELECT 'docs/seqscan join', qid FROM diff_ran WHERE run = 'docs/seqscan boundary16';
DROP INDEX diff_docs_sig;
CREATE INDEX diff_docs_sig ON diff_docs USING gin (sig gin_minhash_ops (key_bits = 16));
SELECT diff_run('docs/key_bits16 %', 'diff_docs', '%', true, 'path = ''banded'' AND qid % 5 = 2'),
       diff_run('docs/key_bits16 %>', 'diff_docs', '%>', true, 'path = ''banded'' AND qid % 5 = 3') \gset
DROP INDEX diff_docs_sig;

:elapsed \gset
\echo '[6/6] index against sequential scan (at' :s 's)'
CREATE INDEX ON diff_hits (run, qid, id);
CREATE INDEX ON diff_ran (run, qid);
ANALYZE diff_hits, diff_ran;
-- Full-scan queries of the large table are compared with their literal
-- sequential scans, banded ones with the join.
INSERT INTO diff_hits SELECT 'docs/seqscan join', h.qid, h.id
  FROM diff_hits h JOIN diff_queries q USING (qid) WHERE h.run = 'docs/seqscan %>' AND q.path = 'full';
INSERT INTO diff_ran SELECT 'docs/seqscan join', r.qid
  FROM diff_ran r JOIN diff_queries q USING (qid) WHERE r.run = 'docs/seqscan %>' AND q.path = 'full';
SELECT diff_compare('seqscan % = seqscan %> (full-scan thresholds, large table)', 'docs/seqscan %', 'docs/seqscan %>'),
       diff_compare('literal seqscan % = join', 'docs/seqscan %', 'docs/seqscan join'),
       diff_compare('literal seqscan %> = join', 'docs/seqscan %>', 'docs/seqscan join'),
       diff_compare('literal seqscan resembles = join', 'docs/seqscan resembles', 'docs/seqscan join'),
       diff_compare('default index %', 'docs/default %', 'docs/seqscan join'),
       diff_compare('default index %>', 'docs/default %>', 'docs/seqscan join'),
       diff_compare('default index resembles', 'docs/default resembles', 'docs/seqscan join'),
       diff_compare('subset default index %', 'small/default %', 'small/seqscan %'),
       diff_compare('subset default index %>', 'small/default %>', 'small/seqscan %>'),
       diff_compare('subset default index resembles', 'small/default resembles', 'small/seqscan resembles'),
       diff_compare('subset seqscan % = seqscan %>', 'small/seqscan %', 'small/seqscan %>'),
       diff_compare('(bands = 16, rows = 8) %', 'docs/bands16 %', 'docs/seqscan join'),
       diff_compare('(bands = 16, rows = 8) %>', 'docs/bands16 %>', 'docs/seqscan join'),
       diff_compare('(key_bits = 16) %', 'docs/key_bits16 %', 'docs/seqscan join'),
       diff_compare('(key_bits = 16) %>', 'docs/key_bits16 %>', 'docs/seqscan join') \gset

\echo
SELECT run, queries, seconds FROM diff_runs ORDER BY run;
SELECT check_name AS "check", queries, rows, differences FROM diff_checks;

-- Index queries and their thresholds, all runs together.
SELECT count(*) AS index_queries,
       count(DISTINCT r.qid) AS distinct_queries,
       count(*) FILTER (WHERE q.t = 0) AS at_0,
       count(*) FILTER (WHERE q.t = 1) AS at_1,
       count(*) FILTER (WHERE q.t > 0 AND q.t < 0.5) AS in_0_05,
       count(*) FILTER (WHERE q.t >= 0.5 AND q.t <= 0.78125) AS in_05_078125,
       count(*) FILTER (WHERE q.t > 0.78125 AND q.t < 1) AS above_078125
  FROM diff_ran r JOIN diff_queries q USING (qid)
 WHERE r.run NOT LIKE '%seqscan%';
SELECT (SELECT count(*) FROM diff_ran WHERE run NOT LIKE '%seqscan%') AS index_queries,
       (SELECT count(DISTINCT qid) FROM diff_ran) AS distinct_queries,
       (SELECT count(*) FROM diff_hits WHERE run NOT LIKE '%seqscan%') AS index_rows,
       (SELECT count(*) FROM diff_checks) AS checks,
       (SELECT sum(differences) FROM diff_checks) AS differences,
       round(extract(epoch FROM clock_timestamp() - :'t_start'::timestamptz)) AS seconds \gset
\echo 'differential:' :n_docs 'documents,' :distinct_queries 'distinct queries,' :index_queries 'index queries returning' :index_rows 'rows,' :checks 'checks,' :differences 'differences (' :seconds 's)'
SELECT :differences = 0 AS ok \gset
\if :ok
\else
	\echo 'differential: the index and the sequential scan differ (details in the warnings above)'
	SELECT 1 / 0 AS differential_failed;
\endif
