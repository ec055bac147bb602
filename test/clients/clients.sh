#!/usr/bin/env bash
# Client libraries against minhash: psycopg 3 (Debian's python3-psycopg) and
# node-postgres (npm `pg`, pinned in test/clients/node/package-lock.json).
#
#   bash test/clients/clients.sh      (PG* variables name the cluster;
#                                      test/run_all.sh runs it)
#
# Creates database minhash_clients (dropped first and at the end) with the
# fixture test/clients/fixture.sql, installs node-postgres into
# test/clients/node/node_modules (`npm ci`, skipped when the lock file is
# unchanged since the last install), then runs
#   test_psycopg.py, example_psycopg.py     with /usr/bin/python3
#   node/test_node.mjs, node/example_node.mjs with node
# and checks that the files test/clients/README.md quotes under a marker line
# `<!-- from test/clients/FILE -->` are quoted exactly, and the parts README.md
# quotes under `<!-- excerpt of test/clients/FILE -->` are lines of the file.
# Exits 1 if any failed.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=../lib/common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
cd "$REPO_ROOT/test/clients"

PYTHON=/usr/bin/python3   # Debian's, which python3-psycopg installs into
export PYTHONDONTWRITEBYTECODE=1   # no __pycache__ in the clone
DB=minhash_clients
export PGDATABASE="$DB"

"$PYTHON" -c 'import psycopg' 2>/dev/null || die "psycopg missing for $PYTHON (apt-get install python3-psycopg)"
command -v node >/dev/null 2>&1 || die "node not on PATH"

# node-postgres at the version of the lock file.
stamp=node/node_modules/.minhash-lock.sha256
if [[ ! -f "$stamp" ]] || [[ "$(cat "$stamp")" != "$(sha256sum <node/package-lock.json)" ]]; then
    log "clients: npm ci in test/clients/node"
    (cd node && npm ci --no-audit --no-fund --loglevel=error) || die "npm ci failed"
    sha256sum <node/package-lock.json >"$stamp"
fi

drop_db() { psql_run -q -d postgres -c "DROP DATABASE IF EXISTS $DB" >/dev/null 2>&1 || true; }
drop_db
trap drop_db EXIT
psql_run -q -d postgres -c "CREATE DATABASE $DB" >/dev/null
psql_run -q -f fixture.sql >/dev/null

failed=()
run() {   # run NAME COMMAND...
    local name="$1"; shift
    log "clients: $name"
    "$@" || failed+=("$name")
}
run "psycopg checks" "$PYTHON" test_psycopg.py
run "psycopg example (README)" "$PYTHON" example_psycopg.py
run "node-postgres checks" node node/test_node.mjs
run "node-postgres example (README)" node node/example_node.mjs

# test/clients/README.md quotes minhash_psycopg.py and both examples whole
# (`<!-- from FILE -->`): each quote must be the file, byte for byte, and each
# file must be quoted. README.md quotes part of the psycopg
# example (`<!-- excerpt of FILE -->`): each excerpt must be whole lines of
# the file, consecutive, byte for byte, and each file must be excerpted.
log "clients: README quotes"
if ! "$PYTHON" - "$REPO_ROOT" <<'EOF'
import pathlib, re, sys

root = pathlib.Path(sys.argv[1])
wanted = {"README.md": {"excerpt of": {"test/clients/example_psycopg.py"}},
          "test/clients/README.md": {"from": {"test/clients/example_psycopg.py",
                                              "test/clients/minhash_psycopg.py",
                                              "test/clients/node/example_node.mjs"}}}
bad = 0
for readme, kinds in wanted.items():
    text = (root / readme).read_text()
    for kind, files in kinds.items():
        quotes = re.findall(r"<!-- " + kind + r" (test/clients/\S+) -->\n```\w*\n(.*?)```\n", text, re.S)
        for path, block in quotes:
            content = (root / path).read_text()
            if kind == "from":
                same = content == block
            else:
                same = bool(block) and ("\n" + block) in ("\n" + content)
            print(("ok     " if same else "FAILED ") + f"{readme} quotes {path} exactly ({kind})")
            bad += not same
        for path in sorted(files - {p for p, _ in quotes}):
            print(f"FAILED {readme} does not quote {path} ({kind})")
            bad += 1
sys.exit(1 if bad else 0)
EOF
then
    failed+=("README quotes")
fi

if ((${#failed[@]})); then
    printf 'clients: FAILED: %s\n' "${failed[*]}"
    exit 1
fi
log "clients: all passed"
