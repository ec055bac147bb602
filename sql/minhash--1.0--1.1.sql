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



-------------------------------------------------------------------------------
-- Grouping
-------------------------------------------------------------------------------

-- One grouping: near_dupe_groups runs the greedy walk in memory, up to
-- minhash.group_memory; a table beyond it is refused, and the path for it is
-- the same grouping as one SQL statement (near_dupe_query(..., groups =>
-- true), walked by near_dupe_group_walk), which sql/group.sql checks gives
-- the same rows exactly where near_dupe_groups refuses.
COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision) IS 'every row in one near-duplicate group: pivots are the rows with the most distinct shingles (ties by key), each taking the rows not yet taken whose resemblance to it is at least threshold; in memory, up to minhash.group_memory (beyond it, run near_dupe_query(..., groups => true))';
COMMENT ON FUNCTION @extschema@.near_dupe_query(regclass, name, name, double precision, boolean) IS 'the query near_dupe_pairs runs (groups false), or the grouping of near_dupe_groups as one SQL statement, the path for a table beyond minhash.group_memory (groups true; run it with enable_hashagg and enable_mergejoin off); checks the arguments and reads the signatures'' parameters';


-------------------------------------------------------------------------------
-- The trigger
-------------------------------------------------------------------------------



-------------------------------------------------------------------------------
-- Explain and report functions
-------------------------------------------------------------------------------

