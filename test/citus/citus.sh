#!/usr/bin/env bash
# citus.sh: minhash on Citus, checked against one node in the same run.
#
# Builds Citus once (test/citus/build_citus.sh: into a cache outside the
# clone, /var/cache/minhash-citus by default, with minhash installed into the
# same private PostgreSQL tree), starts a coordinator and two workers
# (test/citus/lib.sh: throwaway clusters in <repo>/.cache/citus, unix sockets
# only, ports MINHASH_CITUS_PORT..+2, default 5551-5553), and compares
# distributed tables with local copies of the same rows on the coordinator:
# resembles() lookups (and that the shards use their GIN index), <%> top-k,
# minhash_union, near_dupe_groups, near_dupe_pairs (directly if Citus runs
# it, and through a coordinator copy), a reference table of known documents
# (SpamAssassin templates, footers, a licence text) matched against the
# SpamAssassin bodies distributed, the flagging trigger, which refuses to
# run on a shard, and its documented alternative; and near_dupe_pairs_
# distributed / near_dupe_groups_distributed (band work on the workers)
# against near_dupe_pairs / near_dupe_groups on the local copies, row for
# row, exact and with recall, with where their work ran (Citus's log of
# remote commands), their refusals, and the coordinator's peak memory while
# grouping 100,000 realistic documents (test/corpus/generate_realistic.sql;
# MINHASH_CITUS_REALISTIC sets another count) against one node's.
# Skips with one line and exit status 77 (test/run_all.sh counts it as
# skipped) when no Citus source is available.
# In test/run_all.sh; run alone: bash test/citus/citus.sh (as root or the
# owner of the clone; loads the corpus itself, test/corpus/load_spamassassin.sh).
# MINHASH_CITUS_SHARDS (default 8) sets the shard count; MINHASH_CITUS_TIMING=1
# prints p50/p95 of 200 lookups, distributed vs local (printed, not asserted).
# Ends with "citus: N passed, M failed"; exit status 1 if any failed.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)"
REPO_ROOT="$(cd "$HERE/../.." && pwd -P)"
T0=$SECONDS
rc=0; PGC=$("$HERE/build_citus.sh") || rc=$?
if ((rc == 77)); then exit 77; fi   # build_citus.sh printed "citus: skipped ..."
((rc == 0)) || { echo "citus: 0 passed, 1 failed (build)"; exit 1; }
echo "     Citus and minhash ready in $PGC's tree ($((SECONDS - T0)) s)"
# shellcheck source=test/citus/lib.sh
source "$HERE/lib.sh"
BASE=${MINHASH_CITUS_PORT:-5551}
DIR=$REPO_ROOT/.cache/citus          # .cache/ is ignored by git
citus_start "$DIR" "$BASE" "$PGC"
# the installed minhash is this checkout's, in the private tree
[[ "$(q -c "SELECT setting FROM pg_config WHERE name = 'PKGLIBDIR'")" == "$("$PGC" --pkglibdir)" ]] ||
    { echo "citus: the coordinator does not load from $("$PGC" --pkglibdir)"; exit 1; }

pass=0; fail=0
check() {   # check NAME EXPECTED ACTUAL
    if [[ "$2" == "$3" ]]; then pass=$((pass + 1)); echo "ok   $1"
    else fail=$((fail + 1)); echo "FAIL $1"; echo "     expected: ${2:0:300}"; echo "     actual:   ${3:0:300}"; fi
}
# The version the coordinator installed (the control file's default).
version=$(qw "$BASE" -c "SELECT default_version FROM pg_available_extensions WHERE name='minhash'")
check "CREATE EXTENSION minhash reaches both workers" "$version $version" \
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
# near_dupe_pairs: on one node the reference.  Directly on the distributed
# table if Citus runs it (an engine that reads the signatures as
# near_dupe_groups does); its older SQL self-joined the table on ctid, which
# names a row only within one shard, and Citus refuses that (an error, never a
# wrong answer).  Either way the documented alternative is checked too: the
# keys and signatures copied into a table on the coordinator (a temporary
# table here), the pairs found there.
pairs_of() { echo "SELECT count(*) || ' ' || md5(string_agg(concat_ws(',', key_a, key_b, resemblance), '|' ORDER BY key_a, key_b)) FROM near_dupe_pairs('$1', 'id', 'sig', 0.7)"; }
pairs_local=$(q -c "$(pairs_of docs_local)")
if out=$(q -c "$(pairs_of docs)" 2>&1); then
    check "near_dupe_pairs(distributed) equals one node" "$pairs_local" "$out"
else
    echo "     near_dupe_pairs on the distributed table is refused: $(head -1 <<<"$out")"
    check "near_dupe_pairs(distributed) is refused with an ERROR (not a wrong answer)" 1 "$(grep -q '^ERROR:' <<<"$out" && echo 1 || echo 0)"
fi
check "near_dupe_pairs over a coordinator copy of (id, sig) equals one node" "$pairs_local" \
    "$(q -c "CREATE TEMP TABLE pairs_src AS SELECT id, sig FROM docs; $(pairs_of pairs_src)" 2>&1)"

# --- near_dupe_groups_append ----------------------------------------------------
# The stored grouping of every template's first four copies (a reference
# table, as a review's group table is small beside the documents), then the
# later copies appended.  On the coordinator a distributed table's own heap is an empty
# shell: an append that scanned it would see no stored row and join nothing.
q -o /dev/null <<'SQL'
SET client_min_messages = warning;
CREATE TABLE docs_first_local AS SELECT id, sig FROM docs_local WHERE id % 10 < 4;
CREATE TABLE stored_groups_local AS SELECT * FROM near_dupe_groups('docs_first_local', 'id', 'sig', 0.5);
CREATE TABLE stored_groups AS SELECT * FROM stored_groups_local;
SELECT create_reference_table('stored_groups');
SQL
append_rows() { q -c "SELECT count(*) || ' ' || count(*) FILTER (WHERE group_id <= (SELECT max(group_id) FROM $1)) || ' '
                             || md5(string_agg(concat_ws(',', group_id, key, pivot, resemblance), '|' ORDER BY key))
                        FROM near_dupe_groups_append('$1', '$2', 'id', 'sig', 0.5)" 2>&1; }
appended_local=$(append_rows stored_groups_local docs_local)
check "near_dupe_groups_append(distributed) equals one node, and some new rows join stored groups" \
    "$appended_local 1" "$(append_rows stored_groups docs) $(awk '{print ($2 > 0)}' <<<"$appended_local")"

# --- a reference table of known documents -----------------------------------
# The SpamAssassin bodies (test/corpus/load_spamassassin.sh, into the
# coordinator) distributed as `mail`; a reference table `known` (a copy on
# every node) of known documents: the 5 spam templates with the most near-
# duplicates (their first line cut), 4 mailing-list footers (the first
# occurrence of each list's footer lines) and a GPL paragraph.  Templates are
# matched by resemblance (the shards' GIN index), footers and licences by
# containment (the share of the known text found in a message; a filter).
PGPORT=$BASE bash "$REPO_ROOT/test/corpus/load_spamassassin.sh" spam_messages >"$DIR/corpus.log" 2>&1 ||
    { cat "$DIR/corpus.log"; echo "citus: $pass passed, $((fail + 1)) failed (corpus)"; exit 1; }
q -o /dev/null -v shards="$SHARDS" <<'SQL'
CREATE TABLE mail_local AS SELECT id, body, minhash(body) AS sig FROM spam_messages;
ALTER TABLE mail_local ADD PRIMARY KEY (id);
CREATE INDEX mail_local_sig ON mail_local USING gin (sig);
CREATE TABLE mail (LIKE mail_local); ALTER TABLE mail ADD PRIMARY KEY (id);
SELECT create_distributed_table('mail', 'id', shard_count => :shards);
CREATE INDEX mail_sig ON mail USING gin (sig);
INSERT INTO mail SELECT * FROM mail_local;
CREATE TABLE known_local (name text PRIMARY KEY, body text NOT NULL, sig minhash);
INSERT INTO known_local (name, body)
SELECT 'template ' || pivot, regexp_replace(b.body, '^[^\n]*\n', '')
  FROM (SELECT pivot FROM near_dupe_groups('mail_local', 'id', 'sig', 0.8) GROUP BY pivot
         ORDER BY count(*) DESC, pivot LIMIT 5) g JOIN spam_messages b ON b.id = g.pivot::int;
INSERT INTO known_local (name, body)
SELECT 'footer ' || m, (SELECT substring(body from '(?:[^\n]*\n){0,3}[^\n]*' || m || '[^\n]*')
                          FROM spam_messages WHERE strpos(body, m) > 0 ORDER BY id LIMIT 1)
  FROM unnest(ARRAY['listinfo/ilug', 'listinfo/rpm-list', 'listinfo/razor-users', 'listinfo/spamassassin-sightings']) m;
INSERT INTO known_local (name, body) VALUES ('licence GPL-2.0',
  'This program is free software; you can redistribute it and/or modify it under the terms of the GNU General Public License as published by the Free Software Foundation; either version 2 of the License, or (at your option) any later version.');
UPDATE known_local SET sig = minhash(body);
CREATE TABLE known (LIKE known_local); ALTER TABLE known ADD PRIMARY KEY (name);
SELECT create_reference_table('known');
INSERT INTO known SELECT * FROM known_local;
ANALYZE mail_local; ANALYZE mail; ANALYZE known_local; ANALYZE known;
SQL
match_tpl="SELECT count(*) || ' ' || md5(string_agg(k.name || '=' || m.id, ',' ORDER BY k.name, m.id)) FROM %s k JOIN %s m ON resembles(m.sig, k.sig, 0.7) WHERE k.name LIKE 'template%%'"
match_ftr="SELECT count(*) || ' ' || md5(string_agg(k.name || '=' || m.id, ',' ORDER BY k.name, m.id)) FROM %s k JOIN %s m ON containment(k.sig, m.sig) >= 0.8 WHERE k.name NOT LIKE 'template%%'"
a=$(q -c "$(printf "$match_tpl" known_local mail_local)")
echo "     known templates matched at 0.7 on one node: ${a%% *} (template, message) pairs"
check "reference table: known templates resembling distributed messages (0.7) equal one node, and some match" \
    "$a 1" "$(q -c "$(printf "$match_tpl" known mail)" 2>&1) $(( ${a%% *} > 5 ? 1 : 0 ))"
a=$(q -c "$(printf "$match_ftr" known_local mail_local)")
echo "     known footers and licence contained (0.8) on one node: ${a%% *} (text, message) pairs"
check "reference table: known footers and licence contained in distributed messages (0.8) equal one node, and some match" \
    "$a 1" "$(q -c "$(printf "$match_ftr" known mail)" 2>&1) $(( ${a%% *} > 100 ? 1 : 0 ))"
plan=$(q <<SQL
BEGIN;
SET LOCAL citus.propagate_set_commands = 'local';
SET LOCAL enable_seqscan = off;
EXPLAIN (COSTS OFF) $(printf "$match_tpl" known mail);
COMMIT;
SQL
)
check "EXPLAIN: the join with the reference table runs on the shards, with the shard's GIN index" 1 \
    "$(grep -q 'Bitmap Index Scan on mail_sig_' <<<"$plan" && grep -q 'Task Count: '"$SHARDS" <<<"$plan" && echo 1 || echo 0)"
grep -q 'Bitmap Index Scan on mail_sig_' <<<"$plan" || echo "$plan" | head -30

# --- pairs and groups with the band work on the workers ---------------------
# near_dupe_pairs_distributed / near_dupe_groups_distributed against
# near_dupe_pairs / near_dupe_groups on the local copy: the same rows in the
# same order (WITH ORDINALITY: the position is part of each row compared),
# exact and with recall, at several thresholds and at the setting.
ordered_rows() { echo "SELECT count(*) || ' ' || md5(coalesce(string_agg(r::text, '|' ORDER BY r.ordinality), '')) FROM $1 WITH ORDINALITY r"; }
t_section=$SECONDS
for tbl in docs mail; do
    # mail is 3 times larger: fewer calls, so that the suite stays short
    configs=("0.5" "0.8" "1.0" "setting" "0.8 0.99")
    [[ $tbl == mail ]] && configs=("0.5" "0.8" "0.6 0.99")
    for fn in pairs groups; do
        bad=0; shown=""
        for config in "${configs[@]}"; do
            read -r t recall <<<"$config"
            if [[ $t == setting ]]; then
                set_t="SET minhash.threshold = 0.7;"; local_args=""; dist_args=""
            elif [[ -z "$recall" ]]; then
                set_t=""; local_args=", $t"; dist_args=", $t"
            else
                set_t=""; local_args=", $t, NULL::text, $recall"; dist_args=", $t, recall => $recall"
            fi
            a=$(q -c "$set_t $(ordered_rows "near_dupe_$fn('${tbl}_local', 'id', 'sig'$local_args)")")
            b=$(q -c "$set_t $(ordered_rows "near_dupe_${fn}_distributed('$tbl', 'id', 'sig'$dist_args)")" 2>&1)
            shown+=" ${config/ /, recall }: ${a%% *};"
            [[ "$a" == "$b" ]] || { bad=$((bad + 1)); echo "     $fn of $tbl at $config: one node {$a} distributed {$b}"; }
        done
        echo "     $fn of $tbl (rows on one node):$shown"
        check "near_dupe_${fn}_distributed($tbl) equals near_dupe_$fn on one node, row for row (thresholds ${configs[*]})" 0 "$bad"
    done
done
# Text keys (compared in text order: '100' before '11'), documents without
# words (empty signatures: groups of their own, resemblance 0) and rows
# without a signature (last, resemblance null).
q -o /dev/null <<'SQL'
CREATE TABLE odd_local (id text PRIMARY KEY, sig minhash);
INSERT INTO odd_local SELECT id::text, sig FROM docs_local;
INSERT INTO odd_local SELECT 'empty ' || i, minhash(repeat('. ', i)) FROM generate_series(1, 3) i;
INSERT INTO odd_local SELECT 'unsigned ' || i, NULL FROM generate_series(1, 3) i;
CREATE TABLE odd (LIKE odd_local); ALTER TABLE odd ADD PRIMARY KEY (id);
SELECT create_distributed_table('odd', 'id', colocate_with => 'none');
INSERT INTO odd SELECT * FROM odd_local;
SQL
# compare_calls TABLE CONFIG...: each CONFIG ("pairs|groups threshold
# [recall]") on TABLE_local by the one-node function and on TABLE by its
# _distributed form; bad = how many differ (each shown).
compare_calls() {
    local tbl=$1 config fn t recall local_args dist_args a b
    shift; bad=0
    for config in "$@"; do
        read -r fn t recall <<<"$config"
        if [[ -z "$recall" ]]; then local_args=", $t"; dist_args=", $t"; else local_args=", $t, NULL::text, $recall"; dist_args=", $t, recall => $recall"; fi
        a=$(q -c "$(ordered_rows "near_dupe_$fn('${tbl}_local', 'id', 'sig'$local_args)")")
        b=$(q -c "$(ordered_rows "near_dupe_${fn}_distributed('$tbl', 'id', 'sig'$dist_args)")" 2>&1)
        [[ "$a" == "$b" ]] || { bad=$((bad + 1)); echo "     $config on $tbl: one node {$a} distributed {$b}"; }
    done
}
compare_calls odd "pairs 0.8" "groups 0.8" "groups 0.5 0.99"
check "text keys, empty and null signatures: pairs at 0.8 and groups at 0.8 and 0.5 (recall 0.99) equal one node" 0 "$bad"
check "the groups of odd end with the 3 unsigned rows (null resemblance), after the 3 empty ones (resemblance 0)" \
    "empty 1:0 empty 2:0 empty 3:0 unsigned 1: unsigned 2: unsigned 3:" \
    "$(q -c "SELECT string_agg(key || ':' || coalesce(resemblance::text, ''), ' ' ORDER BY group_id) FROM (SELECT * FROM near_dupe_groups_distributed('odd', 'id', 'sig', 0.8) ORDER BY group_id DESC LIMIT 6) g")"

# Copies: documents copied many times over (exact copies of an original, of
# an edited copy that resembles it, copies with keys smaller than the
# original's, one copy of a third), among the other rows.  The groups equal
# one node's; identical signatures are set aside before the band work, so
# the coordinator receives exactly the pairs among distinct signatures, and
# n copies cost n rows there instead of n^2 / 2 pairs.
q -o /dev/null <<'SQL'
CREATE TABLE copies_local (id bigint PRIMARY KEY, sig minhash);
INSERT INTO copies_local SELECT id, sig FROM docs_local;
INSERT INTO copies_local
SELECT 100000 + 1000 * v.n + i, (SELECT sig FROM docs_local WHERE id = v.original)
  FROM (VALUES (1, 50, 40), (2, 51, 10), (3, 171, 25), (4, 300, 1)) v(n, original, copies), generate_series(1, v.copies) i;
INSERT INTO copies_local SELECT -i, (SELECT sig FROM docs_local WHERE id = 50) FROM generate_series(1, 5) i;
CREATE TABLE copies (LIKE copies_local); ALTER TABLE copies ADD PRIMARY KEY (id);
SELECT create_distributed_table('copies', 'id', colocate_with => 'none');
INSERT INTO copies SELECT * FROM copies_local;
CREATE TABLE copies_distinct AS
  SELECT * FROM copies_local a WHERE NOT EXISTS (SELECT 1 FROM copies_local b WHERE b.sig = a.sig AND b.id < a.id);
SQL
compare_calls copies "groups 0.8" "groups 0.5" "groups 0.8 0.99" "pairs 0.8"
check "copies: groups at 0.8, 0.5 and 0.8 (recall 0.99) and pairs at 0.8 equal one node" 0 "$bad"
debug=$(q -c "SET client_min_messages = debug1" -c "SELECT count(*) FROM near_dupe_groups_distributed('copies', 'id', 'sig', 0.8)" 2>&1 |
        grep -o 'near_dupe_groups_distributed: .*' || true)
check "copies: the coordinator received the pairs among distinct signatures only, and each copy once" \
    "near_dupe_groups_distributed: $(q -c "SELECT count(*) FROM near_dupe_pairs('copies_distinct', 'id', 'sig', 0.8)") verified pairs on the coordinator, $(q -c "SELECT (SELECT count(*) FROM copies_local) - (SELECT count(*) FROM copies_distinct)") copies set aside" \
    "$debug"

# Step 3 ships each candidate pair's byte sketch, and whole signatures only
# for the pairs within the sketches' bound (resemblance_bound: at least the
# resemblance): at 0.6 with recall most candidates are ruled out there.
debug=$(q -c "SET client_min_messages = debug1" \
          -c "SELECT count(*) FROM near_dupe_pairs_distributed('docs', 'id', 'sig', 0.6, recall => 0.99)" 2>&1 |
        grep -oE '[0-9]+ candidate pairs, [0-9]+ within' || true)
read -r sketched _ _ kept _ <<<"${debug:-0 x x 0 x}"
verified=$(q -c "SELECT count(*) FROM near_dupe_pairs('docs_local', 'id', 'sig', 0.6, NULL::text, 0.99)")
echo "     docs at 0.6, recall 0.99: $sketched candidate pairs sketched, $kept within the bound, $verified verified"
check "pairs: whole signatures shipped only within the sketches' bound (verified <= within < candidates)" 1 \
    "$(( verified <= kept && kept < sketched ? 1 : 0 ))"

echo "     ($((SECONDS - t_section)) s for the comparisons)"

# Where the work ran: Citus's log of the commands it sends to the workers
# (citus.log_remote_commands).  The band keys are computed on every shard of
# the source and repartitioned by Citus (worker_partition_query_result, run
# by Citus's INSERT ... SELECT), the band table joined with itself on each of
# its shards, and the pairs verified on each shard of the source; every such
# command goes to a worker's port.  Run on the coordinator alone, none of
# these commands would be sent.
remote=$(q -c "SET citus.log_remote_commands = on" \
           -c "SELECT count(*) FROM near_dupe_groups_distributed('docs', 'id', 'sig', 0.8)" 2>&1 |
         awk '/^NOTICE:  issuing/ {cmd = $0; next} /^DETAIL:  on server/ && cmd != "" {print $0 " ||| " cmd; cmd = ""}')
worker_ports="port=$((BASE + 1))|port=$((BASE + 2))|:$((BASE + 1)) |:$((BASE + 2)) "
count_shards() {   # count_shards REGEX: distinct shards named in commands matching it, sent to a worker
    grep -E "$worker_ports" <<<"$remote" | grep -E -- "$1" | grep -oE "$2" | sort -u | wc -l
}
check "remote commands: band keys computed on each of the $SHARDS shards of docs and repartitioned by Citus" "$SHARDS" \
    "$(count_shards 'worker_partition_query_result.*minhash_bands\(' 'public\.docs_[0-9]+')"
check "remote commands: the band table joined with itself on each of its $SHARDS shards and repartitioned by Citus" "$SHARDS" \
    "$(count_shards 'worker_partition_query_result.*_bands_[0-9]+ a JOIN' '_bands_[0-9]+')"
check "remote commands: candidate pairs' sketches compared on each of the $SHARDS shards of docs" "$SHARDS" \
    "$(count_shards '_sketched_[0-9]+ h JOIN public\.docs_[0-9]+ s.*resemblance_bound\(' 'public\.docs_[0-9]+')"
check "remote commands: candidate pairs verified on each of the $SHARDS shards of docs" "$SHARDS" \
    "$(count_shards '_half_[0-9]+ h JOIN public\.docs_[0-9]+ s.*resemblance\(' 'public\.docs_[0-9]+')"
[[ -n "$remote" ]] || echo "     no remote command was logged"
check "no work table is left behind" 0 "$(q -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%'")"

# Misuse: SQLSTATE, message, hint.
err_of() { q -v VERBOSITY=verbose -c "$1" 2>&1 | grep -E '^(ERROR|DETAIL|HINT):' | tr '\n' ' ' || true; }
e=$(err_of "SELECT * FROM near_dupe_pairs_distributed('docs_local', 'id', 'sig', 0.8)")
check "a table of the coordinator is refused (42809, hint)" 1 \
    "$(grep -q 'ERROR: *42809: table "docs_local" is not a distributed table .*HINT: *Use near_dupe_pairs() or near_dupe_groups() for a table of one node' <<<"$e" && echo 1 || echo 0)"
[[ "$e" == *42809* ]] || echo "     $e"
e=$(err_of "SELECT * FROM near_dupe_groups_distributed('known', 'name', 'sig', 0.8)")
check "a reference table is refused (42809, detail)" 1 \
    "$(grep -q 'ERROR: *42809: table "known" is not a distributed table .*DETAIL: *It is a Citus reference or local table' <<<"$e" && echo 1 || echo 0)"
e=$(err_of "SELECT * FROM near_dupe_groups_distributed('docs', 'tmpl', 'sig', 0.8)")
check "a key column that is not the distribution column is refused (22023, detail, hint)" 1 \
    "$(grep -q 'ERROR: *22023: key column "tmpl" is not the distribution column of table "docs" .*DETAIL: *Table "docs" is distributed by column "id".*HINT: .*alter_distributed_table' <<<"$e" && echo 1 || echo 0)"
[[ "$e" == *22023* ]] || echo "     $e"
q -o /dev/null -c "CREATE TABLE by_tmpl (tmpl int, sig minhash)" -c "SELECT create_distributed_table('by_tmpl', 'tmpl', colocate_with => 'none')" \
    -c "INSERT INTO by_tmpl SELECT tmpl, sig FROM docs_local"
e=$(err_of "SELECT * FROM near_dupe_pairs_distributed('by_tmpl', 'tmpl', 'sig', 0.8)")
check "a distribution column with repeated keys is refused (23505, the key)" 1 \
    "$(grep -q 'ERROR: *23505: key column "tmpl" of relation "by_tmpl" is not unique .*DETAIL: *Key (tmpl)=([0-9]*) appears more than once' <<<"$e" && echo 1 || echo 0)"
e="$(err_of "SELECT * FROM near_dupe_pairs_distributed('docs', 'id', 'sig', NULL)") $(err_of "SELECT * FROM near_dupe_groups_distributed('docs', 'id', 'sig', 0.8, recall => 1)")"
check "a null threshold (22004) and a recall of 1 (22023) are refused" 1 \
    "$(grep -q 'ERROR: *22004: threshold must not be null .*ERROR: *22023: recall must be between 0 and 1, exclusive' <<<"$e" && echo 1 || echo 0)"
check "no work table is left behind after the errors" 0 "$(q -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%'")"

# --- the procedures: a step per transaction, the pairs in slices -----------
# near_dupe_pairs_distributed_into / near_dupe_groups_distributed_into write
# the rows of the functions into a new table distributed beside the source,
# committing after the band keys, after each slice of the pairs and after
# the result, so that the workers' disk holds one slice's candidates at a
# time.  Compared row for row with one node (the keys, group ids,
# pivots and resemblances; a table has no order, so sorted by them), with
# slices and without, exact and with recall; the slices part the
# candidates (their counts add up to the one-shot call's); each step is a
# transaction of its own (the coordinator's transaction ids).
sorted_rows() { echo "SELECT count(*) || ' ' || md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')) FROM ($1) r"; }
bad=0
for config in "groups 0.5 3" "groups 0.8 1" "groups 0.6 2 0.99" "pairs 0.5 3" "pairs 0.6 4 0.99"; do
    read -r fn t slices recall <<<"$config"
    if [[ $fn == groups ]]; then cols="group_id, key::text, pivot::text, resemblance"; else cols="key_a::text, key_b::text, resemblance"; fi
    local_args=", $t"; dist_args=", $t"
    [[ -n "$recall" ]] && { local_args+=", NULL::text, $recall"; dist_args+=", recall => $recall"; }
    q -c "DROP TABLE IF EXISTS into_result" -c "CALL near_dupe_${fn}_distributed_into('mail', 'id', 'sig', 'into_result'$dist_args, slices => $slices)"
    a=$(q -c "$(sorted_rows "SELECT * FROM near_dupe_$fn('mail_local', 'id', 'sig'$local_args)")")
    b=$(q -c "$(sorted_rows "SELECT $cols FROM into_result")")
    [[ "$a" == "$b" ]] || { bad=$((bad + 1)); echo "     $config: one node {$a} procedure {$b}"; }
done
check "near_dupe_{pairs,groups}_distributed_into(mail) equal one node (0.5 and 0.8 exact, 0.6 with recall; 1 to 4 slices)" 0 "$bad"
check "the result table is distributed by its key beside the source" \
    "$(q -c "SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'mail'::regclass") key_a" \
    "$(q -c "SELECT colocationid, column_to_column_name(logicalrelid, partkey) FROM pg_dist_partition WHERE logicalrelid = 'into_result'::regclass" | tr '|' ' ')"
one_shot=$(q -c "SET client_min_messages = debug1" -c "SELECT count(*) FROM near_dupe_pairs_distributed('mail', 'id', 'sig', 0.5)" 2>&1 |
           grep -oE '[0-9]+ candidate pairs' | grep -oE '^[0-9]+' || true)
q -c "DROP TABLE into_result"
x0=$(q -c "SELECT txid_current()")
sliced=$(q -c "SET client_min_messages = debug1" -c "CALL near_dupe_pairs_distributed_into('mail', 'id', 'sig', 'into_result', 0.5, slices => 3)" 2>&1 |
         grep -oE 'slice [0-9]+ of 3: [0-9]+ candidate pairs' || true)
x1=$(q -c "SELECT txid_current()")
check "3 slices, whose candidate pairs add up to the one-shot call's ($one_shot)" "3 $one_shot" \
    "$(wc -l <<<"$sliced") $(grep -oE '[0-9]+ candidate' <<<"$sliced" | awk '{s += $1} END {print s + 0}')"
check "a transaction per step: the band keys, 3 slices, the result (at least 5 transaction ids)" 1 "$(( x1 - x0 - 1 >= 5 ? 1 : 0 ))"
remote=$(q -c "SET citus.log_remote_commands = on" -c "DROP TABLE into_result" \
           -c "CALL near_dupe_groups_distributed_into('docs', 'id', 'sig', 'into_result', 0.8, slices => 2)" 2>&1 |
         awk '/^NOTICE:  issuing/ {cmd = $0; next} /^DETAIL:  on server/ && cmd != "" {print $0 " ||| " cmd; cmd = ""}')
check "remote commands: each slice joins the band table with itself on each of its $SHARDS shards" "$((2 * SHARDS))" \
    "$(grep -E "$worker_ports" <<<"$remote" |
       sed -nE 's/.*_bands_([0-9]+) a JOIN .* WHERE \(a\.slice OPERATOR\(pg_catalog\.=\) ([0-9]+)\).*/\1 \2/p' | sort -u | wc -l)"
check "no work table is left behind by the procedures" 0 "$(q -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%'")"
e=$(err_of "BEGIN; CALL near_dupe_groups_distributed_into('docs', 'id', 'sig', 'into_other', 0.8)")
check "CALL inside a transaction block is refused before any work (25001, hint)" 1 \
    "$(grep -q 'ERROR: *25001: near_dupe_groups_distributed_into cannot run inside a transaction block .*HINT: *Run CALL on its own, outside BEGIN and COMMIT' <<<"$e" && echo 1 || echo 0)"
e=$(err_of "CALL near_dupe_pairs_distributed_into('docs', 'id', 'sig', 'into_result', 0.8)")
check "an existing result table is refused before any work (42P07)" 1 \
    "$(grep -q 'ERROR: *42P07: relation "into_result" already exists' <<<"$e" && echo 1 || echo 0)"
e="$(err_of "CALL near_dupe_groups_distributed_into('docs_local', 'id', 'sig', 'into_other', 0.8)") $(err_of "CALL near_dupe_groups_distributed_into('docs', 'id', 'sig', 'into_other', 0.8, slices => 0)")"
check "a table of one node (42809) and 0 slices (22023) are refused" 1 \
    "$(grep -q 'ERROR: *42809: table "docs_local" is not a distributed table .*ERROR: *22023: slices must be between 1 and 1024' <<<"$e" && echo 1 || echo 0)"
check "after the errors: no result table, no work table" "0 0" \
    "$(q -c "SELECT count(*) FROM pg_class WHERE relname = 'into_other'") $(q -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%'")"
# The procedures commit, and pin their search_path after each COMMIT: a DO
# block that calls one goes on on its own path.
path_after=$(q -c "DROP TABLE into_result" -c "SET search_path = public, pg_temp" \
               -c "DO \$\$ BEGIN CALL near_dupe_pairs_distributed_into('docs', 'id', 'sig', 'into_result', 0.8, slices => 2);
                   RAISE NOTICE 'path after: %', pg_catalog.current_setting('search_path'); END \$\$" 2>&1 |
             grep -o 'path after: .*' || true)
check "a DO block goes on on its own search_path after the procedure" "path after: public, pg_temp" "$path_after"
# An interrupted call leaves its committed steps behind; once its backend
# is gone, near_dupe_distributed_cleanup() drops them.
q -c "DROP TABLE into_result"
q -c "SET statement_timeout = 0" \
  -c "DO \$\$ BEGIN CALL near_dupe_groups_distributed_into('mail', 'id', 'sig', 'into_result', 0.5, slices => 3);
      END \$\$" -c "SELECT 1" >/dev/null 2>&1 &
left=0
for _ in $(seq 1 600); do
    left=$(q -c "SELECT count(*) FROM pg_class WHERE relname ~ '^minhash_work_[0-9]+_[0-9]+_pairs$'")
    ((left > 0)) && break
    sleep 0.1
done
q -c "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE '%near_dupe_groups_distributed_into(''mail''%' AND pid <> pg_backend_pid()" >/dev/null
wait || true
for _ in $(seq 1 100); do
    [[ $(q -c "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%near_dupe_groups_distributed_into(''mail''%' AND pid <> pg_backend_pid()") == 0 ]] && break
    sleep 0.1
done
left=$(q -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%'")
dropped=$(q -c "SELECT count(*) FROM near_dupe_distributed_cleanup()")
check "a terminated call's work tables are dropped by near_dupe_distributed_cleanup()" "1 $left 0" \
    "$(( left > 0 ? 1 : 0 )) $dropped $(q -c "SELECT count(*) FROM pg_class WHERE relname LIKE 'minhash\_work\_%'")"
q -c "DROP TABLE IF EXISTS into_result"

# --- the flagging trigger on a distributed table -----------------------------
# One edited copy (c = 1) of each template inserted after the templates: on
# one node each copy that reaches 0.5 is flagged with its template.  On a
# distributed table the trigger would run on the shard the row lands in and
# its lookup would read only that shard (before the refusal: 48 of 344
# flagged, the rest missed without a word), so minhash refuses to run it on
# a shard of a table of more than one shard.
q -o /dev/null <<'SQL'
CREATE TABLE trig_local (LIKE docs_local); ALTER TABLE trig_local ADD PRIMARY KEY (id);
CREATE INDEX trig_local_sig ON trig_local USING gin (sig) WITH (fastupdate = off);
CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig_local FOR EACH ROW
    EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5');
CREATE TABLE trig (LIKE docs_local); ALTER TABLE trig ADD PRIMARY KEY (id);
SELECT create_distributed_table('trig', 'id', colocate_with => 'docs');
CREATE INDEX trig_sig ON trig USING gin (sig) WITH (fastupdate = off);
INSERT INTO trig_local (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 0 ORDER BY id;
INSERT INTO trig_local (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 1 ORDER BY id;
SQL
refusal=$(q -c "CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig FOR EACH ROW
                EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5')" 2>&1 || true)
echo "     CREATE TRIGGER on a distributed table by default: ${refusal:-accepted}"
check "Citus refuses the trigger on a distributed table by default" 1 "$(grep -qi 'trigger' <<<"$refusal" && echo 1 || echo 0)"
q -c "SET citus.enable_unsafe_triggers = on" -c "CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig FOR EACH ROW
      EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5')"
# A router INSERT (one shard) passes the worker's error on whole; COPY and
# INSERT ... SELECT (Citus's COPY path) keep only its message and detail.
err=$(q -v VERBOSITY=verbose -c "INSERT INTO trig (id, tmpl, body, sig) VALUES (10, 1, 'a new document', minhash('a new document'::text))" 2>&1 || true)
echo "     with citus.enable_unsafe_triggers on, INSERT: $(grep -m1 '^ERROR' <<<"$err")"
check "with citus.enable_unsafe_triggers on, the trigger refuses to run on a shard (ERROR 0A000, detail, hint)" "1 1 1" \
    "$(grep -c '^ERROR: *0A000: near-duplicate flagging trigger "flag" cannot run on a Citus shard' <<<"$err") $(grep -c '^DETAIL: *Relation "trig_[0-9]*" is one of the '"$SHARDS"' shards of distributed table trig, and a lookup on it sees only the rows of this shard' <<<"$err") $(grep -c '^HINT: .*near_dupe_groups' <<<"$err")"
err=$(q -c "INSERT INTO trig (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 0" 2>&1 || true)
check "a multi-shard INSERT ... SELECT is refused (message and detail) and inserts nothing" "1 1 0" \
    "$(grep -c '^ERROR: .*cannot run on a Citus shard' <<<"$err") $(grep -c '^DETAIL: .*sees only the rows of this shard' <<<"$err") $(q -c 'SELECT count(*) FROM trig')"
# A reference table's shard holds every row: the trigger runs there and
# flags as on one node.
if q -c "CREATE TABLE trig_ref (LIKE docs_local)" -c "ALTER TABLE trig_ref ADD PRIMARY KEY (id)" \
     -c "SELECT create_reference_table('trig_ref')" \
     -c "CREATE INDEX trig_ref_sig ON trig_ref USING gin (sig) WITH (fastupdate = off)" \
     -c "SET citus.enable_unsafe_triggers = on" \
     -c "CREATE TRIGGER flag BEFORE INSERT OR UPDATE ON trig_ref FOR EACH ROW
             EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.5')" >/dev/null 2>"$DIR/trig_ref.err"; then
    out=$(q -c "INSERT INTO trig_ref (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 0 ORDER BY id" \
            -c "INSERT INTO trig_ref (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM docs_local WHERE id % 10 = 1 ORDER BY id" \
            -c "SELECT count(*) || ' ' || md5(string_agg(id || '>' || duplicate_of, ',' ORDER BY id)) FROM trig_ref WHERE duplicate_of IS NOT NULL" 2>&1 || true)
    check "the trigger on a reference table (every row on every node) flags as one node" \
        "$(q -c "SELECT count(*) || ' ' || md5(string_agg(id || '>' || duplicate_of, ',' ORDER BY id)) FROM trig_local WHERE duplicate_of IS NOT NULL")" "$out"
else
    echo "     note: a trigger on a reference table is refused by Citus: $(head -1 "$DIR/trig_ref.err")"
fi

# The alternative (the error's hint, README): no trigger; load, then flag
# through the coordinator, which sees every shard.  Each row gets its best
# match among all rows (the trigger: among the rows there before it), so it
# is compared with the same statement on one node.
flag_sql="UPDATE %s d SET duplicate_of = (SELECT o.id FROM %s o WHERE resembles(o.sig, d.sig, 0.5) AND o.id <> d.id
          ORDER BY o.sig <%%> d.sig, o.id LIMIT 1)"
q -c "SET citus.enable_unsafe_triggers = on" -c "DROP TRIGGER flag ON trig_local" -c "DROP TRIGGER flag ON trig"
q -c "INSERT INTO trig (id, tmpl, body, sig) SELECT id, tmpl, body, sig FROM trig_local"
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

# --- coordinator memory at 100,000 realistic documents -----------------------
# The coordinator backend's private memory (RssAnon, sampled every 10 ms as
# test/bench/append_bench.sh does), above what the session held before the
# call: near_dupe_groups on a table of the coordinator (the engine holds
# every signature) against near_dupe_groups_distributed on the same rows
# distributed.  Each call in a fresh session, warmed up on a small table;
# both return the same rows in the same order (a sum of hashes of each row
# with its position, which holds nothing while it runs).
t_section=$SECONDS
psql -X -q -p "$BASE" -v docs="${MINHASH_CITUS_REALISTIC:-100000}" -f "$REPO_ROOT/test/corpus/generate_realistic.sql" >"$DIR/generate.log" 2>&1 ||
    { tail -5 "$DIR/generate.log"; echo "citus: $pass passed, $((fail + 1)) failed (realistic corpus)"; exit 1; }
q -o /dev/null -v shards="$SHARDS" <<'SQL'
CREATE TABLE real_local AS SELECT id, sig FROM real_docs;
ALTER TABLE real_local ADD PRIMARY KEY (id);
CREATE TABLE real_dist (LIKE real_local); ALTER TABLE real_dist ADD PRIMARY KEY (id);
SELECT create_distributed_table('real_dist', 'id', shard_count => :shards);
INSERT INTO real_dist SELECT * FROM real_local;
DROP TABLE real_docs, real_families, corpus_lines;
SQL
q -c "VACUUM ANALYZE real_local" -c "VACUUM ANALYZE real_dist"
hashed_rows() { echo "SELECT count(*) || ' ' || sum(hashtextextended(r::text, 0)::numeric) FROM $1 WITH ORDINALITY r"; }
n_real=$(q -c "SELECT count(*) FROM real_dist")
warm_up="SET minhash.group_memory = '1GB';
SELECT count(*) FROM near_dupe_groups('docs_local', 'id', 'sig', 0.8) \\g /dev/null
SELECT count(*) FROM near_dupe_groups_distributed('docs', 'id', 'sig', 0.8) \\g /dev/null"
read -r one_kb _ one_rows < <(citus_peak_memory "$DIR" "$warm_up" "$(hashed_rows "near_dupe_groups('real_local', 'id', 'sig', 0.8)")")
read -r dist_kb _ dist_rows < <(citus_peak_memory "$DIR" "$warm_up" "$(hashed_rows "near_dupe_groups_distributed('real_dist', 'id', 'sig', 0.8)")")
echo "     coordinator peak private memory, grouping $n_real realistic documents at 0.8: one node (near_dupe_groups) $((one_kb / 1024)) MB, distributed $((dist_kb / 1024)) MB (work_mem $(q -c 'SHOW work_mem'))"
check "near_dupe_groups_distributed on $n_real realistic documents equals one node" "$one_rows" "$dist_rows"
check "coordinator peak memory of the distributed grouping below a fifth of one node's ($dist_kb kB against $one_kb kB)" 1 \
    "$(( dist_kb > 0 && dist_kb * 5 < one_kb ? 1 : 0 ))"
echo "     ($((SECONDS - t_section)) s for the realistic documents)"

# Opt-in, printed only (no timing assertions): p50/p95 of 200 lookups at
# 0.8, distributed table vs the local copy, each over one session.
if [[ -n "${MINHASH_CITUS_TIMING:-}" ]]; then
    for tbl in docs_local docs; do
        q -c "SELECT format('SELECT count(*) FROM $tbl WHERE resembles(sig, %L::minhash, 0.8);', sig)
                FROM docs_local ORDER BY (id * 7919) % 1800 LIMIT 200" >"$DIR/lookups_$tbl.sql"
        read -r p50 p95 < <({ echo '\timing on'; cat "$DIR/lookups_$tbl.sql"; } | q 2>&1 | citus_percentiles)
        echo "     lookups ($tbl, $SHARDS shards for docs): p50 $p50 ms, p95 $p95 ms"
    done
fi

echo "     ($((SECONDS - T0)) s in all)"
echo "citus: $pass passed, $fail failed"
((fail == 0))
