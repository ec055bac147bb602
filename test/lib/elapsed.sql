-- pg_temp.elapsed_s(statement): run a statement, return its wall time in
-- seconds.  For the benchmarks: \ir ../lib/elapsed.sql (from a folder of test/).
CREATE FUNCTION pg_temp.elapsed_s(statement text) RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	started timestamptz := clock_timestamp();
BEGIN
	EXECUTE statement;
	RETURN extract(epoch FROM clock_timestamp() - started);
END $$;
