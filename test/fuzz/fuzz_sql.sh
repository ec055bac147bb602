#!/usr/bin/env bash
# In-database mutation test of minhash_in and minhash_recv (test/fuzz/fuzz_sql.sql),
# one of run_all.sh's extra suites: runs against the cluster PGHOST/PGPORT/
# PGUSER/PGDATABASE point at (as a superuser: it writes COPY files in the
# data directory), with the extension installed.
#   FUZZ_SQL_TEXT (default 10000), FUZZ_SQL_BINARY (default 10000): inputs;
#   FUZZ_SQL_SEED (default 0.42): setseed() for the mutations;
#   MINHASH_SERVER_LOG: the server log to search for crashed backends
#     (default: run_all.sh's .cluster/server.log, if there).
# Passes when every input is accepted canonically or refused with a data
# exception naming the type, the session survives, and the server log shows
# no backend ended by a signal.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

TEXT_COUNT="${FUZZ_SQL_TEXT:-10000}"
BINARY_COUNT="${FUZZ_SQL_BINARY:-10000}"
SERVER_LOG="${MINHASH_SERVER_LOG:-.cluster/server.log}"
t0=$SECONDS

log_offset=0
[[ -r "$SERVER_LOG" ]] && log_offset=$(stat -c %s "$SERVER_LOG")

psql -X -q -v ON_ERROR_STOP=1 -c 'SET client_min_messages = warning' \
    -c 'CREATE EXTENSION IF NOT EXISTS minhash' >/dev/null
out=$(PGOPTIONS="-c fuzz.text_count=$TEXT_COUNT -c fuzz.binary_count=$BINARY_COUNT" \
      psql -X -q -P pager=off -v ON_ERROR_STOP=1 -v seed="${FUZZ_SQL_SEED:-0.42}" -f test/fuzz/fuzz_sql.sql 2>&1) || {
    printf '%s\n' "$out"
    echo "fuzz_sql: FAILED: the session ended with an error (a crashed backend ends it too)"
    exit 1
}
printf '%s\n' "$out"

status=0
summary=$(grep -o 'fuzz_sql: [0-9]* text literals, [0-9]* binary payloads, [0-9]* failed' <<<"$out" || true)
if [[ -z "$summary" ]]; then
    echo "fuzz_sql: FAILED: no summary line"; status=1
elif [[ "$summary" != *", 0 failed" ]]; then
    echo "fuzz_sql: FAILED: some inputs were neither accepted canonically nor refused properly (warnings above)"; status=1
else
    read -r text_n binary_n < <(sed -E 's/.*: ([0-9]+) text literals, ([0-9]+) binary payloads.*/\1 \2/' <<<"$summary")
    if ((text_n < TEXT_COUNT || binary_n < BINARY_COUNT)); then
        echo "fuzz_sql: FAILED: fewer inputs than asked"; status=1
    fi
fi
psql -X -q -At -c 'SELECT 1' >/dev/null || { echo "fuzz_sql: FAILED: server not answering"; status=1; }
if [[ -r "$SERVER_LOG" ]]; then
    if tail -c +"$((log_offset + 1))" "$SERVER_LOG" | grep -E 'terminated by signal|was terminated|terminating any other active server processes'; then
        echo "fuzz_sql: FAILED: a backend crashed (server log above: $SERVER_LOG)"; status=1
    else
        echo "fuzz_sql: server log $SERVER_LOG: no crashed backend"
    fi
else
    echo "fuzz_sql: no server log to check (set MINHASH_SERVER_LOG); the session survived"
fi
echo "fuzz_sql: $((SECONDS - t0))s"
((status == 0)) && echo "fuzz_sql: passed"
exit "$status"
