# Exactly-once maintenance across crashes: kill -9 the postmaster 20 times
# while pgbench clients write to the sources of streaming views (and once
# while a view is being created); after every restart, once the views catch
# up (hummock_stream.wait()), each view equals its defining query: no
# change was lost or applied twice.  Among the views are chains of views
# over views (three levels, a diamond, a multiset upstream): every level
# resumes from its own committed epoch.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HummockStream::Crash;
use IPC::Run;
use File::Basename;
use Time::HiRes qw(sleep);

my $iterations = 20;
my $dir = dirname(__FILE__) . '/../differential';

my $node = PostgreSQL::Test::Cluster->new('stream_crash');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compaction_interval = 300ms
hummock_stream.compute_workers = 2
max_worker_processes = 32
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	-- (views.sql: vh_ views group text under it)
	CREATE COLLATION diff_ci (provider = icu, locale = 'und-u-ks-level2', deterministic = false);
	CREATE TABLE diff_t (id int PRIMARY KEY, grp int, val int, amount numeric,
	                     flag bool, note text, ts timestamptz);
	CREATE TABLE diff_np (grp int, val int);
	-- the workload writes these too (the recursive views read diff_d and
	-- diff_mk; no view reads the others here)
	CREATE TABLE diff_d (id int PRIMARY KEY, code int, name text, region int,
	                     active bool);
	CREATE TABLE diff_r (region int PRIMARY KEY, rname text);
	CREATE TABLE diff_mk (a int, b int, w int, PRIMARY KEY (a, b));
	CREATE TABLE diff_f (id int PRIMARY KEY, grp int, f8 float8, f4 float4, n numeric);
	CREATE TABLE diff_ih (id int, grp int, val int);
	CREATE TABLE diff_ih_a (extra text) INHERITS (diff_ih);
	CREATE TABLE diff_ih_b (z int, val int, grp int, id int);
	ALTER TABLE diff_ih_b INHERIT diff_ih;
	CREATE TABLE diff_ih_a1 () INHERITS (diff_ih_a);
	INSERT INTO diff_t SELECT g, g % 7, g % 23 - 11, g * 0.5, g % 2 = 0, 'n' || g % 5,
	                          timestamptz '2026-01-01' + g * interval '1 hour'
	  FROM generate_series(1, 100) g;
	INSERT INTO diff_np SELECT g % 9, g % 4 FROM generate_series(1, 100) g;
});
# the functions and aggregates views.sql calls
$node->safe_psql('postgres', PostgreSQL::Test::Utils::slurp_file("$dir/functions.sql"));

# a cross-section of the view library
my %wanted = map { $_ => 1 } qw(v_count_all v_group_stats v_minmax v_filter
  v_having v_distinct v_nopk v_nopk_agg v_global v_moving_filter
  vv_stats_filter vv_stats_agg vv_chain3 vv_diamond vv_nopk_agg vv_nopk_join
  va_array va_filter_mix vs_except_all vs_distinct_on vs_inh_sum vs_inh_join
  vs_q_exists_value vs_win_lag_ranged vs_win_np_ranged vs_win_prefix_ranged
  vs_rec_reach vs_rec_tree vs_rec_const vs_const_calendar vm_msum);
my @views;
open(my $fh, '<', "$dir/views.sql") or die "views.sql: $!";
while (my $line = <$fh>)
{
	chomp $line;
	next if $line =~ /^\s*(--|$)/;
	my ($name, $def) = split(/\|/, $line, 2);
	push @views, [ $name, $def ] if $wanted{$name};
}
close $fh;
foreach my $v (@views)
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$v->[0]', \$q\$$v->[1]\$q\$)");
}

my $mismatches = 0;
my $checks = 0;
for my $i (1 .. $iterations)
{
	my ($out, $err) = ('', '');
	my @bench = ('pgbench', '-n', '-c', '2', '-T', '30', '--max-tries=20',
		'-f', "$dir/workload.pgbench", $node->connstr('postgres'));
	my $h = IPC::Run::start(\@bench, '>', \$out, '2>', \$err);
	my $creating;
	if ($i == int($iterations / 2))
	{
		# a view being created when the crash comes
		$creating = IPC::Run::start(
			[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c',
			  q{SELECT hummock_stream.create_materialized_view('v_late',
			    'SELECT grp, count(*) AS n, sum(val) AS s FROM diff_t GROUP BY grp')} ],
			'>', \my $cout, '2>', \my $cerr);
	}
	sleep(0.3 + rand(1.2));
	my $pm = $node->{_pid};
	$node->kill9;
	$h->finish;
	$creating->finish if $creating;
	restart_after_kill9($node, $pm)
	  or BAIL_OUT('the node did not restart after kill -9');

	$node->safe_psql('postgres', "SELECT hummock_stream.wait(NULL, '60s')");
	my @all = @views;
	push @all, [ 'v_late', 'SELECT grp, count(*) AS n, sum(val) AS s FROM diff_t GROUP BY grp' ]
	  if $node->safe_psql('postgres', "SELECT to_regclass('v_late') IS NOT NULL") eq 't';
	foreach my $v (@all)
	{
		my ($name, $def) = @$v;
		my $diff = $node->safe_psql('postgres', qq{
			SELECT count(*) FROM ((TABLE $name EXCEPT ALL ($def))
			          UNION ALL (($def) EXCEPT ALL TABLE $name)) d});
		$checks++;
		if ($diff ne '0')
		{
			$mismatches++;
			diag("iteration $i: $name differs from its query in $diff rows");
		}
	}
}
is($mismatches, 0, "after $iterations crashes, $checks view checks found no difference");

# a view whose creation was cut by a crash left no job behind
my $orphans = $node->safe_psql('postgres', q{
	SELECT count(*) FROM hummock_stream.stream_jobs j
	 WHERE NOT EXISTS (SELECT FROM pg_class c WHERE c.oid = j.job_id)});
is($orphans, '0', 'no job without its relation');
is($node->safe_psql('postgres',
	"SELECT count(*) FROM hummock_stream.jobs WHERE state <> 'created'"), '0',
	'every job is running');

$node->stop;
done_testing();
