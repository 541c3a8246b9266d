#!/usr/bin/env bash
# bench/change_log_cost.sh -- what a view's change log costs to keep.
#
# A view writes the old value of every row it changes only while it keeps
# a change log (a view reads it, or its owner asked for one); otherwise it
# writes none.  For each view kind, over a BASE-row table, the same three
# transactions run with the view created with change_log => false and with
# change_log => true, alternately, RUNS times each: an INSERT of CHANGE
# rows, an UPDATE of those rows (every view row they make changes) and
# their DELETE.  For each: the time from its commit until
# hummock_stream.wait() returns, the compute worker's CPU over it, and the
# bytes of old-value SSTs the view's change log gained.  Medians; the
# ratio is with / without.  Figures, not assertions.  Run as root.
# BASE (default 200000), CHANGE (500000), RUNS (3), KINDS, BARRIER_MS (100).
set -Eeuo pipefail
BASE=${BASE:-200000}
CHANGE=${CHANGE:-500000}
RUNS=${RUNS:-3}
BARRIER_MS=${BARRIER_MS:-100}
KINDS=${KINDS:-filter sum join}
SECTIONS=1
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_server change_log_cost 54398
echo "hummock_stream.compute_workers = 1" >>"$DIR/data/postgresql.conf"
runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w restart >/dev/null
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start; $BASE base rows, $CHANGE changed; barrier ${BARRIER_MS} ms; one compute worker"

$PSQL <<SQL
CREATE TABLE dim (k int PRIMARY KEY, name text);
INSERT INTO dim SELECT k, 'name ' || k FROM generate_series(1, 5000) k;
CREATE TABLE facts (id bigint PRIMARY KEY, g int, k int, v int);
INSERT INTO facts SELECT i, i % 1000, 1 + i % 5000, i % 997 FROM generate_series(1, $BASE) i;
VACUUM ANALYZE dim, facts;
SQL

declare -A Q=(
	[filter]="SELECT id, g, v FROM facts WHERE v % 2 = 0"
	[sum]="SELECT g, count(*) AS n, sum(v) AS s FROM facts GROUP BY g"
	[join]="SELECT f.id, f.v, d.name FROM facts f JOIN dim d ON d.k = f.k"
)
from=$((BASE + 1)) to=$((BASE + CHANGE))
declare -A OPS=(
	[insert]="INSERT INTO facts SELECT i, i % 1000, 1 + i % 5000, i % 997 FROM generate_series($from, $to) i"
	[update]="UPDATE facts SET v = v + 2 WHERE id >= $from"
	[delete]="DELETE FROM facts WHERE id >= $from"
)

now() { date +%s.%N; }
PMPID=$(head -n 1 "$DIR/data/postmaster.pid")
worker_cpu() {
	local total=0 p
	for p in $(pgrep -P "$PMPID" -f "compute worker"); do
		total=$(awk -v t="$total" '{print t + ($14 + $15) / 100}' "/proc/$p/stat")
	done
	echo "$total"
}
# bytes of old-value SSTs in the view's change log
old_bytes() {
	$PSQL -c "SELECT coalesce(sum(size_bytes), 0) FROM hummock_stream.sstables
	           WHERE location = 'change log (old values)' AND 'bv'::regclass::oid::bigint = ANY (table_ids)"
}
# "wall cpu bytes" of one operation
measure() {
	local t0 t1 c0 c1 b0 b1
	b0=$(old_bytes)
	$PSQL -c "$1"
	t0=$(now)
	c0=$(worker_cpu)
	$PSQL -c "SELECT hummock_stream.wait('bv', interval '1 hour')" >/dev/null
	t1=$(now)
	c1=$(worker_cpu)
	# the entry of the last checkpoint is in the next version
	$PSQL -c "SELECT pg_sleep(0.3)" >/dev/null
	b1=$(old_bytes)
	echo "$(echo "$t1 - $t0" | bc) $(echo "$c1 - $c0" | bc) $((b1 - b0))"
}

echo "| view | operation | apply without log | with log | ratio | worker CPU without | with | ratio | old-value bytes with log |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for kind in $KINDS; do
	declare -A W=() C=() B=()
	for r in $(seq 1 "$RUNS"); do
		for log in false true; do
			$PSQL -c "SELECT hummock_stream.create_materialized_view('bv', \$q\$${Q[$kind]}\$q\$, change_log => $log)" >/dev/null
			for op in insert update delete; do
				read -r w c b < <(measure "${OPS[$op]}")
				W[$op.$log]+="$w "
				C[$op.$log]+="$c "
				B[$op.$log]+="$b "
			done
			$PSQL -c "SELECT hummock_stream.drop_materialized_view('bv')" >/dev/null
			$PSQL -c "VACUUM facts" >/dev/null
		done
	done
	for op in insert update delete; do
		wf=$(printf '%s\n' ${W[$op.false]} | median) wt=$(printf '%s\n' ${W[$op.true]} | median)
		cf=$(printf '%s\n' ${C[$op.false]} | median) ct=$(printf '%s\n' ${C[$op.true]} | median)
		bt=$(printf '%s\n' ${B[$op.true]} | median)
		printf '| %s | %s %s rows | %.2f s | %.2f s | %.2fx | %.2f s | %.2f s | %s | %s kB |\n' \
			"$kind" "$op" "$CHANGE" "$wf" "$wt" "$(echo "scale=3; $wt / $wf" | bc)" "$cf" "$ct" \
			"$( [ "$(echo "$cf > 0" | bc)" = 1 ] && printf '%.2fx' "$(echo "scale=3; $ct / $cf" | bc)" || echo -)" \
			"$((bt / 1024))"
	done
	unset W C B
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at end"
