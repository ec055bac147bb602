-- A table with inheritance children: SELECT on it reads the children's
-- rows too, the functions read the table's own (ONLY), so they refuse it,
-- as they refuse a partitioned table, with a hint to group a table made
-- from it.  near_dupe_groups, near_dupe_pairs (in memory and beyond
-- minhash.group_memory, spilled) and near_dupe_groups_append.
\set VERBOSITY default
CREATE TABLE inh_parent (id int PRIMARY KEY, sig minhash);
CREATE TABLE inh_child () INHERITS (inh_parent);
INSERT INTO inh_parent VALUES (100, minhash('the parent''s own row'::text));
INSERT INTO inh_child SELECT i, minhash('memo ' || (i / 2) || ' about the budget') FROM generate_series(1, 40) i;
CREATE TABLE inh_groups AS SELECT * FROM near_dupe_groups('inh_child', 'id', 'sig', 0.8) WHERE false;
SELECT count(*) AS rows_select_reads FROM inh_parent;
SELECT * FROM near_dupe_groups('inh_parent', 'id', 'sig', 0.8);
SELECT * FROM near_dupe_groups('inh_parent', 'id', 'sig', 0.8, NULL::int);
SELECT * FROM near_dupe_pairs('inh_parent', 'id', 'sig', 0.8);
SET minhash.group_memory = '64kB';
SELECT * FROM near_dupe_groups('inh_parent', 'id', 'sig', 0.8);
SELECT * FROM near_dupe_pairs('inh_parent', 'id', 'sig', 0.8);
RESET minhash.group_memory;
SELECT * FROM near_dupe_groups_append('inh_groups', 'inh_parent', 'id', 'sig', 0.8);
-- The hint's way: a table made from it groups what SELECT reads.
CREATE TEMP TABLE inh_sigs AS SELECT id, sig FROM inh_parent;
SELECT count(*) AS rows_grouped, count(DISTINCT group_id) AS groups FROM near_dupe_groups('inh_sigs', 'id', 'sig', 0.8);
-- A child alone has none: it is read as usual.
SELECT count(*) AS child_rows FROM near_dupe_groups('inh_child', 'id', 'sig', 0.8);
-- Once the children are gone, the parent is a plain table again.
DROP TABLE inh_child;
SELECT count(*) AS parent_rows FROM near_dupe_groups('inh_parent', 'id', 'sig', 0.8);
DROP TABLE inh_parent, inh_groups;
