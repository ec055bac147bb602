-- Behaviour that must read the same on every supported PostgreSQL major
-- although the server's interface underneath differs (src/pg_compat.h maps
-- the newer spellings for older servers).  No alternative expected file.

-- The trigger names a row by the table's primary key, but not by a DEFERRABLE
-- one: PostgreSQL 18 returns such a key only when asked to
-- (RelationGetPrimaryKeyIndex(rel, deferrable_ok)), older servers never do.
-- The glue passes false, so every server refuses, and naming the column in
-- the trigger's fourth argument works on every server.
CREATE TABLE compat_deferred (id int PRIMARY KEY DEFERRABLE, sig minhash(16), dup_of int);
CREATE TRIGGER flag_dups BEFORE INSERT ON compat_deferred FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.5');
INSERT INTO compat_deferred VALUES (1, minhash('a b c d e f g h'::text, 16), NULL);
DROP TRIGGER flag_dups ON compat_deferred;
CREATE TRIGGER flag_dups BEFORE INSERT ON compat_deferred FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.5', 'id');
INSERT INTO compat_deferred VALUES (1, minhash('a b c d e f g h'::text, 16), NULL),
	(2, minhash('a b c d e f g h'::text, 16), NULL);
SELECT id, dup_of FROM compat_deferred ORDER BY id;
DROP TABLE compat_deferred;
