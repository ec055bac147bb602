// node-postgres against minhash (run by test/clients/clients.sh).
//
// Connects where the PG* variables point, to a database holding the suite's
// fixture: documents(id bigint, body text, sig minhash(128)) with 2,000
// rows, a GIN index documents_sig_idx, and near-duplicate pairs (i, i + 1000)
// for i in 1..10. Checks:
//   0. `binary: true` corrupts minhash values, a binary type parser too,
//   1. text round trip of every signature,
//   2. the document as a bound parameter,
//   3. a named (prepared) query run 10 times: generic plan, index scan each time,
//   4. the binary recipe: minhash_send() as a Buffer, a Buffer sent back as $1::minhash.
// Prints one line per check; exits 1 if any failed.
import pg from 'pg';

const failed = [];
function check(ok, what, got) {
  console.log((ok ? 'ok     ' : 'FAILED ') + what + (ok || got === undefined ? '' : ` (got ${JSON.stringify(got)})`));
  if (!ok) failed.push(what);
}

const ids = (result) => result.rows.map((r) => Number(r.id));
const sameList = (a, b) => JSON.stringify(a) === JSON.stringify(b);

// Ids at resemblance >= 0.8 to docId's signature, by a sequential scan.
async function expectedNear(client, docId) {
  const r = await client.query(
    'SELECT id FROM documents WHERE resemblance(sig, (SELECT sig FROM documents WHERE id = $1)) >= 0.8 ORDER BY id',
    [docId],
  );
  return ids(r);
}

// What `binary: true` does to a minhash value (and to a bytea one).
async function binaryTrueCorrupts(client) {
  const { rows: [want] } = await client.query(
    'SELECT minhash_send(sig) AS bytes FROM documents WHERE id = 1',
  );
  const query = {
    text: 'SELECT sig, minhash_send(sig) AS bytes FROM documents WHERE id = $1',
    values: [1],
    binary: true,
  };
  const { rows: [row] } = await client.query(query);
  check(typeof row.sig === 'string' && row.sig.includes('\uFFFD') && row.sig.length !== want.bytes.length,
    `binary: true: a minhash comes back as a string of ${row.sig.length} characters with U+FFFD `
    + `(${want.bytes.length} bytes sent)`);
  check(typeof row.bytes === 'string' && row.bytes.includes('\uFFFD'),
    'binary: true: even bytea (minhash_send) comes back as a corrupted string');

  const { rows: [{ oid }] } = await client.query("SELECT 'minhash'::regtype::oid AS oid");
  pg.types.setTypeParser(Number(oid), 'binary', (buf) => buf);
  try {
    const { rows: [parsed] } = await client.query(query);
    check(Buffer.isBuffer(parsed.sig) && !parsed.sig.equals(want.bytes),
      `binary: true + setTypeParser(oid, 'binary', buf => buf): a Buffer of ${parsed.sig.length} bytes, `
      + 'not the value sent (the text was decoded as UTF-8 first)');
    try {
      await client.query('SELECT $1::minhash AS sig', [parsed.sig]);
      check(false, 'binary: true: the corrupted Buffer sent back is refused');
    } catch (e) {
      check(e.code === '22P03', `binary: true: the corrupted Buffer sent back is refused: ${e.message} (${e.code}): ${e.detail}`, e.code);
    }
  } finally {
    pg.types.setTypeParser(Number(oid), 'binary', (val) => String(val)); // node-postgres's default
  }
}

async function textRoundTrip(client) {
  const { rows } = await client.query('SELECT id, sig FROM documents ORDER BY id');
  check(rows.every((r) => typeof r.sig === 'string' && r.sig.startsWith('v1:words:')),
    `text: ${rows.length} signatures come back as strings in the text form`);
  await client.query('BEGIN');
  await client.query('CREATE TEMP TABLE text_copy (id bigint, sig minhash)');
  for (const r of rows) {
    await client.query('INSERT INTO text_copy (id, sig) VALUES ($1, $2)', [r.id, r.sig]);
  }
  const { rows: [{ same }] } = await client.query(
    'SELECT count(*)::int AS same FROM documents d JOIN text_copy c USING (id) '
    + 'WHERE minhash_send(d.sig) = minhash_send(c.sig)',
  );
  check(same === rows.length && same === 2000,
    `text: ${same} of ${rows.length} signatures sent back as parameters are identical`);
  await client.query('ROLLBACK');
}

async function boundParameters(client) {
  const { rows: [{ body }] } = await client.query('SELECT body FROM documents WHERE id = 3');
  const want = await expectedNear(client, 3);
  check(sameList(want, [3, 1003]), 'fixture: document 3 and its near-duplicate 1003', want);
  let got = ids(await client.query(
    'SELECT id FROM documents WHERE resembles(sig, minhash($1::text), 0.8) ORDER BY id', [body]));
  check(sameList(got, want), 'bound parameter: resembles(sig, minhash($1::text), 0.8)', got);
  got = ids(await client.query(
    'SELECT id FROM documents WHERE sig % minhash($1::text) ORDER BY id', [body]));
  check(sameList(got, want), 'bound parameter: sig % minhash($1::text)', got);
  // node-postgres sends a string untyped: minhash($1) must resolve without a cast.
  got = ids(await client.query(
    'SELECT id FROM documents WHERE resembles(sig, minhash($1), 0.8) ORDER BY id', [body]));
  check(sameList(got, want), 'bound parameter, untyped: resembles(sig, minhash($1), 0.8)', got);
}

// documents_sig_idx's idx_scan, this session's counts flushed first
// (PostgreSQL 15+: pg_stat_force_next_flush; outside a transaction block).
async function indexScans(client) {
  await client.query('SELECT pg_stat_force_next_flush()');
  const { rows: [{ n }] } = await client.query(
    "SELECT coalesce(sum(idx_scan), 0)::int AS n FROM pg_stat_user_indexes WHERE indexrelname = 'documents_sig_idx'",
  );
  return n;
}

async function preparedLookup(client) {
  const { rows: [{ sig }] } = await client.query('SELECT sig FROM documents WHERE id = 4');
  const want = await expectedNear(client, 4);
  const version = Number((await client.query('SHOW server_version_num')).rows[0].server_version_num);
  const before = version >= 150000 ? await indexScans(client) : null;
  const results = [];
  for (let i = 0; i < 10; i++) {
    results.push(ids(await client.query({
      name: 'near_dupes',
      text: 'SELECT id FROM documents WHERE resembles(sig, $1::minhash, 0.8) ORDER BY id',
      values: [sig],
    })));
  }
  check(results.every((r) => sameList(r, want)), `prepared: 10 runs each return ${JSON.stringify(want)}`, results);
  if (before !== null) {
    const scans = (await indexScans(client)) - before;
    check(scans === 10, 'prepared: the 10 runs scanned documents_sig_idx 10 times', scans);
  }
  if (version >= 140000) {
    const { rows: [{ generic }] } = await client.query(
      "SELECT generic_plans::int AS generic FROM pg_prepared_statements WHERE name = 'near_dupes'",
    );
    check(generic >= 1, `prepared: near_dupes ran a generic plan (generic_plans = ${generic})`, generic);
  }
  const literal = client.escapeLiteral(sig);
  const plan = (await client.query(`EXPLAIN EXECUTE near_dupes(${literal})`)).rows
    .map((r) => r['QUERY PLAN']).join('\n');
  check(plan.includes('Bitmap Index Scan on documents_sig_idx') && plan.includes('$1'),
    'prepared: the cached plan is generic ($1) and scans documents_sig_idx', plan);
}

async function binaryRecipe(client) {
  const { rows: [one] } = await client.query(
    'SELECT minhash_send(sig) AS bytes, minhash_num_perm(sig) AS n FROM documents WHERE id = 1',
  );
  check(Buffer.isBuffer(one.bytes) && one.bytes.readUInt32BE(12) === one.n && one.bytes.length === 24 + 4 * one.n,
    `binary: minhash_send() is a Buffer of ${one.bytes.length} bytes, n = ${one.n} at offset 12`);
  const { rows: [{ same }] } = await client.query(
    'SELECT sig = $1::minhash AS same FROM documents WHERE id = 1', [one.bytes]);
  check(same === true, 'binary: a Buffer parameter read by $1::minhash is the same signature', same);

  const { rows } = await client.query('SELECT id, minhash_send(sig) AS bytes FROM documents ORDER BY id');
  await client.query('BEGIN');
  await client.query('CREATE TEMP TABLE binary_copy (id bigint, sig minhash)');
  for (const r of rows) {
    await client.query('INSERT INTO binary_copy (id, sig) VALUES ($1, $2::minhash)', [r.id, r.bytes]);
  }
  const { rows: [{ n }] } = await client.query(
    'SELECT count(*)::int AS n FROM documents d JOIN binary_copy c USING (id) '
    + 'WHERE minhash_send(d.sig) = minhash_send(c.sig) AND d.sig::text = c.sig::text',
  );
  check(n === 2000, `binary round trip through Buffers: ${n} of 2000 signatures identical`);
  await client.query('ROLLBACK');
}

// Each group of checks on a connection of its own; an exception is a failed
// check, and the other groups still run.
for (const checks of [binaryTrueCorrupts, textRoundTrip, boundParameters, preparedLookup, binaryRecipe]) {
  const client = new pg.Client();
  try {
    await client.connect();
    await checks(client);
  } catch (e) {
    check(false, `${checks.name}: ${e.message}`);
  } finally {
    await client.end();
  }
}
const version = JSON.parse(
  (await import('node:fs')).readFileSync(new URL('./node_modules/pg/package.json', import.meta.url)),
).version;
console.log(`node-postgres ${version}: ${failed.length ? `${failed.length} check(s) failed` : 'all checks passed'}`);
process.exit(failed.length ? 1 : 0);
