#!/usr/bin/env bash
# The short version of test/bench/append_bench.sh for the test command:
# 100,000 realistic documents (the corpus realistic_scale_short.sh makes, reused
# when present), 90,909 grouped and stored, 9,091 appended; the figures printed,
# the rules of near_dupe_groups_append asserted, no timing assertion.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
APPEND_SHORT=1 exec bash test/bench/append_bench.sh 100000
