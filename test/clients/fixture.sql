-- The fixture of test/clients/clients.sh, in a database of its own:
-- documents(id, body, sig) with 2,000 documents of 40 distinct words each
-- (md5 strings), a GIN index on sig, and ten near-duplicate pairs: document
-- i + 1000 is document i with its first word replaced (i = 1..10), so
-- 35 of their 37 5-word shingles are shared (resemblance 0.95).
CREATE EXTENSION minhash;
CREATE TABLE documents (
    id   bigint PRIMARY KEY,
    body text NOT NULL,
    sig  minhash(128)
);
INSERT INTO documents (id, body)
SELECT i, (SELECT string_agg(md5((i * 41 + j)::text), ' ') FROM generate_series(1, 40) AS j)
FROM generate_series(1, 2000) AS i;
UPDATE documents AS d SET body = regexp_replace(o.body, '^\S+', 'revised')
FROM documents AS o WHERE d.id BETWEEN 1001 AND 1010 AND o.id = d.id - 1000;
UPDATE documents SET sig = minhash(body);
CREATE INDEX documents_sig_idx ON documents USING gin (sig);
VACUUM ANALYZE documents;
