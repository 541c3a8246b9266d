/* sql/hummock_stream--0.1.sql -- install script of hummock_stream 0.1 */

\echo Use "CREATE EXTENSION hummock_stream" to load this file. \quit

-- The schema is created here, so it is a member of the extension and
-- DROP EXTENSION removes it with everything in it.
CREATE SCHEMA hummock_stream;
COMMENT ON SCHEMA hummock_stream IS
  'Streaming materialized views with partial checkpoints (hummock_stream)';
-- Users read views and call the read functions; administrative functions
-- revoke EXECUTE from PUBLIC one by one below.
GRANT USAGE ON SCHEMA hummock_stream TO PUBLIC;

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

-- ---------------------------------------------------------------------
-- The barrier loop
-- ---------------------------------------------------------------------

CREATE FUNCTION hummock_stream.barriers(
    OUT prev_epoch bigint, OUT curr_epoch bigint, OUT kind text,
    OUT injected_at timestamptz, OUT collected_at timestamptz,
    OUT collect_ms double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_barriers'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.barriers() IS
  'Recent barriers of this database (up to 64), oldest first';

CREATE VIEW hummock_stream.barriers AS
  SELECT * FROM hummock_stream.barriers();
COMMENT ON VIEW hummock_stream.barriers IS
  'Recent barriers of this database: epochs, kind and inject-to-collect latency';

CREATE FUNCTION hummock_stream.manager_pid()
RETURNS integer
AS 'MODULE_PATHNAME', 'hummock_stream_manager_pid'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.manager_pid() IS
  'Process id of this database''s barrier manager, or NULL if none runs';

REVOKE ALL ON FUNCTION hummock_stream.barriers() FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream.manager_pid() FROM PUBLIC;
