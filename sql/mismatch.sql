-- Signatures built differently cannot be compared: each difference is an
-- error naming both parameter sets.
SELECT resemblance(minhash('a b c'::text, 64), minhash('a b c'::text, 128));
SELECT resemblance(minhash('a b c'::text, 64, 5), minhash('a b c'::text, 64, 3));
SELECT resemblance(minhash('a b c'::text, 64, 5, 0), minhash('a b c'::text, 64, 5, 1));
SELECT resemblance(minhash('a b c'::text, 64, 5), minhash_chars('a b c', 5, 64));
SELECT resemblance(minhash(ARRAY['a'], 64), minhash('a'::text, 64, 1));
SELECT minhash('a b c'::text, 64) % minhash('a b c'::text, 32);
SELECT minhash('a b c'::text, 64) <%> minhash('a b c'::text, 64, 4);
SELECT resembles(minhash('a b c'::text, 64), minhash('a b c'::text, 64, 5, 7), 0.5);
SELECT containment(minhash_chars('a b c', 3, 64), minhash_chars('a b c', 4, 64));
-- Equality is not an estimate: differently built signatures are just unequal.
SELECT minhash('a b c'::text, 64) = minhash('a b c'::text, 64, 3) AS equal;
