-- The extension is trusted: a non-superuser with CREATE on the database can
-- install it.  Every later test runs on this installation.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_owner') THEN
		CREATE ROLE minhash_owner LOGIN;
	END IF;
END $$;
DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO minhash_owner', current_database()); END $$;
GRANT CREATE ON SCHEMA public TO minhash_owner;
SET ROLE minhash_owner;
CREATE EXTENSION minhash;
RESET ROLE;
SELECT e.extname, r.rolname AS owner, e.extversion
  FROM pg_extension e JOIN pg_roles r ON r.oid = e.extowner WHERE e.extname = 'minhash';

-- Every object of the extension has a comment.  The array type PostgreSQL
-- makes for each type (minhash[]) is left out: it is an extension member
-- only from PostgreSQL 17 on, and has no description of its own.
SELECT pg_describe_object(classid, objid, objsubid) AS uncommented
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
   AND obj_description(objid, classid::regclass::name) IS NULL
   AND NOT (classid = 'pg_type'::regclass
            AND EXISTS (SELECT FROM pg_type elem WHERE elem.typarray = objid))
 ORDER BY 1;

-- How each function is marked: only what is true (tests elsewhere show why).
SELECT p.oid::regprocedure AS function, p.provolatile AS volatility,
       p.proisstrict AS strict, p.proparallel AS parallel
  FROM pg_proc p
  JOIN pg_depend d ON d.objid = p.oid AND d.classid = 'pg_proc'::regclass AND d.deptype = 'e'
 WHERE d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash')
 ORDER BY p.oid::regprocedure::text;

-- The opclasses are valid.
SELECT opcname, amname, amvalidate(opc.oid)
  FROM pg_opclass opc JOIN pg_am am ON am.oid = opc.opcmethod
 WHERE opcintype = 'minhash'::regtype
 ORDER BY 1, 2;
