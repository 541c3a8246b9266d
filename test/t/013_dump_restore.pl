# A database with streaming views goes through the installation's real
# pg_dump and comes back with psql (plain format, with and without one
# transaction and ON_ERROR_STOP) and pg_restore (custom format).  The
# restore must report no ERROR, and the restored former sources must take
# INSERT, UPDATE, DELETE and TRUNCATE: nothing the extension leaves on a
# user's table names an OID of the old database, and capture logs (members
# of the extension) are not dumped.  Views themselves are not restored yet:
# a view's relation comes back as an empty relation USING hummock that
# nothing maintains (COPY of its rows is discarded with a WARNING); a new
# view over a restored table works.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
max_worker_processes = 32
});
$node->start;

$node->safe_psql('postgres', q{
	CREATE DATABASE src;
});
$node->safe_psql('src', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE items (id int PRIMARY KEY, grp int, price float8, note text);
	CREATE TABLE events (grp int, n int);
	INSERT INTO items SELECT g, g % 4, g / 4.0, 'n' || g FROM generate_series(1, 100) g;
	INSERT INTO events SELECT g % 5, g FROM generate_series(1, 50) g;
	SELECT hummock_stream.create_materialized_view('by_grp',
	  'SELECT grp, count(*) AS n, sum(price) AS total FROM items GROUP BY grp');
	SELECT hummock_stream.create_materialized_view('joined',
	  'SELECT i.id, e.n FROM items i JOIN events e ON e.grp = i.grp');
	SELECT hummock_stream.create_materialized_view('ev', 'SELECT DISTINCT grp FROM events');
	-- changes after the creation fill the capture logs
	INSERT INTO items VALUES (101, 1, 'NaN', NULL);
	UPDATE items SET price = price + 1 WHERE id <= 10;
	DELETE FROM events WHERE n > 45;
	SELECT hummock_stream.wait();
});
is($node->safe_psql('src', 'SELECT count(*) FROM hummock_stream.capture_logs'),
	'2', 'both sources are captured before the dump');

my $tmp = PostgreSQL::Test::Utils::tempdir;
my $plain = "$tmp/src.sql";
my $custom = "$tmp/src.dump";
$node->command_ok([ 'pg_dump', '-d', $node->connstr('src'), '-f', $plain ],
	'pg_dump (plain) runs');
$node->command_ok([ 'pg_dump', '-Fc', '-d', $node->connstr('src'), '-f', $custom ],
	'pg_dump (custom) runs');

my $dump = slurp_file($plain);
unlike($dump, qr/capture_\d+/, 'the dump has no capture log');
unlike($dump, qr/_capture\('/, 'the dump\'s capture triggers name no OID');
like($dump, qr/EXECUTE FUNCTION hummock_stream\._capture\(\)/,
	'the dump has the (argument-less) capture triggers');

# Each restored database must be usable the same way.
sub check_restored
{
	my ($db, $how) = @_;

	is($node->safe_psql($db, q{
		SELECT (SELECT count(*) FROM items) || ',' || (SELECT count(*) FROM events)}),
		'101,45', "$how: the sources' rows are restored");
	is($node->safe_psql($db, q{
		SELECT count(*) FROM hummock_stream.capture_logs}),
		'0', "$how: no capture log is registered");
	is($node->safe_psql($db, q{
		SELECT count(*) FROM pg_class
		 WHERE relnamespace = 'hummock_stream'::regnamespace AND relname ~ '^capture_\d+'}),
		'0', "$how: no capture log table is restored");
	is($node->safe_psql($db, 'SELECT count(*) FROM hummock_stream.jobs'),
		'0', "$how: views are not restored as views (yet)");
	is($node->safe_psql($db, 'SELECT count(*) FROM by_grp'),
		'0', "$how: a view's relation comes back empty");

	my ($ret, $out, $err) = $node->psql($db, q{
		INSERT INTO items VALUES (500, 1, 1.5, 'new');
		UPDATE items SET price = 2 WHERE id = 500;
		DELETE FROM items WHERE id = 500;
		INSERT INTO events VALUES (1, 1000);
		UPDATE events SET n = n + 1 WHERE n = 1000;
		DELETE FROM events WHERE n = 1001;},
		on_error_stop => 1);
	is($ret, 0, "$how: INSERT, UPDATE and DELETE into the sources work")
	  or diag($err);
	($ret, $out, $err) = $node->psql($db, 'BEGIN; TRUNCATE events; ROLLBACK;');
	is($ret, 0, "$how: TRUNCATE of a former source works") or diag($err);

	# a new view over a restored source takes its triggers over
	$node->safe_psql($db, q{
		SELECT hummock_stream.create_materialized_view('again',
		  'SELECT grp, count(*) AS n FROM items GROUP BY grp')});
	$node->safe_psql($db, q{
		INSERT INTO items VALUES (600, 2, 1, 'x');
		DELETE FROM items WHERE id = 1;});
	$node->safe_psql($db, q{SELECT hummock_stream.wait('again')});
	is($node->safe_psql($db, q{
		SELECT count(*) FROM ((TABLE again EXCEPT ALL
		    SELECT grp, count(*) FROM items GROUP BY grp)
		  UNION ALL (SELECT grp, count(*) FROM items GROUP BY grp
		    EXCEPT ALL TABLE again)) d}),
		'0', "$how: a new view over a restored source follows it");
	$node->safe_psql($db, q{
		SELECT hummock_stream.drop_materialized_view('again');
		DROP TABLE by_grp, joined, ev;});
	is($node->safe_psql($db, q{
		SELECT count(*) FROM pg_trigger
		 WHERE tgrelid = 'items'::regclass AND tgname LIKE 'hummock_stream%'}),
		'0', "$how: dropping the new view removes the triggers");
}

# plain format through psql, statement by statement
$node->safe_psql('postgres', 'CREATE DATABASE r_psql');
my ($ret, $out, $err) = $node->psql('r_psql', undef,
	extra_params => [ '-f', $plain ]);
is($ret, 0, 'psql restores the plain dump');
unlike($err, qr/ERROR/, 'the psql restore log has no ERROR') or diag($err);
like($err, qr/WARNING:  \d+ rows copied into relation "by_grp" were discarded/,
	'the rows of a view\'s relation are discarded with a WARNING');
check_restored('r_psql', 'psql');

# plain format in one transaction, stopping at the first error
$node->safe_psql('postgres', 'CREATE DATABASE r_single');
($ret, $out, $err) = $node->psql('r_single', undef,
	extra_params => [ '--single-transaction', '-v', 'ON_ERROR_STOP=1', '-f', $plain ]);
is($ret, 0, 'psql --single-transaction -v ON_ERROR_STOP=1 restores the plain dump')
  or diag($err);
unlike($err, qr/ERROR/, 'the single-transaction restore log has no ERROR');
check_restored('r_single', 'single transaction');

# custom format through pg_restore
$node->safe_psql('postgres', 'CREATE DATABASE r_restore');
my $restore_err;
my $ok = IPC::Run::run(
	[ 'pg_restore', '-d', $node->connstr('r_restore'), $custom ],
	'>', \my $restore_out, '2>', \$restore_err);
ok($ok, 'pg_restore restores the custom dump') or diag($restore_err);
unlike($restore_err, qr/ERROR|errors ignored/, 'the pg_restore log has no ERROR')
  or diag($restore_err);
check_restored('r_restore', 'pg_restore');

# the source database is untouched by all this
$node->safe_psql('src', 'INSERT INTO items VALUES (700, 3, 7, NULL)');
$node->safe_psql('src', 'SELECT hummock_stream.wait()');
is($node->safe_psql('src', q{
	SELECT count(*) FROM ((TABLE by_grp EXCEPT ALL
	    SELECT grp, count(*), sum(price) FROM items GROUP BY grp)
	  UNION ALL (SELECT grp, count(*), sum(price) FROM items GROUP BY grp
	    EXCEPT ALL TABLE by_grp)) d}),
	'0', 'the dumped database\'s views still follow their sources');

$node->stop;
done_testing();
