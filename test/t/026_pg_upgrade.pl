# pg_upgrade of a cluster with streaming views, from this version to
# itself, with the procedure README gives: run pg_upgrade, copy the old
# data directory's pg_hummock into the new one, start the new server.
# The catalog (jobs, versions, capture logs, positions) comes over with
# the user tables, the database keeps its OID, and the store is taken
# over under the extension's new OID at first use.  The views then read
# what they had, equal to their queries, and go on being maintained.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $conf = qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 100
max_worker_processes = 16
};
my $old = PostgreSQL::Test::Cluster->new('old');
$old->init;
$old->append_conf('postgresql.conf', $conf);
$old->start;
$old->safe_psql('postgres', 'CREATE DATABASE app');
$old->safe_psql('app', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE t (id int PRIMARY KEY, g int, v int);
	INSERT INTO t SELECT i, i % 10, i FROM generate_series(1, 5000) i;
	CREATE TABLE d (g int PRIMARY KEY, label text);
	INSERT INTO d SELECT g, 'g' || g FROM generate_series(0, 9) g;
	CREATE MATERIALIZED VIEW by_g USING hummock AS
	  SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo FROM t GROUP BY g;
	CREATE MATERIALIZED VIEW big_groups USING hummock AS
	  SELECT g, n FROM by_g WHERE n > 400;
	CREATE MATERIALIZED VIEW labelled USING hummock WITH (change_log) AS
	  SELECT t.id, d.label FROM t JOIN d USING (g) WHERE t.v % 7 = 0;
});
$old->safe_psql('app', 'UPDATE t SET g = (g + 1) % 10 WHERE id % 3 = 0');
$old->safe_psql('app', 'SELECT hummock_stream.wait(NULL, NULL)');
$old->stop;

my $new = PostgreSQL::Test::Cluster->new('new');
$new->init;
$new->append_conf('postgresql.conf', $conf);
my $bindir = $new->config_data('--bindir');
# (pg_upgrade writes its scripts into the working directory)
chdir $new->basedir or die "chdir: $!";
command_ok([ 'pg_upgrade', '--no-sync', '-d', $old->data_dir, '-D', $new->data_dir,
	'-b', $bindir, '-B', $bindir, '-s', $new->host,
	'-p', $old->port, '-P', $new->port ], 'pg_upgrade runs');
command_ok([ 'cp', '-a', $old->data_dir . '/pg_hummock', $new->data_dir . '/' ],
	"the old data directory's pg_hummock is copied over");
$new->start;

my %queries = (
	by_g => 'SELECT g, count(*), sum(v), min(v) FROM t GROUP BY g',
	big_groups => 'SELECT g, count(*) FROM t GROUP BY g HAVING count(*) > 400',
	labelled => 'SELECT t.id, d.label FROM t JOIN d USING (g) WHERE t.v % 7 = 0',
);
sub check_views
{
	my $when = shift;
	$new->safe_psql('app', 'SELECT hummock_stream.wait(NULL, NULL)');
	foreach my $view (sort keys %queries)
	{
		my $q = $queries{$view};
		is($new->safe_psql('app',
			"SELECT count(*) FROM ((TABLE $view EXCEPT ALL ($q)) UNION ALL (($q) EXCEPT ALL TABLE $view)) x"),
			'0', "$view equals its query $when");
	}
}
is($new->safe_psql('app', 'SELECT count(*) FROM by_g'), '10', 'a view reads its rows at once');
check_views('after the upgrade');
ok($new->log_contains(qr/hummock_stream store .* taken over/), 'the store was taken over');
is($new->safe_psql('app', q{
	SELECT array(SELECT o FROM unnest(c.reloptions) o WHERE o !~ '^settings=')::text
	       || ' ' || j.change_log FROM pg_class c
	  JOIN hummock_stream.jobs j ON j.name = c.oid WHERE c.relname = 'labelled'}),
	'{change_log=true} kept', 'a storage parameter of ours is kept');

$new->safe_psql('app', q{
	INSERT INTO t SELECT i, i % 10, i FROM generate_series(5001, 6000) i;
	DELETE FROM t WHERE id % 11 = 0;
	UPDATE d SET label = label || '!' WHERE g < 5;
});
check_views('after writes on the upgraded cluster');
is($new->safe_psql('app', q{SELECT count(*) FROM hummock_stream.jobs WHERE state <> 'created' OR failures > 0}),
	'0', 'no view failed');
# and a new view next to the upgraded ones
$new->safe_psql('app', q{CREATE MATERIALIZED VIEW late USING hummock AS SELECT g, max(v) AS hi FROM t GROUP BY g});
$queries{late} = 'SELECT g, max(v) FROM t GROUP BY g';
check_views('with a view created after the upgrade');

$new->stop;
done_testing();
