#!/usr/bin/env bash
# The CI variant of test/stress/crash_recovery.sh: 5 kill -9 cycles (about 30 s) on
# a throwaway cluster of its own (port 5497); the full run is 50 cycles:
#   bash test/stress/crash_recovery.sh
set -euo pipefail
exec bash "$(dirname "${BASH_SOURCE[0]}")/crash_recovery.sh" "${MINHASH_CRASH_CYCLES:-5}"
