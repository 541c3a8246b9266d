# A view whose epoch needs more memory than hummock_stream.view_memory_limit
# fails with SQLSTATE 53200 and is retried, instead of the kernel killing
# its compute worker and the postmaster resetting every session: sessions
# stay connected, other views keep committing, and once the limit is raised
# the view heals by itself and equals its query.  (An epoch's memtables
# are sealed in parts of half the shared buffer, 64 MB by default, and the
# buffer spills beyond it: the limit is set below what that keeps.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('memlimit');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
hummock_stream.block_cache_size = 4MB
hummock_stream.view_memory_limit = 48MB
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE a (id int PRIMARY KEY, g int);
	CREATE TABLE b (id int PRIMARY KEY, g int);
	CREATE TABLE other (id int PRIMARY KEY, v int);
	SELECT hummock_stream.create_materialized_view('fanout',
		'SELECT a.id AS a_id, b.id AS b_id FROM a JOIN b ON a.g = b.g');
	SELECT hummock_stream.create_materialized_view('other_sum',
		'SELECT count(*) AS n, sum(v) AS s FROM other');
});

# a session that must survive all of it (a reset of the server ends it)
my $session = $node->background_psql('postgres');
my $backend_pid = $session->query_safe('SELECT pg_backend_pid()');

# 2,000 x 2,000 rows of one group: one epoch joins 4M rows
$node->safe_psql('postgres', q{
	INSERT INTO a SELECT i, 1 FROM generate_series(1, 2000) i;
	INSERT INTO b SELECT i, 1 FROM generate_series(1, 2000) i;
});

ok($node->poll_query_until('postgres',
		"SELECT last_error LIKE '%view_memory_limit%' FROM hummock_stream.jobs WHERE name = 'fanout'::regclass"),
	'the view fails on the memory limit');
my ($rc, $out, $err) = $node->psql('postgres',
	"SELECT hummock_stream.wait(timeout => '5s')", on_error_stop => 1);
like($err, qr/is failing.*view_memory_limit/s, 'wait() reports the failing view and why');

# other views go on
$node->safe_psql('postgres', 'INSERT INTO other SELECT i, i FROM generate_series(1, 100) i');
ok($node->poll_query_until('postgres', 'SELECT n = 100 FROM other_sum'),
	'another view keeps committing');

is($session->query_safe('SELECT pg_backend_pid()'), $backend_pid,
	'no session was ended (the server did not reset)');
is($node->safe_psql('postgres', 'SELECT count(*) FROM a'), '2000', 'the source is intact');

# raise the limit: the view heals at its next retry
$node->append_conf('postgresql.conf', "hummock_stream.view_memory_limit = 0\n");
$node->reload;
ok($node->poll_query_until('postgres',
		"SELECT state = 'created' AND last_error IS NULL FROM hummock_stream.jobs WHERE name = 'fanout'::regclass"),
	'the view heals once the limit is raised');
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM ((TABLE fanout EXCEPT ALL
		SELECT a.id, b.id FROM a JOIN b ON a.g = b.g) UNION ALL
		(SELECT a.id, b.id FROM a JOIN b ON a.g = b.g EXCEPT ALL TABLE fanout)) d}),
	'0', 'the healed view equals its query');

$session->quit;
$node->stop;
done_testing();
