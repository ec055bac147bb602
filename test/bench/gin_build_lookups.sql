-- Lookups through the index gin_build.sql left (gin_build_idx), for
-- test/bench/gin_build.sh: every query document of gin_build_queries looked up
-- with each operator the index serves, at threshold t, and the matching ids
-- kept in gin_build_lookups under (variant, label).  The script compares the
-- rows of an index built serially with those of one built in parallel.
-- Variables (psql -v): variant, label, t, exact (true: the index serves %,
-- so % is looked up too; an approximate index serves %~ only).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SET enable_seqscan = off;
SET minhash.threshold = :t;

-- Each lookup must go through gin_build_idx: a plan without it would
-- compare a sequential scan with itself.
CREATE OR REPLACE FUNCTION pg_temp.gin_build_uses_index(query text) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
        IF line LIKE '%gin_build_idx%' THEN
            RETURN;
        END IF;
    END LOOP;
    RAISE EXCEPTION 'the lookup does not use gin_build_idx: %', query;
END $$;

\if :exact
SELECT pg_temp.gin_build_uses_index(format(
    'SELECT id FROM real_docs WHERE sig %% %L::minhash', (SELECT sig FROM real_docs ORDER BY id LIMIT 1))) \gset
INSERT INTO gin_build_lookups
SELECT :'variant', :'label', '%', :t, q.id,
       (SELECT array_agg(d.id ORDER BY d.id) FROM real_docs d WHERE d.sig % q.sig)
  FROM gin_build_queries q;
\endif
SELECT pg_temp.gin_build_uses_index(format(
    'SELECT id FROM real_docs WHERE sig %%~ minhash_query(%L::minhash, %s)',
    (SELECT sig FROM real_docs ORDER BY id LIMIT 1), :t)) \gset
INSERT INTO gin_build_lookups
SELECT :'variant', :'label', '%~', :t, q.id,
       (SELECT array_agg(d.id ORDER BY d.id) FROM real_docs d WHERE d.sig %~ minhash_query(q.sig, :t))
  FROM gin_build_queries q;
