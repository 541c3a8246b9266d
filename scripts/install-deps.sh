#!/usr/bin/env bash
# scripts/install-deps.sh -- install the Debian 12 packages hummock_stream
# needs to build and test, if any is missing (run as root).
set -Eeuo pipefail
export DEBIAN_FRONTEND=noninteractive
PKGS=(build-essential postgresql-15 postgresql-server-dev-15 libzstd-dev
	liblz4-dev libicu-dev libipc-run-perl libcmocka-dev)
missing=()
for p in "${PKGS[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "installing: ${missing[*]}"
	apt_get() { apt-get -q -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3 "$@"; }
	apt_get update -qq
	apt_get install -y -qq --no-install-recommends "${PKGS[@]}" >/dev/null
fi
dpkg-query -W -f='  ${Package} ${Version}\n' "${PKGS[@]}"
