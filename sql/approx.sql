-- Approximate mode: near_dupe_groups(..., recall => r) and the approximate
-- index gin_minhash_approx_ops(threshold = t, recall = r), which only the
-- %~ operator (and resembles_approx) reads.  recall NULL is exact; a recall
-- takes candidates from the band keys of lsh_index_layout(t, num_perm, r)
-- (the engine's mh_recall_layout), a pair a candidate when it shares one
-- band key; verification is unchanged.

-- The NOTICE of a call about to spill is not shown: its sizes differ by
-- PostgreSQL version (test/bench/group_spill_spam.sh checks it).
SET client_min_messages = warning;

-- The approximate layouts beside the exact ones (the index's, with two spare
-- bands; the in-memory grouping takes two bands fewer).  Longer bands, fewer
-- of them: a pair a little above t (t + 0.05) shares a band with probability
-- at least r.
SELECT t, a.bands, a.rows, a.min_bands, e.bands AS exact_bands, e.rows AS exact_rows,
       round(lsh_probability(least(t + 0.05, (t + 1) / 2), a.bands, a.rows)::numeric, 4) AS recall_at_target,
       round(lsh_probability(t - 0.2, a.bands, a.rows)::numeric, 4) AS at_t_minus_0_2
  FROM unnest(ARRAY[0.5, 0.6, 0.7, 0.8, 0.9]::float8[]) t,
       lsh_index_layout(t, 128, 0.99) a, lsh_index_layout(t, 128) e;
SELECT * FROM lsh_index_layout(0.5, 128, NULL) AS exact_when_null;
-- The approximate layout is an overload of lsh_index_layout(threshold,
-- num_perm = 128), the exact one, which is unchanged: a null recall gives
-- what it gives.
SELECT bool_and((n.bands, n.rows, n.min_bands) = (e.bands, e.rows, e.min_bands)) AS null_recall_is_exact
  FROM unnest(ARRAY[0.3, 0.5, 0.7, 0.8, 0.9, 0.95, 1]::float8[]) t,
       lsh_index_layout(t, 128, NULL) n, lsh_index_layout(t, 128) e;
SELECT * FROM lsh_index_layout(0.5, recall => 0.99, num_perm => 128) AS named;
SELECT * FROM lsh_index_layout(0.8, 64, 0.9) AS n64;
SELECT lsh_index_layout(NULL, 128, 0.9) IS NULL AS null_threshold_null;

-- Bad recall values: 22023, with a hint.
SELECT * FROM lsh_index_layout(0.5, 128, 0);
SELECT * FROM lsh_index_layout(0.5, 128, 1);
SELECT * FROM lsh_index_layout(0.5, 128, -0.5);
SELECT * FROM lsh_index_layout(0.5, 128, 'NaN');

-- Families of edited copies (member m of family f replaces m words of 80
-- at family-dependent places: neighbours resemble about 0.75 to 0.9), and
-- loners.
CREATE TABLE ax_docs (id int, body text, sig minhash);
INSERT INTO ax_docs (id, body)
SELECT f * 10 + m,
       (SELECT string_agg(CASE WHEN m > 0 AND (w * 7 + f) % 40 < m * 2 THEN 'edit' || m || 'w' || w
                               ELSE 'f' || f || 'w' || w END, ' ' ORDER BY w)
          FROM generate_series(1, 80) w)
  FROM generate_series(1, 40) f, generate_series(0, 4) m;
INSERT INTO ax_docs (id, body)
SELECT 1000 + i, (SELECT string_agg('loner' || i || 'w' || w, ' ') FROM generate_series(1, 30) w)
  FROM generate_series(1, 20) i;
INSERT INTO ax_docs VALUES (2000, '', NULL), (2001, NULL, NULL);
UPDATE ax_docs SET sig = minhash(body) WHERE body IS NOT NULL;
ANALYZE ax_docs;

-- recall NULL is exact: the same rows, bit for bit, as the call without it.
SELECT t,
       (SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int)) AS exact_rows,
       (SELECT count(*) FROM (SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int)
                              EXCEPT ALL
                              SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int, recall => NULL)) d) AS differ,
       (SELECT count(*) FROM (SELECT group_id, key::text, pivot::text, resemblance FROM near_dupe_groups('ax_docs', 'id', 'sig', t)
                              EXCEPT ALL
                              SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::text, recall => NULL)) d) AS differ_text
  FROM unnest(ARRAY[0.5, 0.7, 0.9]::float8[]) t;

-- With a recall: every row once; every member resembles its pivot at least
-- t, as the result says; every pivot heads its own group.  Here (pairs well
-- above t) the approximate groups are the exact ones.
CREATE TEMP TABLE ax_approx AS
SELECT t, g.* FROM unnest(ARRAY[0.5, 0.7, 0.9]::float8[]) t,
       near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int, recall => 0.99) g;
SELECT a.t, count(*) AS rows, count(DISTINCT a.key) AS distinct_keys,
       count(*) FILTER (WHERE a.key <> a.pivot AND NOT (resemblance(m.sig, p.sig) >= a.t)) AS below_threshold,
       count(*) FILTER (WHERE a.key <> a.pivot AND resemblance(m.sig, p.sig) <> a.resemblance) AS wrong_resemblance,
       count(*) FILTER (WHERE a.key <> a.pivot AND NOT EXISTS (SELECT FROM ax_approx h WHERE h.t = a.t AND h.key = a.pivot AND h.pivot = a.pivot)) AS pivot_elsewhere
  FROM ax_approx a JOIN ax_docs m ON m.id = a.key JOIN ax_docs p ON p.id = a.pivot
 GROUP BY a.t ORDER BY a.t;
SELECT t, count(*) AS differ_from_exact
  FROM (SELECT * FROM ax_approx
        EXCEPT ALL
        SELECT t, g.* FROM unnest(ARRAY[0.5, 0.7, 0.9]::float8[]) t,
               near_dupe_groups('ax_docs', 'id', 'sig', t, NULL::int) g) d
 GROUP BY t ORDER BY t;
-- Text keys with a recall: key_type text, for a key column of any type.
SELECT group_id, key, pg_typeof(key), pivot, resemblance
  FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.7, NULL::text, recall => 0.99) LIMIT 3;

-- The layout is the recall layout: signatures of 128 values base + i, with
-- chosen values.  At 0.5 the approximate layout is 26 bands of 3 (positions
-- 0 .. 77).  Each twin agrees with the query on 64 positions (resemblance
-- 0.5): positions 78 .. 127 and 14 more.  hit_twin's include band 0 whole
-- (positions 0, 1, 2) and the first position of bands 1 .. 11; miss_twin's
-- the first position of bands 0 .. 13, so no band agrees whole.  Exact
-- grouping puts both with the query; the approximate one only hit_twin.
CREATE FUNCTION ax_signature(agree int[]) RETURNS minhash
LANGUAGE sql IMMUTABLE AS $$
	SELECT ('v1:words:k=5:seed=0:size=500:n=128:' ||
	        string_agg(lpad(to_hex(CASE WHEN i = ANY (agree) THEN 1000 + i ELSE 7000000 + i END), 8, '0'), '' ORDER BY i))::minhash
	  FROM generate_series(0, 127) i
$$;
CREATE TABLE ax_twins (id text, sig minhash);
INSERT INTO ax_twins VALUES
	('a_query', ax_signature(ARRAY(SELECT generate_series(0, 127)))),
	('b_hit_twin', ax_signature(ARRAY(SELECT generate_series(78, 127)) || ARRAY[0, 1, 2] || ARRAY(SELECT 3 * b FROM generate_series(1, 11) b))),
	('c_miss_twin', ax_signature(ARRAY(SELECT generate_series(78, 127)) || ARRAY(SELECT 3 * b FROM generate_series(0, 13) b)));
SELECT id, resemblance(sig, (SELECT sig FROM ax_twins WHERE id = 'a_query')) AS to_query,
       (SELECT count(*) FROM unnest(minhash_bands(sig, 26, 3)) k
         WHERE k = ANY (minhash_bands((SELECT sig FROM ax_twins WHERE id = 'a_query'), 26, 3))) AS shared_band_keys
  FROM ax_twins ORDER BY id;
SELECT * FROM near_dupe_groups('ax_twins', 'id', 'sig', 0.5, NULL::text) ORDER BY key;
SELECT * FROM near_dupe_groups('ax_twins', 'id', 'sig', 0.5, NULL::text, recall => 0.99) ORDER BY key;

-- Bad recall values for grouping.
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 0);
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 1);
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 1.5);
SELECT * FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 'NaN');
-- Positional typed calls still reach the typed overload (keys in their type).
SELECT pg_typeof(key) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int) LIMIT 1;

-- Memory: what the walk holds depends on the layout used.  At 0.5 the
-- exact walk keeps 65 bands, the approximate one 26: at a limit between the
-- two (here about 235 kB and 172 kB) the exact grouping's buckets do not
-- fit and it spills to a temporary file; below both, so does the
-- approximate one, with its layout.  Either way the rows are the ones
-- returned in memory (sql/group_spill.sql compares them).
CREATE FUNCTION pg_temp.error_masked(statement text) RETURNS TABLE (error text, detail text, hint text)
LANGUAGE plpgsql AS $$
DECLARE
	d text;
	h text;
BEGIN
	EXECUTE statement;
	RETURN QUERY SELECT 'no error', NULL::text, NULL::text;
EXCEPTION WHEN OTHERS THEN
	GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL, h = PG_EXCEPTION_HINT;
	RETURN QUERY SELECT SQLSTATE || ': ' || regexp_replace(SQLERRM, '[0-9]+', 'N', 'g'),
	                    regexp_replace(d, '[0-9]+', 'N', 'g'), regexp_replace(h, '[0-9]+', 'N', 'g');
END $$;
SET minhash.group_memory = '200kB';
\x on
SELECT * FROM pg_temp.error_masked($$SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int)$$);
\x off
SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 0.99);
SET minhash.group_memory = '64kB';
\x on
SELECT * FROM pg_temp.error_masked($$SELECT count(*) FROM near_dupe_groups('ax_docs', 'id', 'sig', 0.5, NULL::int, recall => 0.99)$$);
\x off
RESET minhash.group_memory;

-- The approximate index: gin_minhash_approx_ops, an operator class whose
-- family holds only %~.  gin_minhash_ops is exact and takes no recall (the
-- hint names the approximate operator class and operator).
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5, recall = 0.99));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_ops(bands = 26, rows = 3, recall = 0.99));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_approx_ops(threshold = 0.5, recall = 1));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_approx_ops(threshold = 0.5, recall = 0));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_approx_ops(bands = 26, rows = 3));
CREATE INDEX ax_bad ON ax_docs USING gin (sig gin_minhash_approx_ops(layout = 2));

-- The twins join the families: a pair at exactly 0.5 that shares no band
-- of the approximate layout at 0.5.
INSERT INTO ax_docs SELECT 3000 + row_number() OVER (ORDER BY id), id, sig FROM ax_twins;
-- Rewritten (VACUUM FULL), so that no HOT chain is left when the indexes
-- below are built: one whose old version is still recently dead (a plain
-- VACUUM cannot remove it while a snapshot older than the UPDATE lives,
-- such as autovacuum's ANALYZE of another table) would make CREATE INDEX
-- hide its index from the planner until the transactions older than it end
-- (pg_index.indcheckxmin), and the plans below would depend on that timing.
VACUUM (FULL, ANALYZE) ax_docs;

-- Whether a query's plan reads the named index.
CREATE FUNCTION ax_plan_uses(query text, index_name text) RETURNS boolean LANGUAGE plpgsql AS $$
DECLARE
	line text;
BEGIN
	FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || query LOOP
		IF line LIKE '%Index Scan on ' || index_name || ' %' OR line LIKE '%Index Scan on ' || index_name THEN
			RETURN true;
		END IF;
	END LOOP;
	RETURN false;
END $$;

-- The pairs of the exact forms (% at minhash.threshold 0.5, %> and
-- resembles at 0.5) and of %~ at 0.5, each query row against the table, as
-- the current plan settings run them.
SET minhash.threshold = 0.5;
CREATE FUNCTION ax_pairs(form text) RETURNS TABLE (q int, d int) LANGUAGE plpgsql AS $$
BEGIN
	RETURN QUERY EXECUTE format('SELECT a.id, b.id FROM ax_docs a JOIN ax_docs b ON %s WHERE a.sig IS NOT NULL',
		CASE form WHEN '%' THEN 'b.sig % a.sig'
				  WHEN '%>' THEN 'b.sig %> minhash_query(a.sig, 0.5)'
				  WHEN 'resembles' THEN 'resembles(b.sig, a.sig, 0.5)'
				  WHEN '%~' THEN 'b.sig %~ minhash_query(a.sig, 0.5)'
				  WHEN 'resembles_approx' THEN 'resembles_approx(b.sig, a.sig, 0.5)' END);
END $$;
CREATE FUNCTION ax_lookup(form text) RETURNS text LANGUAGE sql AS $$
	SELECT format('SELECT id FROM ax_docs WHERE %s',
		CASE form WHEN '%' THEN 'sig % (SELECT sig FROM ax_docs WHERE id = 3001)'
				  WHEN '%>' THEN 'sig %> minhash_query((SELECT sig FROM ax_docs WHERE id = 3001), 0.5)'
				  WHEN 'resembles' THEN 'resembles(sig, (SELECT sig FROM ax_docs WHERE id = 3001), 0.5)'
				  WHEN '%~' THEN 'sig %~ minhash_query((SELECT sig FROM ax_docs WHERE id = 3001), 0.5)'
				  WHEN 'resembles_approx' THEN 'resembles_approx(sig, (SELECT sig FROM ax_docs WHERE id = 3001), 0.5)' END)
$$;

-- The sequential scan's pairs.
SET enable_indexscan = off;
SET enable_bitmapscan = off;
CREATE TEMP TABLE ax_seq AS
SELECT form, p.* FROM unnest(ARRAY['%', '%>', 'resembles', '%~', 'resembles_approx']) form, ax_pairs(form) p;
RESET enable_indexscan;
RESET enable_bitmapscan;
SELECT form, count(*) AS seq_pairs FROM ax_seq GROUP BY form ORDER BY form;

-- Through the indexes, as the planner chooses them when a sequential scan
-- is the last resort: every form's pairs, whether they differ from the
-- sequential scan's, and which index a lookup reads.
CREATE FUNCTION ax_compare() RETURNS TABLE (form text, pairs bigint, missing bigint, extra bigint,
														 uses_approx boolean, uses_exact boolean)
LANGUAGE plpgsql AS $$
BEGIN
	SET LOCAL enable_seqscan = off;
	CREATE TEMP TABLE ax_index_pairs AS
	SELECT f.form, p.* FROM unnest(ARRAY['%', '%>', 'resembles', '%~', 'resembles_approx']) f(form), ax_pairs(f.form) p;
	RETURN QUERY
	SELECT f.form,
		   (SELECT count(*) FROM ax_index_pairs i WHERE i.form = f.form),
		   (SELECT count(*) FROM (SELECT s.q, s.d FROM ax_seq s WHERE s.form = f.form
								  EXCEPT SELECT i.q, i.d FROM ax_index_pairs i WHERE i.form = f.form) x),
		   (SELECT count(*) FROM (SELECT i.q, i.d FROM ax_index_pairs i WHERE i.form = f.form
								  EXCEPT SELECT s.q, s.d FROM ax_seq s WHERE s.form = f.form) x),
		   ax_plan_uses(ax_lookup(f.form), 'ax_sig_approx'),
		   ax_plan_uses(ax_lookup(f.form), 'ax_sig_exact')
	  FROM unnest(ARRAY['%', '%>', 'resembles', '%~', 'resembles_approx']) f(form)
	 ORDER BY 1;
	DROP TABLE ax_index_pairs;
END $$;

-- Only an approximate index.  The exact forms (%, %>, resembles) never read
-- it and return the sequential scan's pairs; %~ and resembles_approx read
-- it and return a subset: the twins' pair at 0.5 (3001 with 3003) is
-- missing, and nothing is added.
CREATE INDEX ax_sig_approx ON ax_docs USING gin (sig gin_minhash_approx_ops(threshold = 0.5, recall = 0.99));
SELECT * FROM ax_compare();
-- The twins through %~ and through %>.
SELECT id FROM ax_docs WHERE sig %~ minhash_query((SELECT sig FROM ax_docs WHERE id = 3001), 0.5) ORDER BY id;
SET enable_seqscan = off;
SELECT id FROM ax_docs WHERE sig %~ minhash_query((SELECT sig FROM ax_docs WHERE id = 3001), 0.5) ORDER BY id;
SELECT id FROM ax_docs WHERE sig %> minhash_query((SELECT sig FROM ax_docs WHERE id = 3001), 0.5) ORDER BY id;
RESET enable_seqscan;
-- The planted pairs well above the threshold (0.55 and up) are all found.
SELECT count(*) FILTER (WHERE resemblance(a.sig, b.sig) >= 0.55) AS seq_pairs_at_0_55
  FROM ax_seq s JOIN ax_docs a ON a.id = s.q JOIN ax_docs b ON b.id = s.d WHERE s.form = '%~';
CREATE FUNCTION ax_approx_pairs_at_0_55() RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
	found bigint;
BEGIN
	SET LOCAL enable_seqscan = off;
	SELECT count(*) INTO found FROM ax_pairs('%~') p JOIN ax_docs a ON a.id = p.q JOIN ax_docs b ON b.id = p.d
	 WHERE resemblance(a.sig, b.sig) >= 0.55;
	RETURN found;
END $$;
SELECT ax_approx_pairs_at_0_55() AS approx_index_pairs_at_0_55;

-- An exact and an approximate index.  The exact forms never read the
-- approximate one; the approximate forms may take either, and return a
-- subset.
CREATE INDEX ax_sig_exact ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5));
SELECT form, pairs, missing, extra, uses_approx, uses_exact FROM ax_compare() WHERE form IN ('%', '%>', 'resembles');
SELECT form, extra FROM ax_compare() WHERE form IN ('%~', 'resembles_approx');

-- Only an exact index: it answers %~ as exactly as %>.
DROP INDEX ax_sig_approx;
SELECT * FROM ax_compare();
DROP INDEX ax_sig_exact;

-- The flagging trigger's lookup (%>) never reads the approximate index, and
-- the trigger does not warn about that index's fastupdate, which its lookups
-- never read.  The twin at exactly 0.5 that the approximate index misses is
-- flagged.
-- (No other index: the lookup could read only that one or the table.)
CREATE TABLE ax_flagged (id text, sig minhash, dup text);
CREATE INDEX ax_flagged_approx ON ax_flagged USING gin (sig gin_minhash_approx_ops(threshold = 0.5, recall = 0.99));
CREATE TRIGGER ax_flag BEFORE INSERT OR UPDATE ON ax_flagged
	FOR EACH ROW EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup', '0.5', 'id');
SET enable_seqscan = off;
INSERT INTO ax_flagged (id, sig) SELECT id, sig FROM ax_twins WHERE id = 'c_miss_twin';
INSERT INTO ax_flagged (id, sig) SELECT id, sig FROM ax_twins WHERE id = 'a_query';
SELECT id, dup FROM ax_flagged ORDER BY id;
-- The same lookup as the trigger writes it, planned the same way.
SELECT ax_plan_uses('SELECT id FROM ax_flagged t WHERE t.sig OPERATOR(public.%>) public.minhash_query((SELECT sig FROM ax_twins WHERE id = ''a_query''), ''0.5''::pg_catalog.float8)',
					'ax_flagged_approx') AS trigger_lookup_uses_approx;
RESET enable_seqscan;
DROP TABLE ax_flagged;

-- The planner: a generic plan of resembles_approx(sig, $1, $2) cannot see
-- the threshold.  An approximate index never reads everything, so the
-- estimate is matchingsel's, as for a constant query; over an exact index,
-- which reads every posting list below its threshold, the estimator says
-- every row may match.
CREATE FUNCTION ax_generic_rows() RETURNS float8 LANGUAGE plpgsql AS $$
DECLARE
	plan json;
BEGIN
	EXECUTE 'EXPLAIN (FORMAT JSON) EXECUTE ax_generic(NULL, 0.3)' INTO plan;
	RETURN (plan -> 0 -> 'Plan' ->> 'Plan Rows')::float8;
END $$;
SET plan_cache_mode = force_generic_plan;
CREATE INDEX ax_sig_approx ON ax_docs USING gin (sig gin_minhash_approx_ops(threshold = 0.5, recall = 0.99));
PREPARE ax_generic(minhash, float8) AS SELECT id FROM ax_docs WHERE resembles_approx(sig, $1, $2);
SELECT ax_generic_rows() < 100 AS approximate_index_narrows;
DEALLOCATE ax_generic;
-- The approximate index does not serve resembles: as without an index.
PREPARE ax_generic(minhash, float8) AS SELECT id FROM ax_docs WHERE resembles(sig, $1, $2);
SELECT ax_generic_rows() < 100 AS exact_form_not_indexed;
DEALLOCATE ax_generic;
DROP INDEX ax_sig_approx;
CREATE INDEX ax_sig_exact ON ax_docs USING gin (sig gin_minhash_ops(threshold = 0.5));
PREPARE ax_generic(minhash, float8) AS SELECT id FROM ax_docs WHERE resembles_approx(sig, $1, $2);
SELECT ax_generic_rows() AS exact_index_rows;
DEALLOCATE ax_generic;
RESET plan_cache_mode;
DROP FUNCTION ax_generic_rows();
RESET minhash.threshold;

DROP TABLE ax_docs, ax_twins;
DROP FUNCTION ax_signature(int[]), ax_plan_uses(text, text), ax_pairs(text), ax_lookup(text),
	ax_compare(), ax_approx_pairs_at_0_55();
