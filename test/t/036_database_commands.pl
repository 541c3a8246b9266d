# Database commands on databases whose views are maintained
# (src/entry/database_commands.c).  CREATE DATABASE ... TEMPLATE of a
# database with streaming views succeeds while its barrier manager runs
# (it is stopped for the copy and started again), and the copy's views
# hold the template's state and are maintained from then on, on the
# primary and, from the logged copy of the store, on a streaming standby;
# ALTER DATABASE ... RENAME works on such a database;
# with the extension in template1, CREATE DATABASE works and the new
# database's views are maintained.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dbcmds');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 1
max_worker_processes = 32
});
$node->start;

my %views = (
	per_g => q{SELECT g, count(*) AS n, min(v) AS lo, sum(v) AS s FROM t GROUP BY g},
	big_g => q{SELECT g, n FROM per_g WHERE n > 3},
);

sub differs
{
	my ($n, $db) = @_;
	my @bad;
	for my $v (sort keys %views)
	{
		my $d = $n->safe_psql($db, qq{
			SELECT count(*) FROM ((TABLE $v EXCEPT ALL ($views{$v}))
			                UNION ALL (($views{$v}) EXCEPT ALL TABLE $v)) d});
		push @bad, "$v: $d" if $d ne '0';
	}
	return @bad ? join(', ', @bad) : 'equal';
}

# rows written in $db, then every view there waited for
sub write_and_wait
{
	my ($db, $first) = @_;
	$node->safe_psql($db, qq{
		INSERT INTO t SELECT i, i % 7, -i FROM generate_series($first, $first + 49) i;
		UPDATE t SET v = v + 1000 WHERE id % 11 = 0;
		DELETE FROM t WHERE id % 13 = 0;
		SELECT hummock_stream.wait(timeout => '60s');
	});
}

sub make_views
{
	my ($db) = @_;
	$node->safe_psql($db, q{
		CREATE EXTENSION IF NOT EXISTS hummock_stream;
		CREATE TABLE t (id int PRIMARY KEY, g int, v int);
		INSERT INTO t SELECT i, i % 7, i FROM generate_series(1, 2000) i;
	});
	for my $v (sort { $a eq 'per_g' ? -1 : 1 } keys %views)
	{
		$node->safe_psql($db,
			"SELECT hummock_stream.create_materialized_view('$v', \$q\$$views{$v}\$q\$)");
	}
}

$node->safe_psql('postgres', 'CREATE DATABASE tpl');
make_views('tpl');
write_and_wait('tpl', 10000);
is(differs($node, 'tpl'), 'equal', 'the template database\'s views equal their queries');
ok($node->safe_psql('postgres',
		q{SELECT count(*) > 0 FROM pg_stat_activity WHERE datname = 'tpl'}) eq 't',
	'the template database has the extension\'s processes connected');

# a standby, to receive the copy through the WAL
$node->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('dbcmds_standby');
$standby->init_from_backup($node, 'b1', has_streaming => 1);
$standby->start;

# CREATE DATABASE from it, its manager running
my ($ret, $out, $err) = $node->psql('postgres', 'CREATE DATABASE copy1 TEMPLATE tpl');
is($ret, 0, 'CREATE DATABASE ... TEMPLATE of a database with streaming views succeeds')
  or diag($err);
is(differs($node, 'copy1'), 'equal', 'the copy\'s views hold the template\'s state');
write_and_wait('copy1', 20000);
is(differs($node, 'copy1'), 'equal', 'the copy\'s views are maintained');
write_and_wait('tpl', 30000);
is(differs($node, 'tpl'), 'equal', 'the template\'s views are maintained again');
is($node->safe_psql('tpl', 'SELECT count(*) FROM t WHERE id >= 20000 AND id < 30000'), '0',
	'the copy\'s writes stay in the copy');

$node->wait_for_catchup($standby, 'replay', $node->lsn('insert'));
is(differs($standby, 'copy1'), 'equal',
	'on the standby, the copy\'s views equal their queries');

# ALTER DATABASE ... RENAME of a database with views
($ret, $out, $err) = $node->psql('postgres', 'ALTER DATABASE copy1 RENAME TO copy2');
is($ret, 0, 'ALTER DATABASE ... RENAME of a database with streaming views succeeds')
  or diag($err);
write_and_wait('copy2', 40000);
is(differs($node, 'copy2'), 'equal', 'the renamed database\'s views are maintained');

# the extension in template1: new databases get it, and their views work
$node->safe_psql('template1', 'CREATE EXTENSION hummock_stream');
($ret, $out, $err) = $node->psql('postgres', 'CREATE DATABASE fresh');
is($ret, 0, 'CREATE DATABASE from a template1 holding the extension succeeds')
  or diag($err);
make_views('fresh');
write_and_wait('fresh', 60000);
is(differs($node, 'fresh'), 'equal', 'a new database\'s views are maintained');
($ret, $out, $err) = $node->psql('postgres', 'CREATE DATABASE fresh2');
is($ret, 0, 'and again') or diag($err);

$standby->stop;
$node->stop;
done_testing();
