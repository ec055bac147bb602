/* minhash--1.0--1.1.sql: from 1.0 to 1.1 */

\echo Use "ALTER EXTENSION minhash UPDATE TO '1.1'" to load this file. \quit

-- CREATE EXTENSION minhash runs minhash--1.0.sql and then this script, so a
-- fresh install and an upgraded one run the same statements
-- (test/upgrade/fresh_vs_upgraded.sh checks the two are identical object by
-- object).  The script states 1.1 once: each object is created or changed in
-- one place, in sections by concern, with its one comment.
--
-- It never drops an object of 1.0: a user's view or function may depend on
-- any of them, and ALTER EXTENSION minhash UPDATE would then stop.  A 1.0
-- function keeps its arguments and its result (columns, their names and
-- types, in their order) and is changed only by CREATE OR REPLACE, which
-- PostgreSQL refuses for anything else; a function of 1.1 with other
-- columns or arguments is an overload that no 1.0 call can reach, or a new
-- name.  test/upgrade/fresh_vs_upgraded.sh updates a 1.0 database holding a
-- view over every 1.0 function that returns a set or a record, and checks
-- they return the same rows afterwards.

-------------------------------------------------------------------------------
-- Building signatures
-------------------------------------------------------------------------------

-- minhash(x) of a varchar or char(n) column.  A one-argument call named like
-- a type with no exact match is read by PostgreSQL as a cast (before any
-- implicit cast of the argument is tried), so minhash(body) of a varchar
-- went through minhash_in and failed.  These exact overloads stop that.  They
-- are the C function of minhash(text): varchar is text in memory, and a
-- char(n)'s padding is spaces at the end, which the word tokenizer skips as
-- it skips them in text (sql/input.sql checks the signatures are equal).
-- An untyped literal still prefers text (string category, preferred type),
-- so minhash('...', 64), minhash(doc => '...') and untyped parameters resolve
-- as before; minhash('...') alone is still a cast, whose error now says how
-- to spell it (src/minhash_io.c).  minhash_chars() is no type name: it took
-- varchar and char(n) through their casts to text already.
CREATE FUNCTION @extschema@.minhash(doc character varying, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_words' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.minhash(character varying, integer, integer, integer) IS 'MinHash signature of a document''s word shingles (shingle_size consecutive words); the same as minhash(doc::text, ...)';

CREATE FUNCTION @extschema@.minhash(doc character, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_words' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 100;

COMMENT ON FUNCTION @extschema@.minhash(character, integer, integer, integer) IS 'MinHash signature of a document''s word shingles (shingle_size consecutive words); the same as minhash(doc::text, ...)';

-- Signatures of sets under a name of their own.  minhash(text[]) stays for
-- compatibility, but an untyped argument prefers minhash(text): a driver
-- that sends an array as an untyped parameter ('{a,b,c}') gets the word
-- signature of that text.  minhash_set() has no text form to fall into: an
-- untyped argument is read as text[], a text is refused (42883).
CREATE FUNCTION @extschema@.minhash_set(elements text[], num_perm integer DEFAULT 128, seed integer DEFAULT 0)
	RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_set' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_set(text[], integer, integer) IS 'MinHash signature of a set of strings, each taken as it is (the same as minhash(text[]), which an untyped argument cannot reach)';

-- Character shingles with minhash()'s argument order (doc, num_perm,
-- shingle_size, seed).  minhash_chars(doc, q, num_perm, seed) stays as it
-- was: reordering it would silently change the meaning of every positional
-- call (minhash_chars(doc, 3) means q = 3), and views, generated columns and
-- indexes may depend on it.
CREATE FUNCTION minhash_char_shingles(doc text, num_perm integer DEFAULT 128, shingle_size integer DEFAULT 5, seed integer DEFAULT 0)
	RETURNS minhash
	AS 'MODULE_PATHNAME', 'minhash_char_shingles' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE COST 500;

COMMENT ON FUNCTION minhash_char_shingles(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (shingle_size consecutive characters of its words, one space between words); the arguments in minhash()''s order';
COMMENT ON FUNCTION minhash_chars(text, integer, integer, integer) IS 'MinHash signature of a document''s character shingles (q consecutive characters of its words, one space between words); kept for compatibility: minhash_char_shingles takes the arguments in minhash()''s order';

-- What building a signature costs the planner.  Building one hashes every
-- word and shingle of its document: more than md5() on the same bytes, and
-- more again with character shingles (test/bench/README.md has the
-- figures).  At the default COST 1 the planner takes it for
-- free, and CREATE TABLE ... AS SELECT minhash(body) never runs in parallel
-- (a parallel plan saves only CPU, and it would see none).  100 (in units of
-- cpu_operator_cost) is what a signature of a few hundred bytes of text
-- costs measured against a sequential scan's per-row cost; with it such
-- statements get parallel workers.  The new builders above are declared
-- with the same costs.  Nothing else changes: the functions are as
-- IMMUTABLE, STRICT and PARALLEL SAFE as before.
ALTER FUNCTION @extschema@.minhash(text, integer, integer, integer) COST 100;
ALTER FUNCTION @extschema@.shingle_hashes(text, integer, integer) COST 100;
ALTER FUNCTION @extschema@.minhash_chars(text, integer, integer, integer) COST 500;

-------------------------------------------------------------------------------
-- Comparing signatures
-------------------------------------------------------------------------------

-- % and %> (so resembles(), the flagging trigger and an index's recheck)
-- refuse signatures built with other parameters, as the measures do; the
-- planner's estimate of both must not: matchingsel runs the operator on the
-- column's statistics, so over a column of mixed signatures it would raise
-- while planning.  Their estimators compute matchingsel's estimate with a
-- test that counts a statistics value of other parameters as not matching
-- (src/minhash_selectivity.c); %>'s is minhash_query_restrict (Lookups and
-- the index).  resemblance_interval follows the set-returning protocol
-- (library only).  The comments name the byte order of the btree operators.
CREATE FUNCTION minhash_similar_restrict(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_similar_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_similar_restrict(internal, oid, internal, integer) IS 'restriction estimator of %: the fraction of the column''s statistics that match, a signature of other parameters counting as not matching';

ALTER OPERATOR %(minhash, minhash) SET (RESTRICT = minhash_similar_restrict);

COMMENT ON FUNCTION minhash_lt(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than';
COMMENT ON FUNCTION minhash_le(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than or equal';
COMMENT ON FUNCTION minhash_gt(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than';
COMMENT ON FUNCTION minhash_ge(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than or equal';
COMMENT ON FUNCTION minhash_cmp(minhash, minhash) IS 'btree support: order of signatures, their bytes as a little-endian machine stores them';
COMMENT ON OPERATOR <(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than';
COMMENT ON OPERATOR <=(minhash, minhash) IS 'order of signatures (bytes as little-endian): less than or equal';
COMMENT ON OPERATOR >(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than';
COMMENT ON OPERATOR >=(minhash, minhash) IS 'order of signatures (bytes as little-endian): greater than or equal';

-- A text where a signature belongs: resemblance(sig, body), sig % body and
-- resembles(sig, body, t) say to build the body's signature with minhash()
-- (42804), instead of "function does not exist" or a failed cast.  The text
-- may be a minhash literal, read as minhash_in reads it, once per call site.
-- Untyped literals and parameters: an untyped second operand of % still
-- resolves to % (minhash, minhash) (an operator takes the other operand's
-- type first); resemblance(sig, '...') and resembles(sig, '...', t) resolve
-- to the text forms (text is the preferred string type).
-- resembles(minhash, text, t) and % (minhash, text) are SQL that the
-- planner inlines into the indexable operators, around
-- minhash_literal_signature, which it folds into a constant signature when
-- the text is a constant: a literal keeps its plan and its index.  There is
-- no text-first form: with resemblance(text, minhash) too,
-- resemblance('...', '...') of two untyped literals would be ambiguous.
CREATE FUNCTION @extschema@.minhash_literal_signature(literal text, caller text) RETURNS @extschema@.minhash
	AS 'MODULE_PATHNAME', 'minhash_literal_signature' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_literal_signature(text, text) IS 'the signature a minhash literal spells; for any other text, an error saying to build its signature with minhash(), in the words of caller (''resemblance'', ''%'' or ''resembles'')';

CREATE FUNCTION @extschema@.resemblance(a @extschema@.minhash, b text) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_resemblance_text' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.resemblance(@extschema@.minhash, text) IS 'resemblance(a, b::minhash) for b a minhash literal; for any other text, an error saying to build its signature with minhash()';

CREATE FUNCTION @extschema@.minhash_similar_text(a @extschema@.minhash, b text) RETURNS boolean
	LANGUAGE sql STABLE STRICT PARALLEL SAFE
	AS $$ SELECT a OPERATOR(@extschema@.%) @extschema@.minhash_literal_signature(b, '%') $$;

COMMENT ON FUNCTION @extschema@.minhash_similar_text(@extschema@.minhash, text) IS 'behind % (minhash, text): a % b::minhash for b a minhash literal; for any other text, an error saying to build its signature with minhash()';

-- No estimators: the planner inlines the function into % (minhash,
-- minhash), whose estimator applies, before it estimates anything.
CREATE OPERATOR @extschema@.% (
	LEFTARG = @extschema@.minhash,
	RIGHTARG = text,
	FUNCTION = @extschema@.minhash_similar_text
);

COMMENT ON OPERATOR @extschema@.%(@extschema@.minhash, text) IS 'sig % b::minhash for b a minhash literal; for any other text, an error saying to build its signature with minhash()';

CREATE FUNCTION @extschema@.resembles(a @extschema@.minhash, b text, threshold double precision) RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$ SELECT a OPERATOR(@extschema@.%>) @extschema@.minhash_query(@extschema@.minhash_literal_signature(b, 'resembles'), threshold) $$;

COMMENT ON FUNCTION @extschema@.resembles(@extschema@.minhash, text, double precision) IS 'resembles(a, b::minhash, threshold) for b a minhash literal; for any other text, an error saying to build its signature with minhash()';

-- pgvector's distance operators, <-> and <=>, on signatures: an error naming
-- minhash's own operators, not a bare "operator does not exist".  Not
-- aliases of <%>: pgvector's users expect them to order an index scan, and
-- no minhash index orders; % and %> are the indexable form.
CREATE FUNCTION @extschema@.minhash_vector_l2_operator(@extschema@.minhash, @extschema@.minhash) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_vector_l2_operator(@extschema@.minhash, @extschema@.minhash) IS 'behind <->: raises an error naming the operators to use instead';

CREATE FUNCTION @extschema@.minhash_vector_cosine_operator(@extschema@.minhash, @extschema@.minhash) RETURNS double precision
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_vector_cosine_operator(@extschema@.minhash, @extschema@.minhash) IS 'behind <=>: raises an error naming the operators to use instead';

CREATE OPERATOR @extschema@.<-> (
	LEFTARG = @extschema@.minhash,
	RIGHTARG = @extschema@.minhash,
	FUNCTION = @extschema@.minhash_vector_l2_operator,
	COMMUTATOR = OPERATOR(@extschema@.<->)
);

COMMENT ON OPERATOR @extschema@.<->(@extschema@.minhash, @extschema@.minhash) IS 'not supported (pgvector''s L2 distance): an error naming <%>, % and %>';

CREATE OPERATOR @extschema@.<=> (
	LEFTARG = @extschema@.minhash,
	RIGHTARG = @extschema@.minhash,
	FUNCTION = @extschema@.minhash_vector_cosine_operator,
	COMMUTATOR = OPERATOR(@extschema@.<=>)
);

COMMENT ON OPERATOR @extschema@.<=>(@extschema@.minhash, @extschema@.minhash) IS 'not supported (pgvector''s cosine distance): an error naming <%>, % and %>';

-------------------------------------------------------------------------------
-- Lookups and the index
-------------------------------------------------------------------------------

-- A generic plan of resembles(sig, $1, $2) cannot see the threshold, and
-- below what the index's layout guarantees a gin_minhash_ops scan reads
-- every posting list: matchingsel let such plans take the index at any
-- threshold.  %> gets an estimator that says so (src/minhash_selectivity.c):
-- selectivity 1 when the operand is not a constant and the index may read
-- everything; otherwise the estimate of mixed statistics (Comparing
-- signatures).
CREATE FUNCTION minhash_query_restrict(internal, oid, internal, integer) RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_query_restrict' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION minhash_query_restrict(internal, oid, internal, integer) IS 'restriction estimator of %>: every row when the threshold is unknown at planning, or below what the column''s index narrows; otherwise the fraction of the column''s statistics that match, a signature of other parameters counting as not matching';

ALTER OPERATOR %>(minhash, minhash_query) SET (RESTRICT = minhash_query_restrict);

-- gin_minhash_ops records its key layout in the option `layout` (absent:
-- layout 1, the keys of every index built before the option existed), and
-- its other defaults come from that layout, not from the running library
-- (src/minhash_gin.c).  The options procedure is C; only the descriptions
-- change here.
COMMENT ON FUNCTION @extschema@.minhash_gin_options(internal) IS 'GIN support: the bands, rows, threshold, key_bits and layout options of gin_minhash_ops (a recall is refused: see gin_minhash_approx_ops)';
COMMENT ON OPERATOR FAMILY @extschema@.gin_minhash_ops USING gin IS 'LSH band keys of signatures: %, %> and %~, exactly';
COMMENT ON OPERATOR CLASS @extschema@.gin_minhash_ops USING gin IS 'LSH band index: near-duplicate lookups with %, %> and %~ that never miss a row a sequential scan would return';

-- An index that may return fewer rows than a sequential scan must never
-- answer an exact query, so it has an operator family of its own that holds
-- only the approximate operator: %~ ("approximately resembles") is exactly
-- %> on a sequential scan (the same function), and through a
-- gin_minhash_approx_ops index it returns the rows sharing a band key of the
-- index's layout (mh_recall_layout for its threshold and recall options,
-- approximate layout 1), each rechecked.  %, %>, resembles() and the
-- flagging trigger's lookup are not in that family, so the planner never
-- takes the approximate index for them.  gin_minhash_ops serves %~ too, as
-- exactly as %> (a superset is fine), so an exact index answers an
-- approximate query.  gin_minhash_ops's recall option is refused, with a
-- hint naming this operator class (src/minhash_gin.c).
CREATE OPERATOR @extschema@.%~ (
	LEFTARG = @extschema@.minhash,
	RIGHTARG = @extschema@.minhash_query,
	FUNCTION = @extschema@.minhash_query_match,
	RESTRICT = @extschema@.minhash_query_restrict,
	JOIN = matchingjoinsel
);

COMMENT ON OPERATOR @extschema@.%~(@extschema@.minhash, @extschema@.minhash_query) IS 'approximately resembles: %> on a sequential scan; through a gin_minhash_approx_ops index, the rows sharing a band key, so it may return fewer (an error for signatures built with other parameters)';

-- Written in SQL, without a SET clause, so that the planner inlines it into
-- the indexable operator, as resembles() into %>: its body qualifies every
-- reference and every argument has the exact type.
CREATE FUNCTION @extschema@.resembles_approx(a @extschema@.minhash, b @extschema@.minhash, threshold double precision) RETURNS boolean
	LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
	AS $$ SELECT a OPERATOR(@extschema@.%~) @extschema@.minhash_query(b, threshold) $$;

COMMENT ON FUNCTION @extschema@.resembles_approx(@extschema@.minhash, @extschema@.minhash, double precision) IS 'resembles() answered approximately where a gin_minhash_approx_ops index serves it (the %~ operator): at least threshold, possibly missing some such rows';

ALTER OPERATOR FAMILY @extschema@.gin_minhash_ops USING gin
	ADD OPERATOR 3 @extschema@.%~ (@extschema@.minhash, @extschema@.minhash_query);

CREATE FUNCTION @extschema@.minhash_gin_approx_extract_value(@extschema@.minhash, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_gin_approx_extract_query(@extschema@.minhash, internal, int2, internal, internal, internal, internal) RETURNS internal
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE STRICT PARALLEL SAFE;
CREATE FUNCTION @extschema@.minhash_gin_approx_options(internal) RETURNS void
	AS 'MODULE_PATHNAME' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_gin_approx_extract_value(@extschema@.minhash, internal, internal) IS 'GIN support: the approximate layout''s band keys of a stored signature';
COMMENT ON FUNCTION @extschema@.minhash_gin_approx_extract_query(@extschema@.minhash, internal, int2, internal, internal, internal, internal) IS 'GIN support: the approximate layout''s band keys of a %~ query';
COMMENT ON FUNCTION @extschema@.minhash_gin_approx_options(internal) IS 'GIN support: the threshold, recall, key_bits and layout options of gin_minhash_approx_ops';

CREATE OPERATOR CLASS @extschema@.gin_minhash_approx_ops FOR TYPE @extschema@.minhash USING gin AS
	OPERATOR 3 @extschema@.%~ (@extschema@.minhash, @extschema@.minhash_query),
	FUNCTION 1 btint4cmp(int4, int4),
	FUNCTION 2 @extschema@.minhash_gin_approx_extract_value(@extschema@.minhash, internal, internal),
	FUNCTION 3 @extschema@.minhash_gin_approx_extract_query(@extschema@.minhash, internal, int2, internal, internal, internal, internal),
	FUNCTION 4 @extschema@.minhash_gin_consistent(internal, int2, @extschema@.minhash, int4, internal, internal, internal, internal),
	FUNCTION 6 @extschema@.minhash_gin_triconsistent(internal, int2, @extschema@.minhash, int4, internal, internal, internal),
	FUNCTION 7 @extschema@.minhash_gin_approx_options(internal),
	STORAGE int4;

COMMENT ON OPERATOR FAMILY @extschema@.gin_minhash_approx_ops USING gin IS 'approximate LSH band keys of signatures: the %~ operator only';
COMMENT ON OPERATOR CLASS @extschema@.gin_minhash_approx_ops USING gin IS 'approximate LSH band index (threshold and recall options): serves only %~ and resembles_approx(), and may return fewer rows than a sequential scan; exact queries never use it';
-- The layout of gin_minhash_approx_ops and of recall =>: min_bands 1.
-- lsh_index_layout(threshold, num_perm = 128), the exact layout, stays as
-- it is; the approximate one is an overload whose recall has no default
-- (with one, lsh_index_layout(0.8) and lsh_index_layout(0.8, 128) would
-- match both and be ambiguous), so num_perm, before it, has none either.
-- Not strict: a null recall is the exact layout; a null threshold or
-- num_perm gives null.  The same C function serves both (it reads recall
-- only when given three arguments).
CREATE FUNCTION @extschema@.lsh_index_layout(threshold double precision, num_perm integer, recall double precision,
								 OUT bands integer, OUT rows integer, OUT min_bands integer)
	AS 'MODULE_PATHNAME', 'minhash_lsh_index_layout' LANGUAGE C IMMUTABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.lsh_index_layout(double precision, integer, double precision) IS 'the approximate layout of gin_minhash_approx_ops and of near_dupe_groups(..., recall) and near_dupe_pairs(..., recall), where a candidate shares one band (min_bands 1, no guarantee); a null recall gives the exact layout, that of lsh_index_layout(threshold, num_perm)';

-------------------------------------------------------------------------------
-- Pairs and groups of a table
-------------------------------------------------------------------------------

-- The default threshold of near_dupe_groups, near_dupe_pairs and
-- near_dupe_query.  Their threshold is never null: a null there is most
-- often a key type given in the threshold's place
-- (near_dupe_groups(source, key, sig, NULL::bigint) resolves to the form
-- with text keys, bigint converting to double precision), and is refused.
-- current_setting('minhash.threshold') cannot stand in: it prints the
-- setting to six significant digits.
CREATE FUNCTION @extschema@.minhash_threshold() RETURNS double precision
	AS 'MODULE_PATHNAME', 'minhash_threshold' LANGUAGE C STABLE PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.minhash_threshold() IS 'the setting minhash.threshold, exactly as the % operator reads it: the default threshold of near_dupe_groups, near_dupe_pairs and near_dupe_query';

-- The SQL that near_dupe_query and the reports build runs under a pinned
-- search_path, which may not hold a key type's operators (citext's, contrib
-- isn's isbn13): they are named by schema, as the type cache finds them for
-- ORDER BY and for near_dupe_groups' own ranking (src/minhash_key_operators.c).
CREATE FUNCTION @extschema@.near_dupe_key_operators(key_type regtype, OUT lt text, OUT eq text)
	AS 'MODULE_PATHNAME', 'minhash_key_operators' LANGUAGE C STABLE STRICT PARALLEL SAFE;

COMMENT ON FUNCTION @extschema@.near_dupe_key_operators(regtype) IS 'the ordering and equality operators of a key type, as OPERATOR(schema.name) (null where it has none): how near_dupe_query and the reports compare keys';

-- Column names are name arguments: taken as written, with no case folding
-- and no quote removal, unlike the table, a regclass that PostgreSQL parses
-- as SQL ('"MyDocs"').  When a column is not found the hint says so, and
-- names the columns the user probably meant: one spelled the same once
-- quotes are removed or case is ignored.
CREATE FUNCTION @extschema@.near_dupe_column_hint(relation regclass, column_name name) RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
BEGIN
	RETURN (
SELECT 'Column names are taken as written, case and all, without quotes'
	   || coalesce(': write ' || pg_catalog.string_agg(pg_catalog.quote_literal(a.attname::text), ' or ' ORDER BY a.attnum), '')
	   || '.'
  FROM (SELECT CASE WHEN column_name::text LIKE '"%"' AND pg_catalog.length(column_name::text) > 1
					THEN pg_catalog.replace(pg_catalog.substr(column_name::text, 2, pg_catalog.length(column_name::text) - 2), '""', '"')
					ELSE column_name::text END AS unquoted) n
  LEFT JOIN pg_catalog.pg_attribute a
	ON a.attrelid = relation AND a.attnum > 0 AND NOT a.attisdropped
   AND a.attname::text <> column_name::text
   AND pg_catalog.lower(a.attname::text) = pg_catalog.lower(n.unquoted));
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_column_hint(regclass, name) IS 'the hint of a column name not found in a relation: names are taken as written, and the columns spelled the same but for quotes or case';

-- One rule: no function of the extension resolves a name through the
-- caller's search_path, where an operator or function with no exact match
-- in pg_catalog (oid = regclass, float8 >= integer, float8 - numeric,
-- format(unknown, name, regclass), count(minhash), ...) could be taken from
-- any schema on the path.  PL/pgSQL bodies pin search_path to pg_catalog,
-- pg_temp: they use built-in operators as plain SQL does, too many to
-- qualify one by one.  SQL bodies and the SQL that C functions build
-- (near_dupe_groups, near_dupe_pairs, the flagging trigger) name every
-- operator, function and type by schema instead, and carry no SET clause:
-- a SET clause stops the planner from inlining a SQL function (resembles()
-- must inline into the indexable %>), and a C function that left the
-- caller's path alone leaves it to the user code it runs (a key type's
-- functions, a domain check on the flag column, row-level security
-- policies), as PostgreSQL's foreign-key triggers do.  sql/security.sql
-- checks every function for its side of the rule, and plants objects for
-- every signature the bodies use.

-- The checks of the arguments near_dupe_groups, near_dupe_pairs and
-- near_dupe_check share: near_dupe_groups and near_dupe_pairs call this,
-- then read the table once themselves, checking the signatures as they
-- come; near_dupe_check calls it, then checks the signatures in a scan of
-- its own.  It names the relation in its messages by its name (a regclass
-- prints schema-qualified under the pinned path).  The threshold chooses a
-- band layout, so 0 is refused, as everywhere a layout is chosen
-- (minhash_check_layout_threshold in C, the same error).  For a partitioned
-- table the hint says to group a plain table of its keys and signatures:
-- grouping each partition alone misses the pairs across partitions.
CREATE FUNCTION @extschema@.near_dupe_check_arguments(source regclass, key_column name, sig_column name,
								threshold double precision)
	RETURNS oid LANGUAGE plpgsql STABLE PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	kind "char";
	relation name;
	key_type oid;
	sig_type oid;
	sig_typmod integer;
BEGIN
	IF source IS NULL OR key_column IS NULL OR sig_column IS NULL THEN
		RAISE EXCEPTION 'source, key column and signature column must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT c.relkind, c.relname INTO kind, relation FROM pg_catalog.pg_class c WHERE c.oid = source;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'relation with OID % does not exist', source::oid USING ERRCODE = 'undefined_table';
	END IF;
	IF kind = 'p' THEN
		RAISE EXCEPTION 'cannot group the rows of partitioned table "%"', relation
			USING ERRCODE = 'wrong_object_type',
				  HINT = pg_catalog.format('Group a table of its keys and signatures, made as in CREATE TEMP TABLE sigs AS SELECT %I, %I FROM %s; grouping each partition alone misses the pairs across partitions.', key_column, sig_column, source);
	ELSIF kind NOT IN ('r', 'm') THEN
		RAISE EXCEPTION '"%" is not a table or materialized view', relation
			USING ERRCODE = 'wrong_object_type',
				  HINT = 'Rows are addressed by ctid: make a table from a view or query first.';
	END IF;
	SELECT a.atttypid INTO key_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', key_column, relation
			USING ERRCODE = 'undefined_column', HINT = @extschema@.near_dupe_column_hint(source, key_column);
	END IF;
	SELECT a.atttypid, a.atttypmod INTO sig_type, sig_typmod FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = source AND a.attname = sig_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF NOT FOUND THEN
		RAISE EXCEPTION 'column "%" of relation "%" does not exist', sig_column, relation
			USING ERRCODE = 'undefined_column', HINT = @extschema@.near_dupe_column_hint(source, sig_column);
	END IF;
	IF sig_type <> '@extschema@.minhash'::pg_catalog.regtype THEN
		RAISE EXCEPTION 'column "%" is of type %, not minhash', sig_column,
			pg_catalog.format_type(sig_type, sig_typmod)
			USING ERRCODE = 'datatype_mismatch';
	END IF;
	IF threshold IS NOT NULL AND NOT (threshold BETWEEN 0 AND 1) THEN
		RAISE EXCEPTION 'resemblance threshold must be between 0 and 1'
			USING ERRCODE = 'invalid_parameter_value', DETAIL = format('The value given was %s.', threshold);
	ELSIF threshold = 0 THEN
		RAISE EXCEPTION 'threshold must be greater than 0 to choose a band layout'
			USING ERRCODE = 'invalid_parameter_value', HINT = 'Give a threshold greater than 0 and at most 1.',
				  DETAIL = 'At threshold 0 every pair of signatures qualifies, so no band layout narrows the search.';
	END IF;
	RETURN key_type;
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_check_arguments(regclass, name, name, double precision) IS 'checks the arguments of near_dupe_groups, near_dupe_pairs, near_dupe_check and near_dupe_query (a table or materialized view, its key column, a minhash signature column, a threshold above 0 and at most 1, or null) without reading the table; returns the key column''s type';

-- near_dupe_check: the checks of near_dupe_check_arguments, then a scan
-- that counts the rows and checks that every signature was built the same
-- way, pinned.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_check(source regclass, key_column name, sig_column name,
								threshold double precision,
								OUT row_count bigint, OUT signed bigint, OUT num_perm integer, OUT key_type oid)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	stats record;
BEGIN
	near_dupe_check.key_type := @extschema@.near_dupe_check_arguments(source, key_column, sig_column, threshold);

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

-- near_dupe_query, pinned.  Its query compares keys with the key type's
-- operators, named by schema (near_dupe_key_operators): an unqualified < or
-- IS NOT DISTINCT FROM would, under the pinned path, miss a key type's own
-- operators (citext's, in the caller's schema) and compare as text.  Its
-- threshold defaults to minhash_threshold() and is never null, as in
-- near_dupe_groups and near_dupe_pairs; the query carries it as a constant,
-- written with every digit (extra_float_digits), so that it verifies at the
-- very threshold its band layout was chosen for.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_query(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT @extschema@.minhash_threshold(), groups boolean DEFAULT false)
	RETURNS text LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	SET extra_float_digits = 3
	AS $function$
DECLARE
	stats record;
	verify text;
	layout record;
	pairs_query text;
	key_lt text;
	key_eq text;
BEGIN
	IF groups IS NULL THEN
		RAISE EXCEPTION 'groups must not be null'
			USING ERRCODE = 'null_value_not_allowed';
	END IF;
	IF threshold IS NULL THEN
		RAISE EXCEPTION 'threshold must not be null'
			USING ERRCODE = 'null_value_not_allowed',
				  HINT = 'Give a threshold between 0 and 1, or leave it out for the setting minhash.threshold.';
	END IF;
	SELECT * INTO stats FROM @extschema@.near_dupe_check(source, key_column, sig_column, threshold);

	-- Keys compare by their type's own order, as near_dupe_groups and ORDER
	-- BY compare them.  A type without one fails in the query's ORDER BY,
	-- with PostgreSQL's error.
	SELECT o.lt, o.eq INTO key_lt, key_eq FROM @extschema@.near_dupe_key_operators(stats.key_type) o;
	key_lt := coalesce(key_lt, 'OPERATOR(pg_catalog.<)');
	key_eq := coalesce(key_eq, 'OPERATOR(pg_catalog.=)');

	-- The band layout that finds every pair at the threshold: the engine's
	-- pigeonhole layout (mh_pigeonhole_layout, through lsh_index_layout)
	-- with the index's spare bands, a pair being a candidate when it shares
	-- min_bands of them, and kept when it resembles at the threshold.
	-- near_dupe_groups takes the same layout with no spare bands (a
	-- candidate shares one band): both find every pair at the threshold, so
	-- both walk the same pairs.  Spare bands cost the engine memory, and
	-- save this query the candidates that share one band by chance.
	verify := format('@extschema@.resemblance(sa.%1$I, sb.%1$I) >= %2$L::double precision', sig_column, threshold);
	IF stats.signed < 2 THEN
		pairs_query := 'SELECT NULL::tid AS tid_a, NULL::tid AS tid_b, NULL::bigint AS size_a, NULL::bigint AS size_b, '
					   || format('NULL::%s AS key_a, NULL::%1$s AS key_b, ', pg_catalog.format_type(stats.key_type, NULL))
					   || 'NULL::double precision AS resemblance WHERE false';
	ELSE
		SELECT * INTO layout FROM @extschema@.lsh_index_layout(threshold, stats.num_perm);
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
		  FROM (SELECT p.*, coalesce(p.key_a %2$s p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
							OR (coalesce(p.key_a %3$s p.key_b, p.key_a IS NULL AND p.key_b IS NULL)
								AND p.tid_a < p.tid_b) AS a_first
				  FROM (%1$s) p) d) o
 ORDER BY first_key, second_key$q$, pairs_query, key_lt, key_eq);
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
							AND (coalesce(p.key_a %6$s p.key_b, p.key_b IS NULL AND p.key_a IS NOT NULL)
								 OR (coalesce(p.key_a %7$s p.key_b, p.key_a IS NULL AND p.key_b IS NULL)
									 AND p.tid_a < p.tid_b))) AS a_better
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
		pairs_query, key_column, sig_column, source, verify, key_lt, key_eq);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_query(regclass, name, name, double precision, boolean) IS 'the exact pairs of near_dupe_pairs as one SQL statement (groups false; run it with enable_hashagg off), or the grouping of near_dupe_groups as one SQL statement (groups true; run it with enable_hashagg and enable_mergejoin off): the paths for a table beyond minhash.group_memory; checks the arguments and reads the signatures'' parameters';

-- One grouping: near_dupe_groups runs the greedy walk in memory, up to
-- minhash.group_memory; a table beyond it is refused, and the path for it is
-- the same grouping as one SQL statement (near_dupe_query(..., groups =>
-- true), walked by near_dupe_group_walk).  Both take their band layout from
-- the engine's pigeonhole layout; sql/group_sql.sql checks they give the
-- same rows on every input the engine accepts, and sql/group.sql exactly
-- where near_dupe_groups refuses.
-- The threshold defaults to minhash_threshold() instead of null, and a
-- null one is refused (src/minhash_near_dupe_threshold.c).  The library
-- also serves the 1.0 definition (DEFAULT NULL) until the update: there a
-- null threshold is still the setting.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_groups(source regclass, key_column name, sig_column name,
								 threshold double precision DEFAULT @extschema@.minhash_threshold())
	RETURNS TABLE(group_id bigint, key text, pivot text, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision) IS 'every row in one near-duplicate group: pivots are the rows with the most distinct shingles (ties by key), each taking the rows not yet taken whose resemblance to it is at least threshold; in memory, up to minhash.group_memory (beyond it, run near_dupe_query(..., groups => true))';

-- Keys in their own type, joinable to the source without a cast: the
-- json_populate_record convention, a typed argument (NULL::bigint) whose
-- type the key columns of the result take; it must be the key column's own
-- type.  The signatures with text keys stay as they were.
--
-- recall => asks for the approximate layout (mh_recall_layout in the
-- engine): bands and rows whose S-curve reaches recall a little above the
-- threshold, a pair being a candidate when it shares one band key; fewer,
-- longer bands than the exact layout, so fewer candidates and less memory.
-- Verification is unchanged (resemblance >= threshold).  NULL is exact.
--
-- near_dupe_groups with text keys keeps its four arguments: a fifth
-- double precision argument would take every positional call with a numeric
-- key_type (near_dupe_groups(..., 0.5, NULL::bigint)) away from the typed
-- overload (float8 is the preferred numeric type).  For text keys with a
-- recall, pass NULL::text as key_type: a text key_type now returns key::text
-- for a key column of any type.
CREATE FUNCTION @extschema@.near_dupe_groups(source regclass, key_column name, sig_column name,
								 threshold double precision, key_type anyelement,
								 recall double precision DEFAULT NULL)
	RETURNS TABLE(group_id bigint, key anyelement, pivot anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_groups' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_groups(regclass, name, name, double precision, anyelement, double precision) IS 'near_dupe_groups with the keys in the key column''s own type, given as key_type (NULL::bigint; NULL::text: key::text), so that the result joins the source without a cast; recall (0 < recall < 1) takes candidates from the approximate layout of lsh_index_layout(threshold, num_perm, recall), which may miss a few groupings and needs less memory; NULL is exact';

-- near_dupe_pairs runs in memory (src/minhash_near_dupe_pairs.c, the
-- engine's mh_near_pairs) instead of as near_dupe_query's statement, up to
-- minhash.group_memory: the same pairs, resemblances and order as that
-- statement (key_a before key_b in the key's order, ordered by key_a,
-- key_b).  The typed overload takes a recall: NULL (the default) for the
-- exact pairs, those of the self-join with % (or resemblance >= threshold);
-- 0 < recall < 1 for the pairs sharing a band of mh_recall_layout, each
-- verified.  The text version keeps its four arguments: a fifth double
-- precision argument would take every positional call with a numeric
-- key_type (near_dupe_pairs(..., 0.5, NULL::bigint)) away from the typed
-- overload, float8 being the preferred numeric type; for text keys with a
-- recall, pass NULL::text as key_type, which returns key::text for a key
-- column of any type (as near_dupe_groups does).  near_dupe_query(...,
-- groups => false) stays: the exact pairs as one SQL statement within
-- work_mem, the path for a table beyond minhash.group_memory.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_pairs(source regclass, key_column name, sig_column name,
								threshold double precision DEFAULT @extschema@.minhash_threshold())
	RETURNS TABLE(key_a text, key_b text, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_pairs' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision) IS 'every pair of rows whose signatures'' resemblance is at least threshold (default minhash_threshold(), the setting), key_a before key_b in the key''s order: exactly the pairs of the self-join with %; in memory, up to minhash.group_memory (beyond it, run near_dupe_query(..., groups => false))';

CREATE FUNCTION @extschema@.near_dupe_pairs(source regclass, key_column name, sig_column name,
								threshold double precision, key_type anyelement,
								recall double precision DEFAULT NULL)
	RETURNS TABLE(key_a anyelement, key_b anyelement, resemblance double precision)
	AS 'MODULE_PATHNAME', 'minhash_near_dupe_pairs' LANGUAGE C STABLE PARALLEL RESTRICTED;

COMMENT ON FUNCTION @extschema@.near_dupe_pairs(regclass, name, name, double precision, anyelement, double precision) IS 'near_dupe_pairs with the keys in the key column''s own type, given as key_type (NULL::bigint; NULL::text: key::text), so that the result joins the source without a cast; recall (0 < recall < 1) finds the pairs through the approximate layout of lsh_index_layout(threshold, num_perm, recall), which may miss a few and runs faster; NULL is exact';

-------------------------------------------------------------------------------
-- Reports on stored groups
-------------------------------------------------------------------------------

-- What a report needs of its group table (a stored result of
-- near_dupe_groups): group_id of an integer type and, for the reports that
-- read members, key and pivot of one type (text or the key's own) and a
-- numeric resemblance.  The problem, if any, comes back rather than raised,
-- so that each report raises it itself, without a stack of context lines.
CREATE FUNCTION @extschema@.near_dupe_group_table_problem(group_table regclass, members boolean,
								OUT sqlstate text, OUT message text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	relation name;
	kind "char";
	group_id_type oid;
	key_type oid;
	pivot_type oid;
	resemblance_type oid;
BEGIN
	SELECT c.relname, c.relkind INTO relation, kind FROM pg_catalog.pg_class c WHERE c.oid = group_table;
	IF NOT FOUND THEN
		sqlstate := '42P01';
		message := format('relation with OID %s does not exist', group_table::oid);
		RETURN;
	END IF;
	IF kind NOT IN ('r', 'v', 'm', 'f', 'p') THEN
		sqlstate := '42809';
		message := format('"%s" is not a table, view or materialized view', relation);
		RETURN;
	END IF;
	SELECT max(a.atttypid) FILTER (WHERE a.attname = 'group_id'),
		   max(a.atttypid) FILTER (WHERE a.attname = 'key'),
		   max(a.atttypid) FILTER (WHERE a.attname = 'pivot'),
		   max(a.atttypid) FILTER (WHERE a.attname = 'resemblance')
	  INTO group_id_type, key_type, pivot_type, resemblance_type
	  FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = group_table AND a.attnum > 0 AND NOT a.attisdropped;
	IF group_id_type IS NULL THEN
		sqlstate := '42703';
		message := format('column "group_id" of relation "%s" does not exist', relation);
	ELSIF group_id_type NOT IN ('pg_catalog.int8'::pg_catalog.regtype, 'pg_catalog.int4'::pg_catalog.regtype,
								'pg_catalog.int2'::pg_catalog.regtype) THEN
		sqlstate := '42804';
		message := format('column "group_id" of relation "%s" is of type %s, not bigint', relation,
						  group_id_type::pg_catalog.regtype);
	ELSIF NOT members THEN
		RETURN;
	ELSIF key_type IS NULL OR pivot_type IS NULL OR resemblance_type IS NULL THEN
		sqlstate := '42703';
		message := format('column "%s" of relation "%s" does not exist',
						  CASE WHEN key_type IS NULL THEN 'key' WHEN pivot_type IS NULL THEN 'pivot' ELSE 'resemblance' END, relation);
	ELSIF key_type <> pivot_type THEN
		sqlstate := '42804';
		message := format('columns "key" and "pivot" of relation "%s" are of different types, %s and %s', relation,
						  key_type::pg_catalog.regtype, pivot_type::pg_catalog.regtype);
	ELSIF resemblance_type NOT IN ('pg_catalog.float8'::pg_catalog.regtype, 'pg_catalog.float4'::pg_catalog.regtype,
								   'pg_catalog.numeric'::pg_catalog.regtype) THEN
		sqlstate := '42804';
		message := format('column "resemblance" of relation "%s" is of type %s, not double precision', relation,
						  resemblance_type::pg_catalog.regtype);
	END IF;
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_table_problem(regclass, boolean) IS 'what the report functions need of a group table (group_id; with members, key, pivot and resemblance): the SQLSTATE and message of the first thing missing, or nulls';

-- The totals of a group table: near_dupe_summary without its repeated
-- columns (review_without_grouping is documents, review_with_grouping is
-- groups), with the reviews saved instead, so that it fits a terminal of
-- 120 columns.  A new name: near_dupe_summary keeps its columns, which a
-- user's view over it depends on.
CREATE FUNCTION @extschema@.near_dupe_totals(group_table regclass)
	RETURNS TABLE(documents bigint, groups bigint, singletons bigint, documents_in_groups bigint,
				  reviews_saved bigint, review_saved_pct numeric)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, false);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	RETURN QUERY EXECUTE format($q$
		SELECT count(*), count(DISTINCT g.group_id),
			   count(*) FILTER (WHERE s.size = 1), count(*) FILTER (WHERE s.size > 1),
			   count(*) - count(DISTINCT g.group_id),
			   CASE WHEN count(*) = 0 THEN 0::numeric
					ELSE round(100.0 * (count(*) - count(DISTINCT g.group_id)) / count(*), 1) END
		  FROM %1$s g JOIN (SELECT group_id, count(*) AS size FROM %1$s GROUP BY group_id) s USING (group_id)
		$q$, group_table);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_totals(regclass) IS 'documents, groups, singletons, documents in groups of two or more, and the reviews saved by reading one document per group instead of every one (count and percentage)';

-- near_dupe_summary with its columns, from near_dupe_totals (its checks of
-- the group table included).
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_summary(group_table regclass)
	RETURNS TABLE(documents bigint, groups bigint, singletons bigint, documents_in_groups bigint,
				  review_without_grouping bigint, review_with_grouping bigint, review_saved_pct numeric)
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $function$
SELECT t.documents, t.groups, t.singletons, t.documents_in_groups, t.documents, t.groups, t.review_saved_pct
  FROM @extschema@.near_dupe_totals(group_table) t
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_summary(regclass) IS 'near_dupe_totals with the documents to review without grouping (all) and with it (one per group) in place of the reviews saved';

-- Bars on a log scale, so that a size with a few groups still draws a bar
-- of its own beside thousands of singletons (one and two groups differ up to
-- millions of groups of the largest count).
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_histogram(group_table regclass)
	RETURNS TABLE(group_size bigint, groups bigint, documents bigint, bar text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
BEGIN
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, false);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	RETURN QUERY EXECUTE format($q$
		SELECT size, count(*), sum(size)::bigint,
			   repeat('#', ceil(40 * ln(count(*)::double precision + 1)
								/ ln(max(count(*)) OVER ()::double precision + 1))::integer)
		  FROM (SELECT group_id, count(*) AS size FROM %s GROUP BY group_id) s
		 GROUP BY size ORDER BY size
		$q$, group_table);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_histogram(regclass) IS 'number of groups and documents per group size, with a bar of the number of groups on a log scale (ln(groups + 1); the longest is 40 wide)';

-- Resemblances rounded to 3 decimals for reading.  The pivot's own row is
-- left out of the averages: the one row of each group whose key is the
-- pivot's (with the highest resemblance, if several are), and no other.  A
-- member's key can equal the pivot's: keys that compare equal but print
-- differently (1.0 and 1.00 as numeric), or a key column that is not
-- unique.  Keys are matched by their text, as near_dupe_groups wrote them,
-- so that no key type's operators are needed.  The pivot comes back in the
-- type of key_type (near_dupe_groups' convention, NULL::bigint), which must
-- be that of the group table's pivot column, its domain's base type, or
-- text; the version of 1.0, without key_type, returns it as text.
CREATE FUNCTION @extschema@.near_dupe_group_stats(group_table regclass, key_type anyelement)
	RETURNS TABLE(group_id bigint, pivot anyelement, size bigint, avg_resemblance double precision,
				  min_resemblance double precision)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	problem record;
	result_type oid := pg_catalog.pg_typeof(key_type);
	pivot_type oid;
	pivot_base oid;
BEGIN
	IF group_table IS NULL THEN
		RAISE EXCEPTION 'group_table must not be null' USING ERRCODE = 'null_value_not_allowed';
	END IF;
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, true);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	SELECT a.atttypid INTO pivot_type FROM pg_catalog.pg_attribute a
	 WHERE a.attrelid = group_table AND a.attname = 'pivot' AND a.attnum > 0 AND NOT a.attisdropped;
	pivot_base := pivot_type;
	WHILE (SELECT t.typtype = 'd' FROM pg_catalog.pg_type t WHERE t.oid = pivot_base) LOOP
		SELECT t.typbasetype INTO pivot_base FROM pg_catalog.pg_type t WHERE t.oid = pivot_base;
	END LOOP;
	IF result_type NOT IN (pivot_type, pivot_base, 'pg_catalog.text'::pg_catalog.regtype) THEN
		RAISE EXCEPTION 'key_type % does not match column "pivot" of relation "%", of type %',
			result_type::pg_catalog.regtype, (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = group_table),
			pivot_type::pg_catalog.regtype
			USING ERRCODE = 'datatype_mismatch',
				  HINT = format('Pass NULL::%s as key_type (or NULL::text for the pivot as text).', pivot_type::pg_catalog.regtype);
	END IF;
	-- One aggregation, no sort of the whole table: the pivot's own row is
	-- left out by arithmetic.  Among the rows whose key is the pivot's (kp),
	-- it is the one with the highest resemblance (a null one first, as
	-- ORDER BY resemblance DESC takes it); the others are members.  One pivot
	-- per group; should a table hold several, the least as text.  The typed
	-- pivot is the row that prints as that one.
	RETURN QUERY EXECUTE format($q$
		WITH r AS (
			SELECT g.group_id::bigint AS group_id, g.pivot, g.pivot::text AS pivot_text,
				   g.resemblance::double precision AS resemblance,
				   g.key::text IS NOT DISTINCT FROM g.pivot::text AS kp
			  FROM %1$s g
		), s AS (
			SELECT r.group_id, pg_catalog.count(*) AS size, min(r.pivot_text) AS pivot_text,
				   CASE WHEN pg_catalog.count(*) FILTER (WHERE r.kp) = 0
							 OR pg_catalog.count(*) FILTER (WHERE r.kp AND r.resemblance IS NULL) > 0
						THEN sum(r.resemblance) / nullif(pg_catalog.count(r.resemblance), 0)
						ELSE (sum(r.resemblance) - max(r.resemblance) FILTER (WHERE r.kp))
							 / nullif(pg_catalog.count(r.resemblance) - 1, 0) END AS avg_resemblance,
				   CASE WHEN pg_catalog.count(*) FILTER (WHERE r.kp) = 0
							 OR pg_catalog.count(*) FILTER (WHERE r.kp AND r.resemblance IS NULL) > 0
						THEN min(r.resemblance)
						ELSE least(min(r.resemblance) FILTER (WHERE NOT r.kp),
								   CASE WHEN pg_catalog.count(*) FILTER (WHERE r.kp) > 1
										THEN min(r.resemblance) FILTER (WHERE r.kp) END) END AS min_resemblance
			  FROM r GROUP BY r.group_id HAVING pg_catalog.count(*) > 1
		)
		SELECT s.group_id, %2$s, s.size,
			   round(s.avg_resemblance::numeric, 3)::double precision,
			   round(s.min_resemblance::numeric, 3)::double precision
		  FROM s%3$s
		 ORDER BY s.size DESC, s.group_id
		$q$, group_table,
		CASE WHEN result_type = 'pg_catalog.text'::pg_catalog.regtype THEN 's.pivot_text'
			 ELSE format('CAST(p.pivot AS %s)', pg_catalog.format_type(result_type, NULL)) END,
		CASE WHEN result_type = 'pg_catalog.text'::pg_catalog.regtype THEN ''
			 ELSE ' LEFT JOIN (SELECT DISTINCT ON (r.group_id) r.group_id, r.pivot FROM r ORDER BY r.group_id, r.pivot_text) p'
				  || ' ON p.group_id = s.group_id' END);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_stats(regclass, anyelement) IS 'each group of two or more documents: its pivot in the type of key_type (NULL::bigint), size, and the average and minimum resemblance of its members to the pivot (3 decimals)';

CREATE OR REPLACE FUNCTION @extschema@.near_dupe_group_stats(group_table regclass)
	RETURNS TABLE(group_id bigint, pivot text, size bigint, avg_resemblance double precision,
				  min_resemblance double precision)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
BEGIN
	RETURN QUERY SELECT * FROM @extschema@.near_dupe_group_stats(group_table, NULL::text);
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_stats(regclass) IS 'each group of two or more documents: its pivot (as text), size, and the average and minimum resemblance of its members to the pivot (3 decimals); near_dupe_group_stats(group_table, NULL::bigint) returns the pivot in the key''s type';

-- A document of a group, found in source by its key as the group table
-- holds it (text): by the key type's own equality (near_dupe_key_operators,
-- so that an index on the key serves), among equal keys the one whose text
-- is the key's (1.00 and 1.0 are equal numerics), and a null key by IS
-- NULL.  A key must name one row: none is an error, and so are two, since
-- the report cannot tell whose document the group holds.  The error comes
-- back rather than raised, as near_dupe_group_table_problem's does.
CREATE FUNCTION @extschema@.near_dupe_document(source regclass, key_column name, text_column name,
											   key text, group_id bigint,
											   OUT document text, OUT sqlstate text, OUT message text, OUT hint text)
	LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp
	AS $function$
DECLARE
	key_type oid;
	key_eq text;
	condition text;
	found_row record;
	exact boolean;
	matches integer := 0;
	shown text := CASE WHEN key IS NULL THEN 'NULL'
					   ELSE quote_literal(CASE WHEN length(key) > 40 THEN left(key, 40) || '...' ELSE key END) END;
BEGIN
	IF source IS NULL OR key_column IS NULL OR text_column IS NULL THEN
		sqlstate := '22004';
		message := 'source, key column and text column must not be null';
		RETURN;
	END IF;
	SELECT a.atttypid INTO key_type FROM pg_attribute a
	 WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped;
	IF key_type IS NULL THEN
		sqlstate := '42703';
		message := format('column "%s" of relation %s does not exist', key_column, source);
		hint := @extschema@.near_dupe_column_hint(source, key_column);
		RETURN;
	END IF;
	IF key IS NULL THEN
		condition := format('s.%I IS NULL', key_column);
	ELSE
		SELECT o.eq INTO key_eq FROM @extschema@.near_dupe_key_operators(key_type) o;
		IF key_eq IS NULL THEN
			sqlstate := '42883';
			message := format('could not identify an equality operator for type %s', format_type(key_type, NULL));
			hint := 'The report finds each document by its key: use a key column of a type with equality.';
			RETURN;
		END IF;
		-- the column's type without its typmod: a cast to varchar(n) would cut the key
		condition := format('s.%1$I %2$s CAST($1 AS %3$s)', key_column, key_eq, format_type(key_type, NULL));
	END IF;
	FOR found_row IN EXECUTE format('SELECT s.%1$I::text AS document, s.%2$I::text IS NOT DISTINCT FROM $1 AS exact FROM %3$s s WHERE %4$s ORDER BY 2 DESC LIMIT 2',
									text_column, key_column, source, condition)
			USING key LOOP
		matches := matches + 1;
		IF matches = 1 THEN
			document := found_row.document;
			exact := found_row.exact;
		ELSIF found_row.exact OR NOT exact THEN
			document := NULL;
			sqlstate := '21000';
			message := format('key %s of group %s matches more than one row of relation %s', shown, group_id, source);
			hint := 'Reports find each document by its key: group by a column whose values are unique and not null, such as the primary key.';
		END IF;
	END LOOP;
	IF matches = 0 THEN
		sqlstate := '02000';
		message := format('key %s of group %s not found in relation %s', shown, group_id, source);
		hint := 'Name the table the groups were made from; if rows were deleted since, group again.';
	END IF;
END
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_document(regclass, name, name, text, bigint) IS 'for the reports on group group_id: the text of the one row of source whose key is the given one (null: the row with a null key), or the SQLSTATE, message and hint of why there is none';

-- One group for review, both sides marked: each member's text with the
-- chunks it shares with the pivot marked (marked), and the pivot's text
-- with the same chunks marked alike (pivot_marked; highlight() numbers them
-- the same on both sides), so that what a member lacks (a dropped footer,
-- replaced words) shows as well as what it adds.  Resemblance and s_l are
-- rounded to 3 decimals for reading; the group table is checked as the
-- other reports check it, and a key missing from source is an error.  A
-- new name: near_dupe_group_detail keeps its columns, which a user's view
-- over it depends on.
CREATE FUNCTION @extschema@.near_dupe_review(group_table regclass, source regclass, key_column name, text_column name,
								 group_id bigint, min_words integer DEFAULT 5, format text DEFAULT 'text')
	RETURNS TABLE(key text, role text, resemblance double precision, common_words integer,
				  s_l double precision, marked text, pivot_marked text)
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	group_rows bigint;
	pivots bigint;
	pivot_key text;
	pivot_text text;
	member record;
	member_text text;
	found record;
	problem record;
BEGIN
	SELECT * INTO problem FROM @extschema@.near_dupe_group_table_problem(group_table, true);
	IF problem.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = problem.sqlstate, MESSAGE = problem.message,
			HINT = 'A group table holds the rows of near_dupe_groups: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = key_column AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', key_column, source),
			HINT = @extschema@.near_dupe_column_hint(source, key_column);
	END IF;
	IF NOT EXISTS (SELECT FROM pg_attribute a WHERE a.attrelid = source AND a.attname = text_column AND a.attnum > 0 AND NOT a.attisdropped) THEN
		RAISE EXCEPTION USING ERRCODE = 'undefined_column',
			MESSAGE = format('column "%s" of relation %s does not exist', text_column, source),
			HINT = @extschema@.near_dupe_column_hint(source, text_column);
	END IF;

	-- The group and its one pivot, which may be a null key (a row without
	-- one is its own group's pivot).
	EXECUTE format('SELECT count(*), count(DISTINCT g.pivot::text) + (count(*) > count(g.pivot))::integer, min(g.pivot::text) FROM %s g WHERE g.group_id = $1',
				   group_table)
		INTO group_rows, pivots, pivot_key USING group_id;
	IF group_rows = 0 THEN
		RAISE EXCEPTION USING ERRCODE = 'no_data_found',
			MESSAGE = format('group %s not found in %s', group_id, group_table);
	ELSIF pivots > 1 THEN
		RAISE EXCEPTION USING ERRCODE = 'data_exception',
			MESSAGE = format('group %s of %s has %s different pivots', group_id, group_table, pivots),
			HINT = 'A group table holds the rows of near_dupe_groups, one pivot per group: CREATE TABLE groups AS SELECT * FROM near_dupe_groups(...).';
	END IF;
	SELECT * INTO found FROM @extschema@.near_dupe_document(source, key_column, text_column, pivot_key, group_id);
	IF found.message IS NOT NULL THEN
		RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
	END IF;
	pivot_text := found.document;

	key := pivot_key;
	role := 'pivot';
	resemblance := 1;
	common_words := NULL;
	s_l := NULL;
	-- Against the empty text: nothing marked, but escaped as format asks.
	SELECT h.a_marked INTO marked FROM @extschema@.highlight(pivot_text, '', min_words, format) h;
	pivot_marked := NULL;
	RETURN NEXT;

	-- Every row but the pivot's own: the one whose key is the pivot's (the
	-- highest resemblance if several are).  A member's key can equal the
	-- pivot's (1.00 and 1.0 as numeric, or a key column that is not
	-- unique), so rows are told apart by position, not by key.  Keys as
	-- text and resemblances as double precision, whatever the group table's
	-- types (typed keys, a real resemblance): one plan serves all.
	FOR member IN EXECUTE format($q$
		SELECT m.key, m.resemblance
		  FROM (SELECT g.key::text AS key, g.key AS typed_key, g.resemblance::double precision AS resemblance,
					   g.key::text IS NOT DISTINCT FROM g.pivot::text
					   AND row_number() OVER (PARTITION BY g.key::text IS NOT DISTINCT FROM g.pivot::text
											  ORDER BY g.resemblance DESC) = 1 AS pivot_row
				  FROM %s g WHERE g.group_id = $1) m
		 WHERE NOT m.pivot_row
		 ORDER BY m.resemblance DESC, m.typed_key$q$, group_table)
			USING group_id LOOP
		SELECT * INTO found FROM @extschema@.near_dupe_document(source, key_column, text_column, member.key, group_id);
		IF found.message IS NOT NULL THEN
			RAISE EXCEPTION USING ERRCODE = found.sqlstate, MESSAGE = found.message, HINT = found.hint;
		END IF;
		member_text := found.document;
		key := member.key;
		role := 'member';
		resemblance := round(member.resemblance::numeric, 3);
		SELECT c.common_words, round(c.s_l::numeric, 3) INTO common_words, s_l
		  FROM @extschema@.chunk_similarity(pivot_text, member_text, min_words) c;
		-- Both sides of one comparison: chunk N is the same text in both.
		SELECT h.b_marked, h.a_marked INTO marked, pivot_marked
		  FROM @extschema@.highlight(pivot_text, member_text, min_words, format) h;
		RETURN NEXT;
	END LOOP;
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review(regclass, regclass, name, name, bigint, integer, text) IS 'one group for review: the pivot''s text, then each member with its resemblance, the words it shares with the pivot in chunks, its text with those chunks marked, and the pivot''s text with the same chunks marked alike (null on the pivot''s row)';

-- near_dupe_group_detail with its columns, from near_dupe_review: the same
-- rows without pivot_marked.
CREATE OR REPLACE FUNCTION @extschema@.near_dupe_group_detail(group_table regclass, source regclass, key_column name, text_column name,
									   group_id bigint, min_words integer DEFAULT 5, format text DEFAULT 'text')
	RETURNS TABLE(key text, role text, resemblance double precision, common_words integer,
				  s_l double precision, marked text)
	LANGUAGE sql STABLE STRICT PARALLEL RESTRICTED
	AS $function$
SELECT r.key, r.role, r.resemblance, r.common_words, r.s_l, r.marked
  FROM @extschema@.near_dupe_review(group_table, source, key_column, text_column, group_id, min_words, format) r
$function$;

COMMENT ON FUNCTION @extschema@.near_dupe_group_detail(regclass, regclass, name, name, bigint, integer, text) IS 'near_dupe_review without pivot_marked: the pivot''s text, then each member with its resemblance, the words it shares with the pivot in chunks, and its text with those chunks marked';

-- One group as a complete HTML page, for a reviewer to open in a browser:
-- a summary, then each member beside its pivot, shared chunks in the same
-- colour on both sides (the colour follows the chunk number's last digit,
-- so neighbouring chunks differ), the text outside them plain: what one side
-- has and the other lacks.  Everything from the tables (texts, keys, names)
-- is HTML-escaped, by highlight()'s escaping; the page loads nothing and
-- its Content-Security-Policy forbids scripts, should anything get through.
-- One text value, so that any client saves it as it is (psql: unaligned,
-- tuples only, \o file); psql's own --html output would escape it again.
CREATE FUNCTION @extschema@.near_dupe_review_html(group_table regclass, source regclass, key_column name, text_column name,
												  group_id bigint, min_words integer DEFAULT 5)
	RETURNS text
	LANGUAGE plpgsql STABLE STRICT PARALLEL RESTRICTED
	SET search_path = pg_catalog, pg_temp AS $$
DECLARE
	item record;
	pivot_key text;
	pivot_html text;
	members text := '';
	member_count bigint := 0;
	resemblance_sum double precision := 0;
	resemblance_min double precision;
	heading text;
	body text;
BEGIN
	-- highlight(x, '', 1, 'html') marks nothing: it is the escaping of the
	-- texts, used for every other value from the tables too.
	FOR item IN
		SELECT d.role, d.resemblance::double precision AS resemblance, d.common_words, d.s_l::double precision AS s_l,
			   d.marked, d.pivot_marked,
			   (SELECT h.a_marked FROM @extschema@.highlight(d.key::text, '', 1, 'html') h) AS key_html
		  FROM @extschema@.near_dupe_review(group_table, source, key_column, text_column, group_id, min_words, 'html') d
	LOOP
		IF item.role = 'pivot' THEN
			pivot_key := item.key_html;
			pivot_html := item.marked;
			CONTINUE;
		END IF;
		member_count := member_count + 1;
		resemblance_sum := resemblance_sum + item.resemblance;
		resemblance_min := least(resemblance_min, item.resemblance);
		members := members || format($member$<section class="member">
<h2>Member %1$s <span class="figures">resemblance %2$s &middot; %3$s words in shared chunks &middot; S<sub>L</sub> %4$s</span></h2>
<div class="pair">
<div class="side pivot"><h3>Pivot %5$s</h3><div class="text">%6$s</div></div>
<div class="side other"><h3>Member %1$s</h3><div class="text">%7$s</div></div>
</div>
</section>
$member$,
			item.key_html, round(item.resemblance::numeric, 3), coalesce(item.common_words, 0),
			coalesce(round(item.s_l::numeric, 3)::text, '&ndash;'), pivot_key, item.pivot_marked, item.marked);
	END LOOP;
	IF pivot_key IS NULL THEN
		RETURN NULL;			-- cannot happen: near_dupe_review raises first
	END IF;

	IF member_count = 0 THEN
		body := format($alone$<p class="alone">The pivot has no other member in this group.</p>
<div class="side pivot"><h3>Pivot %s</h3><div class="text">%s</div></div>
$alone$, pivot_key, pivot_html);
	ELSE
		body := members;
	END IF;
	SELECT h.a_marked INTO heading
	  FROM @extschema@.highlight(format('Near-duplicate group %s of %s', group_id, group_table), '', 1, 'html') h;
	RETURN format($page$<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="minhash near_dupe_review_html">
<title>%1$s</title>
<style>
body { margin: 0 auto; max-width: 1600px; padding: 20px 24px 40px; background: #f5f6f8; color: #1f2328;
       font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; }
h1 { font-size: 22px; margin: 0 0 10px; }
h2 { font-size: 16px; margin: 0 0 8px; }
h3 { font-size: 12px; margin: 0 0 6px; color: #57606a; text-transform: uppercase; letter-spacing: .04em; }
.summary { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 14px 18px; margin-bottom: 20px; }
.summary dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 0 0 8px; }
.summary dt { color: #57606a; }
.summary dd { margin: 0; font-weight: 600; }
.legend { margin: 0; color: #57606a; }
.member { margin-bottom: 22px; }
.figures { font-weight: normal; color: #57606a; font-size: 14px; margin-left: 8px; }
.pair { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; align-items: start; }
.side { background: #fff; border: 1px solid #d0d7de; border-radius: 8px; padding: 10px 12px; min-width: 0; }
.side.pivot { border-top: 3px solid #8c959f; }
.side.other { border-top: 3px solid #0969da; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.5 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
mark { color: inherit; border-radius: 2px; }
mark[data-chunk$="1"] { background: #fde68a; }
mark[data-chunk$="2"] { background: #bfdbfe; }
mark[data-chunk$="3"] { background: #bbf7d0; }
mark[data-chunk$="4"] { background: #fbcfe8; }
mark[data-chunk$="5"] { background: #ddd6fe; }
mark[data-chunk$="6"] { background: #fed7aa; }
mark[data-chunk$="7"] { background: #a5f3fc; }
mark[data-chunk$="8"] { background: #d9f99d; }
mark[data-chunk$="9"] { background: #fecaca; }
mark[data-chunk$="0"] { background: #e2e8f0; }
</style>
</head>
<body>
<header class="summary">
<h1>%1$s</h1>
<dl>
<dt>Documents</dt><dd class="size">%2$s</dd>
<dt>Pivot</dt><dd class="pivot-key">%3$s</dd>
<dt>Mean resemblance</dt><dd class="mean">%4$s</dd>
<dt>Lowest resemblance</dt><dd class="min">%5$s</dd>
<dt>Text</dt><dd class="source">column %6$s of %7$s, shared chunks of %8$s or more words</dd>
</dl>
<p class="legend">Each member stands beside the pivot. <mark data-chunk="1">Highlighted text</mark> is a <mark data-chunk="2">chunk both share</mark>, the same colour on both sides; plain text is on that side only.</p>
</header>
%9$s</body>
</html>
$page$,
		heading, member_count + 1, pivot_key,
		CASE WHEN member_count = 0 THEN '&ndash;' ELSE round((resemblance_sum / member_count)::numeric, 3)::text END,
		coalesce(round(resemblance_min::numeric, 3)::text, '&ndash;'),
		(SELECT h.a_marked FROM @extschema@.highlight(text_column::text, '', 1, 'html') h),
		(SELECT h.a_marked FROM @extschema@.highlight(source::text, '', 1, 'html') h),
		min_words, body);
END $$;

COMMENT ON FUNCTION @extschema@.near_dupe_review_html(regclass, regclass, name, name, bigint, integer) IS 'one group as a self-contained HTML page for review: a summary, then each member beside its pivot with the chunks they share marked in the same colour on both sides and what differs plain; every input escaped; save it with psql''s \o in unaligned, tuples-only mode';
