#!/usr/bin/env bash
# Signature speed against md5() and pg_trgm's show_trgm() (test/bench/benchmark.sql).
# Prints figures; fails only if the benchmark cannot run.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/bench/benchmark.sql
