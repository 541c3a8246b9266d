#!/usr/bin/env bash
# bench/create_view.sh -- what creating a streaming view costs, against
# Postgres computing the same query, and what it costs the writers of its
# source.  One server, one run, same data for every figure.
#
# 1. Creation: for each view kind (GROUP BY count/sum, count/min,
#    count(DISTINCT), a join with a 5,000-row dimension, a 3-way join
#    (facts, that dimension, a 10-row region), Top-3 per group,
#    filter + project) over a ROWS-row table: median of RUNS of
#    create_materialized_view (the default concurrent protocol, from
#    autocommit) against CREATE MATERIALIZED VIEW of the same query.  The
#    ratio is the speed of ours over Postgres's (>= 0.5 is the target).
#    Peak memory of the view creator and of the compute workers: private
#    (RssAnon) and RSS (VmHWM, with the shared memory pages it touched).
# 2. Writers during a creation: a pgbench client inserting single rows into
#    the source for DURATION s, alone and while the slowest view (min) is
#    created with wait => false; transactions/s in the creation's window,
#    p99 latency there and its worst second; the commit lag of an existing
#    view (over the same source) idle and during the creation.
# Figures, not assertions.  Run as root:  bench/create_view.sh
# ROWS (default 2000000), RUNS (3), KINDS (the view kinds of section 1),
# DURATION (seconds of section 2, 30),
# SECTIONS ("1 2").
set -Eeuo pipefail
ROWS=${ROWS:-2000000}
RUNS=${RUNS:-3}
DURATION=${DURATION:-30}
BARRIER_MS=${BARRIER_MS:-1000}
SECTIONS=${SECTIONS:-1 2}
[ "$(id -u)" = 0 ] || exec sudo -E "$0" "$@"
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_server create 54398
PMPID=$(head -n 1 "$DIR/data/postmaster.pid")
echo "# $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg) at start; $ROWS rows; barrier ${BARRIER_MS} ms"

$PSQL <<SQL
CREATE TABLE region (r int PRIMARY KEY, rname text);
INSERT INTO region SELECT r, 'region ' || r FROM generate_series(1, 10) r;
CREATE TABLE dim (k int PRIMARY KEY, name text, r int);
INSERT INTO dim SELECT k, 'name ' || k, 1 + k % 10 FROM generate_series(1, 5000) k;
CREATE TABLE facts (id bigint PRIMARY KEY, g int, k int, v int);
INSERT INTO facts SELECT i, i % 1000, 1 + i % 5000, (hashint8(i) & 1048575)::int
  FROM generate_series(1, $ROWS) i;
VACUUM ANALYZE region, dim, facts;
CREATE SEQUENCE facts_id START $((ROWS + 1));
SQL

declare -A Q=(
	[sum]="SELECT g, count(*) AS n, sum(v) AS s FROM facts GROUP BY g"
	[min]="SELECT g, count(*) AS n, min(v) AS m FROM facts GROUP BY g"
	[distinct]="SELECT g, count(DISTINCT v) AS d FROM facts GROUP BY g"
	[join]="SELECT f.id, f.v, d.name FROM facts f JOIN dim d ON d.k = f.k"
	[join3]="SELECT f.id, f.v, d.name, r.rname FROM facts f JOIN dim d ON d.k = f.k JOIN region r ON r.r = d.r"
	[top3]="SELECT g, id, v FROM (SELECT g, id, v, row_number() OVER (PARTITION BY g ORDER BY v DESC, id) AS rn FROM facts) s WHERE rn <= 3"
	[filter]="SELECT id, g, v FROM facts WHERE v % 10 = 0"
)
KINDS=${KINDS:-sum min distinct join top3 filter}

seconds() {	# sql -> wall seconds of running it
	local t0 t1
	t0=$(date +%s.%N)
	$PSQL -c "$1" >/dev/null
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

# Peak memory (MB) per process kind of this server, sampled every 0.1 s
# until $DIR/stop: private (RssAnon, the process's own allocations) and
# RSS (VmHWM, which also counts the pages of shared memory it touched:
# Postgres's shared_buffers holding the table it scans, the block cache).
rss_sampler() {
	declare -A peak=() anon=()
	while [ ! -e "$DIR/stop" ]; do
		for p in $(pgrep -P "$PMPID"); do
			local kind hwm a
			kind=$( (tr '\0' ' ' <"/proc/$p/cmdline") 2>/dev/null | sed -e 's/^postgres: //' -e 's/ for .*//' -e 's/ [0-9].*//') || continue
			read -r hwm a < <( (awk '/VmHWM/ {h = $2} /RssAnon/ {a = $2} END {print h, a}' <"/proc/$p/status") 2>/dev/null) || continue
			[ -n "$hwm" ] && [ -n "$a" ] || continue
			if [ -z "${peak[$kind]:-}" ] || [ "$hwm" -gt "${peak[$kind]}" ]; then peak[$kind]=$hwm; fi
			if [ -z "${anon[$kind]:-}" ] || [ "$a" -gt "${anon[$kind]}" ]; then anon[$kind]=$a; fi
		done
		sleep 0.1
	done
	for k in "${!peak[@]}"; do
		case $k in *creator*|*compute*) echo "$k: $((anon[$k] / 1024)) MB private, $((peak[$k] / 1024)) MB RSS" ;; esac
	done | sort | paste -sd ';' | sed 's/;/; /g'
}

if want 1; then
	echo "| view over $ROWS rows | create_materialized_view | CREATE MATERIALIZED VIEW | ratio | peak memory |"
	echo "| --- | --- | --- | --- | --- |"
	for kind in $KINDS; do
		q=${Q[$kind]}
		ours=() pg=()
		rm -f "$DIR/stop"
		rss_sampler >"$DIR/rss" &
		sampler=$!
		for _ in $(seq 1 "$RUNS"); do
			ours+=("$(seconds "SELECT hummock_stream.create_materialized_view('bv', \$q\$$q\$q\$)")")
			$PSQL -c "SELECT hummock_stream.drop_materialized_view('bv')" >/dev/null
			pg+=("$(seconds "CREATE MATERIALIZED VIEW pv AS $q")")
			$PSQL -c "DROP MATERIALIZED VIEW pv" >/dev/null
		done
		touch "$DIR/stop"
		wait $sampler
		o=$(printf '%s\n' "${ours[@]}" | median)
		p=$(printf '%s\n' "${pg[@]}" | median)
		printf '| %s | %.2f s | %.2f s | %.3fx | %s |\n' "$kind" "$o" "$p" "$(echo "scale=4; $p / $o" | bc)" "$(cat "$DIR/rss")"
	done
fi

if want 2; then
	echo "INSERT INTO facts VALUES (nextval('facts_id'), (random() * 999)::int, 1 + (random() * 4999)::int, (random() * 1048575)::int);" >"$DIR/w.sql"
	chown postgres "$DIR/w.sql"
	$PSQL -c "SELECT hummock_stream.create_materialized_view('existing', \$q\$${Q[sum]}\$q\$)" >/dev/null
	lag_sampler() {	# -> lag (ms) of the existing view every 0.1 s until $DIR/stop
		while [ ! -e "$DIR/stop" ]; do
			$PSQL -c "SELECT round(extract(epoch FROM lag) * 1000) FROM hummock_stream.jobs WHERE name = 'existing'::regclass"
			sleep 0.1
		done
	}
	# writer_run label create: pgbench for DURATION s; with create, a min
	# view is created with wait => false 2 s in; figures over the creation
	# window (or the whole run without one)
	writer_run() {
		local label=$1 create=$2 log t_start t_end
		rm -f "$DIR/stop" "$DIR"/pgbench_log.*
		lag_sampler >"$DIR/lag" &
		local lagger=$!
		(cd "$DIR" && $PGBENCH -c 1 -T "$DURATION" -l -f "$DIR/w.sql" >/dev/null 2>&1) &
		local bench=$!
		sleep 2
		t_start=$(date +%s.%N)
		if [ "$create" = yes ]; then
			$PSQL -c "SELECT hummock_stream.create_materialized_view('during', \$q\$${Q[min]}\$q\$, wait => false)" >/dev/null
			$PSQL -c "SELECT hummock_stream.wait('during', interval '1 hour')" >/dev/null
		else
			sleep $((DURATION - 4))
		fi
		t_end=$(date +%s.%N)
		touch "$DIR/stop"
		wait $bench
		# the window ends with the writer at the latest
		if [ "$(echo "$t_end > $t_start + $DURATION - 2" | bc)" = 1 ]; then
			echo "2. (the creation outlasted the writer: raise DURATION)"
			t_end=$(echo "$t_start + $DURATION - 2" | bc)
		fi
		wait $lagger
		log=$(ls "$DIR"/pgbench_log.*)
		# pgbench -l: client txno latency_us script epoch_s epoch_us
		awk -v a="$t_start" -v b="$t_end" '{t = $5 + $6 / 1e6; if (t >= a && t <= b) print $3 / 1000, int(t)}' "$log" >"$DIR/win"
		local n secs tps p99 worst lagp50 lagmax
		n=$(wc -l <"$DIR/win")
		secs=$(echo "$t_end - $t_start" | bc)
		tps=$(echo "scale=0; $n / $secs" | bc)
		p99=$(cut -d' ' -f1 "$DIR/win" | sort -n | awk '{a[NR]=$1} END {print a[int(NR * 0.99)]}')
		worst=$(sort -k2,2n -k1,1n "$DIR/win" | awk '{m[$2] = $1} END {w = 0; for (s in m) if (m[s] > w) w = m[s]; print w}')
		lagp50=$(median <"$DIR/lag")
		lagmax=$(sort -n "$DIR/lag" | tail -n 1)
		echo "$tps" >"$DIR/tps.$create"
		echo "2. $label: ${secs%???????} s window, $tps tps, p99 $p99 ms, worst second's max $worst ms; existing view's lag p50 $lagp50 ms, max $lagmax ms"
	}
	writer_run "writer alone" no
	writer_run "writer while a min view over $ROWS rows is created" yes
	echo "2. writer throughput during the creation: $(echo "scale=2; $(cat "$DIR/tps.yes") / $(cat "$DIR/tps.no")" | bc)x of alone"
	$PSQL -c "SELECT hummock_stream.wait()" >/dev/null
	echo "2. the view created during the writes differs from its query in $($PSQL -c "SELECT count(*) FROM ((TABLE during EXCEPT ${Q[min]}) UNION ALL (${Q[min]} EXCEPT TABLE during)) x") rows"
fi
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at end"
