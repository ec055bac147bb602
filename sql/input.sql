-- Everyday use: building signatures from any string column, untyped input,
-- messages that quote a short prefix only, settings, and helpful errors.

-- 1. minhash(x) of every string type.  A one-argument call named like a type
-- (minhash) with no exact match is read as a cast to that type; varchar and
-- char(n) have exact overloads now, the same C function as minhash(text).
CREATE TABLE input_docs (id int PRIMARY KEY, v varchar, c char(60), t text, sig minhash(64));
INSERT INTO input_docs VALUES
  (1, 'the quick brown fox jumps over the lazy dog', 'the quick brown fox jumps over the lazy dog',
      'the quick brown fox jumps over the lazy dog', NULL),
  (2, 'Ünïcode wörds — and   spaces  ', 'Ünïcode wörds — and   spaces  ', 'Ünïcode wörds — and   spaces  ', NULL);
SELECT id,
       minhash(v) = minhash(t) AS varchar_same,
       minhash(c) = minhash(t) AS char_same,
       minhash(c, 64, 2, 7) = minhash(t, 64, 2, 7) AS char_args_same,
       minhash(doc => v, shingle_size => 3) = minhash(t, 128, 3) AS named_same,
       minhash_chars(v) = minhash_chars(t) AS chars_varchar,
       minhash_chars(c, 3) = minhash_chars(t, 3) AS chars_char,
       minhash_char_shingles(c) = minhash_char_shingles(t) AS char_shingles
  FROM input_docs ORDER BY id;
-- The everyday statement of the issue, and into a typmod column.
UPDATE input_docs SET sig = minhash(v, 64);
UPDATE input_docs SET sig = minhash(c, 64);
SELECT id, minhash_num_perm(sig), sig = minhash(t, 64) AS same FROM input_docs ORDER BY id;

-- Which function each spelling resolves to (the functions a view depends
-- on): the new overloads change no call that resolved before.
CREATE FUNCTION pg_temp.resolved(expr text) RETURNS SETOF regprocedure LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TEMP VIEW resolved_view AS SELECT %s AS x FROM input_docs', expr);
	RETURN QUERY SELECT DISTINCT d.refobjid::regprocedure FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
				  WHERE r.ev_class = 'resolved_view'::regclass AND d.refclassid = 'pg_proc'::regclass
				  ORDER BY 1;
	DROP VIEW resolved_view;
END $$;
-- Spellings of minhash 1.0 (minhash(v) and minhash(c) were casts).
SELECT e AS spelling, pg_temp.resolved(e) AS resolves_to
  FROM unnest(ARRAY[
	'minhash(t)', 'minhash(t, 64)', 'minhash(doc => t)', 'minhash(''a b c'', 64)',
	'minhash(doc => ''a b c'')', 'minhash(''a b c''::text)', 'minhash(v)', 'minhash(c)',
	'minhash(v::text)', 'minhash(doc => v)', 'minhash(ARRAY[''a'', ''b''])', 'minhash(ARRAY[v, t])',
	'minhash(NULL::text[])', 'minhash(elements => ARRAY[''a''])', 'minhash(sig, 32, true)',
	'minhash_chars(v)', 'minhash_chars(c, 3)',
	'resemblance(sig, sig)', 'resemblance(sig, minhash(t, 64))', 'resemblance(NULL, sig)']) e;
-- Spellings new in 1.1.
SELECT e AS spelling, pg_temp.resolved(e) AS resolves_to
  FROM unnest(ARRAY['minhash_set(ARRAY[v])', 'minhash_set(''{a,b}'')', 'resemblance(sig, NULL)',
					'resemblance(sig, t)', 'resemblance(sig, v)']) e;
-- (resemblance(sig, NULL) resolves to resemblance(minhash, text) now, where
-- it resolved to resemblance(minhash, minhash): both are strict, so null.)
-- The typmod cast still applies.
SELECT minhash_num_perm(minhash('a b c'::text, 64)::minhash(64));
SELECT minhash('a b c'::text)::minhash(64);

-- 2. An untyped literal is still a cast (PostgreSQL's rule); its error says
-- how to spell the call.  A damaged literal gets no such hint.
SELECT minhash('some text to sign');
SELECT minhash('very short');
SELECT 'another document'::minhash;
SELECT minhash('v1:words:k=5');
-- The spellings the hint gives.
SELECT minhash_kind(minhash('some text to sign'::text)), minhash_kind(minhash(doc => 'some text to sign'));

-- 3. No message quotes more than 40 characters of its input (then "...").
-- One megabyte through every path that quoted its input whole before.
CREATE FUNCTION pg_temp.error_lengths(statement text)
	RETURNS TABLE(state text, message_length int, detail_length int, hint_length int, message text)
	LANGUAGE plpgsql AS $$
DECLARE
	m text; d text; h text;
BEGIN
	EXECUTE statement;
	RAISE EXCEPTION 'no error from %', statement;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, m = MESSAGE_TEXT, d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
	message_length := length(m); detail_length := length(d); hint_length := length(h);
	message := left(m, 100);
	RETURN NEXT;
END $$;
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST(repeat('word ', 200000) AS minhash)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST('v1:' || repeat('x', 1000000) AS minhash)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST(repeat('é', 1000000) AS minhash)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST(repeat('word ', 200000) AS minhash_query)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST(repeat('w', 1000000) || ':v1:' AS minhash_query)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST('0.8:' || repeat('word ', 200000) AS minhash_query)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT resemblance(minhash('a'::text), 'v1:' || repeat('x', 1000000))$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT * FROM highlight('a b', 'a b', 1, repeat('html', 250000))$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT * FROM chunk_similarity('a b', 'a b', 1, repeat('literal', 150000))$q$);
CREATE TABLE input_flagged (id int PRIMARY KEY, sig minhash, duplicate_of int);
-- The trigger reads its arguments when it first fires.
DO $$ BEGIN EXECUTE format($q$CREATE TRIGGER flag BEFORE INSERT ON input_flagged FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', %L)$q$, repeat('0', 10000) || 'x'); END $$;
SELECT * FROM pg_temp.error_lengths($q$INSERT INTO input_flagged VALUES (1, minhash('a b c'::text), NULL)$q$);
DROP TRIGGER flag ON input_flagged;
DO $$ BEGIN EXECUTE format($q$CREATE TRIGGER flag BEFORE INSERT ON input_flagged FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8', 'id', %L)$q$, repeat('lock', 10000)); END $$;
SELECT * FROM pg_temp.error_lengths($q$INSERT INTO input_flagged VALUES (1, minhash('a b c'::text), NULL)$q$);
DROP TRIGGER flag ON input_flagged;
-- A short input is quoted whole.
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST('exactly forty characters of a document.' AS minhash)$q$);
SELECT * FROM pg_temp.error_lengths($q$SELECT CAST('forty-one characters of a document, yes.!' AS minhash)$q$);

-- 4. Signatures of sets: minhash_set().  A driver's untyped array parameter
-- reaches minhash(text) under the name minhash (a word signature of the
-- array's text); under minhash_set it can only be an array.
PREPARE input_untyped_minhash AS SELECT minhash_kind(minhash($1)), minhash_size(minhash($1));
EXECUTE input_untyped_minhash('{a,b,c}');
PREPARE input_untyped_set AS SELECT minhash_kind(minhash_set($1)), minhash_size(minhash_set($1));
EXECUTE input_untyped_set('{a,b,c}');
SELECT minhash_set('{a,b,c}') = minhash(ARRAY['a', 'b', 'c']) AS same_as_minhash_array,
       minhash_set(ARRAY['a', 'b'], 64, 3) = minhash(ARRAY['a', 'b'], 64, 3) AS same_with_args,
       minhash_set(elements => '{a}') = minhash(elements => '{a}') AS same_named;
-- A text is no set: refused, not read as an array.
SELECT minhash_set(t) FROM input_docs;
SELECT minhash_set('a b c'::text);
SELECT minhash_set('not an array');

-- 5. resemblance(sig, body): an error that says to build the signature
-- (42804: a value of the wrong kind); a minhash literal (untyped literal or
-- parameter, or text) still works.
SELECT resemblance(sig, t) FROM input_docs WHERE id = 1;
SELECT resemblance(sig, v) FROM input_docs WHERE id = 1;
SELECT resemblance(sig, c) FROM input_docs WHERE id = 1;
SELECT resemblance(minhash('a b c d e f'::text), 'a b c d e f');
SELECT id, resemblance(sig, minhash(t, 64)) FROM input_docs ORDER BY id;
SELECT minhash('a b c d e f g'::text, 16, 1)::text AS lit \gset
SELECT resemblance(minhash('a b c d e f g'::text, 16, 1), :'lit') AS untyped_literal,
       resemblance(minhash('a b c d e f g'::text, 16, 1), :'lit'::text) AS text_literal,
       resemblance(:'lit', :'lit') AS two_untyped,
       resemblance(NULL, minhash('a'::text)) IS NULL AS null_first,
       resemblance(minhash('a'::text), NULL) IS NULL AS null_second;
-- Per row, the literal of a call site is parsed once; a new literal anew.
SELECT id, resemblance(minhash(t, 16, 5, 1), lit) AS r
  FROM input_docs,
       (VALUES (minhash('the quick brown fox jumps over the lazy dog'::text, 16, 5, 1)::text),
               (minhash('Ünïcode wörds — and spaces'::text, 16, 5, 1)::text)) l(lit)
 ORDER BY id, r;
PREPARE input_two_params AS SELECT resemblance($1, $2);
EXECUTE input_two_params(:'lit', :'lit');
PREPARE input_one_param AS SELECT resemblance(minhash('a b c d e f g'::text, 16, 1), $1);
EXECUTE input_one_param(:'lit');
EXECUTE input_one_param('a b c d e f g');
-- A damaged literal is reported as before.
SELECT resemblance(minhash('a'::text), 'v1:words:k=5');
-- sig % body and resembles(sig, body, t): the same error in their own
-- words; varchar and char(n) reach them through text.  A minhash literal
-- still works, typed text or not, and so does NULL.
SELECT sig % t FROM input_docs WHERE id = 1;
SELECT sig % v FROM input_docs WHERE id = 1;
SELECT resembles(sig, t, 0.8) FROM input_docs WHERE id = 1;
SELECT resembles(sig, c, 0.8) FROM input_docs WHERE id = 1;
SELECT resembles(minhash('a b c d e f'::text), 'a b c d e f', 0.8);
SELECT minhash('a b c d e f'::text) % 'a b c d e f'::text;
SET minhash.threshold = 0.9;
SELECT minhash('a b c d e f g'::text, 16, 1) % :'lit' AS untyped_literal,
       minhash('a b c d e f g'::text, 16, 1) % :'lit'::text AS text_literal,
       minhash('a b c d e f g'::text, 16, 1) % :'lit'::varchar AS varchar_literal,
       resembles(minhash('a b c d e f g'::text, 16, 1), :'lit', 0.9) AS resembles_untyped,
       resembles(minhash('a b c d e f g'::text, 16, 1), :'lit'::text, 0.9) AS resembles_text,
       resembles(minhash('a b c d e f h'::text, 16, 1), :'lit', 0.9) AS resembles_other,
       resembles(minhash('a'::text), NULL, 0.5) IS NULL AS resembles_null,
       minhash('a'::text) % NULL::text IS NULL AS similar_null;
RESET minhash.threshold;
-- Which operator each spelling of % resolves to: an untyped operand still
-- takes % (minhash, minhash).
CREATE FUNCTION pg_temp.resolved_operator(expr text) RETURNS SETOF regoperator LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('CREATE TEMP VIEW resolved_view AS SELECT %s AS x FROM input_docs', expr);
	RETURN QUERY SELECT DISTINCT d.refobjid::regoperator FROM pg_depend d JOIN pg_rewrite r ON r.oid = d.objid
				  WHERE r.ev_class = 'resolved_view'::regclass AND d.refclassid = 'pg_operator'::regclass
				  ORDER BY 1;
	DROP VIEW resolved_view;
END $$;
SELECT e AS spelling, pg_temp.resolved_operator(e) AS resolves_to
  FROM unnest(ARRAY['sig % sig', 'sig % ''v1:set:seed=0:size=0:n=1:ffffffff''', 'sig % NULL',
					'sig % t', 'sig % v', 'sig % c']) e;
SELECT e AS spelling, pg_temp.resolved(e) AS resolves_to
  FROM unnest(ARRAY['resembles(sig, sig, 0.8)', 'resembles(sig, ''v1:set:seed=0:size=0:n=1:ffffffff'', 0.8)',
					'resembles(sig, t, 0.8)', 'resembles(sig, NULL, 0.8)']) e;
-- The text forms are inlined around a function the planner folds: a
-- literal is a constant signature, and the index serves it.  The table is
-- rewritten first, so that no HOT chain left by the UPDATEs above makes
-- CREATE INDEX hide the index from the planner while an older snapshot
-- lives (pg_index.indcheckxmin: autovacuum's ANALYZE of another table).
VACUUM FULL input_docs;
CREATE INDEX input_docs_sig ON input_docs USING gin (sig);
SET enable_seqscan = off;
SELECT minhash('the quick brown fox jumps over the lazy dog'::text, 64)::text AS fox \gset
CREATE FUNCTION pg_temp.plan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		RETURN NEXT regexp_replace(line, '''[^'']{40,}''', '''...''', 'g');
	END LOOP;
END $$;
SELECT pg_temp.plan(format('SELECT id FROM input_docs WHERE resembles(sig, %L, 0.8)', :'fox'));
SELECT pg_temp.plan(format('SELECT id FROM input_docs WHERE sig %% %L::text', :'fox'));
SELECT id FROM input_docs WHERE resembles(sig, :'fox', 0.8);
SELECT id FROM input_docs WHERE sig % :'fox'::text;
-- An untyped parameter of resembles() is text now; a generic plan still
-- scans the index, and a document is refused.
PREPARE input_resembles_param AS SELECT id FROM input_docs WHERE resembles(sig, $1, 0.8);
SELECT parameter_types FROM pg_prepared_statements WHERE name = 'input_resembles_param';
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE input_resembles_param(:'fox');
EXECUTE input_resembles_param(:'fox');
EXECUTE input_resembles_param('the quick brown fox jumps over the lazy dog');
RESET plan_cache_mode;
RESET enable_seqscan;
DROP INDEX input_docs_sig;
DEALLOCATE input_resembles_param;
-- pgvector's operators name minhash's.
SELECT sig <-> sig FROM input_docs WHERE id = 1;
SELECT sig <=> sig FROM input_docs WHERE id = 1;
SELECT sig <-> minhash(t, 64) FROM input_docs WHERE id = 1;
SELECT round((sig <%> sig)::numeric, 2) AS distance FROM input_docs WHERE id = 1;

-- 6. near_dupe_review: a key missing from the source is an error.
CREATE TABLE input_groups (group_id bigint, key text, pivot text, resemblance float8);
INSERT INTO input_groups VALUES (1, '1', '1', 1), (1, '3', '1', 0.9),
                                (2, '99', '99', 1), (2, '1', '99', 0.9);
SELECT key, role, marked FROM near_dupe_review('input_groups', 'input_docs', 'id', 't', 1);
SELECT key, role, marked FROM near_dupe_review('input_groups', 'input_docs', 'id', 't', 2);
-- A long key is quoted in part.
CREATE TABLE input_named (name text PRIMARY KEY, body text);
INSERT INTO input_named VALUES ('short', 'the quick brown fox jumps over the lazy dog');
INSERT INTO input_groups VALUES (3, 'short', 'short', 1), (3, repeat('k', 100), 'short', 0.9);
SELECT key, role, marked FROM near_dupe_review('input_groups', 'input_named', 'name', 'body', 3);
DELETE FROM input_groups WHERE key = '3';
SELECT key, role, left(marked, 20) AS marked FROM near_dupe_review('input_groups', 'input_docs', 'id', 't', 1);

-- A partitioned table: the hint names a plain table of its signatures, which
-- groups the pairs across partitions too.
CREATE TABLE input_parted (id int, sig minhash) PARTITION BY RANGE (id);
CREATE TABLE input_parted_1 PARTITION OF input_parted FOR VALUES FROM (0) TO (10);
CREATE TABLE input_parted_2 PARTITION OF input_parted FOR VALUES FROM (10) TO (20);
INSERT INTO input_parted VALUES (1, minhash('one two three four five six seven'::text)),
                                (11, minhash('one two three four five six seven'::text));
SELECT * FROM near_dupe_groups('input_parted', 'id', 'sig', 0.8);
SELECT * FROM near_dupe_pairs('input_parted', 'id', 'sig', 0.8);
CREATE TEMP TABLE sigs AS SELECT id, sig FROM input_parted;
SELECT key, pivot, resemblance FROM near_dupe_groups('sigs', 'id', 'sig', 0.8) ORDER BY key;
-- Each partition alone misses the pair.
SELECT key, pivot FROM near_dupe_groups('input_parted_1', 'id', 'sig', 0.8);

-- 7. Settings.  A session knows minhash.threshold once the library is loaded:
-- in a fresh session, before any minhash function has run, SHOW fails, SET
-- takes any value (a placeholder, checked only when the library loads), and a
-- database owner cannot ALTER DATABASE ... SET it (placeholders are for
-- superusers).  CREATE EXTENSION loads the library in its own session.
SELECT current_database() AS db, current_user AS superuser \gset
\c
SHOW minhash.threshold;
SET minhash.threshold = 80;
SELECT minhash_num_perm(minhash('a b c'::text));
SHOW minhash.threshold;
\c
ALTER DATABASE :"db" OWNER TO minhash_owner;
SET ROLE minhash_owner;
ALTER DATABASE :"db" SET minhash.threshold = 0.7;
-- Once the library is loaded, the owner may, and the value is checked.
SELECT minhash_num_perm(minhash('a b c'::text));
ALTER DATABASE :"db" SET minhash.threshold = 80;
ALTER DATABASE :"db" SET minhash.threshold = 0.7;
RESET ROLE;
\c
SHOW minhash.threshold;
ALTER DATABASE :"db" RESET minhash.threshold;
-- The fix for every session: a superuser preloads the library.
ALTER DATABASE :"db" SET session_preload_libraries = 'minhash';
\c
SHOW minhash.threshold;
SET minhash.threshold = 80;
SET ROLE minhash_owner;
ALTER DATABASE :"db" SET minhash.threshold = 0.75;
ALTER DATABASE :"db" RESET minhash.threshold;
RESET ROLE;
ALTER DATABASE :"db" RESET session_preload_libraries;
ALTER DATABASE :"db" OWNER TO :"superuser";
\c
SHOW minhash.threshold;

DROP TABLE input_docs, input_flagged, input_groups, input_named, input_parted;
