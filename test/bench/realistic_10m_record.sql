-- After each step of test/bench/realistic_10m.sh, in the step's own session:
-- its time (since the shell started it, :t0 epoch seconds), what it found
-- (:detail) and the backend's peak memory so far (VmHWM).
\if :{?detail}
\else
\set detail ''
\endif
INSERT INTO scale10m_results (step, seconds, detail, vmhwm_kb)
SELECT :'step', extract(epoch FROM clock_timestamp()) - :t0, :'detail',
       substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\s+([0-9]+) kB')::bigint;
SELECT step, round(seconds::numeric, 1) AS seconds, pg_size_pretty(vmhwm_kb * 1024) AS vmhwm, detail
  FROM scale10m_results WHERE n = (SELECT max(n) FROM scale10m_results);
