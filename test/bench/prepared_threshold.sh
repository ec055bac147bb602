#!/usr/bin/env bash
# Prepared lookups resembles(sig, $1, $2) with the threshold a parameter, on
# ROWS (default 100,000) passages of the SpamAssassin corpus
# (test/bench/prepared_corpus.sql; needs spam_messages, loaded by
# test/corpus/load_spamassassin.sh), against the cluster the PG* variables
# point at.  At thresholds 0.3 .. 0.9, the median execution time of one
# lookup (PROBES signatures, REPS runs each) with: the generic plan under
# 1.0's estimator (matchingsel) and under this version's, the custom plan,
# plan_cache_mode = auto after six executions (what drivers get), and a
# sequential scan; then generic / seqscan for both estimators.  Building the
# corpus takes about 2 minutes (kept for later runs), the lookups about one.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v rows="${ROWS:-100000}" -f prepared_corpus.sql >/dev/null
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v probes="${PROBES:-5}" -v reps="${REPS:-3}" \
    -f prepared_threshold.sql
