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



-------------------------------------------------------------------------------
-- Builders
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- The index layout
-------------------------------------------------------------------------------

-- gin_minhash_ops records its key layout in the option `layout` (absent:
-- layout 1, minhash 1.0's keys), and its other defaults come from that
-- layout, not from the running library (src/minhash_gin.c).  The options
-- procedure is C; only its description changes here.
COMMENT ON FUNCTION minhash_gin_options(internal) IS 'GIN support: the bands, rows, threshold, key_bits and layout options';


-------------------------------------------------------------------------------
-- Grouping
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- The trigger
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Explain and report functions
-------------------------------------------------------------------------------

