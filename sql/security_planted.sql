-- Security: objects planted in the extension's own schema never run inside
-- the extension.  A role that may create objects in that schema (everyone
-- in public on PostgreSQL 13 and 14, and in databases upgraded from them)
-- plants there, beside every function of the extension (its helpers too,
-- which live in minhash_internal, where nobody else may create anything),
-- an overload that a sloppy call would prefer: each argument in turn, and
-- all at once, given a more attractive type (integer for bigint, numeric
-- or integer for double precision, text or oid for regclass, text for
-- name, oid or text for regtype, smallint for integer, name for text, text
-- for minhash: the type an untyped literal or a catalog column resolves
-- to); and the same for every operator, plus operators between common
-- built-in types that pg_catalog has no exact match for.  The list comes
-- from the catalogs, so a function added later is planted too.  Each
-- planted body logs that it ran and then does what the real one does, so
-- that a call goes on and meets every other planted object.  Then a
-- superuser, on its everyday path ("$user", public), runs every function
-- and procedure of the extension with exact-typed arguments, down error
-- branches and the spill path.  Nothing planted may run.
DO $$ BEGIN
	IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'minhash_planter') THEN
		CREATE ROLE minhash_planter NOSUPERUSER NOCREATEDB NOCREATEROLE;
	END IF;
END $$;
DO $$ BEGIN
	EXECUTE format('GRANT CREATE ON SCHEMA %I TO minhash_planter',
				   (SELECT extnamespace::regnamespace::name FROM pg_extension WHERE extname = 'minhash'));
END $$;
-- What ran, written by the superuser's call (the planted bodies run with
-- the caller's rights).
CREATE TABLE planted_calls (what text);
GRANT INSERT ON planted_calls TO PUBLIC;
CREATE FUNCTION planted_ran(what text) RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog, pg_temp AS $$
BEGIN
	INSERT INTO public.planted_calls VALUES (what);
	RAISE WARNING 'planted % ran', what;
END $$;

SET ROLE minhash_planter;
-- The overloads of every function and procedure of the extension.  Types
-- that PL/pgSQL cannot take (internal, cstring) belong to functions the
-- server calls by oid; they are left out.
CREATE TEMP TABLE attractive (real_type regtype, planted_type regtype);
INSERT INTO attractive VALUES
	('bigint', 'integer'), ('double precision', 'numeric'), ('double precision', 'integer'),
	('regclass', 'text'), ('regclass', 'oid'), ('name', 'text'), ('regtype', 'oid'), ('regtype', 'text'),
	('integer', 'smallint'), ('text', 'name'), ('minhash', 'text');
DO $$
DECLARE
	f record;
	variant oid[];
	arg_list text;
	call_args text;
	body text;
	planted integer := 0;
	skipped integer := 0;
	ext_schema name := (SELECT extnamespace::regnamespace::name FROM pg_catalog.pg_extension WHERE extname = 'minhash');
BEGIN
	-- The planting itself runs on a path without the planted objects.
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	FOR f IN
		SELECT p.oid, p.proname, p.pronamespace::regnamespace::name AS fn_schema, p.prokind, p.proretset, p.pronargs, p.pronargdefaults,
			   pg_catalog.string_to_array(p.proargtypes::text, ' ')::oid[] AS argtypes,
			   pg_catalog.pg_get_function_result(p.oid) AS result,
			   (SELECT pg_catalog.string_agg(format('%I %s', p.proargnames[o.i], t::regtype), ', ' ORDER BY o.i)
				  FROM ROWS FROM (pg_catalog.unnest(p.proallargtypes), pg_catalog.unnest(p.proargmodes)) WITH ORDINALITY AS o(t, m, i)
				 WHERE o.m = 'o' AND NOT p.proretset) AS out_args,
			   (SELECT pg_catalog.string_agg(format('%I', p.proargnames[o.i]), ', ' ORDER BY o.i)
				  FROM ROWS FROM (pg_catalog.unnest(p.proallargtypes), pg_catalog.unnest(p.proargmodes)) WITH ORDINALITY AS o(t, m, i)
				 WHERE o.m = 'o' AND NOT p.proretset) AS out_names
		  FROM pg_catalog.pg_proc p
		  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_proc'::regclass AND d.objid = p.oid AND d.deptype = 'e'
		 WHERE d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'minhash')
		   AND p.prokind IN ('f', 'p')
		 ORDER BY p.oid
	LOOP
		IF EXISTS (SELECT FROM pg_catalog.unnest(f.argtypes) t
					WHERE t IN ('internal'::regtype, 'cstring'::regtype, 'trigger'::regtype))
		   OR f.result IN ('internal', 'trigger', 'cstring') THEN
			skipped := skipped + 1;
			CONTINUE;
		END IF;
		-- The variants: one argument at a time to each of its attractive
		-- types, then every argument that has one to its first.
		FOR variant IN
			SELECT pg_catalog.array_agg(CASE WHEN o.i = v.i THEN v.planted_type::oid ELSE o.t END ORDER BY o.i)
			  FROM (SELECT o2.i, a.planted_type
					  FROM pg_catalog.unnest(f.argtypes) WITH ORDINALITY AS o2(t, i)
					  JOIN attractive a ON a.real_type = o2.t) v,
				   pg_catalog.unnest(f.argtypes) WITH ORDINALITY AS o(t, i)
			 GROUP BY v.i, v.planted_type
			UNION ALL
			SELECT pg_catalog.array_agg(coalesce((SELECT a.planted_type::oid FROM attractive a WHERE a.real_type = o.t
												   ORDER BY a.planted_type::text DESC LIMIT 1), o.t) ORDER BY o.i)
			  FROM pg_catalog.unnest(f.argtypes) WITH ORDINALITY AS o(t, i)
			HAVING pg_catalog.count(*) FILTER (WHERE o.t IN (SELECT real_type FROM attractive)) > 1
		LOOP
			SELECT pg_catalog.string_agg(format('%s %s', 'a' || o.i, t::regtype)
										   || CASE WHEN o.i > f.pronargs - f.pronargdefaults
												   THEN ' DEFAULT ' || pg_catalog.pg_get_function_arg_default(f.oid, o.i::integer)
												   ELSE '' END, ', ' ORDER BY o.i),
				   pg_catalog.string_agg(format('a%s::%s', o.i, f.argtypes[o.i]::regtype), ', ' ORDER BY o.i)
			  INTO arg_list, call_args
			  FROM pg_catalog.unnest(variant) WITH ORDINALITY AS o(t, i);
			body := format('PERFORM public.planted_ran(%L); ',
						   format('%s(%s)', f.proname, (SELECT pg_catalog.string_agg(t::regtype::text, ', ')
														  FROM pg_catalog.unnest(variant) t)));
			body := body || CASE
				WHEN f.prokind = 'p' THEN format('CALL %I.%I(%s);', f.fn_schema, f.proname, call_args)
				WHEN f.proretset THEN format('RETURN QUERY SELECT * FROM %I.%I(%s);', f.fn_schema, f.proname, call_args)
				WHEN f.out_args IS NOT NULL THEN format('SELECT * INTO %s FROM %I.%I(%s);', f.out_names, f.fn_schema, f.proname, call_args)
				WHEN f.result = 'void' THEN format('PERFORM %I.%I(%s);', f.fn_schema, f.proname, call_args)
				ELSE format('RETURN %I.%I(%s);', f.fn_schema, f.proname, call_args) END;
			BEGIN
				IF f.prokind = 'p' THEN
					EXECUTE format('CREATE PROCEDURE %I.%I(%s) LANGUAGE plpgsql AS %L',
								   ext_schema, f.proname, arg_list, 'BEGIN ' || body || ' END');
				ELSIF f.out_args IS NOT NULL THEN
					EXECUTE format('CREATE FUNCTION %I.%I(%s, %s) LANGUAGE plpgsql AS %L',
								   ext_schema, f.proname, arg_list,
								   (SELECT pg_catalog.string_agg('OUT ' || x, ', ') FROM pg_catalog.unnest(pg_catalog.string_to_array(f.out_args, ', ')) x),
								   'BEGIN ' || body || ' END');
				ELSE
					EXECUTE format('CREATE FUNCTION %I.%I(%s) RETURNS %s LANGUAGE plpgsql AS %L',
								   ext_schema, f.proname, arg_list, f.result, 'BEGIN ' || body || ' END');
				END IF;
				planted := planted + 1;
			EXCEPTION WHEN duplicate_function OR ambiguous_function THEN
				NULL;	-- the extension has that overload itself
			END;
		END LOOP;
	END LOOP;
	RAISE NOTICE 'planted % overloads of the extension''s functions (% functions the server calls by oid left out)',
		CASE WHEN planted > 150 THEN 'over 150' ELSE planted::text END,
		CASE WHEN skipped BETWEEN 10 AND 40 THEN 'some' ELSE skipped::text END;
END $$;
-- The operators of the extension, each operand in turn and both at once
-- given an attractive type, and operators between common built-in types
-- that pg_catalog has no exact one for (oid = regclass, float8 >= integer,
-- ...), in the extension's schema, which is on the superuser's path.
DO $$
DECLARE
	o record;
	types text[] := ARRAY['oid', 'regclass', 'regtype', 'regproc', 'smallint', 'integer', 'bigint',
						  'double precision', 'numeric', 'text', 'name', 'boolean'];
	ops text[] := ARRAY['=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/'];
	l text;
	r text;
	op text;
	result text;
	n integer := 0;
	ext_schema name := (SELECT extnamespace::regnamespace::name FROM pg_catalog.pg_extension WHERE extname = 'minhash');
BEGIN
	-- The planting itself runs on a path without the planted objects.
	PERFORM pg_catalog.set_config('search_path', 'pg_catalog, pg_temp', true);
	FOR o IN
		SELECT DISTINCT x.oprname, x.l, x.r, x.result, x.real_l, x.real_r
		  FROM (SELECT op2.oprname, coalesce(al.planted_type, op2.oprleft::regtype) AS l,
					   coalesce(ar.planted_type, op2.oprright::regtype) AS r, op2.oprresult::regtype AS result,
					   op2.oprleft::regtype AS real_l, op2.oprright::regtype AS real_r
				  FROM pg_catalog.pg_operator op2
				  JOIN pg_catalog.pg_depend d ON d.classid = 'pg_catalog.pg_operator'::regclass AND d.objid = op2.oid AND d.deptype = 'e'
				  LEFT JOIN attractive al ON al.real_type = op2.oprleft
				  LEFT JOIN attractive ar ON ar.real_type = op2.oprright
				 WHERE d.refobjid = (SELECT e.oid FROM pg_catalog.pg_extension e WHERE e.extname = 'minhash')) x
		 WHERE (x.l, x.r) IS DISTINCT FROM (x.real_l, x.real_r)
	LOOP
		n := n + 1;
		BEGIN
			EXECUTE format($f$CREATE FUNCTION %I.planted_op_%s(%s, %s) RETURNS %s LANGUAGE plpgsql AS $b$
							  BEGIN PERFORM public.planted_ran(%L); RETURN $1::%s OPERATOR(%I.%s) $2::%s; END $b$ $f$,
						   ext_schema, n, o.l, o.r, o.result, format('operator %s %s %s', o.l, o.oprname, o.r),
						   o.real_l, ext_schema, o.oprname, o.real_r);
			EXECUTE format('CREATE OPERATOR %I.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.planted_op_%s)',
						   ext_schema, o.oprname, o.l, o.r, ext_schema, n);
		EXCEPTION WHEN duplicate_function OR duplicate_object THEN
			NULL;	-- the extension has that operator itself
		END;
	END LOOP;
	FOREACH l IN ARRAY types LOOP
		FOREACH r IN ARRAY types LOOP
			FOREACH op IN ARRAY ops LOOP
				CONTINUE WHEN EXISTS (SELECT FROM pg_catalog.pg_operator x
									   WHERE x.oprname = op AND x.oprleft = l::regtype AND x.oprright = r::regtype
										 AND x.oprnamespace = 'pg_catalog'::regnamespace);
				BEGIN
					EXECUTE format('SELECT pg_catalog.pg_typeof(NULL::%s OPERATOR(pg_catalog.%s) NULL::%s)::text', l, op, r)
						INTO result;
				EXCEPTION WHEN OTHERS THEN
					CONTINUE;	-- no built-in operator serves these types at all
				END;
				n := n + 1;
				EXECUTE format($f$CREATE FUNCTION %I.planted_op_%s(%s, %s) RETURNS %s LANGUAGE plpgsql AS $b$
								  BEGIN PERFORM public.planted_ran(%L); RETURN $1 OPERATOR(pg_catalog.%s) $2; END $b$ $f$,
							   ext_schema, n, l, r, result, format('operator %s %s %s', l, op, r), op);
				EXECUTE format('CREATE OPERATOR %I.%s (LEFTARG = %s, RIGHTARG = %s, FUNCTION = %I.planted_op_%s)',
							   ext_schema, op, l, r, ext_schema, n);
			END LOOP;
		END LOOP;
	END LOOP;
	RAISE NOTICE 'planted % operators', CASE WHEN n > 200 THEN 'over 200' ELSE n::text END;
END $$;
-- The helpers' schema takes nothing from it.
CREATE FUNCTION minhash_internal.near_dupe_statement() RETURNS void LANGUAGE sql AS '';
RESET ROLE;
TRUNCATE planted_calls;
-- The planted objects are in effect for sloppy calls on the superuser's
-- path: an untyped literal for a regclass, an integer for a bigint, an oid
-- for a regclass.
SHOW search_path;
SELECT near_dupe_totals(NULL) IS NULL AS sloppy_call_returns;
SELECT minhash_hash_extended(minhash('a b c d e f'::text, 128, 5, 0), 0) IS NOT NULL AS sloppy_hash;
SELECT 'pg_class'::regclass::oid = 'pg_class'::regclass AS sloppy_operator;
SELECT what, count(*) FROM planted_calls GROUP BY what ORDER BY what;
TRUNCATE planted_calls;

-- Every function and procedure of the extension, as a superuser, exact
-- arguments.
CREATE TABLE planted_corpus (id integer PRIMARY KEY, body text, sig minhash(128), duplicate_of integer);
CREATE INDEX ON planted_corpus USING gin (sig);
CREATE INDEX ON planted_corpus USING gin (sig gin_minhash_approx_ops);
CREATE TRIGGER planted_corpus_flag BEFORE INSERT OR UPDATE ON planted_corpus
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8');
CREATE TRIGGER planted_corpus_flag_locked BEFORE INSERT OR UPDATE ON planted_corpus
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'duplicate_of', '0.8', 'id', 'lock');
INSERT INTO planted_corpus (id, body, sig)
SELECT i, b, minhash(b, 128, 5, 0)
  FROM generate_series(1, 40) i,
	   LATERAL (SELECT 'quarterly memo number ' || (i % 7) || ' about the budget review and the travel policy for all staff' AS b) x;
UPDATE planted_corpus SET body = body WHERE id = 1;
CREATE TABLE planted_signed (id integer PRIMARY KEY, body text, sig minhash, duplicate_of integer);
CREATE TRIGGER planted_signed_sign BEFORE INSERT OR UPDATE ON planted_signed
	FOR EACH ROW EXECUTE FUNCTION minhash_sign_and_flag('body', 'sig', 'duplicate_of', '0.8', 'id');
INSERT INTO planted_signed (id, body)
SELECT i, 'weekly note ' || (i % 3) || ' on the same long subject with the same many words in it' FROM generate_series(1, 9) i;
SELECT count(duplicate_of) > 0 AS flagged FROM planted_corpus;
SELECT count(duplicate_of) > 0 AS signed_and_flagged FROM planted_signed;

-- Signatures and comparisons.
SELECT minhash_size(minhash('one two three four five six'::text, 64::integer, 3::integer, 1::integer)) AS size;
SELECT minhash_size(minhash_chars('one two three'::text, 3::integer, 64::integer, 0::integer)) > 0,
	   minhash_size(minhash_char_shingles('one two three'::text, 64::integer, 3::integer, 0::integer)) > 0,
	   minhash_size(minhash(ARRAY['a', 'b']::text[], 64::integer, 0::integer)) AS array_size,
	   minhash_size(minhash_set(ARRAY['a', 'b']::text[], 64::integer, 0::integer)) AS set_size,
	   minhash_size(minhash('a b c d e f'::varchar, 64::integer, 3::integer, 0::integer)) > 0,
	   minhash_size(minhash('a b c d e f'::char(11), 64::integer, 3::integer, 0::integer)) > 0,
	   minhash_num_perm(minhash(minhash('a b c d e f'::text, 128::integer, 5::integer, 0::integer), 128::integer, true)) AS typmod;
SELECT count(*) > 0 AS hashes FROM shingle_hashes('one two three four five six'::text, 2::integer, 0::integer);
SELECT minhash_tokens('One two, THREE'::text);
SELECT minhash_size_is_estimated(sig), minhash_kind(sig), minhash_shingle_size(sig), minhash_seed(sig), minhash_num_perm(sig)
  FROM planted_corpus WHERE id = 1;
SELECT resemblance(a.sig, b.sig), containment(a.sig, b.sig), minhash_similar(a.sig, b.sig) IS NOT NULL,
	   minhash_distance(a.sig, b.sig), resembles(a.sig, b.sig, 0.8::double precision),
	   resemblance(a.sig, b.sig::text), minhash_similar_text(a.sig, b.sig::text),
	   resembles(a.sig, b.sig::text, 0.8::double precision), resembles_approx(a.sig, b.sig, 0.8::double precision),
	   minhash_query_match(a.sig, minhash_query(b.sig, 0.8::double precision)),
	   minhash_vector_l2_operator(a.sig, b.sig) IS NOT NULL, minhash_vector_cosine_operator(a.sig, b.sig) IS NOT NULL,
	   resemblance_bound(minhash_byte_sketch(a.sig), b.sig) >= resemblance(a.sig, b.sig) AS bound_holds,
	   minhash_eq(a.sig, b.sig), minhash_ne(a.sig, b.sig), minhash_lt(a.sig, b.sig), minhash_le(a.sig, b.sig),
	   minhash_gt(a.sig, b.sig), minhash_ge(a.sig, b.sig), minhash_cmp(a.sig, b.sig),
	   minhash_hash(a.sig) IS NOT NULL, minhash_hash_extended(a.sig, 0::bigint) IS NOT NULL,
	   minhash_num_perm(minhash_union(a.sig, b.sig)), resemblance(minhash_internal.minhash_literal_signature(a.sig::text, 'x'::text), a.sig) AS literal
  FROM planted_corpus a, planted_corpus b WHERE a.id = 1 AND b.id = 8;
SELECT a.sig OPERATOR(public.%) b.sig, a.sig OPERATOR(public.%>) minhash_query(b.sig, 0.8::double precision),
	   a.sig OPERATOR(public.<%>) b.sig, a.sig OPERATOR(public.=) b.sig, a.sig OPERATOR(public.<) b.sig,
	   a.sig OPERATOR(public.%) b.sig::text
  FROM planted_corpus a, planted_corpus b WHERE a.id = 1 AND b.id = 8;
SELECT resemblance(sig, body) FROM planted_corpus WHERE id = 1;
SELECT minhash_num_perm(minhash_union(sig)) FROM planted_corpus;
SELECT count(DISTINCT sig) AS distinct_sigs FROM planted_corpus;
SELECT minhash_query_out(minhash_query(sig, 0.5::double precision)) IS NOT NULL AS query_out
  FROM planted_corpus WHERE id = 1;
SELECT minhash_query(sig, 0.5::double precision)::text::minhash_query IS NOT NULL AS round_trip
  FROM planted_corpus WHERE id = 1;
SELECT count(*) AS indexed FROM planted_corpus WHERE resembles(sig, (SELECT sig FROM planted_corpus WHERE id = 1), 0.8::double precision);
SELECT count(*) AS indexed_approx FROM planted_corpus WHERE resembles_approx(sig, (SELECT sig FROM planted_corpus WHERE id = 1), 0.8::double precision);
SELECT cardinality(minhash_bands(sig, 16::integer, 8::integer)) FROM planted_corpus WHERE id = 1;
SELECT lsh_probability(0.8::double precision, 16::integer, 8::integer, 1::integer) > 0::double precision;
SELECT * FROM lsh_index_layout(0.8::double precision, 128::integer);
SELECT * FROM lsh_index_layout(0.8::double precision, 128::integer, 0.9::double precision);
SELECT * FROM lsh_params(0.8::double precision, 128::integer, 0.5::double precision, 0.5::double precision);
SELECT minhash_threshold();
-- Explaining a match.
SELECT shingle_resemblance('a b c d e f g'::text, 'a b c d e f h'::text, 3::integer),
	   (chunk_similarity('a b c d e f g'::text, 'a b c d e f h'::text, 3::integer, 'literal'::text)).s_j,
	   highlight('a b c d e f g'::text, 'a b c d e f h'::text, 3::integer, 'html'::text) IS NOT NULL;
SELECT count(*) FROM common_chunks('a b c d e f g'::text, 'a b c d e f h'::text, 3::integer);
SELECT lower < upper FROM resemblance_interval((SELECT sig FROM planted_corpus WHERE id = 1), (SELECT sig FROM planted_corpus WHERE id = 2), 0.95::double precision);
SELECT minhash_document_class('12 34'::text), minhash_document_class(''::text);

-- Grouping, in memory and spilled, pairs, append, query, check.
SELECT count(*) AS pairs FROM near_dupe_pairs('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);
SELECT count(*) AS rows_grouped FROM near_dupe_groups('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);
SELECT count(*) AS typed_pairs FROM near_dupe_pairs('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::integer, NULL::double precision);
SELECT count(*) AS recall_groups FROM near_dupe_groups('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::integer, 0.9::double precision);
-- (the spill's NOTICE hidden: its sizes differ by PostgreSQL version; a
-- planted function that ran would still show, as a WARNING)
SET client_min_messages = warning;
SET minhash.group_memory = '64kB';
SELECT count(*) AS spilled_rows_grouped FROM near_dupe_groups('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);
SELECT count(*) AS spilled_pairs FROM near_dupe_pairs('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);
SELECT count(*) AS spilled_typed FROM near_dupe_groups('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::integer, NULL::double precision);
RESET minhash.group_memory;
RESET client_min_messages;
SELECT count(*) AS statement_rows
  FROM (SELECT minhash_internal.near_dupe_statement('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, true, false, NULL::double precision)) s;
SELECT * FROM near_dupe_check('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);
SELECT * FROM near_dupe_check('planted_corpus'::regclass, 'nope'::name, 'sig'::name, 0.8::double precision);
SELECT * FROM minhash_internal.near_dupe_check_arguments('planted_corpus'::regclass, 'id'::name, 'body'::name, 0.8::double precision);
SELECT minhash_internal.near_dupe_column_hint('planted_corpus'::regclass, 'nope'::name) IS NOT NULL AS hint;
DO $$
DECLARE
	n bigint;
BEGIN
	EXECUTE 'SELECT pg_catalog.count(*) FROM (' ||
			near_dupe_query('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, true) || ') q' INTO n;
	RAISE NOTICE 'near_dupe_query: % rows', n;
END $$;
CREATE TABLE planted_groups AS
	SELECT * FROM near_dupe_groups('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::integer, NULL::double precision);
INSERT INTO planted_corpus (id, body, sig)
SELECT i, b, minhash(b, 128, 5, 0)
  FROM generate_series(41, 50) i,
	   LATERAL (SELECT 'quarterly memo number ' || (i % 7) || ' about the budget review and the travel policy for all staff' AS b) x;
INSERT INTO planted_groups
SELECT * FROM near_dupe_groups_append('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'sig'::name,
									  0.8::double precision, NULL::integer, NULL::double precision);
SELECT count(*) AS appended FROM near_dupe_groups_append('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);
CREATE TABLE planted_text_groups AS
	SELECT * FROM near_dupe_groups('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision);

-- Reports and review pages.
SELECT * FROM near_dupe_totals('planted_groups'::regclass);
SELECT * FROM near_dupe_summary('planted_text_groups'::regclass);
SELECT count(*) FROM near_dupe_histogram('planted_groups'::regclass);
SELECT count(*) FROM near_dupe_group_stats('planted_text_groups'::regclass);
SELECT count(*) FROM near_dupe_group_stats('planted_groups'::regclass, NULL::integer);
SELECT * FROM minhash_internal.near_dupe_group_table_problem('planted_corpus'::regclass, false);
SELECT count(*) FROM near_dupe_classes('planted_groups'::regclass);
SELECT count(*) FROM near_dupe_classes('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'body'::name);
SELECT count(*) FROM near_dupe_review('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'body'::name, 1::bigint, 3::integer, 'text'::text);
SELECT count(*) FROM near_dupe_group_detail('planted_text_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'body'::name, 1::bigint, 3::integer, 'html'::text);
SELECT minhash_internal.near_dupe_document('planted_corpus'::regclass, 'id'::name, 'body'::name, '1'::text, 1::bigint) IS NOT NULL AS document;
SELECT length(near_dupe_review_html('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'body'::name, 1::bigint, 3::integer)) > 0 AS review_page;
SELECT length(near_dupe_review_html('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'body'::name, 1::bigint, 3::integer, 'body'::name, 2097152::bigint)) > 0 AS labelled_review_page;
SELECT length(near_dupe_review_index_html('planted_groups'::regclass, 'planted_corpus'::regclass, 'id'::name, 'body'::name, 'group-%s.html'::text)) > 0 AS index_page;
SELECT count(*) FROM minhash_internal.review_pair_html('a b c d e f g'::text, 'a b c d e f h'::text, 3::integer, 'x'::text, 100::bigint, 100::bigint, 1600::integer, 100::integer);
SELECT length(minhash_internal.review_document_html('1'::text, 'x'::text)) > 0, length(minhash_internal.review_style()) > 0;

-- The distributed forms run as far as they go without Citus.
SELECT minhash_internal.near_dupe_distributed_work_name('planted_corpus'::regclass) IS NOT NULL AS work_name;
SELECT * FROM near_dupe_pairs_distributed('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::double precision);
SELECT * FROM near_dupe_groups_distributed('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::double precision);
SELECT minhash_internal.near_dupe_distributed_groups_query('planted_corpus'::regclass, 'id'::name, 'sig'::name, 'planted_assign'::text, false) IS NOT NULL AS groups_query;
SELECT minhash_internal.near_dupe_distributed_slice('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, 'planted_work'::name, 2::integer, 1::integer, 1::integer) IS NOT NULL AS slice_query;
SELECT * FROM minhash_internal.near_dupe_distributed_bands('planted_corpus'::regclass, 'id'::name, 'sig'::name, 0.8::double precision, NULL::double precision, 'planted_work'::name, true, 1::integer);
SELECT minhash_internal.near_dupe_distributed_refuse_transaction_block('p'::text);
BEGIN;
CALL near_dupe_pairs_distributed_into('planted_corpus'::regclass, 'id'::name, 'sig'::name, 'planted_result'::text, 0.8::double precision, NULL::double precision, NULL::integer);
ROLLBACK;
CALL near_dupe_pairs_distributed_into('planted_corpus'::regclass, 'id'::name, 'sig'::name, 'planted_result'::text, 0.8::double precision, NULL::double precision, NULL::integer);
CALL near_dupe_groups_distributed_into('planted_corpus'::regclass, 'id'::name, 'sig'::name, 'planted_result2'::text, 0.8::double precision, NULL::double precision, NULL::integer);
DROP TABLE IF EXISTS planted_result, planted_result2;
SELECT count(*) AS work_tables_dropped FROM near_dupe_distributed_cleanup();

-- Nothing planted ran.
SELECT what, count(*) AS calls FROM planted_calls GROUP BY what ORDER BY what;

SET client_min_messages = warning;
DROP TABLE planted_corpus, planted_signed, planted_groups, planted_text_groups;
DROP OWNED BY minhash_planter;
RESET client_min_messages;
DROP ROLE minhash_planter;
DROP FUNCTION planted_ran(text);
DROP TABLE planted_calls;
