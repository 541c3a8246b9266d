# A view keeps a change log (writes old values) only while it is needed:
# while views read it, while a view over it is being created (the creator
# asks for it first), or when its owner asked for one (change_log => true,
# set_change_log).  A view over it must never miss a change around the
# moment its log starts:
#  (a) a view nobody reads keeps no log;
#  (b) views over it created, dropped and created again from autocommit
#      while writers change its source: each equals its query, the log is
#      kept while a view reads it and ends when the last one goes;
#  (c) inside a transaction block: an upstream and a view over it created
#      in one transaction; a view over an existing upstream that kept no
#      log;
#  (d) a rolled-back creation leaves no log behind;
#  (e) after an immediate restart the logs are kept as the catalog says.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('change_log_on_demand');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 2
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE src (id int PRIMARY KEY, g int, v int);
	INSERT INTO src SELECT i, i % 50, i FROM generate_series(1, 5000) i;
	-- writers: inserts, updates that move rows between groups, deletes,
	-- one transaction each, until stop_at
	CREATE PROCEDURE churn(seconds float8) LANGUAGE plpgsql AS $$
	DECLARE
	  stop_at timestamptz := clock_timestamp() + seconds * interval '1 second';
	  i int := 0;
	BEGIN
	  WHILE clock_timestamp() < stop_at LOOP
	    i := i + 1;
	    INSERT INTO src VALUES (100000 + i, i % 70, i)
	      ON CONFLICT (id) DO UPDATE SET v = src.v + 1;
	    UPDATE src SET g = (g + 7) % 60, v = v + 1 WHERE id = 1 + (i * 37) % 5000;
	    DELETE FROM src WHERE id = 100000 + i - 40;
	    COMMIT;
	  END LOOP;
	END $$;
	SELECT hummock_stream.create_materialized_view('up',
		'SELECT g, count(*) AS n, sum(v) AS s FROM src GROUP BY g');
});

my $down_def = 'SELECT g % 5 AS k, sum(n) AS n, sum(s) AS s FROM up GROUP BY g % 5';
my $down_truth = 'SELECT g % 5 AS k, count(*) AS n, sum(v) AS s FROM src GROUP BY g % 5';

sub has_log
{
	my ($rel) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT change_log_from IS NOT NULL FROM hummock_stream.committed_epochs()
		 WHERE relation = '$rel'::regclass});
}

# wait (with a deadline) until has_log($rel) is $want
sub wait_log
{
	my ($rel, $want) = @_;
	return $node->poll_query_until('postgres', qq{
		SELECT change_log_from IS NOT NULL FROM hummock_stream.committed_epochs()
		 WHERE relation = '$rel'::regclass}, $want);
}

# the view equals its query over the base table, after every change so far
sub equal
{
	my ($view, $truth, $what) = @_;
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((SELECT k, n::bigint, s::bigint FROM $view
		                       EXCEPT ALL SELECT k, n::bigint, s::bigint FROM ($truth) t)
		                UNION ALL (SELECT k, n::bigint, s::bigint FROM ($truth) t
		                       EXCEPT ALL SELECT k, n::bigint, s::bigint FROM $view)) x}),
		'0', "$what: $view equals its query");
}

sub churn_start
{
	my ($seconds) = @_;
	my ($out, $err) = ('', '');
	return IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		  '-c', "CALL churn($seconds)" ], '>', \$out, '2>', \$err);
}

# (a)
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(has_log('up'), 'f', '(a) a view nobody reads keeps no change log');
is($node->safe_psql('postgres', q{SELECT change_log FROM hummock_stream.jobs WHERE name = 'up'::regclass}),
	'none', '(a) jobs says so');

# (b) create, drop, create again while writers run
for my $round (1 .. 4)
{
	my $w1 = churn_start(4);
	my $w2 = churn_start(4);
	$node->safe_psql('postgres', qq{SELECT hummock_stream.create_materialized_view('down', '$down_def')});
	is($node->safe_psql('postgres', q{SELECT change_log FROM hummock_stream.jobs WHERE name = 'up'::regclass}),
		'for downstreams', "(b) round $round: the upstream keeps its log for the view over it");
	$w1->finish;
	$w2->finish;
	equal('down', $down_truth, "(b) round $round");
	$node->safe_psql('postgres', q{SELECT hummock_stream.drop_materialized_view('down')});
	ok(wait_log('up', 'f'), "(b) round $round: the log ends once no view reads it");
}
$node->safe_psql('postgres', qq{SELECT hummock_stream.create_materialized_view('down', '$down_def')});
is(has_log('up'), 't', '(b) a created view over it finds its log kept');

# (c) in transaction blocks
$node->safe_psql('postgres', qq{
	BEGIN;
	SELECT hummock_stream.create_materialized_view('up2',
		'SELECT g, count(*) AS n, sum(v) AS s FROM src WHERE v % 2 = 0 GROUP BY g');
	SELECT hummock_stream.create_materialized_view('down2',
		'SELECT g % 5 AS k, sum(n) AS n, sum(s) AS s FROM up2 GROUP BY g % 5');
	COMMIT;
});
$node->safe_psql('postgres', q{
	SELECT hummock_stream.create_materialized_view('up3',
		'SELECT g, count(*) AS n, sum(v) AS s FROM src WHERE v % 3 = 0 GROUP BY g');
	SELECT hummock_stream.wait();
});
is(has_log('up3'), 'f', '(c) up3 keeps no log yet');
{
	my $w = churn_start(3);
	$node->safe_psql('postgres', q{
		BEGIN;
		SELECT hummock_stream.create_materialized_view('down3',
			'SELECT g % 5 AS k, sum(n) AS n, sum(s) AS s FROM up3 GROUP BY g % 5');
		COMMIT;
	});
	$w->finish;
}
$node->safe_psql('postgres', q{CALL churn(1)});
equal('down2', 'SELECT g % 5 AS k, count(*) AS n, sum(v) AS s FROM src WHERE v % 2 = 0 GROUP BY g % 5',
	'(c) upstream and downstream created in one transaction');
equal('down3', 'SELECT g % 5 AS k, count(*) AS n, sum(v) AS s FROM src WHERE v % 3 = 0 GROUP BY g % 5',
	'(c) a view created in a transaction block over an upstream without a log');
is(has_log('up2') . has_log('up3'), 'tt', '(c) both upstreams keep their logs');

# (d) a rolled-back creation
$node->safe_psql('postgres', q{
	SELECT hummock_stream.create_materialized_view('up4',
		'SELECT g, count(*) AS n, sum(v) AS s FROM src WHERE v % 5 = 0 GROUP BY g');
	BEGIN;
	SELECT hummock_stream.create_materialized_view('down4',
		'SELECT g % 5 AS k, sum(n) AS n, sum(s) AS s FROM up4 GROUP BY g % 5');
	ROLLBACK;
});
ok(wait_log('up4', 'f'), '(d) after a rolled-back creation over it, up4 keeps no log');
is($node->safe_psql('postgres', q{SELECT change_log FROM hummock_stream.jobs WHERE name = 'up4'::regclass}),
	'none', '(d) jobs says so');

# (e) restart
$node->stop('immediate');
$node->start;
$node->safe_psql('postgres', q{CALL churn(1)});
equal('down', $down_truth, '(e) after a restart');
equal('down3', 'SELECT g % 5 AS k, count(*) AS n, sum(v) AS s FROM src WHERE v % 3 = 0 GROUP BY g % 5',
	'(e) after a restart');
is(has_log('up') . has_log('up3') . has_log('up4'), 'ttf',
	'(e) after a restart: the upstreams read by views keep their logs, the others none');

$node->stop;
done_testing();
