-- Text and binary input/output.

-- The text form shows how the signature was built, and round-trips exactly.
SELECT minhash('The quick brown fox jumps over the lazy dog'::text, 8);
SELECT minhash_chars('The quick brown fox', 4, 8, -7);
SELECT minhash(ARRAY['red', 'green', 'blue'], 8, 42);
SELECT minhash(''::text, 4) AS empty_document;
CREATE TABLE io_docs (id int, doc text, sig minhash);
INSERT INTO io_docs
SELECT i, d, minhash(d, 64)
  FROM (SELECT i, string_agg(md5((i * 31 + j)::text), ' ') AS d
          FROM generate_series(1, 50) i, generate_series(1, i) j GROUP BY i) s;
INSERT INTO io_docs VALUES (51, '', minhash(''::text, 64));
SELECT count(*) AS round_trips FROM io_docs WHERE sig::text::minhash = sig AND sig::text::minhash::text = sig::text;

-- Every malformed literal is refused with what is wrong.
\set VERBOSITY default
SELECT ''::minhash;
SELECT 'w1:words:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'vx:words:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v2:words:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v0:words:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:word:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=0:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=65:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=05:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=+5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:set:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=-0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=2147483648:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=-2147483649:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size=18446744073709551616:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size~0:n=1:ffffffff'::minhash;
SELECT 'v1:words:k=5:seed=0:size:1:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=0:'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=8193:00000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=2:00000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=1:000000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=1:0000000G'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=1:ABCDEF01'::minhash;
SELECT 'v1:words:k=5:seed=0:size=0:n=1:00000000'::minhash;
SELECT ' v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=1:00000000 '::minhash;
SELECT 'v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash AS smallest_valid;
SELECT 'v1:chars:k=3:seed=-2147483648:size~12345:n=2:0123456789abcdef'::minhash AS extremes;

-- The typmod is the number of hash values, enforced on assignment and cast.
CREATE TABLE io_typed (sig minhash(16));
\d io_typed
INSERT INTO io_typed VALUES (minhash('one two three'::text, 16));
INSERT INTO io_typed VALUES (minhash('one two three'::text, 32));
INSERT INTO io_typed VALUES ('v1:words:k=5:seed=0:size=1:n=1:00000000');
SELECT minhash('one two three'::text, 16)::minhash(8);
SELECT minhash('one two three'::text, 16)::minhash(16) = minhash('one two three'::text, 16) AS same;
SELECT 'x'::text::minhash(0);
SELECT 'x'::text::minhash(8193);
SELECT NULL::minhash(4, 5);
SELECT format_type('minhash'::regtype, 128);

-- COPY BINARY round trip, through a file named after this cluster's port
-- (two test runs at once on one machine use two files).
\set io_file /tmp/minhash_regress_ :PORT _io.bin
COPY io_docs TO :'io_file' (FORMAT binary);
CREATE TABLE io_docs_copy (LIKE io_docs);
COPY io_docs_copy FROM :'io_file' (FORMAT binary);
SELECT count(*) AS copied, count(*) FILTER (WHERE a.sig = b.sig AND a.sig::text = b.sig::text) AS identical
  FROM io_docs a JOIN io_docs_copy b USING (id);
SELECT count(*) AS send_matches_layout FROM io_docs
 WHERE length(minhash_send(sig)) = 24 + 4 * 64;

-- Binary input validates every byte: a bytea column and a minhash column
-- have the same COPY BINARY encoding, so crafted payloads reach minhash_recv.
CREATE TABLE io_payloads (name text, payload bytea);
INSERT INTO io_payloads
SELECT 'valid', minhash_send(minhash('binary input test'::text, 2));
INSERT INTO io_payloads
SELECT name, overlay(p placing patch from pos)
  FROM (SELECT minhash_send(minhash('binary input test'::text, 2)) AS p) v,
       (VALUES ('unknown version', '\x02'::bytea, 1),
               ('unknown kind', '\x03'::bytea, 2),
               ('unknown flag', '\x80'::bytea, 3),
               ('reserved byte 3', '\x01'::bytea, 4),
               ('reserved byte 7', '\x01'::bytea, 8),
               ('shingle size 0', '\x0000'::bytea, 5),
               ('num_perm 0', '\x00000000'::bytea, 13),
               ('num_perm 3', '\x00000003'::bytea, 13),
               ('empty with values', '\x0000000000000000'::bytea, 17)) AS c(name, patch, pos);
INSERT INTO io_payloads
SELECT 'truncated', substr(minhash_send(minhash('binary input test'::text, 2)), 1, 20)
UNION ALL SELECT 'trailing', minhash_send(minhash('binary input test'::text, 2)) || '\x00'::bytea
UNION ALL SELECT 'empty', ''::bytea;
CREATE TABLE io_received (sig minhash);
CREATE FUNCTION io_receive(payload_name text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
	payload_file text := format('/tmp/minhash_regress_%s_payload.bin', current_setting('port'));
	detail text;
BEGIN
	EXECUTE format('COPY (SELECT payload FROM io_payloads WHERE name = %L) TO %L (FORMAT binary)',
				   payload_name, payload_file);
	EXECUTE format('COPY io_received FROM %L (FORMAT binary)', payload_file);
	RETURN 'accepted';
EXCEPTION WHEN others THEN
	GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
	RETURN SQLSTATE || ': ' || SQLERRM || ': ' || detail;
END $$;
SELECT name, io_receive(name) FROM io_payloads ORDER BY name;
SELECT count(*) AS received, bool_and(sig = minhash('binary input test'::text, 2)) AS intact FROM io_received;
