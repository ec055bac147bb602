/* minhash--1.0.sql: MinHash signatures for near-duplicate text detection */

\echo Use "CREATE EXTENSION minhash" to load this file. \quit

-------------------------------------------------------------------------------
-- The type
-------------------------------------------------------------------------------

CREATE TYPE minhash;

CREATE FUNCTION minhash_in(cstring, oid, integer) RETURNS minhash
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_out(minhash) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_recv(internal, oid, integer) RETURNS minhash
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_send(minhash) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_typmod_in(cstring[]) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_typmod_out(integer) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

-- Hash values are random: compression cannot shrink them, so do not try.
CREATE TYPE minhash (
	INPUT = minhash_in,
	OUTPUT = minhash_out,
	RECEIVE = minhash_recv,
	SEND = minhash_send,
	TYPMOD_IN = minhash_typmod_in,
	TYPMOD_OUT = minhash_typmod_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);

COMMENT ON FUNCTION minhash_in(cstring, oid, integer) IS 'text input of a minhash signature';
COMMENT ON FUNCTION minhash_out(minhash) IS 'text output of a minhash signature';
COMMENT ON FUNCTION minhash_recv(internal, oid, integer) IS 'binary input of a minhash signature';
COMMENT ON FUNCTION minhash_send(minhash) IS 'binary output of a minhash signature';
COMMENT ON FUNCTION minhash_typmod_in(cstring[]) IS 'reads the n of minhash(n)';
COMMENT ON FUNCTION minhash_typmod_out(integer) IS 'writes the n of minhash(n)';
COMMENT ON TYPE minhash IS 'MinHash signature of a document''s shingles; minhash(n) holds n hash values';

-- The length-coercion cast that enforces minhash(n).
CREATE FUNCTION minhash(minhash, integer, boolean) RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_enforce_typmod' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE CAST (minhash AS minhash) WITH FUNCTION minhash(minhash, integer, boolean) AS IMPLICIT;

COMMENT ON FUNCTION minhash(minhash, integer, boolean) IS 'checks that a signature has the number of hash values of minhash(n)';
COMMENT ON CAST (minhash AS minhash) IS 'enforces the number of hash values of minhash(n)';

-------------------------------------------------------------------------------
-- Building signatures
-------------------------------------------------------------------------------

CREATE FUNCTION minhash(doc text, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_words' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash(text, integer, integer, integer) IS 'MinHash signature of a document''s word shingles (shingle_size consecutive words)';

CREATE FUNCTION minhash_chars(doc text, q integer DEFAULT 5, num_perm integer DEFAULT 128, seed integer DEFAULT 0)
	RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_chars' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_chars(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (q consecutive characters of its words, one space between words)';

CREATE FUNCTION minhash(elements text[], num_perm integer DEFAULT 128, seed integer DEFAULT 0)
	RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_set' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash(text[], integer, integer) IS 'MinHash signature of a set of strings, each taken as it is';

CREATE FUNCTION shingle_hashes(doc text, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS bigint[]
	AS 'MODULE_PATHNAME', 'minhash_shingle_hashes' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION shingle_hashes(text, integer, integer) IS 'distinct 64-bit hashes of a document''s word shingles, sorted: the set minhash() samples';

CREATE FUNCTION minhash_tokens(doc text) RETURNS text[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_tokens(text) IS 'the case-folded words minhash() shingles, in document order';

-------------------------------------------------------------------------------
-- What a signature records
-------------------------------------------------------------------------------

CREATE FUNCTION minhash_size(minhash) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_size(minhash) IS 'number of distinct shingles in the signature''s document';

CREATE FUNCTION minhash_size_is_estimated(minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_size_is_estimated(minhash) IS 'true when the document had too many distinct shingles (over 524,288) to count exactly';

CREATE FUNCTION minhash_kind(minhash) RETURNS text
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_kind(minhash) IS 'what the signature''s set is made of: words, chars or set';

CREATE FUNCTION minhash_shingle_size(minhash) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_shingle_size(minhash) IS 'words or characters per shingle; null for sets';

CREATE FUNCTION minhash_seed(minhash) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_seed(minhash) IS 'seed of the signature''s hash functions';

CREATE FUNCTION minhash_num_perm(minhash) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_num_perm(minhash) IS 'number of hash values in the signature';

-------------------------------------------------------------------------------
-- Comparing signatures
-------------------------------------------------------------------------------

CREATE FUNCTION resemblance(a minhash, b minhash) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_resemblance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION resemblance(minhash, minhash) IS 'estimated resemblance (Jaccard index of the shingle sets): the fraction of agreeing hash values';

CREATE FUNCTION containment(a minhash, b minhash) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_containment' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION containment(minhash, minhash) IS 'estimated fraction of the first document''s shingles found in the second';

-- STABLE, not IMMUTABLE: the answer depends on the minhash.threshold setting.
CREATE FUNCTION minhash_similar(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_similar(minhash, minhash) IS 'true when the estimated resemblance is at least minhash.threshold';

CREATE FUNCTION minhash_distance(minhash, minhash) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_distance(minhash, minhash) IS 'estimated Jaccard distance: 1 - resemblance';

CREATE OPERATOR % (
	LEFTARG = minhash,
	RIGHTARG = minhash,
	FUNCTION = minhash_similar,
	COMMUTATOR = %,
	RESTRICT = matchingsel,
	JOIN = matchingjoinsel
);

COMMENT ON OPERATOR %(minhash, minhash) IS 'is a near-duplicate: estimated resemblance at least minhash.threshold';

CREATE OPERATOR <%> (
	LEFTARG = minhash,
	RIGHTARG = minhash,
	FUNCTION = minhash_distance,
	COMMUTATOR = <%>
);

COMMENT ON OPERATOR <%>(minhash, minhash) IS 'estimated Jaccard distance: 1 - resemblance';

-------------------------------------------------------------------------------
-- The per-query threshold: a signature with the threshold it asks for
-------------------------------------------------------------------------------

CREATE TYPE minhash_query;

CREATE FUNCTION minhash_query_in(cstring) RETURNS minhash_query
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_query_out(minhash_query) RETURNS cstring
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE minhash_query (
	INPUT = minhash_query_in,
	OUTPUT = minhash_query_out,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);

COMMENT ON FUNCTION minhash_query_in(cstring) IS 'text input of a minhash_query: threshold:signature';
COMMENT ON FUNCTION minhash_query_out(minhash_query) IS 'text output of a minhash_query: threshold:signature';
COMMENT ON TYPE minhash_query IS 'a signature and the resemblance threshold a query asks for: the right operand of %>';

CREATE FUNCTION minhash_query(sig minhash, threshold double precision) RETURNS minhash_query
	AS 'MODULE_PATHNAME', 'minhash_query_make' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_query(minhash, double precision) IS 'a near-duplicate query: signature and threshold, for the %> operator';

CREATE FUNCTION minhash_query_match(minhash, minhash_query) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_query_match(minhash, minhash_query) IS 'true when the estimated resemblance is at least the query''s threshold';

CREATE OPERATOR %> (
	LEFTARG = minhash,
	RIGHTARG = minhash_query,
	FUNCTION = minhash_query_match,
	RESTRICT = matchingsel,
	JOIN = matchingjoinsel
);

COMMENT ON OPERATOR %>(minhash, minhash_query) IS 'is a near-duplicate at the query''s own threshold';

-- Written in SQL so that the planner inlines it into the indexable operator.
CREATE FUNCTION resembles(a minhash, b minhash, threshold double precision) RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$ SELECT a OPERATOR(@extschema@.%>) @extschema@.minhash_query(b, threshold) $$;

COMMENT ON FUNCTION resembles(minhash, minhash, double precision) IS 'true when the estimated resemblance is at least threshold: the % operator with the threshold in the query';

-------------------------------------------------------------------------------
-- LSH banding and the GIN index
-------------------------------------------------------------------------------

CREATE FUNCTION minhash_bands(sig minhash, bands integer, rows integer) RETURNS bigint[]
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_bands(minhash, integer, integer) IS 'LSH band keys: one 64-bit hash per band of rows hash values, the band number mixed in';

CREATE FUNCTION lsh_probability(similarity double precision, bands integer, rows integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_lsh_probability' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION lsh_probability(double precision, integer, integer) IS 'probability that a pair of the given resemblance shares a band: 1 - (1 - s^rows)^bands';

CREATE FUNCTION lsh_params(threshold double precision, num_perm integer,
						   false_positive_weight double precision DEFAULT 0.5,
						   false_negative_weight double precision DEFAULT 0.5,
						   OUT bands integer, OUT rows integer,
						   OUT false_positive double precision, OUT false_negative double precision)
	AS 'MODULE_PATHNAME', 'minhash_lsh_params' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION lsh_params(double precision, integer, double precision, double precision) IS 'bands and rows minimizing the weighted false positive and false negative areas around a threshold (approximate LSH, no guarantee)';

CREATE FUNCTION minhash_gin_extract_value(minhash, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION minhash_gin_extract_query(minhash, internal, int2, internal, internal, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION minhash_gin_consistent(internal, int2, minhash, int4, internal, internal, internal, internal) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION minhash_gin_triconsistent(internal, int2, minhash, int4, internal, internal, internal) RETURNS "char"
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION minhash_gin_options(internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION minhash_gin_extract_value(minhash, internal, internal) IS 'GIN support: the band keys of a stored signature';
COMMENT ON FUNCTION minhash_gin_extract_query(minhash, internal, int2, internal, internal, internal, internal) IS 'GIN support: the band keys of a query, or a full scan below the guaranteed threshold';
COMMENT ON FUNCTION minhash_gin_consistent(internal, int2, minhash, int4, internal, internal, internal, internal) IS 'GIN support: enough matching bands for the threshold';
COMMENT ON FUNCTION minhash_gin_triconsistent(internal, int2, minhash, int4, internal, internal, internal) IS 'GIN support: enough possibly matching bands for the threshold';
COMMENT ON FUNCTION minhash_gin_options(internal) IS 'GIN support: the bands, rows and threshold options';

CREATE OPERATOR CLASS gin_minhash_ops DEFAULT FOR TYPE minhash USING gin AS
	OPERATOR 1 % (minhash, minhash),
	OPERATOR 2 %> (minhash, minhash_query),
	FUNCTION 1 btint4cmp(int4, int4),
	FUNCTION 2 minhash_gin_extract_value(minhash, internal, internal),
	FUNCTION 3 minhash_gin_extract_query(minhash, internal, int2, internal, internal, internal, internal),
	FUNCTION 4 minhash_gin_consistent(internal, int2, minhash, int4, internal, internal, internal, internal),
	FUNCTION 6 minhash_gin_triconsistent(internal, int2, minhash, int4, internal, internal, internal),
	FUNCTION 7 minhash_gin_options(internal),
	STORAGE int4;

COMMENT ON OPERATOR FAMILY gin_minhash_ops USING gin IS 'LSH band keys of signatures';
COMMENT ON OPERATOR CLASS gin_minhash_ops USING gin IS 'LSH band index: near-duplicate lookups with % and %> that never miss a row a sequential scan would return';

-------------------------------------------------------------------------------
-- Equality and order: btree and hash opclasses for GROUP BY, DISTINCT, UNIQUE
-------------------------------------------------------------------------------

CREATE FUNCTION minhash_eq(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_ne(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_lt(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_le(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_gt(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_ge(minhash, minhash) RETURNS boolean
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_cmp(minhash, minhash) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_hash(minhash) RETURNS integer
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;
CREATE FUNCTION minhash_hash_extended(minhash, bigint) RETURNS bigint
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE LEAKPROOF;

COMMENT ON FUNCTION minhash_eq(minhash, minhash) IS 'signatures are identical';
COMMENT ON FUNCTION minhash_ne(minhash, minhash) IS 'signatures differ';
COMMENT ON FUNCTION minhash_lt(minhash, minhash) IS 'byte order of signatures: less than';
COMMENT ON FUNCTION minhash_le(minhash, minhash) IS 'byte order of signatures: less than or equal';
COMMENT ON FUNCTION minhash_gt(minhash, minhash) IS 'byte order of signatures: greater than';
COMMENT ON FUNCTION minhash_ge(minhash, minhash) IS 'byte order of signatures: greater than or equal';
COMMENT ON FUNCTION minhash_cmp(minhash, minhash) IS 'btree support: byte order of signatures';
COMMENT ON FUNCTION minhash_hash(minhash) IS 'hash support: hash of a signature''s bytes';
COMMENT ON FUNCTION minhash_hash_extended(minhash, bigint) IS 'hash support: seeded 64-bit hash of a signature''s bytes';

CREATE OPERATOR = (
	LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = minhash_eq,
	COMMUTATOR = =, NEGATOR = <>, RESTRICT = eqsel, JOIN = eqjoinsel, HASHES, MERGES
);
CREATE OPERATOR <> (
	LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = minhash_ne,
	COMMUTATOR = <>, NEGATOR = =, RESTRICT = neqsel, JOIN = neqjoinsel
);
CREATE OPERATOR < (
	LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = minhash_lt,
	COMMUTATOR = >, NEGATOR = >=, RESTRICT = scalarltsel, JOIN = scalarltjoinsel
);
CREATE OPERATOR <= (
	LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = minhash_le,
	COMMUTATOR = >=, NEGATOR = >, RESTRICT = scalarlesel, JOIN = scalarlejoinsel
);
CREATE OPERATOR > (
	LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = minhash_gt,
	COMMUTATOR = <, NEGATOR = <=, RESTRICT = scalargtsel, JOIN = scalargtjoinsel
);
CREATE OPERATOR >= (
	LEFTARG = minhash, RIGHTARG = minhash, FUNCTION = minhash_ge,
	COMMUTATOR = <=, NEGATOR = <, RESTRICT = scalargesel, JOIN = scalargejoinsel
);

COMMENT ON OPERATOR =(minhash, minhash) IS 'signatures are identical';
COMMENT ON OPERATOR <>(minhash, minhash) IS 'signatures differ';
COMMENT ON OPERATOR <(minhash, minhash) IS 'byte order of signatures: less than';
COMMENT ON OPERATOR <=(minhash, minhash) IS 'byte order of signatures: less than or equal';
COMMENT ON OPERATOR >(minhash, minhash) IS 'byte order of signatures: greater than';
COMMENT ON OPERATOR >=(minhash, minhash) IS 'byte order of signatures: greater than or equal';

CREATE OPERATOR CLASS minhash_ops DEFAULT FOR TYPE minhash USING btree AS
	OPERATOR 1 <,
	OPERATOR 2 <=,
	OPERATOR 3 =,
	OPERATOR 4 >=,
	OPERATOR 5 >,
	FUNCTION 1 minhash_cmp(minhash, minhash);

CREATE OPERATOR CLASS minhash_ops DEFAULT FOR TYPE minhash USING hash AS
	OPERATOR 1 =,
	FUNCTION 1 minhash_hash(minhash),
	FUNCTION 2 minhash_hash_extended(minhash, bigint);

COMMENT ON OPERATOR FAMILY minhash_ops USING btree IS 'identity and byte order of signatures';
COMMENT ON OPERATOR FAMILY minhash_ops USING hash IS 'identity of signatures';
COMMENT ON OPERATOR CLASS minhash_ops USING btree IS 'identity and byte order of signatures, for GROUP BY, DISTINCT and UNIQUE';
COMMENT ON OPERATOR CLASS minhash_ops USING hash IS 'identity of signatures, for hashed GROUP BY and DISTINCT';
