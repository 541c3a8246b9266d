# Partial graphs: a slow or failing graph never holds another graph's
# commits; a dead compute worker fails only the graphs it hosted; databases
# are isolated; everything resumes after a crash.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('pg');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
hummock_stream.max_inflight_barriers = 8
max_worker_processes = 32
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE DATABASE db1');
$node->safe_psql('postgres', 'CREATE DATABASE db2');
for my $db ('db1', 'db2')
{
	$node->safe_psql($db, 'CREATE EXTENSION hummock_stream; CREATE EXTENSION hummock_stream_test');
}

sub graph
{
	my ($db, $g, $col) = @_;
	return $node->safe_psql($db,
		"SELECT coalesce((SELECT $col FROM hummock_stream.partial_graphs WHERE graph_id = $g), 0)");
}

# Does graph $g of $db gain $n commits while $cond (a query returning a
# boolean, checked in the same statement) becomes true too?  Polls with
# the harness's deadline: a property of the order of events, never of
# rates or durations (what failures cost other graphs is benchmarked).
sub commits_while
{
	my ($db, $g, $n, $cond) = @_;
	my $c0 = graph($db, $g, 'commits');
	return $node->poll_query_until($db,
		"SELECT (SELECT commits >= $c0 + $n FROM hummock_stream.partial_graphs WHERE graph_id = $g) AND ($cond)");
}

# graph 1: a fast actor on each worker; graph 2: an actor that takes 1 s per barrier
$node->safe_psql('db1', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param)
	VALUES (1, 'counter', 0), (1, 'counter', 0), (2, 'sleep', 1000)});
ok( $node->poll_query_until('db1',
		"SELECT count(*) = 2 FROM hummock_stream.partial_graphs WHERE state = 'running' AND commits > 0"),
	'both graphs run and commit');

# graph 2 takes a second per barrier: while graph 1 commits 20 times (two
# seconds of 100 ms barriers), graph 2 commits at most once a second
my $slow0 = graph('db1', 2, 'commits');
my $t_fast = time;
ok(commits_while('db1', 1, 20, 'true'), 'the fast graph commits 20 times');
my $slow_gain = graph('db1', 2, 'commits') - $slow0;
my $elapsed = time - $t_fast;
diag(sprintf('meanwhile (%.1f s) the slow graph committed %d times', $elapsed, $slow_gain));
cmp_ok($slow_gain, '<=', $elapsed + 1, 'the slow graph commits at its own pace, not the fast one\'s');
# (at the limit it still takes the aligned rounds every graph takes, one
# at a time: partial_graph.c)
is($node->safe_psql('db1',
		"SELECT inflight <= 8 + 1 FROM hummock_stream.partial_graphs WHERE graph_id = 2"),
	't', 'the slow graph stays within the in-flight limit');

# graph 3: an actor that fails at its 10th barrier, again and again (it
# commits 8 checkpoints in between, so its backoff stays at 1 s)
$node->safe_psql('db1',
	"INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param) VALUES (3, 'error', 10)");
ok($node->poll_query_until('db1',
		"SELECT resets >= 2 FROM hummock_stream.partial_graphs WHERE graph_id = 3"),
	'the failing graph is reset, resumes, and fails again');
my $resets3 = graph('db1', 3, 'resets');
ok(commits_while('db1', 1, 20,
		"SELECT resets > $resets3 FROM hummock_stream.partial_graphs WHERE graph_id = 3"),
	'graph 1 goes on committing across the failures of graph 3');
is($node->safe_psql('db1', "SELECT resets FROM hummock_stream.partial_graphs WHERE graph_id = 1"),
	'0', 'graph 1 was never reset');
# between a failure and its next commit the graph shows the error, and
# waits in state failed until retry_at
ok( $node->poll_query_until('db1', q{
	SELECT state = 'failed' AND last_error LIKE '%failed at barrier 10 as asked%'
	       AND retry_at IS NOT NULL
	  FROM hummock_stream.partial_graphs WHERE graph_id = 3}),
	'the failure is shown with its message while the graph waits to retry');

# no gaps in graph 1: its completed barriers chain prev -> curr
is( $node->safe_psql('db1', q{
	SELECT count(*) FROM (
	  SELECT prev_epoch, lag(curr_epoch) OVER (ORDER BY curr_epoch) AS lc
	    FROM hummock_stream.barriers WHERE graph_id = 1) b
	 WHERE lc IS NOT NULL AND prev_epoch <> lc}),
	'0', 'graph 1 completed every barrier in order, without gaps');

# Stop the failing graph (a Stop mutation on the next barrier).
$node->safe_psql('db1', "DELETE FROM hummock_stream_test.test_actors WHERE graph_id = 3");

# A compute worker that exits (terminated): only graphs it hosted reset,
# and it is replaced.
my $w0 = $node->safe_psql('db1',
	"SELECT pid FROM hummock_stream.workers WHERE role = 'compute worker' AND worker_index = 0");
my $resets1 = graph('db1', 1, 'resets');
my $committed1 = graph('db1', 1, 'committed_epoch');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($w0)");
ok( $node->poll_query_until('db1',
		"SELECT pid IS NOT NULL AND pid <> $w0 AND starts = 2 FROM hummock_stream.workers WHERE role = 'compute worker' AND worker_index = 0"),
	'the terminated compute worker is replaced');
ok($node->poll_query_until('db1',
		"SELECT state = 'running' AND committed_epoch > $committed1 FROM hummock_stream.partial_graphs WHERE graph_id = 1"),
	'graph 1 recovers and commits again');
cmp_ok(graph('db1', 1, 'resets'), '>', $resets1, 'graph 1 (on that worker) was reset');
cmp_ok(graph('db1', 1, 'committed_epoch'), '>=', $committed1, 'no committed epoch goes backwards');

# Two databases: an error loop in db2 never delays db1.
$node->safe_psql('db2', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param)
	VALUES (1, 'error', 2), (2, 'error', 3)});
ok($node->poll_query_until('db2',
		"SELECT sum(resets) >= 4 FROM hummock_stream.partial_graphs"),
	'db2 is in an error loop (with its backoff)');
{
	my $db2_resets = $node->safe_psql('db2', 'SELECT sum(resets) FROM hummock_stream.partial_graphs');

	ok(commits_while('db1', 1, 20, 'true'), 'db1 goes on committing while db2 loops');
	ok($node->poll_query_until('db2',
			"SELECT sum(resets) > $db2_resets FROM hummock_stream.partial_graphs"),
		'and db2 is still failing');
}

# kill -9 of a compute worker.  PostgreSQL treats a child killed by a
# signal as a crash (shared memory may be damaged) and restarts every
# process; the graphs then recover from their committed epochs.
$node->safe_psql('db1', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param, table_id)
	VALUES (5, 'counter', 0, 7001)});
ok($node->poll_query_until('db1',
		"SELECT commits > 3 FROM hummock_stream.partial_graphs WHERE graph_id = 5"),
	'a counter graph commits its table');
my $count = $node->safe_psql('db1', "SELECT hummock_stream_test.test_get(7001, 'count')");
my $epoch = $node->safe_psql('db1',
	"SELECT committed_epoch FROM hummock_stream.table_epochs() WHERE table_id = 7001");
my $wpid = $node->safe_psql('db1',
	"SELECT pid FROM hummock_stream.workers WHERE role = 'compute worker' AND worker_index = 1");
kill 'KILL', $wpid;
ok( $node->poll_query_until('db1',
		"SELECT state = 'running' AND commits > 0 FROM hummock_stream.partial_graphs WHERE graph_id = 5"),
	'after kill -9 of a compute worker the graph runs again');
ok( $node->poll_query_until('db1',
		"SELECT committed_epoch > $epoch FROM hummock_stream.table_epochs() WHERE table_id = 7001"),
	'and commits epochs newer than before');
cmp_ok($node->safe_psql('db1', "SELECT hummock_stream_test.test_get(7001, 'count')"),
	'>=', $count, 'its committed state did not go backwards');

# A crash of the whole server: everything comes back.
my $before = graph('db1', 1, 'committed_epoch');
$node->stop('immediate');
$node->start;
ok($node->poll_query_until('db1',
		"SELECT count(*) = 2 FROM hummock_stream.partial_graphs WHERE state = 'running' AND commits > 0"),
	'after an immediate stop and restart the graphs run again');
cmp_ok(graph('db1', 1, 'committed_epoch'), '>', $before,
	'epochs after the restart are greater than before');

$node->stop;
done_testing();
