-- minhash_sign_and_flag(): one trigger that fills the signature from a
-- document column when the statement did not set it, then flags the row as
-- minhash_flag_duplicates() does (sql/trigger.sql tests the flagging).
CREATE TABLE sgn_docs (id integer PRIMARY KEY, body text, sig minhash(64), dup_of integer);
CREATE INDEX sgn_docs_sig ON sgn_docs USING gin (sig) WITH (fastupdate = off);
CREATE TRIGGER sgn_flag BEFORE INSERT OR UPDATE ON sgn_docs FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8');
CREATE FUNCTION sgn_text(n integer, variant text DEFAULT '') RETURNS text LANGUAGE sql IMMUTABLE AS $$
	SELECT string_agg('word' || (n * 1000 + i), ' ' ORDER BY i) || variant FROM generate_series(1, 60) i $$;
CREATE FUNCTION sgn_error(statement text, OUT code text, OUT message text, OUT detail text, OUT hint text)
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE statement;
	code := 'none';
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS code = RETURNED_SQLSTATE, message = MESSAGE_TEXT,
							detail = PG_EXCEPTION_DETAIL, hint = PG_EXCEPTION_HINT;
END $$;

-- INSERT without a signature: it is built as minhash(body, 64) would build
-- it (64: the column's typmod), and the row is flagged with it.  2 is a
-- near-duplicate of 1; 3 is unrelated; 4 has no document, so no signature
-- and no flag.
INSERT INTO sgn_docs (id, body) VALUES (1, sgn_text(1)), (2, sgn_text(1, ' and one more word')),
	(3, sgn_text(3)), (4, NULL);
SELECT id, sig IS NOT DISTINCT FROM minhash(body, 64) AS sig_is_minhash_body, minhash_num_perm(sig) AS num_perm, dup_of
  FROM sgn_docs ORDER BY id;
-- A signature set by the statement is kept, not rebuilt from the document:
-- 5's says it is a copy of 3, whatever its body.
INSERT INTO sgn_docs (id, body, sig) VALUES (5, sgn_text(1), minhash(sgn_text(3), 64));
SELECT id, sig = minhash(sgn_text(3), 64) AS statement_sig, dup_of FROM sgn_docs WHERE id = 5;

-- UPDATE.  A document changed under an unchanged signature is signed again
-- (and flagged again): 3 becomes a copy of 1.
UPDATE sgn_docs SET body = sgn_text(1, ' changed') WHERE id = 3;
-- A change elsewhere keeps the signature, the statement's too: 5 stays a copy of 3's old text.
UPDATE sgn_docs SET dup_of = NULL WHERE id = 5;
-- A document and a signature both set: the statement's signature.
UPDATE sgn_docs SET body = sgn_text(7), sig = minhash(sgn_text(1), 64) WHERE id = 2;
SELECT id, sig IS NOT DISTINCT FROM minhash(body, 64) AS sig_is_minhash_body, dup_of FROM sgn_docs ORDER BY id;
-- A document set to NULL: a NULL signature and a NULL flag.
UPDATE sgn_docs SET body = NULL WHERE id = 3;
-- A document set on a row without one: signed.
UPDATE sgn_docs SET body = sgn_text(1) WHERE id = 4;
-- A signature cleared under a document: signed again (a row with a
-- document always has a signature).
UPDATE sgn_docs SET sig = NULL WHERE id = 1;
SELECT id, sig IS NULL AS sig_null, sig IS NOT DISTINCT FROM minhash(body, 64) AS sig_is_minhash_body, dup_of
  FROM sgn_docs ORDER BY id;

-- The flags are those of today's two-step setup: a PL/pgSQL trigger that
-- signs, then minhash_flag_duplicates.
CREATE TABLE sgn_two_step (id integer PRIMARY KEY, body text, sig minhash(64), dup_of integer);
CREATE FUNCTION sgn_sign() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.sig := minhash(NEW.body, 64);
	RETURN NEW;
END $$;
CREATE TRIGGER a_sign BEFORE INSERT ON sgn_two_step FOR EACH ROW EXECUTE FUNCTION sgn_sign();
CREATE TRIGGER b_flag BEFORE INSERT ON sgn_two_step FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.5');
CREATE TABLE sgn_one_step (id integer PRIMARY KEY, body text, sig minhash(64), dup_of integer);
CREATE TRIGGER sgn_flag BEFORE INSERT ON sgn_one_step FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.5');
INSERT INTO sgn_two_step (id, body)
	SELECT i, sgn_text(i % 7, repeat(' extra', i % 5)) FROM generate_series(1, 60) i;
INSERT INTO sgn_one_step (id, body)
	SELECT i, sgn_text(i % 7, repeat(' extra', i % 5)) FROM generate_series(1, 60) i;
SELECT count(*) AS rows, count(*) FILTER (WHERE o.dup_of IS NOT NULL) AS flagged,
	   count(*) FILTER (WHERE o.dup_of IS DISTINCT FROM t.dup_of OR o.sig <> t.sig) AS differ
  FROM sgn_one_step o JOIN sgn_two_step t USING (id);

-- Without a typmod the column gets minhash(text)'s default, 128 values; the
-- shingles argument chooses another builder, as minhash(body, n, k) or
-- minhash_char_shingles(body, n, q) would build; varchar, char(n) and a
-- domain over text are documents too (minhash(dom) alone would be a cast
-- of the domain's text to minhash: the argument is named).
CREATE DOMAIN sgn_doc AS text;
CREATE TABLE sgn_kinds (id integer PRIMARY KEY, body varchar(2000), padded char(700), dom sgn_doc,
						sig minhash, words3 minhash(32), chars3 minhash(32), sig_padded minhash,
						sig_dom minhash, d1 integer, d2 integer, d3 integer, d4 integer, d5 integer);
CREATE TRIGGER s1 BEFORE INSERT ON sgn_kinds FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'd1', '0.8');
CREATE TRIGGER s2 BEFORE INSERT ON sgn_kinds FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'words3', 'd2', '0.8', '', '', '3 words');
CREATE TRIGGER s3 BEFORE INSERT ON sgn_kinds FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'chars3', 'd3', '0.8', 'id', 'nolock', ' 3  chars ');
CREATE TRIGGER s4 BEFORE INSERT ON sgn_kinds FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('padded', 'sig_padded', 'd4', '0.8');
CREATE TRIGGER s5 BEFORE INSERT ON sgn_kinds FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('dom', 'sig_dom', 'd5', '0.8', 'id', 'lock');
INSERT INTO sgn_kinds (id, body, padded, dom)
	SELECT i, sgn_text(i), sgn_text(i), sgn_text(i) FROM generate_series(1, 2) i;
INSERT INTO sgn_kinds (id, body, padded, dom) VALUES (3, sgn_text(1), sgn_text(1), sgn_text(1));
SELECT id, sig = minhash(body) AS words_128, words3 = minhash(body, 32, 3) AS words_3,
	   chars3 = minhash_char_shingles(body, 32, 3) AS chars_3,
	   sig_padded = minhash(padded) AS padded, sig_dom = minhash(doc => dom) AS domain,
	   minhash_kind(chars3) AS kind, d1, d2, d3, d4, d5
  FROM sgn_kinds ORDER BY id;
-- (Character trigrams of such alike words resemble: there 2 is flagged with 1.)

-- The signature passes the constraints of the column's domain, as an
-- assigned one would.
CREATE DOMAIN sgn_small_sig AS minhash(16) CHECK (minhash_size(VALUE) < 10);
CREATE TABLE sgn_domain_sig (id integer PRIMARY KEY, body text, sig sgn_small_sig, dup_of integer);
CREATE TRIGGER sgn_flag BEFORE INSERT ON sgn_domain_sig FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8');
INSERT INTO sgn_domain_sig (id, body) VALUES (1, 'a few words only'), (2, 'a few words only');
SELECT id, sig = minhash(body, 16) AS sig_is_minhash_body, dup_of FROM sgn_domain_sig ORDER BY id;
SELECT code, message FROM sgn_error($$INSERT INTO sgn_domain_sig (id, body) VALUES (3, sgn_text(1))$$);

-- A long document stored out of line: an UPDATE of another column keeps the
-- statement's signature (the document, the same toast pointer, is unchanged);
-- an UPDATE that writes the same text again keeps it too.
CREATE TABLE sgn_long (id integer PRIMARY KEY, body text, sig minhash(64), dup_of integer);
ALTER TABLE sgn_long ALTER COLUMN body SET STORAGE EXTERNAL;
CREATE TRIGGER sgn_flag BEFORE INSERT OR UPDATE ON sgn_long FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8');
INSERT INTO sgn_long VALUES (1, repeat(sgn_text(1), 100), minhash(sgn_text(9), 64));
UPDATE sgn_long SET dup_of = 7;
UPDATE sgn_long SET body = repeat(sgn_text(1), 100);
SELECT sig = minhash(sgn_text(9), 64) AS statement_sig FROM sgn_long;
UPDATE sgn_long SET body = repeat(sgn_text(2), 100);
SELECT sig = minhash(body, 64) AS sig_is_minhash_body FROM sgn_long;

-- COPY, as a client's bulk load sends it, fires the trigger; documents of
-- several lengths, so that the builder kept between rows is reset, replaced
-- by a larger one and reused.
COPY sgn_docs (id, body) FROM stdin;
10	word1001 word1002 word1003 word1004 word1005 word1006 word1007 word1008 word1009 word1010
11	word1001 word1002 word1003 word1004 word1005 word1006 word1007 word1008 word1009 word1010
12	one two three four five six
13	longword1 longword2 longword3 longword4 longword5 longword6 longword7 longword8 longword9 longword10 longword11 longword12 longword13 longword14 longword15 longword16 longword17 longword18 longword19 longword20 longword21 longword22 longword23 longword24 longword25 longword26 longword27 longword28 longword29 longword30 longword31 longword32 longword33 longword34 longword35 longword36 longword37 longword38 longword39 longword40 longword41 longword42 longword43 longword44 longword45 longword46 longword47 longword48 longword49 longword50 longword51 longword52 longword53 longword54 longword55 longword56 longword57 longword58 longword59 longword60 longword61 longword62 longword63 longword64 longword65 longword66 longword67 longword68 longword69 longword70 longword71 longword72 longword73 longword74 longword75 longword76 longword77 longword78 longword79 longword80 longword81 longword82 longword83 longword84 longword85 longword86 longword87 longword88 longword89 longword90 longword91 longword92 longword93 longword94 longword95 longword96 longword97 longword98 longword99 longword100 longword101 longword102 longword103 longword104 longword105 longword106 longword107 longword108 longword109 longword110 longword111 longword112 longword113 longword114 longword115 longword116 longword117 longword118 longword119 longword120 longword121 longword122 longword123 longword124 longword125 longword126 longword127 longword128 longword129 longword130 longword131 longword132 longword133 longword134 longword135 longword136 longword137 longword138 longword139 longword140 longword141 longword142 longword143 longword144 longword145 longword146 longword147 longword148 longword149 longword150 longword151 longword152 longword153 longword154 longword155 longword156 longword157 longword158 longword159 longword160 longword161 longword162 longword163 longword164 longword165 longword166 longword167 longword168 longword169 longword170 longword171 longword172 longword173 longword174 longword175 longword176 longword177 longword178 longword179 longword180 longword181 longword182 longword183 longword184 longword185 longword186 longword187 longword188 longword189 longword190 longword191 longword192 longword193 longword194 longword195 longword196 longword197 longword198 longword199 longword200 longword201 longword202 longword203 longword204 longword205 longword206 longword207 longword208 longword209 longword210 longword211 longword212 longword213 longword214 longword215 longword216 longword217 longword218 longword219 longword220 longword221 longword222 longword223 longword224 longword225 longword226 longword227 longword228 longword229 longword230 longword231 longword232 longword233 longword234 longword235 longword236 longword237 longword238 longword239 longword240 longword241 longword242 longword243 longword244 longword245 longword246 longword247 longword248 longword249 longword250 longword251 longword252 longword253 longword254 longword255 longword256 longword257 longword258 longword259 longword260 longword261 longword262 longword263 longword264 longword265 longword266 longword267 longword268 longword269 longword270 longword271 longword272 longword273 longword274 longword275 longword276 longword277 longword278 longword279 longword280 longword281 longword282 longword283 longword284 longword285 longword286 longword287 longword288 longword289 longword290 longword291 longword292 longword293 longword294 longword295 longword296 longword297 longword298 longword299 longword300
14	one two three four five six seven
15	longword1 longword2 longword3 longword4 longword5 longword6 longword7 longword8 longword9 longword10 longword11 longword12 longword13 longword14 longword15 longword16 longword17 longword18 longword19 longword20 longword21 longword22 longword23 longword24 longword25 longword26 longword27 longword28 longword29 longword30 longword31 longword32 longword33 longword34 longword35 longword36 longword37 longword38 longword39 longword40 longword41 longword42 longword43 longword44 longword45 longword46 longword47 longword48 longword49 longword50 longword51 longword52 longword53 longword54 longword55 longword56 longword57 longword58 longword59 longword60 longword61 longword62 longword63 longword64 longword65 longword66 longword67 longword68 longword69 longword70 longword71 longword72 longword73 longword74 longword75 longword76 longword77 longword78 longword79 longword80 longword81 longword82 longword83 longword84 longword85 longword86 longword87 longword88 longword89 longword90 longword91 longword92 longword93 longword94 longword95 longword96 longword97 longword98 longword99 longword100 longword101 longword102 longword103 longword104 longword105 longword106 longword107 longword108 longword109 longword110 longword111 longword112 longword113 longword114 longword115 longword116 longword117 longword118 longword119 longword120 longword121 longword122 longword123 longword124 longword125 longword126 longword127 longword128 longword129 longword130 longword131 longword132 longword133 longword134 longword135 longword136 longword137 longword138 longword139 longword140 longword141 longword142 longword143 longword144 longword145 longword146 longword147 longword148 longword149 longword150 longword151 longword152 longword153 longword154 longword155 longword156 longword157 longword158 longword159 longword160 longword161 longword162 longword163 longword164 longword165 longword166 longword167 longword168 longword169 longword170 longword171 longword172 longword173 longword174 longword175 longword176 longword177 longword178 longword179 longword180 longword181 longword182 longword183 longword184 longword185 longword186 longword187 longword188 longword189 longword190 longword191 longword192 longword193 longword194 longword195 longword196 longword197 longword198 longword199 longword200 longword201 longword202 longword203 longword204 longword205 longword206 longword207 longword208 longword209 longword210 longword211 longword212 longword213 longword214 longword215 longword216 longword217 longword218 longword219 longword220 longword221 longword222 longword223 longword224 longword225 longword226 longword227 longword228 longword229 longword230 longword231 longword232 longword233 longword234 longword235 longword236 longword237 longword238 longword239 longword240 longword241 longword242 longword243 longword244 longword245 longword246 longword247 longword248 longword249 longword250 longword251 longword252 longword253 longword254 longword255 longword256 longword257 longword258 longword259 longword260 longword261 longword262 longword263 longword264 longword265 longword266 longword267 longword268 longword269 longword270 longword271 longword272 longword273 longword274 longword275 longword276 longword277 longword278 longword279 longword280 longword281 longword282 longword283 longword284 longword285 longword286 longword287 longword288 longword289 longword290 longword291 longword292 longword293 longword294 longword295 longword296 longword297 longword298 longword299 longword300 tail
\.
SELECT id, sig = minhash(body, 64) AS sig_is_minhash_body, dup_of FROM sgn_docs WHERE id >= 10 ORDER BY id;

-- A partitioned table: the trigger is cloned on each partition, and the
-- lookup stays within the partition the row goes to (as
-- minhash_flag_duplicates' does).
CREATE TABLE sgn_parts (region text, id integer, body text, sig minhash(64), dup_of integer,
						PRIMARY KEY (region, id)) PARTITION BY LIST (region);
CREATE TABLE sgn_parts_eu PARTITION OF sgn_parts FOR VALUES IN ('eu');
CREATE TABLE sgn_parts_us PARTITION OF sgn_parts FOR VALUES IN ('us');
CREATE TRIGGER sgn_flag BEFORE INSERT OR UPDATE ON sgn_parts FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8', 'id');
INSERT INTO sgn_parts (region, id, body) VALUES ('eu', 1, sgn_text(1)), ('us', 2, sgn_text(1)),
	('eu', 3, sgn_text(1, ' again')), ('us', 4, sgn_text(1, ' again'));
SELECT region, id, sig = minhash(body, 64) AS sig_is_minhash_body, dup_of FROM sgn_parts ORDER BY id;

-- Triggers fire in order of their names.  One that fires earlier may clear
-- the signature or change the document: the row is signed after it.  One
-- that fires later could undo the signature once the row is flagged: an
-- error (55000) on every row, telling to rename.  A later flagging trigger,
-- or one for another event or disabled, is no such trigger.
CREATE TABLE sgn_order (id integer PRIMARY KEY, body text, sig minhash(64), dup_of integer, dup_of_2 integer);
CREATE FUNCTION sgn_clear() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.sig := NULL;
	NEW.body := upper(NEW.body);
	RETURN NEW;
END $$;
CREATE TRIGGER m_flag BEFORE INSERT OR UPDATE ON sgn_order FOR EACH ROW
	EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'dup_of', '0.8');
CREATE TRIGGER z_clear BEFORE INSERT ON sgn_order FOR EACH ROW EXECUTE FUNCTION sgn_clear();
\x on
SELECT * FROM sgn_error($$INSERT INTO sgn_order (id, body) VALUES (1, 'some words to sign here')$$);
SELECT * FROM sgn_error($$INSERT INTO sgn_order (id, body, sig) VALUES (1, 'some words', minhash('some words', 64))$$);
\x off
ALTER TRIGGER z_clear ON sgn_order RENAME TO a_clear;
CREATE TRIGGER z_flag BEFORE INSERT ON sgn_order FOR EACH ROW
	EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of_2', '0.8');
CREATE TRIGGER z_update BEFORE UPDATE ON sgn_order FOR EACH ROW EXECUTE FUNCTION sgn_clear();
CREATE TRIGGER z_disabled BEFORE INSERT ON sgn_order FOR EACH ROW EXECUTE FUNCTION sgn_clear();
ALTER TABLE sgn_order DISABLE TRIGGER z_disabled;
INSERT INTO sgn_order (id, body, sig) VALUES (1, 'some words to sign here', minhash('other words', 64)),
	(2, 'Some Words To Sign Here', NULL);
SELECT id, body, sig = minhash(body, 64) AS sig_is_minhash_body, dup_of, dup_of_2 FROM sgn_order ORDER BY id;
SELECT code, message FROM sgn_error($$UPDATE sgn_order SET body = 'x' WHERE id = 1$$);

-- Arguments are checked on the first row, as minhash_flag_duplicates'.
CREATE TABLE sgn_bad (id integer PRIMARY KEY DEFAULT 1, body text DEFAULT 'a b c d e f', num integer,
					  sig minhash(64), dup_of integer, note text,
					  gen text GENERATED ALWAYS AS ('x' || id) STORED);
CREATE TABLE sgn_nokey (id integer, body text DEFAULT 'a b c', sig minhash(64), dup_of integer);
CREATE FUNCTION sgn_try(tbl text, args text, timing text DEFAULT 'BEFORE INSERT',
						OUT code text, OUT message text, OUT detail text, OUT hint text, OUT context text)
	LANGUAGE plpgsql AS $$
BEGIN
	EXECUTE format('DROP TRIGGER IF EXISTS bad ON %I', tbl);
	EXECUTE format('CREATE TRIGGER bad %s ON %I FOR EACH ROW EXECUTE FUNCTION minhash_sign_and_flag(%s)',
				   timing, tbl, args);
	SELECT e.code, e.message, e.detail, e.hint INTO code, message, detail, hint
	  FROM sgn_error(format('INSERT INTO %I DEFAULT VALUES', tbl)) e;
	context := NULL;
	BEGIN
		EXECUTE format('INSERT INTO %I DEFAULT VALUES', tbl);
	EXCEPTION WHEN OTHERS THEN
		GET STACKED DIAGNOSTICS context = PG_EXCEPTION_CONTEXT;
		context := substring(context FROM '^[^\n]*');
	END;
	IF context NOT LIKE '%argument of trigger%' THEN
		context := NULL;
	END IF;
END $$;
SET client_min_messages = warning;
\x on
SELECT 'three arguments' AS case, * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of'$$)
UNION ALL SELECT 'eight arguments', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', '5 words', 'x'$$)
UNION ALL SELECT 'missing document', * FROM sgn_try('sgn_bad', $$'text', 'sig', 'dup_of', '0.8'$$)
UNION ALL SELECT 'quoted document', * FROM sgn_try('sgn_bad', $$'"body"', 'sig', 'dup_of', '0.8'$$)
UNION ALL SELECT 'document not text', * FROM sgn_try('sgn_bad', $$'num', 'sig', 'dup_of', '0.8'$$)
UNION ALL SELECT 'document minhash', * FROM sgn_try('sgn_bad', $$'sig', 'sig', 'dup_of', '0.8'$$)
UNION ALL SELECT 'document generated', * FROM sgn_try('sgn_bad', $$'gen', 'sig', 'dup_of', '0.8'$$)
UNION ALL SELECT 'signature not minhash', * FROM sgn_try('sgn_bad', $$'body', 'note', 'dup_of', '0.8'$$)
UNION ALL SELECT 'flag is document', * FROM sgn_try('sgn_bad', $$'note', 'sig', 'note', '0.8', 'id'$$)
UNION ALL SELECT 'threshold', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '80%'$$)
UNION ALL SELECT 'mode', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', 'LOCK'$$)
UNION ALL SELECT 'no primary key', * FROM sgn_try('sgn_nokey', $$'body', 'sig', 'dup_of', '0.8'$$)
UNION ALL SELECT 'shingles: size only', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', '5'$$)
UNION ALL SELECT 'shingles: unit only', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', 'words'$$)
UNION ALL SELECT 'shingles: no space', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', '5words'$$)
UNION ALL SELECT 'shingles: unit', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', '5 letters'$$)
UNION ALL SELECT 'shingles: more', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', '5 words seed 7'$$)
UNION ALL SELECT 'shingles: size 0', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8', '', '', '0 words'$$)
UNION ALL SELECT 'AFTER', * FROM sgn_try('sgn_bad', $$'body', 'sig', 'dup_of', '0.8'$$, 'AFTER INSERT');
SELECT 'direct call' AS case, * FROM sgn_error('SELECT minhash_sign_and_flag()');
\x off
RESET client_min_messages;
SELECT count(*) AS sgn_bad_rows FROM sgn_bad;

DROP TABLE sgn_docs, sgn_two_step, sgn_one_step, sgn_kinds, sgn_domain_sig, sgn_long, sgn_parts,
	sgn_order, sgn_bad, sgn_nokey;
DROP DOMAIN sgn_doc, sgn_small_sig;
DROP FUNCTION sgn_text(integer, text), sgn_sign(), sgn_clear(), sgn_error(text),
	sgn_try(text, text, text);
