#!/usr/bin/env bash
# Approximate mode (recall => 0.99) on the SpamAssassin corpus against the
# exact truth (test/accuracy/approx_recall.sql): candidate recall per decile
# of exact resemblance, measured vs predicted; candidates vs the exact
# layout; groups exact vs approximate.  Expects the corpus in table
# spam_messages and the PG* variables set.  About a minute.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/accuracy/approx_recall.sql
