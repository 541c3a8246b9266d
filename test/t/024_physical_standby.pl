# Physical replication: SST files are WAL-logged (src/pg/wal_files.c), so a
# streaming standby made with pg_basebackup while a writer runs serves
# SELECT on the views with results equal to their queries run on the
# standby at its replay position; compaction and GC on the primary are
# replayed (the standby holds exactly the primary's objects); a promoted
# standby goes on maintaining every view from its committed epochs; a PITR
# restore to an LSN gives views equal to their queries there; and crash
# recovery of the primary replays the same records over its own
# files without harm.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use Time::HiRes qw(usleep);

my $primary = PostgreSQL::Test::Cluster->new('primary');
$primary->init(allows_streaming => 1, has_archiving => 1);
$primary->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compaction_interval = 1h
max_worker_processes = 16
});
$primary->start;

my %views = (
	per_kind => q{SELECT kind, count(*) AS n, sum(v) AS total FROM t GROUP BY kind},
	named => q{SELECT t.id, k.name FROM t JOIN kinds k ON k.kind = t.kind WHERE t.v % 3 = 0},
	top_kinds => q{SELECT kind, n FROM per_kind WHERE n > 100},
	max_v => q{SELECT kind, max(v) AS top FROM t GROUP BY kind},
);
my @order = qw(per_kind named top_kinds max_v);

$primary->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE kinds (kind int PRIMARY KEY, name text);
	INSERT INTO kinds SELECT k, 'kind ' || k FROM generate_series(0, 9) k;
	CREATE TABLE t (id int PRIMARY KEY, kind int, v int);
	INSERT INTO t SELECT i, i % 10, i FROM generate_series(1, 5000) i;
	CREATE PROCEDURE write_rows(first int, n int) LANGUAGE plpgsql AS $$
	BEGIN
	  FOR i IN first .. first + n - 1 LOOP
	    INSERT INTO t VALUES (i, i % 10, i);
	    UPDATE t SET v = v + 7 WHERE id = i - 1000;
	    DELETE FROM t WHERE id = i - 3000;
	    COMMIT;
	  END LOOP;
	END $$;
});
for my $v (@order)
{
	$primary->safe_psql('postgres',
		"SELECT hummock_stream.create_materialized_view('$v', \$q\$$views{$v}\$q\$)");
}

# each view equals its query on $node (after the primary's views caught up
# and the standby replayed that far)
sub views_equal
{
	my ($node) = @_;
	for my $v (@order)
	{
		my $diff = $node->safe_psql('postgres', qq{
			SELECT count(*) FROM ((TABLE $v EXCEPT ALL ($views{$v}))
			                UNION ALL (($views{$v}) EXCEPT ALL TABLE $v)) d});
		return "$v differs in $diff rows" if $diff ne '0';
	}
	return 'equal';
}

sub caught_up
{
	my ($standby) = @_;
	$primary->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	$primary->wait_for_catchup($standby, 'replay', $primary->lsn('insert'));
}

# the object files of the store, as a sorted list
sub objects
{
	my ($node) = @_;
	return $node->safe_psql('postgres', q{
		SELECT string_agg(f, ',' ORDER BY f)
		  FROM pg_ls_dir('pg_hummock/' || (SELECT oid FROM pg_database WHERE datname = 'postgres')
		                 || '/' || (SELECT oid FROM pg_extension WHERE extname = 'hummock_stream')) f
		 WHERE f LIKE '%.sst'});
}

# a base backup taken while a writer runs
my $writer = $primary->background_psql('postgres');
$writer->query_until(qr/started/, q{
	\echo started
	CALL write_rows(5001, 1500);
});
$primary->backup('b1');
my $standby = PostgreSQL::Test::Cluster->new('standby');
$standby->init_from_backup($primary, 'b1', has_streaming => 1);
$standby->start;
$writer->quit;

caught_up($standby);
is(views_equal($primary), 'equal', 'views on the primary equal their queries');
is(views_equal($standby), 'equal', 'views on the standby equal their queries at its replay position');
ok($standby->safe_psql('postgres', 'SELECT pg_is_in_recovery()') eq 't', 'the standby is in recovery');
is($standby->safe_psql('postgres', 'SELECT count(*) FROM hummock_stream.workers'), '0',
	'no streaming workers run on the standby');

# reads on the standby follow the primary's commits
$primary->safe_psql('postgres', 'CALL write_rows(6501, 300)');
caught_up($standby);
is(views_equal($standby), 'equal', 'the standby follows new commits');

# compaction and GC on the primary: new objects written, old ones removed
my $before = objects($primary);
$primary->safe_psql('postgres', 'SELECT * FROM hummock_stream.compact(true)');
$primary->safe_psql('postgres', 'CALL write_rows(6801, 200)');
$primary->safe_psql('postgres', 'SELECT * FROM hummock_stream.compact(true)');
$primary->safe_psql('postgres', 'SELECT hummock_stream.wait()');
$primary->safe_psql('postgres', 'SELECT * FROM hummock_stream.gc()');
isnt(objects($primary), $before, 'compaction and GC changed the primary\'s objects');
caught_up($standby);
is(objects($standby), objects($primary), 'the standby holds exactly the primary\'s objects');
is(views_equal($standby), 'equal', 'views on the standby equal their queries after compaction and GC');

# DROP DATABASE of a database with views removes its store on the standby too
$primary->safe_psql('postgres', 'CREATE DATABASE extra');
$primary->safe_psql('extra', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE x (id int PRIMARY KEY);
	INSERT INTO x SELECT generate_series(1, 100);
	SELECT hummock_stream.create_materialized_view('xv', 'SELECT count(*) AS n FROM x');
});
my $extra_oid = $primary->safe_psql('postgres', q{SELECT oid FROM pg_database WHERE datname = 'extra'});
my $store_of_extra = qq{SELECT count(*) FROM pg_ls_dir('pg_hummock') d WHERE d = '$extra_oid'};
caught_up($standby);
is($standby->safe_psql('postgres', $store_of_extra), '1', 'the standby has the store of a new database');
$primary->safe_psql('postgres', 'DROP DATABASE extra');
caught_up($standby);
is($standby->safe_psql('postgres', $store_of_extra), '0', 'and removes it with the database');

# a standby maintains nothing: wait() says so at once (a wait would hold a
# snapshot that stops the replay it waits for)
my ($rc, $out, $err) = $standby->psql('postgres', 'SELECT hummock_stream.wait()');
like($err, qr/recovery is in progress/, 'wait() on a standby fails at once');

# promotion: the new primary maintains every view from its committed epochs
$standby->promote;
$standby->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the standby did not finish its promotion';
$standby->safe_psql('postgres', 'CALL write_rows(7001, 300)');
$standby->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(views_equal($standby), 'equal', 'the promoted standby maintains its views');

# PITR: the base backup and the archived WAL, replayed to an LSN between
# two batches of writes (past the compaction and GC above), then promoted:
# the tables are at that point and the views, maintained on from their
# committed epochs, equal their queries there
$primary->safe_psql('postgres', 'CALL write_rows(8001, 200)');
$primary->safe_psql('postgres', 'SELECT hummock_stream.wait()');
my $target = $primary->safe_psql('postgres', 'SELECT pg_current_wal_insert_lsn()');
my $rows_at_target = $primary->safe_psql('postgres', 'SELECT count(*) FROM t');
$primary->safe_psql('postgres', 'CALL write_rows(8201, 200)');
my $last_segment = $primary->safe_psql('postgres',
	'SELECT pg_walfile_name(pg_current_wal_insert_lsn())');
$primary->safe_psql('postgres', 'SELECT pg_switch_wal()');
$primary->poll_query_until('postgres',
	"SELECT last_archived_wal >= '$last_segment' FROM pg_stat_archiver")
  or die 'WAL was not archived';
my $pitr = PostgreSQL::Test::Cluster->new('pitr');
$pitr->init_from_backup($primary, 'b1', has_restoring => 1);
$pitr->append_conf('postgresql.conf', qq{
recovery_target_lsn = '$target'
recovery_target_action = 'promote'
});
$pitr->start;
$pitr->poll_query_until('postgres', 'SELECT NOT pg_is_in_recovery()')
  or die 'the PITR restore did not finish';
is($pitr->safe_psql('postgres', 'SELECT count(*) FROM t'), $rows_at_target,
	'the restore stopped at the target');
$pitr->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(views_equal($pitr), 'equal', 'views of the PITR restore equal their queries at the target');
$pitr->safe_psql('postgres', 'CALL write_rows(9001, 100)');
$pitr->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(views_equal($pitr), 'equal', 'and are maintained after it');
$pitr->stop;

# crash recovery of the old primary replays the file records over its own files
$primary->safe_psql('postgres', 'CALL write_rows(7001, 200)');
$primary->stop('immediate');
$primary->start;
$primary->safe_psql('postgres', 'CALL write_rows(7201, 100)');
$primary->safe_psql('postgres', 'SELECT hummock_stream.wait()');
is(views_equal($primary), 'equal', 'after crash recovery the primary\'s views equal their queries');

$standby->stop;
$primary->stop;
done_testing();
