# A failing graph is reset, waits in state 'failed' with a delay that
# doubles after each failure (1 s, 2 s, 4 s, ...), and starts again by
# itself; once it commits again its error goes and its delay starts over.
# Meanwhile other graphs go on committing (a failing job never holds
# another job's committed epoch), and wait() fails at once on a failing
# view instead of timing out; a recursive view whose recursion over a
# cycle would never end fails at its row limit.  (What the failures cost
# the other graphs is a matter for benchmarks: nothing here compares
# rates or durations.)
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('failing');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
hummock_stream.recompute_max_rows = 100000
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION hummock_stream; CREATE EXTENSION hummock_stream_test');

sub graph
{
	my ($g, $col) = @_;
	return $node->safe_psql('postgres',
		"SELECT coalesce((SELECT ($col)::text FROM hummock_stream.partial_graphs WHERE graph_id = $g), '')");
}

# graph 1: a counter on each worker; graph 2: an actor that fails at its
# first barrier, so every retry fails at once
$node->safe_psql('postgres', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param)
	VALUES (1, 'counter', 0), (1, 'counter', 0)});
ok($node->poll_query_until('postgres',
		"SELECT commits > 5 FROM hummock_stream.partial_graphs WHERE graph_id = 1"),
	'graph 1 commits');
my $commits_before = graph(1, 'commits');

$node->safe_psql('postgres', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param) VALUES (2, 'error', 1)});

# Record the retry time the manager sets at each of the first four
# failures of graph 2 (a failed graph waits at least a second, so polling
# sees each).  The manager sets it at the end of reset n to that moment
# plus the delay of n failures in a row, and reset n + 1 comes after
# retry n: consecutive retry times are at least the delay of n + 1 apart,
# whatever the load.  Without backoff they would be a barrier apart.
my %retry_at;
my $deadline = time + 180;
while (keys(%retry_at) < 4 && time < $deadline)
{
	my $row = $node->safe_psql('postgres', q{
		SELECT resets || ' ' || extract(epoch FROM retry_at)
		  FROM hummock_stream.partial_graphs WHERE graph_id = 2 AND state = 'failed'});
	if ($row =~ /^(\d+) ([0-9.]+)$/ && $1 <= 4)
	{
		$retry_at{$1} = $2;
	}
	sleep(0.05);
}
is(join(',', sort keys %retry_at), '1,2,3,4', 'the failing graph keeps retrying');
diag('retry times after each failure: '
	  . join(', ', map { sprintf('%d: +%.2f s', $_, $retry_at{$_} - $retry_at{1}) } sort keys %retry_at));
# the delay of n failures in a row: 1 s, doubling (HsGraphBackoffMs)
for my $n (2 .. 4)
{
	my $delay = 2**($n - 1);
	cmp_ok($retry_at{$n} - $retry_at{$n - 1}, '>=', $delay - 0.01,
		"retry $n comes at least its delay ($delay s) after retry " . ($n - 1));
}

# graph 1 went on committing meanwhile, and goes on while graph 2 waits
ok($node->poll_query_until('postgres',
		"SELECT commits >= $commits_before + 20 AND
		        (SELECT state <> 'running' FROM hummock_stream.partial_graphs WHERE graph_id = 2)
		   FROM hummock_stream.partial_graphs WHERE graph_id = 1"),
	'the failing graph does not stop graph 1');
is(graph(1, 'resets'), '0', 'graph 1 was never reset');
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' AND retry_at > now() AND last_error LIKE '%failed at barrier 1 as asked%'
	  FROM hummock_stream.partial_graphs WHERE graph_id = 2}),
	'the failed graph shows its error and when it starts again');

# Heal it: the actor's new parameter applies when it is built again.
$node->safe_psql('postgres',
	"UPDATE hummock_stream_test.test_actors SET param = 1000000 WHERE graph_id = 2");
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'running' AND last_error IS NULL AND retry_at IS NULL AND commits > 0
	  FROM hummock_stream.partial_graphs WHERE graph_id = 2}),
	'after its delay the graph starts again, commits, and its error is gone');

# Its delay starts over: a failure after a commit waits about 1 s again.
$node->safe_psql('postgres',
	"UPDATE hummock_stream_test.test_actors SET param = 5 WHERE graph_id = 2");
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' FROM hummock_stream.partial_graphs WHERE graph_id = 2}, 't'),
	'it fails again');
my $left = $node->safe_psql('postgres', q{
	SELECT extract(epoch FROM retry_at - now()) FROM hummock_stream.partial_graphs
	 WHERE graph_id = 2 AND state = 'failed'});
diag("the new delay has $left s left");
cmp_ok($left eq '' ? 0 : $left, '<', 1.5, 'a commit in between resets the delay to 1 s');
$node->safe_psql('postgres', "DELETE FROM hummock_stream_test.test_actors WHERE graph_id = 2");

# A streaming view that fails on every epoch until a switch is turned off,
# next to a healthy one.
$node->safe_psql('postgres', q{
	CREATE TABLE switch (broken bool NOT NULL);
	INSERT INTO switch VALUES (false);
	CREATE FUNCTION checked(v int) RETURNS int IMMUTABLE LANGUAGE plpgsql AS $$
	BEGIN
	  IF (SELECT broken FROM public.switch) THEN
	    RAISE EXCEPTION 'broken on purpose at value %', v;
	  END IF;
	  RETURN v;
	END $$;
	CREATE TABLE src (id int PRIMARY KEY, v int);
	INSERT INTO src VALUES (1, 10);
	SELECT hummock_stream.create_materialized_view('v_fragile',
	  'SELECT id, public.checked(v) AS v FROM src');
	SELECT hummock_stream.create_materialized_view('v_sturdy', 'SELECT count(*) AS n FROM src');
});
$node->safe_psql('postgres', q{
	UPDATE switch SET broken = true;
	INSERT INTO src VALUES (2, 20);
});
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' AND last_error = 'broken on purpose at value 20'
	  FROM hummock_stream.jobs WHERE name = 'v_fragile'::regclass}),
	'the view is failed, with its error');
my $e0 = $node->safe_psql('postgres',
	"SELECT committed_epoch FROM hummock_stream.jobs WHERE name = 'v_sturdy'::regclass");
ok( $node->poll_query_until('postgres',
		"SELECT committed_epoch > $e0 + (1000::bigint << 16) FROM hummock_stream.jobs WHERE name = 'v_sturdy'::regclass"),
	'the healthy view keeps committing');

my $t0 = time;
my ($ret, $out, $err) = $node->psql('postgres', "SELECT hummock_stream.wait(NULL, '60 s')");
my $took = time - $t0;
isnt($ret, 0, 'wait() fails while a view fails');
like($err, qr/streaming materialized view "v_fragile" is failing/, 'naming the view');
like($err, qr/Its last error: broken on purpose at value 20/, 'and its error');
cmp_ok($took, '<', 20, sprintf('at once (%.1f s), not after its timeout', $took));
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_sturdy', '30 s')");
is($node->safe_psql('postgres', 'SELECT n FROM v_sturdy'),
	'2', 'wait() for the healthy view returns, and it shows the new row');

$node->safe_psql('postgres', 'UPDATE switch SET broken = false');
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'created' AND last_error IS NULL
	  FROM hummock_stream.jobs WHERE name = 'v_fragile'::regclass}),
	'once the cause is gone the view heals by itself');
$node->safe_psql('postgres', "SELECT hummock_stream.wait(NULL, '30 s')");
is($node->safe_psql('postgres',
		"SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM v_fragile"),
	'1:10,2:20', 'and it has every change');

# After failures in a row a view waits up to 30 s before it starts again;
# wait() asks for a start within a second of its last reset and waits
# through it, so a script that fixes the cause and then waits sees the
# view heal before its own retry time.
$node->safe_psql('postgres', q{
	UPDATE switch SET broken = true;
	INSERT INTO src VALUES (3, 30);
});
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' AND retry_at > now() + interval '5 s'
	  FROM hummock_stream.partial_graphs WHERE graph_id = 'v_fragile'::regclass::oid}),
	'after failures in a row the view waits seconds before its next start');
my $retry_at = $node->safe_psql('postgres', q{
	SELECT extract(epoch FROM retry_at) FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'v_fragile'::regclass::oid AND state = 'failed'});
$node->safe_psql('postgres', 'UPDATE switch SET broken = false');
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_fragile', '60 s')");
my $healed_at = time;
is($node->safe_psql('postgres',
		"SELECT string_agg(id || ':' || v, ',' ORDER BY id) FROM v_fragile"),
	'1:10,2:20,3:30', 'wait() right after the fix returns with the view healed');
cmp_ok($healed_at, '<', $retry_at,
	sprintf('before its own retry time (%.1f s early)', $retry_at - $healed_at));
# still broken: wait() asks for one start, and fails when it fails again
$node->safe_psql('postgres', q{
	UPDATE switch SET broken = true;
	INSERT INTO src VALUES (4, 40);
});
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' FROM hummock_stream.jobs WHERE name = 'v_fragile'::regclass}),
	'the view fails again');
my $resets = $node->safe_psql('postgres',
	"SELECT resets FROM hummock_stream.partial_graphs WHERE graph_id = 'v_fragile'::regclass::oid");
($ret, $out, $err) = $node->psql('postgres', "SELECT hummock_stream.wait('v_fragile', '60 s')");
like($err, qr/ERROR:  streaming materialized view "v_fragile" is failing.*broken on purpose at value 40/s,
	'wait() on a view still broken fails with its error');
cmp_ok($node->safe_psql('postgres',
		"SELECT resets FROM hummock_stream.partial_graphs WHERE graph_id = 'v_fragile'::regclass::oid"),
	'>', $resets, 'after the start it asked for failed');
$node->safe_psql('postgres', 'UPDATE switch SET broken = false');
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_fragile', '60 s')");
is($node->safe_psql('postgres', 'SELECT count(*) FROM v_fragile'), '4', 'and heals once fixed');

# A recursive UNION ALL that meets a cycle of its data never ends: its
# computation stops at hummock_stream.recompute_max_rows with an error
# that says so, the view fails instead of a worker looping, and it heals
# once the cycle is gone.
$node->safe_psql('postgres', q{
	CREATE TABLE hop (a int, b int);
	INSERT INTO hop VALUES (1, 2), (2, 3);
	SELECT hummock_stream.create_materialized_view('v_walks', $$
	  WITH RECURSIVE w(a, b) AS (SELECT a, b FROM hop
	    UNION ALL SELECT w.a, h.b FROM w JOIN hop h ON h.a = w.b)
	  SELECT a, b, count(*) AS walks FROM w GROUP BY a, b$$);
});
$node->safe_psql('postgres', 'INSERT INTO hop VALUES (3, 1)');
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' AND last_error =
	       'a recursive query of a streaming materialized view returned more than 100000 rows (A recursive UNION ALL over data with a cycle never ends.)'
	  FROM hummock_stream.jobs WHERE name = 'v_walks'::regclass}),
	'a recursion over a cycle fails its view at the row limit');
$node->safe_psql('postgres', 'DELETE FROM hop WHERE a = 3');
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'created' AND last_error IS NULL
	  FROM hummock_stream.jobs WHERE name = 'v_walks'::regclass}),
	'it heals once the cycle is gone');
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_walks', '30 s')");
is($node->safe_psql('postgres',
		"SELECT string_agg(a || '>' || b || ':' || walks, ',' ORDER BY a, b) FROM v_walks"),
	'1>2:1,1>3:1,2>3:1', 'and shows the query over the data without the cycle');

# hummock_stream.epoch_timeout: an epoch whose work takes longer (a slow
# function) is canceled and fails its view, with a message that says so,
# instead of holding its worker (and the views on it) for as long as it
# runs; the view heals once its epochs are fast again.
$node->safe_psql('postgres', q{
	ALTER SYSTEM SET hummock_stream.epoch_timeout = '1s';
	SELECT pg_reload_conf();
	CREATE TABLE slow_t (id int PRIMARY KEY, x int);
	INSERT INTO slow_t VALUES (1, 0);
	CREATE TABLE quick_t (id int PRIMARY KEY);
	CREATE FUNCTION slowly(x int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS
	  $$ BEGIN IF x > 0 THEN PERFORM pg_sleep(x); END IF; RETURN x; END $$;
	SELECT hummock_stream.create_materialized_view('v_slow', 'SELECT id, public.slowly(x) AS x FROM slow_t');
	SELECT hummock_stream.create_materialized_view('v_quick', 'SELECT count(*) AS n FROM quick_t');
});
my $t0 = time;
$node->safe_psql('postgres', 'UPDATE slow_t SET x = 600');
ok( $node->poll_query_until('postgres', q{
	SELECT state = 'failed' AND last_error ~ 'took longer than hummock_stream.epoch_timeout'
	  FROM hummock_stream.jobs WHERE name = 'v_slow'::regclass}),
	'an epoch past epoch_timeout fails its view, saying why');
$node->safe_psql('postgres', q{INSERT INTO quick_t VALUES (1)});
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_quick', '60 s')");
is($node->safe_psql('postgres', 'SELECT n FROM v_quick'), '1', 'the other views go on');
$node->safe_psql('postgres', 'UPDATE slow_t SET x = 0');
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_slow', '120 s')");
is($node->safe_psql('postgres', 'SELECT x FROM v_slow'), '0', 'the slow view heals once its epochs are fast');
ok(time - $t0 < 300, 'no epoch ran its ten minutes');
$node->safe_psql('postgres', q{ALTER SYSTEM RESET hummock_stream.epoch_timeout; SELECT pg_reload_conf()});

# A view over a failing view waits for its next commit: neither holds back
# the global reads of the other views (any role can make its own view
# fail), and both go on once the cause is gone.
$node->safe_psql('postgres', q{
	CREATE TABLE up_t (id int PRIMARY KEY, v int);
	INSERT INTO up_t VALUES (1, 1);
	CREATE TABLE side_t (id int PRIMARY KEY);
	SELECT hummock_stream.create_materialized_view('v_up', 'SELECT id, 100 / v AS x FROM up_t',
	                                               change_log => true);
	SELECT hummock_stream.create_materialized_view('v_down', 'SELECT count(*) AS n, sum(x) AS s FROM v_up');
	SELECT hummock_stream.create_materialized_view('v_side', 'SELECT count(*) AS n FROM side_t');
});
$node->safe_psql('postgres', 'INSERT INTO up_t VALUES (2, 0)');
ok($node->poll_query_until('postgres', q{
	SELECT state = 'failed' FROM hummock_stream.jobs WHERE name = 'v_up'::regclass}),
	'the upstream view fails');
$node->safe_psql('postgres', q{INSERT INTO side_t VALUES (1)});
my ($ret, $out, $err) = $node->psql('postgres', q{SELECT hummock_stream.wait('v_side', '60 s')});
is($ret, 0, 'wait() for another view returns while a view over the failing one waits') or diag($err);
is($node->safe_psql('postgres', q{SET hummock_stream.query_consistency = 'global'; SELECT n FROM v_side}),
	'1', 'and a global read of it shows the change');
$node->safe_psql('postgres', 'UPDATE up_t SET v = 4 WHERE id = 2');
$node->safe_psql('postgres', "SELECT hummock_stream.wait('v_down', '120 s')");
is($node->safe_psql('postgres', 'SELECT n, s FROM v_down'), '2|125', 'both heal once the cause is gone');

$node->stop;
done_testing();
