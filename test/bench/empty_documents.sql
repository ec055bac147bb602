-- Documents without words among realistic ones: the SpamAssassin bodies
-- (test/corpus/load_spamassassin.sh spam_messages) and :empties documents
-- without words (empty, spaces, dashes, an emoji, blank lines).  Times
-- near_dupe_pairs and near_dupe_groups at 0.8, and the flagging trigger
-- loading 2,000 of the empty documents into an indexed table that holds the
-- corpus; prints what each returned, so that two builds can be compared.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP TABLE IF EXISTS bench_empty, bench_empty_flags;
CREATE TABLE bench_empty (id int PRIMARY KEY, body text, sig minhash);
INSERT INTO bench_empty SELECT row_number() OVER (ORDER BY md5(body)), body, minhash(body) FROM spam_messages;
INSERT INTO bench_empty
SELECT 100000 + i, (ARRAY['', '  ', '---', '😀', E'\n\n'])[1 + i % 5], NULL FROM generate_series(1, :empties) i;
UPDATE bench_empty SET sig = minhash(body) WHERE id > 100000;
ANALYZE bench_empty;
SELECT count(*) AS rows, count(*) FILTER (WHERE minhash_size(sig) = 0) AS without_words FROM bench_empty;
\timing on
SELECT count(*) AS pairs FROM near_dupe_pairs('bench_empty', 'id', 'sig', 0.8);
SELECT count(DISTINCT group_id) AS groups,
       count(DISTINCT group_id) FILTER (WHERE key::int > 100000) AS groups_with_empty_rows
  FROM near_dupe_groups('bench_empty', 'id', 'sig', 0.8);
\timing off
CREATE TABLE bench_empty_flags (id int PRIMARY KEY, sig minhash, dup_of int);
CREATE INDEX ON bench_empty_flags USING gin (sig) WITH (fastupdate = off);
CREATE TRIGGER flag_dups BEFORE INSERT OR UPDATE ON bench_empty_flags FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');
INSERT INTO bench_empty_flags SELECT id, sig FROM bench_empty WHERE id <= 100000;
\timing on
INSERT INTO bench_empty_flags SELECT id, sig FROM bench_empty WHERE id > 100000 AND id <= 102000;
\timing off
SELECT count(dup_of) AS empty_rows_flagged FROM bench_empty_flags WHERE id > 100000;
DROP TABLE bench_empty, bench_empty_flags;
