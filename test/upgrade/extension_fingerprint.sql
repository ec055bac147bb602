-- Every object of the minhash extension, as text that does not depend on
-- OIDs: test/upgrade/fresh_vs_upgraded.sh compares it between a fresh
-- install and an upgraded one.  Run with psql -At; each line starts with
-- the kind of what it describes.

\dx+ minhash

SELECT 'extension|' || e.extname || '|' || e.extversion || '|' || n.nspname || '|' || e.extrelocatable
       || '|' || coalesce((SELECT string_agg(c::regclass::text, ',' ORDER BY c::regclass::text)
                             FROM unnest(e.extconfig) c), '') || '|' || coalesce(e.extcondition::text, '')
  FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
 WHERE e.extname = 'minhash';

-- The members, with their comments and initial privileges.
CREATE TEMP VIEW minhash_members AS
SELECT d.classid, d.objid, d.objsubid, (pg_identify_object(d.classid, d.objid, d.objsubid)).*
  FROM pg_depend d
 WHERE d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
   AND d.refobjid = (SELECT oid FROM pg_extension WHERE extname = 'minhash');

SELECT 'member|' || m.type || '|' || m.identity || '|comment=' || coalesce(obj_description(m.objid, m.classid::regclass::name), '<none>')
       || '|initprivs=' || coalesce((SELECT i.privtype::text || ':' || i.initprivs::text FROM pg_init_privs i
                                      WHERE i.classoid = m.classid AND i.objoid = m.objid AND i.objsubid = m.objsubid), '<none>')
  FROM minhash_members m
 ORDER BY 1;

-- The extension's schemas (its helpers' minhash_internal): owner and
-- privileges.
SELECT 'schema|' || n.nspname || '|owner=' || n.nspowner::regrole || '|acl=' || coalesce(n.nspacl::text, '<none>')
  FROM minhash_members m JOIN pg_namespace n ON m.classid = 'pg_namespace'::regclass AND n.oid = m.objid
 ORDER BY 1;

-- Functions, procedures, aggregates, window functions: the definition and
-- every attribute.
SELECT 'function|' || p.oid::regprocedure || '|kind=' || p.prokind::text || '|lang=' || l.lanname
       || '|volatile=' || p.provolatile::text || '|strict=' || p.proisstrict || '|parallel=' || p.proparallel::text
       || '|leakproof=' || p.proleakproof || '|secdef=' || p.prosecdef || '|cost=' || p.procost
       || '|rows=' || p.prorows || '|retset=' || p.proretset || '|returns=' || p.prorettype::regtype
       || '|variadic=' || p.provariadic::regtype || '|support=' || p.prosupport::regproc
       || '|config=' || coalesce(p.proconfig::text, '<none>') || '|acl=' || coalesce(p.proacl::text, '<none>')
       || '|argnames=' || coalesce(p.proargnames::text, '<none>') || '|argmodes=' || coalesce(p.proargmodes::text, '<none>')
       || '|alltypes=' || coalesce((SELECT string_agg(t::regtype::text, ',' ORDER BY o) FROM unnest(p.proallargtypes) WITH ORDINALITY a(t, o)), '<none>')
       || '|defaults=' || coalesce(pg_get_expr(p.proargdefaults, 0), '<none>')
       || '|bin=' || coalesce(p.probin, '<none>')
       || '|src=' || CASE WHEN p.prolang IN (SELECT oid FROM pg_language WHERE lanname IN ('sql', 'plpgsql'))
                          THEN '<in functiondef>' ELSE p.prosrc END
  FROM minhash_members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
  JOIN pg_language l ON l.oid = p.prolang
 ORDER BY 1;
SELECT 'functiondef|' || p.oid::regprocedure || E'\n' || pg_get_functiondef(p.oid)
  FROM minhash_members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
 WHERE p.prokind::text <> 'a'
 ORDER BY p.oid::regprocedure::text;
SELECT 'aggregate|' || a.aggfnoid::regprocedure || '|kind=' || a.aggkind::text || '|direct=' || a.aggnumdirectargs
       || '|sfunc=' || a.aggtransfn::regproc || '|final=' || a.aggfinalfn::regproc || '|combine=' || a.aggcombinefn::regproc
       || '|serial=' || a.aggserialfn::regproc || '|deserial=' || a.aggdeserialfn::regproc
       || '|msfunc=' || a.aggmtransfn::regproc || '|minv=' || a.aggminvtransfn::regproc || '|mfinal=' || a.aggmfinalfn::regproc
       || '|finalextra=' || a.aggfinalextra || '|mfinalextra=' || a.aggmfinalextra
       || '|finalmodify=' || a.aggfinalmodify::text || '|mfinalmodify=' || a.aggmfinalmodify::text
       || '|sortop=' || a.aggsortop::regoperator || '|stype=' || a.aggtranstype::regtype || '|sspace=' || a.aggtransspace
       || '|mstype=' || a.aggmtranstype::regtype || '|msspace=' || a.aggmtransspace
       || '|initcond=' || coalesce(a.agginitval, '<none>') || '|minitcond=' || coalesce(a.aggminitval, '<none>')
  FROM minhash_members m JOIN pg_aggregate a ON m.classid = 'pg_proc'::regclass AND a.aggfnoid = m.objid
 ORDER BY 1;

-- Operators with their functions, estimators, commutators and negators.
SELECT 'operator|' || o.oid::regoperator || '|kind=' || o.oprkind::text || '|merges=' || o.oprcanmerge || '|hashes=' || o.oprcanhash
       || '|result=' || o.oprresult::regtype || '|function=' || o.oprcode::regprocedure
       || '|commutator=' || o.oprcom::regoperator || '|negator=' || o.oprnegate::regoperator
       || '|restrict=' || o.oprrest::regproc || '|join=' || o.oprjoin::regproc
  FROM minhash_members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
 ORDER BY 1;

-- Types, with their array types.
SELECT 'type|' || t.oid::regtype || '|len=' || t.typlen || '|byval=' || t.typbyval || '|type=' || t.typtype::text
       || '|category=' || t.typcategory::text || '|preferred=' || t.typispreferred || '|defined=' || t.typisdefined
       || '|delim=' || t.typdelim::text || '|relid=' || t.typrelid::regclass
       || '|elem=' || t.typelem::regtype || '|array=' || t.typarray::regtype
       || '|in=' || t.typinput::regproc || '|out=' || t.typoutput::regproc || '|recv=' || t.typreceive::regproc
       || '|send=' || t.typsend::regproc || '|modin=' || t.typmodin::regproc || '|modout=' || t.typmodout::regproc
       || '|analyze=' || t.typanalyze::regproc || '|align=' || t.typalign::text || '|storage=' || t.typstorage::text
       || '|notnull=' || t.typnotnull || '|base=' || t.typbasetype::regtype || '|typmod=' || t.typtypmod
       || '|ndims=' || t.typndims || '|collation=' || t.typcollation::regcollation || '|default=' || coalesce(t.typdefault, '<none>')
       || '|acl=' || coalesce(t.typacl::text, '<none>')
  FROM minhash_members m JOIN pg_type t ON m.classid = 'pg_type'::regclass AND (t.oid = m.objid OR t.typelem = m.objid AND t.typcategory::text = 'A')
 ORDER BY 1;

-- Casts.
SELECT 'cast|' || c.castsource::regtype || '->' || c.casttarget::regtype || '|function=' || c.castfunc::regprocedure
       || '|context=' || c.castcontext::text || '|method=' || c.castmethod::text
  FROM minhash_members m JOIN pg_cast c ON m.classid = 'pg_cast'::regclass AND c.oid = m.objid
 ORDER BY 1;

-- Operator classes and families, with every operator and support function.
SELECT 'opclass|' || am.amname || '|' || n.nspname || '.' || c.opcname || '|family=' || fn.nspname || '.' || f.opfname
       || '|input=' || c.opcintype::regtype || '|default=' || c.opcdefault || '|storage=' || c.opckeytype::regtype
  FROM minhash_members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
  JOIN pg_am am ON am.oid = c.opcmethod JOIN pg_namespace n ON n.oid = c.opcnamespace
  JOIN pg_opfamily f ON f.oid = c.opcfamily JOIN pg_namespace fn ON fn.oid = f.opfnamespace
 ORDER BY 1;
SELECT 'opfamily|' || am.amname || '|' || n.nspname || '.' || f.opfname
  FROM minhash_members m JOIN pg_opfamily f ON m.classid = 'pg_opfamily'::regclass AND f.oid = m.objid
  JOIN pg_am am ON am.oid = f.opfmethod JOIN pg_namespace n ON n.oid = f.opfnamespace
 ORDER BY 1;
SELECT 'amop|' || am.amname || '|' || n.nspname || '.' || f.opfname || '|strategy=' || ao.amopstrategy
       || '|' || ao.amoplefttype::regtype || ',' || ao.amoprighttype::regtype || '|purpose=' || ao.amoppurpose::text
       || '|operator=' || ao.amopopr::regoperator || '|sortfamily=' || ao.amopsortfamily
  FROM pg_amop ao JOIN pg_opfamily f ON f.oid = ao.amopfamily
  JOIN pg_am am ON am.oid = f.opfmethod JOIN pg_namespace n ON n.oid = f.opfnamespace
 WHERE f.oid IN (SELECT c.opcfamily FROM minhash_members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
                 UNION SELECT m.objid FROM minhash_members m WHERE m.classid = 'pg_opfamily'::regclass)
 ORDER BY 1;
SELECT 'amproc|' || am.amname || '|' || n.nspname || '.' || f.opfname || '|number=' || ap.amprocnum
       || '|' || ap.amproclefttype::regtype || ',' || ap.amprocrighttype::regtype || '|function=' || ap.amproc::regprocedure
  FROM pg_amproc ap JOIN pg_opfamily f ON f.oid = ap.amprocfamily
  JOIN pg_am am ON am.oid = f.opfmethod JOIN pg_namespace n ON n.oid = f.opfnamespace
 WHERE f.oid IN (SELECT c.opcfamily FROM minhash_members m JOIN pg_opclass c ON m.classid = 'pg_opclass'::regclass AND c.oid = m.objid
                 UNION SELECT m.objid FROM minhash_members m WHERE m.classid = 'pg_opfamily'::regclass)
 ORDER BY 1;

-- Members of a kind not described above: a new kind must be added here.
SELECT 'undescribed|' || m.type || '|' || m.identity
  FROM minhash_members m
 WHERE m.classid NOT IN ('pg_proc'::regclass, 'pg_operator'::regclass, 'pg_type'::regclass, 'pg_cast'::regclass,
                         'pg_opclass'::regclass, 'pg_opfamily'::regclass, 'pg_namespace'::regclass)
 ORDER BY 1;
