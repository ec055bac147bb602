-- Security: no function runs with its owner's rights, a plain user can use
-- every feature, and the extension's own SQL is immune to objects planted
-- in schemas earlier on the caller's search_path.

-- No SECURITY DEFINER function, no function that is not the extension's.
SELECT count(*) AS security_definer_functions
  FROM pg_proc p
  JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash') AND p.prosecdef;

-- A plain user (no superuser, no special rights) uses every feature on a
-- table of its own.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_reviewer') THEN
		CREATE ROLE minhash_reviewer NOSUPERUSER NOCREATEDB NOCREATEROLE;
	END IF;
END $$;
CREATE SCHEMA reviewer_space AUTHORIZATION minhash_reviewer;
SET ROLE minhash_reviewer;
SET search_path = reviewer_space, public;
CREATE TABLE memos (id int PRIMARY KEY, body text, sig minhash(128), duplicate_of int);
CREATE INDEX ON memos USING gin (sig);
CREATE TRIGGER memos_flag BEFORE INSERT OR UPDATE ON memos
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8');
INSERT INTO memos (id, body, sig)
SELECT i, b, minhash(b)
  FROM generate_series(1, 6) i,
       LATERAL (SELECT 'quarterly memo number ' || (i % 2) || ' about the budget review and the travel policy for all staff' AS b) x;
SELECT id, duplicate_of FROM memos ORDER BY id;
SELECT count(*) AS near_pairs FROM near_dupe_pairs('memos', 'id', 'sig');
CREATE TEMP TABLE memo_groups AS SELECT * FROM near_dupe_groups('memos', 'id', 'sig');
SELECT documents, groups FROM near_dupe_summary('memo_groups');
SELECT count(*) AS detail_rows FROM near_dupe_group_detail('memo_groups', 'memos', 'id', 'body', 1);
SELECT resemblance(minhash_union(sig), minhash('quarterly memo number 1 about the budget review and the travel policy for all staff'::text)) > 0 AS union_works FROM memos;
SELECT s_j FROM chunk_similarity('a b c d e f g', 'a b c d e f h');
SELECT lower < upper AS interval_works FROM resemblance_interval(minhash('a b c d e f g'::text), minhash('a b c d e f h'::text));
DROP TABLE memo_groups;
RESET ROLE;
RESET search_path;

-- Objects planted in a schema that comes first on the search path, each a
-- better or equal match than the real one, do not change what the
-- extension's functions compute.
CREATE SCHEMA planted;
CREATE FUNCTION planted.always(minhash, minhash) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR planted.% (LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = planted.always);
CREATE FUNCTION planted.resemblance(minhash, minhash) RETURNS float8 LANGUAGE sql AS 'SELECT 1.0::float8';
CREATE FUNCTION planted.always_q(minhash, minhash_query) RETURNS boolean LANGUAGE sql AS 'SELECT true';
CREATE OPERATOR planted.%> (LEFTARG = minhash, RIGHTARG = minhash_query, FUNCTION = planted.always_q);
CREATE FUNCTION planted.minhash_bands(minhash, integer, integer) RETURNS bigint[] LANGUAGE sql AS 'SELECT ARRAY[1::bigint]';
CREATE FUNCTION planted.times(numeric, bigint) RETURNS numeric LANGUAGE sql AS 'SELECT -1::numeric';
CREATE OPERATOR planted.* (LEFTARG = numeric, RIGHTARG = bigint, FUNCTION = planted.times);
CREATE TABLE planted_docs (id int PRIMARY KEY, sig minhash);
INSERT INTO planted_docs SELECT i, minhash(('document ' || i || ' has its own words entirely distinct from the others ' || i)::text)
  FROM generate_series(1, 20) i;
-- What the answers are with a clean path.
SELECT count(*) AS pairs_clean FROM near_dupe_pairs('planted_docs', 'id', 'sig');
SELECT count(DISTINCT group_id) AS groups_clean FROM near_dupe_groups('planted_docs', 'id', 'sig');
SELECT count(*) AS resembles_clean FROM planted_docs a, planted_docs b WHERE resembles(a.sig, b.sig, 0.8);
SET search_path = planted, public;
-- The planted operator is in effect for plain queries ...
SELECT count(*) AS plain_query_sees_planted FROM planted_docs a, planted_docs b WHERE a.sig % b.sig;
-- ... but not inside the extension.
SELECT count(*) AS pairs FROM public.near_dupe_pairs('planted_docs', 'id', 'sig');
SELECT count(DISTINCT group_id) AS groups FROM public.near_dupe_groups('planted_docs', 'id', 'sig');
SELECT count(*) AS resembles FROM planted_docs a, planted_docs b WHERE public.resembles(a.sig, b.sig, 0.8);
RESET search_path;
DROP SCHEMA planted CASCADE;
DROP SCHEMA reviewer_space CASCADE;
DROP ROLE minhash_reviewer;
