-- What a library answers for the SQL of 1.1: every IMMUTABLE function of
-- 1.1 (and the grouping functions), called on the same inputs, one line per
-- call: check, input(s), result (or the SQLSTATE it raised).  Run in a
-- database holding CREATE EXTENSION minhash VERSION '1.1', once under each
-- library, and diff the outputs (test/upgrade/library_diff.sh).  Reads
-- spam_messages (test/corpus/load_spamassassin.sh) when the database has it.
--
-- At the end it lists the IMMUTABLE functions of the installed extension
-- (from pg_proc) that no check called, so that a function added to 1.1's
-- SQL cannot go unchecked.
\set ON_ERROR_STOP on
SET client_min_messages = warning;
SET extra_float_digits = 0;
SET minhash.threshold = 0.8;

DROP TABLE IF EXISTS ld_docs, ld_sigs, ld_results, ld_called, ld_single, ld_pair,
    ld_idx_default, ld_idx_05, ld_idx_16x8, ld_idx_approx CASCADE;
DROP FUNCTION IF EXISTS ld_eval(text, int, int);

-- Inputs by class: no words, numbers only, fewer words than a shingle, text.
CREATE TABLE ld_docs (id int PRIMARY KEY, class text, body text);
INSERT INTO ld_docs VALUES
 (1, 'empty', ''),
 (2, 'empty', '   ' || E'\n\t  '),
 (3, 'empty', '!!! ... --- ???'),
 (4, 'empty', '😀 🎉 ½ ² ©'),
 (5, 'numbers', '42'),
 (6, 'numbers', '555 1234 555 9876 555 0000 1 2 3 4 5 6 7 8 9'),
 (7, 'numbers', '555 1234 555 9876 555 0000 1 2 3 4 5 6 7 8 0'),
 (8, 'short', 'hello'),
 (9, 'short', 'Hello, WORLD!'),
 (10, 'short', 'the quick brown fox'),
 (11, 'short', 'the quick brown dog'),
 (12, 'text', 'The central bank raised its rates by a quarter point on Tuesday, citing inflation that has stayed above target for a year.'),
 (13, 'text', 'The central bank raised its rates by a quarter point on Tuesday, citing inflation that has stayed above its target for a year.'),
 (14, 'text', 'Please find below the summary of the third quarter budget review. Travel spending came in twelve percent under plan.'),
 (15, 'text', 'Straße STRAẞE ΣΊΣΥΦΟΣ σίσυφος Ça ÉCOLE e' || U&'\0301' || 'cole 日本語のテキスト a😀b'),
 (16, 'text', repeat('lorem ipsum dolor sit amet ', 40));
-- Real mail (the corpus of test/fixtures and the demo) when loaded.
DO $$
BEGIN
    IF to_regclass('spam_messages') IS NOT NULL THEN
        EXECUTE $q$INSERT INTO ld_docs
            SELECT 100 + row_number() OVER (ORDER BY id), 'mail', body
              FROM (SELECT id, body FROM spam_messages ORDER BY id LIMIT 40) s$q$;
        -- Near-copies of the first ten, and messages without words.
        EXECUTE $q$INSERT INTO ld_docs
            SELECT id + 100, 'mail', body || E'\n\nSent from my phone.' FROM ld_docs WHERE id BETWEEN 101 AND 110$q$;
    END IF;
END $$;

-- Signatures of every builder and parameter set.
CREATE TABLE ld_sigs AS
SELECT id, class, body,
       minhash(body) AS s128,
       minhash(body, 64) AS s64,
       minhash(body, 128, 3) AS k3,
       minhash(body, 128, 5, 7) AS seed7,
       minhash_char_shingles(body) AS ch,
       minhash_chars(body, 5) AS ch_old,
       minhash_set(regexp_split_to_array(body, '\s+')) AS arr,
       minhash(regexp_split_to_array(body, '\s+')::text[]) AS tarr,
       minhash(body::varchar) AS vc,
       minhash(body::char(60)) AS bp
  FROM ld_docs;

CREATE TABLE ld_results (checked text, a int, b int, result text);
CREATE TABLE ld_called (expr text);

-- Evaluate one expression over rows a (and b) of ld_sigs, as text or the
-- SQLSTATE it raised.
CREATE FUNCTION ld_eval(expr text, ia int, ib int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('SELECT (%s)::text FROM ld_sigs a, ld_sigs b WHERE a.id = $1 AND b.id = $2', expr)
       INTO r USING ia, coalesce(ib, ia);
    RETURN coalesce(r, 'NULL');
EXCEPTION WHEN OTHERS THEN
    RETURN 'ERROR ' || SQLSTATE;
END $$;

-- One signature, every accessor and form.
CREATE TABLE ld_single (expr text);
INSERT INTO ld_single VALUES
 ('md5(minhash_out(a.s128)::text)'), ('md5(a.s64::text)'), ('md5(a.k3::text)'), ('md5(a.seed7::text)'),
 ('md5(a.ch::text)'), ('md5(a.ch_old::text)'), ('md5(a.arr::text)'), ('md5(a.tarr::text)'),
 ('md5(a.vc::text)'), ('md5(a.bp::text)'),
 ('md5(minhash_send(a.s128))'), ('md5(minhash_send(a.ch))'),
 ('(a.s128::text)::minhash = a.s128'), ('(a.s128::text)::minhash(128) = a.s128'),
 ('md5(minhash(a.s128, 128, true)::text)'), ('minhash(a.s128, 64, true)::text'),
 ('format_type(''minhash''::regtype, minhash_typmod_in(''{128}''::cstring[]))'), ('minhash_typmod_out(128)::text'),
 ('minhash_size(a.s128)'), ('minhash_size(a.ch)'), ('minhash_size(a.arr)'), ('minhash_size_is_estimated(a.s128)'),
 ('minhash_kind(a.s128)'), ('minhash_kind(a.ch)'), ('minhash_kind(a.arr)'),
 ('minhash_shingle_size(a.k3)'), ('minhash_seed(a.seed7)'), ('minhash_num_perm(a.s64)'),
 ('minhash_tokens(a.body)::text'), ('md5(shingle_hashes(a.body)::text)'), ('md5(shingle_hashes(a.body, 2, 9)::text)'),
 ('minhash_hash(a.s128)'), ('minhash_hash_extended(a.s128, 42)'),
 ('md5(minhash_bands(a.s128, 28, 4)::text)'), ('md5(minhash_bands(a.s128, 16, 8)::text)'),
 ('md5(minhash_query(a.s128, 0.8)::text)'), ('md5(minhash_query_send(minhash_query(a.s128, 0.8)))'),
 ('(minhash_query(a.s128, 0.8)::text)::minhash_query::text = minhash_query(a.s128, 0.8)::text'),
 ('md5(minhash_literal_signature(a.s128::text, ''resemblance'')::text)'),
 ('minhash_literal_signature(a.body, ''resemblance'')::text'),
 ('resemblance(a.s128, a.s128)'), ('containment(a.s128, a.s128)'), ('a.s128 <%> a.s128'),
 ('a.s128 % a.s128'), ('a.s128 %> minhash_query(a.s128, 0)'), ('resembles(a.s128, a.s128, 0)'),
 ('resembles_approx(a.s128, a.s128, 0.5)'), ('a.s128 %~ minhash_query(a.s128, 0.5)'),
 ('resemblance_interval(a.s128, a.s128)::text'), ('shingle_resemblance(a.body, a.body)'),
 ('chunk_similarity(a.body, a.body)::text'), ('chunk_similarity(a.body, a.body, 3, ''information'')::text'),
 ('(SELECT md5(array_agg(c::text)::text) FROM common_chunks(a.body, a.body) c)'),
 ('md5(highlight(a.body, a.body))'), ('md5(highlight(a.body, a.body, 3, ''text''))'),
 ('md5(minhash_union(a.s128, a.s128)::text)'),
 ('resemblance(a.s128, a.s128::text)'), ('resemblance(a.s128, a.body)'),
 ('resembles(a.s128, a.s128::text, 0.5)'), ('resembles(a.s128, a.body, 0.5)'),
 ('a.s128 <-> a.s128'), ('a.s128 <=> a.s128'),
 ('minhash_cmp(a.s128, a.s128)'), ('a.s128 = a.s128'), ('a.s128 < a.s128');

-- Two signatures, every comparison.
CREATE TABLE ld_pair (expr text);
INSERT INTO ld_pair VALUES
 ('resemblance(a.s128, b.s128)'), ('resemblance(a.k3, b.k3)'), ('resemblance(a.ch, b.ch)'), ('resemblance(a.arr, b.arr)'),
 ('containment(a.s128, b.s128)'), ('a.s128 <%> b.s128'),
 ('a.s128 % b.s128'), ('minhash_similar(a.s128, b.s128)'),
 ('a.s128 %> minhash_query(b.s128, 0.8)'), ('minhash_query_match(a.s128, minhash_query(b.s128, 0.5))'),
 ('a.s128 %> minhash_query(b.s128, 0)'),
 ('resembles(a.s128, b.s128, 0)'), ('resembles(a.s128, b.s128, 0.5)'), ('resembles(a.s128, b.s128, 1)'),
 ('resembles_approx(a.s128, b.s128, 0.5)'), ('a.s128 %~ minhash_query(b.s128, 0)'),
 ('minhash_distance(a.s128, b.s128)'),
 ('resemblance_interval(a.s128, b.s128)::text'), ('resemblance_interval(a.s128, b.s128, 0.99)::text'),
 ('md5(minhash_union(a.s128, b.s128)::text)'),
 ('shingle_resemblance(a.body, b.body)'), ('shingle_resemblance(a.body, b.body, 2)'),
 ('chunk_similarity(a.body, b.body)::text'), ('chunk_similarity(a.body, b.body, 2, ''information'')::text'),
 ('(SELECT md5(coalesce(array_agg(c::text), ''{}'')::text) FROM common_chunks(a.body, b.body, 3) c)'),
 ('md5(highlight(a.body, b.body, 3))'),
 ('minhash_cmp(a.s128, b.s128)'), ('a.s128 = b.s128'), ('a.s128 <> b.s128'), ('a.s128 < b.s128'),
 ('a.s128 <= b.s128'), ('a.s128 > b.s128'), ('a.s128 >= b.s128'),
 -- signatures of other parameters
 ('resemblance(a.s128, b.s64)'), ('resemblance(a.s128, b.k3)'), ('a.s128 % b.seed7'),
 ('resembles(a.s128, b.ch, 0)'), ('containment(a.s128, b.s64)'), ('minhash_union(a.s128, b.s64)::text');

-- Every input alone; every pair among the handwritten inputs, and among
-- the mail (each with its near-copy and its neighbours).
INSERT INTO ld_results
SELECT 'single: ' || s.expr, d.id, NULL, ld_eval(s.expr, d.id, NULL) FROM ld_single s, ld_docs d;
INSERT INTO ld_results
SELECT 'pair: ' || p.expr, a.id, b.id, ld_eval(p.expr, a.id, b.id)
  FROM ld_pair p, ld_docs a, ld_docs b
 WHERE (a.id < 100 AND b.id < 100)
    OR (a.id > 100 AND b.id > 100 AND (b.id = a.id + 100 OR abs(a.id - b.id) <= 2 OR a.id < 3 OR b.id < 3))
    OR (a.id > 100 AND b.id IN (1, 6, 12) AND a.id <= 110);
INSERT INTO ld_called SELECT expr FROM ld_single UNION ALL SELECT expr FROM ld_pair;
-- The builders of ld_sigs.
INSERT INTO ld_called VALUES ('minhash('), ('minhash_char_shingles('), ('minhash_chars('), ('minhash_set(');

-- The aggregate, per class.
INSERT INTO ld_results
SELECT 'aggregate: minhash_union(s128) by class', NULL, NULL, class || ' ' || md5(minhash_union(s128)::text)
  FROM ld_sigs GROUP BY class;
INSERT INTO ld_called VALUES ('minhash_union(');

-- LSH layouts and probabilities (no signature involved).
INSERT INTO ld_results
SELECT 'lsh_index_layout(t, n)', (t * 100)::int, n, lsh_index_layout(t, n)::text
  FROM unnest(ARRAY[0.05, 0.3, 0.5, 0.7, 0.8, 0.9, 1.0]) t, unnest(ARRAY[16, 128, 256]) n;
INSERT INTO ld_results
SELECT 'lsh_index_layout(t, n, recall)', (t * 100)::int, n, lsh_index_layout(t, n, 0.99)::text
  FROM unnest(ARRAY[0.3, 0.5, 0.8]) t, unnest(ARRAY[64, 128]) n;
INSERT INTO ld_results
SELECT 'lsh_probability', (s * 100)::int, b, lsh_probability(s, b, 128 / b)::text || ' ' || lsh_probability(s, b, 128 / b, 3)::text
  FROM unnest(ARRAY[0.0, 0.4, 0.8, 1.0]) s, unnest(ARRAY[8, 16, 28, 32]) b;
INSERT INTO ld_results
SELECT 'lsh_params', (t * 100)::int, NULL, lsh_params(t, 128, 0.5, 0.5)::text
  FROM unnest(ARRAY[0.5, 0.8, 0.9]) t;
INSERT INTO ld_called VALUES ('lsh_index_layout('), ('lsh_probability('), ('lsh_params(');

-- Pairs and groups (near_dupe_query's grouping walks near_dupe_group_walk).
INSERT INTO ld_results
SELECT 'near_dupe_pairs(t=' || t || ')', key_a::int, key_b::int, resemblance::text
  FROM unnest(ARRAY[0.5, 0.8]) t, near_dupe_pairs('ld_sigs', 'id', 's128', t);
INSERT INTO ld_results
SELECT 'near_dupe_groups(t=' || t || ')', key::int, pivot::int, group_id || ' ' || resemblance
  FROM unnest(ARRAY[0.5, 0.8]) t, near_dupe_groups('ld_sigs', 'id', 's128', t);
SET enable_hashagg = off;
SET enable_mergejoin = off;
DO $$
DECLARE q text;
BEGIN
    SELECT near_dupe_query('ld_sigs', 'id', 's128', 0.8, true) INTO q;
    EXECUTE 'INSERT INTO ld_results SELECT ''near_dupe_query(groups)'', key::int, pivot::int, resemblance::text FROM (' || q || ') g';
    SELECT near_dupe_query('ld_sigs', 'id', 's128', 0.8, false) INTO q;
    EXECUTE 'INSERT INTO ld_results SELECT ''near_dupe_query(pairs)'', key_a::int, key_b::int, resemblance::text FROM (' || q || ') g';
END $$;
RESET enable_hashagg;
RESET enable_mergejoin;
INSERT INTO ld_called VALUES ('near_dupe_group_walk(');

-- Binary input: COPY BINARY out and back in (minhash_recv, minhash_query_recv).
CREATE TEMP TABLE ld_bin AS SELECT id, s128, ch, minhash_query(s128, 0.7) AS q FROM ld_sigs;
COPY ld_bin TO '/tmp/minhash_library_diff.bin' WITH (FORMAT binary);
CREATE TEMP TABLE ld_bin_back (LIKE ld_bin);
COPY ld_bin_back FROM '/tmp/minhash_library_diff.bin' WITH (FORMAT binary);
INSERT INTO ld_results
SELECT 'recv: COPY BINARY round trip', a.id, NULL, (a.s128 = b.s128 AND a.ch = b.ch AND a.q::text = b.q::text)::text
  FROM ld_bin a JOIN ld_bin_back b USING (id);
INSERT INTO ld_called VALUES ('minhash_recv('), ('minhash_query_recv('), ('minhash_in('), ('minhash_query_in('),
    ('minhash_out('), ('minhash_query_out('), ('minhash_send('), ('minhash_query_send(');

-- The GIN opclasses: a table per index (library_diff_index.sql reads them
-- again when the data directory has changed library, to check an index
-- built by one library under the other).
DO $$
DECLARE spec text[];
BEGIN
    FOREACH spec SLICE 1 IN ARRAY ARRAY[
        ['ld_idx_default', 'gin_minhash_ops'],
        ['ld_idx_05', 'gin_minhash_ops (threshold = 0.5, key_bits = 16)'],
        ['ld_idx_16x8', 'gin_minhash_ops (bands = 16, rows = 8)'],
        ['ld_idx_approx', 'gin_minhash_approx_ops (threshold = 0.5, recall = 0.99)']]
    LOOP
        EXECUTE format('CREATE TABLE %I AS SELECT id, s128 AS sig FROM ld_sigs', spec[1]);
        EXECUTE format('CREATE INDEX ON %I USING gin (sig %s)', spec[1], spec[2]);
    END LOOP;
END $$;
INSERT INTO ld_called VALUES ('minhash_gin_'), ('minhash_gin_approx_');
\ir library_diff_index.sql
INSERT INTO ld_results SELECT * FROM ld_index_results;

-- Coverage: IMMUTABLE functions of the extension that no check calls (the
-- operators' functions are reached through their operators: =, <, <->...).
INSERT INTO ld_results
SELECT 'coverage: IMMUTABLE function not called', NULL, NULL, p.proname
  FROM pg_proc p
  JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
   AND p.provolatile = 'i'
   AND p.proname NOT IN ('minhash_eq', 'minhash_ne', 'minhash_lt', 'minhash_le', 'minhash_gt', 'minhash_ge',
                         'minhash_vector_l2_operator', 'minhash_vector_cosine_operator')
   AND NOT EXISTS (SELECT 1 FROM ld_called c
                    WHERE c.expr LIKE '%' || p.proname || '(%'
                       OR (right(c.expr, 1) = '_' AND p.proname LIKE c.expr || '%'));

\copy (SELECT checked, a, b, result FROM ld_results ORDER BY checked, a NULLS FIRST, b NULLS FIRST, result) TO STDOUT
