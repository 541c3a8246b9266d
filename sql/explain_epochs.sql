-- EXPLAIN (VERBOSE) of a query over relations USING hummock shows the
-- epoch each is read at (text format); with ANALYZE the epoch its scan
-- read and the SST blocks the query read (from this process's cache, or
-- fetched).  A plain EXPLAIN is Postgres's.
CREATE EXTENSION hummock_stream;
CREATE TABLE t (id int PRIMARY KEY, v int);
INSERT INTO t SELECT i, i FROM generate_series(1, 100) i;
SELECT hummock_stream.create_materialized_view('tv', 'SELECT id, v FROM t WHERE v > 50');
SELECT hummock_stream.create_materialized_view('tc', 'SELECT count(*) AS n FROM t');

-- the plan's lines with epochs, times and counts masked
CREATE FUNCTION explained(q text, do_analyze boolean DEFAULT false) RETURNS SETOF text
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE format('EXPLAIN (VERBOSE, ANALYZE %s, COSTS OFF, TIMING OFF, SUMMARY OFF) %s',
                          do_analyze::text, q) LOOP
    l := regexp_replace(l, 'epoch \d+ \(.*\)', 'epoch E (T)');
    l := regexp_replace(l, 'cached=\d+ fetched=\d+', 'cached=C fetched=F');
    l := regexp_replace(l, 'rows=\d+ loops', 'rows=R loops');
    RETURN NEXT l;
  END LOOP;
END $$;
-- the epoch shown, as a number
CREATE FUNCTION explained_epoch(q text, rel text, do_analyze boolean DEFAULT false) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  l text;
BEGIN
  FOR l IN EXECUTE format($f$EXPLAIN (VERBOSE, ANALYZE %s, COSTS OFF) %s$f$, do_analyze::text, q) LOOP
    IF l LIKE 'Hummock Read: ' || rel || ' %' THEN
      RETURN (regexp_match(l, 'epoch (\d+)'))[1]::bigint;
    END IF;
  END LOOP;
  RETURN NULL;
END $$;

SELECT * FROM explained('SELECT * FROM tv WHERE id > 90');
SELECT * FROM explained('SELECT * FROM tv JOIN tc ON true', true);
-- the epoch shown is the view's committed epoch (global consistency: the
-- same for both)
SELECT hummock_stream.wait();
SELECT explained_epoch('SELECT * FROM tv JOIN tc ON true', 'tv', true)
     = explained_epoch('SELECT * FROM tv JOIN tc ON true', 'tc', true) AS same_epoch;
SELECT explained_epoch('SELECT * FROM tv', 'tv')
     <= (SELECT committed_epoch FROM hummock_stream.committed_epochs()
          WHERE relation = 'tv'::regclass) AS at_or_below_committed;
-- time travel: the epoch asked for
SELECT committed_epoch AS e FROM hummock_stream.committed_epochs()
 WHERE relation = 'tv'::regclass \gset
SET hummock_stream.query_epoch = :e;
SELECT explained_epoch('SELECT * FROM tv', 'tv') = :e AS the_epoch_asked_for;
SELECT explained_epoch('SELECT * FROM tv', 'tv', true) = :e AS read_at_it;
RESET hummock_stream.query_epoch;
-- a query over heap tables only, and the structured formats: as Postgres
SELECT * FROM explained('SELECT * FROM t WHERE id = 1');
EXPLAIN (COSTS OFF, FORMAT JSON) SELECT count(*) FROM tv;
EXPLAIN (COSTS OFF) SELECT count(*) FROM tv;

SELECT hummock_stream.drop_materialized_view('tv');
SELECT hummock_stream.drop_materialized_view('tc');
DROP FUNCTION explained(text, boolean), explained_epoch(text, text, boolean);
DROP TABLE t;
DROP EXTENSION hummock_stream;
