#!/usr/bin/env bash
# Speed of chunk_similarity() from 10 KB to 10 MB against resemblance() and
# minhash() (test/bench/explain_benchmark.sql).  Prints figures; fails only if the
# benchmark cannot run.  Expects the corpus in table spam_messages.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/bench/explain_benchmark.sql
