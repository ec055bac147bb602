import pg from 'pg';

const client = new pg.Client(); // PGHOST, PGDATABASE, ... or a connection string
await client.connect();

// Text needs nothing: signatures are strings, documents are parameters.
const body = 'Please find below the summary of the third quarter budget review.';
let near = await client.query(
  'SELECT id FROM documents WHERE resembles(sig, minhash($1::text), 0.8)',
  [body],
);

// A prepared lookup is a named query: from the sixth run on, a generic plan
// that uses the index.
const { rows: [{ sig }] } = await client.query('SELECT sig FROM documents WHERE id = 1');
for (let i = 0; i < 10; i++) {
  near = await client.query({
    name: 'near_dupes',
    text: 'SELECT id FROM documents WHERE resembles(sig, $1::minhash, 0.8)',
    values: [sig],
  });
}

// Binary: never `binary: true` (node-postgres decodes binary values as UTF-8
// text, which corrupts them). minhash_send() gives the bytes as a Buffer, and
// a Buffer parameter goes to the server in binary, read by $1::minhash.
const { rows: [{ bytes }] } = await client.query(
  'SELECT minhash_send(sig) AS bytes FROM documents WHERE id = 1',
);
console.log(bytes.readUInt32BE(12), bytes.length); // 128 values, 24 + 4 * 128 bytes
await client.query('CREATE TEMP TABLE sigs (id bigint, sig minhash)');
await client.query('INSERT INTO sigs VALUES (1, $1::minhash)', [bytes]);

await client.end();
