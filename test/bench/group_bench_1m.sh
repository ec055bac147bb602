#!/usr/bin/env bash
# near_dupe_pairs / near_dupe_groups on 1,000,000 generated documents
# (test/bench/group_bench_1m.sql) on a throwaway cluster: packages -> build +
# install -> cluster -> benchmark -> cluster stopped.  Samples the backend's
# private memory (RssAnon in /proc, shared buffers excluded) every 0.2 s and
# prints its peak.  About 10 minutes on 2 cores (most of it generating the
# corpus); not part of test/run_all.sh.
#
#   bash test/bench/group_bench_1m.sh            # whole run, own cluster
#   MINHASH_GROUP_BENCH_CLUSTER=running bash test/bench/group_bench_1m.sh
#                                          # against the cluster in PG*
set -euo pipefail

own_cluster=1
[[ "${MINHASH_GROUP_BENCH_CLUSTER:-}" == running ]] && own_cluster=0
caller_env="$(export -p | grep -E '^declare -x PG(HOST|PORT|USER|DATABASE)=' || true)"
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"
((own_cluster)) || eval "$caller_env"   # common.sh points PG* at its own cluster
if ((own_cluster)); then
    install_cluster_traps
    install_packages
    build_and_install
    cluster_start
fi

PGAPPNAME=group_bench_1m psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/bench/group_bench_1m.sql &
psql_pid=$!
# The backend and its parallel workers, found afresh each time (workers come
# and go); their private memory summed.
peak_kb=0
while kill -0 "$psql_pid" 2>/dev/null; do
    pids="$(psql -X -At -c "SELECT pid FROM pg_stat_activity
                            WHERE application_name = 'group_bench_1m'
                               OR leader_pid IN (SELECT pid FROM pg_stat_activity
                                                  WHERE application_name = 'group_bench_1m')" 2>/dev/null || true)"
    kb=0
    for pid in $pids; do
        v="$(awk '/^RssAnon:/ {print $2; exit}' "/proc/$pid/status" 2>/dev/null || true)"
        kb=$((kb + ${v:-0}))
    done
    if ((kb > peak_kb)); then peak_kb=$kb; fi
    sleep 0.2
done
rc=0
wait "$psql_pid" || rc=$?
printf '\npeak private memory of the backend and its workers (RssAnon, sampled every 0.2 s): %d MB\n' $((peak_kb / 1024))
((own_cluster)) && cluster_stop
exit "$rc"
