# Partial recovery between views over views (the test module's
# fail_view() makes a chosen view's job fail at its next epochs):
#  (a) a failing view never delays views not connected to it;
#  (b) a failing downstream never delays its upstream's commits;
#  (c) a failing upstream delays its downstreams but never resets them:
#      they resume from their own committed epoch when it recovers;
#  (d) a view that fails again and again backs off and shows 'failed',
#      its error and its failures in hummock_stream.jobs;
#  (e) a view whose input raised an error heals by itself once the
#      offending row is gone (its retry replays the net change), and its
#      downstream follows; CALL hummock_stream.rebuild(view) computes it
#      again in place;
#  (f) drop_materialized_view of a failing view works at once;
#  (g) a view whose recorded state layout this version's plan does not
#      keep fails at load (not misreading its state) until rebuild().
# Every view equals its query at the end of each part.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('view_recovery');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
max_worker_processes = 16
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE EXTENSION hummock_stream_test;
	CREATE TABLE t (id int PRIMARY KEY, g int, v int);
	INSERT INTO t SELECT i, i % 10, i FROM generate_series(1, 200) i;
	CREATE TABLE other (id int PRIMARY KEY, v int);
	INSERT INTO other SELECT i, i FROM generate_series(1, 50) i;
	CREATE TABLE d (id int PRIMARY KEY, x int);
	INSERT INTO d SELECT i, i FROM generate_series(1, 20) i;
});
my %views = (
	up    => 'SELECT g, count(*) AS n, sum(v) AS s FROM t GROUP BY g',
	down  => 'SELECT g, s FROM up WHERE n > 0',
	down2 => 'SELECT count(*) AS groups, sum(s) AS s FROM down',
	apart => 'SELECT count(*) AS n, sum(v) AS s FROM other',
	inv   => 'SELECT id, 1000 / x AS q FROM d',
	inv_sum => 'SELECT count(*) AS n, sum(q) AS s FROM inv',
	doomed => 'SELECT id FROM other WHERE v > 10');
for my $v (qw(up down down2 apart inv inv_sum doomed))
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$v', \$q\$$views{$v}\$q\$)");
}

sub graph
{
	my ($v, $col) = @_;
	return $node->safe_psql('postgres',
		"SELECT $col FROM hummock_stream.partial_graphs WHERE graph_id = '$v'::regclass::oid");
}

sub state_of
{
	my ($v) = @_;
	return $node->safe_psql('postgres',
		"SELECT state || coalesce(': ' || last_error, '') FROM hummock_stream.jobs WHERE name = '$v'::regclass");
}

sub differs
{
	my ($v) = @_;
	my $def = $views{$v};
	return $node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE $v EXCEPT ALL ($def)) UNION ALL (($def) EXCEPT ALL TABLE $v)) x});
}

# wait for the views to catch up and compare each with its query
sub all_equal
{
	my ($when, @names) = @_;
	$node->safe_psql('postgres', "SELECT hummock_stream.wait(NULL, '3min')");
	my @bad = grep { differs($_) ne '0' } @names;
	is(scalar(@bad), 0, "$when: every view equals its query") or diag("differ: @bad");
}

# Poll until view $v has committed $n more times and $cond (a boolean
# query) holds as well: the order of events, with the harness's deadline;
# what one view's failures cost the others is a matter for benchmarks.
sub gains_commits
{
	my ($v, $n, $cond) = @_;
	my $c0 = graph($v, 'commits');
	return $node->poll_query_until('postgres',
		"SELECT (SELECT commits >= $c0 + $n FROM hummock_stream.partial_graphs
		          WHERE graph_id = '$v'::regclass::oid) AND ($cond)");
}

all_equal('after creation', keys %views);

# ---------------------------------------------------------------------
# (b) a failing downstream never delays its upstream
# ---------------------------------------------------------------------
my $up_resets0 = graph('up', 'resets');
$node->safe_psql('postgres', "SELECT hummock_stream_test.fail_view('down', 1000000)");
ok($node->poll_query_until('postgres',
		q{SELECT state = 'failed' AND last_error LIKE 'injected fault%' FROM hummock_stream.jobs WHERE name = 'down'::regclass}),
	'(b) the downstream fails');
# (it fails until told otherwise: it commits nothing meanwhile)
my $down_commits = graph('down', 'commits');
$node->safe_psql('postgres', 'UPDATE t SET v = v + 1 WHERE id % 7 = 0');
ok(gains_commits('up', 20, "SELECT commits = $down_commits FROM hummock_stream.partial_graphs
                             WHERE graph_id = 'down'::regclass::oid"),
	'(b) the upstream keeps committing while its downstream fails');
is(graph('up', 'resets'), $up_resets0, '(b) the upstream is never reset');
is(state_of('up'), 'created', '(b) the upstream stays created');
like(state_of('down2'), qr/^created/, "(b) the downstream's downstream waits without failing");
# (d) failures show, and they back off
my $failures = $node->safe_psql('postgres',
	q{SELECT failures FROM hummock_stream.jobs WHERE name = 'down'::regclass});
cmp_ok($failures, '>=', 1, "(d) jobs counts the downstream's failures ($failures)");
my $resets = graph('down', 'resets');
cmp_ok($resets, '<', 10, "(d) it backs off: $resets resets (at 100 ms barriers, without backoff one a barrier)");
$node->safe_psql('postgres', "SELECT hummock_stream_test.fail_view('down', 0)");
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'down'::regclass}, 't'),
	'(b) the downstream recovers once it no longer fails');
all_equal('(b) after the downstream recovered', qw(up down down2));

# ---------------------------------------------------------------------
# (c) a failing upstream delays its downstreams but never resets them;
# (a) an unconnected view keeps committing
# ---------------------------------------------------------------------
my $down_resets0 = graph('down', 'resets');
my $down2_resets0 = graph('down2', 'resets');
$node->safe_psql('postgres', "SELECT hummock_stream_test.fail_view('up', 3)");
$node->safe_psql('postgres', 'INSERT INTO t SELECT i, i % 10, 7 FROM generate_series(2000, 2050) i');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'failed' FROM hummock_stream.jobs WHERE name = 'up'::regclass}),
	'(c) the upstream fails');
# Its three failures in a row take at least 1 + 2 s of backoff, during
# which the unconnected view commits (at 100 ms barriers, dozens of times)
my $apart_commits = graph('apart', 'commits');
like(state_of('down'), qr/^created/, '(c) the downstream waits, it does not fail');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'up'::regclass}),
	'(c) the upstream recovers after its three failures');
cmp_ok(graph('apart', 'commits'), '>', $apart_commits + 3,
	'(a) a view not connected to the failing one kept committing meanwhile');
all_equal('(c) after the upstream recovered', qw(up down down2 apart));
is(graph('down', 'resets'), $down_resets0, '(c) the downstream was never reset');
is(graph('down2', 'resets'), $down2_resets0, "(c) nor the downstream's downstream");

# ---------------------------------------------------------------------
# (e) a data error heals once the row is gone; its downstream follows
# ---------------------------------------------------------------------
$node->safe_psql('postgres', 'INSERT INTO d VALUES (100, 0)');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'failed' AND last_error = 'division by zero' FROM hummock_stream.jobs WHERE name = 'inv'::regclass}),
	'(e) a division by zero fails the view');
$node->safe_psql('postgres', 'DELETE FROM d WHERE id = 100; UPDATE d SET x = x + 1 WHERE id <= 5');
# the retry replays the net change since its last commit, where the row's
# insert and delete cancel
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'inv'::regclass}),
	'(e) the view heals by itself once the row is gone');
all_equal('(e) after healing', qw(inv inv_sum));
# rebuild() computes it again in place all the same
my ($rc, $out, $err) = $node->psql('postgres', q{CALL hummock_stream.rebuild('inv')});
is($rc, 0, '(e) rebuild() succeeds') or diag($err);
like($err, qr/was rebuilt at epoch/, '(e) rebuild() says so');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'inv'::regclass}),
	'(e) the view is created again');
$node->safe_psql('postgres', 'INSERT INTO d VALUES (101, 7)');
all_equal('(e) after the rebuild', qw(inv inv_sum));
($rc, $out, $err) = $node->psql('postgres', q{BEGIN; CALL hummock_stream.rebuild('inv'); COMMIT;});
like($err, qr/cannot run inside a transaction block/, '(e) rebuild() refuses a transaction block');

# ---------------------------------------------------------------------
# (f) a failing view drops at once
# ---------------------------------------------------------------------
$node->safe_psql('postgres', "SELECT hummock_stream_test.fail_view('doomed', 1000000)");
$node->safe_psql('postgres', 'UPDATE other SET v = v + 1');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'failed' FROM hummock_stream.jobs WHERE name = 'doomed'::regclass}),
	'(f) the view fails');
my $t0 = time;
$node->safe_psql('postgres', q{SELECT hummock_stream.drop_materialized_view('doomed')});
diag(sprintf('(f) drop of a failing view took %.3f s', time - $t0));
is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.jobs WHERE name::text = 'doomed'}),
	'0', '(f) drop_materialized_view of a failing view works');
delete $views{doomed};

# ---------------------------------------------------------------------
# (g) a view whose state another version planned in another layout (its
# recorded state table roles say so, as after an upgrade that plans its
# query otherwise) fails at load instead of misreading its state, and
# rebuild() recomputes it with this version's plan
# ---------------------------------------------------------------------
my $roles = $node->safe_psql('postgres',
	q{SELECT state_table_roles::text FROM hummock_stream.stream_jobs WHERE job_id = 'apart'::regclass});
$node->safe_psql('postgres', q{
	UPDATE hummock_stream.stream_jobs SET state_table_roles[1] = 'an older layout'
	 WHERE job_id = 'apart'::regclass});
$node->restart;
$node->safe_psql('postgres', 'UPDATE other SET v = v + 1 WHERE id <= 10');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'failed' AND last_error LIKE '%planned differently%' FROM hummock_stream.jobs WHERE name = 'apart'::regclass}),
	'(g) a view planned in another layout fails at load') or diag(state_of('apart'));
$node->safe_psql('postgres', "SELECT hummock_stream.wait('$_', '3min')") for qw(down2 inv_sum);
is(join(',', map { differs($_) } qw(up down down2 inv inv_sum)), '0,0,0,0,0',
	'(g) the other views go on');
($rc, $out, $err) = $node->psql('postgres', q{CALL hummock_stream.rebuild('apart')});
is($rc, 0, '(g) rebuild() succeeds') or diag($err);
is($node->safe_psql('postgres',
		q{SELECT state_table_roles::text FROM hummock_stream.stream_jobs WHERE job_id = 'apart'::regclass}),
	$roles, '(g) rebuild() records its plan');
$node->restart;
$node->safe_psql('postgres', 'UPDATE other SET v = v + 1 WHERE id <= 20');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'apart'::regclass}),
	'(g) and it runs after a restart');
all_equal('the end', keys %views);

# (h) a rebuild that ends without finishing (a cancel, a crash) leaves the
# view 'rebuilding': the barrier manager resumes it from its state before
# the rebuild, and the views go on (before, it stayed so for good, and
# held back every view's global reads)
$node->safe_psql('postgres', q{
	CREATE TABLE slow_src (id int PRIMARY KEY, v int);
	INSERT INTO slow_src SELECT g, g FROM generate_series(1, 40) g;
	CREATE FUNCTION slow_id(int) RETURNS int IMMUTABLE LANGUAGE plpgsql
	  AS $$BEGIN PERFORM pg_sleep(0.05); RETURN $1; END$$;
	SELECT hummock_stream.create_materialized_view('slow_v', 'SELECT id, public.slow_id(v) AS v FROM slow_src');
});
$views{slow_v} = 'SELECT id, v FROM slow_src';
($rc, $out, $err) = $node->psql('postgres',
	q{SET statement_timeout = '500ms'; CALL hummock_stream.rebuild('slow_v')});
like($err, qr/canceling statement due to statement timeout/, '(h) a rebuild is canceled');
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'slow_v'::regclass}),
	'(h) the view left rebuilding is resumed') or diag(state_of('slow_v'));
ok($node->log_contains(qr/resumes streaming materialized view "slow_v", left rebuilding/),
	'(h) with a LOG line');
$node->safe_psql('postgres', 'UPDATE slow_src SET v = v + 1 WHERE id <= 3');
all_equal('(h) after the canceled rebuild', keys %views);

my $rebuilder = $node->background_psql('postgres');
my $pid = $rebuilder->query_safe('SELECT pg_backend_pid()');
chomp $pid;
$rebuilder->query_until(qr/started/, q{
	\echo started
	CALL hummock_stream.rebuild('slow_v');
});
ok($node->poll_query_until('postgres',
		q{SELECT state = 'rebuilding' FROM hummock_stream.jobs WHERE name = 'slow_v'::regclass}),
	'(h) another rebuild runs');
kill 'KILL', $pid;
eval { $rebuilder->quit };
ok($node->poll_query_until('postgres',
		q{SELECT state = 'created' FROM hummock_stream.jobs WHERE name = 'slow_v'::regclass}),
	'(h) after a crash during a rebuild the view is resumed') or diag(state_of('slow_v'));
$node->safe_psql('postgres', 'UPDATE slow_src SET v = v + 1 WHERE id <= 5');
all_equal('(h) after the crash', keys %views);

$node->stop;
done_testing();
