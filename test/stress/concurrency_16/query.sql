-- pgbench: the near-duplicates of a family's base message, through the
-- index, with % (minhash.threshold) and with %> at a higher threshold.
\set family random(1, :families)
SELECT count(*) FROM conc16_docs
 WHERE sig % (SELECT minhash(body) FROM spam_messages WHERE id = :family);
SELECT count(*) FROM conc16_docs
 WHERE sig %> minhash_query((SELECT minhash(body) FROM spam_messages WHERE id = :family), 0.9);
