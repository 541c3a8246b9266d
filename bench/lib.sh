# bench/lib.sh -- what the streaming benchmarks share: build and install,
# a throwaway server with the library preloaded, psql/pgbench commands,
# medians.  Source it after setting BARRIER_MS; it defines BIN, SRC, DIR,
# PSQL, PGBENCH, want(), median() and ms(), and stops and removes the server
# on exit.  Usage:  bench_server NAME PORT.  PG_CONFIG selects the
# PostgreSQL 15 installation (default: Debian's).
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}
BIN=$("$PG_CONFIG" --bindir)
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SECTIONS=${SECTIONS:-1 2 3 4}
want() { [[ " $SECTIONS " == *" $1 "* ]]; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# sql... (psql -c arguments) -> milliseconds the statements took, in one session
ms() { $PSQL -c '\timing on' "$@" | grep '^Time:' | awk '{s += $2} END {printf "%.1f", s}'; }

bench_server() {	# name port
	local name=$1 port=$2
	make -C "$SRC" -s PG_CONFIG="$PG_CONFIG" >/dev/null &&
		make -C "$SRC" -s PG_CONFIG="$PG_CONFIG" install >/dev/null
	DIR=$(mktemp -d "/tmp/hs-bench-$name.XXXXXX"); chmod 755 "$DIR"; chown postgres "$DIR"
	trap 'kill $(jobs -p) 2>/dev/null || true; runuser -u postgres -- $BIN/pg_ctl -D $DIR/data -m immediate stop >/dev/null 2>&1 || true; rm -rf $DIR' EXIT
	runuser -u postgres -- $BIN/initdb -D "$DIR/data" -A trust --no-sync >/dev/null
	cat >>"$DIR/data/postgresql.conf" <<CONF
shared_preload_libraries = 'hummock_stream'
shared_buffers = 1GB
max_worker_processes = 32
jit = off
hummock_stream.barrier_interval_ms = $BARRIER_MS
CONF
	runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w -o "-p $port -k $DIR -c listen_addresses=''" start >/dev/null
	PSQL="runuser -u postgres -- $BIN/psql -h $DIR -p $port -X -At -q -d postgres"
	PGBENCH="runuser -u postgres -- $BIN/pgbench -h $DIR -p $port -n postgres"
	$PSQL -c "CREATE EXTENSION hummock_stream"
}

latency_summary() {	# table with a column ms -> one line: p50, p99, max
	$PSQL -c "SELECT format('p50 %s ms, p99 %s ms, max %s ms over %s probes (barrier interval %s)',
		round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
		round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1),
		round(max(ms)::numeric, 1), count(*), current_setting('hummock_stream.barrier_interval_ms'))
		FROM $1"
}
