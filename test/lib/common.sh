# shellcheck shell=bash
# Shared helpers for the entry scripts (test/run_all.sh, test/demo.sh).
# Source it from bash with `set -euo pipefail` already on; it defines:
#   install_packages   Debian packages via apt-get (skipped if all present)
#   build_and_install  make -j2 && make install (PGXS, PostgreSQL 15)
#   cluster_start      throwaway cluster in <repo>/.cluster, unix socket only
#   cluster_stop       stops it (safe to call any time, e.g. from trap EXIT)
#   load_corpus        test/corpus/load_spamassassin.sh [TABLE [DATABASE]]
#   psql_run           psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"
#   install_cluster_traps  trap EXIT/INT/TERM/HUP so the cluster always stops
# and exports PGHOST, PGPORT, PGUSER, PGDATABASE (and PG_CONFIG) for clients.
# Test scripts that run_all.sh runs against its cluster (test/accuracy/accuracy.sh)
# may source this for psql_run, load_corpus, REPO_ROOT, ...; they must not
# call cluster_start, cluster_stop or install_cluster_traps.

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
CACHE_DIR="$REPO_ROOT/.cache"
LOG_DIR="$CACHE_DIR/log"
CLUSTER_DIR="$REPO_ROOT/.cluster"
PGDATA_DIR="$CLUSTER_DIR/data"
SERVER_LOG="$CLUSTER_DIR/server.log"

PG_MAJOR=15
# Pin the build and the server binaries to PostgreSQL 15 even if another
# major version is installed too (Debian's pg_config wrapper picks the newest).
if [[ -z "${PG_CONFIG:-}" ]]; then
    if [[ -x /usr/lib/postgresql/$PG_MAJOR/bin/pg_config ]]; then
        PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config
    else
        PG_CONFIG=pg_config
    fi
fi
export PG_CONFIG

# Client connection: unix socket of the throwaway cluster, as superuser postgres.
export PGPORT="${MINHASH_PGPORT:-5499}"
export PGUSER=postgres
export PGDATABASE=postgres
# A unix socket path is limited to 107 bytes; fall back to a short directory
# in /tmp if the repository path is too long for <repo>/.cluster/socket.
_sock="$CLUSTER_DIR/socket"
if (( ${#_sock} + ${#PGPORT} + 10 > 100 )); then
    _sock="/tmp/minhash-pg.$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)"
fi
export PGHOST="$_sock"
unset _sock
# Nothing from the caller's environment should redirect our clients elsewhere.
unset PGHOSTADDR PGSERVICE PGSERVICEFILE PGPASSWORD PGPASSFILE PGOPTIONS PGSSLMODE 2>/dev/null || true

log()  { printf '==> %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }
die()  { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

psql_run() { psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }

# Run a command as the postgres OS user (PostgreSQL refuses to run as root).
# Not root: run it as ourselves (a developer's own account).
as_pg() {
    if [[ $EUID -eq 0 ]]; then
        (cd / && runuser -u postgres -- "$@")
    else
        "$@"
    fi
}

pg_bindir() { "$PG_CONFIG" --bindir; }

# ---------------------------------------------------------------------------
# Packages
# ---------------------------------------------------------------------------
install_packages() {
    local pkgs=(build-essential ca-certificates "postgresql-$PG_MAJOR"
                "postgresql-server-dev-$PG_MAJOR" libxxhash-dev
                clang-14 libclang-rt-14-dev    # clang-14 + libFuzzer: test/fuzz
                python3-psycopg                # test/clients (node-postgres: npm)
                chromium fonts-dejavu-core     # the review page in a browser: test/review
                # Citus's build (test/citus/build_citus.sh): headers the server's
                # pg_config.h asks for (zstd, lz4, GSSAPI, ICU, OpenSSL)
                libzstd-dev liblz4-dev libkrb5-dev libicu-dev libssl-dev)
    # npm: only if none on PATH (a node/npm from elsewhere may be installed,
    # and Debian's npm package would conflict with it).
    command -v npm >/dev/null 2>&1 || pkgs+=(npm)

    local missing=() p
    for p in "${pkgs[@]}"; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
            missing+=("$p")
        fi
    done
    if ((${#missing[@]} == 0)); then
        log "packages: all present (${pkgs[*]})"
    else
        [[ $EUID -eq 0 ]] || die "missing packages (${missing[*]}); run as root or install them: apt-get install ${missing[*]}"
        mkdir -p "$LOG_DIR"
        local aptlog="$LOG_DIR/apt.log"
        log "packages: installing ${missing[*]} (log: $aptlog)"
        local pg_was_missing=0
        [[ " ${missing[*]} " == *" postgresql-$PG_MAJOR "* ]] && pg_was_missing=1
        if ! {
            export DEBIAN_FRONTEND=noninteractive
            apt-get update -q &&
            apt-get install -y -q --no-install-recommends "${missing[@]}"
        } >"$aptlog" 2>&1; then
            cat "$aptlog" >&2
            die "apt-get failed (log above, also in $aptlog)"
        fi
        # Installing postgresql-15 creates (and, where an init system lets it,
        # starts) Debian's default cluster 15/main on port 5432. We never use
        # it; stop it so that our scripts leave no server running.
        if ((pg_was_missing)) && command -v pg_lsclusters >/dev/null 2>&1 &&
           pg_lsclusters -h 2>/dev/null | awk -v v=$PG_MAJOR '$1==v && $2=="main" && $4=="online"' | grep -q .; then
            log "stopping Debian's default cluster $PG_MAJOR/main started by the install"
            pg_ctlcluster $PG_MAJOR main stop >>"$aptlog" 2>&1 || warn "could not stop cluster $PG_MAJOR/main"
        fi
    fi

    command -v "$PG_CONFIG" >/dev/null 2>&1 || die "pg_config not found ($PG_CONFIG)"
    local ver
    ver="$("$PG_CONFIG" --version)"
    [[ "$ver" == "PostgreSQL $PG_MAJOR."* ]] || die "need PostgreSQL $PG_MAJOR, $PG_CONFIG says: $ver (set PG_CONFIG)"
    [[ -f "$("$PG_CONFIG" --sharedir)/extension/pg_trgm.control" ]] ||
        die "pg_trgm (contrib) missing from $("$PG_CONFIG" --sharedir)/extension"
    command -v npm >/dev/null 2>&1 || die "npm not on PATH"
}

# ---------------------------------------------------------------------------
# Build
# ---------------------------------------------------------------------------
build_and_install() {
    mkdir -p "$LOG_DIR"
    local buildlog="$LOG_DIR/build.log"
    log "build: make -j2 && make install (PG_CONFIG=$PG_CONFIG, log: $buildlog)"
    if ! (cd "$REPO_ROOT" && make -j2 PG_CONFIG="$PG_CONFIG" && make install PG_CONFIG="$PG_CONFIG") >"$buildlog" 2>&1; then
        cat "$buildlog" >&2
        printf 'ERROR: build failed (log above, also in %s)\n' "$buildlog" >&2
        return 1
    fi
    local nwarn
    nwarn=$(grep -c 'warning:' "$buildlog" || true)
    if ((nwarn > 0)); then
        warn "build: $nwarn compiler warning(s):"
        grep -A3 'warning:' "$buildlog" >&2 || true
    fi
    log "build: ok"
}

# ---------------------------------------------------------------------------
# Throwaway cluster
# ---------------------------------------------------------------------------

# Fail clearly if the postgres OS user cannot reach $1 (a parent directory
# without the x bit for others, e.g. a clone under /root).
_check_pg_can_reach() {
    local target="$1" d="" part parts
    [[ $EUID -eq 0 ]] || return 0
    as_pg test -x "$target" 2>/dev/null && return 0
    IFS=/ read -ra parts <<<"${target#/}"
    for part in "${parts[@]}"; do
        d="$d/$part"
        if ! as_pg test -x "$d" 2>/dev/null; then
            ls -ld "$d" >&2 || true
            die "the postgres OS user cannot enter $d (needed for $target).
       PostgreSQL must not run as root, so the cluster runs as 'postgres', which
       must be able to traverse every directory down to the repository.
       Fix: chmod o+x '$d' (and any other such parent), or clone the repository
       somewhere else, e.g. under /srv or /tmp."
        fi
    done
    die "the postgres OS user cannot reach $target"
}

_pg_running() {
    [[ -f "$PGDATA_DIR/postmaster.pid" ]] &&
        as_pg "$(pg_bindir)/pg_ctl" -D "$PGDATA_DIR" status >/dev/null 2>&1
}

cluster_start() {
    local bindir
    bindir="$(pg_bindir)"
    [[ -x "$bindir/initdb" ]] || die "initdb not found in $bindir"
    if [[ $EUID -eq 0 ]]; then
        id postgres >/dev/null 2>&1 || die "OS user 'postgres' missing (is postgresql-$PG_MAJOR installed?)"
    fi

    # A server left over from an interrupted run (kill -9): stop it first.
    if _pg_running; then
        warn "stopping a server left running in $PGDATA_DIR"
        as_pg "$bindir/pg_ctl" -D "$PGDATA_DIR" -m immediate -w stop >/dev/null 2>&1 || true
    fi

    rm -rf "$CLUSTER_DIR"
    [[ "$PGHOST" == "$CLUSTER_DIR/socket" ]] || rm -rf "$PGHOST"
    mkdir -p "$CLUSTER_DIR" "$PGHOST"
    if [[ $EUID -eq 0 ]]; then
        chown -R postgres: "$CLUSTER_DIR" "$PGHOST"
        _check_pg_can_reach "$CLUSTER_DIR"
    fi
    # root's clients must reach the socket: the directory is postgres-owned.
    chmod 755 "$PGHOST"

    log "cluster: initdb in $PGDATA_DIR"
    if ! as_pg "$bindir/initdb" -D "$PGDATA_DIR" --auth=trust -E UTF8 --locale=C.UTF-8 \
            -U postgres >"$CLUSTER_DIR/initdb.log" 2>&1; then
        cat "$CLUSTER_DIR/initdb.log" >&2
        die "initdb failed"
    fi

    as_pg tee -a "$PGDATA_DIR/postgresql.conf" >/dev/null <<EOF

# --- throwaway test cluster (test/lib/common.sh) ---
listen_addresses = ''
port = $PGPORT
unix_socket_directories = '$PGHOST'
max_connections = 50
shared_buffers = 1GB
checkpoint_timeout = 30min
log_min_error_statement = error
$(throwaway_settings)
EOF

    log "cluster: starting (socket $PGHOST, port $PGPORT)"
    if ! as_pg "$bindir/pg_ctl" -D "$PGDATA_DIR" -l "$SERVER_LOG" -w -t 120 start >/dev/null 2>&1; then
        cat "$SERVER_LOG" >&2 2>/dev/null || true
        die "pg_ctl start failed (server log above)"
    fi
    psql_run -q -c 'SELECT 1' >/dev/null || die "cannot connect to the cluster at $PGHOST:$PGPORT"
    log "cluster: up ($(psql -X -At -c 'SHOW server_version'))"
}

# Safe to call any number of times, also when nothing was started.
cluster_stop() {
    local bindir
    bindir="$(pg_bindir 2>/dev/null)" || return 0
    if _pg_running; then
        log "cluster: stopping"
        as_pg "$bindir/pg_ctl" -D "$PGDATA_DIR" -m fast -w -t 60 stop >/dev/null 2>&1 ||
            as_pg "$bindir/pg_ctl" -D "$PGDATA_DIR" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
            warn "could not stop the server in $PGDATA_DIR"
    fi
    return 0
}

# Entry scripts call this right after sourcing: the cluster is stopped on any
# exit, error or Ctrl-C.
# new_private_cluster DIR SOCKET_DIR LABEL: a suite's own throwaway cluster
# (not run_all.sh's): stops a leftover one, empties DIR and SOCKET_DIR, runs
# initdb into DIR/data as the postgres user and writes its postgresql.conf:
# unix socket SOCKET_DIR and port $PGPORT only, then the settings on stdin.
# The settings every throwaway cluster shares: durability off (nothing here
# must survive a power cut), memory and parallelism for 2 cores and 24 GB.
throwaway_settings() {
    cat <<'EOF'
work_mem = 64MB
maintenance_work_mem = 512MB
max_wal_size = 4GB
fsync = off
synchronous_commit = off
full_page_writes = off
wal_level = minimal
max_wal_senders = 0
max_worker_processes = 4
max_parallel_workers = 2
max_parallel_workers_per_gather = 2
jit = off
log_min_messages = warning
lc_messages = 'C'
EOF
}

new_private_cluster() {
    local dir="$1" sock="$2" label="$3" data="$1/data"
    if [[ -f "$data/postmaster.pid" ]]; then
        as_pg "$(pg_bindir)/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir" "$sock"
    mkdir -p "$dir" "$sock"
    [[ $EUID -ne 0 ]] || chown postgres: "$dir" "$sock"
    chmod 755 "$dir" "$sock"
    as_pg "$(pg_bindir)/initdb" -D "$data" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres \
        >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; die "initdb failed"; }
    { printf "\n# --- %s ---\nlisten_addresses = ''\nport = %s\nunix_socket_directories = '%s'\n" \
        "$label" "$PGPORT" "$sock"; cat; } | as_pg tee -a "$data/postgresql.conf" >/dev/null
}

install_cluster_traps() {
    trap 'cluster_stop' EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
}

load_corpus() {
    bash "$REPO_ROOT/test/corpus/load_spamassassin.sh" "$@"
}
