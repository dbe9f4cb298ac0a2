#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make deps: install the Debian packages the project needs (as root), or
# print the apt-get line to run (as anyone else).
#
# NVLAT_EXTRA_PKGS: more packages, installed the same way (tools/fresh-home.sh
# names one that is not installed, to take the install path).
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

PKGS="git make gcc flex bison bc libelf-dev libssl-dev dwarves cpio kmod
ccache python3 python3-docutils python3-ply python3-git perl rsync xz-utils
qemu-system-x86 busybox-static fio nvme-cli iproute2 jq gnuplot-nox
sparse coccinelle b4 quilt shellcheck git-email linux-perf dpkg-dev udev trace-cmd
${NVLAT_EXTRA_PKGS:-}"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -n "$missing" ] || exit 0
if [ "$(id -u)" != 0 ]; then
	die "missing Debian packages; run: sudo apt-get install -y$missing"
fi
step "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq > /dev/null || die "apt-get update failed"
# shellcheck disable=SC2086
apt-get install -y -qq $missing > "$CACHE/deps.log" 2>&1 ||
	{ tail -n 20 "$CACHE/deps.log" >&2; die "apt-get install failed (log: $CACHE/deps.log)"; }
