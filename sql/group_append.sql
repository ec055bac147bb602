-- near_dupe_groups_append: the rows a stored grouping does not hold yet
-- join it without moving a stored row.  Checked at 8 thresholds against
-- the rules, in one wave and in two, with text and bigint keys, exact and
-- with recall =>.

-- Families of graded copies: member m of family f (m = 0 .. 7) replaces
-- every 8th word up to word 8m of 80, so members resemble their family's
-- first more or less by m; bridges take half of family f and half of f + 1,
-- so that they resemble two stored pivots; exact copies of a few first
-- members (for threshold 1); a few empty documents and
-- rows without a signature.  The waves are drawn across families by a hash
-- of the id, so new rows resemble stored ones, new ones, or none.
CREATE TABLE ga (id bigint PRIMARY KEY, body text, sig minhash);
INSERT INTO ga (id, body)
SELECT f * 10 + m,
       (SELECT string_agg(CASE WHEN w <= m * 8 AND w % 8 = 0 THEN 'edit' || m || '_' || w ELSE 'f' || f || 'w' || w END,
                          ' ' ORDER BY w)
          FROM generate_series(1, 80) w)
  FROM generate_series(1, 60) f, generate_series(0, 7) m;
INSERT INTO ga (id, body)
SELECT 1000 + f,
       (SELECT string_agg(CASE WHEN w <= 40 THEN 'f' || f || 'w' || w ELSE 'f' || (f + 1) || 'w' || w END, ' ' ORDER BY w)
          FROM generate_series(1, 80) w)
  FROM generate_series(1, 59) f;
INSERT INTO ga (id, body) SELECT 3000 + id / 10, body FROM ga WHERE id IN (20, 30, 40, 50, 60, 70);
INSERT INTO ga (id, body) VALUES (2001, ''), (2002, '  ...  '), (2003, ''), (2004, NULL), (2005, NULL);
UPDATE ga SET sig = minhash(body) WHERE body IS NOT NULL;
-- a stored empty document too: no new row may join it
INSERT INTO ga (id, body, sig) VALUES (9, '', minhash(''::text));
ANALYZE ga;

-- The waves: a (first grouping), b (a and more), and all of ga.
CREATE TABLE ga_a AS SELECT id, sig FROM ga WHERE hashint8(id) % 10 BETWEEN -5 AND 2 AND id < 2000;
CREATE TABLE ga_b AS SELECT id, sig FROM ga WHERE id IN (SELECT id FROM ga_a) OR hashint8(id) % 10 BETWEEN 3 AND 5;
CREATE TABLE ga_text AS SELECT id::text AS id, sig FROM ga;
SELECT (SELECT count(*) FROM ga_a) AS a, (SELECT count(*) FROM ga_b) AS b, (SELECT count(*) FROM ga) AS all_rows;

-- The checks, on tables st (the grouping before), ap (the rows appended,
-- keys as text) and src (the source appended from), at threshold t:
--   same_rows        src's signed keys are st's and ap's, none twice;
--   ids              a row of an old group id names that group's pivot;
--                    a new group id is above st's largest, and its pivot is
--                    a member of it that is its own pivot;
--   at_threshold     every member (with a non-empty set) resembles its pivot
--                    at t, the resemblance it says;
--   apart            (exact) no new pivot resembles an old pivot at t;
--   best_join        (exact) a new row that resembles an old pivot at t is
--                    in the group of the one it resembles most (ties: the
--                    smaller group id), else in a new group;
--   alone            a new row with an empty set is a new group of its own;
--                    one without a signature is not returned (same_rows
--                    counts only signed rows).
CREATE TEMP TABLE st (group_id bigint, key text, pivot text, resemblance float8);
CREATE TEMP TABLE ap (group_id bigint, key text, pivot text, resemblance float8);
CREATE TEMP TABLE src (id text, sig minhash);
CREATE FUNCTION pg_temp.check_append(t float8, exact boolean)
RETURNS TABLE (same_rows boolean, ids boolean, at_threshold boolean, apart boolean, best_join boolean, alone boolean)
LANGUAGE sql AS $$
	WITH last AS (SELECT coalesce(max(group_id), 0) AS id FROM st),
	     full_sig AS (SELECT id, sig, sig IS NOT NULL AND minhash_size(sig) > 0 AS words FROM src),
	     old_pivots AS (SELECT st.group_id, st.key, s.sig FROM st JOIN full_sig s ON s.id = st.key
	                     WHERE st.key = st.pivot AND s.words),
	     new_rows AS (SELECT ap.*, s.sig, s.words FROM ap JOIN full_sig s ON s.id = ap.key),
	     best AS (SELECT n.key, max(resemblance(n.sig, o.sig)) AS r
	                FROM new_rows n JOIN old_pivots o ON resemblance(n.sig, o.sig) >= t
	               WHERE n.words GROUP BY n.key)
	SELECT
	  (SELECT array_agg(id ORDER BY id) FROM src WHERE sig IS NOT NULL) =
	    (SELECT array_agg(key ORDER BY key) FROM (SELECT key FROM st UNION ALL SELECT key FROM ap) k),
	  NOT EXISTS (SELECT FROM ap, last WHERE ap.group_id <= last.id
	               AND NOT EXISTS (SELECT FROM st WHERE st.group_id = ap.group_id AND st.key = st.pivot AND st.pivot = ap.pivot))
	  AND NOT EXISTS (SELECT FROM ap a, last WHERE a.group_id > last.id
	               AND NOT EXISTS (SELECT FROM ap p WHERE p.group_id = a.group_id AND p.key = a.pivot AND p.pivot = p.key))
	  AND NOT EXISTS (SELECT FROM ap GROUP BY group_id HAVING count(DISTINCT pivot) > 1),
	  NOT EXISTS (SELECT FROM new_rows n JOIN full_sig p ON p.id = n.pivot
	               WHERE n.words AND NOT (resemblance(n.sig, p.sig) >= t AND resemblance(n.sig, p.sig) = n.resemblance)),
	  NOT exact OR NOT EXISTS (SELECT FROM new_rows n, last, old_pivots o
	               WHERE n.group_id > last.id AND n.key = n.pivot AND n.words AND resemblance(n.sig, o.sig) >= t),
	  NOT exact OR NOT EXISTS (SELECT FROM new_rows n LEFT JOIN best b USING (key), last
	               WHERE n.words AND CASE WHEN b.r IS NULL THEN n.group_id <= last.id
	                    ELSE n.group_id > last.id OR n.resemblance <> b.r
	                      OR n.group_id <> (SELECT min(o.group_id) FROM old_pivots o WHERE resemblance(n.sig, o.sig) = b.r) END),
	  NOT EXISTS (SELECT FROM new_rows n, last WHERE NOT n.words
	               AND (n.group_id <= last.id OR n.key <> n.pivot OR n.sig IS NULL
	                    OR EXISTS (SELECT FROM ap x WHERE x.group_id = n.group_id AND x.key <> n.key)))
$$;

-- One append after a grouping of wave a, and two (b, then the rest), with
-- text keys; each append's checks, and after the last the rows are those
-- of a full regrouping of ga; batch: the new groups of each append are
-- those near_dupe_groups makes of their rows alone (rest); joined and
-- new_groups (of the last append) show that both rules were at work.
CREATE TEMP TABLE rest (id bigint, sig minhash);
CREATE FUNCTION pg_temp.run(t float8, recall float8 DEFAULT NULL)
RETURNS TABLE (threshold float8, waves int, same_rows boolean, ids boolean, at_threshold boolean, apart boolean,
               best_join boolean, alone boolean, batch boolean, full_rows boolean, joined bigint, new_groups bigint)
LANGUAGE plpgsql AS $$
DECLARE
	wave regclass;
	r record;
	last_id bigint;
	batch boolean;
	all_batch boolean;
BEGIN
	FOR n IN 1 .. 2 LOOP
		TRUNCATE st;
		INSERT INTO st SELECT * FROM near_dupe_groups('ga_a', 'id', 'sig', t);
		all_batch := true;
		FOREACH wave IN ARRAY CASE n WHEN 1 THEN ARRAY['ga'::regclass] ELSE ARRAY['ga_b'::regclass, 'ga'] END LOOP
			TRUNCATE ap, src;
			EXECUTE format('INSERT INTO src SELECT id::text, sig FROM %s', wave);
			IF recall IS NULL THEN
				INSERT INTO ap SELECT * FROM near_dupe_groups_append('st', wave, 'id', 'sig', t);
			ELSE
				INSERT INTO ap SELECT g.group_id, g.key::text, g.pivot::text, g.resemblance
				  FROM near_dupe_groups_append('st', wave, 'id', 'sig', t, NULL::bigint, recall) g;
			END IF;
			SELECT c.*, (SELECT count(*) FROM ap WHERE group_id <= (SELECT max(group_id) FROM st)) AS joined,
				   (SELECT count(DISTINCT group_id) FROM ap WHERE group_id > (SELECT max(group_id) FROM st)) AS new_groups
			  INTO r FROM pg_temp.check_append(t, recall IS NULL) c;
			last_id := (SELECT coalesce(max(group_id), 0) FROM st);
			TRUNCATE rest;
			INSERT INTO rest SELECT s.id::bigint, s.sig FROM src s JOIN ap ON ap.key = s.id WHERE ap.group_id > last_id;
			SELECT (SELECT array_agg(ROW(ap.key, ap.pivot, ap.resemblance)::text ORDER BY ap.key) FROM ap WHERE ap.group_id > last_id)
			       IS NOT DISTINCT FROM
			       (SELECT array_agg(ROW(g.key, g.pivot, g.resemblance)::text ORDER BY g.key)
			          FROM near_dupe_groups('rest', 'id', 'sig', t, NULL::text, recall) g)
			  INTO batch;
			all_batch := all_batch AND batch;
			INSERT INTO st SELECT * FROM ap;
		END LOOP;
		RETURN QUERY SELECT t, n, r.same_rows, r.ids, r.at_threshold, r.apart, r.best_join, r.alone, all_batch,
			(SELECT array_agg(key ORDER BY key) FROM st) =
			(SELECT array_agg(key ORDER BY key) FROM near_dupe_groups('ga', 'id', 'sig', t) WHERE resemblance IS NOT NULL),
			r.joined, r.new_groups;
	END LOOP;
END
$$;

-- (The unsigned rows' notice is shown once, below.)
SET client_min_messages = warning;
SELECT r.* FROM unnest(ARRAY[0.3, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 1.0]) t, pg_temp.run(t) r;

-- With recall => (bigint keys): the guaranteed rules; apart and best_join
-- hold for the pairs that share a band, so they are not asserted.
SELECT r.threshold, r.waves, r.same_rows, r.ids, r.at_threshold, r.alone, r.batch, r.full_rows, r.joined, r.new_groups
  FROM (VALUES (0.6, 0.99), (0.8, 0.9)) v(t, recall), pg_temp.run(v.t, v.recall) r;

-- Stored keys as the key column's own type (bigint) and as text; the
-- appended rows are the same either way.
CREATE TABLE st_big AS SELECT * FROM near_dupe_groups('ga_a', 'id', 'sig', 0.7, NULL::bigint);
CREATE TABLE st_text AS SELECT * FROM near_dupe_groups('ga_a', 'id', 'sig', 0.7);
SELECT (SELECT array_agg(ROW(group_id, key::text, pivot::text, resemblance) ORDER BY key)
          FROM near_dupe_groups_append('st_big', 'ga', 'id', 'sig', 0.7, NULL::bigint)) =
       (SELECT array_agg(ROW(group_id, key, pivot, resemblance) ORDER BY key::bigint)
          FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7)) AS same_rows;
-- A text key column, stored with text keys.
CREATE TABLE st_tk AS SELECT * FROM near_dupe_groups('ga_text', 'id', 'sig', 0.7) WHERE key::bigint IN (SELECT id FROM ga_a);
SELECT pg_typeof(key) AS key_type, count(*) AS rows,
       count(*) = (SELECT count(*) FROM ga WHERE sig IS NOT NULL) - (SELECT count(*) FROM st_tk) AS all_new_rows
  FROM near_dupe_groups_append('st_tk', 'ga_text', 'id', 'sig', 0.7, NULL::text) GROUP BY 1;

-- The threshold defaults to the setting.
SET minhash.threshold = 0.7;
SELECT (SELECT array_agg(ROW(g.*) ORDER BY key) FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig') g) =
       (SELECT array_agg(ROW(g.*) ORDER BY key) FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7) g) AS default_threshold;
RESET minhash.threshold;

-- A stored grouping that holds every row: nothing to append.
SELECT count(*) FROM near_dupe_groups_append('st_text', 'ga_a', 'id', 'sig', 0.7);
-- An empty stored grouping: the rows are near_dupe_groups' own, ids from 1.
CREATE TABLE st_empty (LIKE st_text);
SELECT (SELECT array_agg(ROW(g.*) ORDER BY key) FROM near_dupe_groups_append('st_empty', 'ga_a', 'id', 'sig', 0.7) g) =
       (SELECT array_agg(ROW(g.*) ORDER BY key) FROM near_dupe_groups('ga_a', 'id', 'sig', 0.7) g) AS as_near_dupe_groups;

-- Under row-level security the stored rows stream through a cursor, so that
-- the policy applies as it does to the new rows: the rows the policy shows
-- append as the same rows of a plain table would.
CREATE TABLE ga_rls AS SELECT id, sig FROM ga;
CREATE TABLE ga_even AS SELECT id, sig FROM ga WHERE id % 2 = 0;
ALTER TABLE ga_rls ENABLE ROW LEVEL SECURITY;
CREATE POLICY ga_even_only ON ga_rls FOR SELECT USING (id % 2 = 0);
CREATE ROLE regress_ga_reader;
GRANT SELECT ON ga_rls, ga_even, st_text TO regress_ga_reader;
SET ROLE regress_ga_reader;
SELECT (SELECT array_agg(ROW(g.*) ORDER BY key) FROM near_dupe_groups_append('st_text', 'ga_rls', 'id', 'sig', 0.5) g) =
       (SELECT array_agg(ROW(g.*) ORDER BY key) FROM near_dupe_groups_append('st_text', 'ga_even', 'id', 'sig', 0.5) g) AS same_rows,
       (SELECT count(*) FROM near_dupe_groups_append('st_text', 'ga_rls', 'id', 'sig', 0.5) WHERE group_id <= (SELECT max(group_id) FROM st_text)) > 0 AS some_joined;
RESET ROLE;
DROP TABLE ga_rls, ga_even;
REVOKE SELECT ON st_text FROM regress_ga_reader;
DROP ROLE regress_ga_reader;

-- Which rows are new.  For an integer key with an index, the stored keys
-- mark their slots over the source's key range; the new keys are then the
-- empty slots, where they are few (ga_low: keys below 1000, whose gaps,
-- ids ending in 8 or 9, are keys without a row), else the source's keys
-- whose slot is empty; where the slots would pass work_mem (ga_sparse, a
-- key of 5 billion) an anti-join runs.  Either way a row is new when no
-- stored key equals it as the stored keys compare: as text for a text
-- group table, so that '007', '+7', ' 7' or '-0' name no integer key.
CREATE TABLE st_odd AS SELECT * FROM st_text;
UPDATE st_odd SET key = CASE key::bigint % 5 WHEN 0 THEN '0' || key WHEN 1 THEN '+' || key
                                            WHEN 2 THEN ' ' || key ELSE key || ' ' END
 WHERE key::bigint % 7 = 0;
INSERT INTO st_odd VALUES (900001, '-0', '-0', 1), (900002, '99999999999999999999', '99999999999999999999', 1),
                          (900003, '-9223372036854775808', '-9223372036854775808', 1), (900004, '', '', 1);
CREATE FUNCTION pg_temp.new_keys_as_compared(st regclass, src regclass) RETURNS boolean
LANGUAGE plpgsql AS $$
DECLARE
	appended bigint[];
	expected bigint[];
BEGIN
	EXECUTE format('SELECT array_agg(key::bigint ORDER BY key::bigint) FROM near_dupe_groups_append(%L, %L, ''id'', ''sig'', 0.7)',
				   st, src) INTO appended;
	EXECUTE format('SELECT array_agg(s.id::bigint ORDER BY s.id) FROM %s s WHERE s.sig IS NOT NULL AND NOT EXISTS (SELECT FROM %s g WHERE g.key = s.id::text)',
				   src, st) INTO expected;
	RETURN appended IS NOT DISTINCT FROM expected;
END $$;
CREATE TABLE ga_low (id bigint PRIMARY KEY, sig minhash);
INSERT INTO ga_low SELECT id, sig FROM ga WHERE id < 1000;
CREATE TABLE ga_sparse (id bigint PRIMARY KEY, sig minhash);
INSERT INTO ga_sparse SELECT id, sig FROM ga UNION ALL SELECT 5000000000, minhash('a key far from the others'::text);
-- int4 and int2 keys, and a domain over bigint, each with its primary key
CREATE TABLE ga_i4 (id int4 PRIMARY KEY, sig minhash);
INSERT INTO ga_i4 SELECT id, sig FROM ga;
CREATE TABLE ga_i2 (id int2 PRIMARY KEY, sig minhash);
INSERT INTO ga_i2 SELECT id, sig FROM ga;
CREATE DOMAIN ga_id AS bigint CHECK (VALUE > 0);
CREATE TABLE ga_dom (id ga_id PRIMARY KEY, sig minhash);
INSERT INTO ga_dom SELECT id, sig FROM ga;
-- a stored grouping with 10,000 more keys, none in the source's range
CREATE TABLE st_many AS SELECT * FROM st_odd UNION ALL SELECT 1000000 + i, (100000 + i)::text, (100000 + i)::text, 1
                                                        FROM generate_series(1, 10000) i;
SET work_mem = '64kB';
SELECT src, st, pg_temp.new_keys_as_compared(st, src) AS same_new_keys
  FROM (VALUES ('ga'), ('ga_low'), ('ga_sparse'), ('ga_i4'), ('ga_i2'), ('ga_dom')) a(src),
       (VALUES ('st_text'), ('st_odd'), ('st_many')) b(st)
 ORDER BY 1, 2;
RESET work_mem;
-- The stored pivots and their groups come with the stored keys (the
-- slots), else from a query (no index on the key: ga_noix): the same rows
-- either way, at 0.5, where many join.  st_twice stores keys twice, as
-- pivots of two groups (the smaller joins); st_far has a group_id beyond
-- a slot's range (then the query); st_i4 stores int4 keys.
CREATE TABLE ga_noix AS SELECT id, sig FROM ga;
CREATE TABLE ga_low_noix AS SELECT id, sig FROM ga_low;
CREATE TABLE ga_i4_noix AS SELECT id, sig FROM ga_i4;
CREATE TABLE st_twice AS SELECT * FROM st_text UNION ALL
                         SELECT group_id + 100000, key, pivot, resemblance FROM st_text WHERE key = pivot AND key::bigint % 3 = 0;
CREATE TABLE st_far AS SELECT CASE WHEN key::bigint % 2 = 0 THEN group_id + 5000000000 ELSE group_id END AS group_id,
                              key, pivot, resemblance FROM st_text;
CREATE TABLE st_i4 AS SELECT group_id, key::int4 AS key, pivot::int4 AS pivot, resemblance FROM st_text;
CREATE FUNCTION pg_temp.appended(st regclass, src regclass, key_type text) RETURNS text[]
LANGUAGE plpgsql AS $$
DECLARE
	result text[];
BEGIN
	EXECUTE format('SELECT array_agg(ROW(g.*)::text ORDER BY g.key) FROM near_dupe_groups_append(%L, %L, ''id'', ''sig'', 0.5%s) g',
				   st, src, CASE WHEN key_type IS NULL THEN '' ELSE ', NULL::' || key_type END) INTO result;
	RETURN result;
END $$;
SELECT st, src, pg_temp.appended(st, src, key_type) = pg_temp.appended(st, noix, key_type) AS same_rows,
       (SELECT count(*) FROM unnest(pg_temp.appended(st, src, key_type)) r(t)
         WHERE split_part(trim(r.t, '()'), ',', 1)::bigint <= (SELECT max(group_id) FROM st_text)) > 0 AS some_joined
  FROM (VALUES ('st_text', 'ga', 'ga_noix', NULL), ('st_twice', 'ga', 'ga_noix', NULL), ('st_odd', 'ga', 'ga_noix', NULL),
               ('st_far', 'ga', 'ga_noix', NULL), ('st_text', 'ga_low', 'ga_low_noix', NULL),
               ('st_i4', 'ga_i4', 'ga_i4_noix', 'int4')) v(st, src, noix, key_type)
 ORDER BY 1, 2;
-- a null key and a repeated key are refused as the read refuses them
CREATE TABLE ga_null_ix AS SELECT id, sig FROM ga;
CREATE INDEX ON ga_null_ix (id);
INSERT INTO ga_null_ix VALUES (NULL, minhash('a key that is null'::text));
SELECT * FROM near_dupe_groups_append('st_text', 'ga_null_ix', 'id', 'sig', 0.7);
CREATE TABLE ga_dup_ix AS SELECT id, sig FROM ga;
CREATE INDEX ON ga_dup_ix (id);
INSERT INTO ga_dup_ix SELECT id, sig FROM ga WHERE id = 17;
SELECT * FROM near_dupe_groups_append('st_text', 'ga_dup_ix', 'id', 'sig', 0.7);
DROP TABLE st_odd, st_many, st_twice, st_far, st_i4, ga_low, ga_sparse, ga_noix, ga_low_noix, ga_i4_noix, ga_i4, ga_i2, ga_dom,
           ga_null_ix, ga_dup_ix;
DROP DOMAIN ga_id;

RESET client_min_messages;

-- Rows without a signature are left out, with a notice; signed, a later
-- append places them.
CREATE TABLE st_unsigned AS SELECT * FROM near_dupe_groups('ga_a', 'id', 'sig', 0.7);
CREATE TABLE ga_unsigned AS SELECT id, sig FROM ga;
INSERT INTO st_unsigned SELECT * FROM near_dupe_groups_append('st_unsigned', 'ga_unsigned', 'id', 'sig', 0.7);
SELECT count(*) AS stored_unsigned FROM st_unsigned WHERE resemblance IS NULL OR key IN ('2004', '2005');
UPDATE ga_unsigned SET sig = minhash('now signed ' || id) WHERE sig IS NULL;
SELECT key, key = pivot AS own_group, group_id > (SELECT max(group_id) FROM st_unsigned) AS new_group, resemblance
  FROM near_dupe_groups_append('st_unsigned', 'ga_unsigned', 'id', 'sig', 0.7) ORDER BY key;
DROP TABLE st_unsigned, ga_unsigned;

-- An append holds SHARE UPDATE EXCLUSIVE on the group table to the end of
-- its transaction (test/isolation/specs/append_concurrent.spec: two at
-- once); a read-only transaction, which cannot store the rows, takes none.
SET client_min_messages = warning;
BEGIN;
SELECT count(*) > 0 AS appended FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7);
SELECT mode FROM pg_locks WHERE relation = 'st_text'::regclass AND pid = pg_backend_pid() AND granted ORDER BY mode;
COMMIT;
BEGIN READ ONLY;
SELECT count(*) > 0 AS appended FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7);
SELECT mode FROM pg_locks WHERE relation = 'st_text'::regclass AND pid = pg_backend_pid() AND granted ORDER BY mode;
COMMIT;
RESET client_min_messages;

-- A threshold that the stored grouping contradicts is refused: st_text was
-- grouped at 0.7, so a member resembles its pivot below 0.9.  At the
-- grouping's own threshold, or below, it runs.
SELECT min(resemblance) >= 0.7 AND min(resemblance) < 0.9 AS lowest_member_between
  FROM st_text WHERE key <> pivot;
SELECT count(*) > 0 AS appended FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7);
SELECT count(*) > 0 AS appended FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.5);

-- Errors.
\set VERBOSITY default
SELECT * FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.9);
-- (the same check where the stored keys are read by a query: no index on
-- the source's key, or a group table whose resemblance is numeric)
CREATE TABLE ga_noix2 AS SELECT id, sig FROM ga;
SELECT * FROM near_dupe_groups_append('st_big', 'ga_noix2', 'id', 'sig', 0.9, NULL::bigint);
CREATE TABLE st_num AS SELECT group_id, key, pivot, resemblance::numeric AS resemblance FROM st_text;
SELECT * FROM near_dupe_groups_append('st_num', 'ga', 'id', 'sig', 0.9);
SELECT count(*) > 0 AS appended FROM near_dupe_groups_append('st_num', 'ga', 'id', 'sig', 0.7);
CREATE TABLE st_no_pivot AS SELECT group_id, key, resemblance FROM st_text;
SELECT * FROM near_dupe_groups_append('st_no_pivot', 'ga', 'id', 'sig', 0.7);
CREATE TABLE st_bad_id AS SELECT group_id::text AS group_id, key, pivot, resemblance FROM st_text;
SELECT * FROM near_dupe_groups_append('st_bad_id', 'ga', 'id', 'sig', 0.7);
CREATE TABLE st_int_key AS SELECT group_id, key::int AS key, pivot::int AS pivot, resemblance FROM st_text;
SELECT * FROM near_dupe_groups_append('st_int_key', 'ga', 'id', 'sig', 0.7);
SELECT * FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', NULL);
SELECT * FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', NULL, NULL::bigint);
SELECT * FROM near_dupe_groups_append(NULL, 'ga', 'id', 'sig', 0.7);
SELECT * FROM near_dupe_groups_append('st_text', 'ga', 'id', 'nope', 0.7);
SELECT * FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7, NULL::int);
SELECT * FROM near_dupe_groups_append('st_text', 'ga', 'id', 'sig', 0.7, NULL::bigint, 1.5);
CREATE TABLE ga_dup AS SELECT * FROM ga;
INSERT INTO ga_dup SELECT * FROM ga WHERE id = 17;
SELECT * FROM near_dupe_groups_append('st_text', 'ga_dup', 'id', 'sig', 0.7);
CREATE TABLE ga_null AS SELECT id::int AS id, sig FROM ga;
INSERT INTO ga_null VALUES (NULL, minhash('a key that is null'::text));
SELECT * FROM near_dupe_groups_append('st_text', 'ga_null', 'id', 'sig', 0.7);
-- What it holds is counted against minhash.group_memory: the new rows here
-- take more than 64kB.
-- (The figures in kB are shown as N: the allocator's block sizes differ
-- between PostgreSQL versions.)
SET minhash.group_memory = '64kB';
DO $$
DECLARE
	message text;
	detail text;
	hint text;
BEGIN
	PERFORM count(*) FROM near_dupe_groups_append('st_empty', 'ga', 'id', 'sig', 0.7);
	RAISE NOTICE 'not refused';
EXCEPTION WHEN configuration_limit_exceeded THEN
	GET STACKED DIAGNOSTICS message = MESSAGE_TEXT, detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
	RAISE NOTICE E'53400: %\nDETAIL: %\nHINT: %', regexp_replace(message, '\d+ kB of', 'N kB of'),
		regexp_replace(detail, '\d+ kB', 'N kB'), regexp_replace(hint, '\d+kB', 'NkB');
END $$;
RESET minhash.group_memory;

DROP TABLE ga_noix2, st_num;
DROP TABLE ga, ga_a, ga_b, ga_text, st_big, st_text, st_tk, st_empty, st_no_pivot, st_bad_id, st_int_key, ga_dup, ga_null;
