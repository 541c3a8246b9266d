-- The SST format, seen through sst_describe: golden output of small files
-- built deterministically, one per compression kind, and the errors for
-- files that are not SSTs.
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;

SET hummock_stream.sst_block_size = '1kB';
SET hummock_stream.sst_compression = 'none';
SELECT hummock_stream_test.sst_build_test('pg_hummock_test_none.sst', 40, 42, 2) > 0 AS built;
SELECT * FROM hummock_stream.sst_describe('pg_hummock_test_none.sst');

SET hummock_stream.sst_compression = 'lz4';
SELECT hummock_stream_test.sst_build_test('pg_hummock_test_lz4.sst', 40, 42, 2) > 0 AS built;
SELECT * FROM hummock_stream.sst_describe('pg_hummock_test_lz4.sst');

SET hummock_stream.sst_compression = 'zstd';
SELECT hummock_stream_test.sst_build_test('pg_hummock_test_zstd.sst', 40, 42, 2) > 0 AS built;
SELECT * FROM hummock_stream.sst_describe('pg_hummock_test_zstd.sst');

-- an empty SST is valid
SELECT hummock_stream_test.sst_build_test('pg_hummock_test_empty.sst', 0) > 0 AS built;
SELECT * FROM hummock_stream.sst_describe('pg_hummock_test_empty.sst');

-- Bad files: each is a clear error with SQLSTATE XX001 (data corrupted)
-- naming file, offset, expected and actual values.
CREATE FUNCTION pg_temp.describe_error(path text) RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM * FROM hummock_stream.sst_describe(path);
  RETURN 'no error';
EXCEPTION WHEN OTHERS THEN
  DECLARE d text;
  BEGIN
    GET STACKED DIAGNOSTICS d = PG_EXCEPTION_DETAIL;
    RETURN SQLSTATE || ': ' || SQLERRM || ' / ' || d;
  END;
END $$;
-- write arbitrary bytes to a file of the data directory (superuser)
CREATE FUNCTION pg_temp.write_file(path text, data bytea) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE lo oid := lo_from_bytea(0, data);
BEGIN
  PERFORM lo_export(lo, path);
  PERFORM lo_unlink(lo);
END $$;

-- too short to hold a footer
SELECT pg_temp.write_file('pg_hummock_short.sst', '\x0102030405');
SELECT pg_temp.describe_error('pg_hummock_short.sst');
-- long enough, but no footer magic
SELECT pg_temp.write_file('pg_hummock_text.sst', convert_to(repeat('not an sst ', 20), 'UTF8'));
SELECT pg_temp.describe_error('pg_hummock_text.sst');
-- a flipped byte inside the first data block: checksum mismatch
SELECT pg_temp.write_file('pg_hummock_flip.sst',
         set_byte(pg_read_binary_file('pg_hummock_test_lz4.sst'), 100,
                  get_byte(pg_read_binary_file('pg_hummock_test_lz4.sst'), 100) # 255));
SELECT pg_temp.describe_error('pg_hummock_flip.sst');
-- truncated: the footer is gone
SELECT pg_temp.write_file('pg_hummock_trunc.sst',
         substring(pg_read_binary_file('pg_hummock_test_lz4.sst') FROM 1 FOR 900));
SELECT pg_temp.describe_error('pg_hummock_trunc.sst');
-- a missing file
SELECT pg_temp.describe_error('no_such_file.sst');

-- bad arguments
SELECT hummock_stream_test.sst_build_test('pg_hummock_test_bad.sst', -1);

-- not for ordinary users
CREATE ROLE hs_sst_user;
SET ROLE hs_sst_user;
SELECT * FROM hummock_stream.sst_describe('pg_hummock_test_none.sst');
RESET ROLE;
DROP ROLE hs_sst_user;

DROP EXTENSION hummock_stream_test;
DROP EXTENSION hummock_stream;
