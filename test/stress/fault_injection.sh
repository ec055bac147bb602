#!/usr/bin/env bash
# Fault injection at the C++ boundary: every exported core function whose
# body can throw catches everything (src/core/boundary.hpp).  This builds
# the test variant (make FAULT_INJECTION=1) in a copy of the tree, installs
# it into a private copy of the server (never into the system PostgreSQL),
# starts a throwaway cluster on it and, for every injection point and
# exception kind, runs a statement that reaches the point and checks:
#   - it fails with the expected SQLSTATE: std::bad_alloc -> 53200 (out of
#     memory), std::runtime_error and `throw 42` -> XX000 (internal error);
#     mh_builder_size, which returns a size and not a status, -> XX000 for
#     all kinds;
#   - the armed fault did fire (the statement reached the point);
#   - the same session then gets the same result as before the fault
#     (nothing half-built stayed behind);
#   - the engine's Interrupted at the polling functions, with no cancel
#     pending: the glue never starts the work over (the poll stops the
#     engine only for a cancel), so it is an internal error (XX000);
#   - a fault at the 2nd piece of a 3-piece document (53200, mid-stream);
#   - no server process died: one backend for the whole run, the
#     postmaster's start time unchanged, nothing "terminated by signal" in
#     the server log.
# Also checks that the list of boundaries in src/core/fault_injection.cpp
# names exactly the library's exported mh_* functions, that the injection
# points in the source are exactly its injected ones, and that the normal
# (installed) library has no trace of the injection code.
#
#   bash test/stress/fault_injection.sh
#
# Prints a matrix (point | kind | sqlstate | fired | same after | ok) and
# ends with `fault_injection: N cases, F failed, 0 crashes`.  Work
# directories: .cache/fault-build, .cache/fault-root (the server copy),
# .cache/fault-cluster (port ${MINHASH_FAULT_PORT:-5486}); the cluster is
# stopped on exit and all three removed (KEEP_DIR=1 keeps them).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

T0=$SECONDS
BUILD_DIR="$CACHE_DIR/fault-build"
ROOT_DIR="$CACHE_DIR/fault-root"
FAULT_CLUSTER="$CACHE_DIR/fault-cluster"
DATA="$FAULT_CLUSTER/data"
FAULT_LOG="$FAULT_CLUSTER/server.log"
BINDIR="$(pg_bindir)"
PKGLIBDIR="$("$PG_CONFIG" --pkglibdir)"
SHAREDIR="$("$PG_CONFIG" --sharedir)"
PRIVATE_BINDIR="$ROOT_DIR$BINDIR"
export PGHOST="$FAULT_CLUSTER" PGPORT="${MINHASH_FAULT_PORT:-5486}" PGUSER=postgres PGDATABASE=postgres
# A unix socket path is limited to 107 bytes.
if (( ${#PGHOST} + ${#PGPORT} + 10 > 100 )); then
    PGHOST="/tmp/minhash-fault.$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)"
fi

fault_pg_ctl() { as_pg "$PRIVATE_BINDIR/pg_ctl" -D "$DATA" "$@"; }
fault_running() { [[ -f "$DATA/postmaster.pid" ]] && fault_pg_ctl status >/dev/null 2>&1; }
fault_stop() {
    if fault_running; then
        fault_pg_ctl -m fast -w -t 60 stop >/dev/null 2>&1 ||
            fault_pg_ctl -m immediate -w -t 30 stop >/dev/null 2>&1 || warn "could not stop the server in $DATA"
    fi
    if [[ "${KEEP_DIR:-0}" == 1 ]]; then
        log "kept $FAULT_CLUSTER (server log: $FAULT_LOG), $BUILD_DIR and $ROOT_DIR"
    else
        rm -rf "$FAULT_CLUSTER" "$BUILD_DIR" "$ROOT_DIR"
        [[ "$PGHOST" == "$FAULT_CLUSTER" ]] || rm -rf "$PGHOST"
    fi
}
trap 'fault_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- the test build, in a copy of the tree ----------------------------------
log "fault_injection: building with FAULT_INJECTION=1 in $BUILD_DIR"
rm -rf "$BUILD_DIR" "$ROOT_DIR"
mkdir -p "$BUILD_DIR"
tar -c --exclude='*.o' --exclude='*.so' --exclude='*.bc' src sql Makefile minhash.control |
    tar -x -C "$BUILD_DIR"
make -C "$BUILD_DIR" -j2 -s FAULT_INJECTION=1 PG_CONFIG="$PG_CONFIG" >"$BUILD_DIR/build.log" 2>&1 ||
    { cat "$BUILD_DIR/build.log" >&2; die "fault-injection build failed"; }
! grep -q 'warning:' "$BUILD_DIR/build.log" || { cat "$BUILD_DIR/build.log" >&2; die "compiler warnings"; }
T_BUILD=$((SECONDS - T0))

# --- a private server tree: the server finds lib/ and share/ relative to its
# own binary, so the copied postgres loads the test build and nothing else.
mkdir -p "$ROOT_DIR$(dirname "$BINDIR")" "$ROOT_DIR$(dirname "$PKGLIBDIR")" "$ROOT_DIR$(dirname "$SHAREDIR")"
cp -a "$BINDIR" "$ROOT_DIR$BINDIR"
[[ -d "$ROOT_DIR$PKGLIBDIR" ]] || cp -a "$PKGLIBDIR" "$ROOT_DIR$PKGLIBDIR"
cp -a "$SHAREDIR" "$ROOT_DIR$SHAREDIR"
make -C "$BUILD_DIR" -s install DESTDIR="$ROOT_DIR" PG_CONFIG="$PG_CONFIG" >>"$BUILD_DIR/build.log" 2>&1 ||
    { cat "$BUILD_DIR/build.log" >&2; die "make install DESTDIR=$ROOT_DIR failed"; }
[[ "$("$PRIVATE_BINDIR/pg_config" --pkglibdir)" == "$ROOT_DIR$PKGLIBDIR" ]] ||
    die "the copied pg_config does not see the private lib directory"

failures=0
fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

# The normal build carries no injection code; the test build does.
installed_so="$PKGLIBDIR/minhash.so"
if [[ -f "$installed_so" ]]; then
    installed_symbols=$(nm -D -C "$installed_so")
    if grep -qE 'mh_fault_|minhash_fault_|fault_point' <<<"$installed_symbols"; then fail "the installed $installed_so has fault-injection symbols"; fi
    if grep -q 'injected fault' "$installed_so"; then fail "the installed $installed_so has fault-injection strings"; fi
else
    warn "no installed $installed_so to check for absent injection code"
fi
# (nm's output captured first: grep -q would end the pipe early, a failure under pipefail)
test_build_symbols=$(nm -D --defined-only "$BUILD_DIR/minhash.so")
grep -q ' T mh_fault_arm$' <<<"$test_build_symbols" || fail "the test build lacks mh_fault_arm"

# --- the cluster ----------------------------------------------------------------
if fault_running; then fault_pg_ctl -m immediate -w stop >/dev/null 2>&1 || true; fi
rm -rf "$FAULT_CLUSTER"
mkdir -p "$FAULT_CLUSTER" "$PGHOST"
if [[ $EUID -eq 0 ]]; then
    chown postgres: "$FAULT_CLUSTER" "$PGHOST"
    _check_pg_can_reach "$FAULT_CLUSTER"
    _check_pg_can_reach "$PRIVATE_BINDIR"
fi
chmod 755 "$FAULT_CLUSTER" "$PGHOST"
as_pg "$PRIVATE_BINDIR/initdb" -D "$DATA" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres \
    >"$FAULT_CLUSTER/initdb.log" 2>&1 || { cat "$FAULT_CLUSTER/initdb.log" >&2; die "initdb failed"; }
as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<EOF

# --- fault-injection test cluster (test/stress/fault_injection.sh) ---
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$PGHOST'
fsync = off
shared_buffers = 16MB
max_connections = 10
jit = off
lc_messages = 'C'
EOF
fault_pg_ctl -l "$FAULT_LOG" -w -t 60 start >/dev/null || { cat "$FAULT_LOG" >&2; die "pg_ctl start failed"; }

psql_run -q -At <<'SQL' >/dev/null
CREATE EXTENSION minhash;
-- Rows to group: three memos, each many times over with one word changed;
-- then two letters, so that some appended rows join no stored group.
CREATE TABLE fault_docs AS
SELECT i AS id, minhash('memo ' || (i % 3) || ' about the party on friday in the hall, copy ' || i) AS sig
  FROM generate_series(1, 60) i
UNION ALL
SELECT i, minhash('letter ' || (i % 2) || ' on the budget for the spring term, draft ' || i)
  FROM generate_series(61, 70) i;
-- A stored grouping of half of them, for near_dupe_groups_append.
CREATE TABLE fault_groups AS
SELECT * FROM near_dupe_groups('fault_docs', 'id', 'sig', 0.5) WHERE key::int <= 30;
-- Only the test build has these C functions: no install script declares them.
CREATE FUNCTION minhash_fault_arm(point text, kind text, nth int, sticky bool) RETURNS void
	AS '$libdir/minhash', 'minhash_fault_arm' LANGUAGE C STRICT;
CREATE FUNCTION minhash_fault_disarm() RETURNS void
	AS '$libdir/minhash', 'minhash_fault_disarm' LANGUAGE C;
CREATE FUNCTION minhash_fault_fired() RETURNS bigint
	AS '$libdir/minhash', 'minhash_fault_fired' LANGUAGE C;
CREATE FUNCTION minhash_fault_boundaries() RETURNS text[]
	AS '$libdir/minhash', 'minhash_fault_boundaries' LANGUAGE C;
SQL
server_pkglibdir=$(psql_run -At -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'")
[[ "$server_pkglibdir" == "$ROOT_DIR$PKGLIBDIR" ]] ||
    die "the server loads libraries from $server_pkglibdir, not the private $ROOT_DIR$PKGLIBDIR"
log "server: $PRIVATE_BINDIR/postgres, PKGLIBDIR $server_pkglibdir, port $PGPORT"

# --- the list of boundaries -------------------------------------------------------
mapfile -t boundaries < <(psql_run -At -c "SELECT unnest(minhash_fault_boundaries())")
mapfile -t injected < <(printf '%s\n' "${boundaries[@]}" | grep -v ':' | sort)
listed=$(printf '%s\n' "${boundaries[@]}" | cut -d: -f1 | sort)
# T: functions; i: those compiled per instruction set (target_clones)
exported=$(awk '($2 == "T" || $2 == "i") && $3 ~ /^mh_/ && $3 !~ /^mh_fault_/ {print $3}' <<<"$test_build_symbols" | sort)
[[ "$listed" == "$exported" ]] ||
    fail "boundaries listed in fault_injection.cpp differ from the exported functions: $(diff <(echo "$listed") <(echo "$exported") | grep '^[<>]' | tr '\n' ' ')"
points_in_source=$(grep -oh 'MH_INJECTION_POINT("[a-z_]*")' "$BUILD_DIR"/src/core/*.cpp | sed 's/.*("\(.*\)")/\1/' | sort)
[[ "$points_in_source" == "$(printf '%s\n' "${injected[@]}")" ]] ||
    fail "MH_INJECTION_POINT uses differ from the injected boundaries listed: $(diff <(echo "$points_in_source") <(printf '%s\n' "${injected[@]}") | grep '^[<>]' | tr '\n' ' ')"
# The compiler's own proof: a function through which an exception may pass
# gets an exception table (an LSDA in its unwind entry): to catch it, or,
# being noexcept, to call std::terminate.  So exactly the injected functions
# have one; a "cannot throw" function with one calls something that
# can throw, and terminate the server if it did.
with_lsda=$(readelf --debug-dump=frames "$BUILD_DIR/minhash.so" |
    awk '$4 == "CIE" {cie = $1} /Augmentation:/ && cie != "" {aug[cie] = $2; cie = ""}
         $4 == "FDE" {split($5, c, "="); split($6, p, /[=.]/); if (aug[c[2]] ~ /L/) print p[2]}' | sort)
with_lsda=$(awk '$3 ~ /^mh_/ && $3 !~ /^mh_fault_/ {print $1, $3}' <<<"$test_build_symbols" | sort |
    join - <(echo "$with_lsda") | awk '{print $2}' | sort)
[[ "$with_lsda" == "$(printf '%s\n' "${injected[@]}")" ]] ||
    fail "exported functions with an exception table differ from the injected ones: $(diff <(echo "$with_lsda") <(printf '%s\n' "${injected[@]}") | grep '^[<>]' | tr '\n' ' ')"
log "boundaries: ${#boundaries[@]} exported functions, ${#injected[@]} with an injection point, $(( ${#boundaries[@]} - ${#injected[@]} )) that cannot throw"

# --- the matrix ---------------------------------------------------------------------
# A statement (an expression) that reaches each point.
declare -A REACH=(
    [mh_builder_size]="minhash('the quick brown fox jumps over the lazy dog'::text)::text"
    [mh_builder_init]="minhash('the quick brown fox jumps over the lazy dog'::text)::text"
    [mh_builder_feed_text]="minhash('the quick brown fox jumps over the lazy dog'::text)::text"
    [mh_builder_reset]="(SELECT string_agg(minhash(d)::text, ';') FROM (VALUES ('the quick brown fox'), ('jumps over the lazy dog')) v(d))"
    [mh_builder_finish]="minhash('the quick brown fox jumps over the lazy dog'::text)::text"
    [mh_builder_add_element]="minhash(ARRAY['red', 'green', 'blue'])::text"
    [mh_tokenize]="minhash_tokens('The Quick brown FOX, jumps')::text"
    [mh_classify_text]="minhash_document_class('12 34, 56 and words')"
    [mh_parse_text]="(minhash('a b c d e f', 8)::text)::minhash::text"
    [mh_words_scan]="shingle_resemblance('a b c d e f g h', 'a b c d e x g h', 2)::text"
    [mh_exact_resemblance]="shingle_resemblance('a b c d e f g h', 'a b c d e x g h', 2)::text"
    [mh_sort_distinct]="shingle_hashes('a b c d e f g h', 2)::text"
    [mh_lsh_params]="lsh_params(0.8, 64)::text"
    [mh_recall_layout]="lsh_index_layout(0.5, 128, 0.99)::text"
    [mh_chunk_match]="chunk_similarity('a b c d e f g h', 'x a b c d e f y', 3)::text"
    [mh_group_greedy]="(SELECT string_agg(g::text, ';') FROM near_dupe_groups('fault_docs', 'id', 'sig', 0.5) g)"
    [mh_group_greedy_banded]="(SELECT string_agg(g::text, ';') FROM near_dupe_groups('fault_docs', 'id', 'sig', 0.5, NULL::text, recall => 0.99) g)"
    [mh_near_pairs]="(SELECT string_agg(p::text, ';') FROM near_dupe_pairs('fault_docs', 'id', 'sig', 0.5) p)"
    [mh_band_probe_build]="(SELECT string_agg(g::text, ';') FROM near_dupe_groups_append('fault_groups', 'fault_docs', 'id', 'sig', 0.5) g)"
    [mh_band_probe_walk]="(SELECT string_agg(g::text, ';') FROM near_dupe_groups_append('fault_groups', 'fault_docs', 'id', 'sig', 0.5) g)"
)
LONG_DOC="minhash(repeat('lorem ipsum dolor sit amet ', 100000))::text"   # 2.7 MB: 3 pieces
for p in "${injected[@]}"; do [[ -n "${REACH[$p]:-}" ]] || fail "no statement reaches injection point $p"; done

CASES=()   # point kind nth sticky expected-sqlstate
for p in "${injected[@]}"; do
    [[ -n "${REACH[$p]:-}" ]] || continue
    if [[ "$p" == mh_builder_size ]]; then oom=XX000; else oom=53200; fi
    CASES+=("$p bad_alloc 1 false $oom" "$p runtime_error 1 false XX000" "$p int 1 false XX000")
done
for p in mh_exact_resemblance mh_chunk_match mh_group_greedy mh_group_greedy_banded mh_near_pairs mh_sort_distinct mh_lsh_params mh_band_probe_walk; do
    CASES+=("$p interrupt 1 false XX000")
done
CASES+=("mh_builder_feed_text bad_alloc 2 false 53200")

script="$FAULT_CLUSTER/matrix.sql"
{
    echo "SELECT pg_backend_pid() AS pid0, pg_postmaster_start_time() AS start0 \\gset"
    declare -A seen=()
    for c in "${CASES[@]}"; do
        read -r p kind nth sticky _ <<<"$c"
        expr="${REACH[$p]}"
        [[ "$nth" == 1 ]] || expr="$LONG_DOC"
        key="$p$nth"
        if [[ -z "${seen[$key]:-}" ]]; then
            echo "SELECT $expr AS base_$key \\gset"
            seen[$key]=1
        fi
        [[ "$sticky" == false ]] || echo "SET statement_timeout = '300ms';"
        echo "SELECT minhash_fault_arm('$p', '$kind', $nth, $sticky);"
        echo "\\set result none"
        echo "SELECT ($expr) = :'base_$key' AS result \\gset"
        echo "\\set st :SQLSTATE"
        echo "\\set msg :LAST_ERROR_MESSAGE"
        [[ "$sticky" == false ]] || echo "RESET statement_timeout;"
        echo "SELECT minhash_fault_fired() AS fired \\gset"
        echo "SELECT minhash_fault_disarm();"
        echo "\\set same f"
        echo "SELECT ($expr) = :'base_$key' AS same \\gset"
        printf '%s\n' "\\echo 'ROW|$p|$kind|$nth|$sticky|':st'|':fired'|':result'|':same'|':msg"
        echo "\\set LAST_ERROR_MESSAGE ''"
    done
    echo "SELECT pg_backend_pid() = :pid0 AS same_backend, pg_postmaster_start_time() = :'start0' AS same_postmaster \\gset"
    printf '%s\n' "\\echo 'END|':same_backend'|':same_postmaster"
} >"$script"
start_before=$(psql_run -At -c "SELECT pg_postmaster_start_time()")

out=$(psql -X -At -f "$script" 2>"$FAULT_CLUSTER/matrix.err") || true

printf '\n%-24s %-14s %-4s %-6s %-9s %-8s %-6s %-5s %s\n' point kind nth sticky sqlstate expected fired same ok
n_cases=0
for c in "${CASES[@]}"; do
    read -r p kind nth sticky expected <<<"$c"
    n_cases=$((n_cases + 1))
    row=$(grep -F "ROW|$p|$kind|$nth|$sticky|" <<<"$out" | head -1 || true)
    IFS='|' read -r _ _ _ _ _ st fired result same msg <<<"$row"
    ok=ok
    [[ -n "$row" ]] || { st=none fired=none same=none; ok=FAIL; }
    [[ "$st" == "$expected" ]] || ok=FAIL
    # Once: exactly one throw.  Sticky: one per restart of the computation.
    if [[ "$sticky" == true ]]; then [[ "$fired" =~ ^[0-9]+$ && "$fired" -gt 1 ]] || ok=FAIL
    else [[ "$fired" == 1 ]] || ok=FAIL; fi
    [[ "$same" == t ]] || ok=FAIL
    # A statement that succeeds despite the fault must give the unfaulted
    # result.
    [[ "$st" != 00000 || "$result" == t ]] || ok=FAIL
    printf '%-24s %-14s %-4s %-6s %-9s %-8s %-6s %-5s %s\n' "$p" "$kind" "$nth" "$sticky" "$st" "$expected" "$fired" "$same" "$ok"
    if [[ "$ok" != ok ]]; then fail "$p $kind (nth $nth, sticky $sticky): sqlstate $st, expected $expected, fired $fired, same afterwards $same; $msg"; fi
done
printf '\nerror messages (count, text):\n'
grep -o 'ERROR: .*' "$FAULT_CLUSTER/matrix.err" | sort | uniq -c | sed 's/^/  /' || true

crashes=0
end=$(grep '^END|' <<<"$out" || true)
[[ "$end" == "END|t|t" ]] || { fail "the session did not survive the run (${end:-no END line}); psql said: $(tail -3 "$FAULT_CLUSTER/matrix.err")"; crashes=$((crashes + 1)); }
start_after=$(psql_run -At -c "SELECT pg_postmaster_start_time()" 2>/dev/null || echo down)
[[ "$start_after" == "$start_before" ]] || { fail "the postmaster restarted ($start_before -> $start_after)"; crashes=$((crashes + 1)); }
if grep -E 'terminated by signal|exited with exit code|PANIC|TRAP:|terminate called' "$FAULT_LOG" >&2; then
    fail "the server log shows a crashed process"; crashes=$((crashes + 1))
fi

T_TOTAL=$((SECONDS - T0))
log "fault_injection: build ${T_BUILD}s, total ${T_TOTAL}s"
echo "fault_injection: $n_cases cases (${#injected[@]} points), $failures failed, $crashes crashes"
((failures == 0))
