# query_consistency = 'global' reads every relation of a statement at one
# epoch, however many versions are published between the starts of its
# scans (also after a function it calls has read a view with a snapshot of
# its own); a REPEATABLE READ transaction reads every relation at one epoch
# for its whole length, those it first reads in a later statement too.
# Two views of one table must then agree: the sum of a count per group and
# the total count.  The reads are held between their scans by an advisory
# lock (the statement) or between statements (the transaction) while rows
# are written and wait() sees them in the views: no timing is involved.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('read_consistency');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 20
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE r (id int PRIMARY KEY, g int);
	INSERT INTO r SELECT i, i % 3 FROM generate_series(1, 100) i;
	SELECT hummock_stream.create_materialized_view('r_groups', 'SELECT g, count(*) AS c FROM r GROUP BY g');
	SELECT hummock_stream.create_materialized_view('r_total', 'SELECT count(*) AS c FROM r');
	SELECT hummock_stream.wait();
});

my $next_id = 1000;

# rows written and seen by both views (a newer version, a newer epoch)
sub write_and_wait
{
	my $from = $next_id;
	$next_id += 10;
	$node->safe_psql('postgres', qq{
		INSERT INTO r SELECT i, i % 3 FROM generate_series($from, $from + 9) i;
		SELECT hummock_stream.wait();
	});
}

# Run statement, whose scans wait for advisory lock 7 between them (a step
# pg_advisory_lock_shared(7)), while $writes rounds of rows are written and
# seen by wait(); returns its output row's columns.
sub read_held
{
	my ($statement, $writes) = @_;
	my $holder = $node->background_psql('postgres');
	$holder->query_safe('SELECT pg_advisory_lock(7)');
	my ($out, $err) = ('', '');
	my $reader = IPC::Run::start(
		[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', $statement ],
		'>', \$out, '2>', \$err);
	$node->poll_query_until('postgres',
		q{SELECT count(*) = 1 FROM pg_locks WHERE locktype = 'advisory' AND NOT granted})
	  or die 'the reader never waited for the lock';
	write_and_wait() for 1 .. $writes;
	$holder->query_safe('SELECT pg_advisory_unlock(7)');
	$reader->finish;
	$holder->quit;
	diag("err: $err") if $err ne '';
	chomp $out;
	return split /\|/, $out;
}

# one statement: r_groups scanned, then held on the lock while rows are
# written and committed in both views, then r_total scanned
{
	my ($groups, undef, $total) = read_held(
		q{SELECT (SELECT sum(c) FROM r_groups), (SELECT 1 FROM pg_advisory_lock_shared(7)),
		         (SELECT c FROM r_total)}, 2);
	ok(defined $total && $groups eq $total,
		"one statement reads both views at one epoch ($groups and $total)");
}

# ... and after a function it calls has read a view with its own snapshot
# (READ COMMITTED: the function's query reads newer rows, as in Postgres),
# the statement's later scans stay at the statement's epoch
{
	$node->safe_psql('postgres', q{
		CREATE FUNCTION total_now() RETURNS bigint VOLATILE LANGUAGE plpgsql
		  AS $$ BEGIN RETURN (SELECT c FROM r_total); END $$});
	my ($groups, undef, $function, $total) = read_held(
		q{SELECT (SELECT sum(c) FROM r_groups), (SELECT 1 FROM pg_advisory_lock_shared(7)),
		         total_now(), (SELECT c FROM r_total)}, 1);
	ok(defined $total && $groups eq $total,
		"a statement's scans after a function's query stay at its epoch ($groups, $total)");
	ok(defined $function && $function == $groups + 10,
		"the function's query reads at its own, newer epoch ($function)");
}

# one REPEATABLE READ transaction: r_groups read first, r_total first read
# after more rows were committed; both at the transaction's one epoch
{
	my $rr = $node->background_psql('postgres');
	$rr->query_safe('BEGIN ISOLATION LEVEL REPEATABLE READ');
	my $before = $rr->query_safe('SELECT sum(c) FROM r_groups');
	write_and_wait();
	my $both = $rr->query_safe(
		q{SELECT (SELECT sum(c) FROM r_groups) || ' ' || (SELECT c FROM r_total)});
	my ($groups, $total) = split / /, $both;
	is($groups, $before, 'the transaction keeps its epoch for a view it read');
	is($total, $before, 'a view first read later in the transaction is read at the same epoch');
	$rr->query_safe('COMMIT');
	is($rr->query_safe(q{SELECT (SELECT sum(c) FROM r_groups) = (SELECT c FROM r_total)}), 't',
		'the next transaction reads both at a newer epoch, consistently');
	$rr->quit;
}

# per_table reads each relation at its own epoch (no promise across them)
is($node->safe_psql('postgres', q{
	SET hummock_stream.query_consistency = per_table;
	SELECT count(*) FROM r_total}), '1', 'per_table reads still work');

$node->stop;
done_testing();
