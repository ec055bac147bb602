# shellcheck shell=bash
# test/citus/lib.sh: a Citus coordinator and two workers on this machine,
# for citus.sh and bench_1m.sh (sourced, not run).
#
#   citus_start DIR BASEPORT PG_CONFIG [EXTRA_CONF]
#       three throwaway clusters in DIR (coord, w1, w2; unix sockets only,
#       ports BASEPORT..+2, shared_preload_libraries = 'citus', trust auth),
#       Citus and minhash created on the coordinator, the workers added;
#       traps EXIT/INT/TERM/HUP to stop them.  Exports PGHOST (the socket
#       directory), PGUSER, PGDATABASE, and CITUS_BASE.
#   citus_stop      stops the three clusters (safe to call any time)
#   q  [psql args]  psql on the coordinator (-X -q -At, ON_ERROR_STOP)
#   qw PORT [args]  the same on another node
#   citus_peak_memory DIR SETUP SQL
#       runs SETUP then SQL in a fresh coordinator session, sampling the
#       backend's private memory (RssAnon, every 10 ms, as
#       test/bench/append_bench.sh does); prints "peak_kB seconds result":
#       the peak above what the session held after SETUP, SQL's wall time,
#       and SQL's output (psql -At).  peak_kB is 0 if SQL failed (then the
#       result is the error).
# Runs the clusters as the postgres user when run as root.

# The settings of the by-hand benchmarks' clusters (bench_1m.sh, floor_bench.sh).
CITUS_BENCH_SETTINGS="shared_buffers = 1GB
maintenance_work_mem = 512MB
work_mem = 64MB
max_wal_size = 2GB
checkpoint_timeout = 30min
autovacuum = off"

citus_as_pg() { if [[ $EUID -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }

citus_stop() {
    local n
    [[ -n "${CITUS_DIR:-}" && -n "${CITUS_BIN:-}" ]] || return 0
    for n in coord w1 w2; do
        [[ -f "$CITUS_DIR/$n/postmaster.pid" ]] &&
            citus_as_pg "$CITUS_BIN/pg_ctl" -D "$CITUS_DIR/$n" -m immediate -w stop >/dev/null 2>&1 || true
    done
}

citus_start() {
    local dir=$1 base=$2 pgc=$3 extra=${4:-} i n sock
    CITUS_DIR=$dir CITUS_BIN=$("$pgc" --bindir) CITUS_BASE=$base
    sock=$dir/sock
    # a unix socket path is limited to 107 bytes
    (( ${#sock} + 20 > 100 )) && sock=/tmp/minhash-citus.$(printf '%s' "$dir" | cksum | cut -d' ' -f1)
    trap citus_stop EXIT
    trap 'exit 130' INT TERM HUP
    citus_stop; rm -rf "$dir" "$sock"; mkdir -p "$dir" "$sock"
    [[ $EUID -eq 0 ]] && chown -R postgres: "$dir" "$sock"
    i=0
    for n in coord w1 w2; do
        citus_as_pg "$CITUS_BIN/initdb" -D "$dir/$n" -U postgres --auth=trust -E UTF8 --locale=C >"$dir/initdb-$n.log" 2>&1
        cat >>"$dir/$n/postgresql.conf" <<CONF
port = $((base + i))
listen_addresses = ''
unix_socket_directories = '$sock'
shared_preload_libraries = 'citus'
max_connections = 60
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
max_worker_processes = 16
$extra
CONF
        citus_as_pg "$CITUS_BIN/pg_ctl" -D "$dir/$n" -l "$dir/$n.log" -w start >/dev/null
        i=$((i + 1))
    done
    export PGHOST=$sock PGUSER=postgres PGDATABASE=postgres
    unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS PGPORT 2>/dev/null || true
    for i in 0 1 2; do qw $((base + i)) -c 'CREATE EXTENSION citus'; done
    q -o /dev/null <<SQL
SELECT citus_set_coordinator_host('$sock', $base);
SELECT citus_add_node('$sock', $((base + 1)));
SELECT citus_add_node('$sock', $((base + 2)));
CREATE EXTENSION minhash;
SQL
}

q()  { psql -X -q -At -v ON_ERROR_STOP=1 -p "$CITUS_BASE" "$@"; }
qw() { local p=$1; shift; psql -X -q -At -v ON_ERROR_STOP=1 -p "$p" "$@"; }

# citus_percentiles: psql `\timing on` output on stdin; prints "p50 p95" (ms)
citus_percentiles() {
    awk '/^Time:/ {print $2}' | sort -n |
        awk '{v[NR] = $1} END {if (NR) printf "%.2f %.2f\n", v[int((NR + 1) / 2)], v[int(NR * 0.95 + 0.5)]}'
}

# shellcheck source=test/lib/peak_memory.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/peak_memory.sh"

citus_peak_memory() {
    local d psql_pid peak base
    d=$(mktemp -d "$1/mem.XXXXXX"); chmod 777 "$d"
    cat >"$d/script.sql" <<SQL
\set ON_ERROR_STOP 1
$2
SELECT pg_backend_pid() AS bpid \gset
\setenv MH_BPID :bpid
\! awk '/^RssAnon:/ {print \$2}' /proc/\$MH_BPID/status > $d/base; echo \$MH_BPID > $d/pid
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
\o $d/result
$3;
\o
SELECT round((extract(epoch FROM clock_timestamp()) - :t0)::numeric, 1) AS wall \gset
\setenv MH_WALL :wall
\! echo \$MH_WALL > $d/wall; touch $d/done
SQL
    q -f "$d/script.sql" >"$d/out" 2>&1 &
    psql_pid=$!
    peak=$(peak_private_memory "$d" "$psql_pid")
    if ! wait "$psql_pid" || [[ ! -e $d/done ]]; then echo "0 0 $(grep -m1 ERROR "$d/out")"; return; fi
    base=$(cat "$d/base")
    echo "$((peak > base ? peak - base : 0)) $(cat "$d/wall") $(tr '\n' ' ' <"$d/result")"
}
