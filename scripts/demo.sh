#!/usr/bin/env bash
# scripts/demo.sh -- install what is missing, build and install
# hummock_stream, start a throwaway server (as the postgres OS user, with the
# library preloaded), start two writers (orders, and a trickle of readings
# for a deliberately slow view) and run the demo in psql (demo.sql).
#
# Run as root (or via sudo) on Debian 12:   sudo scripts/demo.sh
#   --keep    leave the server running and print how to connect to it
set -Eeuo pipefail

PG_MAJOR=15
# PG_CONFIG may point at another (relocated) installation of the same major
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
KEEP=0
[ "${1:-}" = "--keep" ] && KEEP=1
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

if [ "$(id -u)" != 0 ]; then
	exec sudo -E "$0" "$@"
fi

"$SRC/scripts/install-deps.sh" >/dev/null
BINDIR=$("$PG_CONFIG" --bindir)

echo "== building and installing hummock_stream"
BUILD=$(mktemp -d /tmp/hummock_stream-demo-build.XXXXXX)
cp -a "$SRC/." "$BUILD"
make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" -j"$(nproc)"
make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" install
rm -rf "$BUILD"

echo "== starting a throwaway server"
DEMO=$(mktemp -d /tmp/hummock_stream-demo.XXXXXX)
chmod 755 "$DEMO"
chown postgres:postgres "$DEMO"
PORT=54329
runuser -u postgres -- "$BINDIR/initdb" -D "$DEMO/data" -U postgres -A trust \
	-E UTF8 --locale=C --no-sync >"$DEMO/initdb.log"
cat >>"$DEMO/data/postgresql.conf" <<'CONF'
shared_preload_libraries = 'hummock_stream'
max_worker_processes = 32
log_min_messages = warning
hummock_stream.barrier_interval_ms = 100
hummock_stream.compute_workers = 2
hummock_stream.compaction_interval = 1s
CONF
runuser -u postgres -- "$BINDIR/pg_ctl" -D "$DEMO/data" -l "$DEMO/server.log" -w -t 60 \
	-o "-p $PORT -k $DEMO -c listen_addresses=''" start >/dev/null

stop() {
	runuser -u postgres -- "$BINDIR/pg_ctl" -D "$DEMO/data" -m fast -w stop >/dev/null 2>&1 || true
	rm -rf "$DEMO"
}
[ "$KEEP" = 1 ] || trap stop EXIT

PSQL=(runuser -u postgres -- "$BINDIR/psql" -h "$DEMO" -p "$PORT" -U postgres -X
	-v ON_ERROR_STOP=1 --echo-queries -P pager=off)

# Two tables that writers keep inserting into while the demo runs: orders
# (200 rows/s for 8 s; the view sales reads it) and readings (3 rows/s for
# 8 s from the 2nd second on; the deliberately slow view calibrated reads
# it).
"${PSQL[@]}" -d postgres -q -c "CREATE TABLE orders (id bigserial PRIMARY KEY,
	customer_id int NOT NULL, amount numeric NOT NULL, status text NOT NULL)" \
	-c "CREATE TABLE readings (id bigserial PRIMARY KEY, sensor int NOT NULL,
	value numeric NOT NULL)" >/dev/null
cat >"$DEMO/writer.sql" <<'SQL'
\set c random(1, 20)
\set a random(100, 100000)
INSERT INTO orders (customer_id, amount, status)
VALUES (:c, round(:a / 100.0, 2), CASE WHEN :a % 5 = 0 THEN 'cancelled' ELSE 'ok' END);
SQL
cat >"$DEMO/readings.sql" <<'SQL'
\set s random(1, 4)
\set v random(0, 10000)
INSERT INTO readings (sensor, value) VALUES (:s, :v / 100.0);
SQL
chown postgres "$DEMO/writer.sql" "$DEMO/readings.sql"
PGBENCH=(runuser -u postgres -- "$BINDIR/pgbench" -h "$DEMO" -p "$PORT" -U postgres -n -c 1)
"${PGBENCH[@]}" -R 200 -T 8 -f "$DEMO/writer.sql" postgres >"$DEMO/writer.log" 2>&1 &
WRITER=$!
(sleep 2; exec "${PGBENCH[@]}" -R 3 -T 8 -f "$DEMO/readings.sql" postgres) \
	>"$DEMO/readings.log" 2>&1 &
READINGS=$!

echo "== demo (writers insert 200 orders/s for 8 s, and 3 readings/s from the 2nd to the 10th second)"
"${PSQL[@]}" -d postgres -f "$SRC/scripts/demo.sql"
kill "$WRITER" "$READINGS" 2>/dev/null || true
wait "$WRITER" "$READINGS" 2>/dev/null || true

if [ "$KEEP" = 1 ]; then
	echo
	echo "The server keeps running. Connect with:"
	echo "  sudo -u postgres $BINDIR/psql -h $DEMO -p $PORT -U postgres postgres"
	echo "Stop it with:"
	echo "  sudo -u postgres $BINDIR/pg_ctl -D $DEMO/data stop"
fi
