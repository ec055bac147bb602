-- The flagging trigger with each index a user may make on the signature
-- column: run by test/bench/trigger_index.sh, which says what is printed.
\set ON_ERROR_STOP 1
\if :{?rows}
\else
\set rows 2000
\endif
\if :{?reps}
\else
\set reps 3
\endif
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS minhash;

-- ROWS messages of the corpus, signatures precomputed, in the corpus order
-- (spam campaigns arrive as runs of near-duplicates).
DROP TABLE IF EXISTS trigger_index_source;
CREATE TABLE trigger_index_source AS
SELECT id, body, minhash(body) AS sig FROM spam_messages ORDER BY id LIMIT :rows;

DROP TABLE IF EXISTS trigger_index_docs;
CREATE TABLE trigger_index_docs (id int PRIMARY KEY, body text, sig minhash, dup_of int);
CREATE TRIGGER flag BEFORE INSERT ON trigger_index_docs FOR EACH ROW
    EXECUTE FUNCTION minhash_flag_duplicates('sig', 'dup_of', '0.8');

-- One load: an empty table with the given index (none: ''), then one
-- INSERT ... SELECT of the source rows; milliseconds and rows flagged.
CREATE FUNCTION pg_temp.load_ms(index_options text) RETURNS TABLE (ms float8, flagged bigint)
LANGUAGE plpgsql AS $$
DECLARE
    started timestamptz;
BEGIN
    DROP INDEX IF EXISTS trigger_index_docs_sig;
    TRUNCATE trigger_index_docs;
    IF index_options IS NOT NULL THEN
        EXECUTE 'CREATE INDEX trigger_index_docs_sig ON trigger_index_docs USING gin (sig gin_minhash_ops) ' || index_options;
    END IF;
    started := clock_timestamp();
    INSERT INTO trigger_index_docs (id, body, sig) SELECT id, body, sig FROM trigger_index_source ORDER BY id;
    ms := extract(epoch FROM clock_timestamp() - started) * 1000;
    SELECT count(dup_of) INTO flagged FROM trigger_index_docs;
    RETURN NEXT;
END $$;

CREATE TEMP TABLE results (index text, rep int, ms float8, flagged bigint);
INSERT INTO results
SELECT v.label, rep, r.*
  FROM generate_series(1, :reps) rep,
       (VALUES (1, 'no index', NULL), (2, 'gin, default (fastupdate on)', ''),
               (3, 'gin WITH (fastupdate = off)', 'WITH (fastupdate = off)')) v(n, label, options),
       LATERAL pg_temp.load_ms(v.options) r
 ORDER BY rep, v.n;

\echo 'Loading the rows with the trigger (median of REPS loads):'
SELECT index, :rows AS rows, round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric) AS ms,
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) * 1000 / :rows)::numeric) AS "µs per row",
       round((percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) /
              (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) FROM results
                WHERE index = 'gin WITH (fastupdate = off)'))::numeric, 1) AS "/ fastupdate off",
       min(flagged) AS flagged, max(flagged) AS "flagged (max)"
  FROM results GROUP BY index ORDER BY 3 DESC;
DROP TABLE trigger_index_docs, trigger_index_source;
