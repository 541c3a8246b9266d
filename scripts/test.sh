#!/usr/bin/env bash
# scripts/test.sh -- install what is missing, build and install the
# extension and its test module (test/modules/hummock_stream_test), and run
# every test layer of hummock_stream: unit (cmocka, no server), pg_regress,
# isolation and TAP (each starts its own throwaway server as the postgres
# OS user with the library preloaded).
#
# Run as root (or via sudo) on Debian 12:   sudo scripts/test.sh
# Prints a final "N passed, N failed" line; exits non-zero if any test
# failed, a suite could not run, or no test ran at all.
#
# Environment: SUITES="unit regress isolation tap" selects suites;
# SUITE_TIMEOUT (seconds, default 3600: the TAP suite takes 8-30 minutes
# on 2 cores, depending on load) bounds each suite; KEEP_WORK=1 keeps
# the work directory; PG_CONFIG selects the PostgreSQL 15 installation.
set -Eeuo pipefail

PG_MAJOR=15
# PG_CONFIG may point at another (relocated) installation of the same major
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
SUITES=${SUITES:-unit regress isolation tap}
SUITE_TIMEOUT=${SUITE_TIMEOUT:-3600}
export DEBIAN_FRONTEND=noninteractive LANG=C.UTF-8 LC_ALL=C.UTF-8
SRC=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
T0=$(date +%s)
step() { printf '\n=== [%4ds] %s\n' $(($(date +%s) - T0)) "$*"; }
trap 'echo "!!! scripts/test.sh: command failed (line $LINENO): $BASH_COMMAND" >&2' ERR

if [ "$(id -u)" != 0 ]; then
	exec sudo -E "$0" "$@"
fi

# ------------------------------------------------------------------ deps
step "packages"
"$SRC/scripts/install-deps.sh"
BINDIR=$("$PG_CONFIG" --bindir)

# ------------------------------------------------------------------ work dir
# A copy of the tree owned by postgres (the clone may sit under a 0700
# directory such as /root; the suites write results into the build dir).
WORK=$(mktemp -d /tmp/hummock_stream-test.XXXXXX)
chmod 755 "$WORK"
cp -a "$SRC/." "$WORK/src"
rm -rf "$WORK/src/.git"
BUILD=$WORK/src
cd "$WORK"

stop_servers() {	# immediate-stop every server whose data dir is under $1
	local pidfile
	[ -d "$1" ] || return 0
	while read -r pidfile; do
		runuser -u postgres -- "$BINDIR/pg_ctl" -D "$(dirname "$pidfile")" \
			-m immediate -w stop >/dev/null 2>&1 || true
	done < <(find "$1" -name postmaster.pid 2>/dev/null)
}
trap 'stop_servers "$WORK"' EXIT

# ------------------------------------------------------------------ build
step "build (-Werror) and install"
make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" PG_CFLAGS="-Werror" -j"$(nproc)"
make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" PG_CFLAGS="-Werror" install
# the test module: only the tests install it (the suites preload it after
# the extension, test/hummock_stream.conf)
TESTMOD=$BUILD/test/modules/hummock_stream_test
make -C "$TESTMOD" -s PG_CONFIG="$PG_CONFIG" clean >/dev/null
make -C "$TESTMOD" -s PG_CONFIG="$PG_CONFIG" PG_CFLAGS="-Werror" -j"$(nproc)"
make -C "$TESTMOD" -s PG_CONFIG="$PG_CONFIG" PG_CFLAGS="-Werror" install
chown -R postgres:postgres "$WORK"

# ------------------------------------------------------------------ suites
PASSED=0; FAILED=0; RC=0; FAILED_SUITES=

# the structure: dependencies point down, only prefixed symbols exported
step "structure: check-layering, check-symbols"
for check in check-layering check-symbols; do
	if make -C "$BUILD" -s PG_CONFIG="$PG_CONFIG" "$check"; then
		PASSED=$((PASSED + 1))
	else
		echo "--- $check failed"
		FAILED=$((FAILED + 1)); RC=1
	fi
done
run_suite() {	# name, then the command (run as postgres in $BUILD)
	local name=$1; shift
	local log=$WORK/$name.log p=0 f=0 rc=0
	step "suite: $name"
	timeout -k 30 "$SUITE_TIMEOUT" runuser -u postgres -- "$@" >"$log" 2>&1 || rc=$?
	stop_servers "$BUILD"
	grep -vE '^(ALTER|SET|DROP|CREATE) ' "$log" || true
	case $name in
	unit)
		p=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) test.*/\1/p' "$log" | tail -n 1)
		f=$(sed -nE 's/^\[  FAILED  \] ([0-9]+) test.*/\1/p' "$log" | tail -n 1)
		;;
	tap)
		p=$(grep -cE '^ *ok [0-9]+' "$log" || true)
		f=$(grep -cE '^ *not ok [0-9]+' "$log" || true)
		;;
	*)
		p=$(grep -cE '\.\.\. +ok ' "$log" || true)
		f=$(grep -cE '\.\.\. +(FAILED|failed)' "$log" || true)
		;;
	esac
	p=${p:-0}; f=${f:-0}
	[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1	# died before reporting
	[ "$rc" -eq 0 ] && [ "$p" -eq 0 ] && { echo "--- $name ran no test"; rc=1; f=1; }
	PASSED=$((PASSED + p)); FAILED=$((FAILED + f))
	printf -- '--- %s: %d passed, %d failed (rc=%d)\n' "$name" "$p" "$f" "$rc"
	if [ "$rc" -ne 0 ]; then
		RC=1; FAILED_SUITES="$FAILED_SUITES $name"
		report_failure "$name" "$log"
	fi
	return 0
}
# What failed, last (a CI excerpt shows the end of the output): the diffs
# or the failed TAP scripts' own logs, then the names of what failed.
report_failure() {	# name, log
	local name=$1 log=$2 t
	case $name in
	tap)
		for t in $(sed -nE 's#^(t/[0-9A-Za-z_]+)\.pl +\(Wstat.*#\1#p' "$log"); do
			t=${t#t/}
			tail -n 60 "$BUILD/tmp_check/log/regress_log_$t" 2>/dev/null || true
			tail -n 40 "$BUILD"/tmp_check/log/"$t"_*.log 2>/dev/null || true
		done
		echo "--- tap: failed scripts:"
		sed -n '/^Test Summary Report/,$p' "$log" | head -n 40
		;;
	unit)
		grep -E '^\[  FAILED  \]|^\[  ERROR   \]' "$log" | head -n 40 || true
		;;
	*)
		head -n 300 "$BUILD/regression.diffs" "$BUILD/output_iso/regression.diffs" 2>/dev/null || true
		tail -n 60 "$BUILD"/log/* "$BUILD"/output_iso/log/* 2>/dev/null || true
		echo "--- $name: failed tests:"
		grep -E '\.\.\. +(FAILED|failed)' "$log" || true
		;;
	esac
}

MK=(make -C "$BUILD" PG_CONFIG="$PG_CONFIG")
for s in $SUITES; do
	case $s in
	unit)      run_suite unit "${MK[@]}" unitcheck PG_CFLAGS=-Werror ;;
	regress)   run_suite regress "${MK[@]}" installcheck ISOLATION= TAP_TESTS= ;;
	isolation) run_suite isolation "${MK[@]}" installcheck REGRESS= TAP_TESTS= ;;
	tap)       run_suite tap "${MK[@]}" installcheck REGRESS= ISOLATION= PROVE_FLAGS="--verbose --timer" ;;
	*)         echo "unknown suite $s"; RC=1 ;;
	esac
done

step "done"
[ "$PASSED" -gt 0 ] || { echo "no test ran"; RC=1; }
if [ "$RC" -eq 0 ] && [ -z "${KEEP_WORK:-}" ]; then
	rm -rf "$WORK"
else
	echo "work dir kept: $WORK"
fi
[ -z "$FAILED_SUITES" ] || echo "failed suites:$FAILED_SUITES (their failures are listed above)"
echo "$PASSED passed, $FAILED failed"
exit "$RC"
