# Views over the tables of a logical-replication subscriber.  The apply
# worker runs with session_replication_role = replica and fires no
# statement triggers, so a source's row triggers (enabled REPLICA)
# capture what it applies: the initial copy, then every insert, update
# and delete of the publisher (and its TRUNCATE, by the source's TRUNCATE
# trigger, enabled ALWAYS); a session of the subscriber in origin mode
# is captured by the statement triggers, never both.  Disabling or
# dropping a capture trigger is refused.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $pub = PostgreSQL::Test::Cluster->new('publisher');
$pub->init(allows_streaming => 'logical');
$pub->start;
my $sub = PostgreSQL::Test::Cluster->new('subscriber');
$sub->init;
$sub->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
max_worker_processes = 16
});
$sub->start;

my $schema = q{CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric);};
$pub->safe_psql('postgres', $schema);
$sub->safe_psql('postgres', $schema);
$pub->safe_psql('postgres', q{
	INSERT INTO orders SELECT i, i % 7, i * 1.5 FROM generate_series(1, 500) i;
	CREATE PUBLICATION p FOR TABLE orders;
});
# the view exists before the subscription: the initial copy is captured too
$sub->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	SELECT hummock_stream.create_materialized_view('per_customer',
		'SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer');
});
my $def = 'SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer';

sub equal
{
	my ($what) = @_;
	$pub->wait_for_catchup('s');
	$sub->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	is($sub->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE per_customer EXCEPT ALL ($def)) UNION ALL (($def) EXCEPT ALL TABLE per_customer)) d}),
		'0', "$what: the view equals its query on the subscriber");
}

my $connstr = $pub->connstr . ' dbname=postgres';
$sub->safe_psql('postgres', "CREATE SUBSCRIPTION s CONNECTION '$connstr' PUBLICATION p");
$sub->wait_for_subscription_sync($pub, 's');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM orders'), '500', 'the initial copy arrived');
equal('after the initial copy');

# the publisher writes; the apply worker applies in replica mode
$pub->safe_psql('postgres', q{
	INSERT INTO orders SELECT i, i % 5, i FROM generate_series(501, 800) i;
	UPDATE orders SET amount = amount + 1, customer = customer + 1 WHERE id % 3 = 0;
	DELETE FROM orders WHERE id % 10 = 0;
});
equal('after inserts, updates and deletes on the publisher');
# a view created afterwards, and a local write on the subscriber (origin mode)
$sub->safe_psql('postgres', q{
	SELECT hummock_stream.create_materialized_view('big', 'SELECT id, amount FROM orders WHERE amount > 500');
	INSERT INTO orders VALUES (100000, 1, 1);
});
$pub->safe_psql('postgres', q{UPDATE orders SET amount = amount * 2 WHERE id % 7 = 0});
equal('after a local write and more replicated ones');
$sub->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is($sub->safe_psql('postgres', q{
	SELECT count(*) FROM ((TABLE big EXCEPT ALL SELECT id, amount FROM orders WHERE amount > 500)
	   UNION ALL (SELECT id, amount FROM orders WHERE amount > 500 EXCEPT ALL TABLE big)) d}),
	'0', 'a view created on the subscriber later equals its query');

# a replicated TRUNCATE is captured as the delete of every row
$pub->safe_psql('postgres', q{
	TRUNCATE orders;
	INSERT INTO orders SELECT i, i % 4, i * 100 FROM generate_series(1, 50) i;
});
$pub->wait_for_catchup('s');
is($sub->safe_psql('postgres', 'SELECT count(*) FROM orders'), '50', 'the TRUNCATE was applied');
equal('after a TRUNCATE on the publisher');
is($sub->safe_psql('postgres', q{
	SELECT count(*) FROM ((TABLE big EXCEPT ALL SELECT id, amount FROM orders WHERE amount > 500)
	   UNION ALL (SELECT id, amount FROM orders WHERE amount > 500 EXCEPT ALL TABLE big)) d}),
	'0', 'the other view followed the TRUNCATE too');

# capture cannot be switched off while views read the table
my ($rc, $out, $err) = $sub->psql('postgres', 'ALTER TABLE orders DISABLE TRIGGER ALL');
like($err, qr/cannot disable all triggers of table "orders"/, 'DISABLE TRIGGER ALL is refused');
($rc, $out, $err) = $sub->psql('postgres',
	q{SELECT tgname FROM pg_trigger WHERE tgrelid = 'orders'::regclass AND tgname LIKE '%insert\_%'});
my $row_trigger = $out;
($rc, $out, $err) = $sub->psql('postgres', qq{DROP TRIGGER "$row_trigger" ON orders});
like($err, qr/cannot drop trigger/, 'dropping a capture trigger is refused');

$sub->stop;
$pub->stop;
done_testing();
