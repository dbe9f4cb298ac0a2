#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The set-up steps of a first run, on a machine whose home has no cache:
# HOME and XDG_CACHE_HOME point into a new empty directory, NVLAT_CACHE is
# unset.  tools/deps.sh must take its install path (NVLAT_EXTRA_PKGS names
# $NVLAT_FRESH_PKG, default hello, a small package; removed first when
# installed and again at the end unless it was installed before) and log
# into the new cache; tools/tree.sh index must build the private apt index
# of the kernel's suite in the new cache (the fetch without its 200 MB
# download).  As non-root, deps.sh must print the apt-get line instead.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

pkg=${NVLAT_FRESH_PKG:-hello}
home=$(mktemp -d)
cache=$home/.cache/nvme-latency
had=
n=0 failed=0
installed() { dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q 'ok installed'; }
cleanup() {
	if [ "$(id -u)" = 0 ] && [ -z "$had" ] && installed; then
		DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$pkg" > /dev/null 2>&1 || true
	fi
	rm -rf "$home"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
check() { # check NAME CMD...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
	fi
}
# fresh CMD...: CMD as on a new machine, its output in $home/out
fresh() {
	env -u NVLAT_CACHE -u KSRC -u KBUILD_OUT HOME="$home" XDG_CACHE_HOME="$home/.cache" \
		NVLAT_EXTRA_PKGS="$pkg" "$@" > "$home/out" 2>&1
	local rc=$?
	sed 's/^/#   /' "$home/out"
	return "$rc"
}

not() { ! "$@"; }
has_index() { compgen -G "$cache/apt/lists/*_Packages*" > /dev/null; }

echo "TAP version 13"
echo "# HOME=$home, no cache; canary package $pkg"
if [ "$(id -u)" = 0 ]; then
	if installed; then
		had=1
		DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$pkg" > /dev/null ||
			die "cannot remove $pkg to take deps.sh's install path"
	fi
	check "deps.sh installs a missing package" fresh "$TOP/tools/deps.sh"
	check "$pkg is installed" installed
	check "deps.sh logged into the new cache ($cache/deps.log)" test -f "$cache/deps.log"
else
	check "deps.sh (not root) fails with the apt-get line" not fresh "$TOP/tools/deps.sh"
	check "it names $pkg" grep -q "apt-get install .*$pkg" "$home/out"
fi
check "nothing beside the cache (${cache##*/}.deps.log)" test ! -e "$cache.deps.log"
check "tree.sh index: private apt index of the kernel's suite" fresh "$TOP/tools/tree.sh" index
check "the index is in the new cache ($cache/apt/lists)" has_index
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
