#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build Debian's nvme-cli with the patches next to this script (nvme
# show-topology prints what the latency iopolicy sees of each path), for
# the guest test tools/tests/guest/85-nvme-cli-latency.sh.
#
#   tools/nvme-cli/build.sh [DIR]
#
# DIR defaults to $CACHE/nvme-cli (~/.cache/nvme-latency/nvme-cli).  The
# source package of the host's Debian release is fetched into DIR/deb-src
# through an apt index of its own (DIR/apt, one deb-src line for the suite),
# unpacked into DIR/src with the patches applied, and built with meson and
# ninja in DIR/build against the system's libnvme (libnvme-dev); the binary
# is copied to DIR/nvme, and its path is the last line printed.  Each step
# is skipped when already done; when the patches change, the source is
# unpacked again and rebuilt.  As root the script installs the packages the
# build needs; as anyone else it prints the apt-get line to run.
#
# NVME_CLI_SUITE: the suite to take the source from (default: the host's
# release, VERSION_CODENAME of /etc/os-release, e.g. bookworm).
# NVME_CLI_DSC: a .dsc already downloaded (its tarballs next to it) to build
# instead of fetching one.
# NVME_CLI_JOBS: ninja's parallel jobs (default: nproc).
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

HERE=$(cd "$(dirname "$0")" && pwd)
DIR=${1:-$CACHE/nvme-cli}
SUITE=${NVME_CLI_SUITE:-$(. /etc/os-release && echo "${VERSION_CODENAME:-}")}
JOBS=${NVME_CLI_JOBS:-$(nproc)}
# what the build needs (libnvme-mi.pc requires dbus-1); the documentation
# (asciidoc, xmlto) is not built
PKGS="dpkg-dev patch gcc meson ninja-build pkg-config libnvme-dev libdbus-1-dev
libjson-c-dev zlib1g-dev"

shopt -s nullglob
PATCHES=("$HERE"/[0-9]*.patch)
shopt -u nullglob
[ "${#PATCHES[@]}" -gt 0 ] || die "no patches in $HERE"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)

# deps: install the missing packages of $PKGS (as root), or say which.
deps() {
	local p missing=
	for p in $PKGS; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
			missing="$missing $p"
	done
	[ -n "$missing" ] || return 0
	[ "$(id -u)" = 0 ] ||
		die "missing Debian packages; run: sudo apt-get install -y$missing"
	step "installing:$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -qq $missing > "$DIR/deps.log" 2>&1; then
		# the system's index may be out of date: update it once
		apt-get update -qq > /dev/null || die "apt-get update failed"
		# shellcheck disable=SC2086
		apt-get install -y -qq $missing > "$DIR/deps.log" 2>&1 ||
			{ tail -n 20 "$DIR/deps.log" >&2; die "apt-get install failed (log: $DIR/deps.log)"; }
	fi
}

# fetch_dsc: print the .dsc to build: NVME_CLI_DSC, the one in
# DIR/deb-src, or one fetched there from $SUITE.
fetch_dsc() {
	local dsc
	if [ -n "${NVME_CLI_DSC:-}" ]; then
		[ -f "$NVME_CLI_DSC" ] || die "NVME_CLI_DSC=$NVME_CLI_DSC does not exist"
		printf '%s\n' "$NVME_CLI_DSC"
		return
	fi
	dsc=$(find "$DIR/deb-src" -name 'nvme-cli_*.dsc' 2>/dev/null | sort | tail -n 1)
	if [ -n "$dsc" ]; then printf '%s\n' "$dsc"; return; fi
	[ -n "$SUITE" ] || die "no VERSION_CODENAME in /etc/os-release: set NVME_CLI_SUITE"
	step "apt index of $SUITE sources from $(mirror_uri) into $DIR/apt" >&2
	apt_private "$DIR/apt" deb-src "$SUITE" >&2 ||
		die "apt-get update of $SUITE sources failed"
	# into a directory of its own first, so that an interrupted download
	# leaves no .dsc without its tarballs behind
	rm -rf "$DIR/deb-src.new"
	mkdir -p "$DIR/deb-src.new"
	step "fetching the source of nvme-cli from $SUITE" >&2
	(cd "$DIR/deb-src.new" && apt-get "${APT_OPTS[@]}" -qq source --download-only nvme-cli >&2) ||
		die "apt-get source nvme-cli failed (are $SUITE's sources on the mirror?)"
	rm -rf "$DIR/deb-src"
	mv "$DIR/deb-src.new" "$DIR/deb-src"
	find "$DIR/deb-src" -name 'nvme-cli_*.dsc' | sort | tail -n 1
}

# unpack DSC: DIR/src, the source of DSC with Debian's patches and ours
# applied; the checksum of ours goes to DIR/src/.nvlat-patches.
unpack() {
	local p
	rm -rf "$DIR/src.new" "$DIR/build"
	step "unpacking ${1##*/}"
	dpkg-source -x "$1" "$DIR/src.new" > "$DIR/unpack.log" 2>&1 ||
		{ tail -n 20 "$DIR/unpack.log" >&2; die "dpkg-source -x $1 failed"; }
	for p in "${PATCHES[@]}"; do
		step "applying ${p##*/}"
		patch -d "$DIR/src.new" -p1 -s -N --no-backup-if-mismatch < "$p" ||
			die "${p##*/} does not apply to ${1##*/}"
	done
	printf '%s\n' "$sum" > "$DIR/src.new/.nvlat-patches"
	rm -rf "$DIR/src"
	mv "$DIR/src.new" "$DIR/src"
}

deps
need dpkg-source patch meson ninja
sum=$(cat "${PATCHES[@]}" | sha256sum | cut -d' ' -f1)
# (a source unpacked from another .dsc stays: remove DIR/src to change it)
if [ "$(cat "$DIR/src/.nvlat-patches" 2>/dev/null)" != "$sum" ]; then
	dsc=$(fetch_dsc)
	unpack "$dsc"
else
	step "$DIR/src is up to date with the patches"
fi

# The Debian version names the build in 'nvme version': "git <version>+nvlat".
ver=$(dpkg-parsechangelog -l "$DIR/src/debian/changelog" -S Version)
if ! [ -f "$DIR/build/build.ninja" ]; then
	step "configuring nvme-cli $ver in $DIR/build"
	# No fallbacks: the subprojects (libnvme, json-c, zlib) would be
	# downloaded, and the system's libraries are the ones the guest has.
	# CC given: meson then puts no ccache in front, whose default cache
	# (~/.cache/ccache) and size limit are not the project's.
	CC=gcc meson setup --wrap-mode=nofallback --buildtype=release -Ddocs=false \
		-Dversion-tag="$ver+nvlat" "$DIR/build" "$DIR/src" > "$DIR/meson.log" 2>&1 ||
		{ tail -n 20 "$DIR/meson.log" >&2; rm -rf "$DIR/build"; die "meson setup failed (log: $DIR/meson.log)"; }
fi
step "building nvme with ninja -j$JOBS"
ninja -C "$DIR/build" -j "$JOBS" nvme > "$DIR/ninja.log" 2>&1 ||
	{ tail -n 30 "$DIR/ninja.log" >&2; die "build failed (log: $DIR/ninja.log)"; }
cmp -s "$DIR/build/nvme" "$DIR/nvme" || install -m 755 "$DIR/build/nvme" "$DIR/nvme"
"$DIR/nvme" version > /dev/null || die "$DIR/nvme does not run"
step "built: $("$DIR/nvme" version | paste -sd ' ')"
printf '%s\n' "$DIR/nvme"
