#!/usr/bin/env bash
# Approximate mode's recall on the realistic corpus (100,000 documents of
# real mail lines with planted near-duplicate families), measured against
# exact resemblance beside the predicted S-curve: approx_recall_realistic.sql.
# Reuses (or generates) the corpus database of test/bench/realistic_lib.sh.
#
#   bash test/accuracy/approx_recall_realistic.sh [DOCS]    (PG* variables name the cluster)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
docs=${1:-100000}
# shellcheck source=test/bench/realistic_lib.sh
source test/bench/realistic_lib.sh
start=$(date +%s)
realistic_corpus "$docs"
psql -X -d "$RDB" -v ON_ERROR_STOP=1 -f test/accuracy/approx_recall_realistic.sql
echo "approx_recall_realistic: passed ($(( $(date +%s) - start )) s)"
