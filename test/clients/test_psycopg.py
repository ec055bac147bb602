"""psycopg 3 against minhash (run by test/clients/clients.sh).

Connects where the PG* variables point, to a database holding the suite's
fixture: documents(id bigint, body text, sig minhash(128)) with 2,000 rows, a
GIN index documents_sig_idx, and near-duplicate pairs (i, i + 1000) for i in
1..10. Checks, with the adapters of minhash_psycopg.py where binary is
involved:
  0. what happens without them (the reason for the recipe),
  1. text round trip of every signature,
  2. the document as a bound parameter,
  3. a prepared lookup run 10 times: generic plan, index scan each time,
  4. binary results, binary parameters and a binary COPY round trip.
Prints one line per check; exits 1 if any failed.
"""
import sys

import psycopg
from psycopg import errors, sql

from minhash_psycopg import MinHash, register_minhash

FAILED = []


def check(ok, what, got=None):
    print(("ok     " if ok else "FAILED ") + what + ("" if ok or got is None else f" (got {got!r})"))
    if not ok:
        FAILED.append(what)


def expected_near(conn, doc_id):
    """Ids at resemblance >= 0.8 to doc_id's signature, by a sequential scan."""
    return conn.execute(
        "SELECT array_agg(id ORDER BY id) FROM documents"
        " WHERE resemblance(sig, (SELECT sig FROM documents WHERE id = %s)) >= 0.8",
        [doc_id],
    ).fetchone()[0]


def without_adapters(conn):
    """What psycopg does with minhash in binary when nothing is registered."""
    value = conn.execute("SELECT sig FROM documents WHERE id = 1", binary=True).fetchone()[0]
    check(type(value) is bytes, "without adapters: a binary result is plain bytes", type(value))

    with conn.cursor() as cur:
        with cur.copy("COPY (SELECT id, sig FROM documents WHERE id <= 2) TO STDOUT (FORMAT BINARY)") as copy:
            rows = list(copy.rows())
        kinds = {type(v).__name__ for row in rows for v in row}
        check(kinds == {"memoryview"}, "without adapters: binary COPY rows are untyped memoryviews", kinds)
        try:
            with cur.copy("COPY (SELECT id, sig FROM documents) TO STDOUT (FORMAT BINARY)") as copy:
                copy.set_types(["int8", "minhash"])
            check(False, "without adapters: copy.set_types(['int8', 'minhash']) is refused")
        except KeyError as e:
            check(True, f"without adapters: copy.set_types(['int8', 'minhash']) is refused: {e}")
    conn.rollback()

    try:
        conn.execute("SELECT sig = %s FROM documents WHERE id = 1", [value])
        check(False, "without adapters: a bytes parameter is sent as bytea and refused")
    except errors.UndefinedFunction as e:
        check(True, "without adapters: a bytes parameter is sent as bytea and refused: "
              + str(e).splitlines()[0])
    conn.rollback()


def text_round_trip(conn):
    rows = conn.execute("SELECT id, sig FROM documents ORDER BY id").fetchall()
    check(all(type(s) is str and s.startswith("v1:words:") for _, s in rows),
          f"text: {len(rows)} signatures come back as str in the text form")
    conn.execute("CREATE TEMP TABLE text_copy (id bigint, sig minhash)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO text_copy (id, sig) VALUES (%s, %s)", rows)
    same = conn.execute(
        "SELECT count(*) FROM documents d JOIN text_copy c USING (id)"
        " WHERE minhash_send(d.sig) = minhash_send(c.sig)").fetchone()[0]
    check(same == len(rows) == 2000, f"text: {same} of {len(rows)} signatures sent back as parameters are identical")
    conn.rollback()


def bound_parameters(conn):
    body = conn.execute("SELECT body FROM documents WHERE id = 3").fetchone()[0]
    want = expected_near(conn, 3)
    check(want == [3, 1003], "fixture: document 3 and its near-duplicate 1003", want)
    got = [r[0] for r in conn.execute(
        "SELECT id FROM documents WHERE resembles(sig, minhash(%s::text), 0.8) ORDER BY id", [body])]
    check(got == want, "bound parameter: resembles(sig, minhash(%s::text), 0.8)", got)
    got = [r[0] for r in conn.execute(
        "SELECT id FROM documents WHERE sig %% minhash(%s::text) ORDER BY id", [body])]
    check(got == want, "bound parameter: sig % minhash(%s::text)", got)
    # psycopg sends a str untyped (oid 0): minhash(%s) must resolve without a cast.
    got = [r[0] for r in conn.execute(
        "SELECT id FROM documents WHERE resembles(sig, minhash(%s), 0.8) ORDER BY id", [body])]
    check(got == want, "bound parameter, untyped: resembles(sig, minhash(%s), 0.8)", got)
    conn.rollback()


def index_scans(conn):
    """documents_sig_idx's idx_scan, this session's counts flushed first
    (PostgreSQL 15+: pg_stat_force_next_flush; the connection is in autocommit)."""
    conn.execute("SELECT pg_stat_force_next_flush()")
    return int(conn.execute(
        "SELECT coalesce(sum(idx_scan), 0) FROM pg_stat_user_indexes"
        " WHERE indexrelname = 'documents_sig_idx'").fetchone()[0])


def prepared_lookup(conn):
    """Needs register_minhash(conn) and autocommit."""
    sig = conn.execute("SELECT sig FROM documents WHERE id = 4", binary=True).fetchone()[0]
    want = expected_near(conn, 4)
    query = "SELECT id FROM documents WHERE resembles(sig, %s, 0.8) ORDER BY id"
    version = conn.info.server_version
    before = index_scans(conn) if version >= 150000 else None
    results = [[r[0] for r in conn.execute(query, [sig], prepare=True)] for _ in range(10)]
    check(all(r == want for r in results), f"prepared: 10 runs each return {want}", results)
    if before is not None:
        scans = index_scans(conn) - before
        check(scans == 10, "prepared: the 10 runs scanned documents_sig_idx 10 times", scans)
    name, generic = conn.execute(
        "SELECT name, " + ("generic_plans" if version >= 140000 else "NULL")
        + " FROM pg_prepared_statements"
        " WHERE NOT from_sql AND statement LIKE '%resembles(sig, $1, 0.8)%'").fetchone()
    if generic is not None:
        check(generic >= 1, f"prepared: statement {name} ran a generic plan (generic_plans = {generic})", generic)
    text = conn.execute("SELECT sig::text FROM documents WHERE id = 4").fetchone()[0]
    plan = "\n".join(r[0] for r in conn.execute(
        sql.SQL("EXPLAIN EXECUTE {}({})").format(sql.Identifier(name), sql.Literal(text))))
    check("Bitmap Index Scan on documents_sig_idx" in plan and "$1" in plan,
          "prepared: the cached plan is generic ($1) and scans documents_sig_idx", plan)


def binary(conn):
    """Needs register_minhash(conn)."""
    sig = conn.execute("SELECT sig FROM documents WHERE id = 1", binary=True).fetchone()[0]
    sent = conn.execute("SELECT minhash_send(sig), sig::text FROM documents WHERE id = 1").fetchone()
    check(isinstance(sig, MinHash) and bytes(sig) == sent[0],
          "binary: a binary result is a MinHash holding minhash_send's bytes")
    hex_values = "".join(f"{v:08x}" for v in sig.values)
    check(sig.num_perm == 128 and sent[1].endswith(":n=128:" + hex_values),
          "binary: MinHash.num_perm and .values agree with the text form")
    same = conn.execute("SELECT sig = %s FROM documents WHERE id = 1", [sig]).fetchone()[0]
    check(same is True, "binary: a MinHash parameter is sent as a minhash", same)

    with conn.cursor() as cur:
        with cur.copy("COPY documents (id, sig) TO STDOUT (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "minhash"])
            rows = list(copy.rows())
        check(len(rows) == 2000 and all(isinstance(s, MinHash) and s.num_perm == 128 for _, s in rows),
              f"binary COPY out: {len(rows)} rows of MinHash")
        cur.execute("CREATE TEMP TABLE binary_copy (id bigint, sig minhash)")
        with cur.copy("COPY binary_copy (id, sig) FROM STDIN (FORMAT BINARY)") as copy:
            copy.set_types(["int8", "minhash"])
            for row in rows:
                copy.write_row(row)
    same = conn.execute(
        "SELECT count(*) FROM documents d JOIN binary_copy c USING (id)"
        " WHERE minhash_send(d.sig) = minhash_send(c.sig) AND d.sig::text = c.sig::text").fetchone()[0]
    check(same == 2000, f"binary COPY round trip: {same} of 2000 signatures identical")
    conn.rollback()


def section(name, autocommit, adapters, checks):
    """Runs one group of checks on a connection of its own; an exception is a
    failed check, and the other groups still run."""
    try:
        with psycopg.connect(autocommit=autocommit) as conn:
            if adapters:
                register_minhash(conn)
            checks(conn)
    except Exception as e:  # noqa: BLE001 (reported, counted as a failure)
        check(False, f"{name}: {type(e).__name__}: {e}")


def main():
    section("without adapters", False, False, without_adapters)
    section("text", False, False, text_round_trip)
    section("bound parameters", False, False, bound_parameters)
    section("prepared", True, True, prepared_lookup)
    section("binary", False, True, binary)
    print(f"psycopg {psycopg.__version__}: {len(FAILED)} check(s) failed" if FAILED
          else f"psycopg {psycopg.__version__}: all checks passed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
