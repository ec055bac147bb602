-- One timed GIN build for test/bench/gin_build.sh, in a session of its own,
-- on the realistic corpus's real_docs.  Variables (psql -v): label (what the
-- figures call the index), opclass (the operator class with its options, as
-- CREATE INDEX spells it), mwm (maintenance_work_mem), workers
-- (max_parallel_maintenance_workers), run, hz (clock ticks a second).
--
-- Wall time is the server's clock around CREATE INDEX.  CPU time is read
-- from /proc, in the server: the backend's own (utime + stime of
-- /proc/self/stat), plus what the postmaster reaped from children that
-- exited meanwhile (cutime + cstime of its /proc/PID/stat): the parallel
-- workers, which exit when the build ends.  autovacuum is off on the table
-- (gin_build.sh), so little else exits in the window (an autovacuum worker
-- of another database can: up to 2.5 s showed on serial builds).  The whole machine's CPU time in the window (/proc/stat: all but
-- idle and iowait) is kept too: less the build's own, it is what other
-- processes took, which a parallel worker competes with on 2 cores.
-- trace_sort's LOG lines go to the client (gin_build.sh counts the
-- sort participants in them: proof, from the server, that the build ran in
-- parallel, and with how many workers).
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
DROP INDEX IF EXISTS gin_build_idx;
SET maintenance_work_mem = :'mwm';
SET max_parallel_maintenance_workers = :workers;

SELECT split_part(pg_read_file('postmaster.pid'), E'\n', 1) AS postmaster_pid \gset
CREATE TEMP VIEW gin_build_cpu AS
SELECT (split_part(self, ' ', 12)::bigint + split_part(self, ' ', 13)::bigint) AS backend_ticks,
       (split_part(pm, ' ', 14)::bigint + split_part(pm, ' ', 15)::bigint) AS reaped_ticks,
       (SELECT sum(v::bigint) FROM unnest((regexp_split_to_array(split_part(st, E'\n', 1), ' +'))[2:9]) WITH ORDINALITY u(v, i)
         WHERE i NOT IN (4, 5)) AS machine_ticks
  FROM (SELECT substr(s, strpos(s, ') ') + 2) AS self, substr(p, strpos(p, ') ') + 2) AS pm, st
          FROM (SELECT pg_read_file('/proc/self/stat') AS s,
                       pg_read_file('/proc/' || :'postmaster_pid' || '/stat') AS p,
                       pg_read_file('/proc/stat') AS st) r) f;
SELECT backend_ticks AS b0, reaped_ticks AS r0, machine_ticks AS m0, clock_timestamp() AS t0 FROM gin_build_cpu \gset

SET trace_sort = on;
SET client_min_messages = log;
CREATE INDEX gin_build_idx ON real_docs USING gin (sig :opclass);
SET client_min_messages = warning;
RESET trace_sort;

SELECT extract(epoch FROM clock_timestamp() - :'t0'::timestamptz) AS wall,
       (backend_ticks - :b0)::float8 / :hz AS backend_cpu,
       (reaped_ticks - :r0)::float8 / :hz AS workers_cpu,
       (machine_ticks - :m0)::float8 / :hz AS machine_cpu
  FROM gin_build_cpu \gset
INSERT INTO gin_build_results (major, label, mwm, workers, run, wall_s, backend_cpu_s, workers_cpu_s, index_bytes, machine_cpu_s)
VALUES (current_setting('server_version_num')::int / 10000, :'label', :'mwm', :workers, :run,
        :wall, :backend_cpu, :workers_cpu, pg_relation_size('gin_build_idx'), :machine_cpu);
