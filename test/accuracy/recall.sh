#!/usr/bin/env bash
# Recall of the LSH band index on the SpamAssassin corpus (test/accuracy/recall.sql).
# Expects the corpus in table spam_messages and the PG* variables set.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/accuracy/recall.sql
