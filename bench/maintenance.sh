#!/usr/bin/env bash
# bench/maintenance.sh -- what maintaining a streaming view costs per
# changed row, against Postgres recomputing it (REFRESH MATERIALIZED VIEW
# of the same query over the same rows), one compute worker.
#
# 1. Throughput: for each view kind over a BASE-row table, one transaction
#    inserts CHANGE rows (joins with both sides changing: half into each
#    side); the time from its commit until hummock_stream.wait() returns
#    is the apply time, rows/s = CHANGE / apply time.  REFRESH of the same
#    query as a Postgres materialized view over the rows after the change,
#    in the same run.  The inserted rows are deleted again (and applied)
#    between runs; median of RUNS.  Worker CPU: the compute worker's user
#    + system seconds over the apply (its cost, without the wait for the
#    next barrier that the wall time includes).  Worker peak RSS: the
#    compute worker's private memory (RssAnon), its largest sample (every
#    100 ms) over the kind's runs after the view's creation.
# 2. Churn: UPDATE of CHURN (1%) of the base rows in one transaction, each
#    moving to another group with a new value; apply time against REFRESH;
#    the speedup is REFRESH / apply.
# Figures, not assertions.  Run as root:  bench/maintenance.sh
# BASE (default 1000000), CHANGE (1000000), CHURN (BASE / 100), RUNS (3),
# KINDS (the view kinds; also usum and urecompute: a user-defined sum with
# and without moving-aggregate support), SECTIONS ("1 2"), BARRIER_MS (100), CHANGE_LOG
# (false: the views keep no change log, as a view nobody reads; true: they
# keep one, as a view with a downstream or a change_log() reader).
set -Eeuo pipefail
BASE=${BASE:-1000000}
CHANGE=${CHANGE:-1000000}
CHURN=${CHURN:-$((BASE / 100))}
RUNS=${RUNS:-3}
BARRIER_MS=${BARRIER_MS:-100}
SECTIONS=${SECTIONS:-1 2}
KINDS=${KINDS:-filter sum having min distinct top3 join join2 join3}
CHANGE_LOG=${CHANGE_LOG:-false}
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_server maintenance 54397
echo "hummock_stream.compute_workers = 1" >>"$DIR/data/postgresql.conf"
runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w restart >/dev/null
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start; $BASE base rows, $CHANGE changed; barrier ${BARRIER_MS} ms; one compute worker; change log: $CHANGE_LOG"

$PSQL <<SQL
CREATE TABLE region (r int PRIMARY KEY, rname text);
INSERT INTO region SELECT r, 'region ' || r FROM generate_series(0, 9) r;
CREATE TABLE dim (k int PRIMARY KEY, name text, r int);
INSERT INTO dim SELECT k, 'name ' || k, k % 10 FROM generate_series(1, 5000) k;
CREATE TABLE facts (id bigint PRIMARY KEY, g int, k int, v int);
INSERT INTO facts SELECT i, i % 1000, 1 + i % 5000, (hashint8(i) & 1048575)::int
  FROM generate_series(1, $BASE) i;
CREATE TABLE notes (id bigint PRIMARY KEY, fid bigint, w int);
INSERT INTO notes SELECT i, i, i % 100 FROM generate_series(1, $BASE) i;
VACUUM ANALYZE region, dim, facts, notes;
-- (usum, urecompute) a user's sum with and without moving-aggregate support
CREATE FUNCTION bench_add(s int8, x int) RETURNS int8 LANGUAGE sql IMMUTABLE STRICT AS 'SELECT s + x';
CREATE FUNCTION bench_inv(s int8, x int) RETURNS int8 LANGUAGE sql IMMUTABLE STRICT AS 'SELECT s - x';
CREATE AGGREGATE usum_moving(int) (SFUNC = bench_add, STYPE = int8, INITCOND = 0,
  MSFUNC = bench_add, MINVFUNC = bench_inv, MSTYPE = int8, MINITCOND = 0);
CREATE AGGREGATE usum_plain(int) (SFUNC = bench_add, STYPE = int8, INITCOND = 0);
SQL

declare -A Q=(
	[filter]="SELECT id, g, v FROM facts WHERE v % 10 = 0"
	[sum]="SELECT g, count(*) AS n, sum(v) AS s FROM facts GROUP BY g"
	[having]="SELECT g, count(*) AS n, sum(v) AS s FROM facts GROUP BY g HAVING sum(v) > 500000000"
	[min]="SELECT g, count(*) AS n, min(v) AS m FROM facts GROUP BY g"
	[distinct]="SELECT g, count(DISTINCT v) AS d FROM facts GROUP BY g"
	[top3]="SELECT g, id, v FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM facts) s WHERE rn <= 3"
	[join]="SELECT f.id, f.v, d.name FROM facts f JOIN dim d ON d.k = f.k"
	[join2]="SELECT f.id, f.v, n.w FROM facts f JOIN notes n ON n.fid = f.id"
	[join3]="SELECT f.id, d.name, r.rname FROM facts f JOIN dim d ON d.k = f.k JOIN region r ON r.r = d.r"
	[usum]="SELECT g, count(*) AS n, usum_moving(v) AS s FROM facts GROUP BY g"
	[urecompute]="SELECT g, count(*) AS n, usum_plain(v) AS s FROM facts GROUP BY g"
)

PMPID=$(head -n 1 "$DIR/data/postmaster.pid")
# CPU seconds (user + system) the compute workers of this server used so far
worker_cpu() {
	local total=0 p
	for p in $(pgrep -P "$PMPID" -f "compute worker"); do
		total=$(awk -v t="$total" '{print t + ($14 + $15) / 100}' "/proc/$p/stat")
	done
	echo "$total"
}
# the compute worker's peak private memory (RssAnon, sampled every 100 ms
# from worker_rss_start to worker_rss_stop; VmHWM would count the shared
# buffers and block cache pages it touched, which grow with what it read)
worker_rss_start() {
	RSS_FILE=$(mktemp)
	(
		max=0
		while :; do
			for p in $(pgrep -P "$PMPID" -f "compute worker"); do
				kb=$(awk '/RssAnon/ {print $2}' "/proc/$p/status" 2>/dev/null || echo 0)
				[ "${kb:-0}" -gt "$max" ] && max=$kb && echo "$max" >"$RSS_FILE"
			done
			sleep 0.1
		done
	) &
	RSS_PID=$!
}
worker_rss_stop() {
	kill "$RSS_PID" 2>/dev/null || true
	wait "$RSS_PID" 2>/dev/null || true
	echo "$(($(cat "$RSS_FILE" 2>/dev/null || echo 0) / 1024)) MB"
	rm -f "$RSS_FILE"
}
# the insert of the changed rows of run $2 (join2: half into each side,
# matching); each run's values are new (a run re-inserts the ids the last
# one deleted, not their (group, value) pairs)
insert_sql() {
	local from=$((BASE + 1)) to=$((BASE + CHANGE)) salt=$((${2:-0} * 7919))
	if [ "$1" = join2 ]; then
		local half=$((BASE + CHANGE / 2))
		echo "BEGIN;
INSERT INTO facts SELECT i, i % 1000, 1 + i % 5000, (hashint8(i + $salt) & 1048575)::int FROM generate_series($from, $half) i;
INSERT INTO notes SELECT i, i, i % 100 FROM generate_series($from, $half) i;
COMMIT;"
	else
		echo "INSERT INTO facts SELECT i, i % 1000, 1 + i % 5000, (hashint8(i + $salt) & 1048575)::int FROM generate_series($from, $to) i;"
	fi
}
undo_sql="BEGIN; DELETE FROM facts WHERE id > $BASE; DELETE FROM notes WHERE id > $BASE; COMMIT;"
# seconds from the commit of sql until the view has applied it, timed by
# the server in the session that committed it (no client start counted),
# and the compute worker's CPU seconds meanwhile ("wall cpu"; the worker
# has nothing to do before the commit)
apply_seconds() {
	local secs c0 c1
	c0=$(worker_cpu)
	secs=$($PSQL <<SQL
$1;
SELECT clock_timestamp() AS t0 \gset
SELECT hummock_stream.wait('bv', interval '1 hour') \g /dev/null
SELECT extract(epoch FROM clock_timestamp() - :'t0');
SQL
)
	c1=$(worker_cpu)
	echo "$secs $(echo "$c1 - $c0" | bc)"
}
refresh_seconds() {	# timed the same way
	$PSQL <<SQL
SELECT clock_timestamp() AS t0 \gset
REFRESH MATERIALIZED VIEW pv;
SELECT extract(epoch FROM clock_timestamp() - :'t0');
SQL
}
views_create() {	# the streaming view bv and the Postgres one pv of query $1
	$PSQL -c "SELECT hummock_stream.create_materialized_view('bv', \$q\$$1\$q\$, change_log => $CHANGE_LOG)" >/dev/null
	$PSQL -c "CREATE MATERIALIZED VIEW pv AS $1" >/dev/null
}
views_drop() {
	$PSQL -c "SELECT hummock_stream.drop_materialized_view('bv')" >/dev/null
	$PSQL -c "DROP MATERIALIZED VIEW pv" >/dev/null
}
check() {	# the view equals its query (0 differing rows)
	$PSQL -c "SELECT count(*) FROM ((TABLE bv EXCEPT ALL ($1)) UNION ALL (($1) EXCEPT ALL TABLE bv)) x"
}

if want 1; then
	echo "| view | apply $CHANGE rows | rows/s | worker CPU | REFRESH | apply / REFRESH | worker peak RSS | differs |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for kind in $KINDS; do
		q=${Q[$kind]}
		views_create "$q"
		worker_rss_start
		ours=() cpu=() pg=()
		for r in $(seq 1 "$RUNS"); do
			read -r w c < <(apply_seconds "$(insert_sql "$kind" "$r")")
			ours+=("$w") cpu+=("$c")
			pg+=("$(refresh_seconds)")
			diff=$(check "$q")
			apply_seconds "$undo_sql" >/dev/null
			$PSQL -c "VACUUM facts, notes"
		done
		o=$(printf '%s\n' "${ours[@]}" | median)
		c=$(printf '%s\n' "${cpu[@]}" | median)
		p=$(printf '%s\n' "${pg[@]}" | median)
		n=$CHANGE
		printf '| %s | %.2f s | %s | %.2f s | %.2f s | %.2fx | %s | %s |\n' "$kind" "$o" \
			"$(echo "scale=0; $n / $o" | bc)" "$c" "$p" "$(echo "scale=3; $o / $p" | bc)" "$(worker_rss_stop)" "$diff"
		views_drop
	done
fi

if want 2; then
	echo "| view | apply UPDATE of $CHURN rows | worker CPU | REFRESH | speedup (REFRESH / apply) | REFRESH / worker CPU | worker peak RSS | differs |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
	for kind in $KINDS; do
		q=${Q[$kind]}
		views_create "$q"
		worker_rss_start
		ours=() cpu=() pg=()
		for r in $(seq 1 "$RUNS"); do
			# the rows move to the next group and get a new value
			read -r w c < <(apply_seconds "UPDATE facts SET g = (g + 1) % 1000, v = (v + $r) & 1048575 WHERE id % $((BASE / CHURN)) = $((r % (BASE / CHURN)))")
			ours+=("$w") cpu+=("$c")
			pg+=("$(refresh_seconds)")
			diff=$(check "$q")
		done
		o=$(printf '%s\n' "${ours[@]}" | median)
		c=$(printf '%s\n' "${cpu[@]}" | median)
		p=$(printf '%s\n' "${pg[@]}" | median)
		printf '| %s | %.3f s | %.3f s | %.3f s | %.1fx | %s | %s | %s |\n' "$kind" "$o" "$c" "$p" \
			"$(echo "scale=2; $p / $o" | bc)" \
			"$(if [ "$(echo "$c > 0" | bc)" = 1 ]; then echo "$(echo "scale=1; $p / $c" | bc)x"; else echo "-"; fi)" "$(worker_rss_stop)" "$diff"
		views_drop
	done
fi
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at end"
