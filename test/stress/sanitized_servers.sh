#!/usr/bin/env bash
# The regression suite against PostgreSQL servers built for finding bugs:
#
#   bash test/stress/sanitized_servers.sh [debug|asan|valgrind|all]     (default all)
#
# Debian's postgresql-15 has assertions off, refuses debug_discard_caches,
# is not built for Valgrind, and deadlocks at start when ASan is preloaded
# into it. So this builds two servers from Debian's own source package
# (`apt-get source postgresql-15`, same patches as the installed server):
#
#   debug     --enable-cassert --enable-debug --enable-tap-tests, -O1,
#             -DUSE_VALGRIND (memory contexts tell Valgrind which bytes of a
#             palloc'd chunk are defined and which freed chunks must not be
#             touched); installed in .cache/pg-debug
#   asan      --enable-cassert --enable-debug, -O1, AddressSanitizer and
#             UBSan (recoverable: a report does not stop the server, every
#             report is counted); installed in .cache/pg-asan
#
# Each mode builds the extension against that server's pg_config in a copy
# of the sources (.cache/ext-<mode>: never in the working tree, whose
# objects belong to the main build), starts a throwaway cluster as the
# postgres OS user, runs the whole pg_regress suite (`make installcheck`,
# the Makefile's REGRESS list) and scans the server's output:
#
#   debug     the suite, then the suite again with debug_discard_caches = 1
#             (every catalog cache entry rebuilt at each access: finds
#             pointers into the caches kept across a catalog access) on the
#             tests in $MINHASH_DISCARD_TESTS ("all" for the whole list)
#   asan      the suite with the extension compiled with
#             -fsanitize=address,undefined too
#   valgrind  the suite on the debug server run under Valgrind memcheck
#             (slow), or the tests in $MINHASH_VALGRIND_TESTS; more
#             Valgrind options in $MINHASH_VALGRIND_OPTIONS (e.g.
#             --track-origins=yes to trace an uninitialised value)
#
# Findings that fail the mode: a failed test; in the server log an assertion
# failure ("TRAP:"), a process "terminated by signal" or exited with a
# non-zero code, a memory-context warning (write past chunk end, problem in
# alloc set) or a leak warning (relcache, buffer, ... reference leak); an
# ASan or UBSan report; a Valgrind error. Valgrind errors are counted overall
# and those with a frame in minhash.so.  Ends with one summary line per
# mode (also in .cache/sanitized/summary.txt) and exits non-zero on any
# finding.
#
# Needs root for apt-get (dpkg-dev, the build dependencies used here,
# valgrind) and for a deb-src entry (/etc/apt/sources.list.d/
# minhash-pg-src.sources, main and security archives). First run: about 6
# minutes per server build on 2 cores; later runs reuse the builds (rebuilt
# when the source version or the configure options change).
#
# Ports: MINHASH_DEBUG_PORT (5481; also the Valgrind run), MINHASH_ASAN_PORT
# (5482). MINHASH_BUILD_JOBS: make -j for the server builds (2).  Not in test/run_all.sh: far too slow for CI.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT"

MODE="${1:-all}"
case "$MODE" in debug | asan | valgrind | all) ;; *) die "usage: $0 [debug|asan|valgrind|all]" ;; esac

PG_SRC_CACHE="$CACHE_DIR/pg-src"
RUN_ROOT="$CACHE_DIR/sanitized"
SUMMARY="$RUN_ROOT/summary.txt"
BUILD_JOBS="${MINHASH_BUILD_JOBS:-2}"
DEBUG_PORT="${MINHASH_DEBUG_PORT:-5481}"
ASAN_PORT="${MINHASH_ASAN_PORT:-5482}"
# debug_discard_caches = 1 makes each test 10-100 times slower; these cover
# the type, operators, index, trigger and aggregates in a few minutes.
DISCARD_TESTS="${MINHASH_DISCARD_TESTS:-setup io compare opclass lsh aggregate trigger}"
SAN_FLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer"
# Runtime options of the ASan/UBSan processes (servers and clients alike):
#  detect_leaks=0    PostgreSQL frees memory by dropping whole memory contexts
#                    or by exiting; LeakSanitizer would report every process
#                    (and its non-zero exit code would fail psql and initdb).
#  detect_stack_use_after_return=0  a fake stack on the heap would break
#                    check_stack_depth(), which compares stack addresses.
#  print_stacktrace=1 (UBSan) a report names the function, so it can be told
#                    apart as ours or PostgreSQL's.
#  log_path          each report also in a file of its own (asan.<pid>,
#                    ubsan.<pid>), counted after the run.
#  halt_on_error=0 (UBSan) report and go on: PostgreSQL's own reports, if
#                    any, must not hide ours. ASan errors always stop the
#                    process (the postmaster then logs the exit).
asan_options() {
    printf 'detect_leaks=0:detect_stack_use_after_return=0:log_path=%s/asan' "$1"
}
ubsan_options() {
    printf 'print_stacktrace=1:halt_on_error=0:log_path=%s/ubsan' "$1"
}

FAILED=0
record() { printf '%s\n' "$*" | tee -a "$SUMMARY"; }
now() { date +%s; }

# ---------------------------------------------------------------------------
# Packages and the PostgreSQL source
# ---------------------------------------------------------------------------
san_install_packages() {
    # dpkg-dev: dpkg-source for apt-get source; bison, flex: Debian's patches
    # may touch the grammar; libipc-run-perl: --enable-tap-tests.
    local pkgs=(build-essential dpkg-dev bison flex libreadline-dev zlib1g-dev
                libicu-dev pkg-config libipc-run-perl valgrind "postgresql-$PG_MAJOR")
    local missing=() p
    for p in "${pkgs[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    ((${#missing[@]} == 0)) && return 0
    [[ $EUID -eq 0 ]] || die "missing packages: ${missing[*]} (run as root or apt-get install them)"
    log "packages: installing ${missing[*]}"
    mkdir -p "$LOG_DIR"
    { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } \
        >"$LOG_DIR/sanitized-apt.log" 2>&1 || { cat "$LOG_DIR/sanitized-apt.log" >&2; die "apt-get failed"; }
}

# Echoes the unpacked source directory, fetching it on first use.
pg_source_dir() {
    local dir
    dir="$(find "$PG_SRC_CACHE" -mindepth 1 -maxdepth 1 -type d -name "postgresql-$PG_MAJOR-*" 2>/dev/null | sort -V | tail -1)"
    if [[ -n "$dir" && -x "$dir/configure" ]]; then
        printf '%s\n' "$dir"
        return 0
    fi
    local srclist=/etc/apt/sources.list.d/minhash-pg-src.sources
    if [[ ! -f "$srclist" ]]; then
        [[ $EUID -eq 0 ]] || die "no deb-src entry for postgresql-$PG_MAJOR; run once as root"
        cat >"$srclist" <<'EOF'
# Source packages for test/stress/sanitized_servers.sh (minhash): postgresql-15.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: bookworm
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb-src
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
        apt-get update -q >"$LOG_DIR/sanitized-apt-src.log" 2>&1 || die "apt-get update failed (see $LOG_DIR/sanitized-apt-src.log)"
    fi
    # The installed server's version first; a mirror may lack it (here the
    # security archive's source pool answered 404), then the newest that
    # downloads.
    local installed versions v
    installed="$(dpkg-query -W -f='${Version}' "postgresql-$PG_MAJOR" 2>/dev/null || true)"
    versions="$(apt-cache showsrc "postgresql-$PG_MAJOR" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -rV | uniq)"
    mkdir -p "$PG_SRC_CACHE"
    for v in $installed $versions; do
        log "source: apt-get source postgresql-$PG_MAJOR=$v" >&2
        if (cd "$PG_SRC_CACHE" && apt-get source -q "postgresql-$PG_MAJOR=$v") >"$LOG_DIR/sanitized-apt-source.log" 2>&1; then
            dir="$(find "$PG_SRC_CACHE" -mindepth 1 -maxdepth 1 -type d -name "postgresql-$PG_MAJOR-*" | sort -V | tail -1)"
            [[ -x "$dir/configure" ]] && { printf '%s\n' "$dir"; return 0; }
        fi
    done
    cat "$LOG_DIR/sanitized-apt-source.log" >&2
    die "could not fetch the source of postgresql-$PG_MAJOR"
}

# ---------------------------------------------------------------------------
# Servers
# ---------------------------------------------------------------------------
# --libdir must contain "postgres": otherwise Debian's 50-per-version-dirs
# patch sets pkglibdir to /usr/lib/postgresql/15/lib, and make install would
# overwrite the installed server's libraries and PGXS files.
server_configure_args() {
    printf '%s\n' "--libdir=$CACHE_DIR/pg-$1/lib/postgresql"
    case "$1" in
        debug) printf '%s\n' --enable-cassert --enable-debug --enable-tap-tests --with-icu \
                   "CFLAGS=-O1 -fno-omit-frame-pointer" "CPPFLAGS=-DUSE_VALGRIND" ;;
        asan)  printf '%s\n' --enable-cassert --enable-debug --with-icu \
                   "CFLAGS=-O1 -fno-omit-frame-pointer -fsanitize=address,undefined" \
                   "LDFLAGS=-fsanitize=address,undefined" ;;
    esac
}

# What the suite needs: the server, its libraries (conversions, snowball,
# plpgsql), initdb, pg_ctl, psql, pg_isready, pg_config, pg_regress and the
# PGXS files. Not the rest (ecpg, pg_dump, pgbench, ...): a third of the
# build time on a loaded machine.
SERVER_PARTS="src/common src/port src/timezone src/backend
    src/backend/utils/mb/conversion_procs src/backend/snowball src/include
    src/interfaces/libpq src/fe_utils src/bin/initdb src/bin/pg_ctl src/bin/psql
    src/bin/pg_config src/bin/scripts src/pl/plpgsql src/makefiles
    src/test/regress config"

# Refuses a configuration whose library directory is outside prefix $1.
check_pkglibdir() {
    make -C src/port -s pg_config_paths.h || return 1
    if ! grep -q "define PKGLIBDIR \"$1/" src/port/pg_config_paths.h; then
        echo "PKGLIBDIR outside $1: $(grep PKGLIBDIR src/port/pg_config_paths.h)"
        return 1
    fi
}

# make and make install of SERVER_PARTS in the current (configured) build
# directory. The ASan-built tools (zic, initdb, ...) run during the build.
build_parts() {
    local d
    export ASAN_OPTIONS=detect_leaks=0
    # What the top-level make does before recursing: catalog headers etc.
    make -C src/backend -s generated-headers || return 1
    for d in $SERVER_PARTS; do make -C "$d" -j"$BUILD_JOBS" -s || return 1; done
    for d in $SERVER_PARTS; do make -C "$d" -s install || return 1; done
    make -C src -s install-local    # Makefile.global etc. for PGXS
}

# Builds and installs server $1 into .cache/pg-$1 unless an install from the
# same source and options is there.
build_server() {
    local name="$1" src prefix="$CACHE_DIR/pg-$1" builddir="$CACHE_DIR/pg-build-$1"
    src="$(pg_source_dir)"
    local -a args
    mapfile -t args < <(server_configure_args "$name")
    local stamp
    stamp="$(basename "$src") ${args[*]}"
    if [[ -x "$prefix/bin/postgres" && "$(cat "$prefix/.minhash-build-stamp" 2>/dev/null)" == "$stamp" ]]; then
        log "$name server: up to date in $prefix ($(basename "$src"))"
        return 0
    fi
    local buildlog="$RUN_ROOT/build-$name.log" t0
    t0=$(now)
    log "$name server: building $(basename "$src") (log: $buildlog)"
    rm -rf "$builddir" "$prefix"
    mkdir -p "$builddir"
    if ! (cd "$builddir" &&
          ASAN_OPTIONS=detect_leaks=0 "$src/configure" --prefix="$prefix" "${args[@]}" &&
          check_pkglibdir "$prefix" &&
          build_parts) >"$buildlog" 2>&1; then
        tail -40 "$buildlog" >&2
        die "$name server: build failed (log: $buildlog)"
    fi
    printf '%s\n' "$stamp" >"$prefix/.minhash-build-stamp"
    record "$name server: built in $(( $(now) - t0 )) s ($(basename "$src"))"
}

# ---------------------------------------------------------------------------
# The extension, in a copy of the sources
# ---------------------------------------------------------------------------
# build_extension RUN SERVER: a copy per run (.cache/ext-RUN), so that runs
# on one server can go at the same time.
build_extension() {
    local run="$1" name="$2" pgconfig="$CACHE_DIR/pg-$2/bin/pg_config" copy="$CACHE_DIR/ext-$1" extra=""
    [[ "$name" == asan ]] && extra="$SAN_FLAGS"
    local dir
    for dir in "$("$pgconfig" --pkglibdir)" "$("$pgconfig" --sharedir)"; do
        [[ "$dir" == "$CACHE_DIR/pg-$name/"* ]] || die "$pgconfig installs into $dir, outside $CACHE_DIR/pg-$name"
    done
    mkdir -p "$copy"
    # Sources only: the working tree's objects are built against Debian's
    # headers (another minor version), and would look up to date. tar keeps
    # the sources' times, so make rebuilds in the copy what changed since.
    tar --exclude='*.o' --exclude='*.so' --exclude='*.bc' --exclude='*.a' \
        -cf - src sql expected Makefile minhash.control | tar -xf - -C "$copy"
    local buildlog="$RUN_ROOT/ext-$run.log"
    log "$run: building the extension in $copy (log: $buildlog)"
    # COPT reaches the C compiler and the link; the C++ core gets -g (PGXS's
    # CXXFLAGS lack it) and, for ASan, the sanitizers through PG_CXXFLAGS.
    if ! make -C "$copy" -j2 PG_CONFIG="$pgconfig" COPT="$extra" \
            PG_CXXFLAGS="-std=c++17 -g -fno-omit-frame-pointer $extra" install >"$buildlog" 2>&1; then
        tail -40 "$buildlog" >&2
        die "$run: extension build failed (log: $buildlog)"
    fi
}

# ---------------------------------------------------------------------------
# Clusters
# ---------------------------------------------------------------------------
RUN_DIR="" DATA="" BINDIR="" SERVER_LOG_FILE=""

# init_cluster RUN SERVER PORT: initdb for run RUN (debug, asan, valgrind) of
# server SERVER, in .cache/sanitized/RUN.
init_cluster() {
    local run="$1" server="$2" port="$3"
    RUN_DIR="$RUN_ROOT/$run"
    DATA="$RUN_DIR/data"
    BINDIR="$CACHE_DIR/pg-$server/bin"
    SERVER_LOG_FILE="$RUN_DIR/server.log"
    local sock="$RUN_DIR/socket"
    (( ${#sock} + 20 < 100 )) || sock="/tmp/minhash-san-$run.$port"
    export PGHOST="$sock" PGPORT="$port" PGUSER=postgres PGDATABASE=postgres
    stop_cluster
    rm -rf "$RUN_DIR" "$sock"
    mkdir -p "$RUN_DIR/reports" "$sock"
    if [[ $EUID -eq 0 ]]; then chown -R postgres: "$RUN_DIR" "$sock"; fi
    chmod 755 "$RUN_DIR" "$sock"
    chmod 777 "$RUN_DIR/reports"
    as_pg env ASAN_OPTIONS="$(asan_options "$RUN_DIR/reports")" UBSAN_OPTIONS="$(ubsan_options "$RUN_DIR/reports")" \
        "$BINDIR/initdb" -D "$DATA" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres >"$RUN_DIR/initdb.log" 2>&1 ||
        { cat "$RUN_DIR/initdb.log" >&2; die "$run: initdb failed"; }
    # log_line_prefix with the pid: a Valgrind or ASan report (by pid) can be
    # matched with the statement the backend ran.
    as_pg tee -a "$DATA/postgresql.conf" >/dev/null <<EOF

# --- test/stress/sanitized_servers.sh ---
listen_addresses = ''
port = $port
unix_socket_directories = '$sock'
max_connections = 20
shared_buffers = 128MB
work_mem = 64MB
maintenance_work_mem = 256MB
fsync = off
synchronous_commit = off
full_page_writes = off
max_worker_processes = 4
max_parallel_workers = 2
max_parallel_workers_per_gather = 2
jit = off
log_line_prefix = '%m [%p] '
log_min_messages = warning
log_min_error_statement = error
lc_messages = 'C'
EOF
}

start_cluster() {
    as_pg env ASAN_OPTIONS="$(asan_options "$RUN_DIR/reports")" UBSAN_OPTIONS="$(ubsan_options "$RUN_DIR/reports")" \
        "$BINDIR/pg_ctl" -D "$DATA" -l "$SERVER_LOG_FILE" -w -t 300 start >/dev/null ||
        { tail -40 "$SERVER_LOG_FILE" >&2; die "pg_ctl start failed"; }
}

# The debug server's postmaster under Valgrind; its backends are forks, so
# Valgrind follows them (--trace-children also covers anything exec'd).
# --error-markers delimit each error so that it can be counted; frames get
# full paths so that ours (in the extension's copy) can be told apart.
start_cluster_valgrind() {
    local src
    src="$(pg_source_dir)"
    local -a extra
    read -ra extra <<<"${MINHASH_VALGRIND_OPTIONS:-}"
    (cd / && exec runuser -u postgres -- valgrind --quiet --trace-children=yes --leak-check=no \
        --num-callers=30 --error-exitcode=128 --gen-suppressions=all \
        --suppressions="$src/src/tools/valgrind.supp" --fullpath-after= \
        --error-markers=VALGRINDERROR-BEGIN,VALGRINDERROR-END \
        "${extra[@]}" \
        --log-file="$RUN_DIR/reports/valgrind.%p.log" \
        "$BINDIR/postgres" -D "$DATA") >>"$SERVER_LOG_FILE" 2>&1 &
    local t=0
    until "$BINDIR/pg_isready" -q -t 1 >/dev/null 2>&1; do
        sleep 1
        t=$((t + 1))
        ((t < 600)) || { tail -40 "$SERVER_LOG_FILE" >&2; die "the server under Valgrind did not start"; }
    done
}

stop_cluster() {
    [[ -n "$DATA" && -f "$DATA/postmaster.pid" ]] || return 0
    as_pg "$BINDIR/pg_ctl" -D "$DATA" -m fast -w -t 600 stop >/dev/null 2>&1 ||
        as_pg "$BINDIR/pg_ctl" -D "$DATA" -m immediate -w -t 120 stop >/dev/null 2>&1 ||
        warn "could not stop the server in $DATA"
}
trap 'stop_cluster' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# ---------------------------------------------------------------------------
# The suite, and the scans
# ---------------------------------------------------------------------------
# run_regress RUN SERVER LABEL TESTS...: make installcheck in the copy; echoes
# "passed/total" and returns 1 if a test failed. Extra options for every
# backend come from PGOPTIONS.
run_regress() {
    local run="$1" server="$2" label="$3"
    shift 3
    local copy="$CACHE_DIR/ext-$run" out="$RUN_DIR/regress-$label.out" t0 rc=0
    t0=$(now)
    # ISOLATION= : the Makefile's isolation specs need pg_isolation_regress,
    # which is not built here (a follow-up); this runs the REGRESS list.
    make -C "$copy" installcheck PG_CONFIG="$CACHE_DIR/pg-$server/bin/pg_config" REGRESS="$*" ISOLATION= \
        >"$out" 2>&1 || rc=$?
    local secs=$(( $(now) - t0 )) total="$#" failed
    # pg_regress 15 ends with "All N tests passed." or "M of N tests failed."
    if grep -q 'tests passed' "$out" && ((rc == 0)); then
        failed=0
    elif grep -qE '[0-9]+ of [0-9]+ tests? failed' "$out"; then
        failed="$(grep -oE '[0-9]+ of [0-9]+ tests? failed' "$out" | awk '{print $1}')"
    else
        failed="$total"
    fi
    cp "$copy/regression.diffs" "$RUN_DIR/regression-$label.diffs" 2>/dev/null || true
    record "$run: $label: $((total - failed)) of $total tests passed in $secs s (output: $out)"
    if ((failed > 0 || rc != 0)); then
        grep -E 'FAILED|failed' "$out" >&2 || true
        [[ -f "$copy/regression.diffs" ]] && head -60 "$copy/regression.diffs" >&2
        return 1
    fi
}

# Counts lines of the server log matching an extended regexp.
log_count() { grep -cE -- "$1" "$SERVER_LOG_FILE" 2>/dev/null || true; }

# scan_server_log RUN: assertion failures, crashes, memory-context checks.
scan_server_log() {
    local run="$1" traps signals exits mcxt leaks
    traps="$(log_count 'TRAP: ')"
    signals="$(log_count 'terminated by signal')"
    # Not background workers: the replication launcher exits with 1 at each
    # shutdown, a parallel worker after an ERROR.
    exits="$(log_count 'server process \(PID [0-9]+\) exited with exit code [1-9]')"
    mcxt="$(log_count 'write past chunk end|problem in alloc set|problem in generation|problem in slab')"
    leaks="$(log_count 'WARNING: .*(leak|not closed)')"
    record "$run: server log: TRAP $traps, terminated by signal $signals, non-zero exits $exits, memory-context warnings $mcxt, leak warnings $leaks"
    if ((traps + signals + exits + mcxt + leaks > 0)); then
        grep -E -B2 -A8 'TRAP: |terminated by signal|server process \(PID [0-9]+\) exited with exit code [1-9]|write past chunk end|problem in (alloc set|generation|slab)|WARNING: .*(leak|not closed)' \
            "$SERVER_LOG_FILE" | head -80 >&2
        return 1
    fi
}

# scan_sanitizer_reports RUN: ASan/UBSan reports (report files and log).
scan_sanitizer_reports() {
    local run="$1" asan ubsan ours
    asan="$(cat "$RUN_DIR"/reports/asan.* 2>/dev/null | grep -c 'ERROR: AddressSanitizer' || true)"
    asan=$((asan + $(log_count 'ERROR: AddressSanitizer')))
    ubsan="$(cat "$RUN_DIR"/reports/ubsan.* "$RUN_DIR"/reports/asan.* 2>/dev/null | grep -c 'runtime error:' || true)"
    ubsan=$((ubsan + $(log_count 'runtime error:')))
    ours="$(cat "$RUN_DIR"/reports/asan.* "$RUN_DIR"/reports/ubsan.* "$SERVER_LOG_FILE" 2>/dev/null |
            grep -cE "runtime error:.*ext-$run/src/|#[0-9]+ 0x[0-9a-f]+ in .*(minhash\.so|ext-$run/src/)" || true)"
    record "$run: ASan reports $asan, UBSan reports $ubsan, report lines naming minhash $ours (reports: $RUN_DIR/reports)"
    if ((asan + ubsan > 0)); then
        cat "$RUN_DIR"/reports/asan.* "$RUN_DIR"/reports/ubsan.* 2>/dev/null | head -80 >&2
        grep -E -A20 'ERROR: AddressSanitizer|runtime error:' "$SERVER_LOG_FILE" | head -80 >&2
        return 1
    fi
}

# scan_valgrind RUN: errors between the markers, overall and with a frame of
# the extension.
scan_valgrind() {
    local run="$1" total ours files
    files=("$RUN_DIR"/reports/valgrind.*.log)
    [[ -e "${files[0]}" ]] || { record "$run: no Valgrind log written"; return 1; }
    read -r total ours < <(awk '
        /VALGRINDERROR-BEGIN/ { inerr = 1; mine = 0; next }
        /VALGRINDERROR-END/   { total++; if (mine) ours++; inerr = 0; next }
        inerr && (/minhash\.so/ || /\/ext-valgrind\/src\//) { mine = 1 }
        END { print total + 0, ours + 0 }' "${files[@]}")
    record "$run: Valgrind errors $total (with a frame in the extension: $ours) in ${#files[@]} process logs ($RUN_DIR/reports)"
    if ((total > 0)); then
        awk '/VALGRINDERROR-BEGIN/,/VALGRINDERROR-END/' "${files[@]}" | head -120 >&2
        return 1
    fi
}

regress_tests() { sed -n 's/^REGRESS *= *//p' Makefile; }

# ---------------------------------------------------------------------------
# The modes
# ---------------------------------------------------------------------------
mode_debug() {
    build_server debug
    build_extension debug debug
    init_cluster debug debug "$DEBUG_PORT"
    start_cluster
    local ok=1 discard
    # shellcheck disable=SC2046
    run_regress debug debug suite $(regress_tests) || ok=0
    discard="$DISCARD_TESTS"
    [[ "$discard" == all ]] && discard="$(regress_tests)"
    # shellcheck disable=SC2086
    PGOPTIONS="-c debug_discard_caches=1" run_regress debug debug discard-caches $discard || ok=0
    stop_cluster
    scan_server_log debug || ok=0
    ((ok)) || FAILED=1
}

mode_asan() {
    # pg_config, psql and pg_regress are ASan builds too.
    export ASAN_OPTIONS=detect_leaks=0
    build_server asan
    build_extension asan asan
    init_cluster asan asan "$ASAN_PORT"
    export UBSAN_OPTIONS
    ASAN_OPTIONS="$(asan_options "$RUN_DIR/reports")"
    UBSAN_OPTIONS="$(ubsan_options "$RUN_DIR/reports")"
    start_cluster
    local ok=1
    # shellcheck disable=SC2046
    run_regress asan asan suite $(regress_tests) || ok=0
    stop_cluster
    scan_server_log asan || ok=0
    scan_sanitizer_reports asan || ok=0
    unset ASAN_OPTIONS UBSAN_OPTIONS
    ((ok)) || FAILED=1
}

mode_valgrind() {
    build_server debug
    build_extension valgrind debug
    init_cluster valgrind debug "$DEBUG_PORT"
    start_cluster_valgrind
    local ok=1
    local -a tests
    read -ra tests <<<"${MINHASH_VALGRIND_TESTS:-$(regress_tests)}"
    run_regress valgrind debug suite "${tests[@]}" || ok=0
    stop_cluster
    scan_server_log valgrind || ok=0
    scan_valgrind valgrind || ok=0
    ((ok)) || FAILED=1
}

mkdir -p "$RUN_ROOT" "$LOG_DIR"
: >"$SUMMARY"
san_install_packages
record "sanitized_servers: $MODE, $(date -u '+%Y-%m-%d %H:%M UTC')"
case "$MODE" in
    debug) mode_debug ;;
    asan) mode_asan ;;
    valgrind) mode_valgrind ;;
    all) mode_debug; mode_asan; mode_valgrind ;;
esac
if ((FAILED)); then
    record "sanitized_servers: FAILED (details above; logs in $RUN_ROOT)"
    exit 1
fi
record "sanitized_servers: clean"
