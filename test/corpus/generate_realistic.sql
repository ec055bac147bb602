-- A realistic corpus (issue 17): documents made of real text, the lines of the
-- SpamAssassin bodies, drawn so that frequent lines (footers, disclaimers,
-- unsubscribe lines, quoted headers) stay as frequent as they really are;
-- with planted near-duplicate families whose exact resemblance to their
-- original spreads over 0.4-1.0.  Deterministic: every choice is a hash
-- (hashint8extended with the seed) of ids and positions, no random().
--
--   bash test/corpus/load_spamassassin.sh spam_messages
--   psql -X -v docs=100000 [-v seed=0] -f test/corpus/generate_realistic.sql
--
-- Needs the table spam_messages (load_spamassassin.sh) and the extension.
-- Drops and re-creates:
--   corpus_lines(line_no, line)  every non-empty line of every body, once per
--       occurrence (so a uniform draw keeps the real frequencies); lines are
--       trimmed, and runs of white space become one space.
--   real_docs(id, family, role, body, sig)  documents 1..docs.  A document is
--       12 lines in 4 paragraphs of 3 (blank line between paragraphs).
--       role 'base': 12 lines drawn by hash of (id, position); family = id.
--       role 'derived': every 10th id (10, 20, ...) derives from an earlier
--       base document (original_id, up to 10,000 ids back); family =
--       original_id.  One of five kinds, with a strength s in [0, 1):
--         edit     each word replaced with probability 0.12 s
--         insert   1 + floor(14 s) new lines inserted between lines
--         delete   1 + floor(7 s) of the 12 lines deleted
--         quote    a reply of 1 + floor(6 s) new lines, then the original
--                  with every line prefixed "> " (e-mail quoting)
--         reorder  the 4 paragraphs in another order, and 1 + floor(3 s)
--                  lines replaced by others
--   real_families(id, original_id, kind, strength)  one row per derived
--       document (id = its id in real_docs): the planted pairs, for recall.
-- sig is minhash(body) with the defaults (128 values, 5-word shingles).
--
-- Set-based (one INSERT ... SELECT, parallel-safe expressions), so sizes up
-- to 10M work; see test/corpus/README.md for timings.
\if :{?docs}
\else
\set docs 100000
\endif
\if :{?seed}
\else
\set seed 0
\endif
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
\timing on

DROP TABLE IF EXISTS real_docs, real_families, corpus_lines;

CREATE TABLE corpus_lines (line_no int PRIMARY KEY, line text NOT NULL);
INSERT INTO corpus_lines
SELECT row_number() OVER (ORDER BY m.id, t.o), t.l
  FROM spam_messages m,
       LATERAL (SELECT o, btrim(regexp_replace(l, '\s+', ' ', 'g')) AS l
                  FROM regexp_split_to_table(m.body, '\r?\n') WITH ORDINALITY s(l, o)) t
 WHERE t.l <> '';
ANALYZE corpus_lines;
SELECT count(*) AS n_lines FROM corpus_lines \gset

CREATE TABLE real_families (
    id          bigint PRIMARY KEY,
    original_id bigint NOT NULL,
    kind        text NOT NULL,
    strength    double precision NOT NULL
);
INSERT INTO real_families
SELECT d,
       d - 1 - 10 * ((hashint8extended(d, :seed) & 2147483647) % least(d / 10, 1000)),
       (ARRAY['edit', 'insert', 'delete', 'quote', 'reorder'])
           [1 + (hashint8extended(d * 8 + 1, :seed) & 2147483647) % 5],
       (hashint8extended(d * 8 + 2, :seed) & 1023) / 1024.0
  FROM generate_series(10::bigint, :docs, 10) d;

CREATE TABLE real_docs (
    id     bigint PRIMARY KEY,
    family bigint NOT NULL,
    role   text NOT NULL,
    body   text NOT NULL,
    sig    minhash
);

-- The line drawn for document b, position k: corpus_lines row
-- 1 + hash(b * 64 + k) mod n_lines.  Derived documents draw their new lines
-- with b = their own id and k >= 32 (positions a base document never uses).
INSERT INTO real_docs (id, family, role, body, sig)
SELECT g.id, coalesce(f.original_id, g.id),
       CASE WHEN f.id IS NULL THEN 'base' ELSE 'derived' END,
       doc.body, minhash(doc.body)
  FROM generate_series(1::bigint, :docs) g(id)
  LEFT JOIN real_families f ON f.id = g.id
 CROSS JOIN LATERAL (
    SELECT string_agg(x.txt, e'\n' ORDER BY x.sortkey) AS body
      FROM (
        -- the source document's 12 lines (its own, or its original's)
        SELECT CASE
                 WHEN f.kind = 'edit' THEN
                   (SELECT string_agg(CASE WHEN (hashint8extended(g.id * 4096 + k * 128 + w.o, :seed) & 1023)
                                                < 1024 * 0.07 * f.strength
                                           THEN 'e' || (hashint8extended(g.id * 4096 + k * 128 + w.o, :seed + 1) & 65535)
                                           ELSE w.w END, ' ' ORDER BY w.o)
                      FROM regexp_split_to_table(l.line, ' ') WITH ORDINALITY w(w, o))
                 WHEN f.kind = 'quote' THEN '> ' || l.line
                 WHEN f.kind = 'reorder'
                      AND (hashint8extended(g.id * 64 + k, :seed + 2) & 2147483647) % 12 < floor(2.5 * f.strength) THEN
                   (SELECT c.line FROM corpus_lines c
                     WHERE c.line_no = 1 + (hashint8extended(g.id * 64 + 32 + k, :seed) & 2147483647) % :n_lines)
                 ELSE l.line
               END
               -- a blank line after each paragraph (quoted: a "> " line)
               || CASE WHEN k % 3 = 2 AND k < 11 THEN CASE WHEN f.kind = 'quote' THEN e'\n>' ELSE e'\n' END ELSE '' END AS txt,
               CASE WHEN f.kind = 'reorder'
                    THEN (hashint8extended(g.id * 8 + k / 3, :seed + 3) & 1023) * 1000 + k * 10
                    ELSE k * 10 END::bigint AS sortkey
          FROM generate_series(0, 11) k
          JOIN corpus_lines l
            ON l.line_no = 1 + (hashint8extended(coalesce(f.original_id, g.id) * 64 + k, :seed) & 2147483647) % :n_lines
         WHERE f.kind IS DISTINCT FROM 'delete'
            OR ((k * 5 + (hashint8extended(g.id, :seed + 4) & 1023)) % 12) >= 1 + floor(3.5 * f.strength)
        UNION ALL
        -- inserted lines (insert), between the source lines
        SELECT c.line, (hashint8extended(g.id * 64 + 32 + i, :seed + 5) & 1023) % 120 + 5
          FROM generate_series(1, CASE WHEN f.kind = 'insert' THEN 1 + floor(5 * f.strength)::int ELSE 0 END) i
          JOIN corpus_lines c
            ON c.line_no = 1 + (hashint8extended(g.id * 64 + 32 + i, :seed) & 2147483647) % :n_lines
        UNION ALL
        -- the reply above a quoted original
        SELECT c.line || CASE WHEN i = 1 + floor(6 * f.strength)::int THEN e'\n' ELSE '' END, -100 + i
          FROM generate_series(1, CASE WHEN f.kind = 'quote' THEN 1 + floor(6 * f.strength)::int ELSE 0 END) i
          JOIN corpus_lines c
            ON c.line_no = 1 + (hashint8extended(g.id * 64 + 32 + i, :seed) & 2147483647) % :n_lines
      ) x
 ) doc;

\timing off
VACUUM ANALYZE real_docs;
SELECT :n_lines AS corpus_lines,
       (SELECT count(DISTINCT line) FROM corpus_lines) AS distinct_lines,
       count(*) AS docs,
       count(*) FILTER (WHERE role = 'derived') AS derived,
       round(avg(length(body))) AS avg_chars,
       pg_size_pretty(pg_total_relation_size('real_docs')) AS size
  FROM real_docs;
