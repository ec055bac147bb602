#!/usr/bin/env bash
# Build one PostgreSQL major from Debian's source package into a cache outside
# the clone, for test/versions/matrix.sh. Idempotent: a finished build leaves a
# stamp file and a second run only prints the pg_config path.
#
#   bash test/versions/build_postgres.sh MAJOR      # 13, 15 or 18
#
# Prints the path of the built pg_config on its last line of stdout (progress
# goes to stderr, the build's output to a log in the cache).
#
# What it does (as root, the first time):
#   - adds a deb-src entry for the Debian suite that carries postgresql-MAJOR in
#     its own file /etc/apt/sources.list.d/minhash-pg-src-SUITE.sources (only
#     source lines, so binary installs are unaffected), apt-get update;
#   - installs the build tools it lacks (bison, flex, dpkg-dev for apt-get source);
#   - apt-get source --download-only postgresql-MAJOR, unpacks the upstream
#     (orig) tarball only -- no Debian patches, a plain upstream layout;
#   - configure --prefix=CACHE/MAJOR --without-icu --without-readline
#     --without-zlib, make -j2, make install, plus the contrib modules of
#     CONTRIBS (pg_trgm, postgres_fdw, citext, isn) and the isolation tester
#     (pg_isolation_regress for PGXS).  A contrib module added to CONTRIBS
#     later is built into a cached server from the same tarball (PGXS).
# It never touches Debian's own /usr/lib/postgresql or /usr/share/postgresql.
#
# Environment: MINHASH_PG_CACHE (default /var/cache/minhash-pg),
# MINHASH_PG_JOBS (make -j, default 2).
set -euo pipefail

MAJOR="${1:-}"
CACHE="${MINHASH_PG_CACHE:-/var/cache/minhash-pg}"
JOBS="${MINHASH_PG_JOBS:-2}"

say() { printf '==> %s\n' "$*" >&2; }
die() { printf 'ERROR: %s\n' "$*" >&2; exit 1; }

# The Debian suite whose archive carries the source package of each major.
# 15 is Debian 12's own; its upstream build serves test/versions/
# pg_upgrade_15_to_18.sh when Debian's 15 cannot be upgraded to the 18 built
# here (see there).
case "$MAJOR" in
    13) SUITE=bullseye ;;
    15) SUITE=bookworm ;;
    18) SUITE=sid ;;
    *)  die "usage: $0 MAJOR (13, 15 or 18)" ;;
esac

PREFIX="$CACHE/$MAJOR"
STAMP="$PREFIX/.minhash-build-done"
PG_CONFIG_PATH="$PREFIX/bin/pg_config"
# The contrib modules the tests use (sql/security.sql: citext; sql/reports.sql: isn).
CONTRIBS=(pg_trgm postgres_fdw citext isn)
SRC_ROOT="$CACHE/src/$MAJOR"
LOG="$CACHE/build-$MAJOR.log"

# The server, its headers and the isolation tester (the stamp is written last).
server_complete() {
    [[ -f "$STAMP" && -x "$PG_CONFIG_PATH" ]] &&
        [[ -x "$(dirname "$("$PG_CONFIG_PATH" --pgxs)")/../test/isolation/pg_isolation_regress" ]]
}
missing_contribs() {
    local c
    for c in "${CONTRIBS[@]}"; do
        [[ -f "$("$PG_CONFIG_PATH" --sharedir)/extension/$c.control" ]] || echo "$c"
    done
}
complete() { server_complete && [[ -z "$(missing_contribs)" ]]; }

# A contrib module added to CONTRIBS after the server was cached: built from
# the same orig tarball through PGXS, without rebuilding the server.
add_contribs() {
    local orig c tmp
    orig=("$SRC_ROOT"/postgresql-"$MAJOR"_*.orig.tar.*)
    [[ -f "${orig[0]}" ]] || die "no orig tarball in $SRC_ROOT to build contrib modules from"
    tmp="$(mktemp -d)"
    for c in $(missing_contribs); do
        say "PostgreSQL $MAJOR: adding contrib $c"
        tar -xf "${orig[0]}" -C "$tmp" --strip-components=1 --wildcards "*/contrib/$c"
        make -C "$tmp/contrib/$c" USE_PGXS=1 PG_CONFIG="$PG_CONFIG_PATH" -j"$JOBS" install >>"$LOG" 2>&1 ||
            { rm -rf "$tmp"; tail -30 "$LOG" >&2; die "build of contrib $c for PostgreSQL $MAJOR failed (log: $LOG)"; }
    done
    rm -rf "$tmp"
    chmod -R a+rX "$PREFIX"
}

if server_complete && [[ -n "$(missing_contribs)" ]]; then
    [[ $EUID -eq 0 ]] || die "adding contrib modules to PostgreSQL $MAJOR needs root ($CACHE)"
    add_contribs
fi
if complete; then
    say "PostgreSQL $MAJOR: cached ($("$PG_CONFIG_PATH" --version))"
    echo "$PG_CONFIG_PATH"
    exit 0
fi

[[ $EUID -eq 0 ]] || die "the first build of PostgreSQL $MAJOR needs root (apt-get, $CACHE)"
case "$PREFIX" in
    /usr/lib/postgresql*|/usr/share/postgresql*|/usr|/usr/*) die "refusing to install into $PREFIX" ;;
esac

mkdir -p "$SRC_ROOT"
: >"$LOG"
START=$SECONDS

# --- source package -------------------------------------------------------
LIST=/etc/apt/sources.list.d/minhash-pg-src-$SUITE.sources
# Whether apt already has deb-src for the suite (one-line or deb822 format):
# configured twice, apt warns on every update.
has_deb_src() {
    grep -qsE "^deb-src[[:space:]]+(\[[^]]*\][[:space:]]+)?[^[:space:]]+[[:space:]]+${SUITE}[[:space:]]" \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
    awk -v suite="$SUITE" '
        /^[[:space:]]*$/ { if (src && found) hit = 1; src = 0; found = 0; next }
        /^Types:/ && / deb-src/ { src = 1 }
        /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == suite) found = 1 }
        END { if (src && found) hit = 1; exit !hit }
    ' /etc/apt/sources.list.d/*.sources 2>/dev/null
}
if [[ ! -f "$LIST" ]] && ! has_deb_src; then
    say "adding deb-src for $SUITE ($LIST)"
    cat >"$LIST" <<SRC
# Added by minhash test/versions/build_postgres.sh: source packages only
# (postgresql-$MAJOR), to build PostgreSQL $MAJOR into $CACHE.
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $SUITE
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
    NEED_UPDATE=1
fi
export DEBIAN_FRONTEND=noninteractive
missing=()
for p in bison flex dpkg-dev build-essential; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [[ -n "${NEED_UPDATE:-}" ]] || ((${#missing[@]})); then
    say "apt-get update"
    apt-get update -q >>"$LOG" 2>&1 || { tail -20 "$LOG" >&2; die "apt-get update failed (log: $LOG)"; }
fi
if ((${#missing[@]})); then
    say "installing ${missing[*]}"
    apt-get install -y -q --no-install-recommends "${missing[@]}" >>"$LOG" 2>&1 ||
        { tail -20 "$LOG" >&2; die "apt-get install failed (log: $LOG)"; }
fi

shopt -s nullglob
orig=("$SRC_ROOT"/postgresql-"$MAJOR"_*.orig.tar.*)
if ((${#orig[@]} == 0)); then
    # The newest version whose files the archive still has (a security
    # update's files can be missing from the mirror while it is listed).
    for v in $(apt-cache showsrc "postgresql-$MAJOR" 2>/dev/null | awk '/^Version:/ {print $2}' | sort -rV | uniq); do
        say "downloading the source package postgresql-$MAJOR=$v"
        if (cd "$SRC_ROOT" && apt-get source --download-only -q "postgresql-$MAJOR=$v") >>"$LOG" 2>&1; then
            break
        fi
        rm -f "$SRC_ROOT"/postgresql-"$MAJOR"_*
    done
    orig=("$SRC_ROOT"/postgresql-"$MAJOR"_*.orig.tar.*)
    ((${#orig[@]} > 0)) || { tail -20 "$LOG" >&2; die "apt-get source postgresql-$MAJOR failed (log: $LOG)"; }
fi
((${#orig[@]} == 1)) || die "expected one orig tarball in $SRC_ROOT, found ${#orig[@]}"

# --- build (always from a fresh tree: a half-finished earlier run is discarded)
BUILD="$SRC_ROOT/build"
rm -rf "$BUILD" "$PREFIX"
mkdir -p "$BUILD"
say "unpacking $(basename "${orig[0]}")"
tar -xf "${orig[0]}" -C "$BUILD" --strip-components=1

say "configure, make -j$JOBS (log: $LOG)"
(
    cd "$BUILD"
    ./configure --prefix="$PREFIX" --without-icu --without-readline --without-zlib
    make -j"$JOBS"
    make install
    for c in "${CONTRIBS[@]}"; do
        make -C "contrib/$c" -j"$JOBS" install
    done
    # pg_isolation_regress + isolationtester where PGXS's installcheck looks
    # (pgxsdir/src/test/isolation).  Before 14 their install target builds
    # but does not install them: copy them, as Debian's packaging does.
    make -C src/test/isolation -j"$JOBS" install
    iso_dir="$(dirname "$("$PREFIX/bin/pg_config" --pgxs)")/../test/isolation"
    if [[ ! -x "$iso_dir/pg_isolation_regress" ]]; then
        mkdir -p "$iso_dir"
        install -m 755 src/test/isolation/pg_isolation_regress src/test/isolation/isolationtester "$iso_dir/"
    fi
) >>"$LOG" 2>&1 || { tail -30 "$LOG" >&2; die "build of PostgreSQL $MAJOR failed (log: $LOG)"; }

# PostgreSQL refuses to run as root: the postgres user must read the prefix.
chmod -R a+rX "$PREFIX"
rm -rf "$BUILD"
date -u +%FT%TZ >"$STAMP"
complete || die "PostgreSQL $MAJOR: the install in $PREFIX lacks a part (log: $LOG)"
say "PostgreSQL $MAJOR built in $((SECONDS - START)) s: $("$PG_CONFIG_PATH" --version)"
echo "$PG_CONFIG_PATH"
