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

CREATE FUNCTION hummock_stream.shared_block_cache(
    OUT capacity_bytes bigint, OUT used_bytes bigint, OUT blocks bigint,
    OUT hits bigint, OUT misses bigint, OUT inserts bigint,
    OUT evictions bigint, OUT skipped bigint, OUT pinned_blocks bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'hummock_stream_shared_block_cache'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW hummock_stream.shared_block_cache AS
  SELECT * FROM hummock_stream.shared_block_cache();
COMMENT ON VIEW hummock_stream.shared_block_cache IS
  'The shared cache of decompressed SST blocks: size, use, counters since the server started, and blocks scans read in place now';

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
    OUT graph_id bigint, OUT prev_epoch bigint, OUT curr_epoch bigint,
    OUT kind text, OUT injected_at timestamptz, OUT collected_at timestamptz,
    OUT committed_at timestamptz, OUT collect_ms double precision,
    OUT commit_ms double precision)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_barriers'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.barriers() IS
  'Recent barriers of this database (graph 0: injected by the manager; others: completed by a partial graph), oldest first';

CREATE VIEW hummock_stream.barriers AS
  SELECT * FROM hummock_stream.barriers();
COMMENT ON VIEW hummock_stream.barriers IS
  'Recent barriers: epochs, kind, and inject-to-collect and inject-to-commit latency per partial graph';

CREATE FUNCTION hummock_stream.partial_graphs(
    OUT graph_id bigint, OUT state text, OUT paused boolean, OUT actors integer,
    OUT committed_epoch bigint, OUT last_injected_epoch bigint,
    OUT inflight integer, OUT commits bigint, OUT resets bigint,
    OUT last_commit_at timestamptz, OUT last_error text,
    OUT retry_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_partial_graphs'
LANGUAGE C STRICT VOLATILE;
-- state: initializing, running, resetting, or failed (reset after an
-- error, waiting until retry_at to start again; the delay doubles with
-- each failure, 1 s to 30 s).  last_error stays until the graph commits
-- again.
CREATE VIEW hummock_stream.partial_graphs AS
  SELECT * FROM hummock_stream.partial_graphs();
COMMENT ON VIEW hummock_stream.partial_graphs IS
  'Partial graphs of this database: state, committed epoch, barriers in flight, resets, last error (until the next commit) and, when failed, when it starts again';

-- Graphs that failed since their last commit (graph 0: the database has no
-- barrier manager because none could start), for hummock_stream.jobs;
-- last_error is NULL unless the caller has the privileges of the view's
-- owner or of pg_monitor (graphs of graph sources, such as the test
-- module's: superuser or pg_monitor).
CREATE FUNCTION hummock_stream._graph_failures(OUT graph_id bigint, OUT last_error text,
                                               OUT failures integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_graph_failures'
LANGUAGE C STRICT VOLATILE;

CREATE FUNCTION hummock_stream.workers(
    OUT role text, OUT worker_index integer, OUT pid integer,
    OUT graphs integer, OUT starts bigint, OUT started_at timestamptz)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_workers'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW hummock_stream.workers AS
  SELECT * FROM hummock_stream.workers();
COMMENT ON VIEW hummock_stream.workers IS
  'The barrier manager and compute workers of this database';

-- partial_graphs(), barriers() and workers() are everyone's: they show an
-- ordinary role the rows of its own views only (pg_monitor sees all).
-- (Graphs other than views' come from graph sources of libraries such as
-- the test module, test/modules/hummock_stream_test.)

-- ---------------------------------------------------------------------
-- Streaming materialized views
-- ---------------------------------------------------------------------

-- One row per view.  The view is the relation job_id (USING hummock, its
-- table id is its OID); state_tables are the table ids of its operators'
-- state, by role (aggregation groups, min/max values, distinct counts).
-- position is the snapshot the view's committed epoch ends with: the
-- capture log input up to it is in the view; view_position is the epoch
-- up to which the view has read the change logs of the streaming views it
-- reads (its committed epoch, once it has committed after its creation).
-- Both commit in the same transaction as the view's version delta.  first_epoch is the epoch of
-- the view's first state (its query at creation): reads at older epochs
-- read it at first_epoch instead of finding it empty.  key_columns are the
-- view's columns whose key encodings begin every key of its table, in
-- order (NULL if its key is not made of its columns): equality on a prefix
-- of them (and a range on the first) is served by a seek.
CREATE TABLE hummock_stream.stream_jobs (
    job_id       oid PRIMARY KEY,
    definition   text NOT NULL,
    query_tree   text NOT NULL,
    state_tables oid[] NOT NULL,
    state        text NOT NULL DEFAULT 'created'
                 CHECK (state IN ('creating', 'created', 'rebuilding', 'failed')),
    position     pg_snapshot NOT NULL,
    view_position bigint NOT NULL DEFAULT 0,
    first_epoch  bigint NOT NULL,
    key_columns  int2[],
    operators    text[] NOT NULL DEFAULT '{}',
    state_table_roles text[] NOT NULL DEFAULT '{}',
    change_log   boolean NOT NULL DEFAULT false,
    settings     text[] NOT NULL DEFAULT '{}',
    created_at   timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE hummock_stream.stream_jobs IS
  'Streaming materialized views: definition, state tables, capture position';

CREATE TABLE hummock_stream.stream_sources (
    job_id oid NOT NULL REFERENCES hummock_stream.stream_jobs ON DELETE CASCADE,
    relid  oid NOT NULL,
    PRIMARY KEY (job_id, relid)
);
COMMENT ON TABLE hummock_stream.stream_sources IS
  'The tables each streaming materialized view reads';

CREATE TABLE hummock_stream.capture_logs (
    relid     oid PRIMARY KEY,
    log_relid oid NOT NULL
);
COMMENT ON TABLE hummock_stream.capture_logs IS
  'Tables whose changes are captured, and their capture logs';

-- Nobody else reads the catalog: the monitoring views below show each role
-- its own views (definitions included).
REVOKE ALL ON hummock_stream.stream_jobs, hummock_stream.stream_sources,
              hummock_stream.capture_logs FROM PUBLIC;

-- The capture trigger (see src/stream/capture.c).  Not SECURITY DEFINER:
-- it writes the log with heap_insert, which checks no privileges, and it
-- resolves no names, so it runs the same as any role (and a definer
-- wrapper would cost every captured statement a catalog lookup).  It takes
-- no arguments: it finds the log of the table it fires on in capture_logs,
-- so a dump of the table (which has the triggers) restores without OIDs
-- of the old database, and without a log the triggers do nothing.
CREATE FUNCTION hummock_stream._capture()
RETURNS trigger
AS 'MODULE_PATHNAME', 'hummock_stream_capture'
LANGUAGE C;
CREATE FUNCTION hummock_stream._capture_truncate()
RETURNS trigger
AS 'MODULE_PATHNAME', 'hummock_stream_capture_truncate'
LANGUAGE C;
REVOKE ALL ON FUNCTION hummock_stream._capture() FROM PUBLIC;

-- Trim every capture log behind the oldest position of the views that
-- read its table (called by the barrier manager).
CREATE FUNCTION hummock_stream._trim_capture_logs()
RETURNS void LANGUAGE plpgsql SET search_path = pg_catalog AS $$
DECLARE
  c record;
  floor xid8;
BEGIN
  -- logs dropped with their table
  DELETE FROM hummock_stream.capture_logs l
   WHERE NOT EXISTS (SELECT FROM pg_catalog.pg_class pc WHERE pc.oid = l.log_relid);
  FOR c IN SELECT relid, log_relid FROM hummock_stream.capture_logs LOOP
    SELECT pg_snapshot_xmin(j.position) INTO floor
      FROM hummock_stream.stream_jobs j
      JOIN hummock_stream.stream_sources s USING (job_id)
     WHERE s.relid = c.relid
     ORDER BY 1 LIMIT 1;
    IF floor IS NULL THEN
      EXECUTE format('DELETE FROM %s', c.log_relid::regclass);
    ELSE
      EXECUTE format('DELETE FROM %s WHERE txid < $1', c.log_relid::regclass) USING floor;
    END IF;
  END LOOP;
END $$;
REVOKE ALL ON FUNCTION hummock_stream._trim_capture_logs() FROM PUBLIC;

-- Not STRICT: a NULL name or query is an error (22004), not a NULL view.
-- From autocommit the view is created concurrently (writers of its sources
-- are not blocked by the backfill); inside a transaction block, in the
-- transaction (writers wait until it ends).  wait => false returns once the
-- view exists and is being backfilled (autocommit only).
CREATE FUNCTION hummock_stream.create_materialized_view(name text, query text,
                                                        wait boolean DEFAULT true,
                                                        change_log boolean DEFAULT false)
RETURNS regclass
AS 'MODULE_PATHNAME', 'hummock_stream_create_materialized_view'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION hummock_stream.create_materialized_view(text, text, boolean, boolean) IS
  'Create a streaming materialized view name (a relation USING hummock) kept up to date with query; concurrently from autocommit; change_log: keep its change log for change_log()';

-- A view keeps a change log (old values of every change) while views read
-- it, or while its owner asks for one here (for hummock_stream.change_log()).
CREATE FUNCTION hummock_stream.set_change_log(view regclass, keep boolean)
RETURNS void
AS 'MODULE_PATHNAME', 'hummock_stream_set_change_log'
LANGUAGE C VOLATILE;
COMMENT ON FUNCTION hummock_stream.set_change_log(regclass, boolean) IS
  'Keep (or stop keeping) the change log of a streaming materialized view for change_log() even when no view reads it; it starts within two checkpoints';

-- Views being created in the background, one row per input: phase, rows
-- read so far, the input's estimated rows (pg_class.reltuples; -1 if never
-- analyzed), the rate and the elapsed time.  A role sees the creations of
-- roles whose privileges it has (pg_monitor: all).
CREATE FUNCTION hummock_stream.create_progress(
    OUT view regclass, OUT pid integer, OUT phase text, OUT phase_since timestamptz,
    OUT input regclass, OUT rows_read bigint, OUT rows_estimate bigint,
    OUT rows_per_second double precision, OUT elapsed interval)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_create_progress'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW hummock_stream.create_progress AS SELECT * FROM hummock_stream.create_progress();
COMMENT ON VIEW hummock_stream.create_progress IS
  'Streaming materialized views being created concurrently: phase, and rows read per input';
GRANT SELECT ON hummock_stream.create_progress TO PUBLIC;

CREATE FUNCTION hummock_stream.drop_materialized_view(name regclass)
RETURNS void
AS 'MODULE_PATHNAME', 'hummock_stream_drop_materialized_view'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.drop_materialized_view(regclass) IS
  'Drop a streaming materialized view (like DROP TABLE of its relation, and it stops capturing unused sources)';

CREATE PROCEDURE hummock_stream.rebuild(view regclass)
AS 'MODULE_PATHNAME', 'hummock_stream_rebuild'
LANGUAGE C;
COMMENT ON PROCEDURE hummock_stream.rebuild(regclass) IS
  'Compute a streaming materialized view again from its inputs now, in place, and maintain it from there (heals a view whose input once raised an error); CALL it outside a transaction block';

CREATE FUNCTION hummock_stream.manager_pid()
RETURNS integer
AS 'MODULE_PATHNAME', 'hummock_stream_manager_pid'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.manager_pid() IS
  'Process id of this database''s barrier manager, or NULL if none runs';

REVOKE ALL ON FUNCTION hummock_stream.manager_pid() FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Hummock versions: the catalog that makes SST files a consistent store
-- ---------------------------------------------------------------------
-- Every change of the store is a version delta; a commit is one Postgres
-- transaction that appends a delta row and moves the head.  The head row is
-- locked by every committer, which serializes commits.  A full version is
-- checkpointed every 64 deltas so that loading is quick.

CREATE TABLE hummock_stream.version_head (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    version_id bigint NOT NULL
);
INSERT INTO hummock_stream.version_head VALUES (true, 0);
COMMENT ON TABLE hummock_stream.version_head IS
  'The id of the newest committed hummock version (one row; locked by committers)';

CREATE TABLE hummock_stream.version_delta (
    version_id   bigint PRIMARY KEY,
    prev_id      bigint NOT NULL,
    kind         text NOT NULL,
    delta        bytea NOT NULL,
    committed_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE hummock_stream.version_delta IS
  'Hummock version deltas, in the binary format of src/storage/version_delta.c';

CREATE TABLE hummock_stream.version_checkpoint (
    version_id bigint PRIMARY KEY,
    version    bytea NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE hummock_stream.version_checkpoint IS
  'Full hummock versions, every 64 deltas (format of src/storage/version.c)';

CREATE TABLE hummock_stream.stale_objects (
    object_id   bigint PRIMARY KEY,
    stale_since bigint NOT NULL
);
COMMENT ON TABLE hummock_stream.stale_objects IS
  'Objects no longer referenced since a version; deleted by GC once no reader pins an older version';

CREATE SEQUENCE hummock_stream.object_id_seq;
COMMENT ON SEQUENCE hummock_stream.object_id_seq IS
  'Ids of SST objects in $PGDATA/pg_hummock/<database oid>/';

REVOKE ALL ON hummock_stream.version_head, hummock_stream.version_delta,
              hummock_stream.version_checkpoint, hummock_stream.stale_objects,
              hummock_stream.object_id_seq
  FROM PUBLIC;

-- Introspection of the newest committed version.
CREATE FUNCTION hummock_stream.current_version_id()
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_current_version_id'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.current_version_id() IS
  'Id of the newest committed hummock version of this database';

CREATE FUNCTION hummock_stream.version_levels(
    OUT version_id bigint, OUT level integer, OUT sub_level_id bigint,
    OUT sstables integer, OUT size_bytes bigint, OUT entries bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_version_levels'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW hummock_stream.versions AS SELECT * FROM hummock_stream.version_levels();
COMMENT ON VIEW hummock_stream.versions IS
  'Levels of the newest hummock version: one row per L0 sub-level and per non-empty level';

CREATE FUNCTION hummock_stream.sstables(
    OUT location text, OUT level integer, OUT sub_level_id bigint,
    OUT object_id bigint, OUT size_bytes bigint, OUT entries bigint,
    OUT table_ids bigint[], OUT min_epoch bigint, OUT max_epoch bigint,
    OUT smallest_key text, OUT largest_key text)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_sstables'
LANGUAGE C STRICT VOLATILE;
CREATE VIEW hummock_stream.sstables AS SELECT * FROM hummock_stream.sstables();
COMMENT ON VIEW hummock_stream.sstables IS
  'SSTs referenced by the newest hummock version, in levels and in change logs';

CREATE FUNCTION hummock_stream.table_epochs(
    OUT table_id bigint, OUT relation regclass, OUT committed_epoch bigint,
    OUT committed_at timestamptz, OUT safe_epoch bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_table_epochs'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.table_epochs() IS
  'Committed epoch of every table of the newest hummock version';

CREATE FUNCTION hummock_stream.change_log_entries(
    OUT table_id bigint, OUT checkpoint_epoch bigint, OUT epochs bigint[],
    OUT new_value_sstables integer, OUT old_value_sstables integer)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_change_log_entries'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.change_log_entries() IS
  'Change-log entries of every table of the newest hummock version';

-- Storage internals show every table, every SST and its key bounds (group
-- keys and ids of views the caller may not read): superuser only.
REVOKE ALL ON FUNCTION hummock_stream.version_levels() FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream.sstables() FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream.table_epochs() FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream.change_log_entries() FROM PUBLIC;
REVOKE ALL ON hummock_stream.versions, hummock_stream.sstables FROM PUBLIC;
REVOKE ALL ON FUNCTION hummock_stream.shmem_areas() FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Single SST files (superuser only: they take a path)
-- ---------------------------------------------------------------------

CREATE FUNCTION hummock_stream.sst_describe(path text)
RETURNS SETOF text
AS 'MODULE_PATHNAME', 'hummock_stream_sst_describe'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.sst_describe(text) IS
  'Layout of an SST file, block by block (superuser; relative paths are relative to the data directory)';

REVOKE ALL ON FUNCTION hummock_stream.sst_describe(text) FROM PUBLIC;

CREATE FUNCTION hummock_stream.gc(
    OUT stale_deleted bigint, OUT stale_kept bigint, OUT orphans_deleted bigint,
    OUT inflight_kept bigint, OUT bytes_deleted bigint, OUT deltas_trimmed bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'hummock_stream_gc'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.gc() IS
  'Delete hummock objects that no version, reader or writer can reach; returns what was done';
REVOKE ALL ON FUNCTION hummock_stream.gc() FROM PUBLIC;

-- ---------------------------------------------------------------------
-- Driving the store directly (operators; superuser only)
-- ---------------------------------------------------------------------

CREATE FUNCTION hummock_stream.compact(force_l0 boolean DEFAULT false,
                                       OUT compacted boolean, OUT input_level integer,
                                       OUT output_level integer, OUT input_sstables integer,
                                       OUT version_id bigint)
RETURNS record
AS 'MODULE_PATHNAME', 'hummock_stream_compact'
LANGUAGE C STRICT VOLATILE;
COMMENT ON FUNCTION hummock_stream.compact(boolean) IS
  'Run one compaction task if one is due (force_l0: compact all of L0 now) and commit it';

REVOKE ALL ON FUNCTION hummock_stream.compact(boolean) FROM PUBLIC;

-- ---------------------------------------------------------------------
-- The hummock table access method
-- ---------------------------------------------------------------------

CREATE FUNCTION hummock_stream.hummock_tableam_handler(internal)
RETURNS table_am_handler
AS 'MODULE_PATHNAME', 'hummock_tableam_handler'
LANGUAGE C STRICT;
CREATE ACCESS METHOD hummock TYPE TABLE HANDLER hummock_stream.hummock_tableam_handler;
COMMENT ON ACCESS METHOD hummock IS
  'Relations whose rows live in the hummock store (written by the streaming engine)';

CREATE FUNCTION hummock_stream.epoch_to_timestamp(epoch bigint)
RETURNS timestamptz
AS 'MODULE_PATHNAME', 'hummock_stream_epoch_to_timestamp'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION hummock_stream.epoch_to_timestamp(bigint) IS
  'Wall-clock time of an epoch';

CREATE FUNCTION hummock_stream.epoch_at(ts timestamptz)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_epoch_at'
LANGUAGE C STRICT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION hummock_stream.epoch_at(timestamptz) IS
  'First epoch of the millisecond of a timestamp (for hummock_stream.query_epoch)';

CREATE FUNCTION hummock_stream.committed_epochs(
    OUT table_id bigint, OUT relation regclass, OUT committed_epoch bigint,
    OUT committed_at timestamptz, OUT change_log_from bigint)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_committed_epochs'
LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION hummock_stream.committed_epochs() IS
  'Committed epoch of each relation USING hummock the caller may read or monitor (owner''s privileges, or pg_monitor), with its time, and the epoch its change log starts after (NULL: it keeps none)';

CREATE FUNCTION hummock_stream.change_log(rel anyelement, from_epoch bigint, to_epoch bigint,
                                          OUT op text, OUT epoch bigint, OUT "row" anyelement)
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_change_log'
LANGUAGE C CALLED ON NULL INPUT STABLE;
COMMENT ON FUNCTION hummock_stream.change_log(anyelement, bigint, bigint) IS
  'Changes of a relation USING hummock over epochs (from, to], one checkpoint at a time: SELECT op, epoch, ("row").* FROM hummock_stream.change_log(NULL::my_view, e1, e2)';

CREATE FUNCTION hummock_stream.wait(rel regclass DEFAULT NULL,
                                    timeout interval DEFAULT '1 minute')
RETURNS void
AS 'MODULE_PATHNAME', 'hummock_stream_wait'
LANGUAGE C CALLED ON NULL INPUT VOLATILE;
COMMENT ON FUNCTION hummock_stream.wait(regclass, interval) IS
  'Return once everything committed before the call is visible in view rel (NULL: in every view you may read; at once for a relation no view writes) at the current consistency; error 55000 at once if a view is failing, 57014 after timeout (NULL: wait forever)';

CREATE FUNCTION hummock_stream.estimated_rows(rel regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_estimated_rows'
LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION hummock_stream.estimated_rows(regclass) IS
  'Keys of a relation USING hummock in its SSTs (an estimate: superseded versions not yet compacted count too)';

CREATE FUNCTION hummock_stream.estimated_size(rel regclass)
RETURNS bigint
AS 'MODULE_PATHNAME', 'hummock_stream_estimated_size'
LANGUAGE C STRICT STABLE;
COMMENT ON FUNCTION hummock_stream.estimated_size(regclass) IS
  'Bytes of the SST files holding a relation USING hummock (pg_relation_size shows 0: the data is in SSTs; an SST shared by several tables is split by table count)';

-- Streaming materialized views with their progress.  rows_estimate comes
-- from the view's SST statistics (keys, counting versions not yet
-- compacted away).  state is 'failed' while the view's graph has failed
-- since its last commit (it is reset and retried with a growing delay), or
-- while the database has no barrier manager because none could start;
-- last_error says why.
-- The monitoring views are security barriers over the catalog: a role sees
-- the rows of the views whose owner's privileges it has (pg_monitor: all),
-- as pg_stat_activity shows sessions.
CREATE VIEW hummock_stream.jobs WITH (security_barrier) AS
WITH failures AS MATERIALIZED (SELECT * FROM hummock_stream._graph_failures())
SELECT j.job_id::regclass AS name,
       CASE WHEN f.graph_id IS NOT NULL THEN 'failed' ELSE j.state END AS state,
       f.last_error,
       coalesce(f.failures, 0) AS failures,
       e.committed_epoch,
       e.committed_at,
       pg_catalog.now() - e.committed_at AS lag,
       hummock_stream.estimated_rows(j.job_id::regclass) AS rows_estimate,
       (SELECT pg_catalog.array_agg(s.relid::regclass ORDER BY s.relid)
          FROM hummock_stream.stream_sources s WHERE s.job_id = j.job_id) AS sources,
       (SELECT pg_catalog.array_agg(s.relid::regclass ORDER BY s.relid)
          FROM hummock_stream.stream_sources s
         WHERE s.job_id = j.job_id
           AND s.relid IN (SELECT u.job_id FROM hummock_stream.stream_jobs u)) AS upstreams,
       (SELECT pg_catalog.array_agg(s.job_id::regclass ORDER BY s.job_id)
          FROM hummock_stream.stream_sources s WHERE s.relid = j.job_id) AS downstreams,
       CASE WHEN j.change_log THEN 'kept'
            WHEN EXISTS (SELECT FROM hummock_stream.stream_sources s WHERE s.relid = j.job_id)
            THEN 'for downstreams'
            ELSE 'none' END AS change_log,
       j.definition,
       j.created_at
  FROM hummock_stream.stream_jobs j
  JOIN pg_catalog.pg_class c ON c.oid = j.job_id
  LEFT JOIN hummock_stream.committed_epochs() e ON e.table_id = j.job_id
  LEFT JOIN LATERAL (SELECT fl.graph_id, fl.last_error, fl.failures FROM failures fl
                      WHERE fl.graph_id IN (0, j.job_id)
                      ORDER BY fl.graph_id LIMIT 1) f ON true
 WHERE pg_catalog.pg_has_role(c.relowner, 'USAGE')
    OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW hummock_stream.jobs IS
  'Streaming materialized views: state (failed, with the last error, while failing), committed epoch, lag behind now, sources, the views it reads (upstreams) and the views that read it (downstreams), whether it keeps a change log (kept: asked for; for downstreams; none)';

-- A job is one fragment (its whole executor tree) run by one actor; the
-- barrier manager places actor n on compute worker n % compute_workers.
CREATE VIEW hummock_stream.fragments WITH (security_barrier) AS
SELECT j.job_id AS fragment_id,
       j.job_id::regclass AS job,
       pg_catalog.cardinality(j.operators) AS n_operators,
       j.operators,
       pg_catalog.cardinality(j.state_tables) AS n_state_tables,
       (SELECT pg_catalog.array_agg(s.relid::regclass ORDER BY s.relid)
          FROM hummock_stream.stream_sources s WHERE s.job_id = j.job_id) AS sources
  FROM hummock_stream.stream_jobs j
  JOIN pg_catalog.pg_class c ON c.oid = j.job_id
 WHERE pg_catalog.pg_has_role(c.relowner, 'USAGE')
    OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW hummock_stream.fragments IS
  'Fragments of the streaming jobs: their stateful executors, leaves first';

CREATE VIEW hummock_stream.actors WITH (security_barrier) AS
SELECT j.job_id AS actor_id,
       j.job_id AS fragment_id,
       j.job_id::regclass AS job,
       (j.job_id::bigint % pg_catalog.current_setting('hummock_stream.compute_workers')::int)::int
         AS compute_worker
  FROM hummock_stream.stream_jobs j
  JOIN pg_catalog.pg_class c ON c.oid = j.job_id
 WHERE pg_catalog.pg_has_role(c.relowner, 'USAGE')
    OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW hummock_stream.actors IS
  'Actors of the streaming jobs and the compute worker each runs in';

-- A job's tables commit together (one graph), so each state table is at
-- its view's committed epoch.
CREATE VIEW hummock_stream.state_tables WITH (security_barrier) AS
SELECT j.job_id::regclass AS job,
       t.table_id,
       t.ord AS ordinal,
       j.state_table_roles[t.ord] AS holds,
       e.committed_epoch
  FROM hummock_stream.stream_jobs j
  JOIN pg_catalog.pg_class c ON c.oid = j.job_id
  CROSS JOIN LATERAL pg_catalog.unnest(j.state_tables) WITH ORDINALITY AS t(table_id, ord)
  LEFT JOIN hummock_stream.committed_epochs() e ON e.table_id = j.job_id
 WHERE pg_catalog.pg_has_role(c.relowner, 'USAGE')
    OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW hummock_stream.state_tables IS
  'Internal state tables of the streaming jobs and what each holds';

CREATE FUNCTION hummock_stream.memcmp_key(value anyelement, descending boolean DEFAULT false)
RETURNS bytea
AS 'MODULE_PATHNAME', 'hummock_stream_memcmp_key'
LANGUAGE C CALLED ON NULL INPUT IMMUTABLE PARALLEL SAFE;
COMMENT ON FUNCTION hummock_stream.memcmp_key(anyelement, boolean) IS
  'Order-preserving key encoding of a value: bytea order is the type''s order (tests)';

CREATE FUNCTION hummock_stream.memcmp_support(regtype)
RETURNS text
AS 'MODULE_PATHNAME', 'hummock_stream_memcmp_support'
LANGUAGE C STRICT STABLE PARALLEL SAFE;
COMMENT ON FUNCTION hummock_stream.memcmp_support(regtype) IS
  'How well a type can be a key: none, equality or ordered';

-- ---------------------------------------------------------------------
-- Who sees what
-- ---------------------------------------------------------------------
-- The monitoring views are everyone's; they (and the functions behind
-- them) show an ordinary role the rows of its own views only.  Storage
-- internals (versions, sstables, table_epochs, change_log_entries,
-- sst_describe, compact, gc) stay the superuser's.
GRANT SELECT ON hummock_stream.settings, hummock_stream.shared_block_cache,
                hummock_stream.barriers, hummock_stream.partial_graphs,
                hummock_stream.workers, hummock_stream.jobs,
                hummock_stream.fragments, hummock_stream.actors,
                hummock_stream.state_tables
  TO PUBLIC;
