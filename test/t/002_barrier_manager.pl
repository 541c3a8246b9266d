# The barrier manager's lifecycle across databases, kills and crashes.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('bm');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
max_worker_processes = 16
});
$node->start;

sub manager_pid
{
	my ($db) = @_;
	return $node->safe_psql($db,
		"SELECT coalesce(hummock_stream.manager_pid(), 0)");
}

sub wait_manager
{
	my ($db) = @_;
	return $node->poll_query_until($db,
		"SELECT hummock_stream.manager_pid() IS NOT NULL AND count(*) > 2 FROM hummock_stream.barriers");
}

sub max_epoch
{
	my ($db) = @_;
	return $node->safe_psql($db,
		"SELECT coalesce(max(curr_epoch), 0) FROM hummock_stream.barriers");
}

$node->safe_psql('postgres', 'CREATE DATABASE db1');
$node->safe_psql('postgres', 'CREATE DATABASE db2');
$node->safe_psql('db1', 'CREATE EXTENSION hummock_stream');
$node->safe_psql('db2', 'CREATE EXTENSION hummock_stream');
ok(wait_manager('db1'), 'db1 has a running barrier manager');
ok(wait_manager('db2'), 'db2 has its own barrier manager');
isnt(manager_pid('db1'), manager_pid('db2'), 'one manager per database');

# A database without the extension gets no lasting manager.
is( $node->safe_psql('postgres',
		"SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'hummock_stream barrier manager' AND datname = 'postgres'"),
	'0',
	'no manager in a database without the extension');

# Killing a manager: it is restarted and its epochs keep increasing.
my $old_pid = manager_pid('db1');
my $before = max_epoch('db1');
$node->safe_psql('postgres', "SELECT pg_terminate_backend($old_pid)");
ok( $node->poll_query_until('db1',
		"SELECT hummock_stream.manager_pid() IS NOT NULL AND hummock_stream.manager_pid() <> $old_pid"),
	'a terminated manager is restarted');
ok($node->poll_query_until('db1', "SELECT max(curr_epoch) > $before FROM hummock_stream.barriers"),
	'epochs keep increasing after the restart');

# DROP DATABASE stops the manager and succeeds.
my ($ret, $out, $err) = $node->psql('postgres', 'DROP DATABASE db2');
is($ret, 0, 'DROP DATABASE of a database with a manager succeeds');
is($err, '', 'DROP DATABASE prints no error');
ok(wait_manager('db1'), 'db1 is unaffected by dropping db2');

# A server crash (immediate stop): managers come back by themselves.
$before = max_epoch('db1');
$node->stop('immediate');
$node->start;
ok(wait_manager('db1'), 'manager runs again after an immediate stop and restart');
my $after = max_epoch('db1');
cmp_ok($after, '>', $before, 'epochs after the restart are greater than before');

# DROP EXTENSION stops it for good; CREATE EXTENSION starts it again.
$node->safe_psql('db1', 'DROP EXTENSION hummock_stream');
ok( $node->poll_query_until('db1',
		"SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'hummock_stream barrier manager' AND datname = 'db1'"),
	'DROP EXTENSION stops the manager');
$node->safe_psql('db1', 'CREATE EXTENSION hummock_stream');
ok(wait_manager('db1'), 'CREATE EXTENSION starts it again');

$node->stop;
done_testing();
