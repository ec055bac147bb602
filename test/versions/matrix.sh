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

# shellcheck source=test/versions/lib.sh
source "$HERE/lib.sh"

# run_major MAJOR: build, install, installcheck.  Prints one summary line
# last; returns non-zero on any failure.
run_major() {
    local major="$1" t0=$SECONDS t pg_config scratch
    t=$SECONDS
    pg_config="$(bash "$HERE/build_postgres.sh" "$major" | tail -n 1)" || {
        echo "RESULT $major: FAILED (could not build PostgreSQL $major)"; return 1; }
    local t_server=$((SECONDS - t))

    scratch="$REPO/.cache/versions/$major"
    t=$SECONDS
    say "PostgreSQL $major: building the extension ($("$pg_config" --version))"
    build_into "$pg_config" "$scratch" || { echo "RESULT $major: FAILED (extension build or install)"; return 1; }
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
