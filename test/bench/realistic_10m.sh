#!/usr/bin/env bash
# Issue 17, item 4: 10 million realistic documents on one machine.  By hand
# (about an hour; the corpus is 13 GB of table in the database
# realistic_<DOCS>, reused when present):
#
#   bash test/bench/realistic_10m.sh [DOCS]        # DOCS defaults to 10,000,000
#
# Run the timed steps alone on the machine (flock /work/bench.lock around
# the whole script, or generate first with SCALE_STEPS=corpus and time the
# rest under the lock).  Steps, each in its own session (a new backend, so
# its peak memory is its own):
#   corpus      generate_realistic.sql: load + signatures in one INSERT
#   signatures  minhash(body) over the table again, one core, beside a pass
#               that only reads the bodies (the difference: signatures)
#   index       CREATE INDEX ... USING gin (sig): the default, threshold 0.8
#   lookups     1,000 lookups through it at 0.8 (p50/p95), 2 by sequential scan
#   groups08    near_dupe_groups at 0.8: first at the default
#               minhash.group_memory (the refusal and its hint are printed),
#               then with the setting the hint names
#   groups06    near_dupe_groups at 0.6, recall => 0.99 (n/a without it)
# For each: seconds, the backend's peak memory (VmHWM, which includes the
# shared buffers it touched, and the largest RssAnon sampled every 0.2 s,
# its private memory), then the disk used.  Recall of the groups on a
# sample of 10,000 planted pairs.  Set SCALE_STEPS to a subset
# ("index lookups") to run only those; groups08_sql and generic_gin (below)
# run only when named.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
source test/bench/realistic_lib.sh
DOCS=${1:-10000000}
STEPS=${SCALE_STEPS:-corpus signatures index lookups groups08 groups06}
started=$SECONDS
realistic_corpus "$DOCS"
DB=$RDB
export PGDATABASE=$DB
LOG_DIR=$(mktemp -d)
trap 'rm -rf "$LOG_DIR"' EXIT

psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
CREATE TABLE IF NOT EXISTS scale10m_results (
    n serial, step text, seconds double precision, detail text,
    vmhwm_kb bigint, rss_anon_peak_kb bigint, at timestamptz DEFAULT now());
SQL
# The steps run now replace their earlier results (others are kept).
# SCALE_KEY_BITS=N: the index step builds gin_minhash_ops (key_bits = N), and
# the index and lookups steps are recorded as index_kbN and lookups_kbN.
KB=${SCALE_KEY_BITS:-}
labels=$STEPS
[[ -z "$KB" ]] || labels=$(sed -e "s/\bindex\b/index_kb$KB/; s/\blookups\b/lookups_kb$KB/" <<<"$STEPS")
psql -X -q -c "DELETE FROM scale10m_results WHERE step = ANY (string_to_array('$labels', ' '))"

# sample_memory APP OUT: the largest RssAnon and the last VmHWM of the
# backend whose application_name is APP, until it exits.
sample_memory() {
    local app=$1 out=$2 pid="" i rss hwm max=0 last=0
    for ((i = 0; i < 200; i++)); do
        pid=$(psql -X -At -c "SELECT pid FROM pg_stat_activity WHERE application_name = '$app'" 2>/dev/null || true)
        [[ -z "$pid" ]] || break
        sleep 0.05
    done
    [[ -n "$pid" ]] || return 0
    while [[ -r /proc/$pid/status ]]; do
        rss=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)
        [[ -n "$rss" ]] && ((rss > max)) && max=$rss
        [[ -n "$hwm" ]] && last=$hwm
        echo "$max $last" >"$out"
        sleep 0.2
    done
}

# step NAME: runs the SQL on stdin in a session of its own, timed; the SQL
# sets the psql variable detail (\gset) to what it found.
step() {
    local name=$1 app="scale10m_$1" t0 rss label=$1
    [[ -z "$KB" || ( $name != index && $name != lookups ) ]] || label="${name}_kb$KB"
    if [[ " $STEPS " != *" $name "* ]]; then cat >/dev/null; return 0; fi
    echo "== $name ($(date -u +%H:%M:%S))"
    sample_memory "$app" "$LOG_DIR/$name.mem" &
    local sampler=$!
    t0=$(date +%s.%N)
    PGAPPNAME=$app psql -X -q -P pager=off -v ON_ERROR_STOP=1 -v docs="$DOCS" \
        -f - -f test/bench/realistic_10m_record.sql -v step="$label" -v t0="$t0" -v key_bits="${KB:-20}"
    wait "$sampler" || true
    rss=""; [[ -f "$LOG_DIR/$name.mem" ]] && read -r rss _ <"$LOG_DIR/$name.mem"
    [[ -n "$rss" ]] && psql -X -q -c "UPDATE scale10m_results SET rss_anon_peak_kb = $rss
                                       WHERE n = (SELECT max(n) FROM scale10m_results WHERE step = '$label')"
    return 0
}

step signatures <<'SQL'
SET max_parallel_workers_per_gather = 0;
SET jit = off;
SELECT clock_timestamp() AS s0 \gset
SELECT count(length(body)) FROM real_docs \g /dev/null
SELECT extract(epoch FROM clock_timestamp() - :'s0') AS read_s, clock_timestamp() AS s1 \gset
SELECT count(minhash(body)) FROM real_docs \g /dev/null
SELECT format('read the bodies %s s; minhash(body) pass %s s (signatures: the difference); one core',
              round(:read_s::numeric, 1),
              round(extract(epoch FROM clock_timestamp() - :'s1')::numeric, 1)) AS detail \gset
SQL

step index <<'SQL'
DROP INDEX IF EXISTS real_docs_sig_gin;
CREATE INDEX real_docs_sig_gin ON real_docs USING gin (sig gin_minhash_ops (key_bits = :key_bits));
ANALYZE real_docs;
SELECT format('gin_minhash_ops (0.8, key_bits = %s): %s, maintenance_work_mem %s', :key_bits,
              pg_size_pretty(pg_relation_size('real_docs_sig_gin')),
              current_setting('maintenance_work_mem')) AS detail \gset
SQL

step lookups <<'SQL'
SET jit = off;
DROP TABLE IF EXISTS scale10m_queries, scale10m_hits;
CREATE TABLE scale10m_queries AS
SELECT id, sig FROM real_docs
 WHERE id IN (SELECT 1 + (hashint8extended(g, 17) & 2147483647) % :docs FROM generate_series(1, 1000) g);
CREATE TABLE scale10m_hits (how text, id bigint, ms double precision, hits bigint);
DO $$
DECLARE
	q record;
	started timestamptz;
	found bigint;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	FOR q IN SELECT * FROM scale10m_queries LOOP
		started := clock_timestamp();
		SELECT count(*) INTO found FROM real_docs d WHERE resembles(d.sig, q.sig, 0.8);
		INSERT INTO scale10m_hits VALUES ('index', q.id, 1000 * extract(epoch FROM clock_timestamp() - started), found);
	END LOOP;
	PERFORM set_config('enable_seqscan', 'on', true);
	PERFORM set_config('enable_bitmapscan', 'off', true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	FOR q IN SELECT * FROM scale10m_queries LIMIT 2 LOOP
		started := clock_timestamp();
		SELECT count(*) INTO found FROM real_docs d WHERE resembles(d.sig, q.sig, 0.8);
		INSERT INTO scale10m_hits VALUES ('seqscan', q.id, 1000 * extract(epoch FROM clock_timestamp() - started), found);
	END LOOP;
END $$;
SELECT string_agg(format('%s: p50 %s ms, p95 %s ms over %s queries, %s rows found a query',
                         how, round(p50::numeric, 3), round(p95::numeric, 3), n, round(hits::numeric, 2)), '; ') AS detail
  FROM (SELECT how, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS p50,
               percentile_cont(0.95) WITHIN GROUP (ORDER BY ms) AS p95, count(*) AS n, avg(hits) AS hits
          FROM scale10m_hits GROUP BY how ORDER BY how) s \gset
SQL

# Planted pairs for recall: a sample of 10,000 families, exact resemblance.
if [[ " $STEPS " == *" groups08 "* || " $STEPS " == *" groups06 "* ]]; then
    psql -X -q -v ON_ERROR_STOP=1 <<'SQL'
SELECT to_regclass('planted_sample') IS NULL AS need \gset
\if :need
CREATE TABLE planted_sample AS
SELECT f.id, f.original_id, shingle_resemblance(o.body, d.body) AS exact
  FROM real_families f JOIN real_docs o ON o.id = f.original_id JOIN real_docs d ON d.id = f.id
 WHERE f.id % 1000 = 0;
\endif
SQL
fi

# near_dupe_groups at threshold T (recall R or NULL), into scale10m_groups,
# with the recall on the planted sample.
groups_sql() {
    local t=$1 r=$2 call
    if [[ $r == NULL ]]; then
        call="near_dupe_groups('real_docs', 'id', 'sig', $t)"
    else
        # the recall overload may be the one with key_type (text keys: NULL::text)
        if [[ $(psql -X -At -c "SELECT count(*) FROM pg_proc WHERE proname = 'near_dupe_groups'
                                   AND 'recall' = ANY (proargnames) AND 'key_type' = ANY (proargnames)") != 0 ]]; then
            call="near_dupe_groups('real_docs', 'id', 'sig', $t, key_type => NULL::text, recall => $r)"
        else
            call="near_dupe_groups('real_docs', 'id', 'sig', $t, recall => $r)"
        fi
    fi
    cat <<SQL
SELECT minhash('loads the library, and its settings'::text) IS NOT NULL AS loaded \gset
SELECT EXISTS (SELECT FROM pg_proc WHERE proname = 'near_dupe_groups' AND 'recall' = ANY (proargnames))
       OR $r IS NULL AS can \gset
\if :can
DROP TABLE IF EXISTS scale10m_groups;
SHOW minhash.group_memory;
\set ON_ERROR_STOP 0
CREATE UNLOGGED TABLE scale10m_groups AS SELECT * FROM $call;
\set err :ERROR
\set ON_ERROR_STOP 1
\set note ''
\if :err
\echo 'refused:' :LAST_ERROR_MESSAGE
SELECT ceil(substring(:'LAST_ERROR_MESSAGE' FROM 'needs (?:at least )?([0-9]+) kB')::numeric / 1024) AS mb \gset
\echo 'the hint (psql \\errverbose):'
\errverbose
\\set mb_setting :mb 'MB'
SET minhash.group_memory = :'mb_setting';
\set note 'refused at the default minhash.group_memory, run with ' :mb 'MB'
SELECT clock_timestamp() AS g0 \gset
CREATE UNLOGGED TABLE scale10m_groups AS SELECT * FROM $call;
\else
SELECT :'t0'::numeric AS g0_epoch \gset
SELECT to_timestamp(:g0_epoch) AS g0 \gset
\endif
SELECT extract(epoch FROM clock_timestamp() - :'g0') AS group_s \gset
SELECT format('t=%s recall %s: %s s for the call (last attempt), %s groups over %s rows; recall on %s sampled planted pairs at >= t+0.05: %s (same group); %s',
              $t, coalesce($r::text, 'exact'), round(:group_s::numeric, 1), max(group_id), count(*),
              (SELECT count(*) FROM planted_sample WHERE exact >= $t + 0.05),
              (SELECT round(avg(coalesce(ga.group_id = gb.group_id, false)::int)::numeric, 4)
                 FROM planted_sample p
                 LEFT JOIN scale10m_groups ga ON ga.key = p.original_id::text
                 LEFT JOIN scale10m_groups gb ON gb.key = p.id::text
                WHERE p.exact >= $t + 0.05), :'note') AS detail
  FROM scale10m_groups \gset
DROP TABLE scale10m_groups;
\else
SELECT 'n/a: near_dupe_groups has no recall argument in this build' AS detail \gset
\endif
SQL
}

groups_sql 0.8 NULL | step groups08
groups_sql 0.6 0.99 | step groups06

# Optional steps (for the README's figures at 1M; not in the default list):
# groups08_sql, the same grouping as one SQL statement whose sorts spill to
# disk (near_dupe_query(..., groups => true)); generic_gin, a plain GIN index
# over the same band keys as the default layout, beside ours.
step groups08_sql <<'SQL'
SELECT near_dupe_query('real_docs', 'id', 'sig', 0.8, groups => true) AS groups_query \gset
SET enable_hashagg = off;
SET enable_mergejoin = off;
DROP TABLE IF EXISTS scale10m_groups_sql;
SELECT clock_timestamp() AS g0 \gset
CREATE UNLOGGED TABLE scale10m_groups_sql AS :groups_query;
SELECT format('near_dupe_query(groups => true) at 0.8, one SQL statement (hashagg and mergejoin off, work_mem %s): %s s, %s groups over %s rows',
              current_setting('work_mem'), round(extract(epoch FROM clock_timestamp() - :'g0')::numeric, 1),
              count(DISTINCT group_id), count(*)) AS detail
  FROM scale10m_groups_sql \gset
DROP TABLE scale10m_groups_sql;
SQL

step generic_gin <<'SQL'
DROP INDEX IF EXISTS real_docs_bands_gin;
SELECT clock_timestamp() AS g0 \gset
CREATE INDEX real_docs_bands_gin ON real_docs USING gin (minhash_bands(sig, 28, 4));
SELECT format('plain GIN over minhash_bands(sig, 28, 4): %s s, %s (gin_minhash_ops default: %s)',
              round(extract(epoch FROM clock_timestamp() - :'g0')::numeric, 1),
              pg_size_pretty(pg_relation_size('real_docs_bands_gin')),
              coalesce(pg_size_pretty(pg_relation_size(to_regclass('real_docs_sig_gin'))), 'not built')) AS detail \gset
DROP INDEX real_docs_bands_gin;
SQL

echo "== disk"
psql -X -P pager=off <<'SQL'
SELECT pg_size_pretty(pg_database_size(current_database())) AS database,
       pg_size_pretty(pg_total_relation_size('real_docs')) AS real_docs_total,
       pg_size_pretty(pg_relation_size('real_docs')) AS real_docs_heap,
       pg_size_pretty(coalesce(pg_relation_size(to_regclass('real_docs_sig_gin')), 0)) AS gin_index,
       pg_size_pretty(pg_relation_size('real_docs_pkey')) AS pkey;
SQL
echo "== results ($DOCS documents)"
psql -X -P pager=off <<'SQL'
SELECT docs, generate_seconds AS "corpus: generate s (load + signatures)", pg_size_pretty(real_docs_bytes) AS size
  FROM realistic_meta;
SELECT step, round(seconds::numeric, 1) AS seconds,
       pg_size_pretty(vmhwm_kb * 1024) AS vmhwm, pg_size_pretty(rss_anon_peak_kb * 1024) AS rss_anon_peak,
       detail
  FROM scale10m_results ORDER BY n;
SQL
echo "realistic_10m: $((SECONDS - started)) s in all"
