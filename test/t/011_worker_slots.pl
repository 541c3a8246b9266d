# Too few background worker slots (max_worker_processes) are reported, not
# silent: CREATE EXTENSION and create_materialized_view warn, the launcher
# and the barrier manager log every start that fails and try again, and
# hummock_stream.jobs shows the views that cannot advance as failed, with
# the reason; wait() fails at once on them.  Once the server has slots
# (a restart with a larger max_worker_processes) everything catches up.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('worker_slots');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
max_logical_replication_workers = 0
max_parallel_workers = 0
max_parallel_workers_per_gather = 0
# only the launcher fits
max_worker_processes = 1
});
$node->start;

sub log_matches
{
	my ($re) = @_;
	my $deadline = time + 180;
	while (time < $deadline)
	{
		return 1 if slurp_file($node->logfile) =~ $re;
		sleep 1;
	}
	return 0;
}

# --- no slot for the barrier manager ---
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE EXTENSION hummock_stream');
is($ret, 0, 'CREATE EXTENSION works');
like($err, qr/WARNING:  max_worker_processes is too low for hummock_stream/,
	'and warns that max_worker_processes is too low');
like($err, qr/needs at least 5 background worker slots/, 'saying how many it needs');
ok(log_matches(qr/LOG:  could not start the hummock_stream barrier manager of database \d+: no background worker slot is free/),
	'the launcher logs that it cannot start the manager');
ok( $node->poll_query_until('postgres',
		"SELECT count(*) = 1 FROM hummock_stream._graph_failures() WHERE graph_id = 0"),
	'and records it');

$node->safe_psql('postgres', 'CREATE TABLE t (id int PRIMARY KEY, v int)');
$node->safe_psql('postgres', 'INSERT INTO t VALUES (1, 1)');
($ret, $out, $err) = $node->psql('postgres',
	"SELECT hummock_stream.create_materialized_view('v_sum', 'SELECT sum(v) AS s FROM t')");
is($ret, 0, 'a view can still be created (it is backfilled by the caller)');
like($err, qr/WARNING:  the barrier manager of this database is not running/,
	'with a warning that its manager is not running');
like($err, qr/max_worker_processes is 1/, 'naming max_worker_processes');
is( $node->safe_psql('postgres', "SELECT state || ': ' || last_error FROM hummock_stream.jobs"),
	'failed: no background worker slot for the barrier manager of this database; raise max_worker_processes',
	'jobs shows the view as failed, and why');
$node->safe_psql('postgres', 'INSERT INTO t VALUES (2, 2)');
($ret, $out, $err) = $node->psql('postgres', "SELECT hummock_stream.wait(NULL, '60 s')");
like($err, qr/ERROR:  streaming materialized view "v_sum" is failing/, 'wait() fails at once');
like($err, qr/no background worker slot for the barrier manager/, 'with the reason');
ok(log_matches(qr/(could not start the hummock_stream barrier manager of database \d+.*){2}/s),
	'the launcher keeps trying, and logs each attempt');

# --- slots for the manager and one compute worker only ---
$node->append_conf('postgresql.conf', 'max_worker_processes = 3');
$node->restart;
ok( $node->poll_query_until('postgres', q{
	SELECT count(*) = 1 FROM hummock_stream.workers
	 WHERE role = 'compute worker' AND worker_index = 1 AND pid IS NULL}),
	'the manager runs, without compute worker 1');
ok(log_matches(qr/LOG:  could not start hummock_stream compute worker 1 of database \d+: no background worker slot is free/),
	'the manager logs that it cannot start compute worker 1');
ok(log_matches(qr/could not start the hummock_stream compactor/), 'nor the compactor');

# a view on each worker (a new view goes to the worker hosting fewer views,
# and at a tie to compute worker oid % 2)
my %on;
for my $i (1 .. 6)
{
	last if exists $on{0} && exists $on{1};
	($ret, $out, $err) = $node->psql('postgres',
		"SELECT hummock_stream.create_materialized_view('v_$i', 'SELECT count(*) AS n FROM t')");
	my $w = $node->safe_psql('postgres',
		"SELECT compute_worker FROM hummock_stream.actors WHERE job = 'v_$i'::regclass");
	if (exists $on{$w})
	{
		# another OID in between, so the next view lands on the other worker
		$node->safe_psql('postgres', "SELECT hummock_stream.drop_materialized_view('v_$i')");
		$node->safe_psql('postgres', "CREATE FUNCTION shift_$i() RETURNS int LANGUAGE sql AS 'SELECT 1'");
		next;
	}
	$on{$w} = "v_$i";
	if ($w == 1)
	{
		like($err, qr/WARNING:  compute worker 1 of this database is not running/,
			'create_materialized_view warns for a view on the missing worker');
	}
	else
	{
		unlike($err, qr/compute worker \d of this database is not running/,
			'but not for a view on a running worker');
	}
}
ok(exists $on{0} && exists $on{1}, 'a view on each compute worker');
$node->safe_psql('postgres', 'INSERT INTO t VALUES (3, 3)');
ok( $node->poll_query_until('postgres', qq{
	SELECT state = 'failed'
	       AND last_error = 'no background worker slot for compute worker 1 of this database; raise max_worker_processes'
	  FROM hummock_stream.jobs WHERE name = '$on{1}'::regclass}),
	'jobs shows the view on the missing worker as failed, and why');
$node->safe_psql('postgres', "SELECT hummock_stream.wait('$on{0}', '60 s')");
is($node->safe_psql('postgres', "SELECT n FROM $on{0}"), '3',
	'the view on the running worker keeps up');
is($node->safe_psql('postgres',
		"SELECT state FROM hummock_stream.jobs WHERE name = '$on{0}'::regclass"),
	'created', 'and is not failed');
($ret, $out, $err) = $node->psql('postgres', "SELECT hummock_stream.wait('$on{1}', '60 s')");
my $v1 = $on{1};
like($err, qr/ERROR:  streaming materialized view "$v1" is failing/,
	'wait() for the other one fails at once');
ok(log_matches(qr/(could not start hummock_stream compute worker 1 .*){2}/s),
	'the manager keeps trying, and logs each attempt');

# --- enough slots: everything catches up ---
$node->append_conf('postgresql.conf', 'max_worker_processes = 16');
$node->restart;
ok( $node->poll_query_until('postgres',
		"SELECT bool_and(state = 'created') AND count(*) = 3 FROM hummock_stream.jobs"),
	'with enough slots every view is healthy');
$node->safe_psql('postgres', "SELECT hummock_stream.wait(NULL, '60 s')");
is($node->safe_psql('postgres',
		"SELECT (SELECT s FROM v_sum) || ',' || (SELECT n FROM $on{0}) || ',' || (SELECT n FROM $on{1})"),
	'6,3,3', 'and each has every change');
($ret, $out, $err) = $node->psql('postgres',
	"SELECT hummock_stream.create_materialized_view('v_more', 'SELECT max(v) AS m FROM t')");
unlike($err, qr/WARNING/, 'create_materialized_view no longer warns');

$node->stop;
done_testing();
