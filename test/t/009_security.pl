# Security: every attack an ordinary role could mount through streaming
# views fails.  Two ordinary roles, alice and bob (no superuser, CREATE on
# public), and carol; the cluster's superuser sets up shared tables.
#
#  1. A view's expressions run as the view's owner, never as the bootstrap
#     superuser: an IMMUTABLE function of bob's that calls a VOLATILE one
#     sees current_user = bob (in the backfill and in the compute worker);
#     one that tries ALTER ROLE bob SUPERUSER, or reads alice's private
#     table, fails the view and bob stays an ordinary role.
#  2. Internal SQL ignores the caller's search_path: bob's own
#     public.=(oid, oid) first in his search_path never runs for the
#     extension's statements (drop, create, wait, the monitoring views).
#  3. REVOKE stops the feed: alice's view fails (42501, visible in
#     partial_graphs) and shows no row written after the revoke; GRANT
#     again and it recovers and catches up.
#  4. Row-level security enabled after creation: the view fails (0A000)
#     and shows nothing new until RLS no longer applies to its owner.
#  5. Storage internals are not for PUBLIC; the monitoring views show each
#     role its own views, pg_monitor everything.
#  Also: a SECURITY DEFINER function in a view runs as its owner; views of
#  a role that is dropped (DROP OWNED) or reassigned (REASSIGN OWNED).
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('security');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 2
max_worker_processes = 16
});
$node->start;

sub as
{
	my ($role, $sql) = @_;
	return $node->safe_psql('postgres', $sql, extra_params => [ '-U', $role ]);
}

# (stderr of) a statement that must fail, run as role
sub fails_as
{
	my ($role, $sql) = @_;
	my ($rc, $out, $err) = $node->psql('postgres', $sql,
		extra_params => [ '-U', $role, '-v', 'VERBOSITY=verbose' ]);
	return $rc != 0 ? $err : '';
}

sub is_superuser
{
	my ($role) = @_;
	return $node->safe_psql('postgres',
		"SELECT rolsuper FROM pg_roles WHERE rolname = '$role'");
}

# the last error of the graph of view $v (as the superuser)
sub last_error
{
	my ($v) = @_;
	return $node->safe_psql('postgres', qq{
		SELECT coalesce(last_error, '') FROM hummock_stream.partial_graphs
		 WHERE graph_id = '$v'::regclass::oid});
}

$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE ROLE alice LOGIN;
	CREATE ROLE bob LOGIN;
	CREATE ROLE carol LOGIN;
	CREATE ROLE watcher LOGIN IN ROLE pg_monitor;
	GRANT CREATE ON SCHEMA public TO alice, bob, carol;
	-- a table alice may read, and a multi-tenant one
	CREATE TABLE shared_t (id int PRIMARY KEY, v int);
	INSERT INTO shared_t SELECT g, g FROM generate_series(1, 5) g;
	GRANT SELECT ON shared_t TO alice;
	CREATE TABLE tenants (id int PRIMARY KEY, tenant text, secret int);
	INSERT INTO tenants VALUES (1, 'alice', 10), (2, 'bob', 20);
	GRANT SELECT ON tenants TO alice;
});

# ---------------------------------------------------------------------
# 1. expressions run as the view's owner
# ---------------------------------------------------------------------
as('alice', q{
	CREATE TABLE alice_private (secret text);
	INSERT INTO alice_private VALUES ('alice''s secret');
});
as('bob', q{
	CREATE TABLE bob_t (id int PRIMARY KEY);
	INSERT INTO bob_t VALUES (1);
	CREATE TABLE seen (who text, at text);
	-- records who runs it, then returns its argument
	CREATE FUNCTION bob_record(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
	BEGIN
	  INSERT INTO public.seen VALUES (current_user, 'maintenance');
	  RETURN $1;
	END $$;
	CREATE FUNCTION bob_imm(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN RETURN public.bob_record($1); END $$;
	-- tries to become superuser
	CREATE FUNCTION bob_escalate(int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$
	BEGIN
	  EXECUTE 'ALTER ROLE bob SUPERUSER';
	  RETURN $1;
	END $$;
	CREATE FUNCTION bob_imm_escalate(int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN RETURN public.bob_escalate($1); END $$;
	-- tries to read alice's private table
	CREATE FUNCTION bob_peek(int) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
	BEGIN RETURN (SELECT string_agg(secret, ',') FROM public.alice_private); END $$;
	CREATE FUNCTION bob_imm_peek(int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$
	BEGIN RETURN public.bob_peek($1); END $$;
	SELECT hummock_stream.create_materialized_view('bob_who',
	  'SELECT id, public.bob_imm(id) AS x FROM public.bob_t');
	SELECT hummock_stream.create_materialized_view('bob_agg',
	  'SELECT id % 2 AS k, count(*) AS n FROM public.bob_t GROUP BY 1');
});
as('bob', q{INSERT INTO bob_t VALUES (2), (3)});
as('bob', q{SELECT hummock_stream.wait('bob_who')});
is(as('bob', 'SELECT count(*) FROM bob_who'), '3', 'the view of bob_imm has every row');
is(as('bob', q{SELECT string_agg(DISTINCT who, ',') FROM seen}), 'bob',
	"a view's functions run as its owner, in the backfill and in the compute worker");
cmp_ok(as('bob', 'SELECT count(*) FROM seen'), '>=', 3,
	'bob_record ran for the backfill row and the two new rows');

# the escalation: at creation (backfill, in bob's session) and afterwards
like(fails_as('bob', q{SELECT hummock_stream.create_materialized_view('bob_esc0',
	  'SELECT id, public.bob_imm_escalate(id) AS x FROM public.bob_t')}),
	qr/42501|permission denied|must be superuser/,
	'a backfill that runs ALTER ROLE ... SUPERUSER fails');
as('bob', q{
	CREATE TABLE bob_e (id int PRIMARY KEY);
	SELECT hummock_stream.create_materialized_view('bob_esc',
	  'SELECT id, public.bob_imm_escalate(id) AS x FROM public.bob_e');
	INSERT INTO bob_e VALUES (1);
});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'permission denied|must be superuser|superuser' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'bob_esc'::regclass::oid}),
	'maintenance that runs ALTER ROLE ... SUPERUSER fails the view');
is(is_superuser('bob'), 'f', 'bob is not superuser afterwards');
is(as('bob', 'SELECT count(*) FROM bob_esc'), '0', 'the failing view shows nothing new');

# reading alice's table through a function of the view
as('bob', q{
	CREATE TABLE bob_p (id int PRIMARY KEY);
	SELECT hummock_stream.create_materialized_view('bob_peeks',
	  'SELECT id, public.bob_imm_peek(id) AS s FROM public.bob_p');
	INSERT INTO bob_p VALUES (1);
});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'permission denied for table alice_private' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'bob_peeks'::regclass::oid}),
	"a view whose function reads alice's table fails with permission denied");
is(as('bob', q{SELECT count(*) FROM bob_peeks WHERE s IS NOT NULL}), '0',
	"the view never shows alice's rows");

# ---------------------------------------------------------------------
# 2. internal SQL ignores the caller's search_path
# ---------------------------------------------------------------------
as('bob', q{
	CREATE FUNCTION public.bob_eq(oid, oid) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
	  BEGIN
	    EXECUTE 'ALTER ROLE bob SUPERUSER';
	  EXCEPTION WHEN OTHERS THEN NULL;
	  END;
	  INSERT INTO public.seen VALUES (current_user, 'operator');
	  RETURN $1 OPERATOR(pg_catalog.=) $2;
	END $$;
	CREATE OPERATOR public.= (LEFTARG = oid, RIGHTARG = oid, FUNCTION = public.bob_eq);
	CREATE FUNCTION public.bob_eq8(xid8, xid8) RETURNS boolean LANGUAGE plpgsql AS $$
	BEGIN
	  BEGIN
	    EXECUTE 'ALTER ROLE bob SUPERUSER';
	  EXCEPTION WHEN OTHERS THEN NULL;
	  END;
	  INSERT INTO public.seen VALUES (current_user, 'operator');
	  RETURN $1 OPERATOR(pg_catalog.=) $2;
	END $$;
	CREATE OPERATOR public.>= (LEFTARG = xid8, RIGHTARG = xid8, FUNCTION = public.bob_eq8);
	DELETE FROM seen;
});
as('bob', q{
	SET search_path = public, pg_catalog;
	SELECT hummock_stream.create_materialized_view('bob_sp', 'SELECT id FROM bob_t',
	                                               change_log => true);
	INSERT INTO bob_t VALUES (4);
	SELECT hummock_stream.wait('bob_sp');
	SELECT count(*) FROM hummock_stream.jobs;
	SELECT count(*) FROM hummock_stream.partial_graphs;
	SELECT count(*) FROM hummock_stream.committed_epochs();
	SELECT count(*) FROM hummock_stream.change_log(NULL::bob_sp, 0,
	  (SELECT committed_epoch FROM hummock_stream.committed_epochs() WHERE relation = 'bob_sp'::regclass));
	SELECT hummock_stream.set_change_log('bob_sp', false);
	SELECT hummock_stream.drop_materialized_view('bob_sp');
});
is(is_superuser('bob'), 'f', "bob's operator did not make him superuser");
is(as('bob', q{SELECT count(*) FROM seen WHERE who <> 'bob'}), '0',
	"bob's operator never ran as another role");

# ---------------------------------------------------------------------
# 3. REVOKE stops the feed; GRANT heals
# ---------------------------------------------------------------------
as('alice', q{SELECT hummock_stream.create_materialized_view('alice_v',
	'SELECT id, v FROM public.shared_t')});
is(as('alice', 'SELECT count(*) FROM alice_v'), '5', "alice's view is backfilled");
$node->safe_psql('postgres', q{REVOKE SELECT ON shared_t FROM alice;
	INSERT INTO shared_t VALUES (100, 100)});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'permission denied for table shared_t' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'alice_v'::regclass::oid}),
	'after REVOKE the view fails with permission denied');
like(last_error('alice_v'), qr/shared_t/, 'the error names the table');
is(as('alice', 'SELECT count(*) FROM alice_v WHERE id = 100'), '0',
	'a row written after the REVOKE never reaches the view');
$node->safe_psql('postgres', 'GRANT SELECT ON shared_t TO alice');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM alice_v WHERE id = 100}),
	'after GRANT the view recovers and catches up');
# a column privilege: the view needs every column it reads
$node->safe_psql('postgres', q{REVOKE SELECT ON shared_t FROM alice;
	GRANT SELECT (id) ON shared_t TO alice;
	INSERT INTO shared_t VALUES (101, 101)});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'permission denied for table shared_t' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'alice_v'::regclass::oid}),
	'without SELECT on a column the view uses, the view fails');
$node->safe_psql('postgres', 'GRANT SELECT ON shared_t TO alice');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM alice_v WHERE id = 101}),
	'with the column granted again it recovers');

# EXECUTE on a function the view calls, likewise
$node->safe_psql('postgres', q{
	CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql IMMUTABLE AS 'SELECT $1 * 2';
	REVOKE EXECUTE ON FUNCTION twice(int) FROM PUBLIC;
	GRANT EXECUTE ON FUNCTION twice(int) TO alice;});
as('alice', q{SELECT hummock_stream.create_materialized_view('alice_twice',
	'SELECT id, public.twice(v) AS v2 FROM public.shared_t')});
$node->safe_psql('postgres', q{REVOKE EXECUTE ON FUNCTION twice(int) FROM alice;
	INSERT INTO shared_t VALUES (103, 103)});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'permission denied for function twice' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'alice_twice'::regclass::oid}),
	'after REVOKE EXECUTE on a function it calls the view fails');
is(as('alice', 'SELECT count(*) FROM alice_twice WHERE id = 103'), '0',
	'and shows nothing new');
like(fails_as('alice', q{SELECT hummock_stream.create_materialized_view('alice_twice2',
	'SELECT id, public.twice(v) AS v2 FROM public.shared_t')}),
	qr/42501.*permission denied for function twice/s,
	'creating a view that calls a function the caller may not execute is refused');
$node->safe_psql('postgres', 'GRANT EXECUTE ON FUNCTION twice(int) TO alice');
ok($node->poll_query_until('postgres', q{SELECT v2 = 206 FROM alice_twice WHERE id = 103}),
	'after GRANT EXECUTE it recovers');

# ---------------------------------------------------------------------
# 4. row-level security enabled after creation
# ---------------------------------------------------------------------
as('alice', q{SELECT hummock_stream.create_materialized_view('alice_tenants',
	'SELECT id, tenant, secret FROM public.tenants')});
$node->safe_psql('postgres', q{
	ALTER TABLE tenants ENABLE ROW LEVEL SECURITY;
	CREATE POLICY own_rows ON tenants USING (tenant = current_user);
	INSERT INTO tenants VALUES (3, 'bob', 30);});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'row-level security applies' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'alice_tenants'::regclass::oid}),
	'a policy that starts applying to the owner fails the view (0A000)');
is(as('alice', q{SELECT count(*) FROM alice_tenants WHERE tenant = 'bob' AND id = 3}), '0',
	"the view shows no row the policy hides from alice");
like(fails_as('alice', q{SELECT hummock_stream.create_materialized_view('alice_t2',
	'SELECT id FROM public.tenants')}),
	qr/0A000.*row-level security applies/s,
	'creating a view over a table whose policies apply to the owner is refused');
$node->safe_psql('postgres', 'ALTER TABLE tenants DISABLE ROW LEVEL SECURITY');
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM alice_tenants WHERE id = 3}),
	'once RLS no longer applies the view recovers');

# ---------------------------------------------------------------------
# 5. internals and monitoring
# ---------------------------------------------------------------------
for my $f ('hummock_stream.sstables()', 'hummock_stream.version_levels()',
	'hummock_stream.table_epochs()', 'hummock_stream.change_log_entries()',
	'hummock_stream.sstables', 'hummock_stream.versions',
	q{hummock_stream.sst_describe('x')}, 'hummock_stream.stream_jobs',
	'hummock_stream.stream_sources', 'hummock_stream.capture_logs')
{
	like(fails_as('alice', "SELECT * FROM $f"), qr/42501|permission denied/,
		"$f is not for PUBLIC");
}
# the capture trigger functions: a second capture trigger on one's own
# table would capture its changes twice under other roles' views
for my $f ('_capture', '_capture_truncate')
{
	my $when = $f eq '_capture' ? 'AFTER INSERT ON alice_own FOR EACH ROW' :
	  'BEFORE TRUNCATE ON alice_own FOR EACH STATEMENT';
	like(fails_as('alice', qq{CREATE TABLE IF NOT EXISTS alice_own (id int);
		CREATE TRIGGER twice $when EXECUTE FUNCTION hummock_stream.$f()}),
		qr/42501.*permission denied for function hummock_stream\.$f\b/s, "hummock_stream.$f() is not for PUBLIC");
}
my $log = $node->safe_psql('postgres',
	q{SELECT log_relid::regclass FROM hummock_stream.capture_logs LIMIT 1});
like(fails_as('alice', "SELECT * FROM $log"), qr/permission denied/,
	'capture logs are not readable');
is(as('alice', q{SELECT count(*) FROM hummock_stream.state_tables}), '0',
	"alice sees no state tables of others' views");
is(as('bob', q{SELECT count(*) > 0 AND bool_and(job::text = 'bob_agg') FROM hummock_stream.state_tables}), 't',
	'bob sees the state tables of his own views');
for my $v (qw(jobs fragments actors partial_graphs))
{
	my $key = $v eq 'jobs' ? 'name' : $v eq 'partial_graphs' ? 'graph_id::regclass' : 'job';
	is(as('alice', "SELECT string_agg(DISTINCT $key\::text, ',' ORDER BY $key\::text) FROM hummock_stream.$v"),
		'alice_tenants,alice_twice,alice_v', "alice sees only her views in $v");
}
is(as('bob', q{SELECT count(*) FROM hummock_stream.jobs WHERE name::text LIKE 'alice%'}),
	'0', "bob sees none of alice's views");
is(as('alice', q{SELECT count(*) FROM hummock_stream.barriers
	WHERE graph_id <> 0 AND graph_id NOT IN ('alice_v'::regclass::oid, 'alice_tenants'::regclass::oid,
	                                         'alice_twice'::regclass::oid)}),
	'0', "alice sees the barriers of her own graphs only");
is(as('watcher', q{SELECT count(*) >= 5 FROM hummock_stream.jobs}), 't',
	'pg_monitor members see every view');
# a leaky function cannot peek through the security barrier
as('bob', q{
	CREATE FUNCTION leak(text) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS $$
	BEGIN RAISE NOTICE 'leaked %', $1; RETURN true; END $$;});
my ($rc, $out, $err) = $node->psql('postgres',
	q{SELECT count(*) FROM hummock_stream.jobs WHERE leak(definition)},
	extra_params => [ '-U', 'bob' ]);
unlike($err, qr/alice_private|shared_t|tenants/, 'the monitoring views are security barriers');

# ---------------------------------------------------------------------
# SECURITY DEFINER functions, dropped and reassigned owners
# ---------------------------------------------------------------------
as('carol', q{
	CREATE TABLE carol_rates (k int PRIMARY KEY, rate int);
	INSERT INTO carol_rates VALUES (1, 7);
	-- (IMMUTABLE is a lie the view takes at its word, as an index would)
	CREATE FUNCTION carol_rate(int) RETURNS int LANGUAGE sql IMMUTABLE SECURITY DEFINER
	  AS $$SELECT rate FROM public.carol_rates WHERE k = $1$$;
	GRANT EXECUTE ON FUNCTION carol_rate(int) TO alice;
});
$node->safe_psql('postgres', q{GRANT SELECT ON shared_t TO carol});
as('alice', q{SELECT hummock_stream.create_materialized_view('alice_rated',
	'SELECT id, public.carol_rate(id) AS rate FROM public.shared_t WHERE id = 1')});
is(as('alice', 'SELECT rate FROM alice_rated'), '7',
	'a SECURITY DEFINER function in a view runs as its own owner');

# REASSIGN OWNED: the view goes on with the new owner's rights
$node->safe_psql('postgres', 'REASSIGN OWNED BY alice TO carol');
is($node->safe_psql('postgres', q{SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'alice_v'::regclass}),
	'carol', 'REASSIGN OWNED moves the views');
$node->safe_psql('postgres', q{INSERT INTO shared_t VALUES (102, 102)});
ok($node->poll_query_until('postgres', q{SELECT count(*) = 1 FROM alice_v WHERE id = 102}),
	"a reassigned view advances with its new owner's rights");
# carol may not read tenants: that view fails under her
$node->safe_psql('postgres', q{INSERT INTO tenants VALUES (4, 'carol', 40)});
ok($node->poll_query_until('postgres', q{
	SELECT last_error ~ 'permission denied for table tenants' FROM hummock_stream.partial_graphs
	 WHERE graph_id = 'alice_tenants'::regclass::oid}),
	'a reassigned view is checked against its new owner');

# DROP OWNED: bob's views go, with their capture
$node->safe_psql('postgres', 'DROP OWNED BY bob');
is($node->safe_psql('postgres', q{SELECT count(*) FROM hummock_stream.jobs j
	JOIN pg_class c ON c.oid = j.name WHERE pg_get_userbyid(c.relowner) = 'bob'}),
	'0', 'DROP OWNED drops the views of the role');
$node->safe_psql('postgres', 'DROP ROLE bob');
pass('the role is gone');
is(is_superuser('alice'), 'f', 'alice is not superuser');

# A DROP EXTENSION, DROP DATABASE or CREATE EXTENSION that Postgres refuses
# to an ordinary role does nothing, even caught under a savepoint: before,
# a refused DROP EXTENSION stopped every view and removed the store (every
# SST) when the caller's transaction committed.
{
	my $manager = q{SELECT pid FROM pg_stat_activity
		 WHERE backend_type = 'hummock_stream barrier manager' AND datname = 'postgres'};
	my $ssts = q{SELECT count(*) FROM pg_ls_dir('pg_hummock/' || (SELECT oid FROM pg_database WHERE datname = 'postgres')
		|| '/' || (SELECT oid FROM pg_extension WHERE extname = 'hummock_stream')) f WHERE f LIKE '%.sst'};
	my $pid = $node->safe_psql('postgres', $manager);
	ok($node->safe_psql('postgres', $ssts) > 0, 'the store holds SSTs');
	as('alice', q{DO $$ BEGIN DROP EXTENSION hummock_stream;
		EXCEPTION WHEN insufficient_privilege THEN NULL; END $$});
	# (psql goes on after each error, as with ON_ERROR_ROLLBACK)
	my ($rc, $out, $err) = $node->psql('postgres', q{BEGIN;
		SAVEPOINT a; DROP EXTENSION hummock_stream; ROLLBACK TO a;
		SAVEPOINT b; CREATE EXTENSION hummock_stream; ROLLBACK TO b;
		SAVEPOINT c; DROP EXTENSION IF EXISTS hummock_stream CASCADE; ROLLBACK TO c;
		COMMIT;}, on_error_stop => 0, extra_params => [ '-U', 'alice' ]);
	like($err, qr/must be owner of extension/, 'DROP EXTENSION is refused to alice');
	like(fails_as('alice', 'DROP DATABASE postgres'), qr/must be owner of database/,
		'DROP DATABASE is refused to alice');
	is($node->safe_psql('postgres', $manager), $pid, 'the barrier manager was never stopped');
	# (compaction may merge some meanwhile; a removed store has none)
	ok($node->safe_psql('postgres', $ssts) > 0, 'the store was not removed');
	$node->safe_psql('postgres', q{INSERT INTO shared_t VALUES (203, 203)});
	$node->safe_psql('postgres', q{SELECT hummock_stream.wait('alice_v', '60s')});
	is($node->safe_psql('postgres', q{SELECT count(*) FROM alice_v}),
		$node->safe_psql('postgres', q{SELECT count(*) FROM shared_t}), 'views read and go on');
	# the owner's drop under a savepoint that rolls back keeps it all too
	$node->safe_psql('postgres', q{BEGIN; SAVEPOINT a; DROP EXTENSION hummock_stream CASCADE;
		ROLLBACK TO a; COMMIT;});
	ok($node->safe_psql('postgres', $ssts) > 0, 'a rolled-back drop leaves the store');
	$node->safe_psql('postgres', q{INSERT INTO shared_t VALUES (204, 204)});
	$node->safe_psql('postgres', q{SELECT hummock_stream.wait('alice_v', '60s')});
	is($node->safe_psql('postgres', q{SELECT count(*) FROM alice_v}),
		$node->safe_psql('postgres', q{SELECT count(*) FROM shared_t}), 'and the views go on');
}

$node->stop;
done_testing();
