-- The database test/fuzz/sqlsmith.sh lets sqlsmith loose on: every column type,
-- index, trigger and stored result a user of the extension would have, so
-- that the random queries sqlsmith builds from the catalog (column references,
-- functions and operators picked by type) reach the extension's code.
-- Expects table spam_source(id, body) (a few hundred SpamAssassin bodies).
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION minhash;

-- Generated documents: 30 families of 50 words from a 3,000-word vocabulary,
-- each member with a few words edited, so that near-duplicates exist at
-- every resemblance level.
CREATE TABLE generated_docs AS
SELECT f * 10 + m AS id, f AS family,
       (SELECT string_agg(CASE WHEN (w * 7 + m) % 13 < m THEN 'edit' || m || '_' || w
                               ELSE 'w' || ((hashint4(f * 50 + w) & 2147483647) % 3000) END, ' ' ORDER BY w)
          FROM generate_series(1, 50) w) AS body
  FROM generate_series(1, 30) f, generate_series(0, 4) m;

-- Documents: generated ones, SpamAssassin bodies, and awkward ones (empty,
-- shorter than a shingle, punctuation only, null).
CREATE TABLE corpus_docs (
	id integer PRIMARY KEY,
	title text,
	body text,
	words text[],
	sig minhash(128),          -- words, 5-shingles, seed 0: the default
	sig_64 minhash(64),
	sig_chars minhash(128),    -- character 4-shingles
	sig_set minhash,           -- the set of the words
	sig_seeded minhash(128),   -- seed 7: mismatches sig
	bands bigint[],
	dup_of integer
);
INSERT INTO corpus_docs (id, title, body)
SELECT id, 'generated ' || family, body FROM generated_docs
UNION ALL
SELECT 10000 + id, 'spam ' || id, left(body, 4000) FROM spam_source
UNION ALL
VALUES (20001, 'empty', ''), (20002, 'short', 'two words'), (20003, 'punctuation', '... !!! ,,, ???'),
       (20004, 'null body', NULL), (20005, 'unicode', 'Grüße aus Köln — 東京 の 天気 は 晴れ です and more words here'),
       (20006, 'one repeated word', repeat('spam ', 500));
UPDATE corpus_docs SET
	words = minhash_tokens(body),
	sig = minhash(body),
	sig_64 = minhash(body, 64),
	sig_chars = minhash_chars(body, 4),
	sig_set = minhash(minhash_tokens(body), 128),
	sig_seeded = minhash(body, 128, 5, 7);
UPDATE corpus_docs SET bands = minhash_bands(sig, 32, 4);
-- Some rows without signatures.
UPDATE corpus_docs SET sig = NULL, sig_chars = NULL WHERE id % 17 = 3;
UPDATE corpus_docs SET sig_64 = NULL WHERE id % 11 = 5;

CREATE INDEX corpus_docs_sig_gin ON corpus_docs USING gin (sig);
CREATE INDEX corpus_docs_sig_gin_high ON corpus_docs USING gin (sig gin_minhash_ops (threshold = 0.9));
CREATE INDEX corpus_docs_sig_64_gin ON corpus_docs USING gin (sig_64 gin_minhash_ops (bands = 16, rows = 4));
CREATE INDEX corpus_docs_sig_chars_btree ON corpus_docs (sig_chars);
CREATE INDEX corpus_docs_sig_seeded_hash ON corpus_docs USING hash (sig_seeded);
CREATE INDEX corpus_docs_body_btree ON corpus_docs (left(body, 200));

-- Signatures of many parameter sets in one column: every comparison across
-- rows of different sets is an error the code must raise cleanly.
CREATE TABLE mixed_sigs (id serial PRIMARY KEY, params text, sig minhash, other minhash);
INSERT INTO mixed_sigs (params, sig)
SELECT format('words n=%s k=%s seed=%s', n, k, s), minhash(d.body, n, k, s)
  FROM (SELECT body FROM corpus_docs WHERE id % 23 = 1) d,
       (VALUES (1), (16), (128), (256), (1024)) nn(n),
       (VALUES (1), (5), (9)) kk(k),
       (VALUES (0), (-3)) ss(s)
UNION ALL
SELECT format('chars q=%s n=%s', q, n), minhash_chars(d.body, q, n)
  FROM (SELECT body FROM corpus_docs WHERE id % 29 = 2) d,
       (VALUES (1), (3), (8)) qq(q), (VALUES (32), (128)) nn(n)
UNION ALL
SELECT 'set n=128', minhash(ARRAY['a', 'b', '', 'c'], 128)
UNION ALL
SELECT 'set empty', minhash(ARRAY[]::text[])
UNION ALL
SELECT 'words empty', minhash(''::text)
UNION ALL
SELECT 'null', NULL;
UPDATE mixed_sigs SET other = (SELECT m.sig FROM mixed_sigs m WHERE m.id = (mixed_sigs.id * 7) % 200 + 1);
-- GIN indexes on a column of mixed parameters: one for each size it can hold.
CREATE INDEX mixed_sigs_gin_128 ON mixed_sigs USING gin (sig) WHERE minhash_num_perm(sig) = 128;
CREATE INDEX mixed_sigs_gin_16 ON mixed_sigs USING gin (sig gin_minhash_ops (bands = 4, rows = 4)) WHERE minhash_num_perm(sig) = 16;
CREATE INDEX mixed_sigs_hash ON mixed_sigs USING hash (sig);

-- Near-duplicate queries with their own thresholds, for %>.
CREATE TABLE probes (id serial PRIMARY KEY, threshold double precision, q minhash_query, sig minhash);
INSERT INTO probes (threshold, q, sig)
SELECT t, minhash_query(c.sig, t), c.sig_64
  FROM (SELECT sig, sig_64 FROM corpus_docs WHERE id % 31 = 4 AND sig IS NOT NULL) c,
       (VALUES (0.0::float8), (0.3), (0.5), (0.8), (0.95), (1.0)) tt(t)
UNION ALL
SELECT NULL, NULL, NULL;

-- New rows flagged by the trigger (sqlsmith's INSERT and UPDATE statements
-- fire them; every statement is rolled back).
CREATE TABLE flagged_docs (id integer PRIMARY KEY, body text, sig minhash(128), dup_of integer);
CREATE INDEX flagged_docs_sig_gin ON flagged_docs USING gin (sig);
CREATE TRIGGER flagged_docs_flag BEFORE INSERT OR UPDATE ON flagged_docs
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
INSERT INTO flagged_docs SELECT id, body, sig FROM corpus_docs;

CREATE TABLE flagged_keyed (doc_key text PRIMARY KEY, sig minhash(64), similar_to text);
CREATE INDEX flagged_keyed_sig_gin ON flagged_keyed USING gin (sig);
CREATE TRIGGER flagged_keyed_flag BEFORE INSERT OR UPDATE ON flagged_keyed
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'similar_to', '0.6', 'doc_key');
INSERT INTO flagged_keyed (doc_key, sig) SELECT 'doc-' || id, sig_64 FROM corpus_docs;

-- A stored grouping, as the report functions take it.
CREATE TABLE doc_groups AS SELECT * FROM near_dupe_groups('corpus_docs', 'id', 'sig', 0.5);

-- Arguments for the functions that take tables and columns by name.
CREATE TABLE group_sources (source regclass, key_column name, sig_column name, text_column name,
                            group_table regclass, threshold double precision);
INSERT INTO group_sources VALUES
	('corpus_docs', 'id', 'sig', 'body', 'doc_groups', 0.5),
	('corpus_docs', 'id', 'sig_64', 'title', 'doc_groups', NULL),
	('mixed_sigs', 'id', 'sig', 'params', 'doc_groups', 0.8),
	('flagged_keyed', 'doc_key', 'sig', 'doc_key', 'corpus_docs', 1.5),
	('probes', 'id', 'q', 'threshold', 'probes', -1),
	(NULL, NULL, NULL, NULL, NULL, NULL);

-- The set-returning functions, which sqlsmith does not call itself, behind
-- views it scans: on a sample of 45 documents, as every scan runs them.
CREATE TABLE sample_docs AS SELECT id, body, sig FROM corpus_docs WHERE id < 100;
CREATE VIEW doc_pairs AS SELECT * FROM near_dupe_pairs('sample_docs', 'id', 'sig', 0.5);
CREATE VIEW group_summary AS SELECT * FROM near_dupe_summary('doc_groups');
CREATE VIEW group_totals AS SELECT * FROM near_dupe_totals('doc_groups');
CREATE VIEW group_histogram AS SELECT * FROM near_dupe_histogram('doc_groups');
CREATE VIEW group_stats AS SELECT * FROM near_dupe_group_stats('doc_groups');
CREATE VIEW group_detail AS SELECT * FROM near_dupe_group_detail('doc_groups', 'corpus_docs', 'id', 'body', 1);
CREATE VIEW group_review AS SELECT * FROM near_dupe_review('doc_groups', 'corpus_docs', 'id', 'body', 1);
CREATE VIEW doc_chunks AS
SELECT a.id AS a_id, b.id AS b_id, c.*
  FROM sample_docs a JOIN sample_docs b ON b.id = a.id + 1, LATERAL common_chunks(a.body, b.body, 3) c;
CREATE VIEW doc_highlights AS
SELECT a.id AS a_id, b.id AS b_id, h.*
  FROM sample_docs a JOIN sample_docs b ON b.id = a.id + 1, LATERAL highlight(a.body, b.body, 4, 'text') h
 WHERE a.id < 60;
CREATE VIEW doc_intervals AS
SELECT a.id AS a_id, b.id AS b_id, i.*
  FROM sample_docs a JOIN sample_docs b ON b.id = a.id + 2, LATERAL resemblance_interval(a.sig, b.sig, 0.9) i;
CREATE VIEW doc_similar AS
SELECT a.id AS a_id, b.id AS b_id, resemblance(a.sig, b.sig) AS resemblance, a.sig <%> b.sig AS distance
  FROM sample_docs a JOIN sample_docs b ON a.sig % b.sig AND a.id < b.id;

ANALYZE;

-- --- for sqlsmith itself -----------------------------------------------------
-- It connects as a plain user, as an application would (and so cannot call
-- the superuser's functions that end sessions or touch files).
CREATE ROLE smith LOGIN;
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO smith;
GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO smith;

-- sqlsmith reads the functions it may call from "pg_proc", unqualified: with
-- search_path = smith_catalog, pg_catalog, public this view stands in for
-- it, so that the extension's functions are most of what it calls, with a
-- few built-ins of plain types to build arguments from. (Its operators come
-- from pg_catalog.pg_operator, all of them.)
CREATE SCHEMA smith_catalog;
GRANT USAGE ON SCHEMA smith_catalog TO smith;
CREATE VIEW smith_catalog.pg_proc AS
SELECT p.* FROM pg_catalog.pg_proc p
 WHERE p.oid IN (SELECT objid FROM pg_depend
                  WHERE classid = 'pg_proc'::regclass AND deptype = 'e'
                    AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash'))
    OR (p.pronamespace = 'pg_catalog'::regnamespace
        AND p.proname IN ('textcat', 'left', 'repeat', 'lower', 'md5', 'substr', 'string_to_array',
                          'array_to_string', 'float8', 'int4', 'random', 'count', 'string_agg')
        AND NOT EXISTS (SELECT FROM unnest(p.proargtypes::oid[] || p.prorettype) t(oid)
                          JOIN pg_type ty ON ty.oid = t.oid WHERE ty.typtype = 'p'));
GRANT SELECT ON smith_catalog.pg_proc TO smith;
