#!/usr/bin/env bash
# citus.sh: minhash on Citus, checked against one node in the same run.
#
# Builds Citus once (test/citus/build_citus.sh, a cache outside the clone),
# starts a coordinator and two workers (throwaway clusters in <repo>/.cache/citus,
# unix sockets only, ports MINHASH_CITUS_PORT..+2, default 5551-5553), and
# compares a distributed table with a local copy of the same rows on the
# coordinator: resembles() lookups (and that the shards use their GIN index),
# <%> top-k, minhash_union, near_dupe_groups, near_dupe_pairs, a reference
# table of known documents matched against the distributed table, and what
# the flagging trigger does on a distributed table.
# Skips with one line (exit 0) when no Citus source is available.
# MINHASH_CITUS_SHARDS (default 8) sets the shard count; MINHASH_CITUS_TIMING=1
# prints the p50 of 200 lookups, distributed vs local (printed, not asserted).
# Ends with "citus: N passed, M failed"; exit status 1 if any failed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$HERE/../.." && pwd -P)"
rc=0; PGC=$("$HERE/build_citus.sh") || rc=$?
if ((rc == 77)); then exit 0; fi   # build_citus.sh printed "citus: skipped ..."
((rc == 0)) || { echo "citus: 0 passed, 1 failed (build)"; exit 1; }
BIN=$("$PGC" --bindir)
BASE=${MINHASH_CITUS_PORT:-5551}
DIR=$REPO_ROOT/.cache/citus          # .cache/ is ignored by git
SOCK=$DIR/sock
# a unix socket path is limited to 107 bytes
(( ${#SOCK} + 20 > 100 )) && SOCK=/tmp/minhash-citus.$(printf '%s' "$REPO_ROOT" | cksum | cut -d' ' -f1)
NODES=(coord w1 w2)

as_pg() { if [[ $EUID -eq 0 ]]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi; }
stop_all() {
    local i
    for i in 0 1 2; do
        [[ -f "$DIR/${NODES[$i]}/postmaster.pid" ]] && as_pg "$BIN/pg_ctl" -D "$DIR/${NODES[$i]}" -m immediate -w stop >/dev/null 2>&1 || true
    done
}
trap stop_all EXIT INT TERM HUP

stop_all; rm -rf "$DIR"; mkdir -p "$DIR" "$SOCK"
[[ $EUID -eq 0 ]] && chown -R postgres: "$DIR" "$SOCK"
for i in 0 1 2; do
    n=${NODES[$i]}
    as_pg "$BIN/initdb" -D "$DIR/$n" -U postgres --auth=trust -E UTF8 --locale=C >"$DIR/initdb-$n.log" 2>&1
    cat >>"$DIR/$n/postgresql.conf" <<CONF
port = $((BASE + i))
listen_addresses = ''
unix_socket_directories = '$SOCK'
shared_preload_libraries = 'citus'
max_connections = 60
shared_buffers = 64MB
fsync = off
synchronous_commit = off
full_page_writes = off
max_worker_processes = 16
CONF
    as_pg "$BIN/pg_ctl" -D "$DIR/$n" -l "$DIR/$n.log" -w start >/dev/null
done

export PGHOST=$SOCK PGUSER=postgres PGDATABASE=postgres
unset PGHOSTADDR PGSERVICE PGPASSWORD PGOPTIONS 2>/dev/null || true
q()  { psql -X -q -At -v ON_ERROR_STOP=1 -p "$BASE" "$@"; }   # coordinator
qw() { local p=$1; shift; psql -X -q -At -v ON_ERROR_STOP=1 -p "$p" "$@"; }

for i in 0 1 2; do qw $((BASE + i)) -c 'CREATE EXTENSION citus'; done
q -o /dev/null <<SQL
SELECT citus_set_coordinator_host('$SOCK', $BASE);
SELECT citus_add_node('$SOCK', $((BASE + 1)));
SELECT citus_add_node('$SOCK', $((BASE + 2)));
CREATE EXTENSION minhash;
SQL

pass=0; fail=0
check() {   # check NAME EXPECTED ACTUAL
    if [[ "$2" == "$3" ]]; then pass=$((pass + 1)); echo "ok   $1"
    else fail=$((fail + 1)); echo "FAIL $1"; echo "     expected: ${2:0:300}"; echo "     actual:   ${3:0:300}"; fi
}
check "CREATE EXTENSION minhash reaches both workers" "1.1 1.1" \
    "$(qw $((BASE + 1)) -c "SELECT extversion FROM pg_extension WHERE extname='minhash'") $(qw $((BASE + 2)) -c "SELECT extversion FROM pg_extension WHERE extname='minhash'")"

# --- Documents: deterministic, 400 templates x 1-8 edited copies -----------
SHARDS=${MINHASH_CITUS_SHARDS:-8}
q -o /dev/null -v shards="$SHARDS" <<'SQL'
SELECT setseed(0.17) \g /dev/null
CREATE TEMP TABLE vocab AS
  SELECT array_agg(w ORDER BY i) AS wa
    FROM (SELECT i, string_agg(chr(97 + floor(random() * 26)::int), '' ORDER BY j) AS w
            FROM generate_series(1, 3000) i, generate_series(1, 3 + i % 6) j GROUP BY i) s;
-- template t: 60-139 words drawn independently from 3000
CREATE TEMP TABLE tw AS
  SELECT t, k, (SELECT wa FROM vocab)[1 + floor(random() * 3000)::int] AS w
    FROM generate_series(1, 400) t, generate_series(1, 139) k WHERE k <= 60 + (t * 37) % 80;
CREATE TABLE docs_local (id bigint PRIMARY KEY, tmpl int NOT NULL, body text NOT NULL, sig minhash,
                         duplicate_of bigint);
-- copy c (0-7) of template t: each word replaced with chance c * 3%
INSERT INTO docs_local (id, tmpl, body)
SELECT t * 10 + c, t,
       (SELECT string_agg(CASE WHEN random() < c * 0.03 THEN 'edit' || floor(random() * 1000)::int ELSE w END,
                          ' ' ORDER BY k) FROM tw WHERE tw.t = tc.t)
  FROM (SELECT t, c FROM generate_series(1, 400) t, generate_series(0, 7) c WHERE c <= t % 8) tc;
UPDATE docs_local SET sig = minhash(body);
CREATE INDEX docs_local_sig ON docs_local USING gin (sig);
CREATE TABLE docs (LIKE docs_local);
ALTER TABLE docs ADD PRIMARY KEY (id);
SELECT create_distributed_table('docs', 'id', shard_count => :shards);
CREATE INDEX docs_sig ON docs USING gin (sig);
INSERT INTO docs SELECT * FROM docs_local;
ANALYZE docs_local; ANALYZE docs;
SQL
n_local=$(q -c 'SELECT count(*) FROM docs_local'); n_dist=$(q -c 'SELECT count(*) FROM docs')
check "distributed table holds the $n_local documents" "$n_local" "$n_dist"

# --- resembles() lookups ---------------------------------------------------
probes=$(q -c "SELECT string_agg(id::text, ' ') FROM (SELECT id FROM docs_local WHERE id % 10 = 0 ORDER BY id LIMIT 25) s")
bad=0
for p in $probes; do
    for t in 0.5 0.8; do
        sig=$(q -c "SELECT sig FROM docs_local WHERE id = $p")
        a=$(q -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM docs_local WHERE resembles(sig, '$sig'::minhash, $t)")
        b=$(q -c "SELECT string_agg(id::text, ',' ORDER BY id) FROM docs WHERE resembles(sig, '$sig'::minhash, $t)")
        [[ "$a" == "$b" ]] || { bad=$((bad + 1)); echo "     probe $p at $t: local {$a} distributed {$b}"; }
    done
done
check "resembles() lookups at 0.5 and 0.8 for 25 probes equal one node" 0 "$bad"
sig=$(q -c "SELECT sig FROM docs_local WHERE id = 70")
# The shards are small (about 1800 / SHARDS rows), so their planners would
# rather scan; enable_seqscan = off, sent to the shards with SET LOCAL, shows
# the index is usable there (at 1M rows it is chosen anyway).
plan=$(q <<SQL
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL enable_seqscan = off;
SET LOCAL citus.explain_all_tasks = on;
EXPLAIN (COSTS OFF) SELECT id FROM docs WHERE resembles(sig, '$sig'::minhash, 0.8);
COMMIT;
SQL
)
tasks=$(grep -c 'Task Count\|-> *Task' <<<"$plan" || true)
idx=$(grep -c 'Bitmap Index Scan on docs_sig_' <<<"$plan" || true)
check "EXPLAIN: each of the $SHARDS shards scans its GIN index" "$SHARDS" "$idx"
[[ "$idx" == "$SHARDS" ]] || echo "$plan" | head -30

# --- <%> top-k ------------------------------------------------------------
bad=0
for p in $probes; do
    sig=$(q -c "SELECT sig FROM docs_local WHERE id = $p")
    a=$(q -c "SELECT string_agg(id || ':' || d, ',' ORDER BY d, id) FROM (SELECT id, sig <%> '$sig'::minhash d FROM docs_local ORDER BY 2, 1 LIMIT 10) s")
    b=$(q -c "SELECT string_agg(id || ':' || d, ',' ORDER BY d, id) FROM (SELECT id, sig <%> '$sig'::minhash d FROM docs ORDER BY 2, 1 LIMIT 10) s")
    [[ "$a" == "$b" ]] || { bad=$((bad + 1)); echo "     top-10 of $p: local {$a} distributed {$b}"; }
done
check "<%> top-10 (ties by id) for 25 probes equals one node" 0 "$bad"

# --- minhash_union ---------------------------------------------------------
check "minhash_union over the whole table equals one node" \
    "$(q -c 'SELECT md5(minhash_union(sig)::text) FROM docs_local')" "$(q -c 'SELECT md5(minhash_union(sig)::text) FROM docs')"
check "minhash_union GROUP BY tmpl (not the distribution column) equals one node" \
    "$(q -c "SELECT md5(string_agg(u, '|' ORDER BY tmpl)) FROM (SELECT tmpl, minhash_union(sig)::text u FROM docs_local GROUP BY tmpl) s")" \
    "$(q -c "SELECT md5(string_agg(u, '|' ORDER BY tmpl)) FROM (SELECT tmpl, minhash_union(sig)::text u FROM docs GROUP BY tmpl) s")"
plan=$(q -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT tmpl, minhash_union(sig) FROM docs GROUP BY tmpl")
check "minhash_union GROUP BY tmpl runs as worker_partial_agg on the shards" 1 "$(grep -q worker_partial_agg <<<"$plan" && echo 1 || echo 0)"

# --- near_dupe_groups / near_dupe_pairs -------------------------------------
check "near_dupe_groups(distributed) equals one node" \
    "$(q -c "SELECT count(*) || ' ' || md5(string_agg(concat_ws(',', group_id, key, pivot, resemblance), '|' ORDER BY key)) FROM near_dupe_groups('docs_local', 'id', 'sig', 0.7)")" \
    "$(q -c "SELECT count(*) || ' ' || md5(string_agg(concat_ws(',', group_id, key, pivot, resemblance), '|' ORDER BY key)) FROM near_dupe_groups('docs', 'id', 'sig', 0.7)" 2>&1)"
# near_dupe_pairs() self-joins the table on ctid, which names a row only
# within one shard: on a distributed table Citus refuses the query (an error,
# never a wrong answer).  The way round: the keys and signatures in a table on
# the coordinator (a temporary table here), the pairs found there.
err=$(q -c "SELECT count(*) FROM near_dupe_pairs('docs', 'id', 'sig', 0.7)" 2>&1 || true)
echo "     near_dupe_pairs on the distributed table: $(head -1 <<<"$err")"
check "near_dupe_pairs(distributed) is refused with an error" 1 "$(grep -q '^ERROR:' <<<"$err" && echo 1 || echo 0)"
check "near_dupe_pairs over a coordinator copy of (id, sig) equals one node" \
    "$(q -c "SELECT count(*) || ' ' || md5(string_agg(concat_ws(',', key_a, key_b, resemblance), '|' ORDER BY key_a, key_b)) FROM near_dupe_pairs('docs_local', 'id', 'sig', 0.7)")" \
    "$(q -c "CREATE TEMP TABLE pairs_src AS SELECT id, sig FROM docs;
             SELECT count(*) || ' ' || md5(string_agg(concat_ws(',', key_a, key_b, resemblance), '|' ORDER BY key_a, key_b)) FROM near_dupe_pairs('pairs_src', 'id', 'sig', 0.7)" 2>&1)"

# --- a reference table of known documents -----------------------------------
q -o /dev/null <<'SQL'
CREATE TABLE known_local (name text PRIMARY KEY, body text NOT NULL, sig minhash);
INSERT INTO known_local SELECT 'template ' || tmpl, body, sig FROM docs_local WHERE id % 10 = 0 AND tmpl % 20 = 3;
INSERT INTO known_local SELECT 'unrelated ' || i, repeat('nothing like the others ' || i, 20), minhash(repeat('nothing like the others ' || i, 20)) FROM generate_series(1, 3) i;
CREATE TABLE known (LIKE known_local);
ALTER TABLE known ADD PRIMARY KEY (name);
SELECT create_reference_table('known');
INSERT INTO known SELECT * FROM known_local;
SQL
check "reference table of known documents matched against the distributed table equals one node" \
    "$(q -c "SELECT count(*) || ' ' || md5(string_agg(k.name || '=' || d.id, ',' ORDER BY k.name, d.id)) FROM known_local k JOIN docs_local d ON resembles(d.sig, k.sig, 0.7)")" \
    "$(q -c "SELECT count(*) || ' ' || md5(string_agg(k.name || '=' || d.id, ',' ORDER BY k.name, d.id)) FROM known k JOIN docs d ON resembles(d.sig, k.sig, 0.7)" 2>&1)"

# --- the flagging trigger on a distributed table -----------------------------
# One edited copy (c = 1) of each template inserted after the templates: on
# one node each copy that reaches 0.5 is flagged with its template.  On the
# distributed table the trigger runs on the shard the row lands in and its
# lookup reads only that shard, so a copy is flagged only when its template
# landed in the same shard.
q -o /dev/null <<'SQL'
CREATE TABLE trig_local (LIKE docs_local); ALTER TABLE trig_local ADD PRIMARY KEY (id);
CREATE INDEX trig_local_sig ON trig_local USING gin (sig) WITH (fastupdate = off);
CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig_local FOR EACH ROW
    EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5');
CREATE TABLE trig (LIKE docs_local); ALTER TABLE trig ADD PRIMARY KEY (id);
SELECT create_distributed_table('trig', 'id', colocate_with => 'docs');
CREATE INDEX trig_sig ON trig USING gin (sig) WITH (fastupdate = off);
SQL
refusal=$(q -c "CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig FOR EACH ROW
                EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5')" 2>&1 || true)
echo "     CREATE TRIGGER on a distributed table by default: ${refusal:-accepted}"
check "Citus refuses the trigger on a distributed table by default" 1 "$(grep -qi 'trigger' <<<"$refusal" && echo 1 || echo 0)"
q -o /dev/null <<'SQL'
SET citus.enable_unsafe_triggers = on;
CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig FOR EACH ROW
    EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5');
INSERT INTO trig_local (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 0 ORDER BY id;
INSERT INTO trig (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 0 ORDER BY id;
INSERT INTO trig_local (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 1 ORDER BY id;
INSERT INTO trig (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 1 ORDER BY id;
SQL
nl=$(q -c "SELECT count(*) FROM trig_local WHERE duplicate_of IS NOT NULL")
cross=$(q -c "SELECT count(*) FROM trig_local WHERE duplicate_of IS NOT NULL
              AND get_shard_id_for_distribution_column('trig', id) <> get_shard_id_for_distribution_column('trig', duplicate_of)")
nd=$(q -c "SELECT count(*) FROM trig WHERE duplicate_of IS NOT NULL")
echo "     trigger: one node flags $nl copies; distributed flags $nd; $cross of the $nl have their template in another shard"
check "trigger on a distributed table flags exactly the same-shard duplicates (a shard sees only its shard)" \
    "$(q -c "SELECT string_agg(id || '>' || duplicate_of, ',' ORDER BY id) FROM trig_local WHERE duplicate_of IS NOT NULL
             AND get_shard_id_for_distribution_column('trig', id) = get_shard_id_for_distribution_column('trig', duplicate_of)")" \
    "$(q -c "SELECT string_agg(id || '>' || duplicate_of, ',' ORDER BY id) FROM trig WHERE duplicate_of IS NOT NULL")"
check "so it misses cross-shard duplicates (the one-node result differs)" 1 "$(( cross > 0 && nd > 0 && nd < nl ? 1 : 0 ))"

# The alternative: flag through the coordinator after loading (sees every
# shard).  Reported, and checked against one node when Citus accepts it.
flag_sql="UPDATE %s d SET duplicate_of = (SELECT o.id FROM %s o WHERE resembles(o.sig, d.sig, 0.5) AND o.id <> d.id
          ORDER BY o.sig <%%> d.sig, o.id LIMIT 1)"
q -c "SET citus.enable_unsafe_triggers = on" -c "DROP TRIGGER flag ON trig_local" -c "DROP TRIGGER flag ON trig"
q -c "$(printf "$flag_sql" trig_local trig_local)"
if err=$(q -c "$(printf "$flag_sql" trig trig)" 2>&1); then
    check "re-flagging a distributed table by a correlated UPDATE equals one node" \
        "$(q -c "SELECT count(*) || ' ' || md5(string_agg(id || '>' || duplicate_of, ',' ORDER BY id)) FROM trig_local WHERE duplicate_of IS NOT NULL")" \
        "$(q -c "SELECT count(*) || ' ' || md5(string_agg(id || '>' || duplicate_of, ',' ORDER BY id)) FROM trig WHERE duplicate_of IS NOT NULL")"
else
    echo "     note: re-flagging by a correlated UPDATE is refused: $(head -1 <<<"$err")"
    # a loop on the coordinator: one lookup over all shards per row, then a
    # router UPDATE of that row
    q <<'SQL'
DO $$
DECLARE r record; best bigint;
BEGIN
    FOR r IN SELECT id, sig FROM trig ORDER BY id LOOP
        SELECT o.id INTO best FROM trig o WHERE resembles(o.sig, r.sig, 0.5) AND o.id <> r.id
         ORDER BY o.sig <%> r.sig, o.id LIMIT 1;
        UPDATE trig SET duplicate_of = best WHERE id = r.id;
    END LOOP;
END
$$;
SQL
    check "re-flagging a distributed table by a loop of lookups on the coordinator equals one node" \
        "$(q -c "SELECT count(*) || ' ' || md5(string_agg(id || '>' || duplicate_of, ',' ORDER BY id)) FROM trig_local WHERE duplicate_of IS NOT NULL")" \
        "$(q -c "SELECT count(*) || ' ' || md5(string_agg(id || '>' || duplicate_of, ',' ORDER BY id)) FROM trig WHERE duplicate_of IS NOT NULL")"
fi

# Opt-in, printed only (no timing assertions): p50 of 200 lookups at 0.8,
# distributed table vs the local copy, each over one session.
if [[ -n "${MINHASH_CITUS_TIMING:-}" ]]; then
    for tbl in docs_local docs; do
        q -c "SELECT format('SELECT count(*) FROM $tbl WHERE resembles(sig, %L::minhash, 0.8);', sig)
                FROM docs_local ORDER BY (id * 7919) % 1800 LIMIT 200" >"$DIR/lookups_$tbl.sql"
        p50=$( { echo '\timing on'; cat "$DIR/lookups_$tbl.sql"; } | q 2>&1 |
               awk '/^Time:/ {print $2}' | sort -n | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
        echo "     lookup p50 ($tbl, $SHARDS shards for docs): $p50 ms"
    done
fi

echo "citus: $pass passed, $fail failed"
((fail == 0))
