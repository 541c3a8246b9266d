#!/usr/bin/env bash
# bench/window_changes.sh -- what a change costs a window view, against
# REFRESH MATERIALIZED VIEW of the same query.  Figures, never assertions.
#
# A time series `ts` of ROWS rows (default 1,000,000) in one partition
# (no PARTITION BY: the worst case, every change lands in the same
# partition).  For each view, alone on the server:
#   ranged  lag(v) and a 10-row moving average (ROWS BETWEEN 9 PRECEDING
#           AND CURRENT ROW): a change computes again the rows around it;
#   prefix  row_number() and a running sum: a change computes again the
#           rows from it to the partition's end;
#   range   a sum over the ids within 100 before (RANGE BETWEEN 100
#           PRECEDING AND CURRENT ROW): a change computes again the rows
#           whose frames hold its value;
#   whole   ntile(100): the partition is computed again.
# (KINDS="ranged prefix" runs some of them.)
# it prints the creation (create_materialized_view against CREATE
# MATERIALIZED VIEW), then the time from a transaction's commit until
# hummock_stream.wait() returns (barrier interval 10 ms; median of
# REPEAT) for: one row appended, one row's value updated in the middle,
# 1,000 rows appended in one transaction; and REFRESH MATERIALIZED VIEW
# of the Postgres materialized view of the same query (median of 3).
#
# Run as root (it builds and installs into the system PostgreSQL 15):
#   bench/window_changes.sh
set -Eeuo pipefail
ROWS=${ROWS:-1000000}
REPEAT=${REPEAT:-5}
BARRIER_MS=10
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

declare -A QUERY=(
	[ranged]="SELECT id, v, lag(v) OVER (ORDER BY id) AS prev, avg(v) OVER (ORDER BY id ROWS BETWEEN 9 PRECEDING AND CURRENT ROW) AS ma10 FROM ts"
	[prefix]="SELECT id, v, row_number() OVER (ORDER BY id) AS rn, sum(v) OVER (ORDER BY id) AS running FROM ts"
	[range]="SELECT id, v, sum(v) OVER (ORDER BY id RANGE BETWEEN 100 PRECEDING AND CURRENT ROW) AS last100 FROM ts"
	[whole]="SELECT id, v, ntile(100) OVER (ORDER BY id) AS bucket FROM ts"
)
KINDS=${KINDS:-ranged prefix range whole}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores, $ROWS rows"
for kind in $KINDS; do
	bench_server windows 5492
	q=${QUERY[$kind]}
	$PSQL -c "CREATE TABLE ts (id bigint PRIMARY KEY, v int);
		INSERT INTO ts SELECT g, ((g * 7919::bigint) % 1000)::int FROM generate_series(1, $ROWS) g;"
	$PSQL -c "VACUUM ANALYZE ts"
	pg=$(ms -c "CREATE MATERIALIZED VIEW mv_$kind AS $q")
	ours=$(ms -c "SELECT hummock_stream.create_materialized_view('v_$kind', \$q\$$q\$q\$)")
	echo "$kind: create ${ours} ms, CREATE MATERIALIZED VIEW ${pg} ms ($(echo "scale=2; $pg / $ours" | bc)x)"
	echo "$kind: operators $($PSQL -c "SELECT operators FROM hummock_stream.fragments WHERE job = 'v_$kind'::regclass")"
	next=$ROWS
	append=() update=() bulk=() refresh=()
	for _ in $(seq 1 "$REPEAT"); do
		next=$((next + 1))
		append+=("$(ms -c "INSERT INTO ts VALUES ($next, 1)" -c "SELECT hummock_stream.wait()")")
		update+=("$(ms -c "UPDATE ts SET v = v + 1 WHERE id = $((ROWS / 2))" -c "SELECT hummock_stream.wait()")")
	done
	for _ in 1 2 3; do
		bulk+=("$(ms -c "INSERT INTO ts SELECT g, g % 1000 FROM generate_series($((next + 1)), $((next + 1000))) g" -c "SELECT hummock_stream.wait()")")
		next=$((next + 1000))
		refresh+=("$(ms -c "REFRESH MATERIALIZED VIEW mv_$kind")")
	done
	r=$(printf '%s\n' "${refresh[@]}" | median)
	for what in append update bulk; do
		declare -n arr=$what
		m=$(printf '%s\n' "${arr[@]}" | median)
		echo "$kind: $what ${m} ms (commit to wait(), median), REFRESH ${r} ms ($(echo "scale=1; $r / $m" | bc)x)"
	done
	$PSQL -c "SELECT count(*) FROM (SELECT * FROM v_$kind EXCEPT ALL $q) a" | sed "s/^/$kind: rows of the view not in its query: /"
	runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
	trap - EXIT
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
