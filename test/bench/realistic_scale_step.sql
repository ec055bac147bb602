-- One timed step of test/bench/realistic_scale.sql (included with \ir):
-- near_dupe_groups or near_dupe_pairs (:fn) at threshold :t, exact
-- (:recall = NULL) or approximate (recall => :recall), into the table
-- scale_out_<fn>, then its row in scale_results, with the recall on the
-- planted pairs.  A step whose function has no recall argument yet is
-- recorded as n/a; a refusal for minhash.group_memory is retried with
-- the setting the refusal asked for (and says so); other errors and the
-- statement timeout are recorded, not fatal.
SELECT :recall IS NULL AS step_exact,
       CASE WHEN :recall IS NULL THEN 'exact' ELSE 'recall ' || :recall END AS step_mode,
       :'fn' = 'groups' AS step_is_groups,
       CASE :'fn' WHEN 'groups' THEN :'has_recall_groups' ELSE :'has_recall_pairs' END::boolean AS step_can,
       -- the recall overload may be the one with key_type (text keys: NULL::text)
       EXISTS (SELECT FROM pg_proc WHERE proname = 'near_dupe_' || :'fn'
                  AND 'recall' = ANY (proargnames) AND 'key_type' = ANY (proargnames)) AS step_key_type \gset
DROP TABLE IF EXISTS scale_out_:fn;
\if :step_exact
\set step_call 'near_dupe_' :fn '(''real_docs'', ''id'', ''sig'', ' :t ')'
\set step_can true
\elif :step_key_type
\set step_call 'near_dupe_' :fn '(''real_docs'', ''id'', ''sig'', ' :t ', key_type => NULL::text, recall => ' :recall ')'
\else
\set step_call 'near_dupe_' :fn '(''real_docs'', ''id'', ''sig'', ' :t ', recall => ' :recall ')'
\endif
\if :step_can
\set step_note ''
SET statement_timeout = :'timeout';
SELECT clock_timestamp() AS step_t0 \gset
\set ON_ERROR_STOP 0
CREATE UNLOGGED TABLE scale_out_:fn AS SELECT * FROM :step_call;
\set step_err :ERROR
\set step_state :SQLSTATE
\set ON_ERROR_STOP 1
SELECT :'step_state' = '53400' AS step_refused \gset
\if :step_refused
-- minhash.group_memory refused: take the memory the message names, retry.
SELECT ceil(substring(:'LAST_ERROR_MESSAGE' FROM 'about ([0-9]+) kB')::numeric / 1024) + 64 AS step_mb \gset
\echo 'refused at the default minhash.group_memory:' :LAST_ERROR_MESSAGE
\echo 'retrying with minhash.group_memory =' :step_mb 'MB'
\set step_mb_setting :step_mb 'MB'
SET minhash.group_memory = :'step_mb_setting';
\set step_note 'group_memory ' :step_mb 'MB (refused at the default)'
SELECT clock_timestamp() AS step_t0 \gset
\set ON_ERROR_STOP 0
CREATE UNLOGGED TABLE scale_out_:fn AS SELECT * FROM :step_call;
\set step_err :ERROR
\set step_state :SQLSTATE
\set ON_ERROR_STOP 1
RESET minhash.group_memory;
\endif
SELECT extract(epoch FROM clock_timestamp() - :'step_t0') AS step_seconds \gset
RESET statement_timeout;
\if :step_err
INSERT INTO scale_results (kind, threshold, mode, seconds, note)
VALUES (:'fn', :t, :'step_mode', :step_seconds,
        CASE :'step_state' WHEN '57014' THEN 'timed out (' || :'timeout' || ')'
             ELSE 'error ' || :'step_state' || ': ' || :'LAST_ERROR_MESSAGE' END);
\else
-- Recall on the planted pairs whose exact resemblance is at least t + 0.05:
--   found: groups, original and derived in one group; pairs, the pair returned.
--   est_ge_t: the signatures' estimate is >= t, so the exact mode finds them
--   (exact near_dupe_pairs = the self-join with resembles(.., t)).
-- unverified: returned pairs (groups: members) whose signatures' resemblance
-- (to the pivot) is below t; must be 0 in both modes.
\if :step_is_groups
CREATE TEMP TABLE step_found AS
SELECT pe.id, pe.original_id, coalesce(ga.group_id = gb.group_id, false) AS found
  FROM planted_exact pe
  LEFT JOIN scale_out_groups ga ON ga.key = pe.original_id::text
  LEFT JOIN scale_out_groups gb ON gb.key = pe.id::text
 WHERE pe.exact >= :t + 0.05;
SELECT count(*) FILTER (WHERE resemblance(m.sig, p.sig) < :t) AS step_unverified,
       count(*) AS step_rows, count(DISTINCT g.group_id) AS step_groups,
       count(*) <> (SELECT count(*) FROM real_docs) OR count(DISTINCT g.key) <> count(*) AS step_bad_partition
  FROM scale_out_groups g
  JOIN real_docs m ON m.id = g.key::bigint JOIN real_docs p ON p.id = g.pivot::bigint \gset
\else
CREATE TEMP TABLE step_found AS
SELECT pe.id, pe.original_id,
       EXISTS (SELECT FROM scale_out_pairs r
                WHERE least(r.key_a::bigint, r.key_b::bigint) = least(pe.id, pe.original_id)
                  AND greatest(r.key_a::bigint, r.key_b::bigint) = greatest(pe.id, pe.original_id)) AS found
  FROM planted_exact pe
 WHERE pe.exact >= :t + 0.05;
SELECT count(*) FILTER (WHERE resemblance(a.sig, b.sig) < :t) AS step_unverified,
       count(*) AS step_rows, '' AS step_groups,
       count(DISTINCT (least(a.id, b.id), greatest(a.id, b.id))) <> count(*) AS step_bad_partition
  FROM scale_out_pairs r
  JOIN real_docs a ON a.id = r.key_a::bigint JOIN real_docs b ON b.id = r.key_b::bigint \gset
\endif
INSERT INTO scale_results (kind, threshold, mode, seconds, out_rows, groups, planted, found,
                           est_ge_t, found_of_est, unverified, bad_rows, note)
SELECT :'fn', :t, :'step_mode', :step_seconds, :step_rows, nullif(:'step_groups', '')::bigint,
       count(*), count(*) FILTER (WHERE f.found),
       count(*) FILTER (WHERE resemblance(o.sig, d.sig) >= :t),
       count(*) FILTER (WHERE f.found AND resemblance(o.sig, d.sig) >= :t),
       :step_unverified, :'step_bad_partition'::boolean, :'step_note'
  FROM step_found f JOIN real_docs o ON o.id = f.original_id JOIN real_docs d ON d.id = f.id;
DROP TABLE step_found;
\endif
\else
INSERT INTO scale_results (kind, threshold, mode, note)
VALUES (:'fn', :t, :'step_mode', 'n/a: near_dupe_' || :'fn' || ' has no recall argument in this build');
\endif
