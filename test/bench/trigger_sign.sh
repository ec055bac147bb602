#!/usr/bin/env bash
# Loading realistic documents with the one-statement trigger,
# minhash_sign_and_flag, beside today's two-step setups: test/bench/trigger_sign.sql
# against the cluster the PG* variables point at (as a superuser: the CPU
# time is read from /proc/self/stat).  DOCS (default 100000) realistic
# documents (test/corpus/generate_realistic.sql, made once into database
# realistic_<DOCS> by realistic_lib.sh and reused); REPS (default 3) loads
# of each setup, alternating, medians printed.  Fails if the setups' flags or
# signatures differ.  About 3 minutes a repetition on 2 busy cores.
#
#   flock /work/bench.lock bash test/bench/trigger_sign.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
# shellcheck source=realistic_lib.sh
source "$here/realistic_lib.sh"
realistic_corpus "${DOCS:-100000}"
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -d "$RDB" -v reps="${REPS:-3}" \
    -v clock_ticks="$(getconf CLK_TCK)" -f "$here/trigger_sign.sql"
