# The shared block cache under a scan larger than itself: blocks that
# were read again (warm) stay cached while a large sequential scan passes
# through a 1MB cache, because a scan's blocks enter cold and only replace
# cold ones.  Every session is new, so its own block cache is empty and
# every block it reads comes through the shared cache.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('sbc');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.shared_block_cache_size = 1MB
hummock_stream.block_cache_size = 0
hummock_stream.compaction_interval = 1h
hummock_stream.query_consistency = per_table
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE EXTENSION hummock_stream_test;
	CREATE TABLE small (id int, v text) USING hummock;
	CREATE TABLE big (id int, v text) USING hummock;
	SELECT hummock_stream_test.test_load('small', hummock_stream.epoch_at(now()),
		$$SELECT g, repeat('s', 50) FROM generate_series(1, 300) g$$);
	SELECT hummock_stream_test.test_load('big', hummock_stream.epoch_at(now()),
		$$SELECT g, repeat('b', 50) FROM generate_series(1, 100000) g$$);
});

sub counters
{
	return split /\|/, $node->safe_psql('postgres',
		'SELECT hits, misses, evictions, skipped FROM hummock_stream.shared_block_cache');
}

is($node->safe_psql('postgres',
	'SELECT capacity_bytes FROM hummock_stream.shared_block_cache'),
	1024 * 1024, 'the cache has the configured size');

# read small twice: the second read finds every block and warms it
is($node->safe_psql('postgres', 'SELECT count(*) FROM small'), 300, 'small, first read');
my ($h0, $m0) = counters();
is($node->safe_psql('postgres', 'SELECT count(*) FROM small'), 300, 'small, second read');
my ($h1, $m1) = counters();
ok($h1 > $h0, 'the second read of small hit the shared cache');
is($m1, $m0, 'the second read of small missed nothing');

# a scan of big, several times the cache, twice
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM big'),
	'100000|5000050000', 'big, first scan');
is($node->safe_psql('postgres', 'SELECT count(*), sum(id) FROM big'),
	'100000|5000050000', 'big, second scan');
my ($h2, $m2, $e2) = counters();
ok($m2 > $m1, 'the scans of big missed (it does not fit)');
ok($e2 > 0, 'the scans of big evicted blocks');

# small's warm blocks survived both scans
is($node->safe_psql('postgres', 'SELECT count(*) FROM small'), 300, 'small after the scans');
my ($h3, $m3) = counters();
ok($h3 > $h2, 'small was read from the shared cache');
is($m3, $m2, 'no block of small was evicted by the scans of big');

# Scans read cached blocks in place under pins; none is left once they end
is($node->safe_psql('postgres',
	'SELECT pinned_blocks FROM hummock_stream.shared_block_cache'),
	0, 'finished scans hold no pins');

# A cursor holds a pin on the block it stands in.  An error that aborts
# the transaction releases it; so does a cancel in the middle of a scan.
# Both are checked in the same session (a session's exit releases its pins
# anyway).  small's two blocks are cached; a scan seeks to its first (a
# seek copies) and steps into the second, which it reads in place.
my ($rc, $out, $err) = $node->psql('postgres', q{
	BEGIN;
	DECLARE c CURSOR FOR SELECT * FROM small;
	FETCH 290 FROM c;
	SELECT 'held', pinned_blocks > 0 FROM hummock_stream.shared_block_cache;
	SELECT 1 / 0;
	ROLLBACK;
	SELECT 'after error', pinned_blocks FROM hummock_stream.shared_block_cache;
	SET statement_timeout = '200ms';
	SELECT count(pg_sleep(0.01)) FROM (SELECT * FROM small OFFSET 250) s;
	RESET statement_timeout;
	SELECT 'after cancel', pinned_blocks FROM hummock_stream.shared_block_cache;
}, on_error_stop => 0);
like($out, qr/^held\|t$/m, 'an open cursor pins its block');
like($out, qr/^after error\|0$/m, 'an aborted transaction released its pins');
like($err, qr/canceling statement due to statement timeout/, 'the scan was cancelled');
like($out, qr/^after cancel\|0$/m, 'a cancelled scan released its pins');

# Scans cut short leave nothing behind in the session: their SST
# iterators (readers, buffers, pins) are destroyed with the aborted query,
# so the SST cache's memory does not grow with every cancel.
($rc, $out, $err) = $node->psql('postgres', q{
	SELECT count(*) FROM big;
	SELECT 'before', used_bytes FROM pg_backend_memory_contexts
	  WHERE name = 'hummock sst cache';
	SET statement_timeout = '100ms';
	SELECT count(pg_sleep(0.0001)) FROM big;
	SELECT count(pg_sleep(0.0001)) FROM big;
	SELECT count(pg_sleep(0.0001)) FROM big;
	SELECT count(pg_sleep(0.0001)) FROM big;
	SELECT count(pg_sleep(0.0001)) FROM big;
	RESET statement_timeout;
	SELECT 'after', used_bytes FROM pg_backend_memory_contexts
	  WHERE name = 'hummock sst cache';
	SELECT 'pins', pinned_blocks FROM hummock_stream.shared_block_cache;
}, on_error_stop => 0);
my ($before) = $out =~ /^before\|(\d+)$/m;
my ($after) = $out =~ /^after\|(\d+)$/m;
ok(defined $before && defined $after, 'the SST cache memory was measured');
is(scalar(() = $err =~ /canceling statement due to statement timeout/g), 5,
	'five scans were cancelled');
is($after, $before, 'cancelled scans left no memory in the SST cache');
like($out, qr/^pins\|0$/m, 'nor pins');

# A savepoint rolled back under an open cursor releases nothing the cursor
# still reads: the pins belong to the cursor's portal, and the cursor goes
# on with the right rows.
($rc, $out, $err) = $node->psql('postgres', q{
	BEGIN;
	DECLARE c CURSOR FOR SELECT id FROM small;
	FETCH 5 FROM c;
	SAVEPOINT s;
	FETCH 285 FROM c;
	SELECT 1 / 0;
	ROLLBACK TO s;
	SELECT 'in savepoint', pinned_blocks > 0 FROM hummock_stream.shared_block_cache;
	FETCH ALL FROM c;
	COMMIT;
}, on_error_stop => 0);
like($out, qr/^in savepoint\|t$/m, 'the cursor keeps its pin across a rolled-back savepoint');
like($out, qr/^291\n(\d+\n){8}300$/m, 'and reads on from where it stood');
is($node->safe_psql('postgres', q{
	BEGIN;
	DECLARE c CURSOR FOR SELECT id FROM small;
	MOVE 5 IN c;
	SAVEPOINT s;
	MOVE 285 IN c;
	ROLLBACK TO s;
	MOVE FORWARD ALL IN c;
	COMMIT;
	SELECT pinned_blocks FROM hummock_stream.shared_block_cache;
}), 0, 'pins are released when the cursor ends');
my $sum = $node->safe_psql('postgres', q{
	CREATE FUNCTION read_all() RETURNS bigint LANGUAGE plpgsql AS $$
	DECLARE
		c CURSOR FOR SELECT id FROM small;
		r record;
		total bigint := 0;
	BEGIN
		OPEN c;
		LOOP
			BEGIN
				FETCH c INTO r;
				EXIT WHEN NOT FOUND;
				total := total + r.id;
				IF r.id % 50 = 0 THEN
					RAISE EXCEPTION 'roll back this fetch';
				END IF;
			EXCEPTION WHEN raise_exception THEN
				NULL;
			END;
		END LOOP;
		CLOSE c;
		RETURN total;
	END $$;
	SELECT read_all();
});
is($sum, 45150, 'fetches rolled back by exception blocks leave the cursor reading correct rows');

$node->stop;
done_testing();
