-- Everything test/upgrade/roundtrip_content.sql created, one line per fact, for
-- diffing across a dump/restore or pg_upgrade (psql -At).  Signatures appear
-- in their text form and as minhash_send bytes.
SELECT 'extension', extname, extversion FROM pg_extension WHERE extname = 'minhash';
SELECT 'column', attname, format_type(atttypid, atttypmod), attnotnull,
       col_description(attrelid, attnum)
  FROM pg_attribute WHERE attrelid = 'rt_docs'::regclass AND attnum > 0 AND NOT attisdropped ORDER BY attnum;
SELECT 'index', pg_get_indexdef(indexrelid) FROM pg_index WHERE indrelid = 'rt_docs'::regclass ORDER BY 2;
SELECT 'trigger', pg_get_triggerdef(oid) FROM pg_trigger WHERE tgrelid = 'rt_docs'::regclass AND NOT tgisinternal ORDER BY 2;
SELECT 'rows', count(*), count(sig), count(sig256), count(sig_chars), count(sig_set), count(sig_k3),
       count(dup_of), count(q) FROM rt_docs;
SELECT 'row', id, md5(body), dup_of, q,
       sig, encode(minhash_send(sig), 'hex'),
       sig256, encode(minhash_send(sig256), 'hex'),
       sig_chars, encode(minhash_send(sig_chars), 'hex'),
       sig_set, encode(minhash_send(sig_set), 'hex'),
       sig_k3, encode(minhash_send(sig_k3), 'hex')
  FROM rt_docs ORDER BY id;
