# An epoch of any size is maintained in bounded memory: once a job's
# memtables hold half of hummock_stream.shared_buffer_size, its writes so
# far are flushed and sealed as a sub-epoch below the epoch (and the
# shared buffer spills what outgrows it), so a transaction of many rows,
# or the backlog a view takes in its first epoch after a restart, fits
# under a view_memory_limit it would pass many times over in one piece.
# The capture-log keys of such an epoch go through a tuplesort once they
# outgrow maintenance_work_mem (capture_reader.c).
# Every kind of state (join sides, min/max value counts, DISTINCT counts,
# Top-N, a view over a view reading the change log, with checkpoints
# every second barrier) must equal its query after such epochs, and after
# kill -9 in the middle of one.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HummockStream::Crash;

my $node = PostgreSQL::Test::Cluster->new('large_epochs');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.checkpoint_frequency = 2
hummock_stream.compute_workers = 2
hummock_stream.shared_buffer_size = 2MB
hummock_stream.block_cache_size = 4MB
hummock_stream.view_memory_limit = 120MB
hummock_stream.log_min_epoch_duration = 0
# an epoch's capture-log keys outgrow it: read through a spilling tuplesort
maintenance_work_mem = 1MB
max_worker_processes = 16
restart_after_crash = on
});
$node->start;

my %views = (
	joined => 'SELECT f.id, f.v, d.name FROM f JOIN d USING (g)',
	grouped => 'SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo, max(t) AS hi FROM f GROUP BY g',
	distinct_v => 'SELECT g, count(DISTINCT v % 1000) AS dv FROM f GROUP BY g',
	top => 'SELECT id, v FROM f ORDER BY v DESC, id LIMIT 5',
	per_name => 'SELECT name, count(*) AS n, sum(v) AS s FROM joined GROUP BY name',
);
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE d (g int PRIMARY KEY, name text);
	INSERT INTO d SELECT i, 'name ' || i FROM generate_series(0, 99) i;
	CREATE TABLE f (id int PRIMARY KEY, g int, v int, t text);
	INSERT INTO f SELECT i, i % 100, i, 't' || i FROM generate_series(1, 1000) i;
});
for my $name (sort keys %views)
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$name', \$q\$$views{$name}\$q\$)");
}

sub all_equal
{
	my ($what) = @_;
	$node->safe_psql('postgres', "SELECT hummock_stream.wait(timeout => '300s')");
	for my $name (sort keys %views)
	{
		is($node->safe_psql('postgres', qq{
			SELECT count(*) FROM ((TABLE $name EXCEPT ALL ($views{$name}))
			  UNION ALL (($views{$name}) EXCEPT ALL TABLE $name)) x}),
			'0', "$what: $name equals its query");
	}
	is($node->safe_psql('postgres',
			q{SELECT count(*) FROM hummock_stream.jobs WHERE last_error IS NOT NULL}),
		'0', "$what: no view failed");
}
all_equal('created');

# one transaction of 300,000 rows: every view's epoch is sealed in parts
my $log_offset = -s $node->logfile;
$node->safe_psql('postgres', q{
	INSERT INTO f SELECT i, i % 100, i % 50000, repeat('x', i % 40)
	  FROM generate_series(1001, 300000) i;
});
all_equal('after a 300,000-row transaction');
like(slurp_file($node->logfile, $log_offset), qr/sealed in \d+ parts to bound memory/,
	'an epoch was sealed in parts');

# updates that move rows between groups and join keys, and deletes, in one
# transaction (every delete and its insert may fall into different parts)
$node->safe_psql('postgres', q{
	BEGIN;
	UPDATE f SET g = (g + 7) % 100, v = v + 1 WHERE id % 3 = 0;
	DELETE FROM f WHERE id % 5 = 0;
	UPDATE d SET name = name || '!' WHERE g % 10 = 0;
	COMMIT;
});
all_equal('after moving and deleting rows in one transaction');

# kill -9 while the views are in the middle of a large epoch: the parts
# sealed so far were never committed, and the epoch is taken again
$node->safe_psql('postgres', q{
	INSERT INTO f SELECT i, i % 100, i % 70000, 'y' FROM generate_series(300001, 500000) i;
});
# (a 200,000-row epoch takes the views well over a second: kill at once)
my $pm = $node->{_pid};
$node->kill9;
ok(restart_after_kill9($node, $pm), 'the server restarts after kill -9');
all_equal('after kill -9 during a large epoch');

$node->stop;
done_testing();
