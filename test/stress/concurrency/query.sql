-- pgbench: the near-duplicates of a random corpus message, through the index.
\set n random(1, 6046)
SELECT count(*) FROM conc_docs WHERE sig % (SELECT minhash(body) FROM spam_messages WHERE id = :n);
