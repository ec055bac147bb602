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
-- Appending to a stored grouping
-------------------------------------------------------------------------------

-- near_dupe_groups_append: the rows of source that the group table (rows
-- of near_dupe_groups, stored) does not hold yet, as rows to insert into it,
-- so that a grouping grows without moving a row or renumbering a group
-- (src/minhash_near_dupe_append.c).  A new row joins the stored group whose
-- pivot it resembles most at the threshold (ties to the smaller group_id;
-- a stored singleton is its own pivot); the others are grouped among
-- themselves as near_dupe_groups groups, under group ids above the largest
-- stored.  It holds the new rows and the pairs they make with stored rows,
-- never the stored rows.  Arguments as near_dupe_groups' after the group
-- table: key_column and sig_column are names, the threshold defaults to
-- the setting and is never null, the text overload keeps five arguments
-- (a sixth double precision one would take a positional numeric key_type
-- away from the typed overload), and recall => is on the typed overload.
CREATE FUNCTION @extschema@.near_dupe_groups_append(groups regclass, source regclass, key_column name,
								 sig_column name,
								 threshold double precision DEFAULT @extschema@.minhash_threshold())
	RETURNS TABLE(group_id bigint, key text, pivot text, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups_append' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups_append(regclass, regclass, name, name, double precision) IS 'the rows of source whose key the group table (stored rows of near_dupe_groups) does not hold, as rows to insert into it: each joins the stored group whose pivot it resembles most at threshold (ties to the smaller group_id), else the new rows are grouped among themselves as near_dupe_groups groups, under group ids above the largest stored; stored rows never move';

CREATE FUNCTION @extschema@.near_dupe_groups_append(groups regclass, source regclass, key_column name,
								 sig_column name, threshold double precision, key_type anyelement,
								 recall double precision DEFAULT NULL)
	RETURNS TABLE(group_id bigint, key anyelement, pivot anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups_append' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups_append(regclass, regclass, name, name, double precision, anyelement, double precision) IS 'near_dupe_groups_append with the keys in the key column''s own type, given as key_type (NULL::bigint; NULL::text: key::text); recall (0 < recall < 1) takes candidates from the approximate layout of lsh_index_layout(threshold, num_perm, recall), as near_dupe_groups(..., recall) does; NULL is exact';
