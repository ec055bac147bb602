#!/usr/bin/env bash
# Documents without words among realistic ones: test/bench/empty_documents.sql,
# against the cluster the PG* variables point at, with spam_messages loaded
# (test/corpus/load_spamassassin.sh spam_messages).  EMPTIES (default 3000)
# documents without words.  A few seconds; the figures of two builds are in
# README.md.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
psql -X -P pager=off -q -v ON_ERROR_STOP=1 -v empties="${EMPTIES:-3000}" -f empty_documents.sql
