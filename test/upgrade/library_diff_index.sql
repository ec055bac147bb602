-- The rows each GIN index of library_diff.sql returns, into the temporary
-- table ld_index_results: for every query signature (ld_sigs.s128) and
-- threshold, the keys an index scan returns and the keys a sequential scan
-- returns.  Run by library_diff.sql, and again by library_diff.sh in the
-- database whose indexes the other library built.
CREATE TEMP TABLE ld_index_results (checked text, a int, b int, result text);
DO $$
DECLARE
    spec text[];
    q record;
    t float8;
    via_index text;
    via_seq text;
    plan text;
BEGIN
    FOREACH spec SLICE 1 IN ARRAY ARRAY[
        ['ld_idx_default', '%>'], ['ld_idx_05', '%>'], ['ld_idx_16x8', '%>'], ['ld_idx_approx', '%~']]
    LOOP
        FOR q IN SELECT id, s128 FROM ld_sigs ORDER BY id LOOP
            FOREACH t IN ARRAY ARRAY[0.5, 0.8, 0.95] LOOP
                SET LOCAL enable_seqscan = off;
                SET LOCAL enable_indexscan = off;
                EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM %I WHERE sig %s minhash_query($1, $2)', spec[1], spec[2])
                   INTO plan USING q.s128, t;
                EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id)::text, ''{}'') FROM %I WHERE sig %s minhash_query($1, $2)',
                               spec[1], spec[2]) INTO via_index USING q.s128, t;
                SET LOCAL enable_seqscan = on;
                SET LOCAL enable_bitmapscan = off;
                EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id)::text, ''{}'') FROM %I WHERE sig %s minhash_query($1, $2)',
                               spec[1], spec[2]) INTO via_seq USING q.s128, t;
                SET LOCAL enable_bitmapscan = on;
                INSERT INTO ld_index_results VALUES
                    ('index: ' || spec[1] || ' ' || spec[2] || ' at ' || t || ' (bitmap scan: ' || (plan LIKE 'Bitmap Heap Scan%')::text || ')',
                     q.id, NULL, via_index),
                    ('index: ' || spec[1] || ' ' || spec[2] || ' at ' || t || ', sequential scan', q.id, NULL, via_seq);
            END LOOP;
        END LOOP;
    END LOOP;
END $$;
