/* minhash--1.1--1.2.sql: from 1.1 to 1.2 */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.2'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql, minhash--1.0--1.1.sql and
-- then this script, so a fresh install and an upgraded one run the same
-- statements (test/upgrade/fresh_vs_upgraded.sh checks the two are identical
-- object by object, from 1.0 and from 1.1).  Each object is created or
-- changed in one place, in sections by concern, with its one comment.
--
-- It never drops an object of 1.0 or 1.1: a user's view or function may
-- depend on any of them, and ALTER EXTENSION minhash UPDATE would then stop.
-- A shipped function keeps its arguments and its result and is changed only
-- by CREATE OR REPLACE; anything else is an overload that no older call can
-- reach, or a new name.
