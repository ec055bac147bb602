-- The stored value, its order and hashes, the character-shingle builders,
-- and resemblance_interval as a set-returning function.

-- btree order and hashes run over the stored bytes as a little-endian
-- machine holds them: on x86 and ARM exactly 1.0's order and hashes (these
-- values are 1.0's), so existing btree and hash indexes stay valid.  Order
-- by header first: version, kind, flags, then the low byte of the shingle
-- size (60 = 3c before 3), of the seed, of n (256 before 1), of the size,
-- then the values' bytes.
CREATE TABLE order_pins (label text, sig minhash);
INSERT INTO order_pins VALUES
 ('words seed -1', 'v1:words:k=5:seed=-1:size=2:n=2:7454420404066322'),
 ('set n=256', ('v1:set:seed=0:size=1:n=256:' || repeat('00000007', 256))::minhash),
 ('set n=1', 'v1:set:seed=0:size=1:n=1:00000007'),
 ('set values 256, 1', 'v1:set:seed=0:size=1:n=2:0000010000000001'),
 ('set values 1, 256', 'v1:set:seed=0:size=1:n=2:0000000100000100'),
 ('set size 256', 'v1:set:seed=0:size=256:n=2:0000000100000100'),
 ('chars k=60', 'v1:chars:k=60:seed=7:size=9:n=2:14b931f8183ab5d8'),
 ('chars k=3', 'v1:chars:k=3:seed=7:size=9:n=2:14b931f8183ab5d8'),
 ('chars seed 256', 'v1:chars:k=3:seed=256:size=9:n=2:14b931f8183ab5d8'),
 ('chars seed 1', 'v1:chars:k=3:seed=1:size=9:n=2:14b931f8183ab5d8'),
 ('words empty', 'v1:words:k=5:seed=0:size=0:n=2:ffffffffffffffff');
SELECT label, minhash_hash(sig), minhash_hash_extended(sig, 0) AS hash0, minhash_hash_extended(sig, 42) AS hash42
  FROM order_pins ORDER BY sig;
DROP TABLE order_pins;

-- The stored header's reserved fields (bytes 3, 6-7 and 16-19 after the
-- varlena header; 16-19 were 1.0's alignment padding, always zeroed) are
-- zero in every value made; binary input refuses non-zero reserved bytes
-- (bad_input, io), and a value read from storage is checked before use.
-- On a little-endian machine, a path of one point has a signature's size
-- and header bytes 01 00 00 00 (one point), 01 00 (closed), 00 00, seed 0,
-- then the point's x: 1.0 puts 3ff00000 in the reserved bytes 16-19, 0.0
-- leaves them zero (and n = 0).
CREATE CAST (path AS minhash) WITHOUT FUNCTION;
SELECT minhash_size(path '((1,0))'::minhash);
SELECT minhash_size(path '((0,0))'::minhash);
DROP CAST (path AS minhash);

-- resemblance_interval returns a set of one row: in FROM, in a SELECT list,
-- and LATERAL over a table.
CREATE TABLE interval_pairs (id integer, a minhash, b minhash);
INSERT INTO interval_pairs VALUES
	(1, minhash('a b c d e f g h i j'::text, 64, 2), minhash('a b c d e f g h i x'::text, 64, 2)),
	(2, minhash(''::text, 64, 2), minhash(''::text, 64, 2)),
	(3, minhash('a b c d e f g h i j'::text, 64, 2), NULL);
SELECT round(lower::numeric, 3) AS lower, round(upper::numeric, 3) AS upper
  FROM resemblance_interval(minhash('a b c d e f g h i j'::text, 64, 2), minhash('a b c d e f g h i x'::text, 64, 2));
SELECT id, resemblance_interval(a, b, 0.9)::text AS interval FROM interval_pairs ORDER BY id;
SELECT id, (resemblance_interval(a, b)).lower IS NOT NULL AS has_lower FROM interval_pairs ORDER BY id;
SELECT p.id, round(i.lower::numeric, 3) AS lower, round(i.upper::numeric, 3) AS upper
  FROM interval_pairs p CROSS JOIN LATERAL resemblance_interval(p.a, p.b) i ORDER BY p.id;
SELECT p.id, i.lower IS NULL AS no_row
  FROM interval_pairs p LEFT JOIN LATERAL resemblance_interval(p.a, p.b) i ON true ORDER BY p.id;
SELECT count(*) FROM interval_pairs p, resemblance_interval(p.a, p.b) WITH ORDINALITY AS i(lower, upper, n) WHERE i.n = 1;
-- Beside another set-returning function in a SELECT list, its one row
-- comes first and nulls pad the rest (1.0 left the protocol's "done"
-- unset, and repeated its row on every row, and one more: 4 rows here).
SELECT generate_series(1, 3) AS n, resemblance_interval(minhash(''::text, 64, 2), minhash(''::text, 64, 2))::text AS interval;
-- Its errors come on the first call, wherever it is called.
SELECT id, resemblance_interval(a, minhash('x'::text, 64)) FROM interval_pairs ORDER BY id;
SELECT * FROM resemblance_interval(minhash('x'::text, 64), minhash('x'::text, 64), 1);
DROP TABLE interval_pairs;

-- Character shingles: minhash_char_shingles takes minhash()'s order (doc,
-- num_perm, shingle_size, seed); minhash_chars (doc, q, num_perm, seed)
-- stays as 1.0 had it, so minhash_chars(doc, 3) still means q = 3.
SELECT minhash_char_shingles('Hello, world', 16, 3, 7) = minhash_chars('Hello, world', 3, 16, 7) AS same_signature,
       minhash_char_shingles('Hello, world') = minhash_chars('Hello, world') AS same_defaults;
SELECT minhash_kind(s), minhash_num_perm(s), minhash_shingle_size(s), minhash_seed(s)
  FROM (VALUES (minhash('hello world'::text, 3)), (minhash_char_shingles('hello world', 3)),
               (minhash_chars('hello world', 3)), (minhash_char_shingles('hello world', shingle_size => 3, seed => 1))) v(s);
SELECT minhash_char_shingles('hello', 0);
SELECT minhash_char_shingles('hello', 8, 65);
