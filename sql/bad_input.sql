-- Bad input: every SQL entry point of the extension against every class of
-- bad input that applies to it, as one table.  Each case is one query; a
-- helper runs it in a subtransaction that is always rolled back (so a case
-- that creates, sets or inserts leaves nothing behind) and reports either
-- the SQLSTATE, message and detail of the error, or 00000 and the first
-- column of the first row.  A backend crash or a hang fails the whole test.

-- Fixtures: signatures of 16 values, a row without a signature, and tables
-- of the shapes the grouping functions must refuse.
CREATE TABLE bad_input_docs (id int PRIMARY KEY, body text, sig minhash(16), flag int, checked boolean);
INSERT INTO bad_input_docs
SELECT i, b, minhash(b, 16), NULL, NULL
  FROM (VALUES (1, 'the quick brown fox jumps over the lazy dog'),
               (2, 'the quick brown fox jumps over the lazy dog again'),
               (3, 'an entirely different sentence about something else')) AS v(i, b);
INSERT INTO bad_input_docs VALUES (4, 'no signature yet', NULL, NULL, NULL);
CREATE TABLE bad_input_mixed (id int, sig minhash);
INSERT INTO bad_input_mixed VALUES (1, minhash('a b c'::text, 16)), (2, minhash('a b c'::text, 32));
CREATE TABLE bad_input_empty (id int, sig minhash);
CREATE VIEW bad_input_view AS SELECT id, sig FROM bad_input_docs;
CREATE TABLE bad_input_parted (id int, sig minhash) PARTITION BY RANGE (id);
CREATE TABLE bad_input_nokey (sig minhash, flag int);
CREATE TABLE bad_input_generated (id int PRIMARY KEY, body text,
								  sig minhash GENERATED ALWAYS AS (minhash(body, 16)) STORED, flag int);
CREATE TABLE bad_input_groups AS SELECT * FROM near_dupe_groups('bad_input_docs', 'id', 'sig', 0.5);

-- Binary input: COPY BINARY encodes a bytea and any other varlena alike
-- (a length, then the bytes), so a payload written from a bytea column is
-- read back by the receive function of the target column's type.
CREATE FUNCTION bad_input_receive(payload bytea, column_type text DEFAULT 'minhash') RETURNS text
LANGUAGE plpgsql AS $$
DECLARE
	received text;
	payload_file text := format('/tmp/minhash_regress_%s_bad_input.bin', current_setting('port'));
BEGIN
	CREATE TEMP TABLE bad_input_payload (bytes bytea);
	INSERT INTO bad_input_payload VALUES (payload);
	EXECUTE format('COPY bad_input_payload TO %L (FORMAT binary)', payload_file);
	EXECUTE format('CREATE TEMP TABLE bad_input_received (value %s)', column_type);
	EXECUTE format('COPY bad_input_received FROM %L (FORMAT binary)', payload_file);
	EXECUTE 'SELECT value::text FROM bad_input_received' INTO received;
	DROP TABLE bad_input_payload, bad_input_received;
	RETURN received;
END $$;

-- One case: its outcome, and nothing else of it survives.
CREATE FUNCTION bad_input_outcome(query text, OUT state text, OUT outcome text, OUT detail text)
LANGUAGE plpgsql AS $$
DECLARE
	result text;
	found_rows bigint;
	succeeded boolean := false;
BEGIN
	BEGIN
		EXECUTE query INTO result;
		GET DIAGNOSTICS found_rows = ROW_COUNT;
		succeeded := true;
		RAISE EXCEPTION 'roll the case back';
	EXCEPTION WHEN others THEN
		IF succeeded THEN
			state := '00000';
			outcome := CASE WHEN found_rows = 0 THEN '(no rows)' ELSE coalesce(result, '(null)') END;
		ELSE
			state := SQLSTATE;
			outcome := SQLERRM;
			GET STACKED DIAGNOSTICS detail = PG_EXCEPTION_DETAIL;
			detail := nullif(detail, '');
		END IF;
	END;
END $$;

CREATE TABLE bad_input_cases (id int GENERATED ALWAYS AS IDENTITY, entry text, bad_input text, query text);

-- Text input of minhash.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_in', 'empty literal', $q$SELECT ''::minhash$q$),
('minhash_in', 'not a literal', $q$SELECT 'hello world'::minhash$q$),
('minhash_in', 'truncated header', $q$SELECT 'v1:words:k=5'::minhash$q$),
('minhash_in', 'truncated value', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=2:0000000000000'::minhash$q$),
('minhash_in', 'no values', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=2:'::minhash$q$),
('minhash_in', 'trailing text', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=1:00000000:'::minhash$q$),
('minhash_in', 'unknown format version 2', $q$SELECT 'v2:words:k=5:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'format version 0', $q$SELECT 'v0:words:k=5:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'huge format version', $q$SELECT 'v99999999999999999999:words:k=5:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'unknown kind', $q$SELECT 'v1:shingles:k=5:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'num_perm 0', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=0:'::minhash$q$),
('minhash_in', 'num_perm negative', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=-1:00000000'::minhash$q$),
('minhash_in', 'num_perm 8193', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=8193:00000000'::minhash$q$),
('minhash_in', 'num_perm huge', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=99999999999:00000000'::minhash$q$),
('minhash_in', 'shingle size 0', $q$SELECT 'v1:words:k=0:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'shingle size 65', $q$SELECT 'v1:chars:k=65:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'shingle size for a set', $q$SELECT 'v1:set:k=5:seed=0:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'seed out of range', $q$SELECT 'v1:words:k=5:seed=2147483648:size=1:n=1:00000000'::minhash$q$),
('minhash_in', 'size negative', $q$SELECT 'v1:words:k=5:seed=0:size=-1:n=1:00000000'::minhash$q$),
('minhash_in', 'size over 2^64', $q$SELECT 'v1:words:k=5:seed=0:size=18446744073709551616:n=1:00000000'::minhash$q$),
('minhash_in', 'estimated size 0', $q$SELECT 'v1:words:k=5:seed=0:size~0:n=1:ffffffff'::minhash$q$),
('minhash_in', 'size 0 with values', $q$SELECT 'v1:words:k=5:seed=0:size=0:n=1:00000000'::minhash$q$),
('minhash_in', 'uppercase hex', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=1:ABCDEF01'::minhash$q$),
('minhash_in', 'NULL', $q$SELECT NULL::text::minhash$q$),
('minhash_in', 'largest size (valid)', $q$SELECT minhash_size('v1:words:k=5:seed=0:size=9223372036854775807:n=1:00000000'::minhash)$q$),
('minhash_in', 'size over bigint (valid, unreadable as bigint)', $q$SELECT minhash_size('v1:words:k=5:seed=0:size=18446744073709551615:n=1:00000000'::minhash)$q$);

-- The typmod and the length-coercion cast.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_typmod_in', 'minhash(0)', $q$SELECT NULL::minhash(0)$q$),
('minhash_typmod_in', 'minhash(-1)', $q$SELECT NULL::minhash(-1)$q$),
('minhash_typmod_in', 'minhash(8193)', $q$SELECT NULL::minhash(8193)$q$),
('minhash_typmod_in', 'two modifiers', $q$SELECT NULL::minhash(4, 5)$q$),
('minhash_typmod_in', 'not a number', $q$SELECT NULL::minhash(four)$q$),
('minhash_typmod_out', 'negative (no typmod)', $q$SELECT minhash_typmod_out(-5)::text = ''$q$),
('minhash_typmod_out', 'NULL', $q$SELECT minhash_typmod_out(NULL)$q$),
('minhash(minhash, integer, boolean)', 'cast to another num_perm', $q$SELECT minhash('a b c'::text, 8)::minhash(4)$q$),
('minhash(minhash, integer, boolean)', 'literal of another num_perm', $q$SELECT 'v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash(4)$q$),
('minhash(minhash, integer, boolean)', 'insert of another num_perm', $q$INSERT INTO bad_input_docs (id, sig) VALUES (100, minhash('a b c'::text, 32)) RETURNING id$q$),
('minhash(minhash, integer, boolean)', 'NULL', $q$SELECT NULL::minhash::minhash(4)$q$);

-- Binary input of minhash: the valid payload of minhash('binary input
-- test'::text, 2) is version 01, kind 00 (words), flags 00, reserved 00,
-- shingle size 0005, reserved 0000, seed 00000000, num_perm 00000002,
-- size 0000000000000001, then two values.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_recv', 'valid payload', $q$SELECT bad_input_receive('\x010000000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'empty payload', $q$SELECT bad_input_receive('\x')$q$),
('minhash_recv', 'one byte', $q$SELECT bad_input_receive('\x01')$q$),
('minhash_recv', 'header only', $q$SELECT bad_input_receive('\x010000000005000000000000000000020000000000000001')$q$),
('minhash_recv', 'truncated value', $q$SELECT bad_input_receive('\x010000000005000000000000000000020000000000000001015f33fe60bd')$q$),
('minhash_recv', 'trailing byte', $q$SELECT bad_input_receive('\x010000000005000000000000000000020000000000000001015f33fe60bdcbbc00')$q$),
('minhash_recv', 'format version 0', $q$SELECT bad_input_receive('\x000000000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'unknown format version 2', $q$SELECT bad_input_receive('\x020000000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'unknown format version 255', $q$SELECT bad_input_receive('\xff0000000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'unknown kind', $q$SELECT bad_input_receive('\x010300000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'unknown flag', $q$SELECT bad_input_receive('\x010080000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'reserved byte set', $q$SELECT bad_input_receive('\x010000010005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'reserved half-word set', $q$SELECT bad_input_receive('\x010000000005010000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'shingle size 0', $q$SELECT bad_input_receive('\x010000000000000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'shingle size 65', $q$SELECT bad_input_receive('\x010000000041000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'shingle size 65535', $q$SELECT bad_input_receive('\x01000000ffff000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'shingle size for a set', $q$SELECT bad_input_receive('\x010200000005000000000000000000020000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'num_perm 0', $q$SELECT bad_input_receive('\x010000000005000000000000000000000000000000000001')$q$),
('minhash_recv', 'num_perm 3, two values', $q$SELECT bad_input_receive('\x010000000005000000000000000000030000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'num_perm 8193', $q$SELECT bad_input_receive('\x010000000005000000000000000020010000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'num_perm 2^32-1', $q$SELECT bad_input_receive('\x010000000005000000000000ffffffff0000000000000001015f33fe60bdcbbc')$q$),
('minhash_recv', 'size 0 with values', $q$SELECT bad_input_receive('\x010000000005000000000000000000020000000000000000015f33fe60bdcbbc')$q$),
('minhash_recv', 'estimated size 0', $q$SELECT bad_input_receive('\x01000100000500000000000000000002000000000000000000ffffffffffffffff')$q$),
('minhash_recv', 'size 2^64-1 (valid, unreadable as bigint)', $q$SELECT minhash_size(bad_input_receive('\x010000000005000000000000000000020000000000000001015f33fe60bdcbbc'::bytea || ''::bytea)::minhash), minhash_size(bad_input_receive('\x01000000000500000000000000000002ffffffffffffffff015f33fe60bdcbbc')::minhash)$q$),
('minhash_recv', 'into minhash(4)', $q$SELECT bad_input_receive('\x010000000005000000000000000000020000000000000001015f33fe60bdcbbc', 'minhash(4)')$q$);

-- Output, binary output, accessors: STRICT, so NULL gives NULL.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_out', 'NULL', $q$SELECT minhash_out(NULL)$q$),
('minhash_send', 'NULL', $q$SELECT minhash_send(NULL)$q$),
('minhash_size', 'NULL', $q$SELECT minhash_size(NULL)$q$),
('minhash_size_is_estimated', 'NULL', $q$SELECT minhash_size_is_estimated(NULL)$q$),
('minhash_kind', 'NULL', $q$SELECT minhash_kind(NULL)$q$),
('minhash_shingle_size', 'NULL', $q$SELECT minhash_shingle_size(NULL)$q$),
('minhash_shingle_size', 'a set (no shingles)', $q$SELECT minhash_shingle_size(minhash(ARRAY['a'], 4))$q$),
('minhash_seed', 'NULL', $q$SELECT minhash_seed(NULL)$q$),
('minhash_num_perm', 'NULL', $q$SELECT minhash_num_perm(NULL)$q$);

-- Building signatures.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash(text)', 'num_perm 0', $q$SELECT minhash('a b c'::text, 0)$q$),
('minhash(text)', 'num_perm negative', $q$SELECT minhash('a b c'::text, -1)$q$),
('minhash(text)', 'num_perm 8193', $q$SELECT minhash('a b c'::text, 8193)$q$),
('minhash(text)', 'num_perm int max', $q$SELECT minhash('a b c'::text, 2147483647)$q$),
('minhash(text)', 'num_perm int min', $q$SELECT minhash('a b c'::text, -2147483648)$q$),
('minhash(text)', 'shingle_size 0', $q$SELECT minhash('a b c'::text, 4, 0)$q$),
('minhash(text)', 'shingle_size negative', $q$SELECT minhash('a b c'::text, 4, -1)$q$),
('minhash(text)', 'shingle_size 65', $q$SELECT minhash('a b c'::text, 4, 65)$q$),
('minhash(text)', 'shingle_size 65536', $q$SELECT minhash('a b c'::text, 4, 65536)$q$),
('minhash(text)', 'seed int min (valid)', $q$SELECT minhash_seed(minhash('a b c'::text, 4, 5, -2147483648))$q$),
('minhash(text)', 'NULL document', $q$SELECT minhash(NULL::text, 4)$q$),
('minhash(text)', 'NULL num_perm', $q$SELECT minhash('a b c'::text, NULL)$q$),
('minhash(text)', 'NULL shingle_size', $q$SELECT minhash('a b c'::text, 4, NULL)$q$),
('minhash(text)', 'NULL seed', $q$SELECT minhash('a b c'::text, 4, 5, NULL)$q$),
('minhash(text)', 'empty document', $q$SELECT minhash(''::text, 4)$q$),
('minhash(text)', 'no words', $q$SELECT minhash(' ...!!! -- '::text, 4)$q$),
('minhash(text)', 'one word', $q$SELECT minhash('hello'::text, 4)$q$),
('minhash(text)', 'one word, folded: one shingle', $q$SELECT minhash_size(minhash('Hello!'::text, 4)) = 1 AND minhash('Hello!'::text, 4) = minhash('hello'::text, 4)$q$),
('minhash(text)', 'largest parameters (valid)', $q$SELECT minhash_num_perm(minhash('a b'::text, 8192, 64))$q$),
('minhash_chars', 'q 0', $q$SELECT minhash_chars('abc', 0, 4)$q$),
('minhash_chars', 'q negative', $q$SELECT minhash_chars('abc', -1, 4)$q$),
('minhash_chars', 'q 65', $q$SELECT minhash_chars('abc', 65, 4)$q$),
('minhash_chars', 'num_perm 0', $q$SELECT minhash_chars('abc', 3, 0)$q$),
('minhash_chars', 'num_perm 8193', $q$SELECT minhash_chars('abc', 3, 8193)$q$),
('minhash_chars', 'NULL document', $q$SELECT minhash_chars(NULL, 3, 4)$q$),
('minhash_chars', 'NULL q', $q$SELECT minhash_chars('abc', NULL, 4)$q$),
('minhash_chars', 'empty document', $q$SELECT minhash_chars('', 3, 4)$q$),
('minhash_chars', 'one character', $q$SELECT minhash_size(minhash_chars('a', 3, 4))$q$),
('minhash(text[])', 'num_perm 0', $q$SELECT minhash(ARRAY['a'], 0)$q$),
('minhash(text[])', 'num_perm 8193', $q$SELECT minhash(ARRAY['a'], 8193)$q$),
('minhash(text[])', 'NULL element', $q$SELECT minhash(ARRAY['a', NULL], 4)$q$),
('minhash(text[])', 'NULL array', $q$SELECT minhash(NULL::text[], 4)$q$),
('minhash(text[])', 'empty array', $q$SELECT minhash(ARRAY[]::text[], 4)$q$),
('minhash(text[])', 'one empty string', $q$SELECT minhash_size(minhash(ARRAY[''], 4))$q$),
('minhash(text[])', 'two dimensions: one set of all elements', $q$SELECT minhash(ARRAY[['a', 'b'], ['c', 'd']], 4) = minhash(ARRAY['a', 'b', 'c', 'd'], 4)$q$),
('shingle_hashes', 'shingle_size 0', $q$SELECT shingle_hashes('a b c', 0)$q$),
('shingle_hashes', 'shingle_size 65', $q$SELECT shingle_hashes('a b c', 65)$q$),
('shingle_hashes', 'NULL', $q$SELECT shingle_hashes(NULL)$q$),
('shingle_hashes', 'empty document', $q$SELECT shingle_hashes('')$q$),
('shingle_hashes', 'one word', $q$SELECT cardinality(shingle_hashes('hello'))$q$),
('minhash_tokens', 'NULL', $q$SELECT minhash_tokens(NULL)$q$),
('minhash_tokens', 'empty document', $q$SELECT minhash_tokens('')$q$),
('minhash_tokens', 'no words', $q$SELECT minhash_tokens(' ...!!! -- ')$q$);

-- Comparing signatures built differently, NULLs, empty documents.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('resemblance', 'num_perm mismatch', $q$SELECT resemblance(minhash('a b c'::text, 4), minhash('a b c'::text, 8))$q$),
('resemblance', 'shingle_size mismatch', $q$SELECT resemblance(minhash('a b c'::text, 4, 5), minhash('a b c'::text, 4, 3))$q$),
('resemblance', 'seed mismatch', $q$SELECT resemblance(minhash('a b c'::text, 4, 5, 0), minhash('a b c'::text, 4, 5, 1))$q$),
('resemblance', 'kind mismatch (words, chars)', $q$SELECT resemblance(minhash('a b c'::text, 4, 5), minhash_chars('a b c', 5, 4))$q$),
('resemblance', 'kind mismatch (set, words)', $q$SELECT resemblance(minhash(ARRAY['a'], 4), minhash('a'::text, 4, 1))$q$),
('resemblance', 'NULL', $q$SELECT resemblance(minhash('a b c'::text, 4), NULL)$q$),
('resemblance', 'a document for a signature', $q$SELECT resemblance(minhash('a b c'::text, 4), 'a b c')$q$),
('<->', 'pgvector''s operator', $q$SELECT minhash('a b c'::text, 4) <-> minhash('a b c'::text, 4)$q$),
('resemblance', 'both empty', $q$SELECT resemblance(minhash(''::text, 4), minhash('...'::text, 4))$q$),
('resemblance', 'one empty', $q$SELECT resemblance(minhash(''::text, 4), minhash('a b c'::text, 4))$q$),
('containment', 'num_perm mismatch', $q$SELECT containment(minhash('a b c'::text, 4), minhash('a b c'::text, 8))$q$),
('containment', 'NULL', $q$SELECT containment(NULL, minhash('a b c'::text, 4))$q$),
('containment', 'empty in non-empty', $q$SELECT containment(minhash(''::text, 4), minhash('a b c'::text, 4))$q$),
('containment', 'non-empty in empty', $q$SELECT containment(minhash('a b c'::text, 4), minhash(''::text, 4))$q$),
('% (minhash_similar)', 'num_perm mismatch', $q$SELECT minhash('a b c'::text, 4) % minhash('a b c'::text, 8)$q$),
('% (minhash_similar)', 'NULL', $q$SELECT minhash('a b c'::text, 4) % NULL$q$),
('<%> (minhash_distance)', 'seed mismatch', $q$SELECT minhash('a b c'::text, 4) <%> minhash('a b c'::text, 4, 5, 9)$q$),
('<%> (minhash_distance)', 'NULL', $q$SELECT NULL <%> minhash('a b c'::text, 4)$q$),
('minhash_union', 'num_perm mismatch', $q$SELECT minhash_union(minhash('a b c'::text, 4), minhash('a b c'::text, 8))$q$),
('minhash_union', 'NULL', $q$SELECT minhash_union(minhash('a b c'::text, 4), NULL)$q$),
('minhash_union', 'empty with non-empty', $q$SELECT minhash_union(minhash(''::text, 4), minhash('a b c'::text, 4)) = minhash('a b c'::text, 4)$q$),
('= (minhash_eq)', 'different parameters: unequal, no error', $q$SELECT minhash('a b c'::text, 4) = minhash('a b c'::text, 8)$q$),
('= (minhash_eq)', 'NULL', $q$SELECT minhash('a b c'::text, 4) = NULL$q$),
('<> (minhash_ne)', 'different parameters', $q$SELECT minhash('a b c'::text, 4) <> minhash('a b c'::text, 4, 3)$q$),
('< (minhash_lt)', 'different lengths: byte order', $q$SELECT minhash('a b c'::text, 4) < minhash('a b c'::text, 8)$q$),
('<= (minhash_le)', 'different lengths: byte order', $q$SELECT minhash('a b c'::text, 4) <= minhash('a b c'::text, 8)$q$),
('> (minhash_gt)', 'different lengths: byte order', $q$SELECT minhash('a b c'::text, 4) > minhash('a b c'::text, 8)$q$),
('>= (minhash_ge)', 'NULL', $q$SELECT minhash('a b c'::text, 4) >= NULL$q$),
('minhash_cmp', 'different lengths: byte order', $q$SELECT sign(minhash_cmp(minhash('a b c'::text, 8), minhash('a b c'::text, 4)))$q$),
('minhash_cmp', 'NULL', $q$SELECT minhash_cmp(NULL, minhash('a b c'::text, 4))$q$),
('minhash_hash', 'NULL', $q$SELECT minhash_hash(NULL)$q$),
('minhash_hash_extended', 'NULL seed', $q$SELECT minhash_hash_extended(minhash('a b c'::text, 4), NULL)$q$);

-- The per-query threshold: minhash_query, its text and binary input, %>
-- and resembles().
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_query', 'threshold NaN', $q$SELECT minhash_query(minhash('a b c'::text, 4), 'NaN')$q$),
('minhash_query', 'threshold negative', $q$SELECT minhash_query(minhash('a b c'::text, 4), -0.1)$q$),
('minhash_query', 'threshold above 1', $q$SELECT minhash_query(minhash('a b c'::text, 4), 1.1)$q$),
('minhash_query', 'threshold infinite', $q$SELECT minhash_query(minhash('a b c'::text, 4), '-Infinity')$q$),
('minhash_query', 'NULL threshold', $q$SELECT minhash_query(minhash('a b c'::text, 4), NULL)$q$),
('minhash_query', 'threshold 0 and 1 (valid)', $q$SELECT minhash_query(minhash(''::text, 1), 0)::text || ' ' || minhash_query(minhash(''::text, 1), 1)::text$q$),
('minhash_query_in', 'no colon', $q$SELECT '0.5'::minhash_query$q$),
('minhash_query_in', 'empty threshold', $q$SELECT ':v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'threshold not a number', $q$SELECT 'half:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'threshold NaN', $q$SELECT 'NaN:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'threshold above 1', $q$SELECT '1.5:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'threshold negative', $q$SELECT '-0.5:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'threshold overflows', $q$SELECT '1e999:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'malformed signature', $q$SELECT '0.5:v2:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query$q$),
('minhash_query_in', 'no signature', $q$SELECT '0.5:'::minhash_query$q$),
('minhash_query_recv', 'valid payload', $q$SELECT bad_input_receive('\x3fe0000000000000010000000005000000000000000000020000000000000001015f33fe60bdcbbc', 'minhash_query')$q$),
('minhash_query_recv', 'empty payload', $q$SELECT bad_input_receive('\x', 'minhash_query')$q$),
('minhash_query_recv', 'truncated threshold', $q$SELECT bad_input_receive('\x3fe00000', 'minhash_query')$q$),
('minhash_query_recv', 'threshold only', $q$SELECT bad_input_receive('\x3fe0000000000000', 'minhash_query')$q$),
('minhash_query_recv', 'threshold NaN', $q$SELECT bad_input_receive('\x7ff8000000000000010000000005000000000000000000020000000000000001015f33fe60bdcbbc', 'minhash_query')$q$),
('minhash_query_recv', 'threshold infinite', $q$SELECT bad_input_receive('\x7ff0000000000000010000000005000000000000000000020000000000000001015f33fe60bdcbbc', 'minhash_query')$q$),
('minhash_query_recv', 'threshold 2', $q$SELECT bad_input_receive('\x4000000000000000010000000005000000000000000000020000000000000001015f33fe60bdcbbc', 'minhash_query')$q$),
('minhash_query_recv', 'corrupted signature', $q$SELECT bad_input_receive('\x3fe0000000000000020000000005000000000000000000020000000000000001015f33fe60bdcbbc', 'minhash_query')$q$),
('minhash_query_recv', 'trailing byte', $q$SELECT bad_input_receive('\x3fe0000000000000010000000005000000000000000000020000000000000001015f33fe60bdcbbc00', 'minhash_query')$q$),
('minhash_query_out', 'NULL', $q$SELECT minhash_query_out(NULL)$q$),
('minhash_query_send', 'NULL', $q$SELECT minhash_query_send(NULL)$q$),
('%> (minhash_query_match)', 'num_perm mismatch', $q$SELECT minhash('a b c'::text, 4) %> minhash_query(minhash('a b c'::text, 8), 0.5)$q$),
('%> (minhash_query_match)', 'NULL', $q$SELECT minhash('a b c'::text, 4) %> NULL$q$),
('resembles', 'threshold NaN', $q$SELECT resembles(minhash('a b c'::text, 4), minhash('a b c'::text, 4), 'NaN')$q$),
('resembles', 'threshold above 1', $q$SELECT resembles(minhash('a b c'::text, 4), minhash('a b c'::text, 4), 2)$q$),
('resembles', 'num_perm mismatch', $q$SELECT resembles(minhash('a b c'::text, 4), minhash('a b c'::text, 8), 0.5)$q$),
('resembles', 'NULL threshold', $q$SELECT resembles(minhash('a b c'::text, 4), minhash('a b c'::text, 4), NULL)$q$);

-- LSH banding.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_bands', 'bands 0', $q$SELECT minhash_bands(minhash('a b c'::text, 16), 0, 4)$q$),
('minhash_bands', 'rows 0', $q$SELECT minhash_bands(minhash('a b c'::text, 16), 4, 0)$q$),
('minhash_bands', 'bands negative', $q$SELECT minhash_bands(minhash('a b c'::text, 16), -4, 4)$q$),
('minhash_bands', 'bands x rows > num_perm', $q$SELECT minhash_bands(minhash('a b c'::text, 16), 5, 4)$q$),
('minhash_bands', 'bands x rows overflows', $q$SELECT minhash_bands(minhash('a b c'::text, 16), 2147483647, 2147483647)$q$),
('minhash_bands', 'NULL', $q$SELECT minhash_bands(minhash('a b c'::text, 16), NULL, 4)$q$),
('minhash_bands', 'bands x rows < num_perm (valid)', $q$SELECT cardinality(minhash_bands(minhash('a b c'::text, 16), 3, 5))$q$),
('lsh_probability', 'similarity NaN', $q$SELECT lsh_probability('NaN', 20, 5)$q$),
('lsh_probability', 'similarity negative', $q$SELECT lsh_probability(-0.1, 20, 5)$q$),
('lsh_probability', 'similarity above 1', $q$SELECT lsh_probability(1.1, 20, 5)$q$),
('lsh_probability', 'similarity infinite', $q$SELECT lsh_probability('Infinity', 20, 5)$q$),
('lsh_probability', 'bands 0', $q$SELECT lsh_probability(0.5, 0, 5)$q$),
('lsh_probability', 'rows negative', $q$SELECT lsh_probability(0.5, 20, -5)$q$),
('lsh_probability', 'bands 8193', $q$SELECT lsh_probability(0.5, 8193, 1)$q$),
('lsh_probability', 'bands and min_bands huge', $q$SELECT lsh_probability(0.5, 2147483647, 1, 1073741824)$q$),
('lsh_probability', 'rows int max', $q$SELECT lsh_probability(0.5, 20, 2147483647)$q$),
('lsh_probability', 'min_bands 0', $q$SELECT lsh_probability(0.5, 20, 5, 0)$q$),
('lsh_probability', 'min_bands > bands', $q$SELECT lsh_probability(0.5, 20, 5, 21)$q$),
('lsh_probability', 'NULL', $q$SELECT lsh_probability(NULL, 20, 5)$q$),
('lsh_probability', 'largest layout (valid)', $q$SELECT round(lsh_probability(0.5, 8192, 1, 4096)::numeric, 2)$q$),
('lsh_index_layout', 'threshold NaN', $q$SELECT lsh_index_layout('NaN')$q$),
('lsh_index_layout', 'threshold negative', $q$SELECT lsh_index_layout(-0.1)$q$),
('lsh_index_layout', 'threshold above 1', $q$SELECT lsh_index_layout(1.1)$q$),
('lsh_index_layout', 'threshold 0: no layout', $q$SELECT lsh_index_layout(0)$q$),
('lsh_index_layout', 'num_perm 0', $q$SELECT lsh_index_layout(0.8, 0)$q$),
('lsh_index_layout', 'num_perm 8193', $q$SELECT lsh_index_layout(0.8, 8193)$q$),
('lsh_index_layout', 'NULL', $q$SELECT lsh_index_layout(NULL)$q$),
('lsh_index_layout', 'threshold 1 (valid)', $q$SELECT lsh_index_layout(1)$q$),
('lsh_params', 'threshold NaN', $q$SELECT lsh_params('NaN', 128)$q$),
('lsh_params', 'threshold above 1', $q$SELECT lsh_params(1.5, 128)$q$),
('lsh_params', 'num_perm 0', $q$SELECT lsh_params(0.8, 0)$q$),
('lsh_params', 'num_perm 8193', $q$SELECT lsh_params(0.8, 8193)$q$),
('lsh_params', 'weight negative', $q$SELECT lsh_params(0.8, 128, -1, 1)$q$),
('lsh_params', 'weights both 0', $q$SELECT lsh_params(0.8, 128, 0, 0)$q$),
('lsh_params', 'weight NaN', $q$SELECT lsh_params(0.8, 128, 'NaN', 1)$q$),
('lsh_params', 'weight infinite', $q$SELECT lsh_params(0.8, 128, 'Infinity', 0)$q$),
('lsh_params', 'NULL', $q$SELECT lsh_params(0.8, NULL)$q$),
('lsh_params', 'huge weights (valid)', $q$SELECT (p.bands, p.rows)::text FROM lsh_params(0.8, 128, 1e308, 1e308) p$q$),
('lsh_params', 'largest num_perm (valid)', $q$SELECT (p.bands, p.rows)::text FROM lsh_params(0.8, 8192) p$q$);

-- The opclass options, checked at CREATE INDEX, and the layout checked
-- against the signatures at build time.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('gin_minhash_ops options', 'bands without rows', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = 4)); SELECT 'created'$q$),
('gin_minhash_ops options', 'rows without bands', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (rows = 4)); SELECT 'created'$q$),
('gin_minhash_ops options', 'bands, rows and threshold', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = 4, rows = 4, threshold = 0.5)); SELECT 'created'$q$),
('gin_minhash_ops options', 'bands negative', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = -1, rows = 4)); SELECT 'created'$q$),
('gin_minhash_ops options', 'bands 8193', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = 8193, rows = 1)); SELECT 'created'$q$),
('gin_minhash_ops options', 'bands not a number', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = many, rows = 1)); SELECT 'created'$q$),
('gin_minhash_ops options', 'threshold negative', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = -0.1)); SELECT 'created'$q$),
('gin_minhash_ops options', 'threshold above 1', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = 1.5)); SELECT 'created'$q$),
('gin_minhash_ops options', 'threshold NaN', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = 'NaN')); SELECT 'created'$q$),
('gin_minhash_ops options', 'key_bits 15', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (key_bits = 15)); SELECT 'created'$q$),
('gin_minhash_ops options', 'key_bits 33', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (key_bits = 33)); SELECT 'created'$q$),
('gin_minhash_ops options', 'unknown option', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (width = 4)); SELECT 'created'$q$),
('gin_minhash_ops options', 'bands x rows > num_perm of the rows', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = 8, rows = 4)); SELECT 'created'$q$),
('gin_minhash_ops options', 'bands x rows > num_perm of a new row', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (bands = 4, rows = 4)); INSERT INTO bad_input_mixed VALUES (0, NULL); CREATE INDEX ON bad_input_mixed USING gin (sig gin_minhash_ops (bands = 16, rows = 1)); INSERT INTO bad_input_mixed VALUES (3, minhash('a b c'::text, 8)) RETURNING id$q$),
('gin_minhash_ops options', 'threshold 0: no band layout', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = 0)); SET LOCAL enable_seqscan = off; SELECT count(*) FROM bad_input_docs WHERE sig %> minhash_query(minhash('x'::text, 16), 0)$q$),
('gin_minhash_ops support functions', 'called from SQL', $q$SELECT minhash_gin_options(NULL::text)$q$);

-- The setting read by %.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash.threshold', 'negative', $q$SET minhash.threshold = -0.1; SELECT current_setting('minhash.threshold')$q$),
('minhash.threshold', 'above 1', $q$SET minhash.threshold = 1.1; SELECT current_setting('minhash.threshold')$q$),
('minhash.threshold', 'NaN', $q$SET minhash.threshold = 'NaN'; SELECT current_setting('minhash.threshold')$q$),
('minhash.threshold', 'infinite', $q$SET minhash.threshold = 'Infinity'; SELECT current_setting('minhash.threshold')$q$),
('minhash.threshold', 'not a number', $q$SET minhash.threshold = 'high'; SELECT current_setting('minhash.threshold')$q$),
('minhash.threshold', 'empty', $q$SET minhash.threshold = ''; SELECT current_setting('minhash.threshold')$q$),
('minhash.threshold', 'unknown minhash setting', $q$SELECT current_setting('minhash.treshold')$q$),
('minhash.threshold', '0: every pair (valid)', $q$SET minhash.threshold = 0; SELECT minhash('a b c'::text, 4) % minhash('x y z'::text, 4)$q$),
('minhash.threshold', '1: identical only (valid)', $q$SET minhash.threshold = 1; SELECT minhash('a b c'::text, 4) % minhash('a b c'::text, 4)$q$);

-- The aggregate.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_union aggregate', 'mismatched signatures', $q$SELECT minhash_union(sig) FROM bad_input_mixed$q$),
('minhash_union aggregate', 'only NULLs', $q$SELECT minhash_union(sig) FROM bad_input_docs WHERE sig IS NULL$q$),
('minhash_union aggregate', 'no rows', $q$SELECT minhash_union(sig) FROM bad_input_empty$q$),
('minhash_union aggregate', 'NULLs skipped', $q$SELECT minhash_union(sig) = minhash_union(sig) FILTER (WHERE sig IS NOT NULL) FROM bad_input_docs$q$),
('minhash_union aggregate', 'only empty signatures', $q$SELECT minhash_union(s) FROM (VALUES (minhash(''::text, 4)), (minhash('!'::text, 4))) v(s)$q$);

-- The flagging trigger: arguments are checked when a row arrives.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash_flag_duplicates', 'called directly', $q$SELECT minhash_flag_duplicates()$q$),
('minhash_flag_duplicates', 'no arguments', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates(); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'two arguments', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'six arguments', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5', 'id', 'lock', 'id'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'unknown concurrency mode', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5', 'id', 'always'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'unknown column', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('signature', 'flag', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'quoted column name', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('"sig"', 'flag', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold NaN', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', 'NaN'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold negative', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '-0.1'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold above 1', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '1.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold infinite', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', 'inf'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold empty', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', ''); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold with trailing text', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5x'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'signature column not minhash', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('body', 'flag', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'flag column = signature column', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'sig', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'flag column cannot hold the key', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'checked', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'no primary key', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_nokey FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); INSERT INTO bad_input_nokey VALUES (minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'generated signature column', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_generated FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); INSERT INTO bad_input_generated (id, body) VALUES (1, 'x') RETURNING flag$q$),
('minhash_flag_duplicates', 'AFTER trigger', $q$CREATE TRIGGER flag AFTER INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'statement trigger', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH STATEMENT EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$),
('minhash_flag_duplicates', 'DELETE trigger', $q$CREATE TRIGGER flag BEFORE DELETE ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); DELETE FROM bad_input_docs WHERE id = 3 RETURNING id$q$),
('minhash_flag_duplicates', 'NULL signature, a later BEFORE trigger', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); CREATE TRIGGER later BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION suppress_redundant_updates_trigger(); INSERT INTO bad_input_docs VALUES (100, 'x', NULL, 7) RETURNING flag$q$),
('minhash_flag_duplicates', 'NULL signature: flag set to NULL', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0.5'); INSERT INTO bad_input_docs VALUES (100, 'x', NULL, 7) RETURNING flag$q$),
('minhash_flag_duplicates', 'threshold with spaces (valid)', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', ' 0.5 '); INSERT INTO bad_input_docs SELECT 100, body, sig FROM bad_input_docs WHERE id = 2 RETURNING flag$q$);

-- Grouping a table.  near_dupe_query, near_dupe_pairs and near_dupe_groups
-- are not STRICT: a NULL threshold means minhash.threshold.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('near_dupe_pairs', 'NULL table', $q$SELECT near_dupe_pairs(NULL, 'id', 'sig')$q$),
('near_dupe_pairs', 'NULL key column', $q$SELECT near_dupe_pairs('bad_input_docs', NULL, 'sig')$q$),
('near_dupe_pairs', 'NULL signature column', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', NULL)$q$),
('near_dupe_pairs', 'no such table', $q$SELECT near_dupe_pairs('bad_input_nowhere', 'id', 'sig')$q$),
('near_dupe_pairs', 'no such key column', $q$SELECT near_dupe_pairs('bad_input_docs', 'key', 'sig')$q$),
('near_dupe_pairs', 'no such signature column', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'signature')$q$),
('near_dupe_pairs', 'signature column not minhash', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'body')$q$),
('near_dupe_pairs', 'a view', $q$SELECT near_dupe_pairs('bad_input_view', 'id', 'sig')$q$),
('near_dupe_pairs', 'a partitioned table', $q$SELECT near_dupe_pairs('bad_input_parted', 'id', 'sig')$q$),
('near_dupe_pairs', 'threshold NaN', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', 'NaN')$q$),
('near_dupe_pairs', 'threshold negative', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', -0.1)$q$),
('near_dupe_pairs', 'threshold above 1', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', 1.1)$q$),
('near_dupe_pairs', 'threshold 0: no band layout', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', 0)$q$),
('near_dupe_pairs', 'threshold left out, minhash.threshold 0', $q$SET minhash.threshold = 0; SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig')$q$),
('near_dupe_pairs', 'mismatched signatures', $q$SELECT near_dupe_pairs('bad_input_mixed', 'id', 'sig')$q$),
('near_dupe_pairs', 'empty table', $q$SELECT near_dupe_pairs('bad_input_empty', 'id', 'sig')$q$),
('near_dupe_pairs', 'threshold left out: minhash.threshold', $q$SET minhash.threshold = 0.5; SELECT p::text FROM near_dupe_pairs('bad_input_docs', 'id', 'sig') p$q$),
('near_dupe_pairs', 'key type in the threshold''s place', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', NULL::int)$q$),
('near_dupe_pairs', 'NULL threshold, typed keys', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', NULL, NULL::int)$q$),
('near_dupe_groups', 'NULL table', $q$SELECT near_dupe_groups(NULL, 'id', 'sig')$q$),
('near_dupe_groups', 'key type in the threshold''s place', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', NULL::int)$q$),
('near_dupe_groups', 'NULL threshold, typed keys', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', NULL, NULL::int, 0.9)$q$),
('near_dupe_groups', 'recall without a key type', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', 0.5, recall => 0.99)$q$),
('near_dupe_groups', 'key column named in another case', $q$SELECT near_dupe_groups('bad_input_docs', 'ID', 'sig')$q$),
('near_dupe_groups', 'threshold NaN', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', 'NaN')$q$),
('near_dupe_groups', 'mismatched signatures', $q$SELECT near_dupe_groups('bad_input_mixed', 'id', 'sig')$q$),
('near_dupe_groups', 'a view', $q$SELECT near_dupe_groups('bad_input_view', 'id', 'sig')$q$),
('near_dupe_groups', 'NULL signature: a group of its own', $q$SELECT g::text FROM near_dupe_groups('bad_input_docs', 'id', 'sig', 0.5) g WHERE g.key = '4'$q$),
('near_dupe_query', 'NULL groups flag', $q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', 0.5, NULL)$q$),
('near_dupe_query', 'threshold above 1', $q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', 2)$q$),
('near_dupe_query', 'NULL threshold', $q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', NULL)$q$),
('near_dupe_group_walk', 'without OVER', $q$SELECT near_dupe_group_walk(NULL, NULL)$q$),
('near_dupe_group_walk', 'NULL rows take no part', $q$SELECT near_dupe_group_walk(NULL::tid, '(0,1)'::tid) OVER ()$q$),
('near_dupe_totals', 'NULL', $q$SELECT near_dupe_totals(NULL)$q$),
('near_dupe_totals', 'not a groups table', $q$SELECT near_dupe_totals('bad_input_docs')$q$),
('near_dupe_histogram', 'not a groups table', $q$SELECT near_dupe_histogram('bad_input_mixed')$q$),
('near_dupe_group_stats', 'NULL', $q$SELECT near_dupe_group_stats(NULL)$q$),
('near_dupe_review', 'no such group', $q$SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', 'id', 'body', 999)$q$),
('near_dupe_review', 'no such text column', $q$SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', 'id', 'text', 1)$q$),
('near_dupe_review', 'min_words 0', $q$SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', 'id', 'body', 1, 0)$q$),
('near_dupe_review', 'unknown format', $q$SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', 'id', 'body', 1, 5, 'xml')$q$),
('near_dupe_review', 'NULL group', $q$SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', 'id', 'body', NULL)$q$),
('near_dupe_group_stats', 'key_type of another type', $q$SELECT near_dupe_group_stats('bad_input_groups', NULL::int)$q$),
('near_dupe_group_stats', 'NULL table, typed pivot', $q$SELECT near_dupe_group_stats(NULL, NULL::text)$q$),
('near_dupe_review', 'key column not unique', $q$UPDATE bad_input_docs SET flag = (SELECT min(pivot)::int FROM bad_input_groups WHERE group_id = 1); SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', 'flag', 'body', 1)$q$),
('near_dupe_review', 'key column named with quotes', $q$SELECT near_dupe_review('bad_input_groups', 'bad_input_docs', '"id"', 'body', 1)$q$);

-- Explaining a match.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('shingle_resemblance', 'shingle_size 0', $q$SELECT shingle_resemblance('a b c', 'a b c', 0)$q$),
('shingle_resemblance', 'shingle_size 65', $q$SELECT shingle_resemblance('a b c', 'a b c', 65)$q$),
('shingle_resemblance', 'NULL', $q$SELECT shingle_resemblance(NULL, 'a b c')$q$),
('shingle_resemblance', 'both empty', $q$SELECT shingle_resemblance('', '...')$q$),
('shingle_resemblance', 'one empty', $q$SELECT shingle_resemblance('', 'a b c')$q$),
('shingle_resemblance', 'one word each', $q$SELECT shingle_resemblance('Hello', 'hello!')$q$),
('chunk_similarity', 'min_words 0', $q$SELECT chunk_similarity('a b c', 'a b c', 0)$q$),
('chunk_similarity', 'min_words negative', $q$SELECT chunk_similarity('a b c', 'a b c', -1)$q$),
('chunk_similarity', 'unknown matching', $q$SELECT chunk_similarity('a b c', 'a b c', 1, 'fuzzy')$q$),
('chunk_similarity', 'NULL', $q$SELECT chunk_similarity('a b c', NULL)$q$),
('chunk_similarity', 'both empty', $q$SELECT c::text FROM chunk_similarity('', '') c$q$),
('chunk_similarity', 'one empty', $q$SELECT c::text FROM chunk_similarity('', 'a b c', 1) c$q$),
('chunk_similarity', 'one word each', $q$SELECT c::text FROM chunk_similarity('Hello', 'hello!', 1) c$q$),
('common_chunks', 'min_words 0', $q$SELECT common_chunks('a b c', 'a b c', 0)$q$),
('common_chunks', 'NULL', $q$SELECT common_chunks(NULL, 'a b c')$q$),
('common_chunks', 'both empty', $q$SELECT common_chunks('', '', 1)$q$),
('highlight', 'min_words 0', $q$SELECT highlight('a b c', 'a b c', 0)$q$),
('highlight', 'unknown format', $q$SELECT highlight('a b c', 'a b c', 1, 'xml')$q$),
('highlight', 'NULL format', $q$SELECT highlight('a b c', 'a b c', 1, NULL)$q$),
('highlight', 'both empty', $q$SELECT h::text FROM highlight('', '', 1) h$q$),
('resemblance_interval', 'confidence 0', $q$SELECT resemblance_interval(minhash('a b c'::text, 4), minhash('a b c'::text, 4), 0)$q$),
('resemblance_interval', 'confidence 1', $q$SELECT resemblance_interval(minhash('a b c'::text, 4), minhash('a b c'::text, 4), 1)$q$),
('resemblance_interval', 'confidence NaN', $q$SELECT resemblance_interval(minhash('a b c'::text, 4), minhash('a b c'::text, 4), 'NaN')$q$),
('resemblance_interval', 'confidence negative', $q$SELECT resemblance_interval(minhash('a b c'::text, 4), minhash('a b c'::text, 4), -0.5)$q$),
('resemblance_interval', 'num_perm mismatch', $q$SELECT resemblance_interval(minhash('a b c'::text, 4), minhash('a b c'::text, 8))$q$),
('resemblance_interval', 'NULL', $q$SELECT resemblance_interval(minhash('a b c'::text, 4), NULL)$q$),
('resemblance_interval', 'both empty', $q$SELECT i::text FROM resemblance_interval(minhash(''::text, 4), minhash(''::text, 4)) i$q$);

-- A 200 MB document: 40 million copies of one word, so every shingle of
-- 5 words is the same one, and the signature is that of 5 words.  Text
-- comparison refuses it (more words than it can hold).
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('minhash(text)', '200 MB document', $q$SELECT minhash(repeat('word ', 40000000)) = minhash('word word word word word'::text)$q$),
('shingle_resemblance', '200 MB document', $q$SELECT shingle_resemblance(repeat('word ', 40000000), 'word')$q$),
('chunk_similarity', '200 MB document', $q$SELECT chunk_similarity('word', repeat('word ', 40000000))$q$);

-- A document where a signature belongs: a value of the wrong kind (42804),
-- in each comparison's own words; a minhash literal is read.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('resemblance(minhash, text)', 'document', $q$SELECT resemblance(minhash('a b c'::text, 4), 'a b c')$q$),
('% (minhash, text)', 'document', $q$SELECT minhash('a b c'::text, 4) % 'a b c'::text$q$),
('% (minhash, text)', 'document column', $q$SELECT sig % body FROM bad_input_docs WHERE id = 1$q$),
('% (minhash, text)', 'damaged literal', $q$SELECT minhash('a b c'::text, 4) % 'v1:words:k=5'::text$q$),
('% (minhash, text)', 'literal (valid)', $q$SELECT minhash('a b c'::text, 4) % minhash('a b c'::text, 4)::text$q$),
('% (minhash, text)', 'literal of other parameters', $q$SELECT minhash('a b c'::text, 4) % minhash('a b c'::text, 8)::text$q$),
('% (minhash, text)', 'NULL', $q$SELECT minhash('a b c'::text, 4) % NULL::text$q$),
('resembles(minhash, text, float8)', 'document', $q$SELECT resembles(minhash('a b c'::text, 4), 'a b c', 0.5)$q$),
('resembles(minhash, text, float8)', 'document column', $q$SELECT resembles(sig, body, 0.5) FROM bad_input_docs WHERE id = 1$q$),
('resembles(minhash, text, float8)', 'literal (valid)', $q$SELECT resembles(minhash('a b c'::text, 4), minhash('a b c'::text, 4)::text, 0.5)$q$),
('resembles(minhash, text, float8)', 'NULL', $q$SELECT resembles(minhash('a b c'::text, 4), NULL::text, 0.5)$q$),
('minhash_literal_signature', 'document, unrecognized caller', $q$SELECT minhash_internal.minhash_literal_signature('a b c', 'other')$q$),
('minhash_literal_signature', 'literal (valid)', $q$SELECT minhash_internal.minhash_literal_signature(minhash('a b c'::text, 4)::text, 'other') = minhash('a b c'::text, 4)$q$);

-- The approximate index's options, checked at CREATE INDEX; gin_minhash_ops
-- refuses a recall.
INSERT INTO bad_input_cases (entry, bad_input, query) VALUES
('gin_minhash_ops options', 'recall: another operator class', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = 0.5, recall = 0.99)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'threshold above 1', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (threshold = 1.5)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'recall 0', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (recall = 0)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'recall 1', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (recall = 1)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'recall NaN', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (recall = 'NaN')); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'key_bits 33', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (key_bits = 33)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'layout 2', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (layout = 2)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'bands: not an option', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (bands = 4, rows = 4)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'recall out of reach of 16 values', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (threshold = 0.05, recall = 0.999999)); SELECT 'created'$q$),
('gin_minhash_approx_ops options', 'no options (valid)', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops); SET LOCAL enable_seqscan = off; SELECT count(*) FROM bad_input_docs WHERE sig %~ minhash_query((SELECT sig FROM bad_input_docs WHERE id = 1), 0.9)$q$),
('gin_minhash_approx_ops options', 'exact query, not served (valid)', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops); SET LOCAL enable_seqscan = off; SELECT count(*) FROM bad_input_docs WHERE sig %> minhash_query((SELECT sig FROM bad_input_docs WHERE id = 1), 0)$q$),
('gin_minhash_approx_ops support', 'called from SQL', $q$SELECT minhash_gin_approx_options(NULL::text)$q$),
('resembles_approx', 'mismatched signatures', $q$SELECT resembles_approx(minhash('a b c'::text, 4), minhash('a b c'::text, 8), 0.5)$q$);

CREATE TABLE bad_input_outcomes AS
SELECT c.id, c.entry, c.bad_input, o.state AS sqlstate, o.outcome, o.detail
  FROM bad_input_cases c, bad_input_outcome(c.query) o;
SELECT * FROM bad_input_outcomes ORDER BY id;

-- The matrix in numbers: errors by SQLSTATE, and documented results (00000).
SELECT sqlstate, count(*) AS cases FROM bad_input_outcomes GROUP BY sqlstate ORDER BY sqlstate;

-- One threshold check: every entry point that takes a resemblance threshold
-- refuses one outside [0, 1] with the same SQLSTATE, message and detail
-- (minhash_check_threshold in C; near_dupe_check, for the grouping
-- functions, in SQL).  One row per bad value means they all agree.  The
-- setting minhash.threshold and the index option threshold are range-checked
-- by PostgreSQL itself, with the same SQLSTATE and its own message.
CREATE FUNCTION bad_input_threshold_cases(t text) RETURNS TABLE (entry text, query text)
LANGUAGE sql AS $f$
VALUES
('minhash_query', format($q$SELECT minhash_query(minhash('a b c'::text, 4), %L)$q$, t)),
('minhash_query_in', format($q$SELECT %L::minhash_query$q$, t || ':v1:words:k=5:seed=0:size=1:n=1:00000000')),
('minhash_query_recv', format($q$SELECT bad_input_receive(%L, 'minhash_query')$q$,
	float8send(t::float8) || '\x010000000005000000000000000000020000000000000001015f33fe60bdcbbc'::bytea)),
('resembles', format($q$SELECT resembles(minhash('a b c'::text, 4), minhash('a b c'::text, 4), %L)$q$, t)),
('resembles (text)', format($q$SELECT resembles(minhash('a b c'::text, 4), %L, %L)$q$, minhash('a b c'::text, 4)::text, t)),
('lsh_index_layout', format($q$SELECT lsh_index_layout(%L)$q$, t)),
('lsh_params', format($q$SELECT lsh_params(%L, 16)$q$, t)),
('minhash_flag_duplicates', format($q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', %L); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$, t)),
('near_dupe_pairs', format($q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', %L)$q$, t)),
('near_dupe_groups', format($q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', %L)$q$, t)),
('near_dupe_query', format($q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', %L)$q$, t)),
('near_dupe_query (groups)', format($q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', %L, true)$q$, t))
$f$;
SELECT t AS threshold, o.state AS sqlstate, o.outcome, o.detail, count(*) AS entry_points,
       string_agg(c.entry, ', ' ORDER BY c.entry) AS entries
  FROM unnest(ARRAY['1.5', '1.0000001', '-0.25', 'NaN', 'Infinity']) t, bad_input_threshold_cases(t) c, bad_input_outcome(c.query) o
 GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3;
SELECT o.* FROM bad_input_outcome($q$SET minhash.threshold = 1.5$q$) o
UNION ALL
SELECT o.* FROM bad_input_outcome($q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = 1.5))$q$) o;

-- Threshold 0, one rule: everything that chooses a band layout (the index
-- options of both operator classes, lsh_index_layout, near_dupe_pairs,
-- near_dupe_groups, near_dupe_query and its check, a NULL threshold with
-- minhash.threshold at 0 included) refuses it with one SQLSTATE, message and
-- detail (minhash_check_layout_threshold in C, near_dupe_check in SQL);
-- plain comparisons take it, every pair qualifying.
CREATE FUNCTION bad_input_layout_threshold_cases() RETURNS TABLE (entry text, query text)
LANGUAGE sql AS $f$
VALUES
('lsh_index_layout', $q$SELECT lsh_index_layout(0)$q$),
('lsh_index_layout (recall)', $q$SELECT lsh_index_layout(0, 128, 0.99)$q$),
('gin_minhash_ops threshold', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_ops (threshold = 0))$q$),
('gin_minhash_approx_ops threshold', $q$CREATE INDEX ON bad_input_docs USING gin (sig gin_minhash_approx_ops (threshold = 0))$q$),
('near_dupe_pairs', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', 0)$q$),
('near_dupe_pairs (typed)', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', 0, NULL::int)$q$),
('near_dupe_pairs (recall)', $q$SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig', 0, NULL::int, 0.99)$q$),
('near_dupe_pairs (setting)', $q$SET minhash.threshold = 0; SELECT near_dupe_pairs('bad_input_docs', 'id', 'sig')$q$),
('near_dupe_groups', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', 0)$q$),
('near_dupe_groups (typed)', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', 0, NULL::int)$q$),
('near_dupe_groups (recall)', $q$SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', 0, NULL::int, 0.99)$q$),
('near_dupe_groups (setting)', $q$SET minhash.threshold = 0; SELECT near_dupe_groups('bad_input_docs', 'id', 'sig')$q$),
('near_dupe_groups (recall, setting)', $q$SET minhash.threshold = 0; SELECT near_dupe_groups('bad_input_docs', 'id', 'sig', NULL, NULL::int, 0.99)$q$),
('near_dupe_query', $q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', 0)$q$),
('near_dupe_query (groups)', $q$SELECT near_dupe_query('bad_input_docs', 'id', 'sig', 0, true)$q$),
('near_dupe_query (setting)', $q$SET minhash.threshold = 0; SELECT near_dupe_query('bad_input_docs', 'id', 'sig')$q$),
('near_dupe_check', $q$SELECT near_dupe_check('bad_input_docs', 'id', 'sig', 0)$q$)
$f$;
SELECT c.entry, o.state AS sqlstate, o.outcome
  FROM bad_input_layout_threshold_cases() c, bad_input_outcome(c.query) o
 ORDER BY 1;
SELECT count(DISTINCT (o.state, o.outcome, o.detail)) AS distinct_errors
  FROM bad_input_layout_threshold_cases() c, bad_input_outcome(c.query) o;
SELECT c.entry, o.state AS sqlstate, o.outcome
  FROM (VALUES
	('minhash_query', $q$SELECT minhash_query(minhash('a b c'::text, 4), 0)::text$q$),
	('minhash_query_in', $q$SELECT '0:v1:words:k=5:seed=0:size=1:n=1:00000000'::minhash_query::text$q$),
	('resembles', $q$SELECT resembles(minhash('a b c'::text, 4), minhash('x y z'::text, 4), 0)$q$),
	('resembles_approx', $q$SELECT resembles_approx(minhash('a b c'::text, 4), minhash('x y z'::text, 4), 0)$q$),
	('% with minhash.threshold 0', $q$SET minhash.threshold = 0; SELECT minhash('a b c'::text, 4) % minhash('x y z'::text, 4)$q$),
	('minhash_flag_duplicates', $q$CREATE TRIGGER flag BEFORE INSERT ON bad_input_docs FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'flag', '0'); INSERT INTO bad_input_docs VALUES (100, 'x', minhash('x'::text, 16)) RETURNING flag$q$)
  ) c(entry, query), bad_input_outcome(c.query) o
 ORDER BY 1;

DROP VIEW bad_input_view;
DROP TABLE bad_input_cases, bad_input_outcomes, bad_input_docs, bad_input_mixed, bad_input_empty, bad_input_parted,
	bad_input_nokey, bad_input_generated, bad_input_groups;
DROP FUNCTION bad_input_outcome(text), bad_input_receive(bytea, text), bad_input_threshold_cases(text),
	bad_input_layout_threshold_cases();
