#!/usr/bin/env bash
# minhash.group_memory is a cap on what near_dupe_groups() and
# near_dupe_pairs() hold in memory, measured on the backend itself; beyond
# it they keep their rows and arrays in a temporary file, mapped shared:
# its pages are the page cache's (RssFile), not the backend's private
# memory (RssAnon), which this measures.
#
#   bash test/stress/group_memory.sh      # on the cluster in PG* (run_all.sh's); about a minute
#
# Table gm_keys (made here, dropped at the end): MINHASH_GM_ROWS rows
# (default 30,000), each a 2 kB text key and two signatures of the same body,
# of 128 and of 16 values (families of four near-copies).  For each function
# and each case below, a fresh session warms up (the library, the catalogs,
# the table in shared buffers), sets work_mem to 4MB, and runs the call while
# this script reads the backend's private memory (RssAnon in /proc/PID/status)
# every 5 ms; VmHWM, reset just before the call (/proc/PID/clear_refs, where
# writable), minus the shared and file-backed memory at the end is a second
# reading of the same peak, used only when the call's file-backed memory
# (RssFile + RssShmem, sampled too) never rose above its level at the end:
# a spilled call's file pages count in VmHWM and are gone at the end, so
# for it only the samples of RssAnon count ("sampled only").  Asserts:
#   - peak private memory - what the backend held before the call
#       <= setting + work_mem (the result's tuplestore) + SLACK (2 MB: the
#       cursor's batch of rows and the scan's executor state, README "Memory");
#   - a setting below what the rows need spills the call to its temporary
#     file (the read stops at the setting and lets go of it, then reads the
#     rows again into the file): the same bound holds;
#   - every call returns the same rows, whatever the setting.
# The table's rows take about 75 MB held (keys once, signatures packed), so
# 16MB spills, 200MB and 1GB run in memory.  16MB with
# the 16-value signatures is the case where the rows are mostly key text.
# near_dupe_groups_append, which does not spill, is held to
# setting + work_mem + SLACK too, and stops with 53400 at 16MB.
# Every session runs with jit on and the JIT costs at their defaults
# (Debian's settings; the throwaway cluster has jit off), so that JIT
# compiling the calls' own SQL would count against the cap.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

ROWS="${MINHASH_GM_ROWS:-30000}"
SLACK_KB=$((2 * 1024))
WORK_MEM_KB=$((4 * 1024))
WORK="$(mktemp -d /tmp/minhash-group-memory.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
failures=0

sql() { psql -X -At -q -v ON_ERROR_STOP=1 "$@"; }
fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

echo "==> group_memory: $ROWS rows with 2 kB text keys"
[[ "$(sql -c 'SET jit = on' -c 'SELECT pg_jit_available()')" == t ]] ||
    { echo "group_memory: the server cannot JIT (no llvmjit), so the cap cannot be checked with jit on"; exit 1; }
sql <<SQL
CREATE EXTENSION IF NOT EXISTS minhash;
DROP TABLE IF EXISTS gm_keys, gm_tiny;
CREATE TABLE gm_keys AS
SELECT (SELECT string_agg(md5(i || '.' || j), '') FROM generate_series(1, 64) j) AS k, body
  FROM generate_series(1, $ROWS) i,
       LATERAL (SELECT (SELECT string_agg(substr(md5((i / 4) || '.' || w), 1, 6), ' ')
                          FROM generate_series(1, 20) w) || ' variant ' || (i % 4) AS body) b;
ALTER TABLE gm_keys ADD COLUMN sig minhash, ADD COLUMN sig16 minhash;
UPDATE gm_keys SET sig = minhash(body), sig16 = minhash(body, 16);
ALTER TABLE gm_keys DROP COLUMN body;
VACUUM ANALYZE gm_keys;
CREATE TABLE gm_tiny AS SELECT * FROM gm_keys LIMIT 10;
SQL

# run_call LABEL SETTING STATEMENT: runs STATEMENT (one row of text) in a
# fresh session under the setting; sets RESULT (its row or its error),
# ELAPSED_MS, PEAK_KB (peak private memory above the baseline: the higher of
# the two readings), SQLSTATE_SEEN.
run_call() {
    local label="$1" setting="$2" statement="$3" dir pid psql_pid fd
    local peak=0 key value base hwm=0 anon=0 file=0 shmem=0 hwm_private=0 mapped mapped_peak=0
    dir="$(mktemp -d "$WORK/call.XXXXXX")"
    mkfifo "$dir/tick"
    {
        printf 'SELECT pg_backend_pid() AS bpid \\gset\n\\setenv GM_BPID :bpid\n'
        printf '\\! echo $GM_BPID > %s/pid.tmp && mv %s/pid.tmp %s/pid\n' "$dir" "$dir" "$dir"
        printf "SET work_mem = '%dkB';\n" "$WORK_MEM_KB"
        printf "SET jit = on;\n"
        printf "SELECT count(*) FROM (SELECT md5(k), sig, sig16 FROM gm_keys) s \\\\g /dev/null\n"
        printf "SELECT count(*) FROM near_dupe_groups('gm_tiny', 'k', 'sig') \\\\g /dev/null\n"
        printf "SELECT count(*) FROM near_dupe_pairs('gm_tiny', 'k', 'sig') \\\\g /dev/null\n"
        printf "SET minhash.group_memory = '%s';\n" "$setting"
        printf '\\! awk '"'"'/^RssAnon:/ {print $2}'"'"' /proc/$GM_BPID/status > %s/base; (echo 5 > /proc/$GM_BPID/clear_refs) 2>/dev/null; touch %s/go\n' "$dir" "$dir"
        printf '\\set VERBOSITY sqlstate\n\\timing on\n'
        printf '%s;\n' "$statement"
        printf '\\timing off\n'
        printf "SELECT current_setting('jit') \\\\g %s/jit\n" "$dir"
        printf '\\! touch %s/done; awk '"'"'/^(VmHWM|RssAnon|RssFile|RssShmem):/ {print $1, $2}'"'"' /proc/$GM_BPID/status > %s/end\n' "$dir" "$dir"
    } >"$dir/script.sql"
    psql -X -At -q -f "$dir/script.sql" >"$dir/out" 2>"$dir/err" &
    psql_pid=$!
    exec {fd}<>"$dir/tick"
    until [[ -e $dir/pid ]] || ! kill -0 "$psql_pid" 2>/dev/null; do read -r -t 0.01 -u "$fd" || true; done
    until [[ -e $dir/go ]] || ! kill -0 "$psql_pid" 2>/dev/null; do read -r -t 0.005 -u "$fd" || true; done
    pid="$(cat "$dir/pid" 2>/dev/null || true)"
    # Bash builtins only, so that a sample costs no fork.
    while [[ -n $pid && ! -e $dir/done ]] && kill -0 "$psql_pid" 2>/dev/null; do
        mapped=0
        while read -r key value _; do
            case "$key" in
                RssAnon:) ((value > peak)) && peak=$value ;;
                RssFile:) mapped=$((mapped + value)) ;;
                RssShmem:) mapped=$((mapped + value)); break ;;
            esac
        done <"/proc/$pid/status" || true
        ((mapped > mapped_peak)) && mapped_peak=$mapped
        read -r -t 0.005 -u "$fd" || true
    done
    exec {fd}<&-
    wait "$psql_pid" || true
    [[ -s $dir/base && -s $dir/end ]] || { cat "$dir/err"; fail "$label: the session did not run"; PEAK_KB=0; return; }
    base="$(cat "$dir/base")"
    while read -r key value; do
        case "$key" in
            VmHWM:) hwm=$value ;; RssAnon:) anon=$value ;; RssFile:) file=$value ;; RssShmem:) shmem=$value ;;
        esac
    done <"$dir/end"
    hwm_private=$((hwm - file - shmem))
    SAMPLED_ONLY=""
    # file pages mapped during the call and gone at its end are in VmHWM
    if ((mapped_peak > file + shmem + 1024)); then
        SAMPLED_ONLY=" (sampled only: $(((mapped_peak - file - shmem) / 1024)) MB of file pages came and went)"
    else
        ((hwm_private > peak)) && peak=$hwm_private
    fi
    PEAK_KB=$((peak - base))
    # the call's own SQL runs with jit off; the caller's setting is back after it
    [[ "$(cat "$dir/jit" 2>/dev/null)" == on ]] || fail "$label: jit is not on again after the call"
    ELAPSED_MS="$(awk '/^Time:/ {t = $2} END {printf "%d", t}' "$dir/out")"
    RESULT="$(awk '!/^Time:/ {print; exit}' "$dir/out")"
    SQLSTATE_SEEN="$(awk 'match($0, /ERROR:  [0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z][0-9A-Z]/) {print substr($0, RSTART + 8, 5); exit}' "$dir/err")"
    if [[ -z $SQLSTATE_SEEN ]] && grep -q ERROR "$dir/err"; then SQLSTATE_SEEN=other; fi
    return 0
}

setting_kb() {   # 16MB -> 16384, 1GB -> 1048576
    local v="${1%??}" unit="${1: -2}"
    case "$unit" in kB) echo "$v" ;; MB) echo $((v * 1024)) ;; GB) echo $((v * 1024 * 1024)) ;; esac
}

for function in groups pairs; do
    case "$function" in
        groups) summary="count(*) || ' ' || count(DISTINCT group_id) || ' ' || sum(resemblance)" ;;
        pairs) summary="count(*) || ' ' || sum(resemblance)" ;;
    esac
    # For each signature column, 1GB runs first: its time and rows are the
    # reference for the other settings.
    for case_ in "sig 1GB" "sig 200MB" "sig 16MB" "sig16 1GB" "sig16 16MB"; do
        read -r column setting <<<"$case_"
        label="near_dupe_$function($column) at $setting"
        run_call "$label" "$setting" \
            "SELECT $summary FROM near_dupe_$function('gm_keys', 'k', '$column')"
        limit_kb=$(( $(setting_kb "$setting") + WORK_MEM_KB + SLACK_KB ))
        printf '%-34s %6s ms  peak private memory +%7d kB (at most %7d kB)  %s%s\n' \
            "$label" "${ELAPSED_MS:-?}" "$PEAK_KB" "$limit_kb" "${SQLSTATE_SEEN:-ran}" "$SAMPLED_ONLY"
        ((PEAK_KB <= limit_kb)) || fail "$label: held $PEAK_KB kB, more than $limit_kb kB"
        if [[ $setting == 1GB ]]; then
            [[ -z $SQLSTATE_SEEN ]] || fail "$label: ended with $SQLSTATE_SEEN"
            reference_rows="$RESULT"
            [[ $function == groups ]] && printf -v "groups_reference_$column" '%s' "$RESULT"
        else
            [[ -z $SQLSTATE_SEEN ]] || fail "$label: ended with $SQLSTATE_SEEN"
            [[ $RESULT == "$reference_rows" ]] || fail "$label: rows $RESULT, at 1GB $reference_rows"
        fi
    done
done

# near_dupe_groups_append holds its new rows under the same cap, and has no
# statement to run beyond it: past the setting it stops (53400), within
# setting + work_mem + SLACK.  The group table is empty, so every row is new
# and the answer is near_dupe_groups' own (its 1GB rows above); the key's
# index takes the new keys first (an anti-join of the keys alone).
sql -c 'CREATE UNIQUE INDEX gm_keys_k ON gm_keys (k); CREATE TABLE gm_groups (group_id bigint, key text, pivot text, resemblance float8)'
for case_ in "sig 1GB" "sig 200MB" "sig 16MB" "sig16 16MB"; do
    read -r column setting <<<"$case_"
    label="near_dupe_groups_append($column) at $setting"
    run_call "$label" "$setting" \
        "SELECT count(*) || ' ' || count(DISTINCT group_id) || ' ' || sum(resemblance) FROM near_dupe_groups_append('gm_groups', 'gm_keys', 'k', '$column')"
    limit_kb=$(( $(setting_kb "$setting") + WORK_MEM_KB + SLACK_KB ))
    printf '%-34s %6s ms  peak private memory +%7d kB (at most %7d kB)  %s%s\n' \
        "$label" "${ELAPSED_MS:-?}" "$PEAK_KB" "$limit_kb" "${SQLSTATE_SEEN:-ran}" "$SAMPLED_ONLY"
    ((PEAK_KB <= limit_kb)) || fail "$label: held $PEAK_KB kB, more than $limit_kb kB"
    if [[ $setting == 16MB ]]; then
        [[ $SQLSTATE_SEEN == 53400 ]] || fail "$label: ended with ${SQLSTATE_SEEN:-no error}, not 53400"
    else
        reference_name="groups_reference_$column"
        [[ -z $SQLSTATE_SEEN ]] || fail "$label: ended with $SQLSTATE_SEEN"
        [[ $RESULT == "${!reference_name}" ]] || fail "$label: rows $RESULT, near_dupe_groups ${!reference_name}"
    fi
done

sql -c 'DROP TABLE gm_keys, gm_tiny, gm_groups'
if ((failures > 0)); then
    echo "group_memory: $failures failed"
    exit 1
fi
echo "group_memory: ok"
