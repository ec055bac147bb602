-- pgbench: a new near-duplicate of a random corpus message, signed on insert.
\set n random(1, 6046)
INSERT INTO conc_docs (source, body, sig)
SELECT id, body || ' forwarded ' || :client_id, minhash(body || ' forwarded ' || :client_id)
  FROM spam_messages WHERE id = :n;
