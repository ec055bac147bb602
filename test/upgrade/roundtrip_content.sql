-- The content that test/upgrade/dump_restore.sh and test/upgrade/pg_upgrade.sh carry across:
-- signatures of every kind and parameter set, NULLs, the empty signature, an
-- estimated size (a union), a minhash_query column, two gin_minhash_ops
-- indexes with options, a gin_minhash_approx_ops index beside the first,
-- and the flagging trigger.  Deterministic; runs in
-- the current database (which must not have these objects yet).
\set ON_ERROR_STOP on
SET client_min_messages = warning;
CREATE EXTENSION minhash;

CREATE TABLE rt_docs (
	id			int PRIMARY KEY,
	body		text,
	sig			minhash(128),	-- minhash(text): the indexed, flagged column
	sig256		minhash(256),	-- minhash(text, 256)
	sig_chars	minhash,		-- minhash_chars(text)
	sig_set		minhash(64),	-- minhash(text[], 64, seed)
	sig_k3		minhash,		-- minhash(text, 128, 3, 42): other shingle size and seed
	dup_of		int,			-- set by the trigger
	q			minhash_query	-- a query with its own threshold
);
COMMENT ON COLUMN rt_docs.sig IS 'words, 128 values';
CREATE INDEX rt_docs_sig ON rt_docs USING gin (sig gin_minhash_ops (bands = 16, rows = 8));
CREATE INDEX rt_docs_sig256 ON rt_docs USING gin (sig256 gin_minhash_ops (threshold = 0.7, key_bits = 24));
CREATE INDEX rt_approx ON rt_docs USING gin (sig gin_minhash_approx_ops (threshold = 0.6, recall = 0.95));
CREATE TRIGGER rt_flag BEFORE INSERT OR UPDATE ON rt_docs
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');

-- 50 families of 20: a base of 50 words and members with a few words
-- replaced.  One row per statement, so the trigger of each member sees the
-- members inserted before it.
DO $$
DECLARE
	doc text;
BEGIN
	FOR f IN 0..49 LOOP
		FOR m IN 0..19 LOOP
			SELECT string_agg(CASE WHEN m > 0 AND (hashint4(f * 64 + w) & 63) < m
			                       THEN 'edit' || m || '_' || w
			                       ELSE 'w' || ((hashint4(f * 50 + w) & 2147483647) % 20000) END,
			                  ' ' ORDER BY w)
			  INTO doc FROM generate_series(1, 50) w;
			INSERT INTO rt_docs (id, body, sig, sig256, sig_chars, sig_set, sig_k3, q)
			VALUES (f * 20 + m, doc, minhash(doc), minhash(doc, 256), minhash_chars(doc),
			        minhash(string_to_array(doc, ' '), 64, 7), minhash(doc, 128, 3, 42),
			        minhash_query(minhash(doc), 0.5 + (f * 20 + m) % 50 / 100.0));
		END LOOP;
	END LOOP;
END $$;
-- Specials: empty documents (the empty signature), a one-word document, a
-- row of NULLs, a union (estimated size), a sparse id.
INSERT INTO rt_docs (id, body, sig, sig256, sig_chars, sig_set, sig_k3, q) VALUES
	(5000, '', minhash(''::text), minhash(''::text, 256), minhash_chars(''), minhash('{}'::text[], 64, 7),
	 minhash(''::text, 128, 3, 42), minhash_query(minhash(''::text), 1)),
	(5001, '...', minhash('...'::text), NULL, NULL, NULL, NULL, NULL),
	(5002, 'solitary', minhash('solitary'::text), minhash('solitary'::text, 256), minhash_chars('solitary'),
	 minhash('{solitary}'::text[], 64, 7), minhash('solitary'::text, 128, 3, 42), minhash_query(minhash('solitary'::text), 0)),
	(5003, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
	(2147483647, 'union of family 0', (SELECT minhash_union(sig) FROM rt_docs WHERE id < 20),
	 (SELECT minhash_union(sig256) FROM rt_docs WHERE id < 20), NULL, NULL, NULL, NULL);
-- Near-copies inserted after the bulk: the trigger flags them.
DO $$
BEGIN
	FOR i IN 0..9 LOOP
		INSERT INTO rt_docs (id, body, sig) SELECT 6000 + i, body || ' postscript', minhash(body || ' postscript')
		  FROM rt_docs WHERE id = i * 20 + 3;
	END LOOP;
END $$;
ANALYZE rt_docs;
