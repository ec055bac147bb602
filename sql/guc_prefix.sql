-- The minhash. prefix of settings is reserved once the library loads: a
-- misspelled minhash setting is an error, not a new placeholder variable,
-- and one set before the load is removed with a warning.
--
-- PostgreSQL 15 added reserved prefixes (MarkGUCPrefixReserved).  Before it
-- (13, 14) the library can only warn about placeholders that exist when it
-- loads (EmitWarningsOnPlaceholders), and a later misspelled SET creates a
-- placeholder silently: expected/guc_prefix_1.out has that output.
SET minhash.early_typo = 1;
SELECT minhash('a b c'::text, 16) IS NOT NULL AS library_loaded;
SELECT current_setting('minhash.early_typo', true) AS early_typo;
SET minhash.thresold = 0.5;
SELECT current_setting('minhash.thresold', true) AS misspelled;
SHOW minhash.threshold;
