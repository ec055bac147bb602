-- After ALTER EXTENSION minhash UPDATE: the user's objects made by
-- test/upgrade/user_objects.sql still work and return what they returned
-- before (the values 1.1 changes on purpose compared as
-- upgrade_intended_changes says), and no member of the extension is gone
-- nor any function's result changed.  Prints one line per problem, each
-- starting with "problem|", then a summary line.

SET search_path = user_space, public;

CREATE TEMP TABLE upgrade_problems (problem text);

INSERT INTO upgrade_problems
SELECT format('problem|view %s (%s): columns were (%s), now (%s)', b.view_name, u.function_identity, b.columns,
			  (SELECT string_agg(format('%s %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attnum)
				 FROM pg_attribute a WHERE a.attrelid = format('%I', b.view_name)::regclass AND a.attnum > 0))
  FROM upgrade_rows_before b JOIN upgrade_user_views u USING (view_name)
 WHERE b.columns IS DISTINCT FROM
	   (SELECT string_agg(format('%s %s', a.attname, format_type(a.atttypid, a.atttypmod)), ', ' ORDER BY a.attnum)
		  FROM pg_attribute a WHERE a.attrelid = format('%I', b.view_name)::regclass AND a.attnum > 0);

INSERT INTO upgrade_problems
SELECT format('problem|view %s (%s) returns other rows: before %s, after %s', b.view_name,
			  coalesce(u.function_identity, 'functions of the user''s'), b.rows, a.rows)
  FROM upgrade_rows_before b JOIN upgrade_user_views u USING (view_name)
	   CROSS JOIN LATERAL (SELECT upgrade_view_rows(b.view_name) AS rows) a
 WHERE a.rows IS DISTINCT FROM b.rows;

-- Every member of the extension before the update is one after it (a
-- function, type, operator, operator class, cast ... is never dropped), and
-- each function returns what it returned.
CREATE TEMP TABLE upgrade_members_after AS
SELECT (pg_identify_object(d.classid, d.objid, d.objsubid)).identity AS identity,
	   (pg_identify_object(d.classid, d.objid, d.objsubid)).type AS type,
	   CASE WHEN d.classid = 'pg_proc'::regclass THEN pg_get_function_result(d.objid) END AS result
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash');
-- A helper that 1.2 moved to the extension's schema minhash_internal (from
-- 1.0 or 1.1) is still the member it was, by name, arguments and result.
UPDATE upgrade_members_after
   SET identity = (SELECT quote_ident(n.nspname) FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
					WHERE e.extname = 'minhash') || substr(identity, length('minhash_internal.'))
 WHERE type IN ('function', 'procedure') AND identity LIKE 'minhash\_internal.%'
   AND identity NOT IN (SELECT b.identity FROM upgrade_members_before b);

INSERT INTO upgrade_problems
SELECT format('problem|%s %s is no longer a member of the extension', b.type, b.identity)
  FROM upgrade_members_before b
 WHERE NOT EXISTS (SELECT FROM upgrade_members_after a WHERE a.type = b.type AND a.identity = b.identity);

INSERT INTO upgrade_problems
SELECT format('problem|%s %s returned %s, now %s', b.type, b.identity, b.result, a.result)
  FROM upgrade_members_before b JOIN upgrade_members_after a USING (type, identity)
 WHERE a.result IS DISTINCT FROM b.result;

SELECT problem FROM upgrade_problems ORDER BY 1;
SELECT format('user objects: %s views and the user''s functions checked, %s members kept, %s problems',
			  (SELECT count(*) FROM upgrade_user_views), (SELECT count(*) FROM upgrade_members_before),
			  (SELECT count(*) FROM upgrade_problems));
