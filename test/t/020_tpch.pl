# The 22 TPC-H queries as streaming views (test/tpch), maintained through
# the refresh functions (RF1: new orders with their line items; RF2: the
# oldest orders deleted) and updates of prices, costs, balances and
# comments that move the queries' subqueries, written by a concurrent
# session while views are dropped and created again; after every round,
# and after an immediate restart, every view equals its query.
use strict;
use warnings;
use File::Basename;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;

my $dir = dirname(__FILE__) . '/../tpch';
my $sf = 0.01;

my $node = PostgreSQL::Test::Cluster->new('tpch');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
max_worker_processes = 32
});
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION hummock_stream');
$node->command_ok(
	[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
	  '-f', "$dir/dbgen.sql" ],
	'the TPC-H schema and generator load');
$node->safe_psql('postgres', qq{
	SELECT tpch_generate($sf);
	-- a writer: the refresh functions and updates, one transaction each
	CREATE PROCEDURE tpch_churn(rounds int, salt int) LANGUAGE plpgsql AS \$\$
	BEGIN
	  FOR i IN 1 .. rounds LOOP
	    PERFORM tpch_rf1($sf);
	    COMMIT;
	    PERFORM tpch_rf2($sf);
	    COMMIT;
	    UPDATE part SET p_retailprice = p_retailprice + 1
	     WHERE p_partkey % 97 = (salt + i) % 97;
	    COMMIT;
	    UPDATE partsupp SET ps_supplycost = ps_supplycost * 0.9, ps_availqty = ps_availqty + 7
	     WHERE ps_partkey % 53 = (salt + i) % 53;
	    COMMIT;
	    UPDATE customer SET c_acctbal = c_acctbal + 250
	     WHERE c_custkey % 31 = (salt + i) % 31;
	    COMMIT;
	    UPDATE supplier SET s_comment = CASE WHEN s_comment LIKE '%Complaints%'
	                                         THEN 'no complaints here'
	                                         ELSE 'Customer says Complaints' END
	     WHERE s_suppkey % 11 = (salt + i) % 11;
	    COMMIT;
	    UPDATE lineitem SET l_quantity = least(l_quantity + 20, 50)
	     WHERE l_orderkey % 89 = (salt + i) % 89 AND l_linenumber = 1;
	    COMMIT;
	  END LOOP;
	END \$\$;
});

my @views;
foreach my $file (sort glob("$dir/queries/q*.sql"))
{
	my ($name) = basename($file) =~ /^(q\d+)\.sql$/;
	open(my $fh, '<', $file) or die "$file: $!";
	local $/;
	my $def = <$fh>;
	close $fh;
	$def =~ s/\s+$//;
	push @views, [ "tpch_$name", $def ];
}
is(scalar(@views), 22, 'the 22 queries');

sub create_view
{
	my ($name, $def) = @_;
	my ($ret, $out, $err) = $node->psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$name', \$q\$$def\$q\$)");
	is($ret, 0, "$name is created") or diag($err);
}

sub check_all
{
	my ($when) = @_;
	$node->safe_psql('postgres', q{SELECT hummock_stream.wait(NULL, '120s')});
	my $bad = 0;
	foreach my $v (@views)
	{
		my ($name, $def) = @$v;
		my $diff = $node->safe_psql('postgres', qq{
			SELECT count(*) FROM ((TABLE $name EXCEPT ALL ($def))
			          UNION ALL (($def) EXCEPT ALL TABLE $name)) d});
		if ($diff ne '0')
		{
			$bad++;
			diag("$when: $name differs from its query in $diff rows");
		}
	}
	is($bad, 0, "$when: every TPC-H view equals its query");
}

create_view(@$_) foreach @views;
check_all('after creation');

# the queries select rows at this scale (an empty view proves little)
my $empty = $node->safe_psql('postgres', join(' UNION ALL ',
	map { "SELECT '$_->[0]' WHERE NOT EXISTS (SELECT FROM $_->[0])" } @views));
is($empty, '', 'every view has rows');

for my $round (1 .. 4)
{
	my ($out, $err) = ('', '');
	my $writer = IPC::Run::start(
		[ 'psql', '-XAtq', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres'),
		  '-c', "CALL tpch_churn(3, $round)" ],
		'>', \$out, '2>', \$err);
	# views dropped and created again while the writer runs
	foreach my $k (0 .. 1)
	{
		my $v = $views[ ($round * 5 + $k * 11) % @views ];
		$node->safe_psql('postgres', "SELECT hummock_stream.drop_materialized_view('$v->[0]')");
		create_view(@$v);
	}
	$writer->finish;
	is($?, 0, "round $round: the writer succeeds") or diag($err);
	check_all("round $round");
}

$node->stop('immediate');
$node->start;
check_all('after an immediate restart');

$node->safe_psql('postgres', 'CALL tpch_churn(2, 9)');
check_all('after writes since the restart');

$node->stop;
done_testing();
