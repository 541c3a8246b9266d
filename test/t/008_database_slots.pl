# The hummock_stream.max_databases shared slots are given back: by DROP
# DATABASE, by DROP EXTENSION, and by barrier managers that find no
# extension (the launcher starts one in every database at server start).
# 100 cycles of CREATE DATABASE / CREATE EXTENSION / a write / DROP
# DATABASE with the default 16 slots, and DROP/CREATE EXTENSION cycles in
# one database, all work; with 2 slots the limit still holds, and a slot
# freed by DROP EXTENSION or DROP DATABASE serves the next database.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('slots');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.barrier_interval_ms = 200
hummock_stream.compute_workers = 1
# 16 databases at once: a manager, a compute worker and a compactor each
max_worker_processes = 64
fsync = off
});
$node->start;

is($node->safe_psql('postgres', 'SHOW hummock_stream.max_databases'), '16',
	'the default of 16 slots');

# One cycle: a database, the extension, a committed write (odd cycles) or
# a streaming view that catches up (even cycles), then DROP DATABASE.
# Returns '' if all went well, else what went wrong.
sub cycle
{
	my ($i) = @_;
	my $db = "cycle_$i";
	my ($ret, $out, $err);

	($ret, $out, $err) = $node->psql('postgres', "CREATE DATABASE $db");
	return "CREATE DATABASE: $err" if $ret != 0;
	($ret, $out, $err) = $node->psql($db, 'CREATE EXTENSION hummock_stream');
	return "CREATE EXTENSION: $err" if $ret != 0;
	if ($i % 2)
	{
		($ret, $out, $err) = $node->psql($db, 'CREATE EXTENSION hummock_stream_test');
		return "CREATE EXTENSION hummock_stream_test: $err" if $ret != 0;
		($ret, $out, $err) = $node->psql($db, q{
			SELECT hummock_stream_test.test_write(7, hummock_stream.epoch_at(now()),
			                                 ARRAY['k'], ARRAY['v'])});
		return "test_write: $err" if $ret != 0;
		$out = $node->safe_psql($db, "SELECT hummock_stream_test.test_get(7, 'k')");
		return "test_get returned '$out'" if $out ne 'v';
	}
	else
	{
		($ret, $out, $err) = $node->psql($db, q{
			CREATE TABLE t (id int PRIMARY KEY);
			SELECT hummock_stream.create_materialized_view('n', 'SELECT count(*) AS n FROM t');
			INSERT INTO t SELECT generate_series(1, 3);});
		return "view: $err" if $ret != 0;
		($ret, $out, $err) = $node->psql($db, "SELECT hummock_stream.wait(NULL, '60 s')");
		return "wait: $err" if $ret != 0;
		$out = $node->safe_psql($db, 'SELECT n FROM n');
		return "the view shows '$out'" if $out ne '3';
	}
	($ret, $out, $err) = $node->psql('postgres', "DROP DATABASE $db");
	return "DROP DATABASE: $err" if $ret != 0;
	return '';
}

my @failed;
for my $i (1 .. 100)
{
	my $what = cycle($i);
	push @failed, "cycle $i: $what" if $what ne '';
	last if @failed >= 3;
}
is(join("\n", @failed), '', '100 CREATE DATABASE / CREATE EXTENSION / DROP DATABASE cycles work');

# DROP EXTENSION / CREATE EXTENSION in one database, 40 times, each time
# with a committed write readable in the new store.
$node->safe_psql('postgres', 'CREATE DATABASE ext_cycles');
my @ext_failed;
for my $i (1 .. 40)
{
	my ($ret, $out, $err) = $node->psql('ext_cycles', q{
		CREATE EXTENSION hummock_stream;
		CREATE EXTENSION hummock_stream_test;
		SELECT hummock_stream_test.test_write(7, hummock_stream.epoch_at(now()), ARRAY['k'], ARRAY['v']);
		SELECT hummock_stream_test.test_get(7, 'k');
		DROP EXTENSION hummock_stream_test;
		DROP EXTENSION hummock_stream;});
	push @ext_failed, "cycle $i: $err" if $ret != 0 || $out !~ /\bv$/m;
	last if @ext_failed >= 3;
}
is(join("\n", @ext_failed), '', '40 CREATE EXTENSION / DROP EXTENSION cycles in one database work');

# 16 databases use the extension at once, the 17th is refused until one
# gives its slot back.
my $held = 0;
for my $i (1 .. 16)
{
	$node->safe_psql('postgres', "CREATE DATABASE held_$i");
	my ($ret) = $node->psql("held_$i", 'CREATE EXTENSION hummock_stream');
	$held++ if $ret == 0;
}
is($held, 16, '16 databases use the extension at once');
$node->safe_psql('postgres', 'CREATE DATABASE one_too_many');
my ($ret, $out, $err) = $node->psql('one_too_many', 'CREATE EXTENSION hummock_stream');
isnt($ret, 0, 'a 17th database at once is refused');
like($err, qr/too many databases use hummock_stream/, 'with the limit error');
$node->safe_psql('held_1', 'DROP EXTENSION hummock_stream');
($ret, $out, $err) = $node->psql('one_too_many', 'CREATE EXTENSION hummock_stream');
is($ret, 0, 'DROP EXTENSION in another database frees a slot for it');
$node->safe_psql('postgres', 'DROP DATABASE held_2');
$node->safe_psql('postgres', 'CREATE DATABASE after_drop');
($ret, $out, $err) = $node->psql('after_drop', 'CREATE EXTENSION hummock_stream');
is($ret, 0, 'DROP DATABASE of another database frees a slot for it');
ok($node->poll_query_until('after_drop',
		"SELECT hummock_stream.manager_pid() IS NOT NULL AND count(*) > 2 FROM hummock_stream.barriers"),
	'and its barrier manager runs');

# At server start the launcher starts a manager in each of the 20-odd
# databases; those without the extension give their slot back, so every
# database with the extension gets its manager.
$node->restart;
my @dbs = split /\n/, $node->safe_psql('postgres', q{
	SELECT datname FROM pg_database WHERE datname LIKE 'held_%' OR datname IN ('one_too_many', 'after_drop')
	 ORDER BY 1});
my @no_manager;
foreach my $db (@dbs)
{
	next if $db eq 'held_1';	# its extension was dropped
	push @no_manager, $db
	  unless $node->poll_query_until($db,
		"SELECT hummock_stream.manager_pid() IS NOT NULL AND count(*) > 2 FROM hummock_stream.barriers");
}
is(join(',', @no_manager), '', 'after a restart every database with the extension has its manager');
($ret, $out, $err) = $node->psql('held_1', 'CREATE EXTENSION hummock_stream');
isnt($ret, 0, 'and the 16 slots are all in use again');
like($err, qr/too many databases use hummock_stream/, 'with the limit error');

$node->stop;
done_testing();
