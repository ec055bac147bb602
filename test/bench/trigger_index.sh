#!/usr/bin/env bash
# The flagging trigger's load time with each index on the signature column:
# ROWS (default 2,000) SpamAssassin messages (needs spam_messages, loaded by
# test/corpus/load_spamassassin.sh), signatures precomputed, inserted by one
# INSERT ... SELECT into an empty table with minhash_flag_duplicates('sig',
# 'dup_of', '0.8') and: no index, a default gin_minhash_ops index
# (fastupdate on), and one WITH (fastupdate = off), as the README creates it.
# Median of REPS (default 3) loads each, alternating; milliseconds, µs per
# row, the ratio to fastupdate = off, and the rows flagged (the same for all
# three).  Against the cluster the PG* variables point at; about a minute.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v rows="${ROWS:-2000}" -v reps="${REPS:-3}" \
    -f trigger_index.sql
