#!/usr/bin/env bash
# near_dupe_groups or near_dupe_pairs beyond minhash.group_memory (the
# engine with its arrays in a temporary file) beside the same call in
# memory, on the realistic corpus.
#
#   flock /work/bench.lock bash test/bench/group_spill_bench.sh [DOCS] [THRESHOLD] [RECALL] [FUNCTION]
#
# DOCS (default 1,000,000) realistic documents (realistic_lib.sh), grouped
# (FUNCTION groups, the default) or paired (pairs) at THRESHOLD (default
# 0.8), exact (RECALL "exact", the default) or with recall => RECALL, into
# an unlogged table, each run in a fresh session warmed up on a tiny table:
# once with minhash.group_memory at SPILL_CAP (default 64MB, what the
# default -1 gives on a stock server, where maintenance_work_mem is 64MB),
# where the call spills, once at SPILL_IN_MEMORY (default 8GB), where it
# runs in memory.  Printed for each: wall seconds, the backend's CPU
# seconds (utime + stime from /proc), peak private memory (RssAnon sampled
# every 10 ms, above the session's before the call, as
# test/stress/group_memory.sh samples it), peak file-backed memory
# (RssFile + RssShmem, the same way: the spilled file's pages in the page
# cache are counted there, not in RssAnon), temporary bytes written (the
# database's temp_bytes in pg_stat_database, before and after: a temporary
# file's size when it is deleted), rows; then whether the two results are
# the same rows in the same order.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/bench/realistic_lib.sh
# shellcheck source=test/lib/peak_memory.sh
source test/lib/peak_memory.sh
DOCS=${1:-1000000}
T=${2:-0.8}
RECALL=${3:-exact}
FUNCTION=${4:-groups}
[[ $FUNCTION == groups || $FUNCTION == pairs ]] || { echo "group_spill_bench: FUNCTION is groups or pairs"; exit 1; }
WORK_MEM=${SPILL_WORK_MEM:-4MB}
IN_MEMORY=${SPILL_IN_MEMORY:-8GB}
CAP=${SPILL_CAP:-64MB}
WORK="$(mktemp -d /tmp/minhash-spill-bench.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT

realistic_corpus "$DOCS"
psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 <<'SQL'
DROP TABLE IF EXISTS sb_tiny;
CREATE TABLE sb_tiny AS SELECT id, sig FROM real_docs ORDER BY id LIMIT 100;
SQL

# The call: exact, or with the recall (the key type's form).
if [[ $RECALL == exact ]]; then
    CALL="near_dupe_$FUNCTION('real_docs', 'id', 'sig', $T)"
else
    CALL="near_dupe_$FUNCTION('real_docs', 'id', 'sig', $T, NULL::bigint, recall => $RECALL)"
fi

# peak_memory DIR PSQL_PID: as peak_private_memory, the peaks of RssAnon
# and of RssFile + RssShmem, in kB.
peak_memory() {
    local dir=$1 psql_pid=$2 pid anon file peak_anon=0 peak_file=0
    until [[ -e $dir/pid ]] || ! kill -0 "$psql_pid" 2>/dev/null; do sleep 0.01; done
    if [[ -e $dir/pid ]]; then
        pid=$(cat "$dir/pid")
        while [[ ! -e $dir/done ]] && kill -0 "$psql_pid" 2>/dev/null; do
            read -r anon file < <(awk '/^RssAnon:/ {a = $2} /^Rss(File|Shmem):/ {f += $2} END {print a + 0, f + 0}' "/proc/$pid/status" 2>/dev/null || echo 0 0)
            ((anon > peak_anon)) && peak_anon=$anon
            ((file > peak_file)) && peak_file=$file
            sleep 0.01
        done
    fi
    echo "$peak_anon $peak_file"
}

temp_bytes() {
    psql -X -At -d "$RDB" -c "SELECT pg_stat_force_next_flush()" -c \
        "SELECT temp_bytes FROM pg_stat_database WHERE datname = current_database()" | tail -1
}

timed() {
    local label="$1" setting="$2" dir psql_pid peak peak_file base base_file tb0 tb1
    dir="$(mktemp -d "$WORK/call.XXXXXX")"
    cat >"$dir/script.sql" <<SQL
\set ON_ERROR_STOP 1
SET work_mem = '$WORK_MEM';
$setting
SELECT count(*) FROM near_dupe_$FUNCTION('sb_tiny', 'id', 'sig', $T) \g /dev/null
DROP TABLE IF EXISTS sb_$label;
SELECT pg_backend_pid() AS bpid \gset
\setenv SB_BPID :bpid
\! awk '/^RssAnon:/ {print \$2} /^Rss(File|Shmem):/ {f += \$2} END {print f}' /proc/\$SB_BPID/status > $dir/base; awk '{print \$14 + \$15}' /proc/\$SB_BPID/stat > $dir/cpu0; echo \$SB_BPID > $dir/pid
SELECT extract(epoch FROM clock_timestamp()) AS t0 \gset
CREATE UNLOGGED TABLE sb_$label AS SELECT * FROM $CALL WITH ORDINALITY;
SELECT round((extract(epoch FROM clock_timestamp()) - :t0)::numeric, 2) AS wall \gset
\setenv SB_WALL :wall
\! awk '{print \$14 + \$15}' /proc/\$SB_BPID/stat > $dir/cpu1; echo \$SB_WALL > $dir/wall; touch $dir/done
SQL
    tb0=$(temp_bytes)
    psql -X -q -d "$RDB" -f "$dir/script.sql" >"$dir/out" 2>&1 &
    psql_pid=$!
    read -r peak peak_file < <(peak_memory "$dir" "$psql_pid")
    if ! wait "$psql_pid" || [[ ! -e $dir/done ]]; then
        cat "$dir/out"
        echo "group_spill_bench: $label failed"
        exit 1
    fi
    sleep 1
    tb1=$(temp_bytes)
    base=$(sed -n 1p "$dir/base")
    base_file=$(sed -n 2p "$dir/base")
    printf '  %-10s %9s %9s %12.1f %12.1f %14.1f %10s\n' "$label" "$(cat "$dir/wall")" \
        "$(awk -v a="$(cat "$dir/cpu0")" -v b="$(cat "$dir/cpu1")" -v hz="$(getconf CLK_TCK)" 'BEGIN {printf "%.2f", (b - a) / hz}')" \
        "$(awk -v p=$((peak > base ? peak - base : 0)) 'BEGIN {print p / 1024}')" \
        "$(awk -v p=$((peak_file > base_file ? peak_file - base_file : 0)) 'BEGIN {print p / 1024}')" \
        "$(awk -v a="$tb0" -v b="$tb1" 'BEGIN {print (b - a) / 1048576}')" \
        "$(psql -X -At -d "$RDB" -c "SELECT count(*) FROM sb_$label")"
}

echo "group_spill_bench: $CALL on $DOCS documents, work_mem $WORK_MEM, minhash.group_memory $CAP (spilled) and $IN_MEMORY (in memory)"
printf '  %-10s %9s %9s %12s %12s %14s %10s\n' call "wall s" "cpu s" "private MB" "file MB" "temp written MB" rows
timed spilled "SET minhash.group_memory = '$CAP';"
timed in_memory "SET minhash.group_memory = '$IN_MEMORY';"
psql -X -At -d "$RDB" -c "SELECT 'same rows in the same order: ' || (count(*) FILTER (WHERE a IS DISTINCT FROM b) = 0)::text
                            || ' (' || count(*) || ' rows)'
                            FROM (SELECT s::text AS a, m::text AS b
                                    FROM sb_spilled s FULL JOIN sb_in_memory m USING (ordinality)) x"
psql -X -q -d "$RDB" -c "DROP TABLE sb_spilled, sb_in_memory, sb_tiny"
