#!/usr/bin/env bash
# Index = sequential scan, differentially, and pg_regress under parallel query.
#
#  1. test/accuracy/differential.sql in a fresh database (minhash_differential): about
#     102,000 generated rows, over 10,000 queries with thresholds from 0 to 1
#     through %, %> and resembles(), against the default gin_minhash_ops index
#     and against (bands = 16, rows = 8) and (key_bits = 16): index results
#     must equal sequential-scan results, 0 differences.
#  2. The pg_regress suite (make installcheck) again, with every session under
#     force_parallel_mode = regress (debug_parallel_query from PostgreSQL 16):
#     every parallel-safe query runs in a parallel worker, and the output must
#     be identical to expected/.  Results go to a temporary directory, so the
#     main run's results/ and regression.diffs stay as they were.
#
# Runs against the cluster the PG* variables point at (run_all.sh's, or your
# own: PGHOST=/tmp/x PGPORT=5496 PGUSER=postgres bash test/accuracy/differential.sh);
# starts and stops no cluster.  About 2 minutes on 2 quiet cores.  The
# database is dropped when the test passes, kept for inspection when it fails.
# MINHASH_DIFFERENTIAL_SKIP_REGRESS=1 skips part 2.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
if [[ -z "${PG_CONFIG:-}" ]]; then
    PG_CONFIG=pg_config
    [[ -x /usr/lib/postgresql/15/bin/pg_config ]] && PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
fi
psql_run() { psql -X -P pager=off -v ON_ERROR_STOP=1 "$@"; }
DB=minhash_differential
failures=()
t0=$SECONDS

echo "==> differential: index against sequential scan (database $DB)"
psql_run -q -d "${PGDATABASE:-postgres}" -c "DROP DATABASE IF EXISTS $DB" -c "CREATE DATABASE $DB"
log=$(mktemp)
if psql_run -q -d "$DB" -f test/accuracy/differential.sql 2>&1 | tee "$log"; then
    psql_run -q -d "${PGDATABASE:-postgres}" -c "DROP DATABASE $DB"
else
    failures+=("index = sequential scan")
    echo "differential: FAILED (database $DB kept for inspection)"
fi
summary_line=$(grep '^differential: ' "$log" | tail -n 1 || true)
rm -f "$log"
t_diff=$((SECONDS - t0))

if [[ "${MINHASH_DIFFERENTIAL_SKIP_REGRESS:-0}" == 1 ]]; then
    regress_line="regress under parallel query: skipped (MINHASH_DIFFERENTIAL_SKIP_REGRESS=1)"
else
    t1=$SECONDS
    guc=$(psql_run -At -d "${PGDATABASE:-postgres}" -c \
        "SELECT name FROM pg_settings WHERE name IN ('debug_parallel_query', 'force_parallel_mode') ORDER BY name LIMIT 1")
    [[ -n "$guc" ]] || { echo "differential: neither debug_parallel_query nor force_parallel_mode exists"; exit 1; }
    options="${PGOPTIONS:+$PGOPTIONS }-c $guc=regress"
    # The setting must reach the server through PGOPTIONS (pg_regress keeps it).
    [[ "$(PGOPTIONS="$options" psql_run -At -d "${PGDATABASE:-postgres}" -c "SHOW $guc")" == regress ]] ||
        { echo "differential: $guc = regress did not take effect"; exit 1; }
    outdir=$(mktemp -d)
    echo
    echo "==> regress under $guc = regress (make installcheck, results in $outdir)"
    # contrib_regression, as in the main run: a test reconnects to it by name.
    if PGOPTIONS="$options" make -s installcheck PG_CONFIG="$PG_CONFIG" \
            EXTRA_REGRESS_OPTS="--outputdir=$outdir" 2>&1 | tee "$outdir/make.log"; then
        regress_line="regress under $guc = regress: $(grep -oE '[0-9]+ (of [0-9]+ )?tests? passed' "$outdir/make.log" | tail -n 1), identical output ($((SECONDS - t1)) s)"
        rm -rf "$outdir"
    else
        failures+=("regress under $guc = regress")
        if [[ -s "$outdir/regression.diffs" ]]; then
            echo "==> $outdir/regression.diffs (first 300 lines):"
            head -n 300 "$outdir/regression.diffs"
        fi
        regress_line="regress under $guc = regress: FAILED, output differs ($outdir/regression.diffs)"
    fi
fi

echo
echo "==> summary"
echo "  ${summary_line:-differential: no summary (see above)}"
echo "  $regress_line"
if ((${#failures[@]} == 0)); then
    echo "differential: passed ($((SECONDS - t0)) s; index vs sequential scan ${t_diff} s)"
else
    echo "differential: FAILED: ${failures[*]} ($((SECONDS - t0)) s)"
    exit 1
fi
