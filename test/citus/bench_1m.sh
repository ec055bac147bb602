#!/usr/bin/env bash
# bench_1m.sh: one node beside Citus (a coordinator and two workers on this
# machine) on the realistic corpus, in the same run.  By hand, not in CI:
#
#   flock /work/bench.lock bash test/citus/bench_1m.sh [DOCS]     # default 1000000
#
# Builds Citus once (build_citus.sh), starts three clusters of its own in
# <repo>/.cache/citus-bench (MINHASH_BENCH_DIR; ports MINHASH_CITUS_PORT..+2, default 5551-5553:
# not while citus.sh runs), loads the SpamAssassin corpus into the
# coordinator and generates DOCS documents from it
# (test/corpus/generate_realistic.sql).  Then the same steps, timed, on a
# table of the coordinator (one node) and on a distributed table
# (MINHASH_CITUS_SHARDS shards, default 8):
#   load        INSERT of (id, body) from the generated table
#   signatures  UPDATE ... SET sig = minhash(body)
#   index       CREATE INDEX ... USING gin (sig), then VACUUM ANALYZE
#   lookups     200 resembles(sig, q, 0.8) lookups of signatures from the
#               table, one session, twice: p50 and p95 of the second pass
#               (psql \timing; the first warms the caches)
#   groups      near_dupe_groups(..., 0.8): time, groups, and whether the
#               two results are the same rows
#   pairs and groups, one node beside the _distributed forms, at 0.8 exact
#               and 0.6 with recall 0.99: time, the coordinator backend's
#               peak private memory (RssAnon sampled every 10 ms), and
#               whether the rows are the same, in the same order;
#               MINHASH_BENCH_INTO=1 groups on Citus with
#               CALL near_dupe_groups_distributed_into instead (its table's
#               rows taken in near_dupe_groups' order)
# MINHASH_BENCH_SWEEP="2 32" adds, for each shard count, a distributed copy
# (INSERT ... SELECT from the first, index, analyze) and its lookups;
# MINHASH_BENCH_SETTINGS=1 times the lookups again under a few Citus
# settings (the first, pool size 16, is the default: the same lookups later).  Prints a table at the end; figures in test/citus/README.md.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$HERE/../.." && pwd -P)"
DOCS=${1:-1000000}
SHARDS=${MINHASH_CITUS_SHARDS:-8}
T0=$SECONDS
rc=0; PGC=$("$HERE/build_citus.sh") || rc=$?
((rc == 77)) && exit 0
((rc == 0)) || { echo "bench_1m: Citus build failed"; exit 1; }
# shellcheck source=test/citus/lib.sh
source "$HERE/lib.sh"
BASE=${MINHASH_CITUS_PORT:-5551}
DIR=${MINHASH_BENCH_DIR:-$REPO_ROOT/.cache/citus-bench}
citus_start "$DIR" "$BASE" "$PGC" "$CITUS_BENCH_SETTINGS"
say() { printf '==> %s\n' "$*"; }
now() { echo "${EPOCHREALTIME/,/.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.1f", b - a}'; }
timed() {   # timed VAR SQL: runs SQL on the coordinator, VAR = seconds
    local t; t=$(now)
    q -c "$2" >/dev/null
    printf -v "$1" '%s' "$(secs "$t" "$(now)")"
}

say "corpus and $DOCS generated documents on the coordinator"
PGPORT=$BASE bash "$REPO_ROOT/test/corpus/load_spamassassin.sh" spam_messages >"$DIR/corpus.log" 2>&1
t=$(now)
psql -X -q -p "$BASE" -v docs="$DOCS" -f "$REPO_ROOT/test/corpus/generate_realistic.sql" >"$DIR/generate.log" 2>&1
say "generated in $(secs "$t" "$(now)") s"
LEAN=${MINHASH_BENCH_LEAN:-0}
((LEAN)) || q -c "ALTER TABLE real_docs DROP COLUMN sig" -c "VACUUM ANALYZE real_docs"

q -o /dev/null -v shards="$SHARDS" <<'SQL'
CREATE TABLE one (id bigint PRIMARY KEY, body text NOT NULL, sig minhash);
CREATE TABLE dist (id bigint PRIMARY KEY, body text NOT NULL, sig minhash);
SELECT create_distributed_table('dist', 'id', shard_count => :shards);
SQL

declare -A R
if ((LEAN)); then
    # the generator's signatures copied with their bodies; no index, no
    # lookups (bench_10m.sh): the disk holds the two tables and the work
    for tbl in one dist; do
        say "$tbl: load of (id, body, sig)"
        timed "R[$tbl.load]" "INSERT INTO $tbl (id, body, sig) SELECT id, body, sig FROM real_docs"
    done
    q -c "DROP TABLE real_docs" -c "VACUUM ANALYZE one" -c "VACUUM ANALYZE dist"
fi
for tbl in one dist; do
    ((LEAN)) && break
    say "$tbl: load, signatures, index"
    timed "R[$tbl.load]" "INSERT INTO $tbl (id, body) SELECT id, body FROM real_docs"
    timed "R[$tbl.sig]" "UPDATE $tbl SET sig = minhash(body)"
    timed "R[$tbl.index]" "CREATE INDEX ${tbl}_sig ON $tbl USING gin (sig)"
    q -c "VACUUM ANALYZE $tbl"
done

# 200 probe signatures, spread over the table (every 10th is a planted
# near-duplicate, so about one in ten finds a family)
q -c "SELECT format('SELECT count(*) FROM %%s WHERE resembles(sig, %L::minhash, 0.8);', sig)
        FROM one WHERE id IN (SELECT 1 + (i * 7919) % $DOCS FROM generate_series(1, 200) i) ORDER BY id" >"$DIR/probes.sql"
lookups() {   # lookups TABLE [SET ...]: prints "p50 p95" of the second of two passes
    local tbl=$1; shift
    { echo '\timing off'; printf '%s\n' "$@"; echo "SELECT count(*) FROM $tbl WHERE id = 1;"
      echo '\timing on'; sed "s/%s/$tbl/" "$DIR/probes.sql"; echo '\echo PASS2'
      sed "s/%s/$tbl/" "$DIR/probes.sql"; } | q 2>&1 | sed -n '/^PASS2$/,$p' | citus_percentiles
}
for tbl in one dist; do
    ((LEAN)) && break
    say "$tbl: lookups, groups"
    read -r "R[$tbl.p50]" "R[$tbl.p95]" < <(lookups "$tbl")
    t=$(now)
    R[$tbl.groups]=$(q -c "SET minhash.group_memory = '8GB'" -c "SELECT count(DISTINCT group_id) || ' ' || md5(string_agg(concat_ws(',', group_id, key, pivot, resemblance), '|' ORDER BY key))
                             FROM near_dupe_groups('$tbl', 'id', 'sig', 0.8)")
    R[$tbl.gtime]=$(secs "$t" "$(now)")
done
same=different; [[ "${R[one.groups]:-}" == "${R[dist.groups]:-}" ]] && same=same

# Pairs and groups: the engine on the coordinator's table (one node) beside
# the _distributed forms on the distributed table (band work on the
# workers), each call in a fresh session (warmed up on 1,000 rows) with the
# coordinator backend's peak private memory above the session's
# (citus_peak_memory); the two results compared row for row (a sum of
# hashes of each row with its position).
q -o /dev/null -c "CREATE TABLE one_tiny AS SELECT id, sig FROM one WHERE id <= 1000" \
    -c "CREATE TABLE dist_tiny (LIKE one_tiny)" -c "SELECT create_distributed_table('dist_tiny', 'id', colocate_with => 'dist')" \
    -c "INSERT INTO dist_tiny SELECT * FROM one_tiny"
hashed() { echo "SELECT count(*) || ' ' || sum(hashtextextended(r::text, 0)::numeric) FROM $1 WITH ORDINALITY r"; }
# The same for a result table of near_dupe_groups_distributed_into: its rows
# in near_dupe_groups' order (a group's pivot first, then by size and key).
hashed_table() {
    echo "SELECT count(*) || ' ' || sum(hashtextextended(ROW(x.group_id, x.key::text, x.pivot::text, x.resemblance, x.ord)::text, 0)::numeric)
            FROM (SELECT g.*, row_number() OVER (ORDER BY g.group_id, g.key <> g.pivot, minhash_size(s.sig) DESC NULLS LAST, g.key) AS ord
                    FROM $1 g JOIN dist s ON s.id = g.key) x"
}
# MINHASH_BENCH_INTO=1: Citus's groups by the procedure (a COMMIT per step).
INTO=${MINHASH_BENCH_INTO:-0}
GROUP_MEMORY=${MINHASH_BENCH_GROUP_MEMORY:-8GB}
warm="SET minhash.group_memory = '$GROUP_MEMORY';
SELECT count(*) FROM near_dupe_groups('one_tiny', 'id', 'sig', 0.8) \\g /dev/null
SELECT count(*) FROM near_dupe_groups_distributed('dist_tiny', 'id', 'sig', 0.8) \\g /dev/null"
# Every one-node call, then every distributed one; with MINHASH_BENCH_LEAN
# the coordinator's table is dropped between them (the disk of one machine
# holds the distributed work beside one copy of the table, not two).
work_rows=()
declare -A W
configs=("0.8" "0.6 0.99")
for side in one dist; do
    for config in "${configs[@]}"; do
        read -r t recall <<<"$config"
        if [[ -z "$recall" ]]; then args=$t
        elif [[ $side == one ]]; then args="$t, NULL::text, $recall"
        else args="$t, recall => $recall"; fi
        for fn in ${MINHASH_BENCH_CALLS:-pairs groups}; do
            call="near_dupe_$fn('one', 'id', 'sig', $args)"
            [[ $side == dist ]] && call="near_dupe_${fn}_distributed('dist', 'id', 'sig', $args)"
            if [[ $side == dist && $fn == groups && $INTO == 1 ]]; then
                call="near_dupe_groups_distributed_into('dist', 'id', 'sig', 'dist_groups', $args)"
                say "CALL $call"
                q -c "DROP TABLE IF EXISTS dist_groups"
                read -r "W[$side.$fn.$t.kb]" "W[$side.$fn.$t.sec]" _ < <(citus_peak_memory "$DIR" "$warm" "CALL $call")
                W[$side.$fn.$t.rows]=$(q -c "$(hashed_table dist_groups)" 2>&1 || true)
                q -c "DROP TABLE IF EXISTS dist_groups"
                continue
            fi
            say "$call"
            read -r "W[$side.$fn.$t.kb]" "W[$side.$fn.$t.sec]" "W[$side.$fn.$t.rows]" < <(citus_peak_memory "$DIR" "$warm" "$(hashed "$call")")
        done
    done
    if ((LEAN)) && [[ $side == one ]]; then q -c "DROP TABLE one" -c "CHECKPOINT"; fi
done
for config in "${configs[@]}"; do
    read -r t recall <<<"$config"
    label="$t exact"; [[ -n "$recall" ]] && label="$t, recall $recall"
    for fn in ${MINHASH_BENCH_CALLS:-pairs groups}; do
        k="$fn.$t"
        wsame=different; [[ "${W[one.$k.rows]}" == "${W[dist.$k.rows]:-}" ]] && wsame=same
        work_rows+=("$(printf '| near_dupe_%s at %s | %s s, %s MB (%s rows) | %s s, %s MB (%s rows) |' \
            "$fn" "$label" "${W[one.$k.sec]}" "$((W[one.$k.kb] / 1024))" "${W[one.$k.rows]%% *}" \
            "${W[dist.$k.sec]:-}" "$((${W[dist.$k.kb]:-0} / 1024))" "$wsame")")
    done
done

sweep=()
for s in ${MINHASH_BENCH_SWEEP:-}; do
    say "lookups at $s shards"
    q -o /dev/null -c "CREATE TABLE dist_$s (LIKE dist)" -c "ALTER TABLE dist_$s ADD PRIMARY KEY (id)" \
        -c "SELECT create_distributed_table('dist_$s', 'id', shard_count => $s, colocate_with => 'none')" \
        -c "INSERT INTO dist_$s SELECT * FROM dist" -c "CREATE INDEX dist_${s}_sig ON dist_$s USING gin (sig)" \
        -c "VACUUM ANALYZE dist_$s"
    read -r p50 p95 < <(lookups "dist_$s")
    sweep+=("$(printf '| lookups p50 / p95, %s shards | | %s / %s ms |' "$s" "$p50" "$p95")")
done
settings=()
if [[ -n "${MINHASH_BENCH_SETTINGS:-}" ]]; then
    for set in "SET citus.max_adaptive_executor_pool_size = 16;" "SET citus.max_adaptive_executor_pool_size = 1;" "SET citus.force_max_query_parallelization = on;" \
               "SET citus.max_cached_conns_per_worker = $SHARDS;" "SET citus.enable_binary_protocol = off;"; do
        say "lookups with $set"
        read -r p50 p95 < <(lookups dist "$set")
        settings+=("$(printf '| lookups p50 / p95, %s shards, `%s` | | %s / %s ms |' "$SHARDS" "$set" "$p50" "$p95")")
    done
fi

echo
echo "$DOCS documents (test/corpus/generate_realistic.sql), PostgreSQL 15, $(nproc) cores;"
echo "Citus $(q -c "SELECT extversion FROM pg_extension WHERE extname = 'citus'"): coordinator + 2 workers on this machine, $SHARDS shards"
echo
echo "| step | one node | Citus |"
echo "|---|---|---|"
if ((LEAN)); then
echo "| load (INSERT of id, body, sig) | ${R[one.load]} s | ${R[dist.load]} s |"
else
echo "| load (INSERT of id, body) | ${R[one.load]} s | ${R[dist.load]} s |"
echo "| signatures (UPDATE SET sig = minhash(body)) | ${R[one.sig]} s | ${R[dist.sig]} s |"
echo "| GIN index | ${R[one.index]} s | ${R[dist.index]} s |"
echo "| lookups at 0.8, p50 / p95 (200) | ${R[one.p50]} / ${R[one.p95]} ms | ${R[dist.p50]} / ${R[dist.p95]} ms |"
echo "| near_dupe_groups at 0.8 | ${R[one.gtime]} s (${R[one.groups]%% *} groups) | ${R[dist.gtime]} s (${R[dist.groups]%% *} groups, $same rows) |"
fi
echo
citus_groups=near_dupe_groups_distributed; ((INTO)) && citus_groups="CALL near_dupe_groups_distributed_into"
echo "| call (coordinator: time, peak private memory) | one node: near_dupe_pairs / near_dupe_groups | Citus: near_dupe_pairs_distributed / $citus_groups |"
echo "|---|---|---|"
printf '%s\n' "${work_rows[@]}"
echo
((${#sweep[@]})) && printf '%s\n' "${sweep[@]}"
((${#settings[@]})) && printf '%s\n' "${settings[@]}"
echo
echo "bench_1m: $((SECONDS - T0)) s in all"
