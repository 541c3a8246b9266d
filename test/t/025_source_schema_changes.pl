# Schema changes of source tables under a write load: ADD COLUMN (with a
# constant and a volatile default), ALTER COLUMN TYPE and DROP COLUMN of
# columns no view uses, RENAME of a column views use, on an ordinary and a
# partitioned source, while two writers keep changing both.  Rows captured
# before an ALTER COLUMN TYPE and not yet consumed are reshaped in the
# ALTER's transaction; the jobs lock their sources while they read them
# and build their executors again for the new columns.  A kill -9 in the
# middle: the jobs come back from the catalog with the new columns.  At
# the end, with the writers stopped, every view equals its query.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use FindBin;
use lib "$FindBin::RealBin/../perl";
use HummockStream::Crash;
use IPC::Run;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('schema_changes');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 2
max_worker_processes = 16
restart_after_crash = on
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE SEQUENCE ids START 100001;
	CREATE TABLE t (id bigint PRIMARY KEY, g int, v int, pad text, n numeric, spare int);
	INSERT INTO t SELECT i, i % 50, i, 'p' || i, i, i FROM generate_series(1, 100000) i;
	CREATE TABLE d (g int PRIMARY KEY, label text);
	INSERT INTO d SELECT g, 'g' || g FROM generate_series(0, 49) g;
	CREATE TABLE p (id bigint, region text, v int, memo text) PARTITION BY LIST (region);
	CREATE TABLE p_e PARTITION OF p FOR VALUES IN ('e');
	CREATE TABLE p_w PARTITION OF p FOR VALUES IN ('w');
	INSERT INTO p SELECT i, CASE WHEN i % 2 = 0 THEN 'e' ELSE 'w' END, i, 'm' FROM generate_series(1, 1000) i;
	CREATE MATERIALIZED VIEW by_g USING hummock AS
	  SELECT g, count(*) AS n, sum(v) AS s, min(v) AS lo FROM t GROUP BY g;
	CREATE MATERIALIZED VIEW odd USING hummock AS SELECT id, v FROM t WHERE v % 7 = 1;
	CREATE MATERIALIZED VIEW joined USING hummock AS
	  SELECT t.id, d.label FROM t JOIN d USING (g) WHERE t.v % 11 = 0;
	CREATE MATERIALIZED VIEW by_region USING hummock AS
	  SELECT region, count(*) AS n, sum(v) AS s FROM p GROUP BY region;
});

# the writers name only columns that stay: id, g, v (t) and id, region, v (p)
my $script = $node->basedir . '/writes.pgbench';
open(my $fh, '>', $script) or die "$script: $!";
print $fh <<'EOS';
\set k random(1, 100000)
\set g random(0, 49)
BEGIN;
INSERT INTO t (id, g, v) VALUES (nextval('ids'), :g, :k);
UPDATE t SET v = v + 1, g = (g + 1) % 50 WHERE id = :k;
DELETE FROM t WHERE id = :k + 3;
INSERT INTO p (id, region, v) VALUES (nextval('ids'), CASE WHEN :k % 2 = 0 THEN 'e' ELSE 'w' END, :k);
UPDATE p SET region = CASE WHEN region = 'e' THEN 'w' ELSE 'e' END WHERE id = :k % 1000 + 1;
COMMIT;
EOS
close $fh;
my $bench;
sub start_writers
{
	$bench = IPC::Run::start(
		[ 'pgbench', '-n', '-c', '2', '-T', '900', '-f', $script, $node->connstr('postgres') ],
		'>', $node->basedir . '/pgbench.out', '2>>', $node->basedir . '/pgbench.err');
}
sub written_since
{
	my $before = shift;
	ok($node->poll_query_until('postgres', "SELECT last_value > $before FROM ids"),
		"the writers wrote (past $before)");
}
sub ids_now { return $node->safe_psql('postgres', 'SELECT last_value FROM ids'); }

start_writers();
written_since(100001 + 200);

my @changes = (
	'ALTER TABLE t ADD COLUMN added int DEFAULT 7',
	'ALTER TABLE t ALTER COLUMN n TYPE text',
	'ALTER TABLE t ADD COLUMN added_at timestamptz DEFAULT clock_timestamp()',
	'ALTER TABLE p ALTER COLUMN memo TYPE varchar(20)',
	'ALTER TABLE t ALTER COLUMN pad TYPE varchar(100), ALTER COLUMN spare TYPE bigint',
	'ALTER TABLE t DROP COLUMN added_at',
	'ALTER TABLE p ADD COLUMN extra int DEFAULT 1',
);
foreach my $ddl (@changes)
{
	my $at = ids_now();
	$node->safe_psql('postgres', $ddl);
	pass("under load: $ddl");
	written_since($at + 100);
}

# kill -9 with writes going on after the changes; the jobs come back
# with the new columns
my $pm = $node->{_pid};
$node->kill9;
$bench->kill_kill;
ok(restart_after_kill9($node, $pm), 'the server restarts after kill -9') or BAIL_OUT('no restart');
start_writers();
written_since(ids_now() + 200);
foreach my $ddl ('ALTER TABLE t ALTER COLUMN added TYPE bigint',
	'ALTER TABLE t DROP COLUMN spare', 'ALTER TABLE p ALTER COLUMN extra TYPE text')
{
	my $at = ids_now();
	$node->safe_psql('postgres', $ddl);
	pass("after the restart: $ddl");
	written_since($at + 100);
}
$bench->kill_kill;
$bench->finish;

# a column views use is renamed: the definitions follow, the views go on
$node->safe_psql('postgres', 'ALTER TABLE t RENAME COLUMN v TO val');
$node->safe_psql('postgres', q{INSERT INTO t (id, g, val) SELECT nextval('ids'), 3, i FROM generate_series(1, 100) i});

$node->safe_psql('postgres', 'SELECT hummock_stream.wait(NULL, NULL)');
my %queries = (
	by_g => 'SELECT g, count(*), sum(val), min(val) FROM t GROUP BY g',
	odd => 'SELECT id, val FROM t WHERE val % 7 = 1',
	joined => 'SELECT t.id, d.label FROM t JOIN d USING (g) WHERE t.val % 11 = 0',
	by_region => 'SELECT region, count(*), sum(v) FROM p GROUP BY region',
);
foreach my $view (sort keys %queries)
{
	my $q = $queries{$view};
	is($node->safe_psql('postgres',
		"SELECT count(*) FROM ((TABLE $view EXCEPT ALL ($q)) UNION ALL (($q) EXCEPT ALL TABLE $view)) x"),
		'0', "$view equals its query after the schema changes");
}
is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.jobs WHERE state <> 'created' OR failures > 0}),
	'0', 'no view failed');
like($node->safe_psql('postgres', q{SELECT definition FROM hummock_stream.jobs WHERE name = 'odd'::regclass}),
	qr/val/, 'the definition names the renamed column');
ok(!-s ($node->basedir . '/pgbench.err') || slurp_file($node->basedir . '/pgbench.err') !~ /ERROR/,
	'the writers saw no error')
  or diag(slurp_file($node->basedir . '/pgbench.err'));

$node->stop;
done_testing();
