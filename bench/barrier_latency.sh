#!/usr/bin/env bash
# bench/barrier_latency.sh -- latency of the barrier loop with idle graphs.
#
# For each (graphs, barrier_interval_ms) pair: start a throwaway server with
# hummock_stream preloaded, create N idle partial graphs (one actor each
# with a table that commits every checkpoint but receives no data; set
# ACTOR_PARAM=0 for a counter that writes one row per epoch instead), let it
# run, then report from hummock_stream.barriers:
#   - inject -> collect and inject -> commit latency, p50 and p99, over all
#     graphs' completed checkpoints;
#   - CPU (user + system) used by the barrier manager, compute workers and
#     compactor per database barrier, from /proc/<pid>/stat.
# Figures, not assertions.  Run as root:   bench/barrier_latency.sh
#
# Env: GRAPHS="10 100", INTERVALS="100 1000", SECONDS_PER_RUN=20,
#      WORKERS=2 (compute workers)
set -Eeuo pipefail
PG_MAJOR=15
BIN=/usr/lib/postgresql/$PG_MAJOR/bin
GRAPHS=${GRAPHS:-10 100}
INTERVALS=${INTERVALS:-100 1000}
SECS=${SECONDS_PER_RUN:-20}
WORKERS=${WORKERS:-2}
ACTOR_PARAM=${ACTOR_PARAM:--1}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"

make -C "$SRC" -s >/dev/null && make -C "$SRC" -s install >/dev/null
# the test module (its test actors or test_load): built and installed here too
make -C "$SRC/test/modules/hummock_stream_test" -s >/dev/null &&
	make -C "$SRC/test/modules/hummock_stream_test" -s install >/dev/null
DIR=$(mktemp -d /tmp/hs-bench-barrier.XXXXXX); chmod 755 "$DIR"; chown postgres "$DIR"
trap 'runuser -u postgres -- $BIN/pg_ctl -D $DIR/data -m immediate stop >/dev/null 2>&1 || true; rm -rf $DIR' EXIT
runuser -u postgres -- $BIN/initdb -D "$DIR/data" -A trust --no-sync >/dev/null
cat >>"$DIR/data/postgresql.conf" <<CONF
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
hummock_stream.compute_workers = $WORKERS
max_worker_processes = 32
fsync = on
CONF
PSQL="runuser -u postgres -- $BIN/psql -h $DIR -p 54399 -X -At -d postgres"

cpu_ticks() {	# sum of utime+stime of our background processes
	local t=0 pid
	for pid in $($PSQL -c "SELECT pid FROM pg_stat_activity WHERE backend_type LIKE 'hummock_stream%' AND datname = current_database()"); do
		t=$((t + $(awk '{print $14 + $15}' /proc/$pid/stat 2>/dev/null || echo 0)))
	done
	echo $t
}

printf '%-7s %-11s %9s %9s %9s %9s %9s %13s\n' graphs interval_ms barriers \
	collect50 collect99 commit50 commit99 cpu_ms/barrier
for n in $GRAPHS; do
	for iv in $INTERVALS; do
		runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w -o \
			"-p 54399 -k $DIR -c listen_addresses='' -c hummock_stream.barrier_interval_ms=$iv" start >/dev/null
		$PSQL -c "DROP EXTENSION IF EXISTS hummock_stream CASCADE" -c "CREATE EXTENSION hummock_stream" \
			-c "CREATE EXTENSION hummock_stream_test" >/dev/null
		$PSQL -c "INSERT INTO hummock_stream_test.test_actors (graph_id, kind, param, table_id)
		          SELECT g, 'counter', $ACTOR_PARAM, 100000 + g FROM generate_series(1, $n) g" >/dev/null
		# warm up until every graph has committed
		for _ in $(seq 1 600); do
			[ "$($PSQL -c "SELECT count(*) FROM hummock_stream.partial_graphs WHERE commits > 1")" = "$n" ] && break
			sleep 0.1
		done
		b0=$($PSQL -c "SELECT coalesce(max(curr_epoch), 0) FROM hummock_stream.barriers WHERE graph_id = 0")
		c0=$(cpu_ticks)
		sleep "$SECS"
		c1=$(cpu_ticks)
		hz=$(getconf CLK_TCK)
		$PSQL -c "
		  WITH b AS (SELECT * FROM hummock_stream.barriers WHERE curr_epoch > $b0),
		       db AS (SELECT $SECS * 1000 / $iv AS n),
		       g AS (SELECT collect_ms, commit_ms FROM b WHERE graph_id > 0 AND kind = 'checkpoint')
		  SELECT format('%-7s %-11s %9s %9s %9s %9s %9s %13s', $n, $iv, (SELECT n FROM db),
		         round(percentile_cont(0.5) WITHIN GROUP (ORDER BY collect_ms)::numeric, 2),
		         round(percentile_cont(0.99) WITHIN GROUP (ORDER BY collect_ms)::numeric, 2),
		         round(percentile_cont(0.5) WITHIN GROUP (ORDER BY commit_ms)::numeric, 2),
		         round(percentile_cont(0.99) WITHIN GROUP (ORDER BY commit_ms)::numeric, 2),
		         round(((${c1} - ${c0}) * 1000.0 / $hz) / greatest((SELECT n FROM db), 1), 3))
		    FROM g"
		runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -m fast -w stop >/dev/null
	done
done
echo "(barriers: database barriers in the ${SECS}s window; latencies in ms over the"
echo " graphs' checkpoints in hummock_stream.barriers, which keeps the last 1024 records)"
