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

-------------------------------------------------------------------------------
-- Signing and flagging on insert
-------------------------------------------------------------------------------

-- minhash_flag_duplicates()'s arguments after a document column, and a
-- shingles argument last; it builds the signature the statement did not set
-- (src/minhash_trigger.c, sign_row) and then flags as minhash_flag_duplicates
-- does.  Runs a query: VOLATILE, and a trigger never runs in a parallel
-- worker.
CREATE FUNCTION @extschema@.minhash_sign_and_flag() RETURNS trigger
	AS 'MODULE_PATHNAME', 'minhash_sign_and_flag' LANGUAGE C;

COMMENT ON FUNCTION @extschema@.minhash_sign_and_flag() IS 'BEFORE INSERT OR UPDATE row trigger; arguments (doc_column, sig_column, flag_column, threshold [, key_column [, ''lock'' | ''nolock'' [, shingles such as ''5 words'' or ''3 chars'']]]): sets a signature the statement left unset, or that an UPDATE of the document left as it was, to minhash(doc, num_perm of the column), then flags as minhash_flag_duplicates';
