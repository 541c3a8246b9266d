# HummockStream::Crash -- restarting a TAP test's node after kill -9.
#
# After $node->kill9 the old postmaster and its children take a moment to
# go.  A start tried while the old postmaster still lives fails on its lock
# file, and PostgreSQL::Test::Cluster then records the old postmaster's PID
# as the node's, so that every later start bails out ("already running").
# restart_after_kill9 waits for the old postmaster with a deadline, and
# forgets that PID before every try.
package HummockStream::Crash;

use strict;
use warnings;
use Exporter 'import';
use Time::HiRes qw(time sleep);

our @EXPORT = qw(restart_after_kill9);

# Start $node again after kill -9 of its postmaster $old_pid; true once it
# runs, false if it did not within $timeout seconds (default 120).
sub restart_after_kill9
{
	my ($node, $old_pid, $timeout) = @_;
	my $deadline = time + ($timeout // 120);

	sleep(0.05) while defined $old_pid && kill(0, $old_pid) && time < $deadline;
	while (1)
	{
		$node->{_pid} = undef;	# (a failed start may have set it to the old one)
		return 1 if $node->start(fail_ok => 1);
		return 0 if time > $deadline;
		sleep(0.2);
	}
}

1;
