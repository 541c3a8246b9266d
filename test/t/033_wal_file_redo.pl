# Crash recovery replays the WAL records of the object directory's files
# (src/pg/wal_files.c) from the last checkpoint's redo point, which can lie
# between a file's CREATE and its RENAME: an object written across the start
# of a checkpoint.  Replay must leave the renamed, complete file as it was.
# Before the fix, the WRITE records after the redo point made a new
# temporary file (its first half zeros) and the RENAME put it over the
# object: a crash during a long spread checkpoint corrupted a compaction's
# output for good.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

my $node = PostgreSQL::Test::Cluster->new('wal_file_redo');
$node->init(allows_streaming => 1);
$node->append_conf('postgresql.conf', q{
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
max_worker_processes = 16
});
$node->start;
$node->safe_psql('postgres',
	'CREATE EXTENSION hummock_stream; CREATE EXTENSION hummock_stream_test');

my $bytes = 3 * 1024 * 1024 + 12345;
my $path = 'pg_hummock/wal_file_redo_test/object.sst';
my $check = qq{
	SELECT length(b) AS len,
	       position('\\x00'::bytea IN b) = 0 AS no_zero,
	       md5(b) = md5((SELECT string_agg(set_byte('\\x00'::bytea, 0, 1 + i % 251), ''::bytea ORDER BY i)
	                     FROM generate_series(0, $bytes - 1) i)) AS as_written
	  FROM pg_read_binary_file('$path') b};

$node->safe_psql('postgres',
	"SELECT hummock_stream_test.write_file_across_checkpoint('$path', $bytes)");
is($node->safe_psql('postgres', $check), "$bytes|t|t",
	'the file written across a checkpoint is whole');

# a crash before the next checkpoint: replay starts between its records
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', $check), "$bytes|t|t",
	'crash recovery replayed its records and left it whole');
ok(!-e $node->data_dir . "/$path.tmp", 'and left no temporary file');

# twice in a row, then a crash again: every version of it replays whole
$node->safe_psql('postgres',
	"SELECT hummock_stream_test.write_file_across_checkpoint('$path', $bytes)");
$node->safe_psql('postgres',
	"SELECT hummock_stream_test.write_file_across_checkpoint('$path', $bytes)");
$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', $check), "$bytes|t|t",
	'after two writes and a crash it is whole');

$node->stop;
done_testing();
