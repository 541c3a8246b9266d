#!/usr/bin/env bash
# bench/view_chains.sh -- views over views: freshness per level, an
# upstream's commits while its downstream fails, and an upstream's commit
# lag while a downstream over it is created.  Figures, never assertions.
#
#   1. freshness of each level of a 3-level chain (an aggregate over a
#      table, a filter over it, an aggregate over that): a row is inserted
#      and committed, then each level is polled (per_table consistency)
#      until it shows the row; p50/p99/max per level over PROBES probes, at
#      100 ms and 1 s barrier intervals;
#   2. an upstream's commits per second and its lag (now - committed_at)
#      over 10 s with its downstream healthy, then failing at every epoch
#      (the test module's fail_view: it resets and backs off in a loop);
#   3. an upstream view's commit lag (sampled every 100 ms) while idle and
#      while a downstream over it is created, with pgbench writers on the
#      upstream's table, ROWS rows (default 2,000,000).
#
# Run as root (it builds and installs the extension and the test module
# into the system PostgreSQL 15): bench/view_chains.sh [SECTIONS="1 2 3"]
set -Eeuo pipefail
PROBES=${PROBES:-50}
ROWS=${ROWS:-2000000}
BARRIER_MS=100
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
SECTIONS=${SECTIONS:-1 2 3}

# the test module (fail_view): built and installed here too
make -C "$SRC/test/modules/hummock_stream_test" -s >/dev/null &&
	make -C "$SRC/test/modules/hummock_stream_test" -s install >/dev/null

start() {	# barrier ms
	BARRIER_MS=$1
	bench_server chains 5493
	runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -m fast -w stop >/dev/null
	sed -i "s/^shared_preload_libraries = 'hummock_stream'/shared_preload_libraries = 'hummock_stream,hummock_stream_test'/" "$DIR/data/postgresql.conf"
	runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w -o "-p 5493 -k $DIR -c listen_addresses=''" start >/dev/null
	$PSQL -c "CREATE EXTENSION hummock_stream_test"
}
stop() {
	runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -m immediate -w stop >/dev/null 2>&1 || true
	rm -rf "$DIR"
	trap - EXIT
}

echo "load: $(cut -d' ' -f1-3 /proc/loadavg) on $(nproc) cores"

if want 1; then
	for ms in 100 1000; do
		start $ms
		$PSQL <<'SQL'
CREATE TABLE src (id bigserial PRIMARY KEY, k int, v int);
INSERT INTO src (k, v) SELECT g % 100, g FROM generate_series(1, 100000) g;
SELECT hummock_stream.create_materialized_view('l1', 'SELECT k, count(*) AS n, max(id) AS last_id FROM src GROUP BY k') \g /dev/null
SELECT hummock_stream.create_materialized_view('l2', 'SELECT k, last_id FROM l1 WHERE n > 0') \g /dev/null
SELECT hummock_stream.create_materialized_view('l3', 'SELECT max(last_id) AS last_id FROM l2') \g /dev/null
CREATE TABLE probes (level int, ms double precision);
CREATE PROCEDURE probe(n int) LANGUAGE plpgsql AS $$
DECLARE
  id bigint;
  t0 timestamptz;
  seen bool[];
BEGIN
  SET hummock_stream.query_consistency = per_table;
  FOR i IN 1..n LOOP
    INSERT INTO src (k, v) VALUES (i % 100, i) RETURNING src.id INTO id;
    COMMIT;
    t0 := clock_timestamp();
    seen := '{f,f,f}';
    WHILE NOT (seen[1] AND seen[2] AND seen[3]) LOOP
      IF NOT seen[1] AND (SELECT max(last_id) FROM l1) >= id THEN
        seen[1] := true; INSERT INTO probes VALUES (1, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END IF;
      IF NOT seen[2] AND (SELECT max(last_id) FROM l2) >= id THEN
        seen[2] := true; INSERT INTO probes VALUES (2, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END IF;
      IF NOT seen[3] AND (SELECT last_id FROM l3) >= id THEN
        seen[3] := true; INSERT INTO probes VALUES (3, extract(epoch FROM clock_timestamp() - t0) * 1000);
      END IF;
      COMMIT;
      PERFORM pg_sleep(0.002);
    END LOOP;
    PERFORM pg_sleep(random() * (SELECT setting::int FROM pg_settings WHERE name = 'hummock_stream.barrier_interval_ms') / 1000.0);
  END LOOP;
END $$;
SQL
		$PSQL -c "CALL probe($PROBES)"
		for level in 1 2 3; do
			echo "1. barrier ${ms} ms, level $level: $($PSQL -c "SELECT format('p50 %s ms, p99 %s ms, max %s ms over %s probes',
				round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
				round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1),
				round(max(ms)::numeric, 1), count(*)) FROM probes WHERE level = $level")"
		done
		stop
	done
fi

if want 2; then
	start 100
	$PSQL <<'SQL'
CREATE TABLE src (id int PRIMARY KEY, k int, v int);
INSERT INTO src SELECT g, g % 100, g FROM generate_series(1, 100000) g;
SELECT hummock_stream.create_materialized_view('up', 'SELECT k, count(*) AS n, sum(v) AS s FROM src GROUP BY k') \g /dev/null
SELECT hummock_stream.create_materialized_view('down', 'SELECT k, s FROM up WHERE n > 0') \g /dev/null
SQL
	echo "UPDATE src SET v = v + 1 WHERE id = (random() * 99999)::int + 1;" >"$DIR/w.sql"
	measure() {	# label
		$PGBENCH -c 1 -T 10 -f "$DIR/w.sql" >/dev/null 2>&1 &
		local c0 lag=()
		c0=$($PSQL -c "SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 'up'::regclass::oid")
		for _ in $(seq 1 20); do
			sleep 0.5
			lag+=("$($PSQL -c "SELECT round(extract(epoch FROM now() - committed_at) * 1000) FROM hummock_stream.committed_epochs() WHERE relation = 'up'::regclass")")
		done
		wait
		local c1
		c1=$($PSQL -c "SELECT commits FROM hummock_stream.partial_graphs WHERE graph_id = 'up'::regclass::oid")
		echo "2. $1: upstream $(( (c1 - c0) / 10 )) commits/s, lag p50 $(printf '%s\n' "${lag[@]}" | median) ms"
		echo $(( c1 - c0 ))
	}
	a=$(measure "downstream healthy" | tee /dev/stderr | tail -n 1)
	$PSQL -c "SELECT hummock_stream_test.fail_view('down', 1000000)" >/dev/null
	b=$(measure "downstream failing at every epoch" | tee /dev/stderr | tail -n 1)
	echo "2. upstream commits while its downstream fails: $(echo "scale=2; $b / $a" | bc)x of healthy (downstream resets: $($PSQL -c "SELECT resets FROM hummock_stream.partial_graphs WHERE graph_id = 'down'::regclass::oid"))"
	stop
fi

if want 3; then
	start 100
	$PSQL -c "CREATE TABLE big (id int PRIMARY KEY, k int, v int);
		INSERT INTO big SELECT g, g % 1000, g FROM generate_series(1, $ROWS) g;"
	$PSQL -c "SELECT hummock_stream.create_materialized_view('up', 'SELECT id, k, v FROM big')" >/dev/null
	echo "UPDATE big SET v = v + 1 WHERE id = (random() * ($ROWS - 1))::int + 1;" >"$DIR/w.sql"
	sample_lag() {	# seconds -> p50 and max lag (ms) of up
		local out=()
		for _ in $(seq 1 $(( $1 * 10 ))); do
			out+=("$($PSQL -c "SELECT round(extract(epoch FROM now() - committed_at) * 1000) FROM hummock_stream.committed_epochs() WHERE relation = 'up'::regclass")")
			sleep 0.1
		done
		echo "p50 $(printf '%s\n' "${out[@]}" | median) ms, max $(printf '%s\n' "${out[@]}" | sort -n | tail -n 1) ms"
	}
	$PGBENCH -c 2 -T 600 -f "$DIR/w.sql" >/dev/null 2>&1 &
	bench=$!
	sleep 2
	echo "3. upstream lag, writers on, idle: $(sample_lag 5)"
	t0=$(date +%s.%N)
	( $PSQL -c "SELECT hummock_stream.create_materialized_view('down', 'SELECT k, count(*) AS n, sum(v) AS s FROM up GROUP BY k')" >/dev/null; date +%s.%N >"$DIR/done" ) &
	creating=$!
	lag_during=$(sample_lag 5)
	wait $creating
	echo "3. upstream lag while a downstream over its $ROWS rows is created: $lag_during (creation took $(echo "$(cat "$DIR/done") - $t0" | bc) s)"
	$PSQL -c "SELECT hummock_stream.wait()" >/dev/null
	echo "3. the downstream counts $($PSQL -c "SELECT sum(n) FROM down") rows of $($PSQL -c "SELECT count(*) FROM up") upstream rows; differs from its query in $($PSQL -c "SELECT count(*) FROM ((TABLE down EXCEPT SELECT k, count(*), sum(v) FROM up GROUP BY k) UNION ALL (SELECT k, count(*), sum(v) FROM up GROUP BY k EXCEPT TABLE down)) x") rows"
	kill $bench 2>/dev/null || true
	stop
fi
