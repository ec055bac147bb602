-- The corpus of test/bench/prepared_threshold.sql: table prepared_docs(id,
-- body, sig) of ROWS (psql variable rows, default 100,000) passages of real
-- mail: windows of 12 lines, every 4 lines, of the SpamAssassin bodies
-- (spam_messages, loaded by test/corpus/load_spamassassin.sh), at least 200
-- characters.  Windows of one message 4 lines apart share two thirds of
-- their lines, so the table holds pairs at every resemblance, as a mail
-- archive does.  A default gin_minhash_ops index on sig.  An existing
-- prepared_docs of ROWS rows is kept.
\if :{?rows}
\else
\set rows 100000
\endif
SELECT to_regclass('prepared_docs') IS NULL AS generate_corpus \gset
\if :generate_corpus
\else
SELECT count(*) <> :rows AS generate_corpus FROM prepared_docs \gset
\endif
\if :generate_corpus
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;
DROP TABLE IF EXISTS prepared_docs;
CREATE TABLE prepared_docs (id bigint PRIMARY KEY, body text, sig minhash);
INSERT INTO prepared_docs (id, body)
SELECT row_number() OVER (ORDER BY m.id, w.start), w.body
  FROM spam_messages m,
       LATERAL (SELECT regexp_split_to_array(m.body, '\n') AS lines) l,
       LATERAL (SELECT s AS start, array_to_string(l.lines[s:s + 11], E'\n') AS body
                  FROM generate_series(1, greatest(array_length(l.lines, 1) - 11, 1), 4) s) w
 WHERE length(w.body) >= 200
 ORDER BY m.id, w.start
 LIMIT :rows;
UPDATE prepared_docs SET sig = minhash(body);
CREATE INDEX prepared_docs_sig ON prepared_docs USING gin (sig gin_minhash_ops);
VACUUM ANALYZE prepared_docs;
\endif
SELECT count(*) AS rows FROM prepared_docs;
