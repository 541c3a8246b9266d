# A compaction task that fails (here: an L0 SST whose bytes were damaged on
# disk) does not stop the compactor (compactor.c, compact_one): it is
# reported as a WARNING, compaction pauses (longer after each failure in a
# row), the compactor process stays the same, and its garbage collection
# goes on: the SSTs of a view dropped meanwhile leave the disk.  Before, the
# error ended the compactor, which was started again to fail on the same
# task every interval, and GC, which runs every tenth round of one process,
# never ran.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('compaction_failure');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
max_worker_processes = 16
# no compaction until the SST is damaged
hummock_stream.compaction_interval = '1h'
hummock_stream.time_travel_retention = 0
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE t (id int PRIMARY KEY, v int);
	SELECT hummock_stream.create_materialized_view('damaged', 'SELECT id, v FROM t');
	SELECT hummock_stream.create_materialized_view('dropped', 'SELECT id, v * 2 AS w FROM t');
});
# many small epochs: L0 sub-levels enough for a compaction task
for my $i (1 .. 12)
{
	$node->safe_psql('postgres', qq{
		INSERT INTO t SELECT g, g FROM generate_series($i * 1000, $i * 1000 + 999) g;
		SELECT hummock_stream.wait();
	});
}
my $objdir = $node->data_dir . '/' . $node->safe_psql('postgres', q{
	SELECT format('pg_hummock/%s/%s', d.oid, e.oid) FROM pg_database d, pg_extension e
	 WHERE d.datname = current_database() AND e.extname = 'hummock_stream'});
my $victim = $node->safe_psql('postgres', q{
	SELECT object_id FROM hummock_stream.sstables
	 WHERE level = 0 AND 'damaged'::regclass::oid = ANY (table_ids)
	 ORDER BY object_id LIMIT 1});
ok($victim ne '', 'the view has L0 SSTs');
my @dropped = split /\n/, $node->safe_psql('postgres', q{
	SELECT DISTINCT object_id FROM hummock_stream.sstables
	 WHERE table_ids <@ ((SELECT array_agg(table_id::bigint) FROM hummock_stream.state_tables
	                        WHERE job = 'dropped'::regclass)
	                     || ARRAY['dropped'::regclass::oid::bigint])});

# damage the SST's first block on disk; restart so that no cache holds it
$node->stop;
my $file = "$objdir/$victim.sst";
ok(-f $file, 'the damaged SST is a file');
open(my $fh, '+<', $file) or die "open $file: $!";
binmode $fh;
seek($fh, 64, 0);
print $fh ("\xff" x 256);
close $fh;
$node->append_conf('postgresql.conf', "hummock_stream.compaction_interval = '100ms'\n");
$node->start;

my $log_offset = 0;
ok($node->wait_for_log(qr/WARNING:.*hummock_stream compaction failed/, $log_offset),
	'the failed task is a WARNING');
my $pid = $node->safe_psql('postgres', q{
	SELECT pid FROM pg_stat_activity WHERE backend_type = 'hummock_stream compactor'});
ok($pid ne '', 'a compactor runs');
like(slurp_file($node->logfile), qr/Compaction pauses for \d+ s \(failure 1 in a row\)/,
	'and compaction pauses');

# the SSTs of a view dropped now leave the disk: GC goes on
$node->safe_psql('postgres', q{SELECT hummock_stream.drop_materialized_view('dropped')});
if (@dropped)
{
	my $list = join(',', map { "'$objdir/$_.sst'" } @dropped);
	# (poll_query_until: a deadline, never a fixed sleep)
	ok($node->poll_query_until('postgres', qq{SELECT count(*) FROM unnest(ARRAY[$list]) f
		 WHERE pg_stat_file(f, true) IS NOT NULL}, '0'),
		"the dropped view's SSTs are collected while compaction fails");
}
else
{
	pass('the dropped view has no SST of its own (nothing to collect)');
}
is($node->safe_psql('postgres', q{
	SELECT pid FROM pg_stat_activity WHERE backend_type = 'hummock_stream compactor'}),
	$pid, 'the same compactor process runs on');

$node->stop;
done_testing();
