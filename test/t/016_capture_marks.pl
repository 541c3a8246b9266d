# Capture marks (src/stream/capture_marks.c): an epoch skips the
# capture-log query of an input that no transaction could have written
# since the job's position, and never skips one that holds rows to read:
#  (a) a view over two tables, only one of them written: the other's log
#      reads are skipped (the job's DEBUG1 line counts them), the view
#      equals its query;
#  (b) a transaction that wrote the idle table long before it commits
#      (while other epochs pass) is consumed when it commits;
#  (c) after an immediate restart (marks are in shared memory, so they are
#      gone) writes to either table reach the view;
#  (d) a transaction that took its xid before the idle table's mark was
#      made (by the job's reader, after a restart) and writes it later is
#      consumed.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;
use IPC::Run;
use Time::HiRes qw(time sleep);

my $node = PostgreSQL::Test::Cluster->new('capture_marks');
$node->init;
$node->append_conf('postgresql.conf', qq{
shared_preload_libraries = 'hummock_stream'
hummock_stream.barrier_interval_ms = 50
hummock_stream.compute_workers = 1
max_worker_processes = 16
log_min_messages = debug1
});
$node->start;
$node->safe_psql('postgres', q{
	CREATE EXTENSION hummock_stream;
	CREATE TABLE busy (id int PRIMARY KEY, v int);
	CREATE TABLE idle (id int PRIMARY KEY, v int);
	INSERT INTO busy SELECT g, g FROM generate_series(1, 100) g;
	INSERT INTO idle SELECT g, g FROM generate_series(1, 100) g;
	SELECT hummock_stream.create_materialized_view('both_v',
		'SELECT id, v FROM busy UNION ALL SELECT id, v FROM idle');
});
my $def = 'SELECT id, v FROM busy UNION ALL SELECT id, v FROM idle';

sub equal
{
	my ($what) = @_;
	$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	is($node->safe_psql('postgres', qq{
		SELECT count(*) FROM ((TABLE both_v EXCEPT ALL ($def)) UNION ALL (($def) EXCEPT ALL TABLE both_v)) x}),
		'0', "$what: the view equals its query");
}

# a psql session fed through *$in, its output in *$out
sub session
{
	my ($in, $out) = @_;
	return IPC::Run::start(
		[ 'psql', '-X', '-qAt', '-v', 'ON_ERROR_STOP=1', '-d', $node->connstr('postgres') ],
		'<', $in, '>', $out, '2>', $out);
}

# one committed epoch per update of busy rows $from .. $to
sub busy_epochs
{
	my ($from, $to) = @_;
	for my $i ($from .. $to)
	{
		$node->safe_psql('postgres', "UPDATE busy SET v = v + 1 WHERE id = $i");
		$node->safe_psql('postgres', 'SELECT hummock_stream.wait()');
	}
}

# the largest "capture-log reads skipped" count logged since $offset
sub skipped_since
{
	my ($offset) = @_;
	my $log = slurp_file($node->logfile, $offset);
	my $max = 0;
	while ($log =~ /rows so far, (\d+) capture-log reads skipped/g)
	{
		$max = $1 if $1 > $max;
	}
	return $max;
}

# (a) write only busy, epoch after epoch
my $offset = -s $node->logfile;
busy_epochs(1, 20);
cmp_ok(skipped_since($offset), '>', 0, '(a) reads of the unwritten input are skipped');
equal('(a)');

# (b) a transaction writes idle and stays open while busy's epochs pass
my ($in, $out) = ('', '');
my $long = session(\$in, \$out);
$in .= "BEGIN; UPDATE idle SET v = -v WHERE id <= 10; SELECT 'written';\n";
$long->pump until $out =~ /written/;
busy_epochs(21, 30);
$in .= "COMMIT; SELECT 'committed';\n";
$long->pump until $out =~ /committed/;
$in .= "\\q\n";
$long->finish;
equal('(b) a long transaction on the idle table');

# (c) an immediate restart forgets the marks; writes go on
$node->stop('immediate');
$node->start;
$node->safe_psql('postgres', q{
	INSERT INTO busy VALUES (1000, 1);
	INSERT INTO idle VALUES (1000, 2);
	DELETE FROM idle WHERE id = 50});
equal('(c) after a restart');

# (d) a transaction that has its xid before idle's mark is made (by the
# job's reader, after the restart) writes idle only later: its xid is below
# the mark, and the epoch that sees its commit still reads idle's log
$node->stop('immediate');
$node->start;
($in, $out) = ('', '');
my $old = session(\$in, \$out);
$in .= "BEGIN; SELECT pg_current_xact_id(); SELECT 'has xid';\n";
$old->pump until $out =~ /has xid/;
busy_epochs(31, 40);
$in .= "UPDATE idle SET v = v * 3 WHERE id > 90; COMMIT; SELECT 'committed';\n";
$old->pump until $out =~ /committed/;
$in .= "\\q\n";
$old->finish;
equal('(d) an older transaction writing the idle table');

$node->stop;
done_testing();
