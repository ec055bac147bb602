#!/usr/bin/env bash
# The 1M-document band index benchmark (test/bench/bench_1m.sql) on a throwaway
# cluster: packages -> build + install -> cluster -> benchmark -> cluster
# stopped.  About 12 minutes on 2 cores; not part of test/run_all.sh.
#
#   bash test/bench/bench_1m.sh
set -euo pipefail

# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
install_cluster_traps
cd "$REPO_ROOT"

install_packages
build_and_install
cluster_start
psql_run -f test/bench/bench_1m.sql
cluster_stop
