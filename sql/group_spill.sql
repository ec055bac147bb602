-- near_dupe_groups and near_dupe_pairs beyond minhash.group_memory: the call
-- reads its rows again and runs the same engine with its arrays in a
-- temporary file instead of refusing, and returns exactly the rows, in the
-- same order, that it returns in memory.  Every table here holds more than
-- 64kB of signatures (at least 170 rows of 128 values, 512 bytes each), so
-- at 64kB every call below spills (the end of this file shows that it uses
-- the file).

-- The NOTICE of a call about to spill is not shown: its sizes differ by
-- PostgreSQL version (test/bench/group_spill_spam.sh checks it).
SET client_min_messages = warning;

-- Families of edited copies (member m of family f replaces m words of 60,
-- neighbours resemble each other about 0.84), loners, two identical
-- documents, two without words, rows without a signature, and then a copy
-- of every row ranked before its original (a smaller key) and one after.
CREATE TABLE gsp (id int, body text, sig minhash);
INSERT INTO gsp (id, body)
SELECT f * 10 + m,
       CASE WHEN m % 3 = 2 THEN 'hello there ' ELSE '' END ||
       (SELECT string_agg(CASE WHEN w <= m * 10 AND w % 10 = 0 THEN 'edit' || w ELSE 'f' || f || 'w' || w END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 60) w)
  FROM generate_series(1, 6) f, generate_series(0, 5) m;
INSERT INTO gsp (id, body) VALUES
	(71, 'a loner with a few words of its own and nothing else at all'),
	(72, 'another loner that shares nothing with any of the others here'),
	(73, 'a copy that exists twice in the table word for word'),
	(74, 'a copy that exists twice in the table word for word'),
	(75, ''),
	(76, '   ...   '),
	(77, NULL),
	(78, NULL);
UPDATE gsp SET sig = minhash(body) WHERE body IS NOT NULL;
INSERT INTO gsp SELECT CASE c WHEN 1 THEN -id ELSE id + 1000 * c END, body, sig FROM gsp, generate_series(1, 3) c;
-- The same rows under text keys whose order is not the integers' and
-- bigint keys.
CREATE TABLE gsp_text AS SELECT CASE WHEN id % 2 = 0 THEN 'K' ELSE 'k' END || substr(md5(id::text), 1, 10) AS k, sig FROM gsp;
CREATE TABLE gsp_big AS SELECT id::bigint * 100000000000 AS k, sig FROM gsp;
-- 300 copies of one memo and 300 near-copies of another.
CREATE TABLE gsp_copies AS
SELECT i AS id, minhash(CASE WHEN i <= 300 THEN 'the same memo sent to everybody in the company'
                             ELSE 'a memo about the party on friday evening in the big hall number ' || i END) AS sig
  FROM generate_series(1, 600) i;
ANALYZE gsp, gsp_text, gsp_big, gsp_copies;

-- The rows of a call, in order, with the cap at its default and at 64kB:
-- how many, how many differ position by position, and what the call at
-- 64kB ended with (a refusal would be 53400).
CREATE FUNCTION pg_temp.same_rows(call text) RETURNS TABLE (rows bigint, differences bigint, at_64kb text)
LANGUAGE plpgsql AS $$
DECLARE
	in_memory text[];
	spilled text[];
	outcome text := 'ran';
BEGIN
	EXECUTE format('SELECT array_agg(c::text ORDER BY c.ordinality) FROM %s WITH ORDINALITY c', call) INTO in_memory;
	PERFORM pg_catalog.set_config('minhash.group_memory', '64kB', true);
	-- its NOTICE that it spills: checked by test/bench/group_spill_spam.sh
	PERFORM pg_catalog.set_config('client_min_messages', 'warning', true);
	BEGIN
		EXECUTE format('SELECT array_agg(c::text ORDER BY c.ordinality) FROM %s WITH ORDINALITY c', call) INTO spilled;
	EXCEPTION WHEN OTHERS THEN
		outcome := SQLSTATE;
	END;
	RESET minhash.group_memory;
	RETURN QUERY SELECT count(*), count(*) FILTER (WHERE a IS DISTINCT FROM b), outcome
	  FROM unnest(in_memory, spilled) u(a, b);
END $$;

-- Groups, text keys (the four-argument form) and typed keys, exact and with
-- a recall, at several thresholds; the threshold left out is the setting.
SET minhash.threshold = 0.65;
SELECT f.call, s.*
  FROM (SELECT format('near_dupe_groups(%L, %L, ''sig''%s)', r, k, coalesce(', ' || t, '')) AS call
          FROM (VALUES ('gsp', 'id'), ('gsp_text', 'k'), ('gsp_big', 'k')) v(r, k),
               unnest(ARRAY['0.3', '0.5', '0.7', '0.8', '0.9', '1', NULL]) t) f,
       pg_temp.same_rows(f.call) s;
SELECT f.call, s.*
  FROM (SELECT format('near_dupe_groups(%L, %L, ''sig'', %s, NULL::%s%s)', r, k, t, kt,
                      coalesce(', recall => ' || recall, '')) AS call
          FROM (VALUES ('gsp', 'id', 'int'), ('gsp', 'id', 'text'), ('gsp_text', 'k', 'text'), ('gsp_big', 'k', 'bigint')) v(r, k, kt),
               unnest(ARRAY['0.3', '0.5', '0.8', '0.95']) t,
               unnest(ARRAY['0.9', '0.99', NULL]) recall) f,
       pg_temp.same_rows(f.call) s;
-- Pairs, the same.
SELECT f.call, s.*
  FROM (SELECT format('near_dupe_pairs(%L, %L, ''sig''%s)', r, k, coalesce(', ' || t, '')) AS call
          FROM (VALUES ('gsp', 'id'), ('gsp_text', 'k'), ('gsp_big', 'k')) v(r, k),
               unnest(ARRAY['0.3', '0.5', '0.8', '1', NULL]) t) f,
       pg_temp.same_rows(f.call) s;
SELECT f.call, s.*
  FROM (SELECT format('near_dupe_pairs(%L, %L, ''sig'', %s, NULL::%s%s)', r, k, t, kt,
                      coalesce(', recall => ' || recall, '')) AS call
          FROM (VALUES ('gsp', 'id', 'int'), ('gsp_text', 'k', 'text'), ('gsp_big', 'k', 'bigint')) v(r, k, kt),
               unnest(ARRAY['0.5', '0.8']) t,
               unnest(ARRAY['0.9', NULL]) recall) f,
       pg_temp.same_rows(f.call) s;
RESET minhash.threshold;
-- Copies and near-copies: one group each; 44,850 pairs of the copies.
SELECT f.call, s.*
  FROM (VALUES ('near_dupe_groups(''gsp_copies'', ''id'', ''sig'', 0.8)'),
               ('near_dupe_groups(''gsp_copies'', ''id'', ''sig'', 0.8, NULL::int, recall => 0.99)'),
               ('near_dupe_pairs(''gsp_copies'', ''id'', ''sig'', 0.9)')) f(call),
       pg_temp.same_rows(f.call) s;

-- Spilled, the typed keys come back in their own type, not as text.
SET minhash.group_memory = '64kB';
SELECT pg_typeof(key) AS key, pg_typeof(pivot) AS pivot
  FROM near_dupe_groups('gsp_big', 'k', 'sig', 0.8, NULL::bigint) LIMIT 1;
SELECT pg_typeof(key_a) AS key_a, pg_typeof(key_b) AS key_b
  FROM near_dupe_pairs('gsp_big', 'k', 'sig', 0.8, NULL::bigint) LIMIT 1;

-- The call's settings (jit off) last only as long as it runs.
SET enable_hashagg = on;
SET jit = on;
SELECT count(*) FROM near_dupe_groups('gsp', 'id', 'sig', 0.8);
SHOW enable_hashagg;
SHOW jit;
RESET jit;

-- The keys are checked as in memory: a null key (23502) and a repeated one
-- (23505) stop the call with the same errors, as do signatures built with
-- different parameters (22000).  An error leaves the settings as they were.
CREATE TABLE gsp_null_key AS SELECT NULLIF(id, 30) AS id, sig FROM gsp;
CREATE TABLE gsp_twice AS SELECT CASE WHEN id = 31 THEN 30 ELSE id END AS id, sig FROM gsp;
CREATE TABLE gsp_mixed AS SELECT id, CASE WHEN id = 31 THEN minhash(body, 64) ELSE sig END AS sig FROM gsp;
\set SHOW_CONTEXT never
RESET minhash.group_memory;
SELECT count(*) FROM near_dupe_groups('gsp_null_key', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_groups('gsp_twice', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_pairs('gsp_twice', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_groups('gsp_mixed', 'id', 'sig', 0.8);
SET minhash.group_memory = '64kB';
SELECT count(*) FROM near_dupe_groups('gsp_null_key', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_groups('gsp_twice', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_pairs('gsp_twice', 'id', 'sig', 0.8);
SELECT count(*) FROM near_dupe_groups('gsp_mixed', 'id', 'sig', 0.8);
SHOW enable_hashagg;
\set SHOW_CONTEXT errors
RESET minhash.group_memory;
RESET enable_hashagg;

-- The spilled call keeps its rows and arrays in a temporary file, which
-- temp_file_limit caps (53400, as PostgreSQL's own files), where the same
-- call in memory writes none: at a limit below the rows (gsp: 176 rows,
-- 90 kB of signatures) the read stops; at one above the rows but below the
-- 45,242 pairs of gsp_copies at 0.9 (300 kB of rows, 530 kB of pairs), the
-- engine does.  A call that stopped leaves nothing behind: the next one
-- runs, as does one after a cancel (a statement_timeout of 1ms, wherever it
-- lands: in the read, the engine or the result, or nowhere when the call
-- is quicker), and no temporary file of this session is left.
\set VERBOSITY terse
SET minhash.group_memory = '64kB';
SET temp_file_limit = '64kB';
SELECT count(*) FROM near_dupe_groups('gsp', 'id', 'sig', 0.5);
SELECT count(*) FROM near_dupe_pairs('gsp', 'id', 'sig', 0.5, NULL::int, recall => 0.9);
SET temp_file_limit = '450kB';
SELECT count(*) FROM near_dupe_pairs('gsp_copies', 'id', 'sig', 0.9);
RESET minhash.group_memory;
SELECT count(*) FROM near_dupe_groups('gsp', 'id', 'sig', 0.5);
SELECT count(*) FROM near_dupe_pairs('gsp_copies', 'id', 'sig', 0.9);
SET minhash.group_memory = '64kB';
RESET temp_file_limit;
SELECT count(*) FROM near_dupe_groups('gsp', 'id', 'sig', 0.5);
SELECT count(*) FROM near_dupe_pairs('gsp_copies', 'id', 'sig', 0.9);
CREATE FUNCTION pg_temp.cancelled(call text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM pg_catalog.set_config('statement_timeout', '1ms', true);
	BEGIN
		EXECUTE format('SELECT count(*) FROM %s c', call);
	EXCEPTION WHEN query_canceled THEN
		NULL;
	END;
	RETURN 'done';
END $$;
SELECT pg_temp.cancelled(c) FROM (VALUES ('near_dupe_groups(''gsp'', ''id'', ''sig'', 0.5)'),
                                          ('near_dupe_pairs(''gsp_copies'', ''id'', ''sig'', 0.9)')) v(c);
SELECT count(*) FROM near_dupe_groups('gsp', 'id', 'sig', 0.5);
SELECT count(*) FROM near_dupe_pairs('gsp_copies', 'id', 'sig', 0.9);
-- and in its file again (the limit stops it), not some other way
SET temp_file_limit = '64kB';
SELECT count(*) FROM near_dupe_groups('gsp', 'id', 'sig', 0.5);
RESET temp_file_limit;
SELECT count(*) AS temporary_files_left
  FROM pg_ls_dir(current_setting('data_directory') || '/base/pgsql_tmp', true, false) f
 WHERE f LIKE 'pgsql_tmp' || pg_backend_pid() || '.%';
\set VERBOSITY default
RESET minhash.group_memory;

DROP TABLE gsp, gsp_text, gsp_big, gsp_copies, gsp_null_key, gsp_twice, gsp_mixed;
