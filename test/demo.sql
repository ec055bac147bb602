-- The main job on real mail: which messages of the SpamAssassin corpus are
-- near-duplicates of each other?  Signatures of every body, every pair at or
-- above minhash.threshold, and the exact resemblance next to the estimate.
\set ON_ERROR_STOP 1
\pset pager off
CREATE EXTENSION IF NOT EXISTS minhash;

\echo '== 1. One signature per message body (128 hash values of 5-word shingles)'
\timing on
ALTER TABLE spam_messages ADD COLUMN sig minhash(128);
UPDATE spam_messages SET sig = minhash(body);
\timing off
SELECT count(*) AS messages, count(*) FILTER (WHERE minhash_size(sig) = 0) AS without_words,
       round(avg(minhash_size(sig))) AS mean_distinct_shingles,
       pg_size_pretty(sum(pg_column_size(sig))) AS signatures, pg_size_pretty(sum(octet_length(body))::bigint) AS bodies
  FROM spam_messages;

\echo
\echo '== 2. Near-duplicate pairs: resemblance at or above minhash.threshold'
SHOW minhash.threshold;
\echo 'An LSH band index on the signatures, then each message asks it for its near-duplicates:'
\timing on
CREATE INDEX spam_messages_sig ON spam_messages USING gin (sig);
ANALYZE spam_messages;
CREATE TEMP TABLE near_dupes AS
SELECT a.id AS id_a, b.id AS id_b, resemblance(a.sig, b.sig) AS estimated
  FROM spam_messages a
  JOIN LATERAL (SELECT id, sig FROM spam_messages WHERE sig % a.sig) b ON a.id < b.id;
\timing off

-- The exact resemblance of the same shingles, for comparison.
CREATE FUNCTION pg_temp.exact_resemblance(a text, b text) RETURNS float8 LANGUAGE sql IMMUTABLE AS $$
	SELECT CASE WHEN cardinality(x) + cardinality(y) = 0 THEN 1
	            ELSE (SELECT count(*) FROM (SELECT unnest(x) INTERSECT SELECT unnest(y)) s)::float8 /
	                 (SELECT count(*) FROM (SELECT unnest(x) UNION SELECT unnest(y)) s) END
	  FROM (SELECT shingle_hashes(a) AS x, shingle_hashes(b) AS y) h
$$;
ALTER TABLE near_dupes ADD COLUMN exact float8;
UPDATE near_dupes n SET exact = pg_temp.exact_resemblance(a.body, b.body)
  FROM spam_messages a, spam_messages b WHERE a.id = n.id_a AND b.id = n.id_b;

SELECT count(*) AS near_duplicate_pairs,
       (SELECT count(*) FROM (SELECT id_a FROM near_dupes UNION SELECT id_b FROM near_dupes) m) AS messages_involved,
       count(*) FILTER (WHERE exact = 1) AS same_shingles,
       round(avg(abs(estimated - exact))::numeric, 4) AS mean_abs_error,
       round(100 * avg((abs(estimated - exact) <= 1.96 * sqrt(exact * (1 - exact) / 128) OR exact = estimated)::int)::numeric, 1) AS pct_within_95pct_interval,
       count(*) FILTER (WHERE exact < 0.8) AS below_threshold_exactly
  FROM near_dupes;

\echo
\echo '== 3. The pairs that are near but not identical, estimated and exact side by side'
SELECT a.file AS message_a, b.file AS message_b,
       round(n.estimated::numeric, 3) AS estimated, round(n.exact::numeric, 3) AS exact,
       left(regexp_replace(coalesce(substring(a.message FROM '(?n)^Subject: (.*)$'), ''), '\s+', ' ', 'g'), 50) AS subject_a
  FROM near_dupes n
  JOIN spam_messages a ON a.id = n.id_a
  JOIN spam_messages b ON b.id = n.id_b
 WHERE n.exact < 1
 ORDER BY n.exact, a.file, b.file;
