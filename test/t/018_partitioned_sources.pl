# Partitioned tables and partitions as sources under concurrent writers:
# writes through the partitioned table and straight into partitions, and
# UPDATEs that move rows between partitions, while views over the
# partitioned table, over a partition and over a partitioned partition are
# created concurrently, while compute workers are killed, and across an
# immediate restart; every view equals its query afterwards; a partition
# whose concurrent detach was canceled leaves the views as it leaves
# queries.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('partitioned_sources');
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
	CREATE TABLE pt (id int, k int, v int) PARTITION BY RANGE (k);
	CREATE TABLE pt_low PARTITION OF pt FOR VALUES FROM (0) TO (10);
	CREATE TABLE pt_mid PARTITION OF pt FOR VALUES FROM (10) TO (20) PARTITION BY HASH (id);
	CREATE TABLE pt_mid_0 PARTITION OF pt_mid FOR VALUES WITH (MODULUS 2, REMAINDER 0);
	CREATE TABLE pt_mid_1 PARTITION OF pt_mid FOR VALUES WITH (MODULUS 2, REMAINDER 1);
	CREATE TABLE pt_high PARTITION OF pt DEFAULT;
	INSERT INTO pt SELECT i, i % 30, i FROM generate_series(1, 3000) i;
	-- writers: a transaction each, through the parent and into partitions,
	-- moving rows between partitions, until stop_at
	CREATE PROCEDURE churn(seconds float8, w int DEFAULT 0) LANGUAGE plpgsql AS $$
	DECLARE
	  stop_at timestamptz := clock_timestamp() + seconds * interval '1 second';
	  i int := 0;
	  b int := 100000 * (w + 1);	-- each writer its own rows
	BEGIN
	  WHILE clock_timestamp() < stop_at LOOP
	    i := i + 1;
	    INSERT INTO pt VALUES (b + i, i % 30, i);
	    INSERT INTO pt_low VALUES (b + 20000 + i, i % 10, -i);
	    INSERT INTO pt_mid VALUES (b + 30000 + i, 10 + i % 10, i % 7);
	    UPDATE pt SET k = (k + 7) % 30, v = v + 1 WHERE id = 1 + (i * 37 + w) % 3000 AND id % 2 = w % 2;
	    UPDATE pt SET k = k + 15 WHERE id = b + 20000 + i - 5;
	    UPDATE pt_low SET v = v - 1 WHERE id = b + 20000 + i - 3;
	    DELETE FROM pt WHERE id = b + i - 20;
	    DELETE FROM pt_mid_1 WHERE id = b + 30000 + i - 9;
	    COMMIT;
	  END LOOP;
	END $$;
});

my %def = (
	p_all  => 'SELECT k, count(*) AS n, sum(v) AS s FROM pt GROUP BY k',
	p_low  => 'SELECT id, k, v FROM pt_low WHERE v % 3 <> 0',
	p_mid  => 'SELECT count(*) AS n, max(v) AS hi FROM pt_mid',
	p_join => 'SELECT a.id, b.id AS other FROM pt_low a JOIN pt_mid b ON b.v = a.k');

my $churn_err = '';

sub churn_start
{
	my ($seconds, $w) = @_;
	$w //= 0;
	my $out = '';
	return IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		  '-c', "CALL churn($seconds, $w)" ], '>', \$out, '2>>', \$churn_err);
}

sub all_equal
{
	my ($what) = @_;
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	my $bad = 0;
	foreach my $name (sort keys %def)
	{
		my $d = $def{$name};
		my $n = $node->safe_psql('postgres', qq{
			SELECT count(*) FROM ((TABLE $name EXCEPT ALL ($d)) UNION ALL (($d) EXCEPT ALL TABLE $name)) x});
		if ($n ne '0')
		{
			$bad++;
			diag("$what: $name differs from its query in $n rows");
		}
	}
	is($bad, 0, "$what: every view equals its query");
}

# the views created concurrently while writers run
my $w1 = churn_start(6, 0);
my $w2 = churn_start(6, 1);
foreach my $name (sort keys %def)
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$name', \$q\$$def{$name}\$q\$)");
}
$w1->finish;
$w2->finish;
is($w1->result(0) + $w2->result(0), 0, 'the writers ran without errors') or diag($churn_err);
all_equal('created under writers');

# compute workers killed while writers run
$w1 = churn_start(4);
$node->poll_query_until('postgres', q{SELECT count(*) > 3000 FROM pt}) or diag('no writes');
$node->safe_psql('postgres', q{
	SELECT pg_terminate_backend(pid) FROM hummock_stream.workers
	 WHERE role = 'compute worker' AND pid IS NOT NULL});
$w1->finish;
all_equal('workers killed under writers');

# an immediate restart in the middle of writes
$w1 = churn_start(30);
$node->poll_query_until('postgres', q{SELECT count(*) > 0 FROM pt WHERE id BETWEEN 100100 AND 119999}) or diag('no writes');
$node->stop('immediate');
eval { $w1->finish; };		# (its connection is gone)
$node->start;
$node->safe_psql('postgres', 'CALL churn(2)');
all_equal('after an immediate restart');

# a table attached (with its rows) while a view's backfill runs: the
# backfill reads the tree as it stood at its snapshot, the attached rows
# come through the log, once (before, they were counted twice).  The
# smaller input is read first, slowly, so the ATTACH lands between the
# snapshot and the scan of the partitioned table.
$node->safe_psql('postgres', q{
	CREATE TABLE small (v int);
	INSERT INTO small SELECT i FROM generate_series(1, 6000) i;
	CREATE TABLE pq (k int, v int) PARTITION BY RANGE (k);
	CREATE TABLE pq_1 PARTITION OF pq FOR VALUES FROM (0) TO (100000);
	INSERT INTO pq SELECT i, 1 FROM generate_series(1, 30000) i;
	CREATE TABLE staged (k int, v int);
	INSERT INTO staged SELECT 100000 + i, 1000 FROM generate_series(1, 500) i;
	ANALYZE small, pq;
});
$def{p_union} = 'SELECT count(*) AS n, sum(v) AS s FROM (SELECT v FROM small UNION ALL SELECT v FROM pq) x';
$node->safe_psql('postgres', qq{
	SET hummock_stream.backfill_rate_limit = 5000;
	SELECT hummock_stream.create_materialized_view('p_union', \$q\$$def{p_union}\$q\$, wait => false)});
$node->poll_query_until('postgres', q{
	SELECT EXISTS (SELECT FROM hummock_stream.create_progress
	                WHERE phase = 'backfilling' AND input = 'small'::regclass AND rows_read > 0)})
  or diag('the backfill did not start');
$node->safe_psql('postgres', q{ALTER TABLE pq ATTACH PARTITION staged FOR VALUES FROM (100000) TO (200000)});
ok($node->poll_query_until('postgres', q{
	SELECT EXISTS (SELECT FROM hummock_stream.jobs WHERE name::text = 'p_union' AND state = 'created')}),
	'the view created during the attach is created');
all_equal('a partition attached during a backfill');

# a DETACH ... CONCURRENTLY canceled while it waits for a reader of the
# partitioned table leaves its (empty) partition pending detach: queries
# of the partitioned table no longer see it, and neither do the views,
# also for the rows of a session that wrote into the partition before
# (its trigger's knowledge of the partition is forgotten); finalized, the
# partition takes nothing from them
$node->safe_psql('postgres', q{
	CREATE TABLE pd (id int, v int) PARTITION BY RANGE (id);
	CREATE TABLE pd_1 PARTITION OF pd FOR VALUES FROM (0) TO (1000);
	CREATE TABLE pd_2 PARTITION OF pd FOR VALUES FROM (1000) TO (2000);
	INSERT INTO pd SELECT i, i FROM generate_series(0, 999) i;
});
$def{p_detach} = 'SELECT count(*) AS n, sum(v) AS s FROM pd';
$node->safe_psql('postgres',
	"SELECT hummock_stream.create_materialized_view('p_detach', \$q\$$def{p_detach}\$q\$)");
my $writer = $node->background_psql('postgres');
$writer->query_safe('INSERT INTO pd_2 VALUES (1500, 1); DELETE FROM pd_2;');
my $reader = $node->background_psql('postgres');
# (a reader of the partitioned table alone: the check that the partition
# holds no rows locks it)
$reader->query_safe('BEGIN; LOCK TABLE ONLY pd IN ACCESS SHARE MODE;');
my ($ret, $out, $err) = $node->psql('postgres',
	"SET statement_timeout = '1s'; ALTER TABLE pd DETACH PARTITION pd_2 CONCURRENTLY");
like($err, qr/canceling statement due to statement timeout/, 'the concurrent detach was canceled');
$reader->query_safe('COMMIT');
$reader->quit;
is($node->safe_psql('postgres',
	q{SELECT inhdetachpending FROM pg_inherits WHERE inhrelid = 'pd_2'::regclass}),
	't', 'the partition is pending detach');
$writer->query_safe('INSERT INTO pd_2 VALUES (1501, 5), (1502, 6); UPDATE pd_2 SET v = v + 1;');
$node->safe_psql('postgres', q{INSERT INTO pd_2 VALUES (1503, 7); INSERT INTO pd_1 VALUES (7, 7)});
all_equal('rows written into a partition pending detach');
$node->safe_psql('postgres', 'ALTER TABLE pd DETACH PARTITION pd_2 FINALIZE');
$writer->query_safe('INSERT INTO pd_2 VALUES (1504, 8); DELETE FROM pd_2 WHERE id = 1501;');
$writer->quit;
all_equal('a pending detach finalized');

$node->stop;
done_testing();
