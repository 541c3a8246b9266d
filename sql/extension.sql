-- Creating and dropping the extension.
CREATE EXTENSION hummock_stream;

SELECT extversion FROM pg_extension WHERE extname = 'hummock_stream';
SELECT hummock_stream.version();

-- the library is preloaded and its shared memory is attached
SELECT name, size_bytes > 0 AS has_size, initialized_at IS NOT NULL AS initialized
  FROM hummock_stream.shmem_areas();

-- every setting is under the reserved prefix and visible in the view
SELECT name, setting, unit, context FROM hummock_stream.settings;
-- a negative backfill rate limit is refused (22023)
SET hummock_stream.backfill_rate_limit = -1;
SET hummock_stream.sst_compression = 'zstd';
SHOW hummock_stream.sst_compression;
SET hummock_stream.sst_compression = 'snappy';
RESET hummock_stream.sst_compression;
-- a misspelt parameter under the reserved prefix is rejected
SET hummock_stream.no_such_setting = 1;

-- the extension's objects, as \dx+ lists them
SELECT pg_describe_object(classid, objid, objsubid) AS object
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hummock_stream')
   AND deptype = 'e'
 ORDER BY 1;

-- no test scaffolding: test actors, test graphs and the test_* functions
-- are the test module's (hummock_stream_test)
SELECT count(*) AS test_objects
  FROM pg_depend
 WHERE refclassid = 'pg_extension'::regclass
   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hummock_stream')
   AND deptype = 'e'
   AND pg_describe_object(classid, objid, objsubid) LIKE '%test%';

-- DROP EXTENSION leaves nothing behind
DROP EXTENSION hummock_stream;
SELECT count(*) AS schemas FROM pg_namespace WHERE nspname = 'hummock_stream';
SELECT count(*) AS functions FROM pg_proc WHERE prosrc LIKE 'hummock_stream%';

-- and it can be created again
CREATE EXTENSION hummock_stream;
SELECT hummock_stream.version();
DROP EXTENSION hummock_stream;
