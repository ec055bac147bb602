#!/usr/bin/env bash
# The CI variant of test/stress/concurrency_16.sh: 16 clients x 500 inserts per
# trigger mode instead of 16 x 10,000; the full run:
#   bash test/stress/concurrency_16.sh
set -euo pipefail
MINHASH_INSERTS_PER_CLIENT="${MINHASH_INSERTS_PER_CLIENT:-500}" \
    exec bash "$(dirname "${BASH_SOURCE[0]}")/concurrency_16.sh"
