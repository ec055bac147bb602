-- Words are maximal runs of Unicode letters, decimal digits and combining
-- marks, simple-case-folded (Unicode 15.0 tables built into the extension,
-- not the database locale); everything else separates words.

-- ASCII: case and punctuation.
SELECT minhash_tokens('Hello, WORLD! It''s 2024-01-05; e-mail: x_y@z.org');
-- Accented Latin, precomposed: folded, accents kept.
SELECT minhash_tokens('Ça ÉCOLE Ärger ÜBER Øre Ŀŀ');
-- Simple folding maps one character to one: ß stays ß, ẞ becomes ß.
SELECT minhash_tokens('Straße STRAẞE');
-- Greek: final sigma folds to σ, so ΣΊΣΥΦΟΣ and σίσυφος are the same word.
SELECT minhash_tokens('ΣΊΣΥΦΟΣ σίσυφος');
-- Cyrillic.
SELECT minhash_tokens('ПРИВЕТ, мир! Ёлка');
-- CJK has no spaces: a run of ideographs and kana is one word.  Use
-- minhash_chars() for such text.
SELECT minhash_tokens('日本語のテキスト。中文 文本');
-- Emoji and symbols separate words.
SELECT minhash_tokens('a😀b c✓d e©f');
-- Combining marks belong to the word they follow.  Text is not normalized:
-- decomposed é (e + U+0301) is a different word from precomposed é.
SELECT minhash_tokens(E'e\u0301cole école');
SELECT minhash_tokens(E'e\u0301cole') = minhash_tokens('école') AS decomposed_equals_precomposed,
       minhash_tokens(normalize(E'e\u0301cole', NFC)) = minhash_tokens('école') AS after_nfc;
-- Decimal digits of any script are word characters; other numbers are not.
SELECT minhash_tokens('٣٤٥ १२३ x²y ½ Ⅻ');
-- Leading and trailing separators, and nothing but separators.
SELECT minhash_tokens('  --hello--  '), minhash_tokens('?!.,;'), minhash_tokens('');

-- The signature sees exactly these words.
SELECT minhash('ΣΊΣΥΦΟΣ, ΠΡΙΝ ΚΑΙ ΜΕΤΑ ΤΟ ΒΟΥΝΟ'::text, 32) = minhash('σίσυφος πριν και μετα το βουνο'::text, 32) AS greek_folds;
SELECT minhash('Ça ÉCOLE Ärger ÜBER Øre'::text, 32) = minhash('ça école ärger über øre'::text, 32) AS latin_folds;

-- The database encoding does not matter: text is read as UTF-8 everywhere.
SELECT md5(minhash('Ärger über Öl, ÉCOLE, Straße und Café'::text, 16)::text) AS utf8_database;
CREATE DATABASE minhash_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c minhash_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION minhash;
SELECT md5(minhash('Ärger über Öl, ÉCOLE, Straße und Café'::text, 16)::text) AS latin1_database,
       minhash_tokens('Ärger über Öl, ÉCOLE') AS words;
\c contrib_regression
DROP DATABASE minhash_latin1;
