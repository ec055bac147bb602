-- Golden values and the index layout.  Signatures, shingle hashes and band
-- keys are stored (in tables, in GIN indexes): they must be the same in
-- every build, whatever xxHash it was built against, and in every later
-- version.  If one of these fails, stored values changed: existing
-- signatures would no longer compare with new ones, and indexes would miss
-- rows.

-- Signatures of fixed inputs, as text and as binary (shingle hashes of XXH3,
-- seeded splitmix64 permutations, the tokenizer).
SELECT minhash('The quick brown fox jumps over the lazy dog'::text, 8)::text AS words_8;
SELECT minhash_chars('The quick brown fox jumps over the lazy dog', 4, 8, -7)::text AS chars_8;
SELECT minhash(ARRAY['apple', 'banana', 'cherry'], 8, 42)::text AS set_8;
SELECT minhash_send(minhash('Ça va? ΣΊΣΥΦΟΣ ПРИВЕТ мир 日本語'::text, 8, 2, 1)) AS multilingual_binary;
SELECT md5(minhash('The quick brown fox jumps over the lazy dog'::text)::text) AS words_128_md5,
       md5(minhash_send(minhash('The quick brown fox jumps over the lazy dog'::text))) AS words_128_binary_md5;
SELECT shingle_hashes('The quick brown fox jumps over the lazy dog') AS fox_shingle_hashes;

-- The default index layout (layout 1): at 0.8 and 128 values, 28 bands of
-- 4, and a row at the threshold shares at least 3 keys with the query.
SELECT * FROM lsh_index_layout(0.8);
-- Layout 1 over a dense grid, in one digest: thresholds 0.001 to 1 by
-- 0.001, and every resemblance k / n a signature of n values can have.
SELECT count(*) AS layouts, md5(string_agg(format('%sx%s/%s', l.bands, l.rows, l.min_bands), ',' ORDER BY n, t)) AS digest
  FROM unnest(ARRAY[1, 2, 3, 5, 7, 16, 64, 100, 128, 200, 256, 1000, 1024, 8192]) n,
       LATERAL (SELECT step / 1000.0 FROM generate_series(1, 1000) step
                UNION SELECT k::float8 / n FROM generate_series(1, least(n, 1024)) k) g(t),
       lsh_index_layout(t, n) l;
-- Band keys of that layout: XXH3 of each band's rows, little-endian, seeded
-- with the band number.
SELECT (minhash_bands(minhash('The quick brown fox jumps over the lazy dog'::text), 28, 4))[1:3] AS first_band_keys,
       md5(minhash_bands(minhash('The quick brown fox jumps over the lazy dog'::text), 28, 4)::text) AS band_keys_md5;

-- The approximate layout (gin_minhash_approx_ops layout 1, and recall =>
-- of near_dupe_groups and near_dupe_pairs), frozen like layout 1: computed
-- in integers, so the same on every build.  A grid of thresholds, recalls
-- and signature sizes ...
SELECT n, recall, string_agg(format('%s:%sx%s', t, l.bands, l.rows), ' ' ORDER BY t) AS layouts
  FROM unnest(ARRAY[64, 128, 256, 1024]) n, unnest(ARRAY[0.9, 0.99, 0.999]::float8[]) recall,
       unnest(ARRAY[0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95]::float8[]) t, lsh_index_layout(t, n, recall) l
 GROUP BY 1, 2 ORDER BY 1, 2;
-- ... and a larger one in one digest (thresholds 0.01 to 1, six recalls,
-- 17 sizes; a size too small for a recall is "none").
CREATE FUNCTION layout_recall_or_none(t float8, n int, recall float8) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	l record;
BEGIN
	SELECT * INTO l FROM lsh_index_layout(t, n, recall);
	RETURN format('%sx%s', l.bands, l.rows);
EXCEPTION WHEN invalid_parameter_value THEN
	RETURN 'none';
END $$;
SELECT count(*) AS layouts, count(*) FILTER (WHERE l = 'none') AS none,
       md5(string_agg(l, ',' ORDER BY n, recall, step)) AS digest
  FROM unnest(ARRAY[1, 2, 3, 4, 5, 8, 16, 32, 64, 100, 128, 200, 256, 512, 1024, 4096, 8192]) n,
       unnest(ARRAY[0.5, 0.8, 0.9, 0.95, 0.99, 0.999]::float8[]) recall,
       generate_series(1, 100) step,
       layout_recall_or_none(step / 100.0, n, recall) l;
DROP FUNCTION layout_recall_or_none(float8, int, float8);
-- The band keys of a fixed signature for a few approximate layouts.
SELECT t, recall, l.bands, l.rows,
       md5(minhash_bands(minhash('The quick brown fox jumps over the lazy dog'::text), l.bands, l.rows)::text) AS band_keys_md5
  FROM (VALUES (0.5, 0.99), (0.7, 0.9), (0.8, 0.99), (0.9, 0.999)) v(t, recall), lsh_index_layout(t, 128, recall) l
 ORDER BY t;

-- The index's keys themselves, seen through what a scan rechecks.  A
-- signature of 128 values base + i, with chosen values at a few positions.
CREATE FUNCTION layout_signature(base bigint, chosen bigint[] DEFAULT '{}') RETURNS minhash
LANGUAGE sql IMMUTABLE AS $$
	SELECT ('v1:words:k=5:seed=0:size=500:n=128:' ||
	        string_agg(lpad(to_hex(coalesce(chosen[i + 1], base + i)), 8, '0'), '' ORDER BY i))::minhash
	  FROM generate_series(0, 127) i
$$;
-- The query is signature 1000 + i.  The other rows resemble it nowhere, but
-- their first value in some bands was searched for (test/layout/README) so
-- that their layout-1 keys equal the query's there:
--   chosen_20: bands 0, 1, 2 of 28 x 4, equal in 20 bits, not in 21;
--   chosen_19: bands 0, 1, 2 of 28 x 4, equal in 19 bits, not in 20;
--   chosen_24: bands 0, 1 of 16 x 8, equal in 24 bits, not in 25.
-- Under layout 1 (key = band key ^ band key >> 32, low key_bits), a row
-- sharing as many keys as a row at the threshold must is a candidate, which
-- the recheck then removes: exactly one row, in each index below.  Any
-- change to the layout's bands, its folding or its default key_bits moves
-- that count.
CREATE TABLE layout_docs (id text, sig minhash);
INSERT INTO layout_docs VALUES
	('query', layout_signature(1000)),
	('chosen_20', layout_signature(5000000, '{1148843,NULL,NULL,NULL,3321333,NULL,NULL,NULL,1231162}')),
	('chosen_19', layout_signature(6000000, '{246152,NULL,NULL,NULL,269218,NULL,NULL,NULL,274824}')),
	('chosen_24', layout_signature(7000000, '{3102139,NULL,NULL,NULL,NULL,NULL,NULL,NULL,43212491}'));
CREATE TABLE layout_query AS SELECT layout_signature(1000) AS sig;
-- What a bitmap scan of the index reads and what its recheck removes.
-- PostgreSQL 18 prints whole actual row counts with two decimals
-- (rows=2.00): printed as before 18, so that one expected file serves
-- every major.
CREATE FUNCTION layout_scan(query text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) ' || query LOOP
		IF line ~ 'Bitmap Index Scan|Rows Removed by Index Recheck' THEN
			RETURN NEXT regexp_replace(line, '(actual rows=[0-9]+)\.00 ', '\1 ', 'g');
		END IF;
	END LOOP;
END $$;
SET enable_seqscan = off;
CREATE INDEX layout_docs_sig ON layout_docs USING gin (sig);
SELECT layout_scan('SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query)');
SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query);
-- Explicit options: 16 bands of 8, keys of 24 bits; at 0.89 a row may
-- disagree on 14 positions, so a candidate shares 2 keys.
DROP INDEX layout_docs_sig;
CREATE INDEX layout_docs_sig ON layout_docs USING gin (sig gin_minhash_ops (bands = 16, rows = 8, key_bits = 24));
SELECT layout_scan('SELECT id FROM layout_docs WHERE sig %> minhash_query((SELECT sig FROM layout_query), 0.89)');
-- Layout 1 named explicitly is the same index.
DROP INDEX layout_docs_sig;
CREATE INDEX layout_docs_sig ON layout_docs USING gin (sig gin_minhash_ops (layout = 1));
SELECT layout_scan('SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query)');

-- The layout is recorded with the index, and one this version does not
-- know is refused: at CREATE INDEX ...
CREATE INDEX ON layout_docs USING gin (sig gin_minhash_ops (layout = 2));
CREATE INDEX ON layout_docs USING gin (sig gin_minhash_ops (layout = 0));
-- ... and at every scan and insert of an index that records it (as one
-- built by a later version would: the catalog is edited here to stand in).
DROP INDEX layout_docs_sig;
CREATE INDEX layout_docs_sig ON layout_docs USING gin (sig);
SELECT attoptions FROM pg_attribute WHERE attrelid = 'layout_docs_sig'::regclass;
UPDATE pg_attribute SET attoptions = '{layout=2}' WHERE attrelid = 'layout_docs_sig'::regclass;
SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query);
INSERT INTO layout_docs VALUES ('another', layout_signature(2000));
REINDEX INDEX layout_docs_sig;
-- Back to layout 1 (no option): the index reads again.
UPDATE pg_attribute SET attoptions = NULL WHERE attrelid = 'layout_docs_sig'::regclass;
SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query);
-- A threshold option of 0, which CREATE INDEX refuses but a 1.0 index may
-- hold, still reads and rebuilds: num_perm bands of one value.
UPDATE pg_attribute SET attoptions = '{threshold=0}' WHERE attrelid = 'layout_docs_sig'::regclass;
REINDEX INDEX layout_docs_sig;
SELECT layout_scan('SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query)');
SELECT id FROM layout_docs WHERE sig % (SELECT sig FROM layout_query);
RESET enable_seqscan;
DROP TABLE layout_docs, layout_query;
DROP FUNCTION layout_signature(bigint, bigint[]), layout_scan(text);
