# Extension updates and the monitoring they bring: version 0.1 is
# installed from its own script, views are created and written to, then
# ALTER EXTENSION hummock_stream UPDATE brings it to the default version
# while a writer keeps inserting.  The views keep being maintained (equal
# to their queries), the updated extension has exactly the objects of a
# new installation (pg_describe_object of every member but the capture
# logs of sources, the definitions of its views and functions, privileges), and it survives a restart.  Then the slow-epoch
# LOG line (hummock_stream.log_min_epoch_duration) and job_stats.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $node = PostgreSQL::Test::Cluster->new('update');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
max_worker_processes = 16
});
$node->start;

my %views = (
	per_kind => q{SELECT kind, count(*) AS n, sum(v) AS total FROM t GROUP BY kind},
	top_kinds => q{SELECT kind, n FROM per_kind WHERE n > 10},
);

# a view equals its query (run by Postgres over the same tables)
sub views_equal
{
	my ($db) = @_;
	$node->safe_psql($db, 'SELECT hummock_stream.wait()');
	for my $v (sort keys %views)
	{
		my $diff = $node->safe_psql($db, qq{
			SELECT count(*) FROM ((TABLE $v EXCEPT ALL ($views{$v}))
			                UNION ALL (($views{$v}) EXCEPT ALL TABLE $v)) d});
		return "$v differs in $diff rows" if $diff ne '0';
	}
	return 'equal';
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream VERSION '0.1';
	CREATE TABLE t (id int PRIMARY KEY, kind int, v int);
	INSERT INTO t SELECT i, i % 7, i FROM generate_series(1, 1000) i;
	CREATE PROCEDURE write_rows(first int, n int) LANGUAGE plpgsql AS $$
	BEGIN
	  FOR i IN first .. first + n - 1 LOOP
	    INSERT INTO t VALUES (i, i % 7, i);
	    UPDATE t SET v = v + 1 WHERE id = i - 500;
	    COMMIT;
	  END LOOP;
	END $$;
});
is($node->safe_psql('postgres',
	q{SELECT extversion FROM pg_extension WHERE extname = 'hummock_stream'}),
	'0.1', 'version 0.1 installed from its script');
is($node->safe_psql('postgres', q{SELECT to_regclass('hummock_stream.job_stats')}),
	'', '0.1 has no job_stats');
$node->safe_psql('postgres',
	"CREATE MATERIALIZED VIEW per_kind USING hummock AS $views{per_kind}");
$node->safe_psql('postgres',
	"SELECT hummock_stream.create_materialized_view('top_kinds', \$q\$$views{top_kinds}\$q\$)");
$node->safe_psql('postgres', 'CALL write_rows(1001, 200)');
is(views_equal('postgres'), 'equal', 'views under 0.1 equal their queries');

# update while a writer runs
my $writer = $node->background_psql('postgres');
$writer->query_until(qr/started/, q{
	\echo started
	CALL write_rows(2001, 1000);
});
$node->safe_psql('postgres', 'ALTER EXTENSION hummock_stream UPDATE');
is($node->safe_psql('postgres',
	q{SELECT extversion FROM pg_extension WHERE extname = 'hummock_stream'}),
	$node->safe_psql('postgres',
		q{SELECT default_version FROM pg_available_extensions WHERE name = 'hummock_stream'}),
	'updated to the default version');
$writer->quit;
is(views_equal('postgres'), 'equal', 'views equal their queries after the update and the writes');
$node->safe_psql('postgres', 'CALL write_rows(3001, 100)');
is(views_equal('postgres'), 'equal', 'and after more writes');

# the updated extension is a new installation's, object by object
my $objects = q{
	SELECT string_agg(pg_describe_object(classid, objid, 0) || ' = ' ||
	         CASE WHEN classid = 'pg_proc'::regclass THEN pg_get_functiondef(objid)
	              WHEN classid = 'pg_class'::regclass
	                   AND (SELECT relkind FROM pg_class WHERE oid = objid) = 'v'
	              THEN pg_get_viewdef(objid::regclass)
	              ELSE '' END, E'\n'
	         ORDER BY pg_describe_object(classid, objid, 0))
	  FROM pg_depend
	 WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
	   AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'hummock_stream')
	   -- capture logs of the sources are the database's data, not the extension's
	   AND objid NOT IN (SELECT log_relid FROM hummock_stream.capture_logs)
};
$node->safe_psql('postgres', 'CREATE DATABASE fresh');
$node->safe_psql('fresh', 'CREATE EXTENSION hummock_stream');
my $updated = $node->safe_psql('postgres', $objects);
my $new = $node->safe_psql('fresh', $objects);
ok(length($updated) > 1000, 'the extension has members');
is($updated, $new, 'an updated extension has the objects of a new installation');
my $acl = q{SELECT string_agg(relname || ' ' || coalesce(relacl::text, '-'), ', ' ORDER BY relname)
              FROM pg_class WHERE relnamespace = 'hummock_stream'::regnamespace
               AND oid NOT IN (SELECT log_relid FROM hummock_stream.capture_logs)
               AND oid NOT IN (SELECT indexrelid FROM pg_index WHERE indrelid IN
                                 (SELECT log_relid FROM hummock_stream.capture_logs))};
is($node->safe_psql('postgres', $acl), $node->safe_psql('fresh', $acl),
	'and the same privileges');

# job_stats of the views created under 0.1
my $stats = $node->safe_psql('postgres',
	q{SELECT string_agg(name::text || ':' || (rows_in > 0)::text, ',' ORDER BY name::text)
	    FROM hummock_stream.job_stats});
is($stats, 'per_kind:true,top_kinds:true', 'job_stats counts the views made under 0.1');

# a restart after the update
$node->restart;
$node->safe_psql('postgres', 'CALL write_rows(4001, 100)');
is(views_equal('postgres'), 'equal', 'views equal their queries after a restart');

# a slow epoch is logged once it takes at least log_min_epoch_duration
my $log_offset = -s $node->logfile;
$node->safe_psql('postgres', q{
	ALTER SYSTEM SET hummock_stream.log_min_epoch_duration = 0;
	SELECT pg_reload_conf();
});
# the workers read the file at their next wakeup: write until a line shows
my $deadline = time() + 60;
my $found = 0;
my $id = 5001;
while (!$found && time() < $deadline)
{
	$node->safe_psql('postgres', "CALL write_rows($id, 5)");
	$id += 5;
	$found = $node->log_contains(
		qr/streaming materialized view "per_kind" took [0-9.]+ ms to maintain epoch [0-9]+/,
		$log_offset);
	usleep(100_000) unless $found;
}
ok($found, 'a LOG line names the view, its time and its epoch');
ok($node->log_contains(qr/DETAIL:  [0-9]+ input rows read\./, $log_offset),
	'with the rows it read');

$node->stop;
done_testing();
