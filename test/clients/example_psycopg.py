import psycopg

from minhash_psycopg import register_minhash

with psycopg.connect() as conn:  # PGHOST, PGDATABASE, ... or a conninfo string
    # Text needs nothing: signatures are str, documents are parameters.
    body = "Please find below the summary of the third quarter budget review."
    near = conn.execute(
        "SELECT id FROM documents WHERE resembles(sig, minhash(%s::text), 0.8)",
        [body],
    ).fetchall()

    # Binary needs the adapters (once per connection).
    register_minhash(conn)
    sig = conn.execute(
        "SELECT sig FROM documents WHERE id = 1", binary=True
    ).fetchone()[0]
    print(sig.num_perm, sig.values[:4])

    # A prepared lookup: from the sixth run on, a generic plan that uses the index.
    for _ in range(10):
        near = conn.execute(
            "SELECT id FROM documents WHERE resembles(sig, %s, 0.8)",
            [sig],
            prepare=True,
        ).fetchall()

    # COPY in binary: out of documents, into another table.
    conn.execute("CREATE TEMP TABLE sigs (id bigint, sig minhash)")
    with conn.cursor() as cur:
        with cur.copy("COPY documents (id, sig) TO STDOUT (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "minhash"])
            rows = list(copy.rows())
        with cur.copy("COPY sigs (id, sig) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "minhash"])
            for row in rows:
                copy.write_row(row)
