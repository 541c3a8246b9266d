#!/usr/bin/env bash
# bench/recursive_changes.sh -- what a change costs a view over a recursive
# WITH query, against REFRESH MATERIALIZED VIEW of the same query.
# Figures, never assertions.
#
# An org chart `org` of ROWS employees (default 200,000; ten top bosses,
# each employee under id / 10), and for each view, alone on the server:
#   tree   employees per top boss and depth (a hierarchy walked with
#          UNION ALL, aggregated above it: 50-odd rows);
#   chain  every employee with its top boss and depth (ROWS rows: the
#          whole result is compared with what the view showed).
# (KINDS="tree" runs one.)  The recursive query is computed again whole,
# by Postgres over the rows the view keeps, in every epoch that changes
# the columns it reads.  Printed: the creation (create_materialized_view
# against CREATE MATERIALIZED VIEW), then the time from a transaction's
# commit until hummock_stream.wait() returns (barrier interval 10 ms;
# median of REPEAT) for an UPDATE of a column the query does not read
# (salary), an employee moved under another boss, and 1,000 employees
# hired in one transaction; and REFRESH MATERIALIZED VIEW of the Postgres
# materialized view of the same query (median of 3).
#
# Run as root (it builds and installs into the system PostgreSQL 15):
#   bench/recursive_changes.sh
set -Eeuo pipefail
ROWS=${ROWS:-200000}
REPEAT=${REPEAT:-5}
BARRIER_MS=10
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

WALK="WITH RECURSIVE t(id, root, depth) AS (SELECT id, id, 0 FROM org WHERE boss IS NULL UNION ALL SELECT o.id, t.root, t.depth + 1 FROM org o JOIN t ON o.boss = t.id)"
declare -A QUERY=(
	[tree]="$WALK SELECT root, depth, count(*) AS n FROM t GROUP BY root, depth"
	[chain]="$WALK SELECT id, root, depth FROM t"
)
KINDS=${KINDS:-tree chain}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores, $ROWS employees"
for kind in $KINDS; do
	bench_server recursive 5493
	q=${QUERY[$kind]}
	$PSQL -c "CREATE TABLE org (id int PRIMARY KEY, boss int, salary int);
		INSERT INTO org SELECT g, CASE WHEN g <= 10 THEN NULL ELSE g / 10 END, g % 1000
		  FROM generate_series(1, $ROWS) g;"
	$PSQL -c "VACUUM ANALYZE org"
	pg=$(ms -c "CREATE MATERIALIZED VIEW mv_$kind AS $q")
	ours=$(ms -c "SELECT hummock_stream.create_materialized_view('v_$kind', \$q\$$q\$q\$)")
	echo "$kind: create ${ours} ms, CREATE MATERIALIZED VIEW ${pg} ms ($(echo "scale=2; $pg / $ours" | bc)x)"
	echo "$kind: operators $($PSQL -c "SELECT operators FROM hummock_stream.fragments WHERE job = 'v_$kind'::regclass")"
	next=$ROWS
	unread=() move=() hire=() refresh=()
	for i in $(seq 1 "$REPEAT"); do
		unread+=("$(ms -c "UPDATE org SET salary = salary + 1 WHERE id = $((ROWS / 2))" -c "SELECT hummock_stream.wait()")")
		move+=("$(ms -c "UPDATE org SET boss = $((i % 10 + 1)) WHERE id = $((20 + i))" -c "SELECT hummock_stream.wait()")")
	done
	for _ in 1 2 3; do
		hire+=("$(ms -c "INSERT INTO org SELECT g, g / 10, 1 FROM generate_series($((next + 1)), $((next + 1000))) g" -c "SELECT hummock_stream.wait()")")
		next=$((next + 1000))
		refresh+=("$(ms -c "REFRESH MATERIALIZED VIEW mv_$kind")")
	done
	r=$(printf '%s\n' "${refresh[@]}" | median)
	for what in unread move hire; do
		declare -n arr=$what
		m=$(printf '%s\n' "${arr[@]}" | median)
		echo "$kind: $what ${m} ms (commit to wait(), median), REFRESH ${r} ms ($(echo "scale=1; $r / $m" | bc)x)"
	done
	$PSQL -c "SELECT count(*) FROM ((SELECT * FROM v_$kind EXCEPT ALL SELECT * FROM ($q) q1) UNION ALL (SELECT * FROM ($q) q2 EXCEPT ALL SELECT * FROM v_$kind)) a" |
		sed "s/^/$kind: rows of the view and its query that differ: /"
	runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
	trap - EXIT
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
