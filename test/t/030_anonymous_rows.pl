# Anonymous rows (ROW(...), count(DISTINCT (a, b))) in aggregates across
# processes.  A record value names its row type by a typmod numbered by
# the process that blessed it: the creator of a view and the compute worker
# number row types in different orders (each in the order it builds
# plans), and a restart numbers them again.  The aggregates keep the
# columns a row is made of, never the row, so the worker that maintains a
# view reads what the creator wrote whatever it numbered.  With one compute
# worker the numbering differs for certain: the worker built `first` (and
# numbered its row type) before `second`'s creator numbered its own.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('anonrows');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 1
max_worker_processes = 16
});
$node->start;

my $first_q = 'SELECT v % 2 AS odd, jsonb_agg(ROW(v, id) ORDER BY id) AS r FROM s_first GROUP BY v % 2';
my $second_q = 'SELECT g, jsonb_agg(ROW(note, amount, id) ORDER BY id) AS r, '
  . 'count(DISTINCT (note, flag)) AS nd, string_agg((g, note)::text, \',\' ORDER BY id) AS t '
  . 'FROM s GROUP BY g';

sub differs
{
	my ($view, $query) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE $view EXCEPT ALL $query) UNION ALL
			($query EXCEPT ALL TABLE $view)) d});
}

$node->safe_psql('postgres', qq{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE s_first (id int PRIMARY KEY, v int);
	CREATE TABLE s (id int PRIMARY KEY, g int, note text, flag bool, amount numeric);
	INSERT INTO s SELECT i, i % 4, 'n' || (i % 5), i % 3 = 0, (i % 6) * 1.25
	  FROM generate_series(1, 40) i;
	SELECT hummock_stream.create_materialized_view('first', \$q\$$first_q\$q\$);
	INSERT INTO s_first SELECT i, i FROM generate_series(1, 5) i;
	SELECT hummock_stream.wait();
	SELECT hummock_stream.create_materialized_view('second', \$q\$$second_q\$q\$);
	UPDATE s SET note = 'changed' WHERE id IN (2, 3);
	DELETE FROM s WHERE id = 4;
	SELECT hummock_stream.wait();
});
is($node->safe_psql('postgres',
		"SELECT string_agg(name::text || ' ' || state, ', ' ORDER BY name::text) FROM hummock_stream.jobs"),
	'first created, second created', 'both views maintained');
is(differs('first', $first_q), '0', 'first equals its query');
is(differs('second', $second_q), '0', 'second equals its query after changes to groups its creator wrote');

# after a restart the worker numbers the row types again, in its own order
$node->restart;
$node->safe_psql('postgres', q{
	UPDATE s SET amount = amount + 1 WHERE g = 1;
	INSERT INTO s VALUES (100, 2, 'new', true, 7);
	INSERT INTO s_first VALUES (6, 6);
	SELECT hummock_stream.wait();
});
is($node->safe_psql('postgres',
		"SELECT string_agg(name::text || ' ' || state, ', ' ORDER BY name::text) FROM hummock_stream.jobs"),
	'first created, second created', 'both views maintained after a restart');
is(differs('first', $first_q), '0', 'first equals its query after a restart');
is(differs('second', $second_q), '0', 'second equals its query after a restart');

# a row kept as a value is refused with its reason
my ($rc, $out, $err) = $node->psql('postgres', q{
	SELECT hummock_stream.create_materialized_view('bad',
	  'SELECT a.id, b.r::text FROM s a JOIN (SELECT id, ROW(g, note) AS r FROM s) b ON a.g = b.id')});
like($err, qr/values of anonymous row types are not supported.*HashJoin keeps/s,
	'a row kept between a join\'s sides is refused');

$node->stop;
done_testing();
