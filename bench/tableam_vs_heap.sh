#!/usr/bin/env bash
# bench/tableam_vs_heap.sh -- sequential scans of a relation USING hummock
# against the same rows in a heap table, in one server, one run.
#
# Rows: (id bigint, v text) with v a 20-byte md5 prefix; N rows (ROWS,
# default 1,000,000).  Loads the heap table, then the hummock relation from
# it (hummock_stream_test.test_load, one commit), then times, RUNS times each
# (median reported, every run a new session, heap and hummock runs
# alternating so that a slow spell of this shared machine hits both),
# SELECT count(*) and SELECT sum(length(v)) on both, and prints the ratio
# heap_time / hummock_time (>= 1.0 means hummock is as fast or faster).  Then point lookups by primary key: the heap table with
# its btree index against a streaming view of it (keyed by the same primary
# key, read through the HummockKeyScan seek), LOOKUPS random lookups per
# client as prepared statements (pgbench), tps of each and the ratio.
# Both caches get the same memory: shared_buffers (heap pages) and
# hummock_stream.shared_block_cache_size (decompressed SST blocks) are 1GB.
# Figures, not assertions.
#
# Run as root:   bench/tableam_vs_heap.sh       (ROWS=5000000 for the issue's size)
set -Eeuo pipefail
BIN=/usr/lib/postgresql/15/bin
ROWS=${ROWS:-1000000}
RUNS=${RUNS:-5}
LOOKUPS=${LOOKUPS:-100000}
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"

make -C "$SRC" -s >/dev/null && make -C "$SRC" -s install >/dev/null
# the test module (its test actors or test_load): built and installed here too
make -C "$SRC/test/modules/hummock_stream_test" -s >/dev/null &&
	make -C "$SRC/test/modules/hummock_stream_test" -s install >/dev/null
DIR=$(mktemp -d /tmp/hs-bench-heap.XXXXXX); chmod 755 "$DIR"; chown postgres "$DIR"
trap 'runuser -u postgres -- $BIN/pg_ctl -D $DIR/data -m immediate stop >/dev/null 2>&1 || true; rm -rf $DIR' EXIT
runuser -u postgres -- $BIN/initdb -D "$DIR/data" -A trust --no-sync >/dev/null
cat >>"$DIR/data/postgresql.conf" <<CONF
shared_preload_libraries = 'hummock_stream,hummock_stream_test'
shared_buffers = 1GB
hummock_stream.shared_block_cache_size = 1GB
max_parallel_workers_per_gather = 0
jit = off
CONF
runuser -u postgres -- $BIN/pg_ctl -D "$DIR/data" -l "$DIR/log" -w -o "-p 54398 -k $DIR -c listen_addresses=''" start >/dev/null
PSQL="runuser -u postgres -- $BIN/psql -h $DIR -p 54398 -X -At -q -d postgres"

$PSQL -c "CREATE EXTENSION hummock_stream" -c "CREATE EXTENSION hummock_stream_test"
$PSQL -c "CREATE TABLE h (id bigint, v text); INSERT INTO h SELECT g, substr(md5(g::text), 1, 20) FROM generate_series(1, $ROWS) g" -c "VACUUM ANALYZE h"
$PSQL -c "CREATE TABLE s (id bigint, v text) USING hummock"
$PSQL -c "SET hummock_stream.sst_compression = lz4" -c "SELECT hummock_stream_test.test_load('s', hummock_stream.epoch_at(now()), 'SELECT id, v FROM h', false)" >/dev/null

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
time_one() {	# query -> ms (a new session, as every run)
	$PSQL -c "\\timing on" -c "$1" | sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p'
}
compare() {	# label, query template (% = table): heap and hummock runs alternate
	local label=$1 q=$2 i hm sm
	: >"$DIR/h.ms"; : >"$DIR/s.ms"
	for i in $(seq 1 "$RUNS"); do
		time_one "${q//%/h}" >>"$DIR/h.ms"
		time_one "${q//%/s}" >>"$DIR/s.ms"
	done
	hm=$(median <"$DIR/h.ms"); sm=$(median <"$DIR/s.ms")
	printf '%-40s %12s %12s %8.2f\n' "$label" "$hm" "$sm" "$(echo "$hm / $sm" | bc -l)"
}
printf '%-40s %12s %12s %8s\n' query heap hummock ratio
for q in "SELECT count(*) FROM %" "SELECT sum(length(v)) FROM %"; do
	# warm both once
	$PSQL -c "${q//%/h}" >/dev/null; $PSQL -c "${q//%/s}" >/dev/null
	compare "${q//%/t}" "$q"
done
# the same with parallel plans for both (2 workers planned)
PAR="SET max_parallel_workers_per_gather = 2; SET min_parallel_table_scan_size = 0;"
for q in "SELECT count(*) FROM %" "SELECT sum(length(v)) FROM %"; do
	$PSQL -c "$PAR ${q//%/h}" >/dev/null; $PSQL -c "$PAR ${q//%/s}" >/dev/null
	compare "${q//%/t} (parallel)" "$PAR $q"
done
echo "($ROWS rows, median of $RUNS runs each, heap and hummock runs alternating;"
echo " ratio = heap time / hummock time)"

# point lookups: heap + btree vs a streaming view keyed by the primary key
$PSQL -c "ALTER TABLE h ADD PRIMARY KEY (id)"
$PSQL -c "SELECT hummock_stream.create_materialized_view('sv', 'SELECT id, v FROM h')" >/dev/null
$PSQL -c "ANALYZE sv"
for t in h sv; do
	printf '\\set id random(1, %d)\nSELECT v FROM %s WHERE id = :id;\n' "$ROWS" "$t" >"$DIR/lookup_$t.sql"
	chown postgres "$DIR/lookup_$t.sql"
done
$PSQL -c "EXPLAIN (COSTS OFF) SELECT v FROM sv WHERE id = 42" | sed 's/^/  /'
lookup_tps() {	# table -> tps of one run
	runuser -u postgres -- $BIN/pgbench -h "$DIR" -p 54398 -n -M prepared -c 1 \
		-t "$LOOKUPS" -f "$DIR/lookup_$1.sql" postgres 2>/dev/null |
		sed -n 's/^tps = \([0-9.]*\).*/\1/p'
}
: >"$DIR/h.tps"; : >"$DIR/sv.tps"
for i in $(seq 1 "$RUNS"); do
	lookup_tps h >>"$DIR/h.tps"
	lookup_tps sv >>"$DIR/sv.tps"
done
ht=$(median <"$DIR/h.tps"); st=$(median <"$DIR/sv.tps")
printf '%-40s %12s %12s %8.2f\n' "pk point lookup (tps)" "$ht" "$st" "$(echo "$st / $ht" | bc -l)"
echo "($LOOKUPS lookups per run, 1 client, prepared, runs alternating;"
echo " ratio = hummock tps / heap tps)"
