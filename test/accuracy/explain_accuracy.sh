#!/usr/bin/env bash
# Exact S_R against brute force, S_R <= S_J <= S_L, and the coverage of
# resemblance_interval() on the SpamAssassin corpus (test/accuracy/explain_accuracy.sql).
# Expects the corpus in table spam_messages of $PGDATABASE (test/run_all.sh
# loads it) and the PG* variables set.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/accuracy/explain_accuracy.sql
