#!/usr/bin/env bash
# scripts/check-layering.sh -- fail if a dependency points up the stack.
#
# Modules, bottom first, and what each may use (besides PostgreSQL and the
# C library):
#
#   storage   the LSM core: plain C, no postgres.h
#   pg        the platform layer: the Postgres Env, shared block cache,
#             iterator owners, user contexts (storage)
#   row       key and row encodings, collation checks (storage pg)
#   meta      barrier loop, versions in Postgres, catalog, compaction
#             (storage pg)
#   stream    compute workers, capture, planner, executors (storage pg row meta)
#   batch     the table access method and read functions (storage pg row meta)
#   entry     _PG_init, settings, hooks, shared-memory registry: the
#             composition of everything (all)
#
# Two checks, both over the built tree (run after make):
#  - includes: a file of module M includes "hummock_stream/X/..." only for
#    X allowed to M (src/M/** and include/hummock_stream/M/**);
#  - calls: an object of module M references (nm -u) only symbols defined
#    by M or by modules allowed to M.
# Usage: scripts/check-layering.sh [srcdir]
set -Eeuo pipefail
cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}"

declare -A allowed=(
	[storage]="storage"
	[pg]="pg storage"
	[row]="row pg storage"
	[meta]="meta pg storage"
	[stream]="stream row meta pg storage"
	[batch]="batch row meta pg storage"
	[entry]="entry batch stream row meta pg storage"
)
modules="storage pg row meta stream batch entry"
bad=0

# ---- includes ----
for m in $modules; do
	for f in $(find "src/$m" "include/hummock_stream/$m" -name '*.[ch]' 2>/dev/null); do
		while IFS= read -r dep; do
			case " ${allowed[$m]} " in
			*" $dep "*) ;;
			*)
				echo "layering: $f ($m) includes hummock_stream/$dep/"
				bad=1
				;;
			esac
		done < <(sed -nE 's|^[[:space:]]*#[[:space:]]*include[[:space:]]*"hummock_stream/([a-z_]+)/.*|\1|p' "$f" | sort -u)
	done
done
# the storage core stays free of PostgreSQL
if grep -lE '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]postgres(_fe)?\.h[>"]' \
	$(find src/storage include/hummock_stream/storage -name '*.[ch]') 2>/dev/null; then
	echo "layering: the files above of src/storage include postgres.h"
	bad=1
fi

# ---- calls (needs the objects) ----
objs=$(find src -name '*.o' | head -n 1)
if [ -z "$objs" ]; then
	echo "check-layering: no objects; run make first" >&2
	exit 2
fi
calls=$(
	for m in $modules; do
		for o in $(find "src/$m" -name '*.o' 2>/dev/null); do
			[ -f "${o%.o}.c" ] || continue		# a stale object of a moved file
			nm --defined-only "$o" | awk -v m="$m" '$2 ~ /^[TDBR]$/ { print "D", $3, m }'
			nm -u "$o" | awk -v m="$m" -v o="${o%.o}.c" '{ print "U", $2, m, o }'
		done
	done | awk -v rules="$(for m in $modules; do echo "$m:${allowed[$m]}"; done)" '
		BEGIN {
			n = split(rules, r, "\n")
			for (i = 1; i <= n; i++) {
				split(r[i], kv, ":"); k = split(kv[2], deps, " ")
				for (j = 1; j <= k; j++) ok[kv[1] "/" deps[j]] = 1
			}
		}
		$1 == "D" { def[$2] = $3; next }
		{ use[++u] = $0 }
		END {
			for (i = 1; i <= u; i++) {
				split(use[i], f, " ")
				if ((f[2] in def) && !((f[3] "/" def[f[2]]) in ok))
					printf "layering: %s (%s) calls %s of %s\n", f[4], f[3], f[2], def[f[2]]
			}
		}' | sort -u)
if [ -n "$calls" ]; then
	echo "$calls"
	bad=1
fi

if [ "$bad" -ne 0 ]; then
	echo "check-layering: dependencies point up the stack (see above)"
	exit 1
fi
echo "check-layering: every include and call points down ($modules)"
