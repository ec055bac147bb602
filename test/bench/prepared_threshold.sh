#!/usr/bin/env bash
# Prepared lookups resembles(sig, $1, $2) with the threshold a parameter, on
# ROWS (default 100,000) passages of the SpamAssassin corpus
# (test/bench/prepared_corpus.sql; needs spam_messages, loaded by
# test/corpus/load_spamassassin.sh), against the cluster the PG* variables
# point at (as a superuser).
#
# 1. At thresholds 0.3 .. 0.9, the median execution time of one lookup
#    (PROBES signatures, REPS runs each) with: the generic plan under 1.0's
#    estimator (matchingsel) and under this version's, the custom plan,
#    plan_cache_mode = auto after six executions (what drivers get), and a
#    sequential scan; then generic / seqscan for both estimators.
# 2. The backend's CPU time (log_executor_stats: user + system) of one
#    sequential-scan lookup at 0.5, CPU_REPS rounds (default 25) of four
#    statements in turn, medians: the generic plan of resembles(sig, $1, $2),
#    the generic plan of sig %> $1 with a ready minhash_query parameter (no
#    minhash_query call), the same with the parameter read once by an
#    InitPlan (sig %> (SELECT $1)), and the custom plan (a constant); each
#    over the custom plan.  CPU time, unlike the wall clock, hardly moves
#    with the load of a shared machine.
#
# Building the corpus takes about 2 minutes (kept for later runs), part 1
# about one, part 2 about 30 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v rows="${ROWS:-100000}" -f prepared_corpus.sql >/dev/null
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v probes="${PROBES:-5}" -v reps="${REPS:-3}" \
    -f prepared_threshold.sql

echo
echo "CPU time of one sequential-scan lookup at 0.5 (ms, median of ${CPU_REPS:-25}):"
statements=(
    "generic resembles(sig, \$1, \$2)|a(:'p', 0.5)|force_generic_plan"
    "generic sig %> \$1 (a minhash_query parameter)|b(:'q')|force_generic_plan"
    "generic sig %> (SELECT \$1) (an InitPlan)|d(:'q')|force_generic_plan"
    "custom (a constant)|a(:'p', 0.5)|force_custom_plan"
)
{
    echo "SELECT sig AS p, minhash_query(sig, 0.5) AS q FROM prepared_docs WHERE id = 7 \\gset"
    echo "SET enable_bitmapscan = off; SET enable_indexscan = off;"
    echo "SET max_parallel_workers_per_gather = 0; SET jit = off;"
    echo "PREPARE a(minhash, float8) AS SELECT count(*) FROM prepared_docs WHERE resembles(sig, \$1, \$2);"
    echo "PREPARE b(minhash_query) AS SELECT count(*) FROM prepared_docs WHERE sig %> \$1;"
    echo "PREPARE d(minhash_query) AS SELECT count(*) FROM prepared_docs WHERE sig %> (SELECT \$1);"
    echo "SET client_min_messages = log;"
    for ((round = 0; round <= ${CPU_REPS:-25}; round++)); do   # round 0 warms up
        for k in "${!statements[@]}"; do
            IFS='|' read -r _ execute mode <<<"${statements[$k]}"
            echo "SET plan_cache_mode = $mode;"
            ((round == 0)) || echo "\\warn statement $k"
            echo "SET log_executor_stats = on; EXECUTE $execute; SET log_executor_stats = off;"
        done
    done
} | psql -X -q -v ON_ERROR_STOP=1 2>&1 >/dev/null |
    awk '/^statement [0-9]+$/ { k = $2; next }
         /s user, .* s system/ && k != "" { gsub(/^!\t/, ""); print k, 1000 * ($1 + $4); k = "" }' |
    sort -k1,1n -k2,2n |
    awk -v names="$(printf '%s\n' "${statements[@]}" | cut -d'|' -f1 | paste -sd'|')" '
        { v[$1, ++n[$1]] = $2 }
        END {
            split(names, name, "|")
            last = length(name) - 1
            for (k = 0; k <= last; k++) median[k] = v[k, int((n[k] + 1) / 2)]
            for (k = 0; k <= last; k++)
                printf "  %-48s %6.1f  (%.2f x custom)\n", name[k + 1], median[k], median[k] / median[last]
        }'
