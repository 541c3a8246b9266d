# Temporal filters through writes and a crash: views whose rows enter and
# leave as time passes (ts > now() - 2 s, ts <= now(), a grouped count
# over a 3-second window, the rows of the current second, the groups
# written in the last 2 seconds, the rows of one kind or recent ones of
# others: a temporal filter under OR) while a writer inserts rows around the
# current time, moves and deletes them; the postmaster is killed with -9
# midway.
# After the restart and more writes, each view read at its committed
# epoch equals its query run with now() = that epoch's time, and once
# time has passed every row's bound the windows empty with no write.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HummockStream::Crash;
use IPC::Run;

my $node = PostgreSQL::Test::Cluster->new('temporal');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 2
max_worker_processes = 16
});
$node->start;

my %views = (
	recent => q{SELECT id, kind, ts FROM ev WHERE ts > now() - interval '2 seconds'},
	past => q{SELECT id FROM ev WHERE ts <= now()},
	window_counts => q{SELECT kind, count(*) AS n FROM ev
	                    WHERE ts BETWEEN now() - interval '3 seconds' AND now() GROUP BY kind},
	# an equality: the rows of the current second (two bounds)
	this_second => q{SELECT kind, count(*) AS n FROM ev
	                  WHERE date_trunc('second', ts) = date_trunc('second', now()) GROUP BY kind},
	# in HAVING: the kinds written in the last 2 seconds
	active_kinds => q{SELECT kind, count(*) AS n FROM ev GROUP BY kind
	                   HAVING max(ts) > now() - interval '2 seconds'},
	# under OR: kind 3 stays whatever the time, the others for 2 seconds
	kind3_or_recent => q{SELECT id, kind FROM ev
	                      WHERE kind = 3 OR (kind > 1 AND ts > now() - interval '2 seconds')},
	# comparisons as values: the rows move between the halves of a split
	recent_counts => q{SELECT kind, count(*) AS n,
	                          count(*) FILTER (WHERE ts > now() - interval '2 seconds') AS recent
	                     FROM ev GROUP BY kind},
	age_label => q{SELECT id, CASE WHEN ts <= now() THEN 'past' ELSE 'future' END AS age FROM ev},
);

$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE ev (id int PRIMARY KEY, kind int, ts timestamptz);
	-- a writer: rows from 4 s ago to 4 s ahead, moved and deleted
	CREATE PROCEDURE churn(n int, base int) LANGUAGE plpgsql AS $$
	BEGIN
	  FOR i IN 1 .. n LOOP
	    INSERT INTO ev VALUES (base + i, i % 5,
	                           clock_timestamp() + ((i * 37) % 80 - 40) * interval '100 ms');
	    IF i % 3 = 0 THEN
	      UPDATE ev SET ts = clock_timestamp() + interval '1 second' WHERE id = base + i - 2;
	    END IF;
	    IF i % 7 = 0 THEN
	      DELETE FROM ev WHERE id = base + i - 5;
	    END IF;
	    COMMIT;
	  END LOOP;
	END $$;
	-- a view read at its committed epoch against its query at that time
	CREATE FUNCTION temporal_differs(v regclass, query text) RETURNS bigint
	LANGUAGE plpgsql AS $$
	DECLARE
	  e bigint;
	  q text;
	  n bigint;
	BEGIN
	  SELECT committed_epoch INTO e FROM hummock_stream.committed_epochs() WHERE relation = v;
	  q := replace(query, 'now()',
	               quote_literal(hummock_stream.epoch_to_timestamp(e)) || '::timestamptz');
	  PERFORM set_config('hummock_stream.query_epoch', e::text, true);
	  EXECUTE format('SELECT count(*) FROM ((TABLE %s EXCEPT ALL (%s)) UNION ALL ((%s) EXCEPT ALL TABLE %s)) d',
	                 v, q, q, v) INTO n;
	  PERFORM set_config('hummock_stream.query_epoch', '0', true);
	  RETURN n;
	END $$;
	CALL churn(200, 0);
});
foreach my $v (sort keys %views)
{
	$node->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$v', \$q\$$views{$v}\$q\$)");
}

sub check_all
{
	my ($when) = @_;
	$node->safe_psql('postgres', q{SELECT hummock_stream.wait(NULL, '60s')});
	foreach my $v (sort keys %views)
	{
		is($node->safe_psql('postgres', "SELECT temporal_differs('$v', \$q\$$views{$v}\$q\$)"),
			'0', "$when: $v equals its query at its epoch's time");
	}
}
check_all('after creation');

# a crash while the writer runs
my ($out, $err) = ('', '');
my $writer = IPC::Run::start(
	[ 'psql', '-XAtq', '-d', $node->connstr('postgres'), '-c', 'CALL churn(100000, 1000)' ],
	'>', \$out, '2>', \$err);
$node->poll_query_until('postgres', 'SELECT count(*) > 1500 FROM ev')
  or die 'the writer did not start';
my $pm = $node->{_pid};
$node->kill9;
$writer->finish;
ok(restart_after_kill9($node, $pm), 'restarted after kill -9');
check_all('after the crash');

$node->safe_psql('postgres', 'CALL churn(300, 200000)');
check_all('after writes since the restart');

# no more writes: once every row's time is 3 s past, the windows are empty
ok($node->poll_query_until('postgres', qq{
	SELECT NOT EXISTS (SELECT FROM recent) AND NOT EXISTS (SELECT FROM window_counts)
	   AND NOT EXISTS (SELECT FROM this_second) AND NOT EXISTS (SELECT FROM active_kinds)
	   AND (SELECT count(*) FROM past) = (SELECT count(*) FROM ev)
	   AND (SELECT count(*) FROM kind3_or_recent) = (SELECT count(*) FROM ev WHERE kind = 3)
	   AND NOT EXISTS (SELECT FROM recent_counts WHERE recent > 0)
	   AND NOT EXISTS (SELECT FROM age_label WHERE age = 'future')}),
	'the windows empty and every row is past, with no write');
check_all('after time passed');

$node->stop;
done_testing();
