# shellcheck shell=bash
# Shared by test/bench/realistic_scale.sh, realistic_10m.sh and trigger_sign.sh
# (sourced, not run).
#
# realistic_corpus DOCS [SEED]
#   Makes sure the database realistic_<DOCS>[_s<SEED>] holds a realistic corpus
#   (test/corpus/generate_realistic.sql) of DOCS documents, and sets RDB to
#   its name.  An existing corpus with the same DOCS and SEED is reused (the
#   table realistic_meta, written after a complete generation, says so);
#   otherwise the database is dropped and the corpus generated, timed.
#   Prints the generation figures (seconds, size) either way.
# Needs the PG* variables of a running cluster and the extension installed.

_realistic_repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"

# The installed extension scripts' fingerprint: a corpus made under other
# scripts has the extension's objects of then (CREATE EXTENSION ran then),
# so it is regenerated, unless REALISTIC_KEEP=1 (then only a warning).
_realistic_scripts() {
    cat "$("${PG_CONFIG:-pg_config}" --sharedir)"/extension/minhash--*.sql | md5sum | cut -c1-32
}

realistic_corpus() {
    local docs=$1 seed=${2:-0} have t0 t1 scripts
    RDB="realistic_${docs}"
    ((seed == 0)) || RDB+="_s${seed}"
    scripts=$(_realistic_scripts)
    have=$(psql -X -At -d "$RDB" -c \
        "SELECT docs, scripts FROM realistic_meta WHERE docs = $docs AND seed = $seed" 2>/dev/null || true)
    if [[ -n "$have" && "$have" != "$docs|$scripts" ]]; then
        if [[ "${REALISTIC_KEEP:-0}" == 1 ]]; then
            echo "corpus: WARNING: $RDB was made under other extension scripts; kept (REALISTIC_KEEP=1)"
            have="$docs|$scripts"
        else
            echo "corpus: $RDB was made under other extension scripts: regenerating"
        fi
    fi
    if [[ "$have" != "$docs|$scripts" ]]; then
        echo "corpus: generating $docs documents (seed $seed) into database $RDB"
        psql -X -q -d postgres -v ON_ERROR_STOP=1 \
            -c "DROP DATABASE IF EXISTS $RDB" -c "CREATE DATABASE $RDB" || return 1
        psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -c 'CREATE EXTENSION minhash' || return 1
        bash "$_realistic_repo/test/corpus/load_spamassassin.sh" spam_messages "$RDB" >/dev/null || return 1
        t0=$(date +%s.%N)
        psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 -v docs="$docs" -v seed="$seed" \
            -f "$_realistic_repo/test/corpus/generate_realistic.sql" >/dev/null || return 1
        t1=$(date +%s.%N)
        psql -X -q -d "$RDB" -v ON_ERROR_STOP=1 <<SQL || return 1
CREATE TABLE realistic_meta AS
SELECT $docs::bigint AS docs, $seed AS seed,
       round(($t1 - $t0)::numeric, 1) AS generate_seconds,
       pg_total_relation_size('real_docs') AS real_docs_bytes,
       (SELECT count(*) FROM real_docs) AS rows_loaded,
       '$scripts'::text AS scripts,
       now() AS generated_at;
SQL
    else
        echo "corpus: reusing database $RDB ($docs documents, seed $seed)"
    fi
    psql -X -d "$RDB" -c "SELECT docs, generate_seconds AS generate_s,
                                 pg_size_pretty(real_docs_bytes) AS real_docs_size,
                                 generated_at FROM realistic_meta"
}
