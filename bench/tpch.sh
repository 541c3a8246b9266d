#!/usr/bin/env bash
# bench/tpch.sh -- the 22 TPC-H queries (test/tpch) as streaming views,
# against Postgres's materialized views of the same queries, on the same
# data in one run.
#
# 1. Creation: per query, create_materialized_view against CREATE
#    MATERIALIZED VIEW (median of RUNS each); the ratio is Postgres's time
#    over ours (> 1: ours is faster).
# 2. Maintenance: with all 22 views of each kind in place, the refresh
#    functions run as single transactions, RF1 (SF * 1500 new orders with
#    their line items) then RF2 (as many old orders deleted); for each, the
#    time from its commit until every streaming view has it
#    (hummock_stream.wait()), against REFRESH MATERIALIZED VIEW of the 22
#    Postgres views after it.  Medians of RUNS rounds.
# Figures, not assertions.  Run as root:  bench/tpch.sh
# SF (scale factor, default 0.1: 600,000 line items), RUNS (3),
# QUERIES (default all: "q01 q02 ... q22"), BARRIER_MS (200).
set -Eeuo pipefail
SF=${SF:-0.1}
RUNS=${RUNS:-3}
BARRIER_MS=${BARRIER_MS:-200}
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_server tpch 54397
QDIR="$SRC/test/tpch/queries"
QUERIES=${QUERIES:-$(cd "$QDIR" && ls q*.sql | sed 's/\.sql$//' | tr '\n' ' ')}
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start; SF $SF; barrier ${BARRIER_MS} ms; $RUNS runs"

t0=$(date +%s.%N)
$PSQL -v ON_ERROR_STOP=1 -f "$SRC/test/tpch/dbgen.sql" >/dev/null
$PSQL -c "SELECT tpch_generate($SF)" >/dev/null
$PSQL -c "VACUUM ANALYZE" >/dev/null
echo "# generated in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s: $($PSQL -c "SELECT count(*) FROM lineitem") line items, $($PSQL -c "SELECT count(*) FROM orders") orders"

seconds() {	# psql args... -> wall seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}
ours() {	# name query
	$PSQL -v q="$2" <<<"SELECT hummock_stream.create_materialized_view('$1', :'q')"
}
theirs() {	# name query
	$PSQL -c "CREATE MATERIALIZED VIEW $1 AS $2"
}

echo
echo "| query | create_materialized_view | CREATE MATERIALIZED VIEW | ratio (theirs / ours) |"
echo "| --- | --- | --- | --- |"
for q in $QUERIES; do
	def=$(cat "$QDIR/$q.sql")
	a=() b=()
	for r in $(seq "$RUNS"); do
		a+=("$(seconds ours "s_$q" "$def")")
		b+=("$(seconds theirs "m_$q" "$def")")
		if [ "$r" -lt "$RUNS" ]; then
			$PSQL -c "SELECT hummock_stream.drop_materialized_view('s_$q')"
			$PSQL -c "DROP MATERIALIZED VIEW m_$q"
		fi
	done
	ma=$(printf '%s\n' "${a[@]}" | median)
	mb=$(printf '%s\n' "${b[@]}" | median)
	echo "| $q | $(printf %.3f "$ma") s | $(printf %.3f "$mb") s | $(echo "scale=2; $mb / $ma" | bc) |"
done

refresh_all() {
	local q
	for q in $QUERIES; do
		$PSQL -c "REFRESH MATERIALIZED VIEW m_$q"
	done
}
echo
echo "| refresh function | streaming views up to date | REFRESH of the 22 | ratio (REFRESH / ours) |"
echo "| --- | --- | --- | --- |"
declare -A OURS=() THEIRS=()
for r in $(seq "$RUNS"); do
	for rf in rf1 rf2; do
		$PSQL -c "SELECT hummock_stream.wait()"
		t0=$(date +%s.%N)
		$PSQL -c "SELECT tpch_$rf($SF)"
		t1=$(date +%s.%N)
		$PSQL -c "SELECT hummock_stream.wait(NULL, interval '1 hour')"
		t2=$(date +%s.%N)
		OURS[$rf]+="$(echo "$t2 - $t1" | bc) "
		THEIRS[$rf]+="$(seconds refresh_all) "
	done
done
for rf in rf1 rf2; do
	mo=$(printf '%s\n' ${OURS[$rf]} | median)
	mt=$(printf '%s\n' ${THEIRS[$rf]} | median)
	echo "| $rf | $(printf %.3f "$mo") s | $(printf %.3f "$mt") s | $(echo "scale=2; $mt / $mo" | bc) |"
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at end"
