#!/usr/bin/env bash
# The extension against other PostgreSQL majors than Debian 12's 15 (which
# test/run_all.sh covers): for each major, build PostgreSQL once into the
# cache (test/versions/build_postgres.sh, reused by later runs), then in a
# scratch copy of this tree build the extension against it (no compiler
# warning allowed), make install into THAT PostgreSQL's prefix, start a
# throwaway cluster of it and run make installcheck (pg_regress suite +
# isolation tests).  Nothing is installed into Debian's PostgreSQL.
#
#   bash test/versions/matrix.sh [MAJOR...]       # default: 13 18
#
# Ends with `versions: N passed, M failed`; exits non-zero if any failed.
# Per major, the scratch tree and its logs stay in .cache/versions/MAJOR/
# (build.log, install.log, installcheck.log, regression.diffs,
# output_iso/regression.diffs, .cluster/server.log).
#
# Environment: MINHASH_VERSIONS_PGPORT (default 5517), MINHASH_PG_CACHE
# (see build_postgres.sh).  Run as root (the first build installs packages;
# the clusters run as the postgres user).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO="$(cd "$HERE/../.." && pwd -P)"
PORT="${MINHASH_VERSIONS_PGPORT:-5517}"
MAJORS=("$@")
((${#MAJORS[@]})) || MAJORS=(13 18)

say() { printf '==> %s\n' "$*"; }

# A copy of the tree as it is now (tracked files and new ones, not ignored
# ones: no objects, no .cluster), so that objects for one major never meet
# another's.
copy_tree() {
    local dest="$1"
    rm -rf "$dest"
    mkdir -p "$dest"
    (cd "$REPO" && git ls-files -z --cached --others --exclude-standard |
        while IFS= read -r -d '' f; do [[ -e "$f" ]] && printf '%s\0' "$f"; done |
        xargs -0 cp --parents -t "$dest")
}

# run_major MAJOR: build, install, installcheck.  Prints one summary line
# last; returns non-zero on any failure.
run_major() {
    local major="$1" t0=$SECONDS t pg_config scratch nwarn
    t=$SECONDS
    pg_config="$(bash "$HERE/build_postgres.sh" "$major" | tail -n 1)" || {
        echo "RESULT $major: FAILED (could not build PostgreSQL $major)"; return 1; }
    local t_server=$((SECONDS - t))

    scratch="$REPO/.cache/versions/$major"
    copy_tree "$scratch"
    t=$SECONDS
    say "PostgreSQL $major: building the extension ($("$pg_config" --version))"
    if ! (cd "$scratch" && make -j2 PG_CONFIG="$pg_config") >"$scratch/build.log" 2>&1; then
        tail -n 30 "$scratch/build.log"
        echo "RESULT $major: FAILED (extension build, log: $scratch/build.log)"; return 1
    fi
    nwarn=$(grep -c 'warning:' "$scratch/build.log" || true)
    if ((nwarn > 0)); then
        grep -A3 'warning:' "$scratch/build.log" || true
        echo "RESULT $major: FAILED ($nwarn compiler warning(s), log: $scratch/build.log)"; return 1
    fi
    if ! (cd "$scratch" && make install PG_CONFIG="$pg_config") >"$scratch/install.log" 2>&1; then
        tail -n 30 "$scratch/install.log"
        echo "RESULT $major: FAILED (make install, log: $scratch/install.log)"; return 1
    fi
    local t_build=$((SECONDS - t))

    # The cluster: the scratch copy's common.sh puts it in $scratch/.cluster,
    # run by this major's binaries (PG_CONFIG).
    t=$SECONDS
    local rc=0
    (
        export PG_CONFIG="$pg_config" MINHASH_PGPORT="$PORT"
        # shellcheck source=test/lib/common.sh
        source "$scratch/test/lib/common.sh"
        trap cluster_stop EXIT
        trap 'exit 130' INT TERM HUP
        cluster_start
        cd "$scratch"
        # make installcheck, in its two halves so that a regress failure
        # does not hide the isolation result.
        rc=0
        make installcheck PG_CONFIG="$pg_config" ISOLATION= >"$scratch/installcheck.log" 2>&1 || rc=1
        make installcheck PG_CONFIG="$pg_config" REGRESS= >>"$scratch/installcheck.log" 2>&1 || rc=1
        exit $rc
    ) || rc=$?
    local t_check=$((SECONDS - t))
    # pg_regress prints "ok"/"FAILED" per test (13: "... ok", 18: "ok 1 - ...").
    grep -E '^(ok|not ok) |^test .* \.\.\. |^     [a-z_]+ +\.\.\. ' "$scratch/installcheck.log" || true
    local times="server ${t_server}s, extension ${t_build}s, installcheck ${t_check}s, total $((SECONDS - t0))s"
    if ((rc != 0)); then
        local d
        for d in "$scratch/regression.diffs" "$scratch/output_iso/regression.diffs"; do
            [[ -s "$d" ]] && say "diffs: $d ($(grep -c '^diff' "$d") file(s))"
        done
        tail -n 5 "$scratch/installcheck.log"
        echo "RESULT $major: FAILED (installcheck; $times)"; return 1
    fi
    echo "RESULT $major: ok ($("$pg_config" --version); 0 warnings; installcheck passed; $times)"
}

passed=0 failed=0
summary=()
for major in "${MAJORS[@]}"; do
    out="$(mktemp)"
    if run_major "$major" 2>&1 | tee "$out"; [[ ${PIPESTATUS[0]} -eq 0 ]]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
    summary+=("$(grep '^RESULT ' "$out" | tail -n 1)")
    rm -f "$out"
done
printf '%s\n' "${summary[@]}"
echo "versions: $passed passed, $failed failed"
((failed == 0))
