# Crash safety of hummock versions: kill -9 the postmaster while commits,
# barrier-loop checkpoints, compaction and GC run, 20 times.  After every
# restart: every acknowledged commit is readable at its epoch with exactly
# its rows, a commit is never half applied, committed epochs never go
# backwards, every object the version references exists; at the end, GC
# leaves no orphan behind.
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

my $iterations = 20;

my $node = PostgreSQL::Test::Cluster->new('crash');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compaction_interval = 50ms
hummock_stream.compute_workers = 2
max_worker_processes = 32
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION hummock_stream; CREATE EXTENSION hummock_stream_test');
# two counter graphs commit through the barrier loop the whole time
$node->safe_psql('postgres', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param, table_id)
	VALUES (1, 'counter', 0, 1001), (2, 'counter', 0, 1002)});

# the counters are read before the first crash: wait for their first commits
$node->poll_query_until('postgres',
	"SELECT count(*) = 2 FROM hummock_stream.partial_graphs WHERE state = 'running' AND commits > 0")
  or BAIL_OUT('the counter graphs never committed');

my $base = $node->safe_psql('postgres',
	"SELECT ((extract(epoch FROM now()) * 1000)::bigint - 1735689600000) << 16");

# the model of table 42: acknowledged epoch -> { key -> value }
my %model;
my %state;
my $next = $base + 1000;
my $violations = 0;
my $counter_backwards = 0;

sub commit42
{
	my ($epoch, $key) = @_;
	return "SELECT hummock_stream_test.test_write(42, $epoch, '{$key,last}', '{v$epoch,$epoch}', true);";
}

sub state_at
{
	my ($epoch) = @_;
	my %s;
	for my $line (split /\n/,
		$node->safe_psql('postgres', "SELECT key || '=' || value FROM hummock_stream_test.test_scan(42, $epoch)"))
	{
		my ($k, $v) = split /=/, $line, 2;
		$s{$k} = $v;
	}
	return \%s;
}

sub counters
{
	my %c;
	for my $line (split /\n/, $node->safe_psql('postgres',
			"SELECT t || '=' || coalesce(hummock_stream_test.test_get(t, 'count'), '0') FROM unnest('{1001,1002}'::bigint[]) t"))
	{
		my ($t, $v) = split /=/, $line;
		$c{$t} = $v;
	}
	return \%c;
}

for my $iter (1 .. $iterations)
{
	# a few acknowledged commits
	for (1 .. 3)
	{
		my $e = $next;
		$next += 1000;
		$node->safe_psql('postgres', commit42($e, "k$e"));
		$state{"k$e"} = "v$e";
		$state{last} = "$e";
		$model{$e} = {%state};
	}
	my $before = counters();

	# more commits in flight, and a kill at a random moment
	my $sql = join('', map { commit42($next + $_ * 1000, "b" . ($next + $_ * 1000)) } 0 .. 9);
	my ($in, $out, $err) = ('', '', '');
	my $h = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', $sql ],
		\$in, \$out, \$err);
	sleep(rand(0.4));
	my $pm = $node->{_pid};
	$node->kill9;
	$h->finish;
	restart_after_kill9($node, $pm)
	  or BAIL_OUT('the node did not restart after kill -9');

	# the table is at an epoch that is either acknowledged or a whole
	# in-flight commit; never half of one
	my $committed = $node->safe_psql('postgres',
		"SELECT committed_epoch FROM hummock_stream.table_epochs() WHERE table_id = 42");
	my $now = state_at($committed);
	$violations++ unless defined $now->{last} && $now->{last} eq $committed;
	for my $e (sort keys %model)
	{
		my $s = state_at($e);
		for my $k (keys %{ $model{$e} })
		{
			$violations++ unless defined $s->{$k} && $s->{$k} eq $model{$e}{$k};
		}
		for my $k (keys %$s)
		{
			$violations++ if $k =~ /^k/ && !defined $model{$e}{$k};
		}
	}
	# in-flight commits that made it become part of the model
	for my $k (keys %$now)
	{
		next unless $k =~ /^b(\d+)$/;
		$state{$k} = $now->{$k};
	}
	$state{last} = $now->{last};
	$next = $committed + 1000 if $committed >= $next;
	$next += 1000 * 10;

	# barrier-loop tables restart from their committed state
	$node->poll_query_until('postgres',
		"SELECT count(*) = 2 FROM hummock_stream.partial_graphs WHERE state = 'running' AND commits > 0")
	  or $violations++;
	my $after = counters();
	for my $t (keys %$before)
	{
		$counter_backwards++ if $after->{$t} < $before->{$t};
	}
	diag("iteration $iter: table 42 at +" . ($committed - $base)
		  . ", counters $after->{1001}/$after->{1002}");
}

is($violations, 0, "after $iterations kill -9 crashes every acknowledged commit reads back exactly, no commit is half applied");
is($counter_backwards, 0, 'committed counters never went backwards');

# every referenced object exists
my $objdir = $node->safe_psql('postgres', q{
	SELECT format('pg_hummock/%s/%s', d.oid, e.oid) FROM pg_database d, pg_extension e
	 WHERE d.datname = current_database() AND e.extname = 'hummock_stream'});
is( $node->safe_psql('postgres', qq{
	SELECT count(DISTINCT object_id) FILTER (WHERE pg_stat_file(format('%s/%s.sst', '$objdir', object_id), true) IS NULL)
	  FROM hummock_stream.sstables}),
	'0', 'every object the version references is on disk');

# quiesce: stop the actors, compact everything, collect garbage
$node->safe_psql('postgres', 'DELETE FROM hummock_stream_test.test_actors');
$node->poll_query_until('postgres',
	"SELECT count(*) = 0 FROM hummock_stream.partial_graphs WHERE actors > 0")
  or BAIL_OUT('the actors did not stop');
# Compact and collect until nothing is left to collect: objects the stopped
# graphs synced stay claimed until their commits are acknowledged, so the
# first passes may still have to keep some (poll, with a deadline).
my ($files, $referenced);
my $deadline = time() + 60;
while (1)
{
	$node->safe_psql('postgres', 'SELECT hummock_stream.compact(true)');
	$node->safe_psql('postgres', 'SELECT hummock_stream.gc()') for (1 .. 3);
	$files = $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_ls_dir('$objdir') f WHERE f ~ '^[0-9]+[.]sst'");
	$referenced = $node->safe_psql('postgres',
		"SELECT count(DISTINCT object_id) FROM hummock_stream.sstables");
	last if $files == $referenced || time() > $deadline;
	sleep(0.2);
}
diag("objects on disk: $files, referenced: $referenced");
is($files, $referenced, 'after GC no orphan object remains');
is($node->safe_psql('postgres',
		"SELECT count(*) FROM pg_ls_dir('$objdir') f WHERE f LIKE '%.tmp'"),
	'0', 'no half-written object remains');

$node->stop;
done_testing();
