/* minhash--1.0--1.1.sql: from 1.0 to 1.1 (the hardening and everyday-use changes) */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.1'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql and then this script, so a
-- fresh install and an upgraded one run the same statements
-- (test/upgrade checks the two are identical object by object).  Sections by
-- concern; keep each change in its own section.

-------------------------------------------------------------------------------
-- Pinned search_path: no function body resolves a name through the
-- caller's path
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Estimation and signatures of mixed parameters
-------------------------------------------------------------------------------

-- The C functions behind %, %> and resemblance_interval changed in the
-- library only (same SQL signatures): % and %> (so resembles() and the
-- flagging trigger) are false for a signature built with other parameters
-- instead of raising, so scans, index rechecks and matchingsel's estimate
-- over a column of mixed signatures never fail; resemblance_interval follows
-- the set-returning protocol.  The comments say so.

COMMENT ON FUNCTION minhash_similar(minhash, minhash) IS 'true when the estimated resemblance is at least minhash.threshold; false for signatures built with other parameters';
COMMENT ON OPERATOR %(minhash, minhash) IS 'is a near-duplicate: estimated resemblance at least minhash.threshold (false for signatures built with other parameters)';
COMMENT ON FUNCTION minhash_query_match(minhash, minhash_query) IS 'true when the estimated resemblance is at least the query''s threshold; false for signatures built with other parameters';
COMMENT ON OPERATOR %>(minhash, minhash_query) IS 'is a near-duplicate at the query''s own threshold (false for signatures built with other parameters)';
COMMENT ON FUNCTION resembles(minhash, minhash, double precision) IS 'true when the estimated resemblance is at least threshold: the % operator with the threshold in the query; false for signatures built with other parameters';
COMMENT ON FUNCTION minhash_lt(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than';
COMMENT ON FUNCTION minhash_le(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than or equal';
COMMENT ON FUNCTION minhash_gt(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than';
COMMENT ON FUNCTION minhash_ge(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than or equal';
COMMENT ON FUNCTION minhash_cmp(minhash, minhash) IS 'btree support: order of signatures, their bytes as a little-endian machine stores them';
COMMENT ON OPERATOR <(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than';
COMMENT ON OPERATOR <=(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than or equal';
COMMENT ON OPERATOR >(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than';
COMMENT ON OPERATOR >=(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than or equal';



-------------------------------------------------------------------------------
-- Builders
-------------------------------------------------------------------------------

-- Character shingles with minhash()'s argument order (doc, num_perm,
-- shingle_size, seed).  minhash_chars(doc, q, num_perm, seed) stays as it
-- was: reordering it would silently change the meaning of every positional
-- call (minhash_chars(doc, 3) means q = 3), and views, generated columns and
-- indexes may depend on it.
CREATE FUNCTION minhash_char_shingles(doc text, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_char_shingles' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_char_shingles(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (shingle_size consecutive characters of its words, one space between words); the arguments in minhash()''s order';
COMMENT ON FUNCTION minhash_chars(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (q consecutive characters of its words, one space between words); kept for compatibility: minhash_char_shingles takes the arguments in minhash()''s order';



-------------------------------------------------------------------------------
-- The index layout
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Grouping
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- The trigger
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Explain and report functions
-------------------------------------------------------------------------------

