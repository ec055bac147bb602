-- LSH banding: probabilities, parameters, band keys and the GIN index.

-- lsh_probability against the seed paper's Table 8 (b = 20, r = 5).
SELECT s, round(lsh_probability(s, 20, 5)::numeric, 5) AS p
  FROM unnest(ARRAY[0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]) AS s;
SELECT lsh_probability(0, 20, 5) AS at_0, lsh_probability(1, 20, 5) AS at_1;
SELECT lsh_probability(1.5, 20, 5);
SELECT lsh_probability(0.5, 0, 5);
-- At least min_bands of the bands: the binomial tail; one band is the above.
SELECT lsh_probability(0.5, 20, 5, 1) = lsh_probability(0.5, 20, 5) AS one_band_is_default,
       round(lsh_probability(0.8, 28, 4, 3)::numeric, 6) AS p_3_of_28,
       round((1 - (SELECT sum(factorial(28) / (factorial(k) * factorial(28 - k)) * 0.4096 ^ k * 0.5904 ^ (28 - k))
                    FROM generate_series(0, 2) k))::numeric, 6) AS by_hand,
       lsh_probability(0.8, 28, 4, 2) > lsh_probability(0.8, 28, 4, 3) AS fewer_needed_more_likely;
SELECT lsh_probability(0.5, 20, 5, 0);
SELECT lsh_probability(0.5, 20, 5, 21);

-- The layout the index takes for a threshold: the pigeonhole minimum
-- D + 1 bands plus two spare, so a row at the threshold shares 3 keys.
SELECT t, l.* FROM unnest(ARRAY[0.5, 0.7, 0.8, 0.9, 0.95, 1.0]) t, LATERAL lsh_index_layout(t) l;
SELECT * FROM lsh_index_layout(0.8, 256);
SELECT * FROM lsh_index_layout(0.0);
SELECT * FROM lsh_index_layout(0.8, 0);

-- lsh_params: a layout that fits, with small error areas; weighting false
-- negatives more buys recall with more, shorter bands.
SELECT bands, rows, bands * rows <= 128 AS fits, round(false_positive::numeric, 4) AS fp, round(false_negative::numeric, 4) AS fn
  FROM lsh_params(0.8, 128);
SELECT (SELECT bands FROM lsh_params(0.8, 128, 0.1, 0.9)) >= (SELECT bands FROM lsh_params(0.8, 128, 0.9, 0.1)) AS recall_weight_adds_bands,
       (SELECT false_negative FROM lsh_params(0.8, 128, 0.1, 0.9)) <= (SELECT false_negative FROM lsh_params(0.8, 128, 0.9, 0.1)) AS fewer_misses;
SELECT * FROM lsh_params(0.8, 0);
SELECT * FROM lsh_params(1.5, 128);
SELECT * FROM lsh_params(0.8, 128, 0, 0);

-- Band keys: one per band, and equal rows in different bands give different
-- keys (the empty signature holds ffffffff everywhere).
SELECT cardinality(minhash_bands(minhash('a b c d e f'::text), 26, 4)) AS keys,
       (SELECT count(DISTINCT k) FROM unnest(minhash_bands(minhash(''::text), 32, 4)) k) AS distinct_keys_of_equal_rows;
SELECT minhash_bands(minhash('a b c d e f'::text), 26, 4) = minhash_bands(minhash('A, B, C; D E F'::text), 26, 4) AS same_text_same_keys;
SELECT minhash_bands(minhash('a b c'::text), 33, 4);
SELECT minhash_bands(minhash('a b c'::text), 0, 4);

-- A corpus with near-duplicate families: each family has a base text and
-- variants with a few words replaced.
CREATE TABLE lsh_docs (id int PRIMARY KEY, family int, body text, sig minhash(128));
INSERT INTO lsh_docs
SELECT f * 16 + v, f,
       (SELECT string_agg(CASE WHEN v > 0 AND (w * 7 + v * 13) % 40 < v THEN 'edit' || v || '_' || w
                               ELSE 'f' || f || 'w' || w END, ' ' ORDER BY w)
          FROM generate_series(1, 60) w),
       NULL
  FROM generate_series(0, 59) f, generate_series(0, 15) v;
UPDATE lsh_docs SET sig = minhash(body);
INSERT INTO lsh_docs VALUES (9001, -1, '', minhash(''::text)), (9002, -1, '...', minhash('...'::text));
CREATE INDEX lsh_docs_sig ON lsh_docs USING gin (sig);
ANALYZE lsh_docs;

-- Both forms use the index.  PostgreSQL 17 and later print the subquery's
-- value as (InitPlan 1).col1, not $0: expected/lsh_1.out has those plans.
SET enable_seqscan = off;
EXPLAIN (COSTS OFF) SELECT id FROM lsh_docs WHERE sig % (SELECT sig FROM lsh_docs WHERE id = 5);
EXPLAIN (COSTS OFF) SELECT id FROM lsh_docs WHERE resembles(sig, (SELECT sig FROM lsh_docs WHERE id = 5), 0.7);
RESET enable_seqscan;

-- The index returns exactly what a sequential scan returns, for many query
-- documents and thresholds, through both forms.
CREATE FUNCTION lsh_matches(threshold float8, use_index bool, session_form bool) RETURNS TABLE (query int, hit int)
LANGUAGE plpgsql AS $$
BEGIN
	PERFORM set_config('enable_seqscan', CASE WHEN use_index THEN 'off' ELSE 'on' END, true);
	PERFORM set_config('enable_bitmapscan', CASE WHEN use_index THEN 'on' ELSE 'off' END, true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('minhash.threshold', threshold::text, true);
	IF session_form THEN
		RETURN QUERY SELECT q.id, d.id FROM lsh_docs q, lsh_docs d
			WHERE q.id % 11 = 0 AND d.sig % q.sig;
	ELSE
		RETURN QUERY SELECT q.id, d.id FROM lsh_docs q, lsh_docs d
			WHERE q.id % 11 = 0 AND resembles(d.sig, q.sig, threshold);
	END IF;
END $$;
-- Rows of the sequential scan, and rows in one answer but not the other.
CREATE FUNCTION lsh_compare(threshold float8, session_form bool, OUT seqscan_rows bigint, OUT differences bigint)
LANGUAGE sql AS $$
	SELECT (SELECT count(*) FROM lsh_matches(threshold, false, session_form)),
	       (SELECT count(*) FROM ((SELECT * FROM lsh_matches(threshold, true, session_form))
	                              EXCEPT ALL (SELECT * FROM lsh_matches(threshold, false, session_form))) x) +
	       (SELECT count(*) FROM ((SELECT * FROM lsh_matches(threshold, false, session_form))
	                              EXCEPT ALL (SELECT * FROM lsh_matches(threshold, true, session_form))) x)
$$;
SELECT threshold, session_form, c.*
  FROM unnest(ARRAY[1.0, 0.95, 0.9, 0.8, 0.75, 0.6, 0.3, 0.0]) AS threshold,
       unnest(ARRAY[true, false]) AS session_form,
       LATERAL lsh_compare(threshold, session_form) c
 ORDER BY 1 DESC, 2;

-- The guarantee at its edge.  Signatures of 128 values that differ from a
-- base in exactly d positions, one in each of the first d bands (positions
-- 0, 4, 8, ...: the worst case, hitting as many bands as possible).  At
-- d = 25, resemblance 103/128 >= 0.8 with only 3 of the 28 bands intact: the
-- index must find it.  At d = 26, 102/128 < 0.8: neither finds it.
CREATE FUNCTION lsh_edge_signature(d int) RETURNS minhash LANGUAGE sql IMMUTABLE AS $$
	SELECT ('v1:words:k=5:seed=0:size=500:n=128:' ||
	        string_agg(lpad(to_hex(CASE WHEN i % 4 = 0 AND i / 4 < d THEN 100000 + i ELSE 1000 + i END), 8, '0'), '' ORDER BY i))::minhash
	  FROM generate_series(0, 127) i
$$;
CREATE TABLE lsh_edge (d int, sig minhash);
INSERT INTO lsh_edge SELECT d, lsh_edge_signature(d) FROM generate_series(0, 32) d;
CREATE INDEX ON lsh_edge USING gin (sig);
SET enable_seqscan = off;
SELECT array_agg(d ORDER BY d) AS found_through_index FROM lsh_edge WHERE sig % lsh_edge_signature(0);
RESET enable_seqscan;
SET enable_bitmapscan = off;
SELECT array_agg(d ORDER BY d) AS found_by_seqscan FROM lsh_edge WHERE sig % lsh_edge_signature(0);
RESET enable_bitmapscan;

-- The same with an explicit layout (16 bands of 8 rows: guaranteed from
-- resemblance 0.89; below, the scan reads the whole index).
DROP INDEX lsh_docs_sig;
CREATE INDEX lsh_docs_sig ON lsh_docs USING gin (sig gin_minhash_ops (bands = 16, rows = 8));
SELECT threshold, c.*
  FROM unnest(ARRAY[0.95, 0.9, 0.85, 0.5]) AS threshold, LATERAL lsh_compare(threshold, false) c
 ORDER BY 1 DESC;

-- Keys cut to 16 bits collide all the time; collisions only add candidates,
-- so the answers stay exact.
DROP INDEX lsh_docs_sig;
CREATE INDEX lsh_docs_sig ON lsh_docs USING gin (sig gin_minhash_ops (key_bits = 16));
SELECT threshold, c.*
  FROM unnest(ARRAY[0.9, 0.8]) AS threshold, LATERAL lsh_compare(threshold, true) c
 ORDER BY 1 DESC;

-- Options are checked.
CREATE INDEX ON lsh_docs USING gin (sig gin_minhash_ops (key_bits = 12));
CREATE INDEX ON lsh_docs USING gin (sig gin_minhash_ops (bands = 16));
CREATE INDEX ON lsh_docs USING gin (sig gin_minhash_ops (bands = 16, rows = 8, threshold = 0.9));
CREATE INDEX ON lsh_docs USING gin (sig gin_minhash_ops (threshold = 1.5));
CREATE INDEX ON lsh_docs USING gin (sig gin_minhash_ops (bands = 40, rows = 4));
CREATE INDEX ON lsh_docs USING gin (sig gin_minhash_ops (colour = 1));

-- The per-query form as a value.
SELECT minhash_query(minhash('a b c'::text, 4), 0.75);
SELECT minhash_query('v1:words:k=5:seed=0:size=1:n=1:00000000', 0.5)::text::minhash_query IS NOT NULL AS round_trip;
SELECT '2:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query;
SELECT 'v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query;
SELECT minhash_query(minhash('a b c'::text, 4), -0.1);
-- Binary form: the threshold as float8, then the signature's binary form;
-- COPY BINARY carries it both ways, and recv checks both parts.
SELECT minhash_query_send(minhash_query(minhash('a b c'::text, 4), 0.75))
       = '\x3fe8000000000000'::bytea || minhash_send(minhash('a b c'::text, 4)) AS send_layout;
CREATE TABLE lsh_query_values (q minhash_query);
INSERT INTO lsh_query_values VALUES (minhash_query(minhash('a b c'::text, 4), 0.75)), (minhash_query(minhash(''::text), 1)), (NULL);
\set query_file /tmp/minhash_regress_ :PORT _query.bin
COPY lsh_query_values TO :'query_file' (FORMAT binary);
CREATE TABLE lsh_query_copy (q minhash_query);
COPY lsh_query_copy FROM :'query_file' (FORMAT binary);
SELECT (SELECT array_agg(q::text ORDER BY q::text) FROM lsh_query_values) = (SELECT array_agg(q::text ORDER BY q::text) FROM lsh_query_copy) AS binary_round_trip;
-- Raw bytes read as a minhash_query: a threshold of 2, then a cut signature.
CREATE TABLE lsh_query_raw (b bytea);
INSERT INTO lsh_query_raw VALUES ('\x4000000000000000'::bytea || minhash_send(minhash('a b c'::text, 4)));
COPY lsh_query_raw TO :'query_file' (FORMAT binary);
COPY lsh_query_copy FROM :'query_file' (FORMAT binary);
TRUNCATE lsh_query_raw;
INSERT INTO lsh_query_raw VALUES ('\x3fe8000000000000'::bytea || substring(minhash_send(minhash('a b c'::text, 4)) FROM 1 FOR 10));
COPY lsh_query_raw TO :'query_file' (FORMAT binary);
COPY lsh_query_copy FROM :'query_file' (FORMAT binary);
DROP TABLE lsh_query_values, lsh_query_copy, lsh_query_raw;
