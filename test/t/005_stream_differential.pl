# Differential test of streaming materialized views: the views of
# test/differential/views.sql are maintained while concurrent pgbench
# clients run random INSERT/UPDATE/DELETE/upserts and rolled-back
# transactions (test/differential/workload.pgbench); after every burst,
# hummock_stream.wait() and then every view must equal its defining query
# run by Postgres (EXCEPT ALL both ways empty; for vt_ views over the rows'
# text, so equal values that print differently, 1.0 and 1.00, differ).  Half the views are created
# before the tables have rows, half after (backfill).  Midway the compute
# workers are terminated while writes run: the views recover and still
# match.  Odd rounds compare with parallel plans (parallel scans of views).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use File::Basename;

my $rounds = 12;
my $dir = dirname(__FILE__) . '/../differential';

my $node = PostgreSQL::Test::Cluster->new('differential');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compaction_interval = 200ms
hummock_stream.compute_workers = 2
max_worker_processes = 32
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	-- (views.sql: vh_ views group text under it)
	CREATE COLLATION diff_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	CREATE TABLE diff_t (id int PRIMARY KEY, grp int, val int, amount numeric,
	                     flag bool, note text, ts timestamptz);
	CREATE TABLE diff_np (grp int, val int);
	CREATE TABLE diff_d (id int PRIMARY KEY, code int, name text, region int,
	                     active bool);
	CREATE TABLE diff_r (region int PRIMARY KEY, rname text);
	CREATE TABLE diff_mk (a int, b int, w int, PRIMARY KEY (a, b));
	CREATE TABLE diff_f (id int PRIMARY KEY, grp int, f8 float8, f4 float4, n numeric);
	-- a Postgres view among the sources (views.sql: vs_pg_view)
	CREATE VIEW diff_t_pos AS SELECT id, grp, val FROM diff_t WHERE val > 0;
	-- an inheritance tree: a child with a column of its own, one whose
	-- columns lie otherwise, and a grandchild (ids repeat across tables)
	CREATE TABLE diff_ih (id int, grp int, val int);
	CREATE TABLE diff_ih_a (extra text) INHERITS (diff_ih);
	CREATE TABLE diff_ih_b (z int, val int, grp int, id int);
	ALTER TABLE diff_ih_b INHERIT diff_ih;
	CREATE TABLE diff_ih_a1 () INHERITS (diff_ih_a);
});
# the functions and aggregates views.sql calls
$node->safe_psql('postgres', PostgreSQL::Test::Utils::slurp_file("$dir/functions.sql"));

my @views;
open(my $fh, '<', "$dir/views.sql") or die "views.sql: $!";
while (my $line = <$fh>)
{
	chomp $line;
	next if $line =~ /^\s*(--|$)/;
	my ($name, $def) = split(/\|/, $line, 2);
	push @views, [ $name, $def ];
}
close $fh;
cmp_ok(scalar(@views), '>=', 40, 'the library has at least 40 views');

sub create_view
{
	my ($name, $def) = @_;
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$name', \$q\$$def\$q\$)");
}

# In odd rounds the comparison runs with parallel plans made as cheap as
# possible, so views (and sources) are read by parallel scans too.
my $parallel_settings = q{
	SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0;
	SET min_parallel_table_scan_size = 0; SET max_parallel_workers_per_gather = 2;};

sub check_all
{
	my ($when, $parallel) = @_;
	my $settings = $parallel ? $parallel_settings : '';
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	my $bad = 0;
	foreach my $v (@views)
	{
		my ($name, $def) = @$v;
		# vt_ views: by the rows' text (equal values that print differently
		# must stay apart); the others by equality (a group of 1.5 and 1.50
		# shows either, as Postgres's does)
		my ($view, $query) = $name =~ /^vt_/
		  ? ("SELECT v::text FROM $name v", "SELECT q::text FROM ($def) q")
		  : ("TABLE $name", $def);
		my $diff = $node->safe_psql('postgres', qq{$settings
			SELECT count(*) FROM (($view EXCEPT ALL ($query))
			          UNION ALL (($query) EXCEPT ALL $view)) d});
		if ($diff ne '0')
		{
			$bad++;
			diag("$when: $name differs from its query in $diff rows");
		}
	}
	is($bad, 0, "$when: every view equals its query"
		  . ($parallel ? ' (parallel plans)' : ''));
}

# half before any rows, half after
my $half = int(@views / 2);
create_view(@{ $views[$_] }) for (0 .. $half - 1);
$node->safe_psql('postgres', q{
	INSERT INTO diff_t
	SELECT g, nullif(g % 11, 0), nullif(g % 37 - 18, 0), nullif(g % 13, 0) * 1.5,
	       CASE g % 3 WHEN 0 THEN NULL WHEN 1 THEN true ELSE false END,
	       CASE WHEN g % 5 = 0 THEN NULL ELSE 'n' || (g % 7) END,
	       timestamptz '2026-01-01' + g * interval '1 hour'
	  FROM generate_series(1, 200) g;
	INSERT INTO diff_np SELECT g % 9, g % 4 FROM generate_series(1, 150) g;
	INSERT INTO diff_d SELECT g, g % 5, 'd' || g, nullif(g % 4, 3), g % 3 <> 0
	  FROM generate_series(1, 14) g;
	INSERT INTO diff_r SELECT g, 'r' || g FROM generate_series(0, 3) g;
	INSERT INTO diff_mk SELECT g % 13, g % 3, g FROM generate_series(1, 30) g
	  ON CONFLICT DO NOTHING;
	INSERT INTO diff_f
	SELECT g, g % 5, v, v, CASE WHEN v = 0 THEN 0 ELSE v::numeric END
	  FROM generate_series(1, 120) g,
	       LATERAL (SELECT CASE g % 17 WHEN 0 THEN float8 'NaN' WHEN 5 THEN float8 'Infinity'
	                  WHEN 9 THEN float8 '-Infinity' WHEN 3 THEN float8 '-0' WHEN 11 THEN NULL
	                  ELSE (g % 41 - 20) / 4.0 END AS v) x;
});
create_view(@{ $views[$_] }) for ($half .. $#views);
check_all('after creation');

my $script = "$dir/workload.pgbench";
for my $round (1 .. $rounds)
{
	if ($round == int($rounds / 2))
	{
		# writes run while the compute workers are killed (the connection
		# string is pgbench's argument: its -d is --debug, whose output
		# fills the pipe that nothing reads until finish, and blocks it)
		my $bench = IPC::Run::start(
			[ 'pgbench', '-n', '-c', '2', '-t', '150', '--max-tries=20',
			  '-f', $script, $node->connstr('postgres') ],
			'>', \my $out, '2>', \my $err);
		# kill the workers once the writes are under way
		my $writes0 = $node->safe_psql('postgres', 'SELECT n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relname = \'diff_t\'');
		$node->poll_query_until('postgres', qq{
			SELECT (SELECT n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables WHERE relname = 'diff_t') > $writes0 + 50})
		  or diag('the writes did not start');
		$node->safe_psql('postgres', q{
			SELECT pg_terminate_backend(pid) FROM hummock_stream.workers
			 WHERE role = 'compute worker' AND pid IS NOT NULL});
		$bench->finish;
		is($bench->result(0), 0, "round $round: pgbench while workers were killed")
		  or diag($err);
	}
	else
	{
		$node->command_ok(
			[ 'pgbench', '-n', '-c', '2', '-t', '100', '--max-tries=20',
			  '-f', $script, $node->connstr('postgres') ],
			"round $round: pgbench");
	}
	check_all("round $round", $round % 2);
}

# every view committed and none is failing
my $failed = $node->safe_psql('postgres',
	"SELECT count(*) FROM hummock_stream.jobs WHERE state <> 'created'");
is($failed, '0', 'every job is created');

# capture logs are trimmed behind the views
$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
my $log_rows_sql = q{
	SELECT sum((xpath('/row/c/text()',
	             query_to_xml(format('SELECT count(*) AS c FROM %s', log_relid::regclass),
	                          false, true, '')))[1]::text::int)
	  FROM hummock_stream.capture_logs};
# the manager trims every second: wait for it, with a deadline
$node->poll_query_until('postgres', "SELECT ($log_rows_sql) < 2000");
my $log_rows = $node->safe_psql('postgres', $log_rows_sql);
cmp_ok($log_rows, '<', 2000, "capture logs are trimmed ($log_rows rows left)");

# dropping views stops their jobs and removes their tables (downstreams
# first: an upstream cannot be dropped while views read it)
foreach my $v (reverse @views)
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.drop_materialized_view('$v->[0]')");
}
is($node->safe_psql('postgres', 'SELECT count(*) FROM hummock_stream.jobs'),
	'0', 'no job left');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM pg_trigger WHERE tgname LIKE 'hummock_stream_capture%'"),
	'0', 'no capture trigger left');

$node->stop;
done_testing();
