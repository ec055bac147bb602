-- Explaining a match: exact S_R, the chunk measures S_J and S_L, common
-- chunks, highlighting and the resemblance interval (seed 000).
\set VERBOSITY default

-- Seed 000, example 1: a memo and its revision.  Two chunks of 40 and 45
-- words separated by a typo fixed ("too" -> "to"), and different signatures
-- of 11 and 14 words: L = 100, S = 97, C = 85.
CREATE TEMP TABLE ex1 AS SELECT
  'It is important to use available technologies to reduce the cost of document review in litigation, because the volume of electronically stored information keeps growing every year and reading each page is slow and expensive for the clients who want' AS chunk1,
  'keep their budgets under control. Predictive coding, near-duplicate grouping and e-mail threading let a small team of reviewers see each distinct text only once, so that they can focus their attention on the documents that matter most for the legal case at hand.' AS chunk2;
CREATE TEMP TABLE ex1_docs AS SELECT
  chunk1 || ' too ' || chunk2 || ' Sincerely, Jane Roe, a litigation partner at Roe and Doe LLP.' AS a,
  chunk1 || ' to ' || chunk2 || ' Best regards, John Smith, who has six years of experience in litigation support work.' AS b
  FROM ex1;
SELECT cardinality(minhash_tokens(chunk1)) AS chunk1_words, cardinality(minhash_tokens(chunk2)) AS chunk2_words FROM ex1;
SELECT cardinality(minhash_tokens(a)) AS a_words, cardinality(minhash_tokens(b)) AS b_words,
       cardinality(shingle_hashes(a)) AS a_shingles FROM ex1_docs;
SELECT c.*, round(100 * c.s_l) AS s_l_pct, round(100 * c.s_j) AS s_j_pct,
       round(100 * shingle_resemblance(a, b)) AS s_r_pct
  FROM ex1_docs, chunk_similarity(a, b) c;
SELECT a_start, b_start, words, left(chunk, 30) AS chunk_begins FROM ex1_docs, common_chunks(a, b);
-- The seed's formula: S_R = (C - n(w-1)) / (L + S - C + (n-2)(w-1)).
SELECT shingle_resemblance(a, b) = (85 - 2 * 4)::float8 / (100 + 97 - 85 + 0 * 4) AS seed_formula FROM ex1_docs;

-- Example 2: a text and the text twice.  Literal matching: 50%;
-- information matching: 100%; S_R = 12 / 16 = 75%.
CREATE TEMP TABLE ex2 AS SELECT
  'Predictive coding can find relevant documents faster and far more cheaply than teams of human reviewers.' AS a;
SELECT cardinality(minhash_tokens(a)) AS words, cardinality(shingle_hashes(a)) AS shingles,
       cardinality(shingle_hashes(a || ' ' || a)) AS shingles_twice FROM ex2;
SELECT m.matching, c.common_words, c.longer_words, c.shorter_words, c.chunks, c.s_j, c.s_l
  FROM ex2, (VALUES ('literal'), ('information')) AS m(matching),
       chunk_similarity(a, a || ' ' || a, 5, m.matching) c;
SELECT shingle_resemblance(a, a || ' ' || a) AS s_r FROM ex2;

-- Example 3: two 5-word chunks that overlap by one word in the short text.
-- Literal: C = 5 (the first chunk takes "and"); information: C = 9.
CREATE TEMP TABLE ex3 AS SELECT
  'I will need money and cigars for the mayor.' AS a,
  'I will need money and lots of good Cuban rum and cigars for the mayor.' AS b;
SELECT m.matching, c.common_words, c.longer_words, c.shorter_words, c.chunks, round(c.s_j::numeric, 3) AS s_j
  FROM ex3, (VALUES ('literal'), ('information')) AS m(matching),
       chunk_similarity(a, b, 5, m.matching) c;
SELECT round(100 * shingle_resemblance(a, b)) AS s_r_pct, shingle_resemblance(a, b) = 2.0 / (5 + 11 - 2) AS two_of_fourteen FROM ex3;
SELECT * FROM ex3, common_chunks(a, b);

-- Example 4: a five-word e-mail and its six-word reply: S_R = 1/2, S_J = 5/6.
SELECT shingle_resemblance('Did you take the cash?', 'Did you take the cash? Yes.') AS s_r,
       round(100 * s_j) AS s_j_pct, s_l
  FROM chunk_similarity('Did you take the cash?', 'Did you take the cash? Yes.');

-- S_R <= S_J <= S_L in the examples (information matching).
SELECT bool_and(shingle_resemblance(a, b) <= c.s_j AND c.s_j <= c.s_l) AS ordered
  FROM (SELECT a, b FROM ex1_docs UNION ALL SELECT a, a || ' ' || a FROM ex2 UNION ALL SELECT a, b FROM ex3) d,
       chunk_similarity(a, b, 5, 'information') c;

-- Shingle size: S_R is what minhash(doc, n, k) estimates for each k.
SELECT k, round(shingle_resemblance(a, b, k)::numeric, 4) AS s_r FROM ex1_docs, generate_series(1, 3) k;

-- Highlighting: the same chunk numbers on both sides.
SELECT * FROM ex3, highlight(a, b, 5, 'text');
SELECT * FROM ex3, highlight(a, b);
SELECT * FROM highlight('Tom & Jerry <said> "it''s 5 > 3" — Tom & Jerry <said> ok',
                        'Yes: Tom & Jerry <said> "it''s 5 > 3" indeed', 3);
-- Non-ASCII text: words are Unicode, case-folded like minhash().
SELECT * FROM highlight('Ärger über Öl und Straße in Köln, sagt ΣΊΣΥΦΟΣ heute.',
                        'ärger ÜBER öl und straße in köln — σίσυφοσ', 4, 'text');
SELECT a_start, b_start, words, chunk FROM common_chunks('Привет мир, это длинный текст о жизни', 'ПРИВЕТ МИР это длинный текст', 3);
-- Every chunk is marked once on each side, with the same numbers.
SELECT (SELECT count(*) FROM regexp_matches(a_marked, '<mark data-chunk="(\d+)">', 'g')) AS marks_a,
       (SELECT count(*) FROM regexp_matches(b_marked, '<mark data-chunk="(\d+)">', 'g')) AS marks_b,
       (SELECT array_agg(m[1] ORDER BY m[1]) FROM regexp_matches(a_marked, 'data-chunk="(\d+)"', 'g') m)
         = (SELECT array_agg(m[1] ORDER BY m[1]) FROM regexp_matches(b_marked, 'data-chunk="(\d+)"', 'g') m) AS same_numbers,
       (SELECT count(*) FROM ex1_docs, common_chunks(a, b)) AS chunks
  FROM ex1_docs, highlight(a, b);
-- Removing the marks gives back the escaped texts.
SELECT regexp_replace(a_marked, '</?mark[^>]*>', '', 'g') = replace(replace(a, '&', '&amp;'), '''', '&#39;') AS a_intact
  FROM ex1_docs, highlight(a, b);

-- Empty and short texts (as minhash(): a text shorter than min_words words
-- is one chunk of all its words, matching only the same words; a text
-- without words has nothing in common with any, 0, as its signature).
SELECT shingle_resemblance('', '') AS both_empty, shingle_resemblance('', 'a b c') AS one_empty,
       shingle_resemblance('...', '!!!') AS no_words;
SELECT * FROM chunk_similarity('', '');
SELECT * FROM chunk_similarity('', 'one two three four five six');
SELECT * FROM chunk_similarity('Thanks a lot!', 'thanks, A LOT');
SELECT * FROM chunk_similarity('Thanks a lot!', 'Thanks a lot! See you on Monday.');
SELECT * FROM common_chunks('Thanks a lot!', 'thanks a lot');
SELECT * FROM highlight('', 'a b c d e');

-- NULL in, NULL out (STRICT).
SELECT shingle_resemblance(NULL, 'a') IS NULL AS strict_resemblance;
SELECT count(*) AS rows_for_null FROM chunk_similarity(NULL, 'a b c d e');
SELECT count(*) AS rows_for_null FROM common_chunks('a b c d e', NULL);
SELECT count(*) AS rows_for_null FROM highlight('a', 'b', NULL);
SELECT count(*) AS rows_for_null FROM resemblance_interval(NULL, minhash('a'::text));

-- Bad arguments.
SELECT * FROM chunk_similarity('a', 'b', 0);
SELECT * FROM common_chunks('a', 'b', -3);
SELECT * FROM highlight('a', 'b', 0);
SELECT * FROM chunk_similarity('a', 'b', 5, 'Literal');
SELECT * FROM highlight('a', 'b', 5, 'markdown');
SELECT shingle_resemblance('a', 'b', 0);
SELECT shingle_resemblance('a', 'b', 65);

-- Deterministic: the same result every time, in either argument order for
-- the measures.
SELECT count(DISTINCT (c.*)::text) AS distinct_results
  FROM ex1_docs, generate_series(1, 5), chunk_similarity(a, b) c;
SELECT (SELECT (c.*)::text FROM chunk_similarity(a, b) c) = (SELECT (c.*)::text FROM chunk_similarity(b, a) c) AS symmetric_literal,
       (SELECT (c.*)::text FROM chunk_similarity(a, b, 5, 'information') c) = (SELECT (c.*)::text FROM chunk_similarity(b, a, 5, 'information') c) AS symmetric_information,
       shingle_resemblance(a, b) = shingle_resemblance(b, a) AS symmetric_s_r
  FROM ex1_docs;

-- Degenerate input: one word repeated, no quadratic blow-up.
SELECT common_words, chunks, s_j FROM chunk_similarity(repeat('spam ', 200000), repeat('spam ', 200000));
SELECT common_words, longer_words, s_j FROM chunk_similarity(repeat('spam ', 200000), repeat('spam ', 100000), 5, 'information');

-- resemblance_interval: Clopper-Pearson on the agreeing positions.
SELECT round(lower::numeric, 6) AS lower, round(upper::numeric, 6) AS upper
  FROM resemblance_interval('v1:words:k=5:seed=0:size=10:n=10:00000001000000020000000300000004000000050000000600000007000000080000000900000010',
                            'v1:words:k=5:seed=0:size=10:n=10:000000010000000200000003000000040000000500000066000000770000008800000099000000aa');
SELECT round(lower::numeric, 4) AS lower, round(upper::numeric, 4) AS upper
  FROM ex1_docs, resemblance_interval(minhash(a, 200), minhash(b, 200), 0.95);
SELECT resemblance(minhash(a, 200), minhash(b, 200)) BETWEEN lower AND upper AS estimate_inside,
       shingle_resemblance(a, b) BETWEEN lower AND upper AS exact_inside
  FROM ex1_docs, resemblance_interval(minhash(a, 200), minhash(b, 200));
SELECT i99.lower < i95.lower AND i99.upper > i95.upper AS wider_at_99
  FROM ex1_docs, resemblance_interval(minhash(a), minhash(b), 0.99) i99, resemblance_interval(minhash(a), minhash(b)) i95;
SELECT * FROM resemblance_interval(minhash(''::text), minhash(''::text));
SELECT * FROM resemblance_interval(minhash(''::text), minhash('a b c'::text));
SELECT * FROM resemblance_interval(minhash('a'::text), minhash('a'::text), 1);
SELECT * FROM resemblance_interval(minhash('a'::text), minhash('a'::text), 0);
SELECT * FROM resemblance_interval(minhash('a'::text), minhash('a'::text), 'NaN');
SELECT * FROM resemblance_interval(minhash('a'::text), minhash('a'::text, 64));

-- Cancelling a long comparison: test/stress/interrupts.sh (a timeout here
-- would race the machine's speed).
