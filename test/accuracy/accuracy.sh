#!/usr/bin/env bash
# Accuracy of resemblance() against exact resemblance on the SpamAssassin
# corpus (see test/accuracy/accuracy.sql).  Expects the corpus in table spam_messages
# of $PGDATABASE (test/run_all.sh loads it) and the PG* variables set.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/accuracy/accuracy.sql
