# shellcheck shell=bash
# Three throwaway clusters on loopback (unix sockets only) for the sharding
# suites (test/sharding/sharding.sh, test/bench/shard_bench_1m.sh): a coordinator and two
# shards, one socket directory for all three.  Source after lib/common.sh and
# set first:
#   SHARD_DIR      directory for the data directories, logs and the socket
#   SHARD_PORTS    array: coordinator port, shard 1 port, shard 2 port
#   SHARD_CONF     extra postgresql.conf lines (optional)
# Defines shard_clusters_start, shard_clusters_stop (safe from trap EXIT),
# psql_node INDEX ... (0 coordinator, 1 and 2 shards) and
# shard_clusters_topology: the extension on every node and postgres_fdw
# servers shard1/shard2 on the coordinator (option extensions 'minhash').

SHARD_NAMES=(coordinator shard1 shard2)

shard_pg_ctl() { as_pg "$(pg_bindir)/pg_ctl" -D "$SHARD_DIR/${SHARD_NAMES[$1]}" "${@:2}"; }

shard_running() { [[ -f "$SHARD_DIR/${SHARD_NAMES[$1]}/postmaster.pid" ]] && shard_pg_ctl "$1" status >/dev/null 2>&1; }

psql_node() { PGHOST="$SHARD_DIR" PGPORT="${SHARD_PORTS[$1]}" PGUSER=postgres PGDATABASE=postgres psql_run "${@:2}"; }

shard_clusters_stop() {
    local i
    for i in 0 1 2; do
        if shard_running "$i"; then
            shard_pg_ctl "$i" -m fast -w -t 60 stop >/dev/null 2>&1 ||
                shard_pg_ctl "$i" -m immediate -w -t 30 stop >/dev/null 2>&1 ||
                warn "could not stop the cluster in $SHARD_DIR/${SHARD_NAMES[$i]}"
        fi
    done
    if [[ "${KEEP_DIR:-0}" == 1 ]]; then
        log "kept $SHARD_DIR (server logs: $SHARD_DIR/*.log)"
    else
        rm -rf "$SHARD_DIR"
    fi
}

shard_clusters_start() {
    local i dir
    for i in 0 1 2; do
        if shard_running "$i"; then shard_pg_ctl "$i" -m immediate -w stop >/dev/null 2>&1 || true; fi
    done
    rm -rf "$SHARD_DIR"
    mkdir -p "$SHARD_DIR"
    [[ $EUID -ne 0 ]] || chown postgres: "$SHARD_DIR"
    chmod 755 "$SHARD_DIR"
    for i in 0 1 2; do
        dir="$SHARD_DIR/${SHARD_NAMES[$i]}"
        as_pg "$(pg_bindir)/initdb" -D "$dir" --auth=trust -E UTF8 --locale=C.UTF-8 -U postgres \
            >"$SHARD_DIR/initdb.${SHARD_NAMES[$i]}.log" 2>&1 ||
            { cat "$SHARD_DIR/initdb.${SHARD_NAMES[$i]}.log" >&2; die "initdb ${SHARD_NAMES[$i]} failed"; }
        as_pg tee -a "$dir/postgresql.conf" >/dev/null <<EOF

# --- sharding test cluster: ${SHARD_NAMES[$i]} ---
listen_addresses = ''
port = ${SHARD_PORTS[$i]}
unix_socket_directories = '$SHARD_DIR'
fsync = off
synchronous_commit = off
max_connections = 20
jit = off
lc_messages = 'C'
log_min_messages = warning
${SHARD_CONF:-}
EOF
        shard_pg_ctl "$i" -l "$SHARD_DIR/${SHARD_NAMES[$i]}.log" -w -t 60 start >/dev/null ||
            { cat "$SHARD_DIR/${SHARD_NAMES[$i]}.log" >&2; die "pg_ctl start ${SHARD_NAMES[$i]} failed"; }
    done
}

# The extension on every node; on the coordinator postgres_fdw and one server
# per shard, reached over the shared unix socket directory.  extensions
# 'minhash' lets postgres_fdw ship the extension's IMMUTABLE functions and
# operators; batch_size speeds up inserts routed to the shards.
# postgres_fdw reads through a cursor, which the shard plans for the first
# 10% of the rows (cursor_tuple_fraction): a sequential scan that checks %>
# row by row then looks cheaper than the index, whose cost is all up front.
# The shard sessions of these servers plan for every row instead.
shard_clusters_topology() {
    local i
    for i in 1 2; do psql_node "$i" -q -c 'CREATE EXTENSION minhash'; done
    psql_node 0 -q -v sockdir="$SHARD_DIR" -v port1="${SHARD_PORTS[1]}" -v port2="${SHARD_PORTS[2]}" <<'SQL'
CREATE EXTENSION minhash;
CREATE EXTENSION postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'sockdir', port :'port1', dbname 'postgres', extensions 'minhash',
			 fetch_size '1000', batch_size '1000', options '-c cursor_tuple_fraction=1');
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw
	OPTIONS (host :'sockdir', port :'port2', dbname 'postgres', extensions 'minhash',
			 fetch_size '1000', batch_size '1000', options '-c cursor_tuple_fraction=1');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1 OPTIONS (user 'postgres');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2 OPTIONS (user 'postgres');
SQL
}

# The documents table, sharded: on each shard a plain table documents and a
# view documents_lsh (each row's id, distinct shingles and band keys of
# lsh_index_layout($1), computed on the shard); on the coordinator the
# partitioned tables of the same names, hash-partitioned on id, whose
# partitions are foreign tables on the shards.  No index yet: load first.
shard_documents_schema() {
    local layout_threshold="$1" i
    for i in 1 2; do
        psql_node "$i" -q -v layout_threshold="$layout_threshold" <<'SQL'
CREATE TABLE documents (id bigint PRIMARY KEY, family integer, sig minhash(128));
SELECT bands, rows FROM lsh_index_layout(:layout_threshold, 128) \gset
CREATE VIEW documents_lsh AS
SELECT id, minhash_size(sig) AS size, minhash_bands(sig, :bands, :rows) AS band_keys FROM documents;
SQL
    done
    psql_node 0 -q <<'SQL'
CREATE TABLE documents (id bigint NOT NULL, family integer, sig minhash(128)) PARTITION BY HASH (id);
CREATE FOREIGN TABLE documents_1 PARTITION OF documents FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard1 OPTIONS (table_name 'documents');
CREATE FOREIGN TABLE documents_2 PARTITION OF documents FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard2 OPTIONS (table_name 'documents');
CREATE TABLE documents_lsh (id bigint NOT NULL, size bigint, band_keys bigint[]) PARTITION BY HASH (id);
CREATE FOREIGN TABLE documents_lsh_1 PARTITION OF documents_lsh FOR VALUES WITH (MODULUS 2, REMAINDER 0)
	SERVER shard1 OPTIONS (table_name 'documents_lsh');
CREATE FOREIGN TABLE documents_lsh_2 PARTITION OF documents_lsh FOR VALUES WITH (MODULUS 2, REMAINDER 1)
	SERVER shard2 OPTIONS (table_name 'documents_lsh');
SQL
}

# Each shard's LSH index (gin_minhash_ops, default layout), then statistics
# everywhere (the coordinator samples the shards through the foreign tables).
shard_documents_index() {
    local i
    for i in 1 2; do
        psql_node "$i" -q -c "SET maintenance_work_mem = '512MB'" \
            -c 'CREATE INDEX documents_sig ON documents USING gin (sig)' \
            -c 'VACUUM ANALYZE documents'
    done
    psql_node 0 -q -c 'ANALYZE documents'
}
