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

CREATE FUNCTION minhash_query_recv(internal) RETURNS minhash_query
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE FUNCTION minhash_query_send(minhash_query) RETURNS bytea
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

CREATE TYPE minhash_query (
	INPUT = minhash_query_in,
	OUTPUT = minhash_query_out,
	RECEIVE = minhash_query_recv,
	SEND = minhash_query_send,
	INTERNALLENGTH = VARIABLE,
	ALIGNMENT = double,
	STORAGE = external
);

COMMENT ON FUNCTION minhash_query_in(cstring) IS 'text input of a minhash_query: threshold:signature';
COMMENT ON FUNCTION minhash_query_out(minhash_query) IS 'text output of a minhash_query: threshold:signature';
COMMENT ON FUNCTION minhash_query_recv(internal) IS 'binary input of a minhash_query: float8 threshold, then a minhash in binary';
COMMENT ON FUNCTION minhash_query_send(minhash_query) IS 'binary output of a minhash_query: float8 threshold, then a minhash in binary';
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

CREATE FUNCTION lsh_probability(similarity double precision, bands integer, rows integer,
								min_bands integer DEFAULT 1) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_lsh_probability' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION lsh_probability(double precision, integer, integer, integer) IS 'probability that a pair of the given resemblance agrees in at least min_bands bands; with one band, 1 - (1 - s^rows)^bands';

CREATE FUNCTION lsh_index_layout(threshold double precision, num_perm integer DEFAULT 128,
								 OUT bands integer, OUT rows integer, OUT min_bands integer)
	AS 'MODULE_PATHNAME', 'minhash_lsh_index_layout' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION lsh_index_layout(double precision, integer) IS 'the band layout gin_minhash_ops takes for a threshold option, and how many bands every pair at that threshold shares';

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

-------------------------------------------------------------------------------
-- Explaining a match (seed 000): exact S_R, the chunk measures S_J and S_L,
-- the common chunks, highlighting, and how sure an estimate is
-------------------------------------------------------------------------------

CREATE FUNCTION shingle_resemblance(a text, b text, shingle_size integer DEFAULT 5)
	RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_shingle_resemblance' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION shingle_resemblance(text, text, integer) IS 'exact resemblance S_R of two documents'' word shingles: what resemblance() of their signatures estimates';

CREATE FUNCTION chunk_similarity(a text, b text, min_words integer DEFAULT 5, matching text DEFAULT 'literal')
	RETURNS TABLE(common_words integer, longer_words integer, shorter_words integer, chunks integer,
				  s_j double precision, s_l double precision)
	AS 'MODULE_PATHNAME', 'minhash_chunk_similarity' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;

COMMENT ON FUNCTION chunk_similarity(text, text, integer, text) IS 'words C in common chunks of at least min_words words, lengths L and S, S_J = C/(L+S-C) and S_L = C/L; matching ''literal'' (one-to-one) or ''information'' (repeats count once)';

CREATE FUNCTION common_chunks(a text, b text, min_words integer DEFAULT 5)
	RETURNS TABLE(a_start integer, b_start integer, words integer, chunk text)
	AS 'MODULE_PATHNAME', 'minhash_common_chunks' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 10;

COMMENT ON FUNCTION common_chunks(text, text, integer) IS 'chunks of at least min_words words that two texts share, matched one-to-one: 1-based word numbers in a and b, length, text as written in a';

CREATE FUNCTION highlight(a text, b text, min_words integer DEFAULT 5, format text DEFAULT 'html')
	RETURNS TABLE(a_marked text, b_marked text)
	AS 'MODULE_PATHNAME', 'minhash_highlight' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;

COMMENT ON FUNCTION highlight(text, text, integer, text) IS 'both texts with each common chunk marked alike: <mark data-chunk="N"> in escaped HTML, or [N>...<N] as text';

CREATE FUNCTION resemblance_interval(a minhash, b minhash, confidence double precision DEFAULT 0.95)
	RETURNS TABLE(lower double precision, upper double precision)
	AS 'MODULE_PATHNAME', 'minhash_resemblance_interval' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE ROWS 1;

COMMENT ON FUNCTION resemblance_interval(minhash, minhash, double precision) IS 'Clopper-Pearson interval for the resemblance that two signatures estimate, at the given confidence';

-- ---------------------------------------------------------------------------
-- Reports on near-duplicate groups: read in psql or any SQL client.  They
-- take the groups as a table (a stored result of near_dupe_groups, with its
-- columns group_id, key, pivot, resemblance), so that grouping runs once.
-- They read tables by name, possibly temporary ones: STABLE, PARALLEL
-- RESTRICTED.  Their search_path is pinned, so that no operator or function
-- planted in a schema of the caller's path can stand in for a built-in one
-- (regclass arguments print schema-qualified under it).
-- ---------------------------------------------------------------------------

CREATE FUNCTION near_dupe_summary(group_table regclass)
	RETURNS TABLE(documents bigint, groups bigint, singletons bigint, documents_in_groups bigint,
				  review_without_grouping bigint, review_with_grouping bigint, review_saved_pct numeric)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT count(*), count(DISTINCT g.group_id),
		       count(*) FILTER (WHERE s.size = 1), count(*) FILTER (WHERE s.size > 1),
		       count(*), count(DISTINCT g.group_id),
		       CASE WHEN count(*) = 0 THEN 0::numeric
		            ELSE round(100.0 * (count(*) - count(DISTINCT g.group_id)) / count(*), 1) END
		  FROM %1$s g JOIN (SELECT group_id, count(*) AS size FROM %1$s GROUP BY group_id) s USING (group_id)
		$q$, group_table);
END $$;

COMMENT ON FUNCTION near_dupe_summary(regclass) IS 'documents, groups, singletons, and the documents to review without grouping (all) and with it (one per group)';

CREATE FUNCTION near_dupe_histogram(group_table regclass)
	RETURNS TABLE(group_size bigint, groups bigint, documents bigint, bar text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	RETURN QUERY EXECUTE format($q$
		SELECT size, count(*), sum(size)::bigint,
		       repeat('#', ceil(50.0 * count(*) / max(count(*)) OVER ())::int)
		  FROM (SELECT group_id, count(*) AS size FROM %s GROUP BY group_id) s
		 GROUP BY size ORDER BY size
		$q$, group_table);
END $$;

COMMENT ON FUNCTION near_dupe_histogram(regclass) IS 'number of groups and documents per group size, with a bar for psql';

CREATE FUNCTION near_dupe_group_stats(group_table regclass)
	RETURNS TABLE(group_id bigint, pivot text, size bigint, avg_resemblance double precision,
				  min_resemblance double precision)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	-- The pivot's resemblance to itself (1) is left out of the averages.
	RETURN QUERY EXECUTE format($q$
		SELECT g.group_id, min(g.pivot), count(*),
		       avg(g.resemblance) FILTER (WHERE g.key IS DISTINCT FROM g.pivot),
		       min(g.resemblance) FILTER (WHERE g.key IS DISTINCT FROM g.pivot)
		  FROM %s g GROUP BY g.group_id HAVING count(*) > 1
		 ORDER BY count(*) DESC, g.group_id
		$q$, group_table);
END $$;

COMMENT ON FUNCTION near_dupe_group_stats(regclass) IS 'each group of two or more documents: its pivot, size, and the average and minimum resemblance of its members to the pivot';

CREATE FUNCTION near_dupe_group_detail(group_table regclass, source regclass, key_column name, text_column name,
									   group_id bigint, min_words integer DEFAULT 5, format text DEFAULT 'text')
	RETURNS TABLE(key text, role text, resemblance double precision, common_words integer,
				  s_l double precision, marked text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	key_type text;
	text_type text;
	pivot_key text;
	pivot_text text;
	member record;
	member_text text;
	fetch_text text;
BEGIN
	SELECT format_type(a.atttypid, a.atttypmod) INTO key_type
	  FROM pg_attribute a WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF key_type IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', key_column, source);
	END IF;
	SELECT format_type(a.atttypid, a.atttypmod) INTO text_type
	  FROM pg_attribute a WHERE a.attrelid = source AND a.attname = text_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF text_type IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', text_column, source);
	END IF;

	EXECUTE format('SELECT min(pivot) FROM %s WHERE group_id = $1', group_table) INTO pivot_key USING group_id;
	IF pivot_key IS NULL THEN
		RAISE EXCEPTION USING ERRCODE = 'no_data_found',
			MESSAGE = format('group %s not found in %s', group_id, group_table);
	END IF;
	-- The key cast to the column's own type, so that an index on it serves.
	fetch_text := format('SELECT %I::text FROM %s WHERE %I = CAST($1 AS %s)', text_column, source, key_column, key_type);
	EXECUTE fetch_text INTO pivot_text USING pivot_key;

	key := pivot_key;
	role := 'pivot';
	resemblance := 1;
	common_words := NULL;
	s_l := NULL;
	-- Against the empty text: nothing marked, but escaped as format asks.
	SELECT h.a_marked INTO marked FROM @extschema@.highlight(pivot_text, '', min_words, format) h;
	RETURN NEXT;

	FOR member IN EXECUTE format('SELECT g.key, g.resemblance FROM %s g WHERE g.group_id = $1 AND g.key IS DISTINCT FROM g.pivot ORDER BY g.resemblance DESC, g.key', group_table)
			USING group_id LOOP
		EXECUTE fetch_text INTO member_text USING member.key;
		key := member.key;
		role := 'member';
		resemblance := member.resemblance;
		SELECT c.common_words, c.s_l INTO common_words, s_l
		  FROM @extschema@.chunk_similarity(pivot_text, member_text, min_words) c;
		SELECT h.b_marked INTO marked FROM @extschema@.highlight(pivot_text, member_text, min_words, format) h;
		RETURN NEXT;
	END LOOP;
END $$;

COMMENT ON FUNCTION near_dupe_group_detail(regclass, regclass, name, name, bigint, integer, text) IS 'one group for review: the pivot''s text, then each member with its resemblance, the words it shares with the pivot in chunks, and its text with those chunks marked';

-------------------------------------------------------------------------------
-- Union of signatures: minhash_union(a, b) and the minhash_union aggregate
-------------------------------------------------------------------------------

CREATE FUNCTION minhash_union(a minhash, b minhash) RETURNS minhash
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_union(minhash, minhash) IS 'signature of the union of two sets: the position-wise minimum; its size is an estimate';

-- The state is a minhash: partial aggregates are signatures, combined by the
-- same function, so parallel (and distributed) aggregation needs nothing else.
CREATE AGGREGATE minhash_union(minhash) (
	SFUNC = minhash_union,
	STYPE = minhash,
	COMBINEFUNC = minhash_union,
	PARALLEL = SAFE
);

COMMENT ON AGGREGATE minhash_union(minhash) IS 'signature of the union of the sets: the position-wise minimum; null for no rows';

-------------------------------------------------------------------------------
-- Flagging duplicates on insert
-------------------------------------------------------------------------------

-- Runs a query: VOLATILE, and a trigger never runs in a parallel worker.
CREATE FUNCTION minhash_flag_duplicates() RETURNS trigger
	AS 'MODULE_PATHNAME' LANGUAGE C;

COMMENT ON FUNCTION minhash_flag_duplicates() IS 'BEFORE INSERT OR UPDATE row trigger; arguments (sig_column, flag_column, threshold [, key_column]): sets the flag column to the key of the most similar other row at or above the threshold, or null';

-------------------------------------------------------------------------------
-- Grouping a table: near_dupe_pairs (the self-join through band keys) and
-- near_dupe_groups (greedy pivots)
-------------------------------------------------------------------------------

-- The greedy walk of near_dupe_groups() as SQL (near_dupe_query(..., groups
-- => true)), in C: a window function over the verified pairs directed from the better-ranked row to the other, ordered by
-- the better row's rank.  Its answer depends on the rows before it, like
-- row_number(), which is marked the same way.
CREATE FUNCTION near_dupe_group_walk(better tid, worse tid) RETURNS boolean
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_group_walk' LANGUAGE C IMMUTABLE WINDOW PARALLEL SAFE;

COMMENT ON FUNCTION near_dupe_group_walk(tid, tid) IS 'window function behind near_dupe_query(..., groups => true), the grouping of near_dupe_groups as one SQL statement: over pairs (better row, worse row) ordered by the better row''s rank, true when the worse row joins the better row''s group';

-- The checks near_dupe_pairs(), near_dupe_groups() and near_dupe_query()
-- make of their arguments, and one scan of the table for the signatures'
-- parameters, which must all be the same.
CREATE FUNCTION near_dupe_check(source regclass, key_column name, sig_column name,
								threshold double precision,
								OUT row_count bigint, OUT signed bigint, OUT num_perm integer, OUT key_type oid)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	AS $function$
DECLARE
	kind "char";
	sig_type oid;
	sig_typmod integer;
	stats record;
BEGIN
	IF source IS NULL OR key_column IS NULL OR sig_column IS NULL THEN
		RAISE EXCEPTION 'source, key column and signature column must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT c.relkind INTO kind FROM pg_catalog.pg_class c WHERE c.oid = source;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'relation with OID % does not exist', source::oid USING ERRCODE = 'undefined_table';
	END IF;
	IF kind = 'p' THEN
		RAISE EXCEPTION 'cannot group the rows of partitioned table "%"', source
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Group each partition, or a table made from the partitioned table.';
	ELSIF kind NOT IN ('r', 'm') THEN
		RAISE EXCEPTION '"%" is not a table or materialized view', source
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Rows are addressed by ctid: make a table from a view or query first.';
	END IF;
	SELECT a.atttypid INTO near_dupe_check.key_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', key_column, source
			USING ERRCODE = 'undefined_column';
	END IF;
	SELECT a.atttypid, a.atttypmod INTO sig_type, sig_typmod FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = sig_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', sig_column, source
			USING ERRCODE = 'undefined_column';
	END IF;
	IF sig_type <> '@extschema@.minhash'::pg_catalog.regtype THEN
		RAISE EXCEPTION 'column "%" is of type %, not minhash', sig_column,
			pg_catalog.format_type(sig_type, sig_typmod)
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	IF threshold IS NOT NULL AND NOT (threshold BETWEEN 0 AND 1) THEN
		RAISE EXCEPTION 'resemblance threshold must be between 0 and 1'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given was %s.', threshold);
	END IF;

	-- Every signature must be comparable with every other: one parameter set.
	EXECUTE format($q$
		SELECT count(*) AS row_count, count(s.%1$I) AS signed,
			   min(@extschema@.minhash_num_perm(s.%1$I)) AS min_n, max(@extschema@.minhash_num_perm(s.%1$I)) AS max_n,
			   min(@extschema@.minhash_seed(s.%1$I)) AS min_seed, max(@extschema@.minhash_seed(s.%1$I)) AS max_seed,
			   min(coalesce(@extschema@.minhash_shingle_size(s.%1$I), 0)) FILTER (WHERE s.%1$I IS NOT NULL) AS min_k,
			   max(coalesce(@extschema@.minhash_shingle_size(s.%1$I), 0)) FILTER (WHERE s.%1$I IS NOT NULL) AS max_k,
			   min(@extschema@.minhash_kind(s.%1$I)) AS min_kind, max(@extschema@.minhash_kind(s.%1$I)) AS max_kind
		  FROM ONLY %2$s s$q$, sig_column, source) INTO stats;
	IF stats.min_n <> stats.max_n OR stats.min_seed <> stats.max_seed OR stats.min_k <> stats.max_k
	   OR stats.min_kind <> stats.max_kind THEN
		RAISE EXCEPTION 'column "%" holds minhash signatures built with different parameters', sig_column
			USING ERRCODE = 'data_exception',
				  DETAIL = format('Hash values %s to %s, seeds %s to %s, shingle sizes %s to %s, kinds %s to %s.',
								  stats.min_n, stats.max_n, stats.min_seed, stats.max_seed,
								  stats.min_k, stats.max_k, stats.min_kind, stats.max_kind),
				  HINT = 'Only signatures built the same way can be compared: group each parameter set separately.';
	END IF;

	row_count := stats.row_count;
	signed := stats.signed;
	num_perm := stats.min_n;
END
$function$;

COMMENT ON FUNCTION near_dupe_check(regclass, name, name, double precision) IS 'checks the arguments of near_dupe_pairs, near_dupe_groups and near_dupe_query, and that every signature of the column was built the same way; returns how many rows are signed, the number of hash values and the key''s type';

-- The query near_dupe_pairs() runs, or (groups) the same grouping as
-- near_dupe_groups() as one SQL statement, after checking the arguments and
-- reading the signature parameters (near_dupe_check).
-- Exactness: lsh_index_layout(t, n) gives b bands of r values such that a
-- pair with resemblance >= t disagrees in at most D = b - min_bands positions,
-- so at most D bands differ and at least min_bands band keys are equal.  The
-- query makes a candidate of every pair sharing min_bands keys and keeps the
-- candidates whose resemblance reaches t: exactly the pairs a comparison of
-- every pair would keep, without comparing every pair.  Signatures that hash
-- to one key (chance collisions) only add candidates, which the check drops.
-- Rows are addressed by ctid: the query is one statement, so one snapshot.
-- Every stage is a sort or a join that spills to disk beyond work_mem, once
-- hashed aggregation is off (near_dupe_pairs turns it off): hashing the band
-- keys, nearly all distinct, spills into many batches and is slower than
-- sorting them.  Run the groups query with
-- enable_hashagg and enable_mergejoin off (a merge join would sort every
-- row, signature included, to match the few copies).
CREATE FUNCTION near_dupe_query(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT NULL, groups boolean DEFAULT false)
	RETURNS text LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	AS $function$
DECLARE
	stats record;
	layout_threshold double precision;
	verify text;
	layout record;
	pairs_query text;
BEGIN
	IF groups IS NULL THEN
		RAISE EXCEPTION 'groups must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT * INTO stats FROM @extschema@.near_dupe_check(source, key_column, sig_column, threshold);

	-- The threshold, and the band layout that finds every pair at it.  With
	-- no threshold given, the pairs are those of % (the setting itself), and
	-- the layout is taken a hair lower since SHOW rounds the setting.
	IF threshold IS NULL THEN
		layout_threshold := greatest(0, pg_catalog.current_setting('minhash.threshold')::double precision - 1e-6);
		verify := format('sa.%1$I OPERATOR(@extschema@.%%) sb.%1$I', sig_column);
	ELSE
		layout_threshold := threshold;
		verify := format('@extschema@.resemblance(sa.%1$I, sb.%1$I) >= %2$L::double precision', sig_column, threshold);
	END IF;
	IF stats.signed < 2 THEN
		pairs_query := 'SELECT NULL::tid AS tid_a, NULL::tid AS tid_b, NULL::bigint AS size_a, NULL::bigint AS size_b, '
					   || format('NULL::%s AS key_a, NULL::%1$s AS key_b, ', pg_catalog.format_type(stats.key_type, NULL))
					   || 'NULL::double precision AS resemblance WHERE false';
	ELSE
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(layout_threshold, stats.num_perm);
		pairs_query := format($q$
	WITH band_keys AS (
		SELECT s.ctid AS tid, k.band_key
		  FROM ONLY %1$s s CROSS JOIN LATERAL pg_catalog.unnest(@extschema@.minhash_bands(s.%3$I, %4$s, %5$s)) AS k(band_key)
		 WHERE s.%3$I IS NOT NULL%8$s
	), buckets AS (
		SELECT pg_catalog.array_agg(tid) AS tids FROM band_keys GROUP BY band_key HAVING count(*) > 1
	), candidates AS (
		SELECT least(a.tid, b.tid) AS tid_a, greatest(a.tid, b.tid) AS tid_b
		  FROM buckets CROSS JOIN LATERAL pg_catalog.unnest(tids) WITH ORDINALITY AS a(tid, i)
			   CROSS JOIN LATERAL pg_catalog.unnest(tids[i + 1:]) AS b(tid)
		 WHERE a.tid <> b.tid
		 GROUP BY 1, 2 HAVING count(*) >= %6$s
	)
	SELECT c.tid_a, c.tid_b,
		   @extschema@.minhash_size(sa.%3$I) AS size_a, @extschema@.minhash_size(sb.%3$I) AS size_b,
		   sa.%2$I AS key_a, sb.%2$I AS key_b,
		   @extschema@.resemblance(sa.%3$I, sb.%3$I) AS resemblance
	  FROM candidates c JOIN ONLY %1$s sa ON sa.ctid = c.tid_a JOIN ONLY %1$s sb ON sb.ctid = c.tid_b
	 WHERE %7$s$q$,
			source, key_column, sig_column, layout.bands, layout.rows, layout.min_bands, verify,
			CASE WHEN groups THEN '
		   AND NOT EXISTS (SELECT 1 FROM copies c WHERE c.tid = s.ctid)' ELSE '' END);
	END IF;

	IF NOT groups THEN
		-- key_a sorts before key_b in the key column's own order (nulls last;
		-- equal keys in physical order).
		RETURN format($q$
SELECT first_key::text AS key_a, second_key::text AS key_b, resemblance
  FROM (SELECT CASE WHEN a_first THEN key_a ELSE key_b END AS first_key,
			   CASE WHEN a_first THEN key_b ELSE key_a END AS second_key, resemblance
		  FROM (SELECT p.*, coalesce(p.key_a < p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
							OR (p.key_a IS NOT DISTINCT FROM p.key_b AND p.tid_a < p.tid_b) AS a_first
				  FROM (%1$s) p) d) o
 ORDER BY first_key, second_key$q$, pairs_query);
	END IF;

	-- Rank: most distinct shingles first, then key (nulls last), then ctid
	-- (only for equal keys).  Each pair is directed from its better-ranked
	-- row; the walk reads them in the better row's rank order.  Every row of
	-- the table comes out once: with its pivot if the walk gave it one,
	-- else as a pivot itself (resemblance 1; null for a null signature).
	-- Copies: a row whose signature is identical to a better-ranked row's
	-- (within the threshold of itself) goes wherever that row goes, since
	-- every resemblance of the two is the same; so only the best-ranked of
	-- identical signatures takes part in the pairs, and n copies of one
	-- document cost n rows instead of n^2 / 2 pairs.  Identical signatures
	-- are found by a 64-bit hash, then compared whole.  The table is read
	-- once for what these stages need (rows_read), so that their sorts and
	-- hashes do not carry the signatures along.
	RETURN format($q$
WITH rows_read AS (
	SELECT s.ctid AS tid, s.%2$I AS key, @extschema@.minhash_size(s.%3$I) AS size,
		   @extschema@.minhash_hash_extended(s.%3$I, 0) AS sig_hash
	  FROM ONLY %4$s s
), twins AS (
	SELECT r.sig_hash FROM rows_read r WHERE r.size IS NOT NULL GROUP BY r.sig_hash HAVING pg_catalog.count(*) > 1
), copies AS (
	SELECT x.tid, x.rep_tid, x.rep_key, x.size, x.resemblance
	  FROM (SELECT y.*,
				   (SELECT CASE WHEN sb.%3$I OPERATOR(@extschema@.=) sa.%3$I AND %5$s
								THEN @extschema@.resemblance(sa.%3$I, sb.%3$I) END
					  FROM ONLY %4$s sa, ONLY %4$s sb WHERE sa.ctid = y.rep_tid AND sb.ctid = y.tid) AS resemblance
			  FROM (SELECT r.tid, r.size,
						   pg_catalog.first_value(r.tid) OVER same_hash AS rep_tid,
						   pg_catalog.first_value(r.key) OVER same_hash AS rep_key
					  FROM rows_read r JOIN twins w ON w.sig_hash = r.sig_hash
					WINDOW same_hash AS (PARTITION BY r.sig_hash ORDER BY r.key, r.tid)) y
			 WHERE y.tid <> y.rep_tid
			OFFSET 0) x
	 WHERE x.resemblance IS NOT NULL
), pairs AS (%1$s
), directed AS (
	SELECT CASE WHEN a_better THEN tid_a ELSE tid_b END AS better_tid,
		   CASE WHEN a_better THEN tid_b ELSE tid_a END AS worse_tid,
		   CASE WHEN a_better THEN size_a ELSE size_b END AS better_size,
		   CASE WHEN a_better THEN key_a ELSE key_b END AS better_key, resemblance
	  FROM (SELECT p.*, p.size_a > p.size_b
						OR (p.size_a = p.size_b
							AND (coalesce(p.key_a < p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
								 OR (p.key_a IS NOT DISTINCT FROM p.key_b AND p.tid_a < p.tid_b))) AS a_better
			  FROM pairs p) d
), taken AS (
	SELECT worse_tid AS tid, better_tid AS pivot_tid, better_size AS pivot_size, better_key AS pivot_key, resemblance
	  FROM (SELECT d.*, @extschema@.near_dupe_group_walk(better_tid, worse_tid)
						  OVER (ORDER BY better_size DESC, better_key, better_tid) AS joins
			  FROM directed d) w
	 WHERE joins
), taken_copies AS (
	SELECT c.tid, coalesce(t.pivot_tid, c.rep_tid) AS pivot_tid,
		   CASE WHEN t.tid IS NULL THEN c.size ELSE t.pivot_size END AS pivot_size,
		   CASE WHEN t.tid IS NULL THEN c.rep_key ELSE t.pivot_key END AS pivot_key,
		   CASE WHEN t.tid IS NULL THEN c.resemblance ELSE t.resemblance END AS resemblance
	  FROM copies c LEFT JOIN taken t ON t.tid = c.rep_tid
), assigned AS (
	SELECT s.tid, s.key, s.size,
		   coalesce(t.pivot_tid, s.tid) AS pivot_tid,
		   CASE WHEN t.tid IS NULL THEN s.size ELSE t.pivot_size END AS pivot_size,
		   CASE WHEN t.tid IS NULL THEN s.key ELSE t.pivot_key END AS pivot_key,
		   CASE WHEN t.tid IS NOT NULL THEN t.resemblance WHEN s.size IS NOT NULL THEN 1.0::double precision END AS resemblance
	  FROM rows_read s LEFT JOIN (SELECT * FROM taken UNION ALL SELECT * FROM taken_copies) t ON t.tid = s.tid
)
SELECT dense_rank() OVER (ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid) AS group_id,
	   key::text AS key, pivot_key::text AS pivot, resemblance
  FROM assigned a
 ORDER BY pivot_size DESC NULLS LAST, pivot_key, pivot_tid, tid <> pivot_tid, size DESC NULLS LAST, a.key, tid$q$,
		pairs_query, key_column, sig_column, source, verify);
END
$function$;

COMMENT ON FUNCTION near_dupe_query(regclass, name, name, double precision, boolean) IS 'the query near_dupe_pairs runs (groups false), or the grouping of near_dupe_groups as one SQL statement that works within work_mem (groups true; run it with enable_hashagg and enable_mergejoin off); checks the arguments and reads the signatures'' parameters';

CREATE FUNCTION near_dupe_pairs(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT NULL)
	RETURNS TABLE(key_a text, key_b text, resemblance double precision)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET enable_hashagg = off
	AS $function$
BEGIN
	RETURN QUERY EXECUTE @extschema@.near_dupe_query(source, key_column, sig_column, threshold, false);
END
$function$;

COMMENT ON FUNCTION near_dupe_pairs(regclass, name, name, double precision) IS 'every pair of rows whose signatures'' resemblance is at least threshold (null: minhash.threshold), found through LSH band keys; exactly the pairs of the self-join with %';

-- The grouping itself runs in memory (minhash_near_dupe_groups.c): a walk
-- that can be cancelled at any moment and writes nothing to disk.
CREATE FUNCTION near_dupe_groups(source regclass, key_column name, sig_column name,
								 threshold double precision DEFAULT NULL)
	RETURNS TABLE(group_id bigint, key text, pivot text, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION near_dupe_groups(regclass, name, name, double precision) IS 'every row in one near-duplicate group: pivots are the rows with the most distinct shingles (ties by key), each taking the rows not yet taken whose resemblance to it is at least threshold';
