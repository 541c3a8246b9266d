#!/usr/bin/env bash
# bench/stream_joins.sh -- what join views cost writers and how fast they
# are maintained.  One server, one run, same data and seed throughout.
#
# 1. Ingest: single-row INSERT transactions (pgbench, DURATION s each,
#    median of RUNS) into a fact table with (a) no view, (b) a
#    fact JOIN dim GROUP BY view; 1 and 2 clients, synchronous_commit off
#    and on.  Prints tps and b/a.
# 2. Maintenance: one transaction inserts BULK fact rows; time from its
#    commit until a 3-way join view (fact JOIN dim JOIN region) has them;
#    rows/s.
# 3. Freshness of the 3-way join view: while a background load inserts
#    about RATE fact rows/s (50-row transactions), a probe commits one fact
#    row and polls the view until it appears (query_consistency =
#    per_table); p50/p99 of commit -> visible.
# 4. Fan-out: an UPDATE of one dimension row that FANOUT fact rows join;
#    time until the 3-way join view shows the new value in all of them.
# The barrier interval is BARRIER_MS (default 100 ms; the server default is
# 1 s).  Figures, not assertions.  Run as root:  bench/stream_joins.sh
set -Eeuo pipefail
DURATION=${DURATION:-10}
RUNS=${RUNS:-3}
RATE=${RATE:-5000}
PROBES=${PROBES:-200}
BULK=${BULK:-200000}
FANOUT=${FANOUT:-10000}
BARRIER_MS=${BARRIER_MS:-100}
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_server joins 54398
$PSQL <<'SQL'
CREATE TABLE region (id int PRIMARY KEY, name text);
CREATE TABLE dim (id int PRIMARY KEY, region_id int, category text, price numeric);
CREATE TABLE fact (id bigserial PRIMARY KEY, dim_id int, qty int, note text);
INSERT INTO region SELECT g, 'region ' || g FROM generate_series(0, 9) g;
INSERT INTO dim SELECT g, g % 10, 'cat ' || (g % 50), (g % 100) + 0.99 FROM generate_series(1, 10000) g;
INSERT INTO fact (dim_id, qty, note) SELECT 1 + g % 10000, g % 7, 'n' FROM generate_series(1, 100000) g;
SQL
cat >"$DIR/insert.sql" <<'SQL'
\set d random(1, 10000)
\set q random(1, 10)
INSERT INTO fact (dim_id, qty, note) VALUES (:d, :q, 'x');
SQL
chown postgres "$DIR/insert.sql"

VJOIN="SELECT d.category, count(*) AS n, sum(f.qty * d.price) AS revenue FROM fact f JOIN dim d ON d.id = f.dim_id GROUP BY d.category"
V3WAY="SELECT f.id, f.qty, d.category, r.name AS region FROM fact f JOIN dim d ON d.id = f.dim_id JOIN region r ON r.id = d.region_id"
drop_views() {
	for v in vjoin v3way; do
		$PSQL -c "SELECT hummock_stream.drop_materialized_view(to_regclass('$v'))" >/dev/null
	done
}
tps() {	# clients sync -> median tps
	local c=$1 s=$2 i
	for i in $(seq 1 "$RUNS"); do
		PGOPTIONS="-c synchronous_commit=$s" $PGBENCH -c "$c" -j "$c" -T "$DURATION" -f "$DIR/insert.sql" 2>/dev/null |
			sed -n 's/^tps = \([0-9.]*\).*/\1/p'
	done | median
}

if want 1; then
echo "== 1. single-row INSERT tps into fact (median of $RUNS x ${DURATION}s, barrier ${BARRIER_MS} ms) =="
printf '%-8s %-5s %10s %12s %8s\n' clients sync a_noview b_joinview b/a
for s in off on; do
	for c in 1 2; do
		drop_views; a=$(tps "$c" "$s")
		$PSQL -c "SELECT hummock_stream.create_materialized_view('vjoin', \$q\$$VJOIN\$q\$)" >/dev/null
		b=$(tps "$c" "$s")
		printf '%-8s %-5s %10.0f %12.0f %8.2f\n' "$c" "$s" "$a" "$b" "$(echo "$b / $a" | bc -l)"
	done
done
fi

if want 2 || want 3 || want 4; then
	drop_views
	$PSQL -c "SELECT hummock_stream.create_materialized_view('v3way', \$q\$$V3WAY\$q\$)" >/dev/null
fi

if want 2; then
echo "== 2. maintenance of the 3-way join view ($BULK fact rows in one transaction) =="
$PSQL -c "SELECT hummock_stream.wait()" >/dev/null
t0=$(date +%s.%N)
$PSQL -c "INSERT INTO fact (dim_id, qty, note) SELECT 1 + g % 10000, g % 7, 'bulk' FROM generate_series(1, $BULK) g"
t1=$(date +%s.%N)
$PSQL -c "SELECT hummock_stream.wait(NULL, NULL)" >/dev/null
t2=$(date +%s.%N)
printf 'insert (with capture) %.2f s; commit -> visible %.2f s; %.0f rows/s maintained\n' \
	"$(echo "$t1 - $t0" | bc -l)" "$(echo "$t2 - $t1" | bc -l)" "$(echo "$BULK / ($t2 - $t1)" | bc -l)"
fi

if want 3; then
echo "== 3. freshness of the 3-way join view under ~$RATE fact rows/s =="
$PSQL -c "CREATE TABLE lat (id int, ms float8)"
cat >"$DIR/load.sql" <<'SQL'
INSERT INTO fact (dim_id, qty, note) SELECT 1 + (random() * 9999)::int, 1, 'load' FROM generate_series(1, 50);
SQL
chown postgres "$DIR/load.sql"
$PGBENCH -c 1 -R $((RATE / 50)) -T 3600 -f "$DIR/load.sql" >/dev/null 2>&1 &
LOAD=$!
sleep 2
$PSQL <<SQL
SET hummock_stream.query_consistency = per_table;
CREATE PROCEDURE probe_run(n int) LANGUAGE plpgsql AS \$\$
DECLARE t0 timestamptz; fid bigint;
BEGIN
  FOR i IN 1..n LOOP
    INSERT INTO fact (dim_id, qty, note) VALUES (1 + i % 10000, 1, 'probe') RETURNING id INTO fid;
    COMMIT;
    t0 := clock_timestamp();
    LOOP
      PERFORM 1 FROM v3way WHERE id = fid;
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
latency_summary lat
fi

if want 4; then
echo "== 4. fan-out: one dim row joined by $FANOUT fact rows is updated =="
$PSQL -c "INSERT INTO dim VALUES (0, 3, 'hot', 1.00)"
$PSQL -c "INSERT INTO fact (dim_id, qty, note) SELECT 0, 1, 'hot' FROM generate_series(1, $FANOUT)"
$PSQL -c "SELECT hummock_stream.wait(NULL, NULL)" >/dev/null
t0=$(date +%s%N)
$PSQL -c "UPDATE dim SET category = 'hotter' WHERE id = 0"
t1=$(date +%s%N)
$PSQL -c "SELECT hummock_stream.wait('v3way', NULL)" >/dev/null
t2=$(date +%s%N)
n=$($PSQL -c "SELECT count(*) FROM v3way WHERE category = 'hotter'")
printf 'UPDATE %d ms; commit -> visible in %s view rows: %d ms\n' \
	$(( (t1 - t0) / 1000000 )) "$n" $(( (t2 - t1) / 1000000 ))
fi
