# Streaming joins take their rows in chunks and read the other side's rows
# for a whole chunk at once (exec_hash_join.c).  With the smallest join
# cache, most keys a chunk lacks are read for that chunk only (transient
# entries, several rows of a chunk sharing one); a self-join feeds both
# ports from one table, so chunks end at every switch between ports.
# Every kind of join equals its query after transactions that insert,
# update (moving rows between join keys) and delete thousands of rows
# (more than one chunk) at once.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('joinchunks');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 1
hummock_stream.join_cache_size = 64
max_worker_processes = 16
});
$node->start;

my %views = (
	inner_many => 'SELECT a.id AS aid, b.id AS bid, a.v, b.w FROM a JOIN b ON b.k = a.k',
	inner_pk => 'SELECT a.id, a.v, b.w FROM a JOIN b ON b.id = a.k',
	left_many => 'SELECT a.id AS aid, b.id AS bid, a.v, b.w FROM a LEFT JOIN b ON b.k = a.k AND b.w > a.v',
	full_many => 'SELECT a.id AS aid, b.id AS bid FROM a FULL JOIN b ON b.k = a.k',
	semi => 'SELECT a.id, a.k FROM a WHERE EXISTS (SELECT 1 FROM b WHERE b.k = a.k)',
	anti => 'SELECT a.id, a.k FROM a WHERE NOT EXISTS (SELECT 1 FROM b WHERE b.k = a.k)',
	self => 'SELECT x.id AS xid, y.id AS yid FROM a x JOIN a y ON y.k = x.k AND y.id <> x.id',
	text_keys => 'SELECT a.id AS aid, b.id AS bid FROM a JOIN b ON b.tag = a.tag',
);

sub differs
{
	my ($view, $query) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE $view EXCEPT ALL $query) UNION ALL
			($query EXCEPT ALL TABLE $view)) d});
}

sub check_all
{
	my ($when) = @_;
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	for my $name (sort keys %views)
	{
		is(differs($name, $views{$name}), '0', "$name equals its query $when");
	}
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE a (id int PRIMARY KEY, k int, v int, tag text);
	CREATE TABLE b (id int PRIMARY KEY, k int, w int, tag text);
	INSERT INTO a SELECT i, i % 3000, i % 17, 't' || (i % 700) FROM generate_series(1, 6000) i;
	INSERT INTO b SELECT i, i % 4000, i % 23, 't' || (i % 900) FROM generate_series(1, 8000) i;
	INSERT INTO a VALUES (0, NULL, 1, NULL);
	INSERT INTO b VALUES (0, NULL, 1, NULL);
});
for my $name (sort keys %views)
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$name', \$q\$$views{$name}\$q\$)");
}
check_all('after creation');

# both sides in one transaction: inserts with new and existing keys
$node->safe_psql('postgres', q{
	BEGIN;
	INSERT INTO a SELECT i, i % 5000, i % 19, 't' || (i % 1100) FROM generate_series(6001, 16000) i;
	INSERT INTO b SELECT i, i % 6000, i % 29, 't' || (i % 1300) FROM generate_series(8001, 20000) i;
	COMMIT;
});
check_all('after inserts into both sides');

# rows move between keys on both sides, alternating statements
$node->safe_psql('postgres', q{
	BEGIN;
	UPDATE a SET k = k + 1 WHERE id % 7 = 0;
	UPDATE b SET k = (k + 2) % 6000, w = w + 1 WHERE id % 5 = 0;
	UPDATE a SET v = v + 3, tag = 't' || (id % 50) WHERE id % 11 = 0;
	UPDATE b SET k = NULL WHERE id % 97 = 0;
	COMMIT;
});
check_all('after updates moving rows between keys');

# deletes: keys lose their last rows, outer rows become unmatched
$node->safe_psql('postgres', q{
	BEGIN;
	DELETE FROM b WHERE k % 3 = 0;
	DELETE FROM a WHERE id % 4 = 0;
	INSERT INTO b SELECT i, i % 300, 1, 't1' FROM generate_series(20001, 26000) i;
	COMMIT;
});
check_all('after deletes');

# everything of one side goes, then comes back
$node->safe_psql('postgres', 'DELETE FROM b');
check_all('after emptying one side');
$node->safe_psql('postgres',
	q{INSERT INTO b SELECT i, i % 4000, i % 23, 't' || (i % 900) FROM generate_series(1, 9000) i});
check_all('after refilling it');

is($node->safe_psql('postgres',
		"SELECT count(*) FROM hummock_stream.jobs WHERE state <> 'created'"),
	'0', 'every view is maintained');

# A numeric join key's encoding unpacks the value: that memory goes with
# the row.  (It went into the job's memory, about 30 bytes a row for the
# job's life: 45 MB over 1.5M rows.)  The compute worker's private memory
# stays flat while rows stream through a join on numeric keys.
$node->safe_psql('postgres', q{
	CREATE TABLE na (id bigint PRIMARY KEY, n numeric);
	CREATE TABLE nb (n numeric PRIMARY KEY, x int);
	INSERT INTO nb SELECT i::numeric / 7, i FROM generate_series(1, 1000) i;
	SELECT hummock_stream.create_materialized_view('numeric_join',
		'SELECT na.id, nb.x FROM na JOIN nb ON nb.n = na.n');
});
my $worker = $node->safe_psql('postgres', q{
	SELECT pid FROM pg_stat_activity WHERE backend_type = 'hummock_stream compute worker'});
sub worker_anon_kb
{
	open(my $fh, '<', "/proc/$worker/status") or return -1;
	while (my $line = <$fh>)
	{
		return $1 if $line =~ /^RssAnon:\s+(\d+)/;
	}
	return -1;
}
my @anon;
for my $round (0 .. 3)
{
	my ($from, $to) = ($round * 500000 + 1, ($round + 1) * 500000);
	$node->safe_psql('postgres', qq{
		INSERT INTO na SELECT i, (1 + i % 1000)::numeric / 7 FROM generate_series($from, $to) i});
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	push @anon, worker_anon_kb();
}
SKIP:
{
	skip 'no /proc status of the compute worker', 1 if $anon[0] < 0;
	# after the first round (caches warm), 1.5M more rows
	cmp_ok($anon[3] - $anon[0], '<', 20000,
		"the worker's private memory stays flat (kB after each round: @anon)");
}
is(differs('numeric_join', 'SELECT na.id, nb.x FROM na JOIN nb ON nb.n = na.n'), '0',
	'the numeric join equals its query');

$node->stop;
done_testing();
