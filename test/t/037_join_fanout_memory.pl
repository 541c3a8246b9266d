# An epoch whose writes come from few input rows stays within the shared
# buffer's memory.  A join's fan-out is emitted when the join flushes, from
# a few thousand input rows: the epoch's splitting, which looks every few
# hundred input rows, never saw it, and the view's memtable took all of
# the epoch's output (a compute worker grew to 9 GB on 350M joined rows).
# Now a table whose memtable reaches half the shared buffer is sealed as a
# sub-epoch and spilled at once (stream_job.c, table_full).  Here 2.25M
# joined rows in one epoch, with a 16 MB shared buffer: the compute
# worker's peak resident memory stays far below what the rows take in a
# memtable (over 200 MB), and the view equals its query.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('fanout_mem');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 1
hummock_stream.shared_buffer_size = 16MB
hummock_stream.block_cache_size = 4MB
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE a (id int PRIMARY KEY, g int);
	CREATE TABLE b (id int PRIMARY KEY, g int);
	SELECT hummock_stream.create_materialized_view('fanout',
		'SELECT a.id AS a_id, b.id AS b_id, a.g FROM a JOIN b ON a.g = b.g');
});
my $pid = $node->safe_psql('postgres', 'SELECT pid FROM hummock_stream.workers LIMIT 1');
ok($pid =~ /^\d+$/, 'the compute worker runs');

sub peak_mb
{
	open(my $fh, '<', "/proc/$pid/status") or return -1;
	while (my $line = <$fh>)
	{
		return int($1 / 1024) if $line =~ /^VmHWM:\s+(\d+)\s+kB/;
	}
	return -1;
}
my $before = peak_mb();
note("compute worker peak before: $before MB");

# 1,500 x 1,500 rows of one group, in one transaction: one epoch joins
# 2.25M rows, emitted at the join's flush
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO a SELECT i, 1 FROM generate_series(1, 1500) i;
	INSERT INTO b SELECT i, 1 FROM generate_series(1, 1500) i;
	COMMIT;
});
$node->safe_psql('postgres', "SELECT hummock_stream.wait(timeout => '300s')");
is($node->safe_psql('postgres', 'SELECT count(*) FROM fanout'), '2250000',
	'the view holds every joined row');
is($node->safe_psql('postgres', 'SELECT pid FROM hummock_stream.workers LIMIT 1'), $pid,
	'the same compute worker did it');
my $after = peak_mb();
note("compute worker peak after: $after MB");
cmp_ok($after, '<', 150, 'its peak resident memory stayed far below the rows\' size');
is($node->safe_psql('postgres', q{
	SELECT count(*) FROM ((TABLE fanout EXCEPT ALL
		SELECT a.id, b.id, a.g FROM a JOIN b ON a.g = b.g) UNION ALL
		(SELECT a.id, b.id, a.g FROM a JOIN b ON a.g = b.g EXCEPT ALL TABLE fanout)) d}),
	'0', 'the view equals its query');

$node->stop;
done_testing();
