-- Prepared lookups with the threshold as a parameter: run by
-- test/bench/prepared_threshold.sh, which says what is printed.
\set ON_ERROR_STOP 1
\if :{?probes}
\else
\set probes 5
\endif
\if :{?reps}
\else
\set reps 3
\endif
SET client_min_messages = warning;

-- Median execution time (ms) of EXECUTE lookup(sig, threshold) over the
-- probes, reps times each, with the plan the given plan_cache_mode makes;
-- seqscan: custom plans with index scans disabled.  The statement is
-- prepared afresh (after six unmeasured executions at the same threshold in
-- mode auto, as a driver's statement would be).
CREATE FUNCTION pg_temp.lookup_ms(mode text, threshold float8, probes int, reps int)
RETURNS TABLE (ms numeric, plan text)
LANGUAGE plpgsql AS $$
DECLARE
    times float8[] := '{}';
    plans text[] := '{}';
    probe minhash;
    result json;
BEGIN
    PERFORM set_config('plan_cache_mode', CASE mode WHEN 'seqscan' THEN 'force_custom_plan' ELSE mode END, true);
    PERFORM set_config('enable_bitmapscan', CASE mode WHEN 'seqscan' THEN 'off' ELSE 'on' END, true);
    PERFORM set_config('enable_indexscan', CASE mode WHEN 'seqscan' THEN 'off' ELSE 'on' END, true);
    EXECUTE 'DEALLOCATE ALL';
    EXECUTE 'PREPARE lookup(minhash, float8) AS SELECT count(*) FROM prepared_docs WHERE resembles(sig, $1, $2)';
    FOR probe IN SELECT sig FROM prepared_docs WHERE id % (100000 / probes) = 7 ORDER BY id LIMIT probes LOOP
        IF mode = 'auto' THEN
            FOR i IN 1..6 LOOP
                EXECUTE format('EXECUTE lookup(%L, %s)', probe, threshold);
            END LOOP;
        END IF;
        FOR i IN 1..reps LOOP
            EXECUTE format('EXPLAIN (ANALYZE, TIMING OFF, FORMAT JSON) EXECUTE lookup(%L, %s)', probe, threshold) INTO result;
            times := times || (result -> 0 ->> 'Execution Time')::float8;
            plans := plans || (result -> 0 -> 'Plan' -> 'Plans' -> 0 ->> 'Node Type');
        END LOOP;
    END LOOP;
    EXECUTE 'DEALLOCATE lookup';
    RETURN QUERY SELECT round((percentile_cont(0.5) WITHIN GROUP (ORDER BY t))::numeric, 1),
                        (SELECT string_agg(DISTINCT p, '/') FROM unnest(plans) p)
                   FROM unnest(times) t;
END $$;

-- The estimator of 1.0 for comparison (matchingsel), restored at the end.
CREATE FUNCTION pg_temp.use_estimator(estimator text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('ALTER OPERATOR %%>(minhash, minhash_query) SET (RESTRICT = %s)', estimator);
END $$;

SELECT oprrest::text AS estimator FROM pg_operator
 WHERE oprname = '%>' AND oprleft = 'minhash'::regtype \gset
\echo 'Estimator of %> in this installation (after):' :estimator

CREATE TEMP TABLE results (threshold float8, mode text, ms numeric, plan text);
SELECT pg_temp.use_estimator('matchingsel') \gset
INSERT INTO results
SELECT t, 'generic, 1.0 estimator', r.* FROM unnest('{0.3,0.5,0.7,0.8,0.9}'::float8[]) t,
       pg_temp.lookup_ms('force_generic_plan', t, :probes, :reps) r;
SELECT pg_temp.use_estimator(:'estimator') \gset
INSERT INTO results
SELECT t, m, r.* FROM unnest('{0.3,0.5,0.7,0.8,0.9}'::float8[]) t,
       unnest('{force_generic_plan,force_custom_plan,auto,seqscan}'::text[]) m,
       pg_temp.lookup_ms(m, t, :probes, :reps) r;

\echo 'Median execution time (ms) of one lookup, and the scan it ran:'
SELECT threshold,
       max(ms) FILTER (WHERE mode = 'generic, 1.0 estimator') || ' ' || max(plan) FILTER (WHERE mode = 'generic, 1.0 estimator') AS "generic, before",
       max(ms) FILTER (WHERE mode = 'force_generic_plan') || ' ' || max(plan) FILTER (WHERE mode = 'force_generic_plan') AS "generic, after",
       max(ms) FILTER (WHERE mode = 'force_custom_plan') || ' ' || max(plan) FILTER (WHERE mode = 'force_custom_plan') AS custom,
       max(ms) FILTER (WHERE mode = 'auto') || ' ' || max(plan) FILTER (WHERE mode = 'auto') AS "auto, 7th run on",
       max(ms) FILTER (WHERE mode = 'seqscan') AS seqscan,
       round(max(ms) FILTER (WHERE mode = 'generic, 1.0 estimator') / max(ms) FILTER (WHERE mode = 'seqscan'), 2) AS "before / seqscan",
       round(max(ms) FILTER (WHERE mode = 'force_generic_plan') / max(ms) FILTER (WHERE mode = 'seqscan'), 2) AS "after / seqscan"
  FROM results GROUP BY threshold ORDER BY threshold;
