# The barrier manager trims each capture log behind the views that read
# its table (catalog.c, HsCatalogTrimCaptureLogs): it deletes only when the
# oldest row is behind them, and truncates a large log that holds no row
# when no transaction is using it.  A transaction still open on the table
# keeps its rows (and the file); small transactions committing while the
# log is truncated lose nothing.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('capture_trim');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 1
max_worker_processes = 16
autovacuum = off
# the workers run read committed whatever the default: the trim's checks
# under a lock need a new snapshot (under repeatable read a TRUNCATE
# decided on the transaction's first snapshot dropped rows committed since)
default_transaction_isolation = 'repeatable read'
});
$node->start;

my $query = 'SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g';

sub differs
{
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE v EXCEPT ALL $query) UNION ALL
			($query EXCEPT ALL TABLE v)) d});
}

$node->safe_psql('postgres', qq{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE t (id bigint PRIMARY KEY, g int, v int);
	CREATE PROCEDURE small_writes(first bigint, n int) LANGUAGE plpgsql AS \$\$
	BEGIN
	  FOR i IN 0 .. n - 1 LOOP
	    INSERT INTO t VALUES (first + i, i % 7, 1);
	    COMMIT;
	  END LOOP;
	END \$\$;
	SELECT hummock_stream.create_materialized_view('v', \$q\$$query\$q\$);
});
my $log = $node->safe_psql('postgres',
	q{SELECT log_relid::regclass FROM hummock_stream.capture_logs WHERE relid = 't'::regclass});
my $size = "SELECT pg_relation_size('$log')";

# a small consumed log is trimmed by DELETE, and the barrier manager
# reports those deletes to the cumulative statistics (autovacuum finds the
# log's dead rows there; a worker that never reported them left the log to
# grow)
$node->safe_psql('postgres',
	'INSERT INTO t SELECT i, i % 7, 1 FROM generate_series(-1000, -901) i');
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
ok($node->poll_query_until('postgres', "SELECT count(*) = 0 FROM $log"),
	'the small consumed log is emptied');
ok($node->poll_query_until('postgres', qq{
	SELECT n_tup_del >= 100 AND n_dead_tup >= 100 FROM pg_stat_all_tables
	 WHERE relid = '$log'::regclass}),
	'the trim\'s deletes reach pg_stat_all_tables');
$node->safe_psql('postgres', 'DELETE FROM t WHERE id BETWEEN -1000 AND -901');
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');

# a transaction still open on t keeps the rows written after it began
my $open = $node->background_psql('postgres');
$open->query_safe('BEGIN');
$open->query_safe('INSERT INTO t VALUES (-1, 1, 1000)');
$node->safe_psql('postgres',
	'INSERT INTO t SELECT i, i % 100, i % 10 FROM generate_series(1, 300000) i');
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(differs(), '0', 'the view equals its query while a writer is still open');
ok($node->safe_psql('postgres', "SELECT count(*) > 0 FROM $log"),
	'the log keeps the rows behind the open writer');
$open->query_safe('COMMIT');
$open->quit;
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(differs(), '0', 'the open writer\'s row reaches the view once it commits');

# consumed by every view: the large log is truncated
ok($node->poll_query_until('postgres', "$size = 0"),
	'the consumed log is truncated');
is($node->safe_psql('postgres', "SELECT count(*) FROM $log"), '0', 'and holds no row');

# large transactions while small ones commit one after the other: no row
# is lost when the log is truncated between them
my $writer = $node->background_psql('postgres');
$writer->query_until(qr/started/, q{
	\echo started
	CALL small_writes(1000001, 3000);
});
for my $round (1 .. 4)
{
	my $from = 2000000 + $round * 300000;
	my $to = $from + 299999;
	$node->safe_psql('postgres',
		"INSERT INTO t SELECT i, i % 100, i % 10 FROM generate_series($from, $to) i");
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
}
$writer->quit;
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is($node->safe_psql('postgres', 'SELECT count(*) FROM t WHERE id BETWEEN 1000001 AND 1003000'),
	'3000', 'every small transaction committed');
is(differs(), '0', 'the view equals its query after truncations among writers');
ok($node->poll_query_until('postgres', "$size = 0"),
	'the log is truncated again once consumed');

$node->stop;
done_testing();
