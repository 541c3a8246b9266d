# The shared block cache under a scan larger than itself: blocks that
# were read again (warm) stay cached while a large sequential scan passes
# through a 1MB cache, because a scan's blocks enter cold and only replace
# cold ones.  Every session is new, so its own block cache is empty and
# every block it reads comes through the shared cache.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('sbc');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.shared_block_cache_size = 1MB
hummock_stream.block_cache_size = 0
hummock_stream.compaction_interval = 1h
hummock_stream.query_consistency = per_table
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE small (id int, v text) USING hummock;
	CREATE TABLE big (id int, v text) USING hummock;
	SELECT hummock_stream.test_load('small', hummock_stream.epoch_at(now()),
		$$SELECT g, repeat('s', 50) FROM generate_series(1, 300) g$$);
	SELECT hummock_stream.test_load('big', hummock_stream.epoch_at(now()),
		$$SELECT g, repeat('b', 50) FROM generate_series(1, 100000) g$$);
});

sub counters
{
	return split /\|/, $node->safe_psql('postgres',
		'SELECT hits, misses, evictions, skipped FROM hummock_stream.shared_block_cache');
}

is($node->safe_psql('postgres',
	'SELECT capacity_bytes FROM hummock_stream.shared_block_cache'),
	1024 * 1024, 'the cache has the configured size');

# read small twice: the second read finds every block and warms it
is($node->safe_psql('postgres', 'SELECT count(*) FROM small'), 300, 'small, first read');
my ($h0, $m0) = counters();
is($node->safe_psql('postgres', 'SELECT count(*) FROM small'), 300, 'small, second read');
my ($h1, $m1) = counters();
ok($h1 > $h0, 'the second read of small hit the shared cache');
is($m1, $m0, 'the second read of small missed nothing');

# a scan of big, several times the cache, twice
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM big'),
	'100000|5000050000', 'big, first scan');
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM big'),
	'100000|5000050000', 'big, second scan');
my ($h2, $m2, $e2) = counters();
ok($m2 > $m1, 'the scans of big missed (it does not fit)');
ok($e2 > 0, 'the scans of big evicted blocks');

# small's warm blocks survived both scans
is($node->safe_psql('postgres', 'SELECT count(*) FROM small'), 300, 'small after the scans');
my ($h3, $m3) = counters();
ok($h3 > $h2, 'small was read from the shared cache');
is($m3, $m2, 'no block of small was evicted by the scans of big');

$node->stop;
done_testing();
