-- Byte sketches: the low byte of each value, and the bound they give.
-- The distributed pairs rule candidates out with them (test/citus/citus.sh).
CREATE TABLE sk_docs (id int PRIMARY KEY, sig minhash);
-- 60 documents in 6 families: family members share most words, so the
-- pairs run from unrelated to near-identical.
INSERT INTO sk_docs
SELECT n, minhash(string_agg(CASE WHEN w % 10 < n % 10 / 2 THEN 'v' || n || '_' || w ELSE 'f' || n / 10 || '_' || w END,
                             ' ' ORDER BY w))
  FROM generate_series(0, 59) n, generate_series(1, 60) w GROUP BY n;

-- The bound is never below the resemblance (equal values share their low
-- byte), and above it only by chance agreements, 1 position in 256.
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE resemblance(a.sig, b.sig) >= 0.5) AS resembling,
       count(*) FILTER (WHERE resemblance_bound(minhash_byte_sketch(a.sig), b.sig) < resemblance(a.sig, b.sig)) AS below,
       count(*) FILTER (WHERE resemblance_bound(minhash_byte_sketch(a.sig), b.sig) > resemblance(a.sig, b.sig) + 0.05) AS far_above,
       round(avg(resemblance_bound(minhash_byte_sketch(a.sig), b.sig) - resemblance(a.sig, b.sig))::numeric * 128, 1)
         BETWEEN 0.2 AND 0.8 AS chance_agreements_near_half_a_position
  FROM sk_docs a, sk_docs b WHERE a.id < b.id;
-- A pair of different families has resemblance near 0, and a bound near
-- 1/256 (a fraction of the 128 positions, each agreeing by chance).
SELECT resemblance(a.sig, b.sig) AS r, resemblance_bound(minhash_byte_sketch(a.sig), b.sig) <= 3.0 / 128 AS bound_small
  FROM sk_docs a, sk_docs b WHERE a.id = 0 AND b.id = 59;

-- A sketch is a 12-byte header and one byte per value; with itself, 1.
SELECT octet_length(minhash_byte_sketch(minhash('a b c d e f'::text))) AS bytes_128,
       octet_length(minhash_byte_sketch(minhash('a b c d e f'::text, 256))) AS bytes_256,
       resemblance_bound(minhash_byte_sketch(sig), sig) AS with_itself
  FROM sk_docs WHERE id = 1;
-- Documents without words resemble nothing: the bound is 0, as resemblance.
SELECT resemblance_bound(minhash_byte_sketch(minhash(''::text)), minhash(''::text)) AS empty_empty,
       resemblance_bound(minhash_byte_sketch(minhash(''::text)), minhash('a b c d e f'::text)) AS empty_words,
       resemblance_bound(minhash_byte_sketch(minhash('a b c d e f'::text)), minhash('  ,  '::text)) AS words_empty;

-- Misuse is an error: signatures of other parameters, a value that is not
-- a sketch; and the markings.
\set VERBOSITY default
SELECT resemblance_bound(minhash_byte_sketch(minhash('a b c d e f'::text, 64)), minhash('a b c d e f'::text));
SELECT resemblance_bound(minhash_byte_sketch(minhash('a b c d e f'::text, 128, 5, 1)), minhash('a b c d e f'::text));
SELECT resemblance_bound('\x0102'::bytea, minhash('a b c d e f'::text));
SELECT resemblance_bound(substring(minhash_byte_sketch(sig) FROM 1 FOR 100), sig) FROM sk_docs WHERE id = 1;
SELECT resemblance_bound(NULL, sig) IS NULL AS strict FROM sk_docs WHERE id = 1;
SELECT proname, provolatile, proisstrict, proparallel FROM pg_proc
 WHERE proname IN ('minhash_byte_sketch', 'resemblance_bound') ORDER BY 1;
DROP TABLE sk_docs;
