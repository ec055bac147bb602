-- The Citus procedures without Citus: what they leave behind.
-- (test/citus/citus.sh runs them on a cluster.)
CREATE TABLE cleanup_docs (id integer PRIMARY KEY, sig minhash);
INSERT INTO cleanup_docs VALUES (1, minhash('a b c d e f g'::text)), (2, minhash('a b c d e f h'::text));

-- A procedure that refuses leaves the caller's search_path as it was, for
-- the rest of a DO block (an exception block is a subtransaction, so the
-- procedure refuses to run in it) and of a transaction block.
SET search_path = public, pg_temp;
DO $$
BEGIN
	BEGIN
		CALL near_dupe_pairs_distributed_into('cleanup_docs', 'id', 'sig', 'cleanup_result', 0.8);
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'refused: %', SQLERRM;
	END;
	RAISE NOTICE 'search_path after the call: %', pg_catalog.current_setting('search_path');
	BEGIN
		CALL near_dupe_groups_distributed_into('cleanup_docs', 'id', 'sig', 'cleanup_result', 0.8);
	EXCEPTION WHEN OTHERS THEN
		RAISE NOTICE 'refused: %', SQLERRM;
	END;
	RAISE NOTICE 'search_path after the call: %', pg_catalog.current_setting('search_path');
END $$;
BEGIN;
SET LOCAL search_path = public;
SAVEPOINT before_call;
CALL near_dupe_groups_distributed_into('cleanup_docs', 'id', 'sig', 'cleanup_result', 0.8);
ROLLBACK TO before_call;
SHOW search_path;
COMMIT;
SHOW search_path;
RESET search_path;
SELECT count(*) AS result_tables FROM pg_class WHERE relname = 'cleanup_result';

-- near_dupe_distributed_cleanup() drops the work tables (named as
-- near_dupe_distributed_work_name names them) of backends that are gone
-- and the caller's own, and only those the caller may drop.  A table of a
-- live backend (the checkpointer stands in for one running a call), a
-- table of another name and a temporary table stay.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_cleaner') THEN
		CREATE ROLE minhash_cleaner NOSUPERUSER NOCREATEDB NOCREATEROLE;
	END IF;
END $$;
CREATE SCHEMA cleanup_space AUTHORIZATION minhash_cleaner;
-- A pid no backend has (above Linux's largest, 4194304).
SELECT 999999999 AS dead_pid \gset
SELECT pid AS live_pid FROM pg_stat_activity WHERE backend_type = 'checkpointer' \gset
SET ROLE minhash_cleaner;
SELECT pg_backend_pid() AS own_pid \gset
-- (The statements run hold pids: not echoed.)
\set ECHO none
SELECT format('CREATE %s TABLE %s (x integer)', kind, name)
  FROM (VALUES ('', 'cleanup_space.minhash_work_' || :dead_pid || '_1_bands'),
			   ('UNLOGGED', 'cleanup_space.minhash_work_' || :dead_pid || '_1_pairs'),
			   ('', 'cleanup_space.minhash_work_' || :dead_pid || '_2_twin_sigs'),
			   ('', 'cleanup_space.minhash_work_' || :own_pid || '_1_half'),
			   ('', 'cleanup_space.minhash_work_' || :live_pid || '_1_bands'),
			   ('', 'cleanup_space.minhash_work_' || :dead_pid || '_1_results'),
			   ('', 'cleanup_space.minhash_work_notes'),
			   ('TEMP', 'minhash_work_' || :dead_pid || '_3_bands')) t(kind, name) \gexec
\set ECHO all
RESET ROLE;
-- One the cleaner may not drop: the superuser's.
SELECT format('CREATE TABLE cleanup_space.minhash_work_%s_4_cand (x integer)', :dead_pid) \gexec
CREATE TEMP VIEW work_tables AS
SELECT n.nspname, replace(replace(replace(c.relname, :'dead_pid', '<dead>'), :'live_pid', '<live>'), :'own_pid', '<own>') AS relname
  FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE c.relname LIKE 'minhash\_work\_%' AND c.relkind = 'r'
   AND (n.nspname = 'cleanup_space' OR n.nspname LIKE 'pg\_temp\_%');
SET ROLE minhash_cleaner;
SELECT replace(replace(d, :'dead_pid', '<dead>'), :'own_pid', '<own>') AS dropped
  FROM near_dupe_distributed_cleanup() d ORDER BY 1;
RESET ROLE;
SELECT nspname LIKE 'pg\_temp\_%' AS temporary, relname FROM work_tables ORDER BY 2;
-- The superuser may drop the last one.
SELECT replace(d, :'dead_pid', '<dead>') AS dropped FROM near_dupe_distributed_cleanup() d ORDER BY 1;
SELECT count(*) FROM near_dupe_distributed_cleanup();
SELECT nspname LIKE 'pg\_temp\_%' AS temporary, relname FROM work_tables ORDER BY 2;
DROP VIEW work_tables;
SELECT format('DROP TABLE pg_temp.minhash_work_%s_3_bands', :dead_pid) \gexec
SET client_min_messages = warning;
DROP SCHEMA cleanup_space CASCADE;
RESET client_min_messages;
DROP ROLE minhash_cleaner;
DROP TABLE cleanup_docs;
