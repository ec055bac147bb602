-- Issue 17, item 3: low thresholds on the realistic corpus, in one run.
-- Run through test/bench/realistic_scale.sh (which makes the corpus); on a
-- database holding real_docs, real_families (generate_realistic.sql):
--   psql -X -v short=0 -v timeout=600s -v lookups=1000 -v seqscans=5 -f test/bench/realistic_scale.sql
-- Prints one table: near_dupe_groups and near_dupe_pairs at 0.9, 0.8 (exact)
-- and 0.7, 0.6, 0.5 (recall => 0.99; "n/a" where this build has no recall
-- argument), the index builds (gin_minhash_ops default = threshold 0.8
-- exact, and threshold = 0.5, recall = 0.99) and lookups p50/p95 through
-- them beside a sequential scan.  Recall is measured on the planted
-- families (real_families): of the planted pairs whose exact resemblance
-- (shingle_resemblance) is at least t + 0.05, the share found (groups:
-- in one group; pairs: returned), and the share of those the exact mode
-- finds (estimate >= t) that this mode found.
-- No timing assertions.  With short=1 it asserts correctness (ERROR, so the
-- script fails): every returned pair / group member verified (resemblance of
-- the signatures >= t), groups a partition of the table, exact pairs find
-- every planted pair whose estimate is >= t, approximate pairs at least the
-- asked recall of those, index results equal (exact index) or within
-- (approximate index) the sequential scan's.
\set ON_ERROR_STOP 1
\if :{?short}
\else
\set short 0
\endif
\if :{?timeout}
\else
\set timeout 600s
\endif
\if :{?lookups}
\else
\set lookups 1000
\endif
\if :{?seqscans}
\else
\set seqscans 5
\endif
\set asked_recall 0.99
SET client_min_messages = warning;
SET jit = off;
SELECT minhash('loads the library, and its settings'::text) IS NOT NULL AS loaded \gset
-- What minhash.group_memory is here (by default maintenance_work_mem), then
-- room for the groupings and pairs at a million documents (about 0.9 kB a
-- document held at 0.8).

SELECT EXISTS (SELECT FROM pg_proc WHERE proname = 'near_dupe_groups' AND 'recall' = ANY (proargnames)) AS has_recall_groups,
       EXISTS (SELECT FROM pg_proc WHERE proname = 'near_dupe_pairs' AND 'recall' = ANY (proargnames)) AS has_recall_pairs,
       (SELECT count(*) FROM real_docs) AS n_docs,
       current_setting('maintenance_work_mem') AS mwm,
       current_setting('minhash.group_memory') AS group_memory_default \gset
SET minhash.group_memory = '4GB';

DROP TABLE IF EXISTS scale_results;
CREATE TABLE scale_results (
    n            serial,
    kind         text,
    threshold    double precision,
    mode         text,
    seconds      double precision,
    out_rows     bigint,
    groups       bigint,
    planted      bigint,
    found        bigint,
    est_ge_t     bigint,
    found_of_est bigint,
    unverified   bigint,
    bad_rows     boolean,
    size_bytes   bigint,
    p50_ms       double precision,
    p95_ms       double precision,
    queries      int,
    mean_hits    double precision,
    note         text
);

-- The exact resemblance of every planted pair, once per corpus (kept).
SELECT to_regclass('planted_exact') IS NULL AS need_exact \gset
\if :need_exact
SELECT clock_timestamp() AS t0 \gset
CREATE TABLE planted_exact AS
SELECT f.id, f.original_id, f.kind, shingle_resemblance(o.body, d.body) AS exact
  FROM real_families f JOIN real_docs o ON o.id = f.original_id JOIN real_docs d ON d.id = f.id;
INSERT INTO scale_results (kind, seconds, out_rows, note)
SELECT 'planted_exact', extract(epoch FROM clock_timestamp() - :'t0'), count(*),
       'exact resemblance of every planted pair (kept in the database)' FROM planted_exact;
\endif
ANALYZE planted_exact;

-- near_dupe_groups and near_dupe_pairs, one threshold after another.
\set fn groups
\set t 0.9
\set recall NULL
\ir realistic_scale_step.sql
\set t 0.8
\ir realistic_scale_step.sql
\set recall :asked_recall
\set t 0.7
\ir realistic_scale_step.sql
\set t 0.6
\ir realistic_scale_step.sql
\set t 0.5
\ir realistic_scale_step.sql
\set fn pairs
\set recall NULL
\set t 0.9
\ir realistic_scale_step.sql
\set t 0.8
\ir realistic_scale_step.sql
\set recall :asked_recall
\set t 0.7
\ir realistic_scale_step.sql
\set t 0.6
\ir realistic_scale_step.sql
\set t 0.5
\ir realistic_scale_step.sql
DROP TABLE IF EXISTS scale_out_groups, scale_out_pairs;

-- Indexes and lookups.  The query documents: :lookups documents chosen by
-- hash of their id; the lookup is "the near-duplicates of document X",
-- SELECT array_agg(id) FROM real_docs WHERE resembles(sig, X.sig, t),
-- timed inside the server (one plpgsql loop).
DROP TABLE IF EXISTS scale_queries, scale_hits;
CREATE TABLE scale_queries AS
SELECT id, sig FROM real_docs ORDER BY hashint8extended(id, 17) LIMIT :lookups;
CREATE TABLE scale_hits (what text, threshold double precision, id bigint, ms double precision, hits bigint[]);

-- approximate: resembles_approx, which only an approximate index serves.
CREATE FUNCTION pg_temp.lookups(what text, t double precision, how text, n int, approximate boolean DEFAULT false)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	q record;
	started timestamptz;
	found bigint[];
BEGIN
	PERFORM set_config('enable_seqscan', (how = 'seqscan')::text, true);
	PERFORM set_config('enable_bitmapscan', (how = 'index')::text, true);
	PERFORM set_config('enable_indexscan', 'off', true);
	PERFORM set_config('max_parallel_workers_per_gather', '0', true);
	FOR q IN SELECT * FROM scale_queries ORDER BY hashint8extended(id, 17) LIMIT n LOOP
		started := clock_timestamp();
		IF approximate THEN
			SELECT array_agg(d.id ORDER BY d.id) INTO found FROM real_docs d WHERE resembles_approx(d.sig, q.sig, t);
		ELSE
			SELECT array_agg(d.id ORDER BY d.id) INTO found FROM real_docs d WHERE resembles(d.sig, q.sig, t);
		END IF;
		INSERT INTO scale_hits VALUES (what, t, q.id, 1000 * extract(epoch FROM clock_timestamp() - started), found);
	END LOOP;
END $$;

-- The plan of one lookup (without its conditions' long literals), to show it
-- reads the index.
CREATE FUNCTION pg_temp.lookup_plan(t double precision, approximate boolean DEFAULT false) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE
	q minhash;
	line text;
BEGIN
	PERFORM set_config('enable_seqscan', 'off', true);
	SELECT sig INTO q FROM scale_queries ORDER BY hashint8extended(id, 17) LIMIT 1;
	FOR line IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT array_agg(id) FROM real_docs WHERE %s(sig, %L::minhash, %s)',
							   CASE WHEN approximate THEN 'resembles_approx' ELSE 'resembles' END, q, t) LOOP
		IF line NOT LIKE '%Cond:%' THEN
			RETURN NEXT line;
		END IF;
	END LOOP;
END $$;

CREATE FUNCTION pg_temp.record_lookups(what text, t double precision, label text) RETURNS void
LANGUAGE sql AS $$
INSERT INTO scale_results (kind, threshold, mode, p50_ms, p95_ms, queries, mean_hits)
SELECT 'lookup', t, label, percentile_cont(0.5) WITHIN GROUP (ORDER BY ms),
       percentile_cont(0.95) WITHIN GROUP (ORDER BY ms), count(*), avg(cardinality(hits))
  FROM scale_hits h WHERE h.what = record_lookups.what AND h.threshold = t
$$;

DROP INDEX IF EXISTS real_docs_sig_gin;
SELECT clock_timestamp() AS t0 \gset
CREATE INDEX real_docs_sig_gin ON real_docs USING gin (sig);
INSERT INTO scale_results (kind, threshold, mode, seconds, size_bytes, note)
VALUES ('index build', 0.8, 'exact (default)', extract(epoch FROM clock_timestamp() - :'t0'),
        pg_relation_size('real_docs_sig_gin'), 'gin_minhash_ops, maintenance_work_mem ' || :'mwm');
ANALYZE real_docs;
SELECT pg_temp.lookup_plan(0.8) AS "plan of a lookup at 0.8";
SELECT pg_temp.lookups('index 0.8', 0.8, 'index', :lookups) \g /dev/null
SELECT pg_temp.record_lookups('index 0.8', 0.8, 'index, exact') \g /dev/null
SELECT pg_temp.lookups('seqscan', 0.8, 'seqscan', :seqscans) \g /dev/null
SELECT pg_temp.record_lookups('seqscan', 0.8, 'sequential scan') \g /dev/null
DROP INDEX real_docs_sig_gin;

\set ON_ERROR_STOP 0
SELECT clock_timestamp() AS t0 \gset
CREATE INDEX real_docs_sig_gin ON real_docs USING gin (sig gin_minhash_approx_ops (threshold = 0.5, recall = 0.99));
\set idx_err :ERROR
\set ON_ERROR_STOP 1
\if :idx_err
INSERT INTO scale_results (kind, threshold, mode, note)
VALUES ('index build', 0.5, 'recall 0.99', 'n/a: ' || :'LAST_ERROR_MESSAGE'),
       ('lookup', 0.5, 'index, recall 0.99', 'n/a (no such index)');
\else
INSERT INTO scale_results (kind, threshold, mode, seconds, size_bytes, note)
VALUES ('index build', 0.5, 'recall 0.99', extract(epoch FROM clock_timestamp() - :'t0'),
        pg_relation_size('real_docs_sig_gin'), 'gin_minhash_approx_ops (threshold = 0.5, recall = 0.99)');
ANALYZE real_docs;
SELECT pg_temp.lookup_plan(0.5, true) AS "plan of a lookup at 0.5";
SELECT pg_temp.lookups('index 0.5', 0.5, 'index', :lookups, true) \g /dev/null
SELECT pg_temp.record_lookups('index 0.5', 0.5, 'index, recall 0.99') \g /dev/null
DROP INDEX real_docs_sig_gin;
\endif
SELECT pg_temp.lookups('seqscan', 0.5, 'seqscan', :seqscans) \g /dev/null
SELECT pg_temp.record_lookups('seqscan', 0.5, 'sequential scan') \g /dev/null

-- Index results against the sequential scan's, on the queries both ran.
INSERT INTO scale_results (kind, threshold, mode, queries, planted, found, bad_rows, note)
SELECT 'index vs seqscan', i.threshold, i.what, count(*),
       sum(cardinality(s.hits)), sum(cardinality(i.hits)),
       bool_or(NOT (coalesce(i.hits, '{}') <@ coalesce(s.hits, '{}'))
               OR (i.what = 'index 0.8' AND coalesce(i.hits, '{}') <> coalesce(s.hits, '{}'))),
       'planted = rows the seqscan found, found = rows the index found'
  FROM scale_hits i JOIN scale_hits s ON s.id = i.id AND s.threshold = i.threshold AND s.what = 'seqscan'
 WHERE i.what <> 'seqscan'
 GROUP BY i.threshold, i.what;

\echo
\echo '== realistic corpus at scale:' :n_docs 'documents (minhash.group_memory default' :group_memory_default ')'
SELECT kind, threshold AS t, mode,
       CASE WHEN seconds IS NOT NULL THEN round(seconds::numeric, 2)::text ELSE '' END AS seconds,
       coalesce(out_rows::text, '') AS rows,
       coalesce(groups::text, '') AS groups,
       CASE WHEN kind IN ('groups', 'pairs') AND planted > 0
            THEN round(found::numeric / planted, 4) || ' (' || found || '/' || planted || ')' ELSE '' END AS recall_planted,
       CASE WHEN kind IN ('groups', 'pairs') AND est_ge_t > 0
            THEN round(found_of_est::numeric / est_ge_t, 4) || ' (' || found_of_est || '/' || est_ge_t || ')' ELSE '' END AS of_exact_mode,
       coalesce(pg_size_pretty(size_bytes), '') AS size,
       coalesce(round(p50_ms::numeric, 3)::text, '') AS p50_ms,
       coalesce(round(p95_ms::numeric, 3)::text, '') AS p95_ms,
       coalesce(queries::text, '') AS queries,
       coalesce(round(mean_hits::numeric, 2)::text, '') AS mean_hits,
       concat_ws('; ', nullif(note, ''),
                 CASE WHEN unverified > 0 THEN unverified || ' unverified rows' END,
                 CASE WHEN bad_rows AND kind = 'groups' THEN 'NOT a partition of the table'
                      WHEN bad_rows AND kind = 'pairs' THEN 'duplicate pairs'
                      WHEN bad_rows THEN 'index rows NOT within the seqscan''s'
                      WHEN kind = 'index vs seqscan' THEN 'recall vs seqscan ' || round(found::numeric / nullif(planted, 0), 4) END) AS note
  FROM scale_results ORDER BY n;

SELECT kind, round(max(seconds)::numeric, 2) AS slowest_s, round(min(seconds)::numeric, 2) AS fastest_s,
       round((max(seconds) / nullif(min(seconds), 0))::numeric, 1) AS slowest_over_fastest,
       count(*) AS thresholds_run
  FROM scale_results WHERE kind IN ('groups', 'pairs') AND out_rows IS NOT NULL GROUP BY kind ORDER BY kind;

-- Correctness (short mode, the test command): errors, not timings.
\if :short
DO $$
DECLARE
	r record;
BEGIN
	FOR r IN SELECT * FROM scale_results ORDER BY n LOOP
		IF r.kind IN ('groups', 'pairs') AND r.note LIKE 'error%' THEN
			RAISE EXCEPTION '% at % (%): %', r.kind, r.threshold, r.mode, r.note;
		END IF;
		IF r.kind IN ('groups', 'pairs') AND r.out_rows IS NOT NULL THEN
			IF r.unverified > 0 THEN
				RAISE EXCEPTION '% at % (%): % rows below the threshold', r.kind, r.threshold, r.mode, r.unverified;
			END IF;
			IF r.bad_rows THEN
				RAISE EXCEPTION '% at % (%): not a partition / duplicate pairs', r.kind, r.threshold, r.mode;
			END IF;
			IF r.kind = 'pairs' AND r.mode = 'exact' AND r.found_of_est <> r.est_ge_t THEN
				RAISE EXCEPTION 'exact pairs at % missed % planted pairs whose estimate is >= t',
					r.threshold, r.est_ge_t - r.found_of_est;
			END IF;
			IF r.kind = 'pairs' AND r.mode <> 'exact' AND r.found_of_est < 0.99 * r.est_ge_t THEN
				RAISE EXCEPTION 'pairs at % (%): recall % (%/%) of the exact mode''s planted pairs, below 0.99',
					r.threshold, r.mode, round(r.found_of_est::numeric / r.est_ge_t, 4), r.found_of_est, r.est_ge_t;
			END IF;
		END IF;
		IF r.kind = 'index vs seqscan' AND r.bad_rows THEN
			RAISE EXCEPTION 'index (%) at %: rows outside the sequential scan''s, or the exact index missed some',
				r.mode, r.threshold;
		END IF;
	END LOOP;
END $$;
\echo 'realistic_scale: all checks passed'
\endif
