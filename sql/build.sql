-- Building signatures from words, characters and sets.

-- The parameters are recorded; defaults are 128 values of 5-word shingles.
SELECT minhash_kind(s), minhash_shingle_size(s), minhash_seed(s), minhash_num_perm(s), minhash_size(s)
  FROM (VALUES (minhash('a b c d e f g'::text)),
               (minhash_chars('abcdefg', 3, 16, 9)),
               (minhash(ARRAY['x', 'y', 'x'], 32, -1))) AS v(s);

-- Size is the number of distinct shingles: repeats count once.
SELECT minhash_size(minhash('a b c a b c a b c'::text, 16, 1)) AS three_words,
       minhash_size(minhash('a b c a b c a b c'::text, 16, 3)) AS three_trigrams,
       minhash_size(minhash('a b c d e f'::text, 16, 5)) AS two_shingles,
       minhash_size(minhash_chars('abab', 2, 16)) AS two_bigrams;

-- Shorter than one shingle: one shingle of the words present, so a short
-- e-mail still matches itself and nothing longer that merely contains it.
SELECT minhash_size(minhash('thanks'::text)) AS one_word,
       resemblance(minhash('thanks'::text), minhash('Thanks!'::text)) AS same_short,
       resemblance(minhash('thanks'::text), minhash('thanks a lot'::text)) AS different_short;

-- No words: the empty signature, which resembles nothing, another empty one
-- and itself included (sql/empty_documents.sql).
SELECT minhash_size(minhash('...!!! ---'::text, 4)) AS size,
       minhash('...!!! ---'::text, 4) = minhash(''::text, 4) AS same_as_empty,
       resemblance(minhash(''::text), minhash('  '::text)) AS both_empty,
       resemblance(minhash(''::text), minhash('some words here'::text)) AS one_empty,
       minhash(ARRAY[]::text[], 4) AS empty_set;

-- Word and character signatures of the same text are different kinds.
SELECT minhash_chars('hello world', 5, 8) = minhash('hello world'::text, 8) AS same;

-- Character shingles see words and single spaces only.
SELECT minhash_chars('Hello,   World!', 3, 32) = minhash_chars('hello world', 3, 32) AS punctuation_ignored;

-- Sets: elements are taken as they are (no case folding), order and repeats
-- do not matter.
SELECT minhash(ARRAY['a', 'b', 'c'], 32) = minhash(ARRAY['c', 'b', 'a', 'a'], 32) AS order_free,
       minhash(ARRAY['a'], 32) = minhash(ARRAY['A'], 32) AS case_sensitive;
SELECT minhash(ARRAY['a', NULL], 32);

-- Seeds give independent hash families.
SELECT minhash('one two three four five six'::text, 64, 2, 1) = minhash('one two three four five six'::text, 64, 2, 1) AS same_seed,
       (SELECT count(*) FROM unnest(shingle_hashes('one two three four five six', 2, 1)) h
         WHERE h = ANY (shingle_hashes('one two three four five six', 2, 2))) AS shared_hashes_across_seeds;

-- shingle_hashes is the exact set the signature samples.
SELECT cardinality(shingle_hashes('a b c d e f g')) AS shingles,
       minhash_size(minhash('a b c d e f g'::text)) AS size,
       shingle_hashes('x y') = shingle_hashes('X, Y.') AS folded;

-- Parameter limits.
SELECT minhash('text'::text, 0);
SELECT minhash('text'::text, 8193);
SELECT minhash('text'::text, 16, 0);
SELECT minhash('text'::text, 16, 65);
SELECT minhash_chars('text', -1);
SELECT minhash(ARRAY['a'], -5);
SELECT shingle_hashes('text', 0);
SELECT minhash('a b'::text, 8192, 64) IS NOT NULL AS largest;

-- STRICT: nulls in, null out.
SELECT minhash(NULL::text) IS NULL AS a, minhash('x'::text, NULL) IS NULL AS b,
       minhash_chars(NULL) IS NULL AS c, minhash(NULL::text[]) IS NULL AS d,
       shingle_hashes(NULL) IS NULL AS e, minhash_tokens(NULL) IS NULL AS f;

-- IMMUTABLE is true: the result does not depend on settings or collation.
SELECT minhash('Ärger über Öl'::text, 16) = minhash('Ärger über Öl' COLLATE "C", 16) AS collation_free;

-- A long document is fed in pieces and can be cancelled.
CREATE TABLE build_big AS SELECT repeat('lorem ipsum dolor sit amet ', 8000000) AS doc;
SELECT octet_length(doc) > 200000000 AS over_200_mb FROM build_big;
SET statement_timeout = '300ms';
SELECT minhash(doc) IS NOT NULL FROM build_big;
RESET statement_timeout;
SELECT minhash_size(minhash(doc)) AS five_distinct_shingles FROM build_big;
DROP TABLE build_big;

-- A document stored out of line uncompressed is fetched a 4 MB slice at a
-- time (minhash_fetch.c): the same results as the same text in memory.
CREATE TABLE build_external (doc text);
ALTER TABLE build_external ALTER COLUMN doc SET STORAGE EXTERNAL;
INSERT INTO build_external SELECT string_agg('w' || (hashint4(i) & 4095), ' ') FROM generate_series(1, 2000000) i;
SELECT octet_length(doc) > 8 * 1024 * 1024 AS three_slices, pg_column_size(doc) = octet_length(doc) AS uncompressed
  FROM build_external;
SELECT minhash(doc) = minhash(doc || '') AS minhash_same, minhash_chars(doc) = minhash_chars(doc || '') AS chars_same,
       shingle_hashes(doc) = shingle_hashes(doc || '') AS hashes_same,
       minhash_tokens(doc) = minhash_tokens(doc || '') AS tokens_same,
       chunk_similarity(doc, left(doc, 5000000)) = chunk_similarity(doc || '', left(doc, 5000000)) AS chunks_same
  FROM build_external;
DROP TABLE build_external;
