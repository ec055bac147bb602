#!/usr/bin/env bash
# Issue 17, item 3: near_dupe_groups and near_dupe_pairs at 0.5-0.9, index
# builds and lookups on the realistic corpus, one run, one table
# (test/bench/realistic_scale.sql says what is measured).  By hand:
#
#   flock /work/bench.lock bash test/bench/realistic_scale.sh [DOCS]
#
# DOCS defaults to 1,000,000.  The corpus goes into the database
# realistic_<DOCS> of the cluster the PG* variables point at; an existing one
# with the same DOCS is reused (generation figures then come from its first
# run).  Prints figures; fails only if something cannot run.  The short
# version, in the test command, is realistic_scale_short.sh.
# Environment: SCALE_SHORT=1 asserts correctness (see the .sql);
# SCALE_TIMEOUT (default 600s) is each grouping/pairs statement's timeout;
# SCALE_LOOKUPS (1000) and SCALE_SEQSCANS (5) the lookups timed.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/bench/realistic_lib.sh
DOCS=${1:-1000000}
started=$SECONDS
realistic_corpus "$DOCS"
psql -X -q -P pager=off -d "$RDB" -v ON_ERROR_STOP=1 -v short="${SCALE_SHORT:-0}" \
    -v timeout="${SCALE_TIMEOUT:-600s}" -v lookups="${SCALE_LOOKUPS:-1000}" \
    -v seqscans="${SCALE_SEQSCANS:-5}" -f test/bench/realistic_scale.sql
echo "realistic_scale: $DOCS documents, $((SECONDS - started)) s in all"
