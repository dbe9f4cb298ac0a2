# SPDX-License-Identifier: GPL-2.0
# Host-side helpers sourced by the tools/*.sh scripts.  Not executable.
# shellcheck shell=bash

# shellcheck disable=SC2034 # used by the scripts that source this file
CACHE=${NVLAT_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nvme-latency}
TREE=${KSRC:-$CACHE/linux}
BUILD=${KBUILD_OUT:-$CACHE/build}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
START_S=$(date +%s)
# Every script writes under the cache: it exists from here on, also on a
# machine whose home has no ~/.cache yet.
mkdir -p "$CACHE"

die() {
	printf '%s: error: %s\n' "${0##*/}" "$*" >&2
	exit 1
}

# step MESSAGE: one progress line with the elapsed time of this script.
step() {
	printf '[%4ss] %s\n' "$(($(date +%s) - START_S))" "$*"
}

# pass_fail LINE: "P F" from a line "P passed, F failed" (the last line of
# make test, boot.sh and run-all.sh); nothing for any other line.
pass_fail() { sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$/\1 \2/p' <<< "$1"; }

# cpio_layer DIR: a newc archive, on stdout, of what DIR holds (not DIR
# itself, whose mode would replace the root's), in a stable order: a layer
# that the guest kernel unpacks over the initramfs before it (run.sh -l)
cpio_layer() {
	(cd "$1" && find . -mindepth 1 -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc --quiet -R 0:0)
}

need() {
	local t
	for t in "$@"; do
		command -v "$t" >/dev/null 2>&1 ||
			die "'$t' is missing: run 'make deps' (as root) first"
	done
}

# no_identity PURPOSE: stop in one line that says how to give git an identity
no_identity() {
	die "git has no identity $1: run git config --global user.name 'Your Name' && git config --global user.email you@example.com"
}

# is_kernel DIR: DIR looks like the top of a Linux source tree.
is_kernel() {
	[ -f "$1/Makefile" ] && [ -f "$1/Kconfig" ] && [ -d "$1/block" ] &&
		[ -d "$1/drivers/nvme/host" ]
}

# tree_clean DIR: no staged, unstaged or untracked-but-not-ignored changes.
tree_clean() {
	[ -z "$(git -C "$1" status --porcelain --untracked-files=no)" ] &&
		! [ -d "$1/.git/rebase-apply" ]
}

# The placement tests, which judge shares, rates and estimates: the guest
# tests that call nvlat_need_icount (tools/vm/lib.sh), by number.  They run
# in a boot of their own, on the instruction clock with one vCPU and no
# KUnit (PLACEMENT_BOOT, options of tools/vm/run.sh and tools/tests/boot.sh).
placement_tests() {
	grep -l '^nvlat_need_icount$' "$TOP"/tools/tests/guest/[0-9]*.sh |
		sed 's|.*/\([0-9]*\)-[^/]*$|\1|' | paste -sd ' '
}
# Each test gets 1200 s of guest time (run-all.sh's default is 600): on
# this clock a wait for the host's 9p lets the guest clock jump timer by
# timer, so a busy host spends guest time (62-steering took 567 s of 600
# in one make test and timed out in the next); the limit is against hangs.
# shellcheck disable=SC2034 # used by the scripts that source this file
PLACEMENT_BOOT=(-d -c 1 -a kunit.enable=0 -e "NVLAT_TEST_TIMEOUT=${NVLAT_TEST_TIMEOUT:-1200}")
# shellcheck disable=SC2034 # the placement boot's timeout in s
PLACEMENT_TIMEOUT=${NVLAT_PLACEMENT_TIMEOUT:-3600}

# series_patches: the posted series, in quilt order
series_patches() {
	local p
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		printf '%s/patches/%s\n' "$TOP" "$p"
	done < "$TOP/series"
}

# test_patches: the test-only patches the work tree carries on top of the
# series (the KUnit path model, tools/model/): make check, make test and
# make kunit build and run them; they are never posted
test_patches() {
	local p
	for p in "$TOP"/tools/model/[0-9]*.patch; do
		[ -e "$p" ] && printf '%s\n' "$p"
	done
	return 0
}

# tree_patches: what the work tree carries: the series, then test_patches
tree_patches() {
	series_patches
	test_patches
}

# mirror_uri: the Debian mirror apt is configured with (not the security one)
mirror_uri() {
	local f uri=
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		uri=$(awk '/^URIs:/ && $2 !~ /security/ { print $2; exit }' "$f")
		[ -n "$uri" ] && break
	done
	if [ -z "$uri" ] && [ -f /etc/apt/sources.list ]; then
		uri=$(awk '$1 == "deb" && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /:\/\//) { print $i; exit } }' \
			/etc/apt/sources.list)
	fi
	[ -n "$uri" ] || die "no Debian mirror found in /etc/apt"
	printf '%s\n' "$uri"
}

# apt_private DIR TYPE SUITE: an apt index of its own in DIR, apart from the
# system's, for one line "TYPE <mirror> SUITE main" (TYPE deb or deb-src);
# updates it and sets APT_OPTS for the apt-get and apt-cache calls on it.
apt_private() {
	local dir=$1 uri
	uri=$(mirror_uri) || exit 1
	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial"
	printf '%s [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] %s %s main\n' \
		"$2" "$uri" "$3" > "$dir/sources.list"
	APT_OPTS=(-o "Dir::Etc::SourceList=$dir/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o Debug::NoLocking=1 -o APT::Sandbox::User=root)
	apt-get "${APT_OPTS[@]}" -qq update
}

# host_tsc_khz: the host's TSC frequency in kHz.  A TCG guest's TSC runs at
# it; booting with tsc_early_khz= spares the guest its PIT calibration,
# which fails when the host is busy and leaves the guest on refined-jiffies
# (latencies in 4 ms steps, netem delays rounded to jiffies).
host_tsc_khz() {
	local mhz
	mhz=$(dmesg 2>/dev/null | sed -n -e 's/.*tsc: Refined TSC clocksource calibration: \([0-9.]*\) MHz.*/\1/p' \
		-e 's/.*tsc: Detected \([0-9.]*\) MHz.*/\1/p' | tail -n 1)
	[ -n "$mhz" ] || mhz=$(awk -F': *' '/^cpu MHz/ { print $2; exit }' /proc/cpuinfo)
	awk -v m="$mhz" 'BEGIN { if (m > 0) printf "%d\n", m * 1000 }'
}
