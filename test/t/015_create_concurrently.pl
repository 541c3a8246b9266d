# A streaming view created from autocommit is created by a creator
# background worker, in two transactions (set-up, then backfill).  Each way
# a creation can end early leaves nothing behind, and the view can be
# created again:
#  (a) the caller is canceled while the creator waits for an open writer of
#      the source (another writer meanwhile is not blocked): nothing was
#      committed;
#  (b) the caller is canceled during the backfill: the creator drops the
#      half-created view (LOG), the caller gets 57014;
#  (c) the creator is terminated (pg_terminate_backend) during the
#      backfill: the same, and the caller gets 57P01 saying so;
#  (d) the creator is killed (kill -9) during the backfill: after the
#      crash restart the barrier manager drops the view left 'creating'
#      (LOG), and the source is no longer captured;
#  (e) the caller's backend is killed during the backfill: the same;
#  (f) a creation that runs to the end gives the view its query's rows;
#  (g) hummock_stream.backfill_rate_limit of the creating session holds the
#      backfill (in the creator worker) to that many rows per second;
#  (h) a TRUNCATE queued behind the caller: 40P01 instead of a hang;
#  (i) creations that fail, creations that succeed and drops of the last
#      view of the same source, at once: capture is removed without
#      waiting in the source's lock queue, so none of them deadlocks;
#  (j) DROP DATABASE while a view is created there in the background
#      cancels the creation instead of failing (55006) for its creator.
# The backfill is held open by an IMMUTABLE-declared function of the view's
# query that waits for an advisory lock the test holds.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('create_concurrently');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
max_worker_processes = 16
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE src (id int PRIMARY KEY, v int);
	INSERT INTO src SELECT g, g FROM generate_series(1, 1000) g;
	CREATE FUNCTION gate(x int) RETURNS int IMMUTABLE LANGUAGE plpgsql
		AS $$ BEGIN PERFORM pg_advisory_xact_lock_shared(42); RETURN x; END $$;
});
my $def = 'SELECT id, gate(v) AS v FROM src';

# poll $sql until it returns $want (a deadline, never a fixed sleep)
sub wait_for
{
	my ($sql, $want, $what) = @_;
	my $deadline = time + 180;
	my $got = '';
	while (time < $deadline)
	{
		$got = $node->safe_psql('postgres', $sql);
		return 1 if $got eq $want;
		sleep 0.05;
	}
	diag("$what: still '$got'");
	return 0;
}

sub nothing_left
{
	my ($what) = @_;
	ok(wait_for(q{SELECT count(*) FROM pg_class WHERE relname = 'cv'}, '0',
			"$what: relation"),
		"$what: the view's relation is gone");
	is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.jobs}),
		'0', "$what: no job");
	ok(wait_for(q{SELECT count(*) FROM pg_trigger WHERE tgrelid = 'src'::regclass AND NOT tgisinternal},
			'0', "$what: capture"),
		"$what: the source is no longer captured");
}

# a session holding the gate (the advisory lock), until released
sub hold_gate
{
	my ($in, $out) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$out);
	$in .= "SELECT pg_advisory_lock(42);\n";
	$h->pump until $out =~ /\n/ || !$h->pumpable;
	return { h => $h, in => \$in };
}

sub release
{
	my ($s) = @_;
	${ $s->{in} } .= "\\q\n";
	$s->{h}->finish;
}

# the caller: create_materialized_view in the background, output kept
sub start_create
{
	my ($out, $err) = ('', '');
	my $h = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres'), '-c',
		  "SELECT hummock_stream.create_materialized_view('cv', \$q\$$def\$q\$)" ],
		'>', \$out, '2>', \$err);
	return { h => $h, out => \$out, err => \$err };
}

sub caller_pid
{
	return $node->safe_psql('postgres', q{
		SELECT pid FROM pg_stat_activity
		 WHERE query LIKE '%create_materialized_view%' AND pid <> pg_backend_pid()
		   AND backend_type = 'client backend'});
}

sub creator_pid
{
	return $node->safe_psql('postgres', q{
		SELECT pid FROM pg_stat_activity WHERE backend_type = 'hummock_stream view creator'});
}

my $log_offset;

# (a) cancel while the creator waits for a writer of src (set-up)
{
	my ($in, $out) = ('', '');
	my $writer = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$out);
	$in .= "BEGIN; INSERT INTO src VALUES (5000, 5000); SELECT 'held';\n";
	$writer->pump until $out =~ /held/;
	my $c = start_create();
	ok(wait_for(q{SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		 WHERE a.backend_type = 'hummock_stream view creator' AND NOT l.granted}, '1',
			'(a) creator waiting'),
		'(a) the creator waits for the open writer of the source');
	is($node->safe_psql('postgres', q{SELECT phase FROM hummock_stream.create_progress}),
		'waiting for older transactions', '(a) create_progress shows the phase');
	# and it does not queue other writers behind it meanwhile
	$node->safe_psql('postgres', q{SET lock_timeout = '10s'; INSERT INTO src VALUES (5001, 1)});
	pass('(a) another writer of the source is not blocked by the waiting creation');
	$node->safe_psql('postgres', "SELECT pg_cancel_backend(" . caller_pid() . ")");
	$c->{h}->finish;
	like(${ $c->{err} }, qr/canceling statement due to user request/, '(a) the caller is canceled');
	ok(wait_for(q{SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'hummock_stream view creator'},
			'0', '(a) creator gone'), '(a) the creator is gone');
	$in .= "ROLLBACK;\n\\q\n";
	$writer->finish;
	nothing_left('(a)');
}

# (b) cancel the caller during the backfill
{
	my $gate = hold_gate();
	$log_offset = -s $node->logfile;
	my $c = start_create();
	ok(wait_for(q{SELECT phase FROM hummock_stream.create_progress}, 'backfilling',
			'(b) backfilling'), '(b) the creation reaches the backfill');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.jobs WHERE state = 'creating'}),
		'1', "(b) jobs shows the view 'creating'");
	my ($ret, $stdout, $stderr) = $node->psql('postgres', 'SELECT count(*) FROM cv');
	like($stderr, qr/is being created/, '(b) a read of the view being created is refused');
	$node->safe_psql('postgres', "SELECT pg_cancel_backend(" . caller_pid() . ")");
	$c->{h}->finish;
	like(${ $c->{err} }, qr/canceling statement due to user request/, '(b) the caller is canceled');
	release($gate);
	nothing_left('(b)');
	ok($node->wait_for_log(qr/dropped streaming materialized view "public.cv", whose creation was canceled/,
			$log_offset), '(b) the creator logs the drop');
}

# (c) terminate the creator during the backfill
{
	my $gate = hold_gate();
	$log_offset = -s $node->logfile;
	my $c = start_create();
	ok(wait_for(q{SELECT phase FROM hummock_stream.create_progress}, 'backfilling',
			'(c) backfilling'), '(c) the creation reaches the backfill');
	$node->safe_psql('postgres', "SELECT pg_terminate_backend(" . creator_pid() . ")");
	$c->{h}->finish;
	like(${ $c->{err} }, qr/the creation of streaming materialized view "public.cv" was canceled: its creator was terminated/,
		'(c) the caller is told its creator was terminated');
	release($gate);
	nothing_left('(c)');
	ok($node->wait_for_log(qr/whose creation was canceled/, $log_offset),
		'(c) the creator logs the drop');
}

# (c2) drop the view during the backfill: the caller learns why it stopped
{
	my $gate = hold_gate();
	my $c = start_create();
	ok(wait_for(q{SELECT phase FROM hummock_stream.create_progress}, 'backfilling',
			'(c2) backfilling'), '(c2) the creation reaches the backfill');
	my $dropper = $node->safe_psql('postgres',
		q{SELECT pg_backend_pid() FROM (SELECT hummock_stream.drop_materialized_view('cv')) d});
	$c->{h}->finish;
	like(${ $c->{err} }, qr/streaming materialized view "public.cv" was dropped during its creation/,
		'(c2) the caller is told that a DROP canceled the creation');
	like(${ $c->{err} }, qr/Process $dropper dropped it/, '(c2) naming the process that dropped it');
	release($gate);
	nothing_left('(c2)');
}

# (c3) a wait() for every view, begun while a view is created, does not
# fail when that creation ends without a view (here a DROP): one view fewer
# to wait for
{
	my $gate = hold_gate();
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('cv', \$q\$$def\$q\$, wait => false)");
	ok(wait_for(q{SELECT phase FROM hummock_stream.create_progress}, 'backfilling',
			'(c3) backfilling'), '(c3) the creation reaches the backfill');
	my ($wout, $werr) = ('', '');
	my $waiter = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres'), '-c',
		  q{SELECT 'waited' FROM hummock_stream.wait()} ],
		'>', \$wout, '2>', \$werr);
	ok(wait_for(q{SELECT count(*) FROM pg_stat_activity
		 WHERE query LIKE '%hummock_stream.wait()%' AND pid <> pg_backend_pid()}, '1',
			'(c3) waiter'), '(c3) wait() waits for the creation');
	$node->safe_psql('postgres', q{SELECT hummock_stream.drop_materialized_view('cv')});
	$waiter->finish;
	is($werr, '', '(c3) wait() does not fail');
	like($wout, qr/waited/, '(c3) wait() returns');
	release($gate);
	nothing_left('(c3)');
}

# (d) kill -9 the creator during the backfill, (e) kill -9 the caller
for my $who ('creator', 'caller')
{
	my $part = $who eq 'creator' ? '(d)' : '(e)';
	my $gate = hold_gate();
	my $c = start_create();
	ok(wait_for(q{SELECT phase FROM hummock_stream.create_progress}, 'backfilling',
			"$part backfilling"), "$part the creation reaches the backfill");
	$log_offset = -s $node->logfile;
	my $pid = $who eq 'creator' ? creator_pid() : caller_pid();
	kill 'KILL', $pid;
	$c->{h}->finish;
	$gate->{h}->kill_kill;
	ok($node->wait_for_log(qr/database system is ready to accept connections/, $log_offset),
		"$part the server restarts after the crash");
	ok($node->wait_for_log(qr/dropped streaming materialized view "cv", left half-created/,
			$log_offset), "$part the barrier manager drops the half-created view");
	nothing_left($part);
}

# (f) a creation that runs to the end; writes meanwhile are in the view
{
	my $gate = hold_gate();
	my $c = start_create();
	ok(wait_for(q{SELECT phase FROM hummock_stream.create_progress}, 'backfilling',
			'(f) backfilling'), '(f) the creation reaches the backfill');
	my $t0 = time;
	$node->safe_psql('postgres', q{
		INSERT INTO src VALUES (2001, 1);
		UPDATE src SET v = v * 2 WHERE id <= 100;
		DELETE FROM src WHERE id BETWEEN 900 AND 950});
	my $write_s = time - $t0;
	note(sprintf('writes during the backfill took %.3f s', $write_s));
	is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.create_progress}),
		'1', '(f) the creation is still backfilling after the writes');
	release($gate);
	$c->{h}->finish;
	is(${ $c->{err} }, '', '(f) the creation succeeds');
	$node->safe_psql('postgres', q{SELECT hummock_stream.wait('cv')});
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE cv EXCEPT ALL ($def)) UNION ALL (($def) EXCEPT ALL TABLE cv)) x}),
		'0', '(f) the view equals its query');
	is($node->safe_psql('postgres', q{SELECT state FROM hummock_stream.jobs WHERE name = 'cv'::regclass}),
		'created', "(f) the view is 'created'");
}

# (g) the rate limit: the creator reads at most 400 rows a second, so the
# backfill of src's rows takes at least rows / 400 seconds (a lower bound:
# load only makes it slower), and shows progress while it runs
{
	my $rows = $node->safe_psql('postgres', 'SELECT count(*) FROM src');
	my $t0 = time;
	$node->safe_psql('postgres', q{
		SET hummock_stream.backfill_rate_limit = 400;
		SELECT hummock_stream.create_materialized_view('rv', 'SELECT id, v FROM src', wait => false)});
	ok(wait_for(qq{SELECT count(*) > 0 FROM hummock_stream.create_progress
		 WHERE view = 'rv'::regclass AND phase = 'backfilling' AND rows_read > 0
		   AND rows_read < $rows AND rows_estimate > 0}, 't',
			'(g) progress'), '(g) the throttled backfill shows partial progress');
	$node->safe_psql('postgres', q{SELECT hummock_stream.wait('rv', interval '3 minutes')});
	my $took = time - $t0;
	note(sprintf('(g) %d rows at 400 rows/s took %.2f s', $rows, $took));
	cmp_ok($took, '>=', ($rows - 256) / 400, '(g) the backfill kept to the rate limit');
	is($node->safe_psql('postgres', q{
		SELECT count(*) FROM ((TABLE rv EXCEPT ALL SELECT id, v FROM src) UNION ALL
		                      (SELECT id, v FROM src EXCEPT ALL TABLE rv)) x}),
		'0', '(g) the throttled view equals its query');
	is($node->safe_psql('postgres', q{SHOW hummock_stream.backfill_rate_limit}), '0',
		'(g) the setting defaults to no limit');
}

# (h) a TRUNCATE of the source queued during the creation: the caller holds
# the source's AccessShareLock while it waits for the creator (a latch the
# deadlock detector does not see), the TRUNCATE waits for it, and the
# creator's lock request waits behind the TRUNCATE.  The caller finds the
# cycle (as often as the detector looks) and fails with 40P01; the
# TRUNCATE goes on, and nothing of the view is left.
{
	my ($in, $out) = ('', '');
	my $writer = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres') ],
		'<', \$in, '>', \$out, '2>', \$out);
	$in .= "BEGIN; INSERT INTO src VALUES (7000, 7000); SELECT 'held';\n";
	$writer->pump until $out =~ /held/;
	my ($cout, $cerr) = ('', '');
	my $create = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres'), '-c',
		  q{SELECT hummock_stream.create_materialized_view('dv', 'SELECT count(*) AS n FROM src')} ],
		'>', \$cout, '2>', \$cerr);
	my $c = { h => $create, err => \$cerr };
	ok(wait_for(q{SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a USING (pid)
		 WHERE a.backend_type = 'hummock_stream view creator' AND NOT l.granted}, '1',
			'(h) creator waiting'),
		'(h) the creator waits for the open writer of the source');
	my $tout = '';
	my $trunc = IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres'), '-c', 'TRUNCATE src' ],
		'>', \$tout, '2>', \$tout);
	ok(wait_for(q{SELECT count(*) FROM pg_stat_activity
		 WHERE query = 'TRUNCATE src' AND wait_event_type = 'Lock'}, '1', '(h) truncate waiting'),
		'(h) the TRUNCATE waits for the caller');
	$in .= "COMMIT;\n\\q\n";
	$writer->finish;
	$c->{h}->finish;
	like(${ $c->{err} }, qr/deadlock detected while creating streaming materialized view "dv"/,
		'(h) the creation fails with a deadlock error instead of waiting for ever');
	$trunc->finish;
	is($node->safe_psql('postgres', 'SELECT count(*) FROM src'), '0', '(h) the TRUNCATE went through');
	ok(wait_for(q{SELECT count(*) FROM pg_class WHERE relname = 'dv'}, '0', '(h) relation'),
		"(h) the view's relation is gone");
}

# (i) Two sessions, each in a loop over the same source with no other view:
# one creates a view whose backfill fails (division by zero), the other
# creates a view and drops it.  A failed creation's creator and a drop of
# the last view both stop capturing the source, which needs its
# AccessExclusiveLock while the other session's caller holds its
# AccessShareLock waiting for its creator: queued for it, their lock
# requests held the next creator behind them (a cycle through the caller's
# latch, 40P01 in about one creation of ten).  Removal now asks for the
# lock without queueing and leaves the capture to the barrier manager when
# it stays busy.
{
	$node->safe_psql('postgres', q{
		CREATE TABLE isrc (id int PRIMARY KEY, g int, v int);
		INSERT INTO isrc SELECT i, i % 10, i % 7 FROM generate_series(1, 100000) i;
	});
	my $rounds = 20;
	my @loops;
	for my $kind ('fail', 'ok')
	{
		my $script = '';
		for my $i (1 .. $rounds)
		{
			$script .= $kind eq 'fail'
			  ? "SELECT hummock_stream.create_materialized_view('if_$i', 'SELECT g, sum(1 / v) AS s FROM isrc GROUP BY g');\n"
			  : "SELECT hummock_stream.create_materialized_view('io_$i', 'SELECT g, count(*) AS n FROM isrc GROUP BY g');\n"
			  . "SELECT hummock_stream.drop_materialized_view('io_$i');\n";
		}
		my ($out, $err) = ('', '');
		push @loops, { kind => $kind, out => \$out, err => \$err,
			h => IPC::Run::start(
				[ 'psql', '-X', '-qAt', '-d', $node->connstr('postgres') ],
				'<', \$script, '>', \$out, '2>', \$err) };
	}
	$_->{h}->finish for @loops;
	my ($fail, $ok) = @loops;
	my @fail_errors = ${ $fail->{err} } =~ /ERROR:\s+(.*)/g;
	is(scalar(grep { $_ ne 'division by zero' } @fail_errors), 0,
		'(i) each failing creation fails with its own error, never a deadlock')
	  or diag(${ $fail->{err} });
	is(scalar(@fail_errors), $rounds, '(i) every failing creation failed');
	is(join("\n", ${ $ok->{err} } =~ /ERROR:.*/g), '', '(i) every other creation and drop succeeded')
	  or diag(${ $ok->{err} });
	ok(wait_for(q{SELECT count(*) FROM pg_trigger WHERE tgrelid = 'isrc'::regclass AND NOT tgisinternal},
			'0', '(i) capture'),
		'(i) with no view left, the source is no longer captured');
	is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.capture_logs
		WHERE relid = 'isrc'::regclass}), '0', '(i) and its capture log is gone');
}

# (j) a creation with wait => false runs on in its creator (held back by
# the rate limit); DROP DATABASE cancels it rather than waiting for it
{
	$node->safe_psql('postgres', 'CREATE DATABASE dropped_during');
	$node->safe_psql('dropped_during', q{
		CREATE EXTENSION hummock_stream;
		CREATE TABLE jt (id int PRIMARY KEY, v int);
		INSERT INTO jt SELECT g, g FROM generate_series(1, 20000) g;
		SET hummock_stream.backfill_rate_limit = 1000;
		SELECT hummock_stream.create_materialized_view('jv', 'SELECT id, v FROM jt', wait => false);
	});
	ok(wait_for(q{SELECT count(*) FROM pg_stat_activity
		 WHERE backend_type = 'hummock_stream view creator' AND datname = 'dropped_during'}, '1',
			'(j) creator'),
		'(j) the creation runs in its creator');
	my ($ret, $out, $err) = $node->psql('postgres', 'DROP DATABASE dropped_during');
	is($ret, 0, '(j) DROP DATABASE succeeds during the creation') or diag($err);
	is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_database WHERE datname = 'dropped_during'}),
		'0', '(j) the database is gone');
}

# (k) a creation in a transaction block commits its view's data when the
# transaction commits: while it stays open the other views go on.  So does
# a drop in a transaction block (it removes the view's tables at its
# pre-commit; meanwhile the view's commits are held back and its epoch
# holds back no global read): rolled back, the view goes on as before;
# committed, it is gone, with the barrier manager still running.
{
	$node->safe_psql('postgres', q{
		CREATE TABLE held (id int PRIMARY KEY, v int);
		CREATE TABLE other (id int PRIMARY KEY);
		SELECT hummock_stream.create_materialized_view('other_count', 'SELECT count(*) AS n FROM other');
		SELECT hummock_stream.create_materialized_view('doomed', 'SELECT count(*) AS n FROM held');
	});
	my $holder = $node->background_psql('postgres');
	$holder->query_safe(q{BEGIN});
	$holder->query_safe(q{SELECT hummock_stream.create_materialized_view('held_count', 'SELECT count(*) AS n FROM held')});
	is($holder->query_safe(q{SELECT n FROM held_count}), '0', '(k) the transaction reads the view it created');
	$node->safe_psql('postgres', q{INSERT INTO other VALUES (1); SELECT hummock_stream.wait('other_count', '60s')});
	is($node->safe_psql('postgres', 'SELECT n FROM other_count'), '1',
		'(k) the other views go on while the creating transaction is open');
	$holder->query_safe(q{COMMIT});
	$node->safe_psql('postgres', q{INSERT INTO held VALUES (1, 1); SELECT hummock_stream.wait('held_count', '60s')});
	is($node->safe_psql('postgres', 'SELECT n FROM held_count'), '1', '(k) and the view is maintained once it commits');

	my $manager = $node->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity
		WHERE backend_type = 'hummock_stream barrier manager' AND datname = 'postgres'});
	$holder->query_safe(q{BEGIN});
	$holder->query_safe(q{DROP MATERIALIZED VIEW doomed});
	$node->safe_psql('postgres', q{INSERT INTO held VALUES (2, 2)});
	my ($ret, $out, $err) = $node->psql('postgres',
		q{INSERT INTO other VALUES (2); SELECT hummock_stream.wait('other_count', '60s')});
	is($ret, 0, '(k) the other views go on while a transaction that dropped a view is open') or diag($err);
	is($node->safe_psql('postgres', 'SELECT n FROM other_count'), '2', '(k) the other view is current');
	is($node->safe_psql('postgres', q{SET hummock_stream.query_consistency = 'global'; SELECT n FROM other_count}),
		'2', '(k) the view being dropped holds back no global read');
	my $pid = $holder->query_safe(q{SELECT pg_backend_pid()});
	chomp $pid;
	($ret, $out, $err) = $node->psql('postgres', q{SELECT hummock_stream.wait(NULL, '1s')});
	like($err, qr/timed out.*Process $pid holds view "doomed" in an open transaction/s,
		"(k) a wait() for every view, the one being dropped too, names the transaction that holds it");
	$holder->query_safe(q{ROLLBACK});
	$node->safe_psql('postgres', q{INSERT INTO held VALUES (3, 3); SELECT hummock_stream.wait('doomed', '60s')});
	is($node->safe_psql('postgres', 'SELECT n FROM doomed'), '3',
		'(k) a drop rolled back: the view goes on with every change');

	$holder->query_safe(q{BEGIN});
	$holder->query_safe(q{SELECT hummock_stream.drop_materialized_view('doomed')});
	$node->safe_psql('postgres', q{INSERT INTO held VALUES (4, 4); INSERT INTO other VALUES (3);
		SELECT hummock_stream.wait('other_count', '60s')});
	is($node->safe_psql('postgres', 'SELECT n FROM other_count'), '3',
		'(k) drop_materialized_view() in an open transaction stops no other view');
	$holder->query_safe(q{COMMIT});
	$holder->quit;
	is($node->safe_psql('postgres', q{SELECT count(*) FROM pg_class WHERE relname = 'doomed'}), '0',
		'(k) the drop committed: the view is gone');
	$node->safe_psql('postgres', q{INSERT INTO held VALUES (5, 5); INSERT INTO other VALUES (4);
		SELECT hummock_stream.wait(NULL, '60s')});
	is($node->safe_psql('postgres', 'SELECT n FROM held_count'), '5', '(k) and the views go on after it');
	is($node->safe_psql('postgres', 'SELECT n FROM other_count'), '4', '(k) every one of them');
	is($node->safe_psql('postgres', q{SELECT pid FROM pg_stat_activity
		WHERE backend_type = 'hummock_stream barrier manager' AND datname = 'postgres'}),
		$manager, '(k) with the same barrier manager');
}

$node->stop;
done_testing();
