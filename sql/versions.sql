-- Hummock versions: commits of single tables at their own epochs, reads at
-- any retained epoch, change logs, compaction and GC, seen through the
-- SQL functions that drive the store and the introspection views.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;

-- Epochs are wall-clock based (ms since 2025 << 16); the test uses epochs a
-- little after now, written as :base + n, and prints them as n.
SELECT ((extract(epoch FROM now()) * 1000)::bigint - 1735689600000) << 16 AS base \gset

-- table 42 at epoch 100, table 43 at epoch 150, table 42 again at 200
SELECT hummock_stream_test.test_write(42, :base + 100, '{a,b,c}', '{a1,b1,c1}', true) AS version;
SELECT hummock_stream_test.test_write(43, :base + 150, '{x}', '{x1}') AS version;
SELECT hummock_stream_test.test_write(42, :base + 200, '{b,c,d}', '{b2,NULL,d2}', true) AS version;

-- each table has its own committed epoch
SELECT table_id, committed_epoch - :base AS committed FROM hummock_stream.table_epochs() ORDER BY 1;

-- reads at each epoch
SELECT * FROM hummock_stream_test.test_scan(42, :base + 100);
SELECT * FROM hummock_stream_test.test_scan(42, :base + 150);
SELECT * FROM hummock_stream_test.test_scan(42);
SELECT * FROM hummock_stream_test.test_scan(43);
SELECT hummock_stream_test.test_get(42, 'c', :base + 100) AS c_at_100,
       hummock_stream_test.test_get(42, 'c', :base + 200) AS c_at_200,
       hummock_stream_test.test_get(42, 'b') AS b_now,
       hummock_stream_test.test_get(42, 'zz') AS missing;

-- the change log: net change per key over (e1, e2]
SELECT * FROM hummock_stream_test.test_iter_log(42, :base + 0, :base + 100);
SELECT * FROM hummock_stream_test.test_iter_log(42, :base + 100, :base + 200);
-- insert then delete inside the range leaves nothing; delete then insert is an update
SELECT hummock_stream_test.test_write(42, :base + 300, '{e,a}', '{e3,NULL}', true) IS NOT NULL AS ok;
SELECT hummock_stream_test.test_write(42, :base + 400, '{e,a}', '{NULL,a4}', true) IS NOT NULL AS ok;
SELECT * FROM hummock_stream_test.test_iter_log(42, :base + 200, :base + 400);
SELECT * FROM hummock_stream_test.test_iter_log(42, :base + 200, :base + 300);
SELECT table_id, checkpoint_epoch - :base AS checkpoint,
       (SELECT array_agg(e - :base) FROM unnest(epochs) e) AS epochs,
       new_value_sstables, old_value_sstables
  FROM hummock_stream.change_log_entries() ORDER BY 1, 2;

-- several commits in one transaction: it reads its own, others see all at commit
BEGIN;
SELECT hummock_stream_test.test_write(44, :base + 10, '{k}', '{v10}') IS NOT NULL AS ok;
SELECT hummock_stream_test.test_write(44, :base + 20, '{k}', '{v20}') IS NOT NULL AS ok;
SELECT * FROM hummock_stream_test.test_scan(44, :base + 10);
COMMIT;
-- a rolled-back commit never happened
BEGIN;
SELECT hummock_stream_test.test_write(44, :base + 30, '{k}', '{v30}') IS NOT NULL AS ok;
ROLLBACK;
SELECT * FROM hummock_stream_test.test_scan(44);

-- errors (epochs in messages are shown as N)
CREATE FUNCTION pg_temp.try(q text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE d text;
BEGIN
  EXECUTE q;
  RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
  GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
  RETURN SQLSTATE || ': ' || regexp_replace(SQLERRM || coalesce(' / ' || nullif(d, ''), ''),
                                            '[0-9]{8,}', 'N', 'g');
END $$;
SELECT pg_temp.try(format($q$SELECT hummock_stream_test.test_write(42, %s, '{z}', '{z}')$q$, :base + 400));  -- epoch not greater
SELECT pg_temp.try(format($q$SELECT hummock_stream_test.test_write(42, %s, '{z}', '{z}')$q$, :base + 350));  -- older epoch
SELECT pg_temp.try(format($q$SELECT * FROM hummock_stream_test.test_scan(42, %s)$q$, :base + 500));  -- not committed yet
SELECT pg_temp.try($q$SELECT * FROM hummock_stream_test.test_scan(99)$q$);  -- unknown table
SELECT pg_temp.try($q$SELECT hummock_stream_test.test_write(0, 1, '{k}', '{v}')$q$);  -- bad table id
SELECT pg_temp.try($q$SELECT hummock_stream_test.test_write(42, 1, '{k}', '{v}')$q$);  -- epoch far too old
SELECT pg_temp.try(format($q$SELECT hummock_stream_test.test_write(42, %s, '{k,k2}', '{v}')$q$, :base + 500));  -- lengths differ
SELECT pg_temp.try(format($q$SELECT * FROM hummock_stream_test.test_iter_log(42, %s, %s)$q$, :base + 400, :base + 400));  -- empty range
SELECT pg_temp.try($q$SELECT hummock_stream_test.test_get(42, 'a', -5)$q$);  -- bad epoch

-- levels before and after compacting L0 into L1
SELECT level, sub_level_id IS NOT NULL AS is_sub_level, sstables, entries
  FROM hummock_stream.versions ORDER BY level, sub_level_id;
SELECT compacted, input_level, output_level, input_sstables
  FROM hummock_stream.compact(true);
SELECT level, sub_level_id IS NOT NULL AS is_sub_level, sstables, entries
  FROM hummock_stream.versions ORDER BY level, sub_level_id;
SELECT compacted FROM hummock_stream.compact(true);   -- nothing left in L0

-- every retained epoch still reads the same after compaction
SELECT * FROM hummock_stream_test.test_scan(42, :base + 100);
SELECT * FROM hummock_stream_test.test_scan(42, :base + 200);
SELECT * FROM hummock_stream_test.test_scan(42, :base + 400);
SELECT * FROM hummock_stream_test.test_iter_log(42, :base + 100, :base + 200);

-- GC: the compacted-away L0 objects that the change log does not hold go
-- (and orphans: SSTs of the failed and rolled-back writes above)
SELECT stale_deleted >= 1 AS deleted_stale, orphans_deleted >= 3 AS deleted_orphans
  FROM hummock_stream.gc();
SELECT count(*) AS stale_left FROM hummock_stream.stale_objects;
SELECT * FROM hummock_stream_test.test_scan(42);
SELECT location, level, entries, table_ids FROM hummock_stream.sstables ORDER BY 1, 2, 3;

-- nothing left to collect; every referenced object is still there, and
-- nothing else is
SELECT stale_deleted + orphans_deleted AS deleted FROM hummock_stream.gc();
SELECT format('pg_hummock/%s/%s', d.oid, e.oid) AS objdir
  FROM pg_database d, pg_extension e
 WHERE d.datname = current_database() AND e.extname = 'hummock_stream' \gset
SELECT count(DISTINCT object_id) AS referenced,
       count(DISTINCT object_id) FILTER (
         WHERE (pg_stat_file(format('%s/%s.sst', :'objdir', object_id), true)).size > 0) AS present
  FROM hummock_stream.sstables;
SELECT count(*) AS files FROM pg_ls_dir(:'objdir') f WHERE f LIKE '%.sst';

-- the catalog: one delta per commit, in order, chained
SELECT count(*) AS deltas, bool_and(prev_id = version_id - 1) AS chained
  FROM hummock_stream.version_delta;
SELECT kind, count(*) FROM hummock_stream.version_delta GROUP BY 1 ORDER BY 1;

DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
