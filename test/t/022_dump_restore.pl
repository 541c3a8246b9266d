# pg_dump and restore of a database with streaming views: a streaming view
# is a materialized view USING hummock, so pg_dump writes CREATE
# MATERIALIZED VIEW ... WITH NO DATA and, after the data, REFRESH
# MATERIALIZED VIEW, which makes the restored view streaming again
# (backfilled from the restored sources).  The capture logs (members of
# the extension) and the catalog are not dumped; no OID of the old
# database is needed.  Plain format through psql (also in one
# transaction with ON_ERROR_STOP), custom format through pg_restore (also
# --single-transaction): every restore runs
# without an error, every view (chains of views over views, joins,
# aggregates, a diamond, a view over a Postgres view, a partitioned source) equals its
# query, and keeps doing so as the restored sources are written.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('dump_restore');
$node->init;
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 2
max_worker_processes = 32
});
$node->start;

my %views = (
	by_customer => q{SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer},
	named => q{SELECT o.id, c.name, o.amount FROM orders o JOIN customers c ON c.id = o.customer},
	big_customers => q{SELECT customer, total FROM by_customer WHERE total > 500},
	big_count => q{SELECT count(*) AS n, max(total) AS top FROM big_customers},
	paid_view => q{SELECT region, count(*) AS n FROM paid GROUP BY region},
	by_month => q{SELECT month, sum(v) AS s FROM meas GROUP BY month},
	top_orders => q{SELECT id, amount FROM orders ORDER BY amount DESC, id LIMIT 5},
	# a whole row, a function in FROM that returns no set, EXISTS over groups
	order_docs => q{SELECT o.id, to_jsonb(o) AS doc, r.amt FROM orders o,
	                  jsonb_to_record(jsonb_build_object('amt', o.amount)) AS r(amt numeric)
	                 WHERE EXISTS (SELECT 1 FROM orders i WHERE i.customer = o.customer
	                                GROUP BY i.paid HAVING count(*) > 26)},
	# lookups one row up by a primary key and by a unique index: the views
	# depend on them, so pg_dump puts the views after them (the restore
	# plans the lookup as at creation)
	order_names => q{SELECT o.id, (SELECT c.name FROM customers c WHERE c.id = o.customer) AS name
	                  FROM orders o},
	order_regions => q{SELECT o.id, (SELECT r.label FROM regions r WHERE r.code = 'r' || o.customer % 4)
	                    AS label FROM orders o},
	# a view that reads no table (a constant), and one over it
	codes => q{SELECT * FROM (VALUES (0, 'zero'), (1, 'one'), (2, 'two')) v(k, label)},
	coded => q{SELECT o.id, c.label FROM orders o JOIN codes c ON c.k = o.customer % 3},
	# TimeZone and DateStyle (the creator's, restored with the view)
	tz_view => q{SELECT o.id || '|' || to_timestamp(o.id * 3600)::text || '|' || to_char(to_timestamp(o.id * 3600), 'HH24') AS s
	               FROM orders o WHERE o.id = 1},
	# a diamond: a view over two views over the same view (a restore in one
	# transaction reads them at their one epoch each)
	diamond => q{SELECT b.customer, b.n, g.total FROM by_customer b JOIN big_customers g USING (customer)},
);
# creation order: upstreams first
my @order = qw(by_customer named big_customers big_count paid_view by_month top_orders order_docs
  order_names order_regions codes coded diamond tz_view);

$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE customers (id int PRIMARY KEY, name text, region text);
	CREATE TABLE orders (id int PRIMARY KEY, customer int, amount numeric, paid boolean);
	CREATE TABLE meas (id int, month int, v int, PRIMARY KEY (id, month)) PARTITION BY RANGE (month);
	CREATE TABLE meas_h1 PARTITION OF meas FOR VALUES FROM (1) TO (7);
	CREATE TABLE meas_h2 PARTITION OF meas FOR VALUES FROM (7) TO (13);
	INSERT INTO customers SELECT i, 'c' || i, 'r' || i % 4 FROM generate_series(1, 50) i;
	INSERT INTO orders SELECT i, 1 + i % 50, (i * 37) % 200, i % 3 = 0 FROM generate_series(1, 2000) i;
	INSERT INTO meas SELECT i, 1 + i % 12, i FROM generate_series(1, 500) i;
	CREATE TABLE regions (code text NOT NULL, label text);
	CREATE UNIQUE INDEX regions_code ON regions (code);
	INSERT INTO regions SELECT 'r' || i, 'region ' || i FROM generate_series(0, 2) i;
	CREATE VIEW paid AS SELECT o.id, c.region FROM orders o JOIN customers c ON c.id = o.customer WHERE o.paid;
	CREATE ROLE reporter;
	GRANT SELECT ON orders, customers TO reporter;
});
foreach my $v (@order)
{
	# both ways of creating one
	if ($v =~ /^(named|big_count|by_month)$/)
	{
		$node->safe_psql('postgres', "CREATE MATERIALIZED VIEW $v USING hummock AS $views{$v}");
	}
	elsif ($v eq 'tz_view')
	{
		$node->safe_psql('postgres', qq{SET TimeZone = 'Asia/Tokyo'; SET DateStyle = 'German, DMY';
			SELECT hummock_stream.create_materialized_view('$v', \$q\$$views{$v}\$q\$)});
	}
	else
	{
		$node->safe_psql('postgres',
			"SELECT hummock_stream.create_materialized_view('$v', \$q\$$views{$v}\$q\$)");
	}
}
$node->safe_psql('postgres', q{
	ALTER MATERIALIZED VIEW named OWNER TO reporter;
	ALTER MATERIALIZED VIEW big_count SET (parallel_workers = 2);
	GRANT SELECT ON by_customer TO reporter;
	SELECT hummock_stream.set_change_log('by_customer', true);
	UPDATE orders SET amount = amount + 1 WHERE id % 5 = 0;
	DELETE FROM orders WHERE id % 7 = 0;
	SELECT hummock_stream.wait();
});

sub check_views
{
	my ($db, $when) = @_;
	$node->safe_psql($db, q{SELECT hummock_stream.wait(NULL, '120s')});
	my $bad = 0;
	foreach my $v (@order)
	{
		# (a view is computed with its creator's settings)
		my $set = $v eq 'tz_view' ? q{SET TimeZone = 'Asia/Tokyo'; SET DateStyle = 'German, DMY';} : '';
		my $diff = $node->safe_psql($db, qq{$set
			SELECT count(*) FROM ((TABLE $v EXCEPT ALL ($views{$v}))
			          UNION ALL (($views{$v}) EXCEPT ALL TABLE $v)) d});
		if ($diff ne '0')
		{
			$bad++;
			diag("$db, $when: $v differs from its query in $diff rows");
		}
	}
	is($bad, 0, "$db, $when: every view equals its query");
}
check_views('postgres', 'before the dump');

my $tmp = PostgreSQL::Test::Utils::tempdir;
$node->command_ok([ 'pg_dump', '-f', "$tmp/plain.sql", $node->connstr('postgres') ],
	'pg_dump, plain');
$node->command_ok([ 'pg_dump', '-Fc', '-f', "$tmp/dump.custom", $node->connstr('postgres') ],
	'pg_dump, custom format');
my $plain = slurp_file("$tmp/plain.sql");
like($plain, qr/CREATE MATERIALIZED VIEW public\.by_customer\s+WITH \(change_log='true', settings='\{TimeZone=[^']*'\) AS/,
	'views are dumped as materialized views, with their storage parameters');
like($plain, qr/REFRESH MATERIALIZED VIEW public\.big_count;/, 'and refreshed after the data');
unlike($plain, qr/CREATE TABLE hummock_stream\.capture_/, 'capture logs are not dumped');
unlike($plain, qr/COPY public\.by_customer/, 'view rows are not dumped');
unlike($plain, qr/_capture\('/, 'the capture triggers the dump has name no OID');

my @restores = (
	[ 'plain', [ 'psql', '-X', '-v', 'ON_ERROR_STOP=1', '-q', '-f', "$tmp/plain.sql" ] ],
	[ 'plain_single', [ 'psql', '-X', '--single-transaction', '-v', 'ON_ERROR_STOP=1', '-q',
						'-f', "$tmp/plain.sql" ] ],
	[ 'custom', [ 'pg_restore', "$tmp/dump.custom" ] ],
	[ 'single', [ 'pg_restore', '--single-transaction', '--exit-on-error', "$tmp/dump.custom" ] ],
);
foreach my $r (@restores)
{
	my ($name, $cmd) = @$r;
	my $db = "restored_$name";
	$node->safe_psql('postgres', "CREATE DATABASE $db");
	my ($stdout, $stderr) = ('', '');
	my $ok = IPC::Run::run([ @$cmd, '-d', $node->connstr($db) ], '>', \$stdout, '2>', \$stderr);
	ok($ok, "$name restore succeeds");
	unlike($stderr, qr/ERROR/, "$name restore: no error") or diag($stderr);
	check_views($db, 'after the restore');
	is($node->safe_psql($db, q{
		SELECT string_agg(name::text, ',' ORDER BY name::text) FROM hummock_stream.jobs
		 WHERE state = 'created'}),
		join(',', sort @order), "$name restore: every view is a streaming job");
	is($node->safe_psql($db, q{SELECT relowner::regrole FROM pg_class WHERE relname = 'named'}),
		'reporter', "$name restore: owners are restored");
	is($node->safe_psql($db, q{SELECT array(SELECT o FROM pg_class, unnest(reloptions) o
	                                         WHERE relname = 'big_count' AND o !~ '^settings=')}),
		'{parallel_workers=2}', "$name restore: storage parameters are restored");
	# ... settings among them: a view is computed with its creator's
	is($node->safe_psql($db, q{SELECT string_agg(s, ',' ORDER BY s) FROM tz_view}),
		'1|01.01.1970 10:00:00 JST|10', "$name restore: a view keeps its creator's settings");
	# the dump's capture row triggers, named after the dumped database's
	# OIDs (they do nothing), went when capture was set up; one made so by
	# hand may be dropped although the table is captured
	is($node->safe_psql($db, q{
		SELECT count(*) FROM pg_trigger
		 WHERE tgname ~ '^hummock_stream_capture_.*_[0-9]+$'
		   AND tgname !~ ('_' || tgrelid::text || '$') AND tgparentid = 0}),
		'0', "$name restore: the dump's capture row triggers are gone");
	$node->safe_psql($db, q{
		CREATE TRIGGER hummock_stream_capture_insert_4000000000 AFTER INSERT ON orders
		  FOR EACH ROW EXECUTE FUNCTION hummock_stream._capture();
		DROP TRIGGER hummock_stream_capture_insert_4000000000 ON orders;
	});
	# ... change_log among them: the view keeps its log, from its backfill on
	is($node->safe_psql($db, q{
		SELECT string_agg(name::text || '=' || change_log, ',' ORDER BY name::text)
		  FROM hummock_stream.jobs WHERE change_log = 'kept'}),
		'by_customer=kept', "$name restore: the change log setting is restored");
	is($node->safe_psql($db, q{
		SELECT (SELECT count(*) FROM hummock_stream.change_log(NULL::by_customer, 0,
		          (SELECT committed_epoch FROM hummock_stream.committed_epochs()
		            WHERE relation = 'by_customer'::regclass)) WHERE op = 'Insert')
		       = (SELECT count(*) FROM by_customer)}),
		't', "$name restore: its change log holds the backfill");

	# the restored sources are captured
	$node->safe_psql($db, q{
		INSERT INTO orders SELECT i, 1 + i % 50, i % 300, true FROM generate_series(5000, 5500) i;
		UPDATE orders SET customer = 1 + (customer + 3) % 50 WHERE id % 11 = 0;
		DELETE FROM orders WHERE id % 13 = 0;
		UPDATE customers SET region = 'r9', name = name || '!' WHERE id % 6 = 0;
		INSERT INTO regions VALUES ('r3', 'region 3');
		UPDATE regions SET label = label || '!' WHERE code = 'r1';
		INSERT INTO meas SELECT i, 1 + i % 12, -i FROM generate_series(600, 700) i;
	});
	check_views($db, 'after writes');
}

# pg_restore --clean over a restored database: the drops come in the
# dump's reverse order, views before the primary keys they keep rows by
# (pg_dump puts them after the keys), capture triggers kept with a notice
# until the views and tables go
{
	my ($stdout, $stderr) = ('', '');
	IPC::Run::run([ 'pg_restore', '--clean', '--if-exists',
					'-d', $node->connstr('restored_custom'), "$tmp/dump.custom" ],
				  '>', \$stdout, '2>', \$stderr);
	# (but Postgres's own: pg_dump drops a partition's primary key, which
	# its partitioned table's brought, before the table)
	my @errors = grep { !/cannot drop inherited constraint "meas_h\d_pkey"/ } ($stderr =~ /ERROR: .*/g);
	is(scalar(@errors), 0, 'pg_restore --clean --if-exists over a restored database: no error of ours')
	  or diag($stderr);
	check_views('restored_custom', 'after pg_restore --clean');
}

# the dumped database is untouched by all this
$node->safe_psql('postgres', 'INSERT INTO orders VALUES (9000, 3, 70, true)');
check_views('postgres', 'after the restores');

$node->stop;
done_testing();
