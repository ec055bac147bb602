#!/usr/bin/env bash
# The demo: packages -> build + install -> throwaway cluster -> the
# SpamAssassin corpus (6,046 messages) in table spam_messages -> test/demo.sql
# -> cluster stopped.  Also writes the production's review pages (an index
# of every group, a page per group) to .cache/review/.
#
#   bash test/demo.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"
install_cluster_traps
cd "$REPO_ROOT"

[[ -f test/demo.sql ]] || die "test/demo.sql not found"

install_packages
build_and_install
cluster_start
load_corpus spam_messages

printf '\n==> demo: psql -f test/demo.sql\n\n'
rm -rf "$CACHE_DIR/review" && mkdir -p "$CACHE_DIR/review"
psql_run -v review_dir="$CACHE_DIR/review" -f test/demo.sql
rm -f "$CACHE_DIR/review/pages.psql"

cluster_stop
echo "==> demo: done"
