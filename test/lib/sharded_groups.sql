-- Near-duplicate groups and pairs of the sharded documents table (set up by
-- test/lib/shard_clusters.sh), on the coordinator, through band keys:
--   1. each shard computes its rows' band keys and sizes (view documents_lsh,
--      layout lsh_index_layout(:layout_threshold)); only those travel;
--   2. the coordinator makes a candidate of every pair of rows sharing at
--      least min_bands band keys, within a shard or across shards alike;
--   3. it fetches the signatures of the candidate rows only (id = ANY, shipped
--      to the shards) into candidate_docs and runs near_dupe_groups there;
--   4. every other row has no near-duplicate: a group of its own, and the
--      group ids are renumbered over all rows as near_dupe_groups numbers them.
-- Exact for any :threshold >= :layout_threshold: a pair at or above it shares
-- min_bands keys of that layout (the pigeonhole argument of the index), so both
-- its rows are in candidate_docs, and near_dupe_groups' greedy walk over the
-- candidate rows, in the global ranking (size, then key), is the walk over all
-- rows restricted to the rows that have a near-duplicate.  Assumes a unique
-- bigint key id.  Leaves temporary tables candidate_docs and sharded_groups
-- (group_id, key, pivot, resemblance: near_dupe_groups' columns);
-- near_dupe_pairs('candidate_docs', 'id', 'sig', t) gives the pairs.
SELECT min_bands AS lsh_min_bands FROM lsh_index_layout(:layout_threshold, 128) \gset
DROP TABLE IF EXISTS pg_temp.candidate_docs, pg_temp.sharded_groups;
-- Sorting, not hashing, the band keys: as near_dupe_groups does, for the same reason.
SET enable_hashagg = off;
CREATE TEMP TABLE candidate_docs AS
WITH band_keys AS (
	SELECT l.id, k.band_key FROM documents_lsh l CROSS JOIN LATERAL unnest(l.band_keys) AS k(band_key)
), buckets AS (
	SELECT array_agg(id) AS ids FROM band_keys GROUP BY band_key HAVING count(*) > 1
), candidate_pairs AS (
	SELECT least(a.id, b.id) AS id_a, greatest(a.id, b.id) AS id_b
	  FROM buckets CROSS JOIN LATERAL unnest(ids) WITH ORDINALITY AS a(id, i)
		   CROSS JOIN LATERAL unnest(ids[i + 1:]) AS b(id)
	 WHERE a.id <> b.id
	 GROUP BY 1, 2 HAVING count(*) >= :lsh_min_bands
), candidate_ids AS (
	SELECT id_a AS id FROM candidate_pairs UNION SELECT id_b FROM candidate_pairs
)
SELECT d.id, d.sig FROM documents d
 WHERE d.id = ANY ((SELECT array_agg(id) FROM candidate_ids)::bigint[]);
RESET enable_hashagg;
CREATE TEMP TABLE sharded_groups AS
WITH candidate_groups AS (
	SELECT g.key::bigint AS id, g.pivot::bigint AS pivot, g.resemblance
	  FROM near_dupe_groups('candidate_docs', 'id', 'sig', :threshold) g
), assigned AS (
	SELECT l.id, coalesce(g.pivot, l.id) AS pivot,
		   CASE WHEN g.id IS NULL THEN l.size ELSE minhash_size(p.sig) END AS pivot_size,
		   CASE WHEN g.id IS NOT NULL THEN g.resemblance WHEN l.size IS NOT NULL THEN 1.0::double precision END
			   AS resemblance
	  FROM documents_lsh l
		   LEFT JOIN candidate_groups g ON g.id = l.id
		   LEFT JOIN candidate_docs p ON p.id = g.pivot
)
SELECT dense_rank() OVER (ORDER BY pivot_size DESC NULLS LAST, pivot) AS group_id,
	   id::text AS key, pivot::text AS pivot, resemblance
  FROM assigned;
