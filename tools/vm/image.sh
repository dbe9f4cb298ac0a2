#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest's tools as an initramfs layer, for a boot that never waits on
# the host (tools/vm/run.sh -l): bash, fio, jq, iproute2 and the coreutils
# the guest scripts call, each with the shared libraries ldd names, and the
# repository's tools/.  On the instruction clock no 9p round trip then
# lets the guest clock jump by what the host takes.
#
#   tools/vm/image.sh OUT.cpio [DIR]
#
# DIR: where tools/ is in the image (default: this repository's path).
#
# The libraries part is cached by the binaries' checksums; tools/ is
# copied on every call (it is small and changes with the checkout).
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

out=${1:?usage: image.sh OUT.cpio [DIR]}
dir=${2:-$TOP}
need cpio ldd sha1sum flock
# What the guest scripts run; anything else comes from busybox (the base
# initramfs), which is last on the guest's PATH.
cmds="bash fio jq tc ip awk sed grep sort head tail cat stat sleep mkdir rm
	nproc truncate paste ln env dirname basename cp mv timeout date cut tr wc
	seq tee uniq readlink mktemp touch chmod ls kill od dd sync xargs find
	taskset chrt expr printf true false comm numfmt"
bins=()
for c in $cmds; do
	p=$(command -v "$c" 2> /dev/null) || continue
	# skip shell builtins; /bin/X as /usr/bin/X on a merged-/usr host
	case "$p" in /*) bins+=("$(readlink -f "${p%/*}")/${p##*/}") ;; esac
done

# files FILE...: each binary, the file a symlink resolves to, and its
# libraries with the dynamic loader, by the paths the host loader uses
files() {
	local f
	for f in "$@"; do
		echo "$f"
		ldd "$f" 2> /dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }'
	done | while read -r f; do
		echo "$f"
		[ ! -L "$f" ] || readlink -f "$f"
	done | sort -u
}

list=$(files "${bins[@]}")
sum=$(printf '%s\n' "$list" | xargs sha1sum | sha1sum | cut -c1-12)
cached=$CACHE/initramfs/tools-$sum.cpio
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
# one boot at a time builds the layer (and removes older ones)
mkdir -p "$CACHE/initramfs"
exec 9> "$CACHE/initramfs/.lock"
flock 9
if [ ! -s "$cached" ]; then
	while read -r f; do
		mkdir -p "$stage$(dirname "$f")"
		if [ -L "$f" ]; then
			# the link, to the file it resolves to (in the image too)
			ln -sfn "$(readlink -f "$f")" "$stage$f"
		else
			cp "$f" "$stage$f"
		fi
	done <<< "$list"
	# /bin and /sbin as on a merged-/usr host (#!/bin/bash); /bin/sh
	# stays the base's busybox
	mkdir -p "$stage/bin" "$stage/sbin"
	for f in "${bins[@]}"; do
		case "$f" in /usr/bin/* | /usr/sbin/*) ;; *) continue ;; esac
		d=${f#/usr}
		[ -e "$stage$d" ] || ln -s "$f" "$stage$d"
	done
	# the loader's cache, so that libraries resolve as on the host
	mkdir -p "$stage/etc"
	cp /etc/ld.so.cache "$stage/etc/"
	mkdir -p "$CACHE/initramfs"
	rm -f "$CACHE"/initramfs/tools-*.cpio
	cpio_layer "$stage" > "$cached.tmp"
	mv "$cached.tmp" "$cached"
	rm -rf "${stage:?}"/*
fi
mkdir -p "$stage$dir"
cp -a "$TOP/tools" "$stage$dir/"
{
	cat "$cached"
	cpio_layer "$stage"
} > "$out"
