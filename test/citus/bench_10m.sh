#!/usr/bin/env bash
# bench_10m.sh: bench_1m.sh at 10,000,000 realistic documents, lean enough
# for one machine's disk and an afternoon.  By hand, not in CI:
#
#   flock /work/bench.lock bash test/citus/bench_10m.sh [DOCS]   # default 10M
#
# The generator's signatures are copied with their bodies into the
# coordinator table and the distributed one (no re-signing, no index, no
# lookups), the generated table dropped, then near_dupe_groups beside
# near_dupe_groups_distributed at 0.8 exact and at 0.6 with recall 0.99:
# time, the coordinator backend's peak private memory, same rows.  The
# groups on Citus are CALL near_dupe_groups_distributed_into (a COMMIT per
# step: at 0.6 the function, one transaction, needs some 70 GB of work
# disk on this corpus); MINHASH_BENCH_INTO=0 runs the function.
# MINHASH_BENCH_CALLS="pairs groups" adds the pairs; one node runs with
# minhash.group_memory = MINHASH_BENCH_GROUP_MEMORY (default 16GB: in
# memory, its peak measured, not capped; the Citus forms do not use it).
# Disk: about 2.5 times the corpus (two copies, the work tables).
set -euo pipefail
export MINHASH_BENCH_LEAN=1
export MINHASH_BENCH_CALLS=${MINHASH_BENCH_CALLS:-groups}
export MINHASH_BENCH_GROUP_MEMORY=${MINHASH_BENCH_GROUP_MEMORY:-16GB}
export MINHASH_BENCH_INTO=${MINHASH_BENCH_INTO:-1}
exec bash "$(dirname "${BASH_SOURCE[0]}")/bench_1m.sh" "${1:-10000000}"
