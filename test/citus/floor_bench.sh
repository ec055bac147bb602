#!/usr/bin/env bash
# floor_bench.sh: what moving the data through Citus costs at the least,
# beside one node's whole grouping, on this machine.  By hand, not in CI:
#
#   flock /work/bench.lock bash test/citus/floor_bench.sh [DOCS]   # default 200000
#
# Needs Citus's source (../shared/vendor, as citus.sh); builds it once
# (build_citus.sh) and starts a coordinator and two workers of its own in
# <repo>/.cache/citus-floor (ports MINHASH_CITUS_PORT..+2, default 5561-5563).
# DOCS realistic documents (test/corpus/generate_realistic.sql) go into a
# table of the coordinator (one node) and a distributed one (8 shards).
# Timed, each in the same run:
#   one node   near_dupe_groups at 0.8 exact and at 0.6 with recall 0.99
#              (minhash.group_memory 8GB: in memory)
#   Citus      the same by near_dupe_groups_distributed
#   floors     what any design that verifies on the workers must at least do:
#              read    every signature on its shard (a count over them)
#              move    every signature once to another shard (a repartitioned
#                      INSERT ... SELECT into a table distributed by a hash of
#                      the key): verifying a pair needs both signatures, or
#                      the band values, in one place, so at least one side of
#                      each pair that is not already co-located moves
#              bands   the band keys of the exact layout at 0.8 to the shards
#                      of their key (the first step of today's recipe)
#              copy    every signature to every node (a reference table): what
#                      a recipe that verifies with all signatures local pays
# MINHASH_FLOOR_CURRENT=0 leaves out the _distributed calls (minutes at 1M).
# and each floor as a share of one node's time: a floor above 1.5 means no
# design that moves that much through Citus meets "at most 1.5 times one
# node" on this machine.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$HERE/../.." && pwd -P)"
DOCS=${1:-200000}
rc=0; PGC=$("$HERE/build_citus.sh") || rc=$?
((rc == 77)) && exit 0
((rc == 0)) || { echo "floor_bench: Citus build failed"; exit 1; }
# shellcheck source=test/citus/lib.sh
source "$HERE/lib.sh"
BASE=${MINHASH_CITUS_PORT:-5561}
DIR=${MINHASH_BENCH_DIR:-$REPO_ROOT/.cache/citus-floor}
citus_start "$DIR" "$BASE" "$PGC" "$CITUS_BENCH_SETTINGS"
now() { echo "${EPOCHREALTIME/,/.}"; }
secs() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", b - a}'; }
timed() {   # timed VAR SQL...: runs the SQL on the coordinator in one session, VAR = seconds
    local var=$1 t; shift
    t=$(now)
    q -c "SET minhash.group_memory = '8GB'" "$@" >/dev/null
    printf -v "$var" '%s' "$(secs "$t" "$(now)")"
}

PGPORT=$BASE bash "$REPO_ROOT/test/corpus/load_spamassassin.sh" spam_messages >"$DIR/corpus.log" 2>&1
psql -X -q -p "$BASE" -v docs="$DOCS" -f "$REPO_ROOT/test/corpus/generate_realistic.sql" >"$DIR/generate.log" 2>&1
q -o /dev/null <<'SQL'
CREATE TABLE one (id bigint PRIMARY KEY, sig minhash);
INSERT INTO one SELECT id, sig FROM real_docs;
CREATE TABLE dist (id bigint PRIMARY KEY, sig minhash);
SELECT create_distributed_table('dist', 'id', shard_count => 8);
INSERT INTO dist SELECT id, sig FROM one;
DROP TABLE real_docs;
VACUUM ANALYZE one; VACUUM ANALYZE dist;
CREATE TABLE moved (h bigint, id bigint, sig minhash);
SELECT create_distributed_table('moved', 'h', shard_count => 8, colocate_with => 'none');
CREATE TABLE bands (band_key bigint, id bigint);
SELECT create_distributed_table('bands', 'band_key', shard_count => 8, colocate_with => 'none');
CREATE TABLE everywhere (id bigint, sig minhash);
SELECT create_reference_table('everywhere');
SQL
read -r B R < <(q -F ' ' -c "SELECT bands, rows FROM lsh_index_layout(0.8, 128)")
declare -A T
for run in 1 2; do
    timed "T[one08.$run]" -c "SELECT count(*) FROM near_dupe_groups('one', 'id', 'sig', 0.8)"
    timed "T[one06.$run]" -c "SELECT count(*) FROM near_dupe_groups('one', 'id', 'sig', 0.6, NULL::bigint, recall => 0.99)"
    timed "T[read.$run]" -c "SELECT sum(minhash_size(sig)) FROM dist"
    q -c "TRUNCATE moved" -c "TRUNCATE bands" -c "TRUNCATE everywhere"
    timed "T[move.$run]" -c "INSERT INTO moved SELECT hashint8(id), id, sig FROM dist"
    timed "T[bands.$run]" -c "INSERT INTO bands SELECT k, id FROM dist, unnest(minhash_bands(sig, $B, $R)) k"
    timed "T[copy.$run]" -c "INSERT INTO everywhere SELECT id, sig FROM dist"
done
T[dist08]=n/a; T[dist06]=n/a
if [[ ${MINHASH_FLOOR_CURRENT:-1} != 0 ]]; then
    timed "T[dist08]" -c "SELECT count(*) FROM near_dupe_groups_distributed('dist', 'id', 'sig', 0.8)"
    timed "T[dist06]" -c "SELECT count(*) FROM near_dupe_groups_distributed('dist', 'id', 'sig', 0.6, recall => 0.99)"
fi
moved=$(q -c "SELECT count(*) FROM moved")
nbands=$(q -c "SELECT count(*) FROM bands")
best() { awk -v a="${T[$1.1]}" -v b="${T[$1.2]}" 'BEGIN {print (a < b ? a : b)}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {if (a == "n/a") print "n/a"; else printf "%.2f", a / b}'; }
one08=$(best one08); one06=$(best one06)
echo "floor_bench: $DOCS realistic documents, coordinator + 2 workers on $(nproc) cores, 8 shards (best of two runs)"
printf '  %-52s %8s %10s %10s\n' step seconds "/ one 0.8" "/ one 0.6r"
row() { printf '  %-52s %8s %10s %10s\n' "$1" "$2" "$(ratio "$2" "$one08")" "$(ratio "$2" "$one06")"; }
row "one node: near_dupe_groups 0.8 exact" "$one08"
row "one node: near_dupe_groups 0.6 recall 0.99" "$one06"
row "Citus: near_dupe_groups_distributed 0.8 exact" "${T[dist08]}"
row "Citus: near_dupe_groups_distributed 0.6 recall 0.99" "${T[dist06]}"
row "floor read: every signature on its shard" "$(best read)"
row "floor move: every signature once ($moved rows)" "$(best move)"
row "floor bands: exact 0.8 band keys ($B x $R, $nbands rows)" "$(best bands)"
row "floor copy: every signature to every node" "$(best copy)"
