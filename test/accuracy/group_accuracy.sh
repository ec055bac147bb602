#!/usr/bin/env bash
# near_dupe_pairs and near_dupe_groups on the SpamAssassin corpus
# (test/accuracy/group_accuracy.sql): pairs against the brute-force self-join, groups
# against the greedy walk and against groups from exact resemblance.
# Expects the corpus in table spam_messages and the PG* variables set.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
psql -X -P pager=off -v ON_ERROR_STOP=1 -f test/accuracy/group_accuracy.sql
