-- planted_exact(id, original_id, kind, exact): the exact resemblance of every
-- planted pair of the realistic corpus (real_families), computed once and
-- kept; included (\ir) by the realistic benchmarks under test/bench.
SELECT to_regclass('planted_exact') IS NULL AS need_exact \gset
\if :need_exact
CREATE TABLE planted_exact AS
SELECT f.id, f.original_id, f.kind, shingle_resemblance(o.body, d.body) AS exact
  FROM real_families f JOIN real_docs o ON o.id = f.original_id JOIN real_docs d ON d.id = f.id;
\endif
