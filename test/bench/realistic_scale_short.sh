#!/usr/bin/env bash
# The short version of test/bench/realistic_scale.sh for the test command:
# 100,000 realistic documents, everything of item 3 printed, correctness
# asserted (no timing assertion): returned pairs and group members verified,
# groups a partition, exact pairs find every planted pair the exact mode
# must, approximate pairs at least recall 0.99 of those, index rows equal
# (exact index) or within (approximate index) a sequential scan's.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
SCALE_SHORT=1 SCALE_TIMEOUT=${SCALE_TIMEOUT:-300s} SCALE_SEQSCANS=${SCALE_SEQSCANS:-50} \
    exec bash test/bench/realistic_scale.sh 100000
