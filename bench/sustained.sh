#!/usr/bin/env bash
# bench/sustained.sh -- ten streaming views over three tables (filters,
# aggregates, min/max, DISTINCT, joins, a Top-N) while two writers insert
# single rows as fast as they can (one into facts, one into orders), for
# DURATION seconds: each writer's rate without the views and with them,
# the views' lag (hummock_stream.jobs.lag, the largest over the ten views,
# sampled every 0.5 s) over time, whether it grows (last third against the
# first), how long the views take to catch up once the writers stop, the
# compute workers' peak RSS, and whether every view equals its query at
# the end.  A PNG of the rates and the lag over time (gnuplot) goes to
# OUT.  Figures, not assertions.  Run as root:  bench/sustained.sh
# DURATION (60), BARRIER_MS (100), OUT (./sustained.png), BASE (200000
# rows in facts and in orders at the start).
set -Eeuo pipefail
DURATION=${DURATION:-60}
BARRIER_MS=${BARRIER_MS:-100}
BASE=${BASE:-200000}
OUT=${OUT:-$(pwd)/sustained.png}
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
command -v gnuplot >/dev/null || apt-get install -y -q gnuplot-nox >/dev/null
bench_server sustained 54398
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start; $DURATION s per phase; barrier ${BARRIER_MS} ms; $BASE base rows per table"

$PSQL <<SQL
CREATE TABLE dim (k int PRIMARY KEY, name text, r int);
INSERT INTO dim SELECT k, 'name ' || k, k % 10 FROM generate_series(1, 5000) k;
CREATE TABLE facts (id bigserial PRIMARY KEY, g int, k int, v int);
INSERT INTO facts (g, k, v) SELECT i % 1000, 1 + i % 5000, (hashint8(i) & 1048575)::int
  FROM generate_series(1, $BASE) i;
CREATE TABLE orders (id bigserial PRIMARY KEY, cust int, amount int);
INSERT INTO orders (cust, amount) SELECT 1 + i % 5000, i % 1000 FROM generate_series(1, $BASE) i;
VACUUM ANALYZE dim, facts, orders;
SQL

declare -A Q=(
	[s_filter]="SELECT id, g, v FROM facts WHERE v % 10 = 0"
	[s_sum]="SELECT g, count(*) AS n, sum(v) AS s FROM facts GROUP BY g"
	[s_minmax]="SELECT g, min(v) AS lo, max(v) AS hi FROM facts GROUP BY g"
	[s_join]="SELECT f.id, f.v, d.name FROM facts f JOIN dim d ON d.k = f.k"
	[s_top3]="SELECT g, id, v FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM facts) s WHERE rn <= 3"
	[s_big_orders]="SELECT id, cust, amount FROM orders WHERE amount >= 990"
	[s_order_sum]="SELECT cust % 100 AS c, count(*) AS n, sum(amount) AS total FROM orders GROUP BY cust % 100"
	[s_order_distinct]="SELECT cust % 100 AS c, count(DISTINCT amount) AS amounts FROM orders GROUP BY cust % 100"
	[s_order_region]="SELECT d.r, count(*) AS n, sum(o.amount) AS total FROM orders o JOIN dim d ON d.k = o.cust GROUP BY d.r"
	[s_dim_regions]="SELECT r, count(*) AS n FROM dim GROUP BY r"
)

cat >"$DIR/facts.sql" <<'SQL'
\set g random(0, 999)
\set k random(1, 5000)
\set v random(0, 1048575)
INSERT INTO facts (g, k, v) VALUES (:g, :k, :v);
SQL
cat >"$DIR/orders.sql" <<'SQL'
\set c random(1, 5000)
\set a random(0, 999)
INSERT INTO orders (cust, amount) VALUES (:c, :a);
SQL
chown postgres "$DIR"/*.sql

# both writers for DURATION s; per-second rates to $1.facts and $1.orders
writers() {
	$PGBENCH -c 1 -T "$DURATION" -P 1 -f "$DIR/facts.sql" 2>"$1.facts.log" >/dev/null &
	local a=$!
	$PGBENCH -c 1 -T "$DURATION" -P 1 -f "$DIR/orders.sql" 2>"$1.orders.log" >/dev/null &
	local b=$!
	wait $a $b
	for t in facts orders; do
		awk '/^progress:/ {print $2 + 0, $4 + 0}' "$1.$t.log" >"$1.$t"
	done
}
mean_tps() { awk '{s += $2; n++} END {printf "%.0f", n ? s / n : 0}' "$1"; }

writers "$DIR/alone"

for v in "${!Q[@]}"; do
	$PSQL -c "SELECT hummock_stream.create_materialized_view('$v', \$q\$${Q[$v]}\$q\$)" >/dev/null
done
$PSQL -c "SELECT hummock_stream.wait()" >/dev/null

# the largest lag over the views, every 0.5 s, until $DIR/stop exists
lag_sampler() {
	local t0 now
	t0=$(date +%s.%N)
	while [ ! -e "$DIR/stop" ]; do
		now=$(date +%s.%N)
		echo "$(echo "$now - $t0" | bc) $($PSQL -c "SELECT coalesce(round(max(extract(epoch FROM lag)) * 1000), 0) FROM hummock_stream.jobs")"
		sleep 0.5
	done
}
lag_sampler >"$DIR/lag" &
sampler=$!
writers "$DIR/views"
touch "$DIR/stop"
wait $sampler
t0=$(date +%s.%N)
$PSQL -c "SELECT hummock_stream.wait(NULL, interval '10 minutes')" >/dev/null
catchup=$(echo "$(date +%s.%N) - $t0" | bc)

rss=$(for p in $(pgrep -P "$(head -n 1 "$DIR/data/postmaster.pid")" -f "compute worker"); do
	awk '/VmHWM/ {printf "%d MB ", $2 / 1024}' "/proc/$p/status"; done)
differs=0
for v in "${!Q[@]}"; do
	d=$($PSQL -c "SELECT count(*) FROM ((TABLE $v EXCEPT ALL (${Q[$v]})) UNION ALL ((${Q[$v]}) EXCEPT ALL TABLE $v)) x")
	differs=$((differs + d))
done

fa=$(mean_tps "$DIR/alone.facts"); oa=$(mean_tps "$DIR/alone.orders")
fv=$(mean_tps "$DIR/views.facts"); ov=$(mean_tps "$DIR/views.orders")
n=$(wc -l <"$DIR/lag")
first=$(head -n $((n / 3)) "$DIR/lag" | awk '{print $2}' | median)
last=$(tail -n $((n / 3)) "$DIR/lag" | awk '{print $2}' | median)
echo "| writer | alone (tps) | with 10 views (tps) | ratio (target >= 0.7) |"
echo "| --- | --- | --- | --- |"
echo "| facts | $fa | $fv | $(echo "scale=2; $fv / $fa" | bc)x |"
echo "| orders | $oa | $ov | $(echo "scale=2; $ov / $oa" | bc)x |"
echo
echo "views' largest lag while the writers ran: p50 $(awk '{print $2}' "$DIR/lag" | median) ms, max $(awk '{print $2}' "$DIR/lag" | sort -n | tail -n 1) ms over $n samples;" \
	"median of the first third $first ms, of the last third $last ms (a growing backlog shows as last > first);" \
	"caught up ${catchup%???????} s after the writers stopped; compute workers' peak RSS: $rss; rows differing from the queries: $differs"

gnuplot <<GP
set terminal pngcairo size 1000,500
set output "$OUT"
set title "10 streaming views, 2 writers ($(nproc) cores, ${BARRIER_MS} ms barriers)"
set xlabel "seconds"
set ylabel "inserts/s"
set y2label "largest view lag (ms)"
set ytics nomirror
set y2tics
set yrange [0:*]
set y2range [0:*]
set key outside bottom center horizontal
plot "$DIR/views.facts" using 1:2 with lines title "facts writer", \
     "$DIR/views.orders" using 1:2 with lines title "orders writer", \
     $fa with lines dashtype 2 title "facts writer alone (mean)", \
     $oa with lines dashtype 2 title "orders writer alone (mean)", \
     "$DIR/lag" using 1:2 axes x1y2 with lines lw 2 title "lag"
GP
echo "plot: $OUT"
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at end"
