#!/usr/bin/env bash
# Per-row cost of the flagging trigger: test/bench/trigger_rows.sql, against
# the cluster the PG* variables point at.  ROWS (default 20000) and REPS
# (default 3) set the size and the number of runs (the median is printed).
# About a minute at the defaults.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v rows="${ROWS:-20000}" -v reps="${REPS:-3}" \
    -v clock_ticks="$(getconf CLK_TCK)" \
    -f trigger_rows.sql
