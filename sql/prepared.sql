-- Prepared statements: a generic plan (drivers switch to it after five
-- executions; here plan_cache_mode = force_generic_plan) cannot see a
-- threshold given as a parameter.  Below what the index's layout guarantees,
-- a gin_minhash_ops scan reads every posting list, several times the work of
-- a sequential scan, so such a plan must scan the table; with the threshold
-- a constant the index keeps serving it.  Timings: test/bench/prepared_threshold.sh.
CREATE TABLE prepared_docs (id int PRIMARY KEY, body text, sig minhash);
-- 4,000 documents of 40 words from a 3,000-word vocabulary; every tenth
-- repeats the one before with its last word changed.
INSERT INTO prepared_docs (id, body)
SELECT d, (SELECT string_agg('w' || ((hashint4(CASE WHEN d % 10 = 0 AND w < 40 THEN d - 1 ELSE d END * 64 + w)
                                      & 2147483647) % 3000), ' ' ORDER BY w)
             FROM generate_series(1, 40) w)
  FROM generate_series(1, 4000) d;
UPDATE prepared_docs SET sig = minhash(body);
CREATE INDEX prepared_docs_sig ON prepared_docs USING gin (sig gin_minhash_ops) WITH (fastupdate = off);
ANALYZE prepared_docs;
SELECT sig AS probe FROM prepared_docs WHERE id = 99 \gset

-- EXPLAIN ANALYZE of a statement, without timing or buffers.
CREATE FUNCTION pg_temp.plan_lines(statement text) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF, ANALYZE, TIMING OFF, SUMMARY OFF, BUFFERS OFF) ' || statement LOOP
        RETURN NEXT line;
    END LOOP;
END $$;

-- The scans of a plan, outermost first, and the index each reads.
CREATE FUNCTION pg_temp.scans(statement text) RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
    plan json;
    result text := '';
BEGIN
    EXECUTE 'EXPLAIN (COSTS OFF, FORMAT JSON) ' || statement INTO plan;
    WITH RECURSIVE node(n, depth) AS (
        SELECT plan -> 0 -> 'Plan', 0
        UNION ALL
        SELECT child, depth + 1 FROM node, json_array_elements(n -> 'Plans') child)
    SELECT string_agg((n ->> 'Node Type') || coalesce(' on ' || (n ->> 'Index Name'), ''), ' / ' ORDER BY depth)
      INTO result FROM node WHERE n ->> 'Node Type' LIKE '%Scan';
    RETURN result;
END $$;

SET plan_cache_mode = force_generic_plan;
PREPARE by_threshold(minhash, float8) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(sig, $1, $2);
PREPARE at_08(minhash) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(sig, $1, 0.8);
PREPARE at_03(minhash) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(sig, $1, 0.3);

-- The threshold a parameter: the generic plan scans the table (1.0: a
-- Bitmap Heap Scan reading the whole index at 0.3).
EXPLAIN (COSTS OFF) EXECUTE by_threshold(:'probe', 0.3);
-- (Counts and bounds rather than an ordered array_agg: from PostgreSQL 16 an
-- ordered aggregate may read the primary key index to skip the sort.
-- PostgreSQL 18 prints actual rows with two decimals and buffers by default:
-- the plan's lines are printed as before 18.)
SELECT regexp_replace(line, '(actual rows=[0-9]+)\.00 ', '\1 ', 'g') AS "QUERY PLAN"
  FROM pg_temp.plan_lines(format('EXECUTE by_threshold(%L, 0.3)', :'probe')) line;
EXECUTE by_threshold(:'probe', 0.3);
EXECUTE by_threshold(:'probe', 0.9);

-- The threshold a constant the index narrows: the generic plan uses it.
EXPLAIN (COSTS OFF) EXECUTE at_08(:'probe');
EXECUTE at_08(:'probe');

-- A constant below what the index narrows (layout 1: 0.8, see
-- lsh_index_layout): the generic plan scans the table.
EXPLAIN (COSTS OFF) EXECUTE at_03(:'probe');

-- An index built for a lower threshold narrows 0.6, and the generic plan
-- takes it.
DROP INDEX prepared_docs_sig;
CREATE INDEX prepared_docs_sig_05 ON prepared_docs USING gin (sig gin_minhash_ops (threshold = 0.5)) WITH (fastupdate = off);
PREPARE at_06(minhash) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(sig, $1, 0.6);
EXPLAIN (COSTS OFF) EXECUTE at_06(:'probe');
EXPLAIN (COSTS OFF) EXECUTE at_03(:'probe');

-- The same for an expression index, where the signature is built in the
-- query.
DROP INDEX prepared_docs_sig_05;
CREATE INDEX prepared_docs_body ON prepared_docs USING gin (minhash(body) gin_minhash_ops) WITH (fastupdate = off);
ANALYZE prepared_docs;
PREPARE body_by_threshold(minhash, float8) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(minhash(body), $1, $2);
PREPARE body_at_08(minhash) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(minhash(body), $1, 0.8);
EXPLAIN (COSTS OFF) EXECUTE body_by_threshold(:'probe', 0.3);
EXPLAIN (COSTS OFF) EXECUTE body_at_08(:'probe');
EXECUTE body_at_08(:'probe');

-- Custom plans are planned with the threshold's value, as before: the index
-- at 0.8.  In mode auto (what drivers get) the plan cache compares the
-- generic plan's cost with the custom plans', and keeps planning the
-- cheaper index scans at 0.8 after the fifth execution.
DROP INDEX prepared_docs_body;
CREATE INDEX prepared_docs_sig ON prepared_docs USING gin (sig gin_minhash_ops) WITH (fastupdate = off);
SET plan_cache_mode = force_custom_plan;
SELECT pg_temp.scans(format('EXECUTE by_threshold(%L, 0.8)', :'probe'));
SELECT pg_temp.scans(format('EXECUTE by_threshold(%L, 0.3)', :'probe'));
SET plan_cache_mode = auto;
DEALLOCATE by_threshold;
PREPARE by_threshold(minhash, float8) AS
  SELECT count(*) AS matches, min(id), max(id) FROM prepared_docs WHERE resembles(sig, $1, $2);
EXECUTE by_threshold(:'probe', 0.8);
EXECUTE by_threshold(:'probe', 0.8);
EXECUTE by_threshold(:'probe', 0.8);
EXECUTE by_threshold(:'probe', 0.8);
EXECUTE by_threshold(:'probe', 0.8);
EXECUTE by_threshold(:'probe', 0.8);
SELECT pg_temp.scans(format('EXECUTE by_threshold(%L, 0.8)', :'probe'));
-- (pg_prepared_statements counts plans from PostgreSQL 14 on: on 13 this
-- query fails, expected/prepared_1.out.)
SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = 'by_threshold';

-- The estimator never fails planning, whatever the other operand.
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF)
SELECT a.id FROM prepared_docs a JOIN prepared_docs b ON a.sig %> minhash_query(b.sig, b.id / 4000.0 + 0.1) WHERE b.id = 99;

-- minhash_query keeps the value it built for the arguments of its last call,
-- so that a generic plan's scan builds it once, not once per row.  Every
-- execution of a generic plan with other parameter values, and a scan whose
-- arguments change from row to row, returns what resemblance() says.
PREPARE again(minhash, float8) AS
  SELECT (count(*), min(id), max(id))::text FROM prepared_docs WHERE resembles(sig, $1, $2);
EXPLAIN (COSTS OFF) EXECUTE again(:'probe', 0.3);
CREATE FUNCTION pg_temp.executions() RETURNS TABLE (run int, probe int, threshold float8, plan_says text, resemblance_says text)
LANGUAGE plpgsql AS $$
DECLARE
    probe_sig minhash;
BEGIN
    FOR run, probe, threshold IN
        SELECT * FROM (VALUES (1, 99, 0.3), (2, 100, 0.3), (3, 100, 1.0), (4, 99, 1.0), (5, 99, 0.3),
                              (6, 1234, 0.3), (7, 99, 0.3)) v ORDER BY 1
    LOOP
        SELECT d.sig INTO probe_sig FROM prepared_docs d WHERE d.id = probe;
        EXECUTE format('EXECUTE again(%L, %s)', probe_sig, threshold) INTO plan_says;
        SELECT (count(*), min(d.id), max(d.id))::text INTO resemblance_says
          FROM prepared_docs d WHERE resemblance(d.sig, probe_sig) >= threshold;
        RETURN NEXT;
    END LOOP;
END $$;
SELECT * FROM pg_temp.executions();
-- Within one scan: a join on resembles() is a nested loop, whose filter
-- calls minhash_query with each pair's values: the signature and the
-- threshold of each row of a, or one signature with two thresholds in turn.
SET enable_bitmapscan = off;
SET enable_indexscan = off;
PREPARE per_row(float8) AS
  SELECT string_agg(id || ':' || matches, ' ' ORDER BY id) FROM (
    SELECT a.id, count(b.id) AS matches
      FROM prepared_docs a JOIN prepared_docs b ON resembles(b.sig, a.sig, CASE WHEN a.id % 3 = 0 THEN 1.0 ELSE $1 END)
     WHERE a.id BETWEEN 95 AND 104 GROUP BY a.id) s;
EXECUTE per_row(0.3);
SELECT string_agg(id || ':' || matches, ' ' ORDER BY id) AS resemblance_says FROM (
    SELECT a.id, count(b.id) AS matches
      FROM prepared_docs a JOIN prepared_docs b
        ON resemblance(b.sig, a.sig) >= CASE WHEN a.id % 3 = 0 THEN 1.0 ELSE 0.3 END
     WHERE a.id BETWEEN 95 AND 104 GROUP BY a.id) s;
PREPARE per_threshold(minhash) AS
  SELECT string_agg(t || ':' || matches, ' ' ORDER BY t) FROM (
    SELECT t.t, count(b.id) AS matches
      FROM (VALUES (0.3::float8), (1.0), (0.5)) t (t) JOIN prepared_docs b ON resembles(b.sig, $1, t.t)
     GROUP BY t.t) s;
EXECUTE per_threshold(:'probe');
SELECT string_agg(t || ':' || matches, ' ' ORDER BY t) AS resemblance_says FROM (
    SELECT t.t, count(b.id) AS matches
      FROM (VALUES (0.3::float8), (1.0), (0.5)) t (t) JOIN prepared_docs b ON resemblance(b.sig, :'probe') >= t.t
     GROUP BY t.t) s;
RESET enable_bitmapscan;
RESET enable_indexscan;

RESET plan_cache_mode;
DEALLOCATE ALL;

-- The flagging trigger's lookups read a GIN index's pending list, so with
-- fastupdate on (GIN's default) every row loaded slows the next lookups
-- (test/bench/trigger_index.sh).  The trigger says so once per session, with
-- the way out; an index WITH (fastupdate = off), as the README makes it, is
-- quiet.
CREATE TABLE prepared_flags (id int PRIMARY KEY, sig minhash, dup_of int);
CREATE INDEX prepared_flags_sig ON prepared_flags USING gin (sig);
CREATE TRIGGER flag BEFORE INSERT ON prepared_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
INSERT INTO prepared_flags SELECT id, sig FROM prepared_docs WHERE id BETWEEN 95 AND 100;
INSERT INTO prepared_flags SELECT id, sig FROM prepared_docs WHERE id BETWEEN 195 AND 200;
SELECT id, dup_of FROM prepared_flags WHERE dup_of IS NOT NULL ORDER BY id;
ALTER INDEX prepared_flags_sig SET (fastupdate = off);
SELECT gin_clean_pending_list('prepared_flags_sig') > 0 AS cleaned;
TRUNCATE prepared_flags;
DROP TRIGGER flag ON prepared_flags;
CREATE TRIGGER flag BEFORE INSERT ON prepared_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
INSERT INTO prepared_flags SELECT id, sig FROM prepared_docs WHERE id BETWEEN 95 AND 100;
SELECT id, dup_of FROM prepared_flags WHERE dup_of IS NOT NULL ORDER BY id;
DROP TABLE prepared_flags, prepared_docs;
