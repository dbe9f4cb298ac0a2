#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The placement tests against planted faults: for each diff in
# tools/tests/planted (or those NAMEd), build the test kernel with the
# diff on the work tree's HEAD (worktree $CACHE/planted/NAME, build
# $CACHE/build-planted-NAME), boot it on the instruction clock with the
# tests its "Expect:" line names, and check that each of them fails.
# TAP on stdout, last line "N passed, N failed".
#
#   tools/tests/planted.sh [NAME...]
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

names=("$@")
[ ${#names[@]} -gt 0 ] || for d in "$TOP"/tools/tests/planted/*.diff; do
	names+=("$(basename "$d" .diff)")
done
initrd=$("$TOP/tools/vm/initramfs.sh")
n=0 failed=0
for name in "${names[@]}"; do
	diff=$TOP/tools/tests/planted/$name.diff
	expect=$(sed -n 's/^Expect: \(.*\) fail\.$/\1/p' "$diff")
	[ -n "$expect" ] || die "$diff has no 'Expect: TESTS fail.' line"
	src=$CACHE/planted/$name out=$CACHE/build-planted-$name
	rm -rf "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" HEAD
	git -C "$src" apply "$diff"
	KSRC=$src "$TOP/tools/kernel.sh" "$out" >&2
	rundir=$CACHE/runs/planted-$name-$(date +%Y%m%d-%H%M%S)
	# shellcheck disable=SC2086 # one pattern per test
	"$TOP/tools/vm/run.sh" -q "${PLACEMENT_BOOT[@]}" -k "$out/arch/x86/boot/bzImage" \
		-i "$initrd" -t 3000 -r "$rundir" -- \
		"$TOP/tools/tests/guest/run-all.sh" $expect >&2 || true
	for t in $expect; do
		n=$((n + 1))
		line=$(grep -E "^(not )?ok [0-9]+ - $t( |$)" "$rundir/results.tap" || echo "no result")
		case "$line" in
		"not ok "*) echo "ok $n - $name: $t fails (${line#* - })" ;;
		*) echo "not ok $n - $name: $t fails (got: $line)"; failed=$((failed + 1)) ;;
		esac
	done
	sed -n 's/^    \(not ok .*\)/# \1/p' "$rundir/results.tap"
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
