#!/usr/bin/env bash
# The CI variant of test/stress/cancel_memory.sh: on the cluster in PG* (run_all.sh's),
# minhash() of a 200 MB text and chunk_similarity() of two 50 MB texts, 4
# cancels each, every one of which must end with SQLSTATE 57014 (about a
# minute on 2 cores, most of it generating the texts).  No timing is
# asserted.  The full run (latency percentiles, the 1M grouping, memory):
#   bash test/stress/cancel_memory.sh
set -euo pipefail
MINHASH_CANCEL_MODE=ci exec bash "$(dirname "${BASH_SOURCE[0]}")/cancel_memory.sh"
