#!/usr/bin/env bash
# The LSH band index against pg_trgm and a generic GIN index on the
# SpamAssassin corpus (test/bench/index_benchmark.sql).  Prints figures.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/bench/index_benchmark.sql
