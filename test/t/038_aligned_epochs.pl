# query_consistency = 'global' reads every view of a statement at one
# epoch, and every view must hold one snapshot of the tables there, also
# while slow views skip rounds of barriers.  Before aligned rounds
# (partial_graph.c), each slow graph skipped the rounds it had no room for
# on its own, and the global epoch (the oldest committed one) was often an
# epoch another slow view had skipped: that view was read at its older
# commit, and two views of one table disagreed in one statement (about 3
# reads in 4 with 40 views under pgbench).  Here three slow views (a join
# that multiplies every change by 500) and four fast ones over one table,
# with a one-barrier in-flight limit so that the slow ones skip rounds,
# while pgbench writes: every read of all seven in one statement agrees.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('aligned_epochs');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 10
hummock_stream.max_inflight_barriers = 1
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE t (id int PRIMARY KEY, g int);
	INSERT INTO t SELECT i, i % 10 FROM generate_series(1, 1000) i;
	CREATE TABLE t2 (id int PRIMARY KEY, g int);
	INSERT INTO t2 SELECT i, i % 10 FROM generate_series(1, 5000) i;
});
my @fast = map { "fast$_" } 1 .. 4;
my @slow = map { "slow$_" } 1 .. 3;
for my $v (@fast)
{
	$node->safe_psql('postgres', qq{SELECT hummock_stream.create_materialized_view('$v',
		'SELECT g, count(*) AS c FROM t GROUP BY g')});
}
for my $v (@slow)
{
	$node->safe_psql('postgres', qq{SELECT hummock_stream.create_materialized_view('$v',
		'SELECT t.g, count(*) AS c FROM t JOIN t2 ON t.g = t2.g GROUP BY t.g')});
}
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');

# each transaction moves one row to another group and deletes and
# re-inserts another: every slow view changes 1,500 joined rows
my $script = $node->basedir . '/churn.pgbench';
open(my $fh, '>', $script) or die "$script: $!";
print $fh "\\set id random(1, 1000)\n"
  . "\\set g random(0, 9)\n"
  . "UPDATE t SET g = :g WHERE id = :id;\n"
  . "DELETE FROM t WHERE id = :id % 1000 + 1;\n"
  . "INSERT INTO t VALUES (:id % 1000 + 1, :g) ON CONFLICT (id) DO NOTHING;\n";
close $fh;
my $bench = IPC::Run::start(
	[ 'pgbench', '-n', '-c', '2', '-T', '600', '-f', $script,
	  $node->connstr('postgres') ],
	'>', '/dev/null', '2>', '/dev/null');

# views skip rounds: some commit far fewer epochs than others (the slow
# ones, and the fast ones that share a compute worker with them)
ok( $node->poll_query_until('postgres', q{
		SELECT max(commits) - min(commits) > 100 FROM hummock_stream.partial_graphs}),
	'views skip rounds that others take');

# one statement reads the total of every view (a slow view counts each
# row of t 500 times): the totals must be one
my $one = 'SELECT count(DISTINCT s) FROM ('
  . join(' UNION ALL ',
	(map { "SELECT sum(c) AS s FROM $_" } @fast),
	(map { "SELECT sum(c)::bigint / 500 FROM $_" } @slow))
  . ') totals;';
my ($reads, $disagree) = (0, 0);
for my $batch (1 .. 10)
{
	my @out = split /\n/, $node->safe_psql('postgres', $one x 100);
	$reads += scalar @out;
	$disagree += scalar grep { $_ ne '1' } @out;
	# the writes go on between batches: a new commit of every view
	my $seen = $node->safe_psql('postgres',
		'SELECT max(committed_epoch) FROM hummock_stream.partial_graphs');
	$node->poll_query_until('postgres', qq{
		SELECT min(committed_epoch) > $seen FROM hummock_stream.partial_graphs})
	  or die 'the views stopped committing';
}
is($reads, 1000, 'every read ran');
is($disagree, 0, 'every view was read at one snapshot in every statement');

# REPEATABLE READ: one epoch for the whole transaction, views read in
# separate statements agree too
my $rr = "BEGIN ISOLATION LEVEL REPEATABLE READ;\n"
  . join('', map { "SELECT sum(c) FROM $_;\n" } @fast)
  . join('', map { "SELECT sum(c)::bigint / 500 FROM $_;\n" } @slow)
  . "COMMIT;\n";
my %totals;
for (1 .. 20)
{
	my @out = split /\n/, $node->safe_psql('postgres', $rr);
	my %seen = map { $_ => 1 } @out;
	$totals{ scalar keys %seen }++;
}
is_deeply(\%totals, { 1 => 20 }, 'a repeatable read transaction reads every view at one snapshot');

$bench->kill_kill;
$node->safe_psql('postgres', "SELECT hummock_stream.wait(timeout => '300s')");
for my $v (@fast, @slow)
{
	my $q = $v =~ /^fast/
	  ? 'SELECT g, count(*) AS c FROM t GROUP BY g'
	  : 'SELECT t.g, count(*) AS c FROM t JOIN t2 ON t.g = t2.g GROUP BY t.g';
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE $v EXCEPT ALL $q) UNION ALL ($q EXCEPT ALL TABLE $v)) d}),
		'0', "$v equals its query");
}

$node->stop;
done_testing();
