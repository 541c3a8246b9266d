/* sql/hummock_stream--0.1.sql -- install script of hummock_stream 0.1 */

\echo Use "CREATE EXTENSION hummock_stream" to load this file. \quit

-- The schema is created here, so it is a member of the extension and
-- DROP EXTENSION removes it with everything in it.
CREATE SCHEMA hummock_stream;
COMMENT ON SCHEMA hummock_stream IS
  'Streaming materialized views with partial checkpoints (hummock_stream)';

CREATE FUNCTION hummock_stream.version()
RETURNS text
AS 'MODULE_PATHNAME', 'hummock_stream_version'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION hummock_stream.version() IS
  'Version of the loaded hummock_stream library';

CREATE FUNCTION hummock_stream.shmem_areas(
    OUT name text, OUT offset_bytes bigint, OUT size_bytes bigint,
    OUT initialized_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_shmem_areas'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.shmem_areas() IS
  'Fixed shared-memory areas of hummock_stream: name, offset and size';

-- Every hummock_stream.* setting with its value and description.
CREATE VIEW hummock_stream.settings AS
  SELECT name, setting, unit, context, short_desc
    FROM pg_catalog.pg_settings
   WHERE name LIKE 'hummock\_stream.%'
   ORDER BY name;
COMMENT ON VIEW hummock_stream.settings IS
  'hummock_stream.* configuration parameters';
