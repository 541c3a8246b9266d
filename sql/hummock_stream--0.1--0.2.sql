/* sql/hummock_stream--0.1--0.2.sql -- update of hummock_stream from 0.1 to 0.2 */

\echo Use "ALTER EXTENSION hummock_stream UPDATE TO '0.2'" to load this file. \quit

-- How every later change ships (README, "Operations"): the
-- install script of 0.1 is never edited again; each version adds an update
-- script like this one, and CREATE EXTENSION runs the chain, so a new
-- installation and an updated one have the same objects by construction.
-- On-disk formats carry their own version numbers and every reader keeps
-- reading the older ones.

-- 0.2: per-view maintenance statistics.

CREATE FUNCTION hummock_stream._job_stats(
    OUT job_id oid, OUT epochs bigint, OUT last_epoch bigint,
    OUT last_epoch_at timestamptz, OUT rows_in bigint, OUT rows_out bigint,
    OUT last_epoch_ms double precision, OUT avg_epoch_ms double precision,
    OUT max_epoch_ms double precision, OUT capture_reads_skipped bigint,
    OUT view_bytes bigint, OUT state_bytes bigint,
    OUT executors text[], OUT executor_rows_in bigint[],
    OUT executor_rows_out bigint[])
RETURNS SETOF record
AS 'MODULE_PATHNAME', 'hummock_stream_job_stats'
LANGUAGE C STRICT VOLATILE;

-- What each view's maintenance did since the server started (the figures
-- live in shared memory, as Postgres's cumulative statistics before they
-- are written out), with the bytes of its table and state tables in the
-- newest version and, while it is being created, its backfill progress.
CREATE VIEW hummock_stream.job_stats WITH (security_barrier) AS
SELECT j.job_id::regclass AS name,
       coalesce(s.epochs, 0) AS epochs,
       s.last_epoch,
       s.last_epoch_at,
       coalesce(s.rows_in, 0) AS rows_in,
       coalesce(s.rows_out, 0) AS rows_out,
       s.last_epoch_ms,
       s.avg_epoch_ms,
       s.max_epoch_ms,
       coalesce(s.capture_reads_skipped, 0) AS capture_reads_skipped,
       s.view_bytes,
       s.state_bytes,
       (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                   'executor', x.executor, 'rows_in', x.rows_in, 'rows_out', x.rows_out)
                ORDER BY x.ord)
          FROM ROWS FROM (pg_catalog.unnest(s.executors), pg_catalog.unnest(s.executor_rows_in),
                          pg_catalog.unnest(s.executor_rows_out))
               WITH ORDINALITY AS x(executor, rows_in, rows_out, ord)) AS executors,
       (SELECT pg_catalog.jsonb_agg(pg_catalog.jsonb_build_object(
                   'phase', p.phase, 'input', p.input::text, 'rows_read', p.rows_read,
                   'rows_estimate', p.rows_estimate))
          FROM hummock_stream.create_progress() p WHERE p.view = j.job_id) AS backfill
  FROM hummock_stream.stream_jobs j
  JOIN pg_catalog.pg_class c ON c.oid = j.job_id
  LEFT JOIN hummock_stream._job_stats() s ON s.job_id = j.job_id
 WHERE pg_catalog.pg_has_role(c.relowner, 'USAGE')
    OR pg_catalog.pg_has_role('pg_monitor', 'USAGE');
COMMENT ON VIEW hummock_stream.job_stats IS
  'Maintenance of the streaming views since the server started: epochs, rows read and written, rows in and out per executor, time per epoch, bytes of the view and its state tables, backfill progress';
GRANT SELECT ON hummock_stream.job_stats TO PUBLIC;

-- wait() on a failing view first asks for its retry within a second and
-- waits through it.
COMMENT ON FUNCTION hummock_stream.wait(regclass, interval) IS
  'Return once everything committed before the call is visible in view rel (NULL: in every view you may read; at once for a relation no view writes) at the current consistency; on a failing view, ask for its retry within a second and wait through it: error 55000 if it fails again (at once if no retry can help, at the timeout if still failing), 57014 after timeout (NULL: wait forever)';

-- The TRUNCATE capture trigger function is the extension's, as _capture()
-- is: a table owner who attached a second BEFORE TRUNCATE trigger calling it
-- would have a TRUNCATE captured twice, under other roles' views.  (Postgres
-- checks EXECUTE when a trigger is created, not when it fires: the capture
-- triggers the extension creates keep working for every writer.)
REVOKE ALL ON FUNCTION hummock_stream._capture_truncate() FROM PUBLIC;

-- The value of a scalar subquery that may return no row or several, as a
-- streaming view computes it (plan_sublinks.c): v for at most one row
-- (NULL for none), the error Postgres raises for more.
CREATE FUNCTION hummock_stream._one_row(n bigint, v anyelement)
RETURNS anyelement
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
AS $$
BEGIN
  IF n OPERATOR(pg_catalog.>) 1 THEN
    RAISE EXCEPTION USING ERRCODE = 'cardinality_violation',
      MESSAGE = 'more than one row returned by a subquery used as an expression';
  END IF;
  RETURN v;
END
$$;
COMMENT ON FUNCTION hummock_stream._one_row(bigint, anyelement) IS
  'The value of a scalar subquery of n rows whose min is v, as a streaming view computes it: v for at most one row, error 21000 for more';
