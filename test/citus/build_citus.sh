#!/usr/bin/env bash
# build_citus.sh: builds Citus once into a cache outside the clone and prints
# the pg_config of the PostgreSQL tree it is installed in.
#
# Citus must be installed into the PostgreSQL that loads it, and we never
# install into Debian's system PostgreSQL, so this makes a PRIVATE copy of
# Debian's PostgreSQL 15 server tree (bin, lib, share, include copied;
# the layout of /work/private_pg.sh) under $MINHASH_CITUS_CACHE
# (default /var/cache/minhash-citus), builds Citus into it and installs
# minhash (this repository) into it too.
#
# Source: $MINHASH_CITUS_SRC (a Citus checkout) if set, else the tarball
# $MINHASH_CITUS_TARBALL (default ../shared/vendor/citus-13.2.2.tar.gz beside
# the clone), extracted into the cache.  Neither present: prints one line
# "citus: skipped ..." on stderr and exits 77.
#
# The one change to the Citus source: PostgreSQL 15.20's server headers
# declare have_createdb_privilege() (commands/dbcommands.h), which Citus
# 13.2.2's src/include/pg_version_compat.h also defines as a static function
# for PG 15 ("static declaration follows non-static declaration").  On the
# extracted copy only (never on a MINHASH_CITUS_SRC checkout's file; that is
# copied first) the static definition is removed when the server headers
# already declare the function; the server's exported one does the same.
#
# Needs libzstd-dev, liblz4-dev, libkrb5-dev (gssapi.h), libicu-dev and
# libssl-dev (test/lib/common.sh installs them): Debian's PostgreSQL is built
# with zstd, lz4, GSSAPI, ICU and OpenSSL, and Citus includes their headers
# (and links -lssl -lcrypto) whenever the server's pg_config.h says so,
# whatever its configure is told.  libcurl (anonymous
# statistics) is left out: --without-libcurl.
#
# Idempotent: a stamp file records source + PostgreSQL version; minhash is
# reinstalled on every run (cheap) so the cache always has this checkout's
# build.  Output of the builds goes to $CACHE/log/.
set -euo pipefail
REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
CACHE=${MINHASH_CITUS_CACHE:-/var/cache/minhash-citus}
TARBALL=${MINHASH_CITUS_TARBALL:-$REPO_ROOT/../shared/vendor/citus-13.2.2.tar.gz}
SYS=${MINHASH_CITUS_SYS_PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
ROOT=$CACHE/pg15
LOG=$CACHE/log
mkdir -p "$CACHE" "$LOG"

if [[ -n "${MINHASH_CITUS_SRC:-}" ]]; then
    [[ -f "$MINHASH_CITUS_SRC/configure" ]] || { echo "MINHASH_CITUS_SRC=$MINHASH_CITUS_SRC is not a Citus checkout" >&2; exit 1; }
    src_id="dir:$(cd "$MINHASH_CITUS_SRC" && pwd -P):$(cd "$MINHASH_CITUS_SRC" && git rev-parse HEAD 2>/dev/null || echo nogit)"
elif [[ -f "$TARBALL" ]]; then
    src_id="tar:$(sha256sum "$TARBALL" | cut -d' ' -f1)"
else
    echo "citus: skipped (no Citus source: $TARBALL absent and MINHASH_CITUS_SRC unset)" >&2
    exit 77
fi

# 1. Private PostgreSQL tree (same layout as /work/private_pg.sh).
BINDIR=$($SYS --bindir); PKGLIBDIR=$($SYS --pkglibdir); SHAREDIR=$($SYS --sharedir)
INCLUDEDIR=$($SYS --includedir)
if [[ ! -x "$ROOT$BINDIR/pg_config" ]]; then
    rm -rf "$ROOT"
    mkdir -p "$ROOT$(dirname "$BINDIR")" "$ROOT$(dirname "$PKGLIBDIR")" "$ROOT$(dirname "$SHAREDIR")" "$ROOT$(dirname "$INCLUDEDIR")"
    cp -a "$BINDIR" "$ROOT$BINDIR"
    [[ -d "$ROOT$PKGLIBDIR" ]] || cp -a "$PKGLIBDIR" "$ROOT$PKGLIBDIR"
    cp -a "$SHAREDIR" "$ROOT$SHAREDIR"
    # A copy, not a symlink: Citus's make install writes its headers into
    # the server include directory, which must not be Debian's.
    cp -a "$INCLUDEDIR" "$ROOT$INCLUDEDIR"
    chmod 755 "$CACHE" "$ROOT"
fi
PGC=$ROOT$BINDIR/pg_config
[[ -L "$ROOT$INCLUDEDIR" ]] && { rm "$ROOT$INCLUDEDIR"; cp -a "$INCLUDEDIR" "$ROOT$INCLUDEDIR"; }
[[ "$("$PGC" --pkglibdir)" == "$ROOT$PKGLIBDIR" ]] || { echo "private pg_config does not see $ROOT$PKGLIBDIR" >&2; exit 1; }
pgver=$("$PGC" --version)

for h in zstd.h lz4.h gssapi/gssapi.h unicode/ucol.h openssl/ssl.h; do
    [[ -f /usr/include/$h ]] || { echo "citus: /usr/include/$h missing: apt-get install libzstd-dev liblz4-dev libkrb5-dev libicu-dev libssl-dev (test/lib/common.sh's install_packages does)" >&2; exit 1; }
done

# 2. Citus, once per (source, PostgreSQL version).
STAMP=$CACHE/citus.stamp
want="$src_id $pgver"
if [[ ! -f "$STAMP" || "$(cat "$STAMP")" != "$want" || ! -f "$ROOT$PKGLIBDIR/citus.so" ]]; then
    start=$SECONDS
    BUILD=$CACHE/build
    rm -rf "$BUILD"; mkdir -p "$BUILD"
    if [[ -n "${MINHASH_CITUS_SRC:-}" ]]; then
        cp -a "$MINHASH_CITUS_SRC" "$BUILD/citus"
    else
        tar xzf "$TARBALL" -C "$BUILD"
        mv "$BUILD"/citus-* "$BUILD/citus"
    fi
    compat=$BUILD/citus/src/include/pg_version_compat.h
    if grep -q 'have_createdb_privilege' "$($PGC --includedir-server)/commands/dbcommands.h" &&
       grep -q '^have_createdb_privilege(void)' "$compat"; then
        # Drop Citus's static copy (the 'static bool' line before it through
        # the closing brace); the server's exported function is used instead.
        python3 - "$compat" <<'PY'
import re, sys
p = sys.argv[1]; s = open(p).read()
new, n = re.subn(r'static\s+(inline\s+)?bool\s*\nhave_createdb_privilege\(void\)\s*\n\{.*?\n\}\n', '', s, count=1, flags=re.S)
if n != 1:
    sys.exit("build_citus.sh: could not find have_createdb_privilege() in " + p)
open(p, 'w').write(new)
PY
        echo "citus: removed the static have_createdb_privilege() from pg_version_compat.h (declared by $pgver)" >&2
    fi
    (
        cd "$BUILD/citus"
        ./configure PG_CONFIG="$PGC" --without-libcurl
        make -j"$(nproc)"
        make install
    ) >"$LOG/citus-build.log" 2>&1 || { tail -40 "$LOG/citus-build.log" >&2; echo "citus: build failed (log: $LOG/citus-build.log)" >&2; exit 1; }
    echo "$want" > "$STAMP"
    echo "citus: built and installed into $ROOT in $((SECONDS - start)) s" >&2
fi

# 3. minhash from this checkout into the same tree.
( cd "$REPO_ROOT" && make -j2 PG_CONFIG="$PGC" && make install PG_CONFIG="$PGC" ) >"$LOG/minhash-build.log" 2>&1 ||
    { tail -40 "$LOG/minhash-build.log" >&2; echo "citus: minhash build failed" >&2; exit 1; }
echo "$PGC"
