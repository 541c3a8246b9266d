# After kill -9 of the postmaster, the server must be able to restart at
# once even while a compute worker is in the middle of a long epoch: a
# join view whose dimension updates fan out to thousands of rows each,
# with two writers.  Every long loop of the workers checks for postmaster
# death (executors every HS_EXEC_PUSHES_PER_CHECK rows, compaction every
# few thousand entries), so the old children are gone within moments and
# the new postmaster finds no shared memory still in use.  The restart is
# polled with a deadline; the time it took is printed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HummockStream::Crash;
use IPC::Run;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('restart_load');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
max_worker_processes = 16
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE dim (id int PRIMARY KEY, label text);
	INSERT INTO dim SELECT g, 'd' || g FROM generate_series(1, 20) g;
	CREATE TABLE fact (id int PRIMARY KEY, dim_id int, v int);
	INSERT INTO fact SELECT g, g % 20 + 1, g FROM generate_series(1, 200000) g;
	SELECT hummock_stream.create_materialized_view('fanout',
	  'SELECT f.id, f.v, d.label FROM fact f JOIN dim d ON d.id = f.dim_id');
});
is($node->safe_psql('postgres', 'SELECT count(*) FROM fanout'), '200000',
	'the join view is backfilled');

# two writers: every update of a dimension row changes 10,000 view rows.
# At 20 updates/s (400,000 view row changes/s) the view lags behind, so a
# compute worker is in a long epoch, while the backlog the restarted view
# must take in one epoch stays bounded however slow the machine is (an
# epoch that needs more than hummock_stream.view_memory_limit fails).
my $script = $node->basedir . '/fanout.pgbench';
open(my $fh, '>', $script) or die "$script: $!";
print $fh "\\set d random(1, 20)\n"
  . "UPDATE dim SET label = label || 'x' WHERE id = :d;\n";
close $fh;
my $bench = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-R', '20', '-T', '600', '-f', $script,
	  $node->connstr('postgres') ],
	'>', '/dev/null', '2>', '/dev/null');

# the compute workers are busy with a long epoch once the view lags
# behind updates that were committed well before
ok( $node->poll_query_until('postgres', q{
		SELECT count(*) > 0 FROM pg_stat_activity
		 WHERE backend_type = 'hummock_stream compute worker' AND wait_event IS NULL}),
	'a compute worker is running an epoch');
my @old = split /\n/, $node->safe_psql('postgres',
	q{SELECT pid FROM pg_stat_activity WHERE backend_type LIKE 'hummock_stream%'});

my $pm = $node->{_pid};
my $t0 = time;
$node->kill9;
$bench->kill_kill;
# the old children notice the postmaster's death and exit (polled)
my $gone_after;
while (time - $t0 < 60)
{
	if (!kill(0, $pm) && !grep { kill(0, $_) } @old)
	{
		$gone_after = time - $t0;
		last;
	}
	sleep(0.05);
}
ok(defined $gone_after, 'every old hummock_stream process exits after kill -9');
diag(sprintf('old processes gone %.2f s after kill -9', $gone_after // -1));
cmp_ok($gone_after // 99, '<', 5, 'no worker ran on for long after the postmaster died');
ok(restart_after_kill9($node, $pm), 'the server restarts');
diag(sprintf('restarted %.2f s after kill -9', time - $t0));

# the view recovers and equals its query
$node->safe_psql('postgres', 'SELECT hummock_stream.wait(NULL, NULL)');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM ((TABLE fanout EXCEPT ALL
	  SELECT f.id, f.v, d.label FROM fact f JOIN dim d ON d.id = f.dim_id)
	  UNION ALL (SELECT f.id, f.v, d.label FROM fact f JOIN dim d ON d.id = f.dim_id
	  EXCEPT ALL TABLE fanout)) x}),
	'0', 'after the restart the view equals its query');

$node->stop;
done_testing();
