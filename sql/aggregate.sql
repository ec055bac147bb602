-- minhash_union: the signature of the union of sets, the position-wise minimum.
CREATE FUNCTION agg_elements(lo integer, hi integer) RETURNS text[]
	LANGUAGE sql IMMUTABLE AS $$ SELECT array(SELECT 'e' || i FROM generate_series(lo, hi) i) $$;
-- The values of a signature: its text form after the header.
CREATE FUNCTION agg_values(minhash) RETURNS text
	LANGUAGE sql IMMUTABLE AS $$ SELECT regexp_replace($1::text, '^.*:', '') $$;

CREATE TABLE agg_sets (grp integer, elements text[]);
INSERT INTO agg_sets VALUES
	(1, '{a,b,c}'), (1, '{c,d,e}'), (1, NULL), (1, '{e,f}'),
	(2, '{x}'), (2, '{y,z}'), (2, '{}'),
	(3, '{solo,set}'),
	(4, NULL);

-- Per group, the union equals minhash() of the concatenated sets: the same
-- values, so resemblance 1.  Its size is an estimate (size~), at least the
-- largest part's; a single set is returned as it is (exact size).
WITH unions AS (SELECT grp, minhash_union(minhash(elements)) AS sig FROM agg_sets GROUP BY grp),
	 concatenated AS (SELECT grp, minhash(array_agg(e)) AS sig
						FROM agg_sets, unnest(elements) e GROUP BY grp)
SELECT grp, resemblance(u.sig, c.sig) AS resemblance, agg_values(u.sig) = agg_values(c.sig) AS same_values,
	   minhash_size(c.sig) AS exact_size, minhash_size(u.sig) AS union_size,
	   minhash_size_is_estimated(u.sig) AS estimated, u.sig = c.sig AS identical
  FROM unions u LEFT JOIN concatenated c USING (grp)
 ORDER BY grp;

-- No rows, or only NULLs: NULL.
SELECT minhash_union(minhash(elements)) IS NULL AS no_rows FROM agg_sets WHERE false;
SELECT minhash_union(minhash(elements)) IS NULL AS only_nulls FROM agg_sets WHERE grp = 4;

-- The empty set is the identity: union with it changes nothing, size included.
SELECT minhash_union(s) = minhash('{p,q}'::text[]) AS identity
  FROM (VALUES (minhash('{}'::text[])), (minhash('{p,q}'::text[])), (minhash('{}'::text[]))) v(s);
SELECT minhash_union(s)::text AS union_of_empty_sets
  FROM (VALUES (minhash('{}'::text[], 4)), (minhash('{}'::text[], 4))) v(s);
-- Identical signatures: the union is that signature, not an estimate.
SELECT minhash_union(s) = minhash(agg_elements(1, 10)) AS identical
  FROM (VALUES (minhash(agg_elements(1, 10))), (minhash(agg_elements(1, 10)))) v(s);

-- The two-argument form, also the aggregate's transition and combine function.
SELECT agg_values(minhash_union(minhash(agg_elements(1, 60)), minhash(agg_elements(40, 100))))
	 = agg_values(minhash(agg_elements(1, 100))) AS same_values;
SELECT minhash_union(minhash('{a}'::text[]), NULL) IS NULL AS strict;
-- ... which does not change its arguments.
WITH v AS (SELECT minhash(agg_elements(1, 5), 8) AS a, minhash(agg_elements(6, 9), 8) AS b)
SELECT minhash_union(a, b) <> a AS changed, a = minhash(agg_elements(1, 5), 8) AS a_intact FROM v;

-- As a window aggregate: a running union, each row's result kept intact.
SELECT i, agg_values(minhash_union(minhash(agg_elements(i * 10, i * 10 + 14))) OVER (ORDER BY i))
		= agg_values(minhash(agg_elements(10, i * 10 + 14))) AS running_union
  FROM generate_series(1, 4) i;

-- Signatures built differently cannot be combined: the mismatch error.
SELECT minhash_union(s) FROM (VALUES (minhash('{a}'::text[], 64)), (minhash('{a}'::text[], 32))) v(s);
SELECT minhash_union(s) FROM (VALUES (minhash('a b c'::text, 64)), (minhash('a b c'::text, 64, 3))) v(s);
SELECT minhash_union(minhash('{a}'::text[], 64, 1), minhash('{a}'::text[], 64, 2));

-- Word shingles: the union of two documents' shingle sets is not the shingle
-- set of the two texts one after the other, which also has the shingles that
-- span the junction ...
SELECT resemblance(minhash_union(minhash('one two three four five six seven'::text),
								 minhash('eight nine ten eleven twelve thirteen'::text)),
				   minhash('one two three four five six seven eight nine ten eleven twelve thirteen'::text)) < 1
	   AS concatenation_differs;
-- ... though the union of a document's signature with itself is that signature.
SELECT minhash_union(minhash(d), minhash(d)) = minhash(d) AS union_with_itself
  FROM (VALUES ('one two three four five six seven'::text)) v(d);

-- A few thousand rows: 3,000 sets of 10 elements from 3,009 in all.  The
-- size estimate is within 25% of the truth.
CREATE TABLE agg_big AS
SELECT i, i % 3 AS g, minhash(agg_elements(i, i + 9)) AS sig FROM generate_series(1, 3000) i;
ANALYZE agg_big;
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE agg_serial AS SELECT minhash_union(sig) AS sig FROM agg_big;
SELECT agg_values(s.sig) = agg_values(minhash(agg_elements(1, 3009))) AS same_values,
	   minhash_size(s.sig) AS union_size, abs(minhash_size(s.sig) - 3009) < 0.25 * 3009 AS size_within_25_percent
  FROM agg_serial s;

-- Parallel aggregation: workers build partial unions, the leader combines
-- them.  Same bytes as the serial result, size included.
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT minhash_union(sig) FROM agg_big;
SELECT minhash_union(b.sig) = (SELECT sig FROM agg_serial) AS parallel_equals_serial FROM agg_big b;

-- Partial aggregation per group, too, compared with the serial unions.
SET max_parallel_workers_per_gather = 0;
CREATE TEMP TABLE agg_serial_groups AS SELECT g, minhash_union(sig) AS sig FROM agg_big GROUP BY g;
SET max_parallel_workers_per_gather = 2;
EXPLAIN (COSTS OFF) SELECT g, minhash_union(sig) FROM agg_big GROUP BY g;
SELECT g, minhash_union(b.sig) = (SELECT s.sig FROM agg_serial_groups s WHERE s.g = b.g) AS parallel_equals_serial
  FROM agg_big b GROUP BY g ORDER BY g;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;

DROP TABLE agg_big, agg_sets;
DROP FUNCTION agg_elements(integer, integer), agg_values(minhash);
