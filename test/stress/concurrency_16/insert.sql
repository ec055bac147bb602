-- pgbench: one document of a family, in its own transaction.  The family is
-- corpus message :family (one of :families); the document is its body plus
-- :tail random words (0: an exact copy), so two documents of a family
-- resemble each other about |body| / (|body| + tail1 + tail2): some at or
-- above the trigger's threshold, some below.
\set family random(1, :families)
\set tail random(0, 150)
\set salt random(1, 1000000000)
INSERT INTO conc16_docs (client, family, body, sig)
SELECT :client_id, :family, d, minhash(d)
  FROM (SELECT body || coalesce((SELECT string_agg(' w' || ((:salt + i * 7919) % 1000003), '')
                                   FROM generate_series(1, :tail) i), '') AS d
          FROM spam_messages WHERE id = :family) doc;
