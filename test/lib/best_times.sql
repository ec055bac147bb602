-- pg_temp.best_times(queries, rounds): each query's best time in ms over
-- `rounds` rounds, the queries run in turn in each round, so that a noisy
-- moment hurts them alike.  Included (\ir) by the benchmarks under test/bench.
CREATE FUNCTION pg_temp.best_times(queries text[], rounds int) RETURNS SETOF float8
LANGUAGE plpgsql SET search_path = public, pg_catalog, pg_temp AS $$
DECLARE
	best float8[] := array_fill('Infinity'::float8, ARRAY[cardinality(queries)]);
	started timestamptz;
BEGIN
	FOR round IN 1..rounds LOOP
		FOR q IN 1..cardinality(queries) LOOP
			started := clock_timestamp();
			EXECUTE queries[q];
			best[q] := least(best[q], 1000 * extract(epoch FROM clock_timestamp() - started));
		END LOOP;
	END LOOP;
	RETURN QUERY SELECT unnest(best);
END $$;
