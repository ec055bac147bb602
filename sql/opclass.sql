-- Equality, GROUP BY, DISTINCT and UNIQUE through the btree and hash opclasses.
CREATE TABLE op_docs AS
SELECT i, minhash('document number ' || (i % 7) || ' with some shared words', 32) AS sig
  FROM generate_series(1, 70) i;
SET enable_hashagg = off;
SELECT count(DISTINCT sig) AS distinct_sorted FROM op_docs;
SELECT count(*) AS groups_sorted FROM (SELECT sig FROM op_docs GROUP BY sig) g;
RESET enable_hashagg;
SET enable_sort = off;
EXPLAIN (COSTS OFF) SELECT sig FROM op_docs GROUP BY sig;
SELECT count(*) AS groups_hashed FROM (SELECT sig FROM op_docs GROUP BY sig) g;
RESET enable_sort;
SELECT count(*) AS self_equal FROM op_docs WHERE sig = sig;
SELECT count(*) AS hash_join_pairs FROM op_docs a JOIN op_docs b USING (sig);
CREATE UNIQUE INDEX op_docs_unique ON op_docs (sig) WHERE i <= 7;
INSERT INTO op_docs VALUES (100, minhash('document number 1 with some shared words'::text, 32));
INSERT INTO op_docs SELECT 1, sig FROM op_docs WHERE i = 1;
-- A total order: antisymmetric and consistent with =.
SELECT count(*) FILTER (WHERE (a.sig < b.sig) = (b.sig > a.sig) AND (a.sig = b.sig) = (minhash_cmp(a.sig, b.sig) = 0)
                          AND (a.sig <> b.sig) = NOT (a.sig = b.sig) AND (a.sig >= b.sig) = (b.sig <= a.sig)
                          AND (a.sig <= b.sig) = NOT (a.sig > b.sig)) AS consistent,
       count(*) AS pairs
  FROM op_docs a, op_docs b;

-- The GIN operator families: the approximate one holds %~ alone, so the
-- planner can answer %, %> (resembles(), the flagging trigger) only with the
-- exact one, which holds all three.  Both classes pass amvalidate.
SELECT f.opfname AS family, o.amopstrategy AS strategy, o.amopopr::regoperator AS operator
  FROM pg_opfamily f JOIN pg_am am ON am.oid = f.opfmethod AND am.amname = 'gin'
  JOIN pg_amop o ON o.amopfamily = f.oid
 WHERE f.opfname LIKE 'gin_minhash%'
 ORDER BY 1, 2;
SELECT c.opcname, f.opfname AS family, c.opcdefault, amvalidate(c.oid)
  FROM pg_opclass c JOIN pg_opfamily f ON f.oid = c.opcfamily
 WHERE c.opcname LIKE 'gin_minhash%'
 ORDER BY 1;
