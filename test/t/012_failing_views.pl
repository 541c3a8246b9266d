# A failing graph is reset, waits in state 'failed' with a delay that
# doubles after each failure (1 s, 2 s, 4 s, ...), and starts again by
# itself; once it commits again its error goes and its delay starts over.
# Meanwhile other graphs commit at their usual rate (a failing job never
# delays another job's committed epoch), and wait() fails at once on a
# failing view instead of timing out.
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

# commits of graph $g per second over $secs seconds
sub commit_rate
{
	my ($g, $secs) = @_;
	my $c0 = graph($g, 'commits');
	my $t0 = time;
	sleep($secs);
	my $c1 = graph($g, 'commits');
	return ($c1 - $c0) / (time - $t0);
}

# graph 1: a counter on each worker; graph 2: an actor that fails at its
# first barrier, so every retry fails at once
$node->safe_psql('postgres', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param)
	VALUES (1, 'counter', 0), (1, 'counter', 0)});
ok($node->poll_query_until('postgres',
		"SELECT commits > 5 FROM hummock_stream.partial_graphs WHERE graph_id = 1"),
	'graph 1 commits');
my $baseline = commit_rate(1, 3);
diag(sprintf("graph 1 alone: %.1f commits/s", $baseline));

$node->safe_psql('postgres', q{
	INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param) VALUES (2, 'error', 1)});

# Record when each reset of graph 2 is first seen, for 16 s.
my @seen;
my $last = 0;
my $t_start = time;
while (time - $t_start < 16)
{
	my $r = graph(2, 'resets');
	$r = 0 if $r eq '';
	if ($r > $last)
	{
		push @seen, [ $r, time ] for ($last + 1 .. $r);
		$last = $r;
	}
	sleep(0.05);
}
diag('resets of graph 2 seen at: '
	  . join(', ', map { sprintf('%d@%.1fs', $_->[0], $_->[1] - $t_start) } @seen));
# Without backoff it would fail at every barrier: about 150 resets.  With
# 1 + 2 + 4 + 8 s of waiting (plus a barrier or two per attempt), 16 s hold
# 4 or 5 of them.
cmp_ok(scalar(@seen), '>=', 3, 'the failing graph keeps retrying');
cmp_ok(scalar(@seen), '<=', 6, 'it retries with a growing delay, not at barrier rate');
if (@seen >= 4)
{
	my $gap1 = $seen[1][1] - $seen[0][1];
	my $gap3 = $seen[3][1] - $seen[2][1];
	diag(sprintf('gap after the first failure %.1f s, after the third %.1f s', $gap1, $gap3));
	cmp_ok($gap1, '>=', 0.8, 'the first delay is about 1 s');
	cmp_ok($gap3, '>', $gap1 + 1.5, 'the delay doubles');
}
my $during = commit_rate(1, 3);
diag(sprintf("graph 1 while graph 2 fails: %.1f commits/s", $during));
cmp_ok($during, '>', $baseline * 0.7, 'the failing graph does not slow down graph 1');
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

$node->stop;
done_testing();
