-- In-database mutation test of minhash's input functions (test/fuzz/fuzz_sql.sh).
-- Mutates valid signatures' text and binary forms, :text_count and
-- :binary_count times, and feeds each to minhash_in (a text cast) or to
-- minhash_recv (COPY ... FROM a binary file).  Every input must be either
-- accepted, and then be canonical (printing it gives back the same text,
-- sending it the same bytes), or refused with a data exception (SQLSTATE
-- class 22) whose message names the type.  Prints the outcomes by SQLSTATE;
-- fails on any other outcome.  A backend crash ends the session.
\set ON_ERROR_STOP 1
SET client_min_messages = warning;
SELECT setseed(:seed) AS seeded \gset

-- Valid signatures of every kind and several sizes.
CREATE TEMP TABLE fuzz_seed (sig minhash);
INSERT INTO fuzz_seed VALUES
    (minhash('The quick brown fox jumps over the lazy dog, again and again.'::text)),
    (minhash('short text'::text, 4, 1, -5)),
    (minhash(''::text, 3)),
    (minhash('Съешь же ещё этих мягких французских булок'::text, 1, 2, 2147483647)),
    (minhash(repeat('lorem ipsum dolor sit amet ', 40), 64, 3, -2147483648)),
    (minhash_chars('héllo wörld 日本語のテキスト'::text, 3, 16, 7)),
    (minhash_chars('x'::text, 64, 5)),
    (minhash(ARRAY['a', 'b', 'c', 'ünïcödé'], 8, 42)),
    (minhash(ARRAY[]::text[], 2)),
    ('v1:words:k=5:seed=0:size~5:n=2:0000000100000002'::minhash);

-- A text mutated one to three times: characters replaced, inserted or
-- deleted, truncated, fields duplicated or swapped, numbers changed (to
-- huge, negative, non-canonical ones), hex digits upper-cased or
-- non-hex, values added or dropped, unicode and control characters.
CREATE FUNCTION pg_temp.mutate_text(s text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    pieces text[] := ARRAY['0', '1', '9', 'a', 'f', 'g', 'A', 'F', ':', '=', '~', '-', '+', ' ',
        'v', 'v1:', 'v2:', 'k=', 'seed=', 'size=', 'size~', 'n=', 'words', 'chars', 'set', 'é', '€',
        '😀', '日本', E'\t', E'\n', E'\x01', '''', '"', '\', 'ffffffff', '00000000', 'x', '::'];
    numbers text[] := ARRAY['0', '1', '-1', '-0', '00', '01', '+1', '7', '64', '65', '8192', '8193',
        '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967295', '4294967296',
        '18446744073709551615', '18446744073709551616', '99999999999999999999999999', '1e3',
        '0x10', '', ' 5', '5 ', '١٢'];
    fields text[] := ARRAY['v', 'k=', 'seed=', 'size[=~]', 'n='];
    parts text[];
    pos int;
    i int;
    j int;
    tmp text;
BEGIN
    FOR r IN 1..1 + floor(random() * 3)::int LOOP
        pos := 1 + floor(random() * greatest(length(s), 1))::int;
        CASE floor(random() * 11)::int
            WHEN 0 THEN    -- replace a character
                s := overlay(s PLACING pieces[1 + floor(random() * array_length(pieces, 1))::int] FROM pos FOR 1);
            WHEN 1 THEN    -- insert
                s := overlay(s PLACING pieces[1 + floor(random() * array_length(pieces, 1))::int] FROM pos FOR 0);
            WHEN 2 THEN    -- delete a few characters
                s := overlay(s PLACING '' FROM pos FOR 1 + floor(random() * 4)::int);
            WHEN 3 THEN    -- truncate
                s := left(s, pos - 1);
            WHEN 4 THEN    -- duplicate a field
                parts := string_to_array(s, ':');
                i := 1 + floor(random() * array_length(parts, 1))::int;
                s := array_to_string(parts[1:i] || parts[i:], ':');
            WHEN 5 THEN    -- swap two fields
                parts := string_to_array(s, ':');
                i := 1 + floor(random() * array_length(parts, 1))::int;
                j := 1 + floor(random() * array_length(parts, 1))::int;
                tmp := parts[i]; parts[i] := parts[j]; parts[j] := tmp;
                s := array_to_string(parts, ':');
            WHEN 6, 7 THEN -- change a number
                s := regexp_replace(s, '(' || fields[1 + floor(random() * 5)::int] || ')[^:]*',
                                    '\1' || numbers[1 + floor(random() * array_length(numbers, 1))::int]);
            WHEN 8 THEN    -- hex digits: upper case, or a non-hex letter
                IF random() < 0.5 THEN
                    s := left(s, pos - 1) || upper(substr(s, pos));
                ELSE
                    s := overlay(s PLACING (ARRAY['g', 'G', 'z', ' ', 'ä'])[1 + floor(random() * 5)::int] FROM pos FOR 1);
                END IF;
            WHEN 9 THEN    -- one value more or fewer
                IF random() < 0.5 THEN s := s || 'ffffffff'; ELSE s := left(s, -8); END IF;
            ELSE           -- a random code point (no NUL, no surrogate)
                i := 1 + floor(random() * 55295)::int;
                IF random() < 0.3 THEN i := 57344 + floor(random() * (1114111 - 57344))::int; END IF;
                s := overlay(s PLACING chr(i) FROM pos FOR floor(random() * 2)::int);
        END CASE;
    END LOOP;
    RETURN s;
END
$$;

-- A binary form mutated one to three times: bits flipped, bytes set,
-- truncated, extended, header fields (version, kind, flags, reserved,
-- shingle size, seed, n, size) set to edge values, n made consistent with
-- a new length, emptied, doubled.
CREATE FUNCTION pg_temp.mutate_bytes(b bytea) RETURNS bytea LANGUAGE plpgsql AS $$
DECLARE
    bytes int[] := ARRAY[0, 1, 2, 3, 127, 128, 254, 255];
    ints bigint[] := ARRAY[0, 1, 2, 63, 64, 65, 8191, 8192, 8193, 65535, 2147483647, -2147483648, -1];
    pos int;
    n int;
BEGIN
    FOR r IN 1..1 + floor(random() * 3)::int LOOP
        pos := floor(random() * greatest(length(b), 1))::int;
        CASE floor(random() * 11)::int
            WHEN 0 THEN    -- flip a bit
                IF length(b) > 0 THEN
                    n := floor(random() * 8 * length(b))::int;
                    b := set_bit(b, n, 1 - get_bit(b, n));
                END IF;
            WHEN 1 THEN    -- set a byte
                IF length(b) > 0 THEN
                    b := set_byte(b, pos, CASE WHEN random() < 0.5 THEN bytes[1 + floor(random() * 8)::int]
                                          ELSE floor(random() * 256)::int END);
                END IF;
            WHEN 2 THEN    -- set a header byte
                IF length(b) > 24 THEN
                    b := set_byte(b, floor(random() * 24)::int, bytes[1 + floor(random() * 8)::int]);
                END IF;
            WHEN 3 THEN    -- truncate
                b := substr(b, 1, pos);
            WHEN 4 THEN    -- extend
                b := b || substr(int8send((random() * 9e18)::bigint), 1, 1 + floor(random() * 8)::int);
            WHEN 5 THEN    -- n, bytes 12-15
                IF length(b) >= 16 THEN
                    b := overlay(b PLACING int4send(ints[1 + floor(random() * 12)::int]::int4) FROM 13 FOR 4);
                END IF;
            WHEN 6 THEN    -- size, bytes 16-23: 0, 1 or huge
                IF length(b) >= 24 THEN
                    b := overlay(b PLACING int8send((ARRAY[0, 1, -1, 9223372036854775807])[1 + floor(random() * 4)::int]::int8) FROM 17 FOR 8);
                END IF;
            WHEN 7 THEN    -- shingle size or reserved half-word, bytes 4-7
                IF length(b) >= 8 THEN
                    b := overlay(b PLACING int2send((ARRAY[0, 1, 64, 65, -1])[1 + floor(random() * 5)::int]::int2)
                                 FROM (CASE WHEN random() < 0.8 THEN 5 ELSE 7 END) FOR 2);
                END IF;
            WHEN 8 THEN    -- a consistent new n: resize the values to match
                IF length(b) >= 24 THEN
                    n := 1 + floor(random() * 40)::int;
                    b := overlay(substr(b, 1, 24) PLACING int4send(n) FROM 13 FOR 4)
                         || substr(substr(b, 25) || decode(repeat('ffffffff', n), 'hex'), 1, 4 * n);
                END IF;
            WHEN 9 THEN    -- emptied or doubled
                IF random() < 0.2 THEN b := ''::bytea; ELSE b := b || b; END IF;
            ELSE           -- seed, bytes 8-11
                IF length(b) >= 12 THEN
                    b := overlay(b PLACING int4send(ints[1 + floor(random() * 12)::int]::int4) FROM 9 FOR 4);
                END IF;
        END CASE;
    END LOOP;
    RETURN b;
END
$$;

CREATE TEMP TABLE fuzz_outcome (target text, outcome text, inputs int);
CREATE TEMP TABLE fuzz_recv (sig minhash);

-- Text literals through minhash_in.
DO $$
DECLARE
    seeds text[] := ARRAY(SELECT sig::text FROM fuzz_seed);
    literal text;
    sig minhash;
    printed text;
    state text;
    message text;
    counts jsonb := '{}';
    bad int := 0;
BEGIN
    FOR i IN 1..current_setting('fuzz.text_count')::int LOOP
        literal := pg_temp.mutate_text(seeds[1 + floor(random() * array_length(seeds, 1))::int]);
        BEGIN
            sig := literal::minhash;
            printed := sig::text;
            state := 'accepted';
            IF printed IS DISTINCT FROM literal OR printed::minhash::text IS DISTINCT FROM printed THEN
                bad := bad + 1;
                RAISE WARNING 'accepted a non-canonical minhash literal: "%" prints as "%"', literal, printed;
            END IF;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
            IF state NOT LIKE '22%' OR position('minhash' IN message) = 0 THEN
                bad := bad + 1;
                RAISE WARNING 'literal "%": unexpected error % "%"', literal, state, message;
            END IF;
        END;
        counts := jsonb_set(counts, ARRAY[state], to_jsonb(coalesce((counts ->> state)::int, 0) + 1));
    END LOOP;
    INSERT INTO fuzz_outcome SELECT 'text', key, value::int FROM jsonb_each_text(counts);
    INSERT INTO fuzz_outcome VALUES ('text', 'FAILED', bad);
END
$$;

-- Binary payloads through minhash_recv: each written by COPY TO as the one
-- bytea field of a binary COPY file (the field's bytes are the payload),
-- then read by COPY FROM into a minhash column.
DO $$
DECLARE
    seeds bytea[] := ARRAY(SELECT minhash_send(sig) FROM fuzz_seed);
    file text := current_setting('data_directory') || '/minhash_fuzz_payload.bin';
    payload bytea;
    sig minhash;
    state text;
    message text;
    counts jsonb := '{}';
    bad int := 0;
BEGIN
    FOR i IN 1..current_setting('fuzz.binary_count')::int LOOP
        payload := pg_temp.mutate_bytes(seeds[1 + floor(random() * array_length(seeds, 1))::int]);
        EXECUTE format('COPY (SELECT %L::bytea) TO %L (FORMAT binary)', payload, file);
        BEGIN
            EXECUTE format('COPY fuzz_recv FROM %L (FORMAT binary)', file);
            SELECT f.sig INTO sig FROM fuzz_recv f;
            DELETE FROM fuzz_recv;
            state := 'accepted';
            IF minhash_send(sig) IS DISTINCT FROM payload OR sig::text::minhash::text IS DISTINCT FROM sig::text THEN
                bad := bad + 1;
                RAISE WARNING 'accepted a non-canonical minhash payload: % reads as %', payload, sig;
            END IF;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS state = RETURNED_SQLSTATE, message = MESSAGE_TEXT;
            IF state NOT LIKE '22%' OR position('minhash' IN message) = 0 THEN
                bad := bad + 1;
                RAISE WARNING 'payload %: unexpected error % "%"', payload, state, message;
            END IF;
        END;
        counts := jsonb_set(counts, ARRAY[state], to_jsonb(coalesce((counts ->> state)::int, 0) + 1));
    END LOOP;
    EXECUTE format('COPY (SELECT 1 WHERE false) TO %L', file);    -- leave an empty file
    INSERT INTO fuzz_outcome SELECT 'binary', key, value::int FROM jsonb_each_text(counts);
    INSERT INTO fuzz_outcome VALUES ('binary', 'FAILED', bad);
END
$$;

SELECT target, outcome, inputs FROM fuzz_outcome ORDER BY target DESC, outcome = 'FAILED', outcome;
-- The summary line test/fuzz/fuzz_sql.sh checks.
SELECT format('fuzz_sql: %s text literals, %s binary payloads, %s failed',
              sum(inputs) FILTER (WHERE target = 'text' AND outcome <> 'FAILED'),
              sum(inputs) FILTER (WHERE target = 'binary' AND outcome <> 'FAILED'),
              sum(inputs) FILTER (WHERE outcome = 'FAILED')) AS summary
FROM fuzz_outcome;
