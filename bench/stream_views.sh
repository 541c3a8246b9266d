#!/usr/bin/env bash
# bench/stream_views.sh -- what streaming materialized views cost writers,
# how fresh they are, and how they compare with REFRESH MATERIALIZED VIEW.
# One server, one run, same data and seed for every configuration.
#
# 1. Ingest: single-row INSERT transactions (pgbench, DURATION s each,
#    median of RUNS) into orders with (a) no view, (b) one GROUP BY view,
#    (c) three views on the table; 1 and 2 clients; synchronous_commit off
#    and on.  Prints tps and the ratio to (a).
# 2. Freshness: while a background load inserts about RATE rows/s into
#    orders (100-row transactions), a probe commits a row into a keyed
#    table with its own view and polls the view until the row is visible
#    (query_consistency = per_table); p50/p99 of commit -> visible.
# 3. Maintenance throughput: one transaction inserts BULK rows; time from
#    its commit until hummock_stream.wait() returns; rows/s.
# 4. Incremental vs REFRESH: 1% of REFRESH_ROWS rows updated; time until the
#    streaming view reflects it, against REFRESH MATERIALIZED VIEW of the
#    same query (a Postgres materialized view).
# The barrier interval is BARRIER_MS (default 100 ms; the server default is
# 1 s): freshness and the incremental times include up to one interval.
# Figures, not assertions.  Run as root:  bench/stream_views.sh
set -Eeuo pipefail
DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
RATE=${RATE:-10000}
PROBES=${PROBES:-200}
BULK=${BULK:-1000000}
REFRESH_ROWS=${REFRESH_ROWS:-1000000}
BARRIER_MS=${BARRIER_MS:-100}
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_server views 54397
$PSQL -c "CREATE TABLE orders (id bigserial PRIMARY KEY, customer_id int, amount numeric, status text)"
$PSQL -c "INSERT INTO orders (customer_id, amount, status) SELECT g % 1000, (g % 10000) / 100.0, 'ok' FROM generate_series(1, 100000) g"
cat >"$DIR/insert.sql" <<'SQL'
\set c random(1, 1000)
\set a random(1, 100000)
INSERT INTO orders (customer_id, amount, status) VALUES (:c, :a / 100.0, CASE WHEN :a % 10 = 0 THEN 'cancelled' ELSE 'ok' END);
SQL
chown postgres "$DIR/insert.sql"

V1="SELECT customer_id, count(*) AS n, sum(amount) AS total, max(amount) AS biggest FROM orders WHERE status <> 'cancelled' GROUP BY customer_id"
V2="SELECT id, customer_id, amount FROM orders WHERE amount > 900"
V3="SELECT status, count(*) AS n, avg(amount) AS a FROM orders GROUP BY status"
views() {	# n: make exactly the first n views exist
	local n=$1
	for v in 1 2 3; do
		$PSQL -c "SELECT hummock_stream.drop_materialized_view(to_regclass('v$v'))" >/dev/null
	done
	[ "$n" -ge 1 ] && $PSQL -c "SELECT hummock_stream.create_materialized_view('v1', \$q\$$V1\$q\$)" >/dev/null
	[ "$n" -ge 2 ] && $PSQL -c "SELECT hummock_stream.create_materialized_view('v2', \$q\$$V2\$q\$)" >/dev/null
	[ "$n" -ge 3 ] && $PSQL -c "SELECT hummock_stream.create_materialized_view('v3', \$q\$$V3\$q\$)" >/dev/null
	return 0
}
tps() {	# clients sync -> median tps
	local c=$1 s=$2 i
	for i in $(seq 1 "$RUNS"); do
		PGOPTIONS="-c synchronous_commit=$s" $PGBENCH -c "$c" -j "$c" -T "$DURATION" -f "$DIR/insert.sql" 2>/dev/null |
			sed -n 's/^tps = \([0-9.]*\).*/\1/p'
	done | median
}

if want 1; then
echo "== 1. single-row INSERT tps (median of $RUNS x ${DURATION}s, barrier interval ${BARRIER_MS} ms) =="
printf '%-8s %-5s %10s %10s %10s %8s %8s\n' clients sync a_noview b_1view c_3views b/a c/a
for s in off on; do
	for c in 1 2; do
		views 0; a=$(tps "$c" "$s")
		views 1; b=$(tps "$c" "$s")
		views 3; cc=$(tps "$c" "$s")
		printf '%-8s %-5s %10.0f %10.0f %10.0f %8.2f %8.2f\n' "$c" "$s" "$a" "$b" "$cc" \
			"$(echo "$b / $a" | bc -l)" "$(echo "$cc / $a" | bc -l)"
	done
done
fi

if want 2; then
echo "== 2. freshness: commit -> visible under ~$RATE rows/s (3 views busy) =="
views 3
$PSQL -c "CREATE TABLE probe (id int PRIMARY KEY, t timestamptz)" -c "CREATE TABLE lat (id int, ms float8)"
$PSQL -c "SELECT hummock_stream.create_materialized_view('probe_view', 'SELECT id FROM probe')" >/dev/null
cat >"$DIR/load.sql" <<'SQL'
INSERT INTO orders (customer_id, amount, status) SELECT (random() * 1000)::int, random() * 1000, 'ok' FROM generate_series(1, 100);
SQL
chown postgres "$DIR/load.sql"
$PGBENCH -c 1 -R $((RATE / 100)) -T 3600 -f "$DIR/load.sql" >/dev/null 2>&1 &
LOAD=$!
sleep 2
$PSQL <<SQL
SET hummock_stream.query_consistency = per_table;
CREATE PROCEDURE probe_run(n int) LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz;
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO probe VALUES (i, clock_timestamp());
    COMMIT;
    t0 := clock_timestamp();
    LOOP
      PERFORM 1 FROM probe_view WHERE id = i;
      EXIT WHEN FOUND OR clock_timestamp() - t0 > interval '30 s';
      PERFORM pg_sleep(0.001);
    END LOOP;
    INSERT INTO lat VALUES (i, extract(epoch FROM clock_timestamp() - t0) * 1000);
    COMMIT;
    PERFORM pg_sleep(0.02 + random() * 0.05);
  END LOOP;
END \$\$;
CALL probe_run($PROBES);
SQL
kill $LOAD 2>/dev/null || true; wait $LOAD 2>/dev/null || true
achieved=$($PSQL -c "SELECT count(*) FROM orders")
latency_summary lat
fi

if want 3; then
views 3
echo "== 3. maintenance throughput (3 views + probe view, $BULK rows in one transaction) =="
$PSQL -c "SELECT hummock_stream.wait()" >/dev/null
t0=$(date +%s.%N)
$PSQL -c "INSERT INTO orders (customer_id, amount, status) SELECT g % 1000, (g % 10000) / 100.0, 'ok' FROM generate_series(1, $BULK) g"
t1=$(date +%s.%N)
$PSQL -c "SELECT hummock_stream.wait(NULL, NULL)" >/dev/null
t2=$(date +%s.%N)
printf 'insert (with capture) %.2f s; commit -> visible in all views %.2f s; %.0f rows/s maintained\n' \
	"$(echo "$t1 - $t0" | bc -l)" "$(echo "$t2 - $t1" | bc -l)" "$(echo "$BULK / ($t2 - $t1)" | bc -l)"
fi

if want 4; then
echo "== 4. incremental vs REFRESH MATERIALIZED VIEW ($REFRESH_ROWS rows, 1% churn) =="
views 0
$PSQL -c "SELECT hummock_stream.drop_materialized_view(to_regclass('probe_view'))" >/dev/null
$PSQL -c "CREATE TABLE facts (id int PRIMARY KEY, k int, v numeric)" \
	-c "INSERT INTO facts SELECT g, g % 5000, g % 997 FROM generate_series(1, $REFRESH_ROWS) g"
Q="SELECT k, count(*) AS n, sum(v) AS s, min(v) AS lo, max(v) AS hi FROM facts GROUP BY k"
$PSQL -c "CREATE MATERIALIZED VIEW pg_mv AS $Q"
$PSQL -c "SELECT hummock_stream.create_materialized_view('hs_mv', \$q\$$Q\$q\$)" >/dev/null
churn=$((REFRESH_ROWS / 100))
rm_ms=() ; inc_ms=()
for i in $(seq 1 "$RUNS"); do
	$PSQL -c "UPDATE facts SET v = v + 1, k = (k + 7) % 5000 WHERE id % 100 = $i"
	t0=$(date +%s%N)
	$PSQL -c "SELECT hummock_stream.wait('hs_mv', NULL)" >/dev/null
	t1=$(date +%s%N)
	$PSQL -c "REFRESH MATERIALIZED VIEW pg_mv"
	t2=$(date +%s%N)
	inc_ms+=($(( (t1 - t0) / 1000000 ))); rm_ms+=($(( (t2 - t1) / 1000000 )))
done
inc=$(printf '%s\n' "${inc_ms[@]}" | median); ref=$(printf '%s\n' "${rm_ms[@]}" | median)
diff=$($PSQL -c "SELECT count(*) FROM ((TABLE hs_mv EXCEPT ALL TABLE pg_mv) UNION ALL (TABLE pg_mv EXCEPT ALL TABLE hs_mv)) d")
printf 'update of %d rows -> visible in the streaming view: %s ms; REFRESH MATERIALIZED VIEW: %s ms; ratio %.1fx (views differ in %s rows)\n' \
	"$churn" "$inc" "$ref" "$(echo "$ref / $inc" | bc -l)" "$diff"
fi
