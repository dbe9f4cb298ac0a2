#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test-debug-planted: the debug-kernel suite against planted lifetime
# faults.  For each diff in tools/tests/planted-debug (or those NAMEd),
# build make test-debug's kernel with the diff on the work tree's HEAD
# (worktree $CACHE/planted-debug/linux, build $CACHE/planted-debug/build:
# side by side as $CACHE/linux and its build directories are, so ccache
# serves every object the diff does not change), boot it with the tests
# its "Expect: TESTS splat." line names, and check that the console shows
# a KASAN, lockdep or other kernel report (tools/vm/scan-console.sh), as
# make test-debug would.  TAP on stdout, last line "N passed, N failed".
#
#   tools/tests/planted-debug.sh [NAME...]
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

names=("$@")
[ ${#names[@]} -gt 0 ] || for d in "$TOP"/tools/tests/planted-debug/*.diff; do
	names+=("$(basename "$d" .diff)")
done
src=$CACHE/planted-debug/linux out=$CACHE/planted-debug/build
n=0 failed=0
echo "TAP version 13"
for name in "${names[@]}"; do
	diff=$TOP/tools/tests/planted-debug/$name.diff
	expect=$(sed -n 's/^Expect: \(.*\) splat\.$/\1/p' "$diff")
	[ -n "$expect" ] || die "$diff has no 'Expect: TESTS splat.' line"
	rm -rf "$src"
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$src" HEAD
	git -C "$src" apply "$diff"
	KSRC=$src "$TOP/tools/kernel.sh" "$out" "$TOP/tools/vm/debug.config" >&2
	rundir=$CACHE/runs/planted-debug-$name-$(date +%Y%m%d-%H%M%S)
	# a planted fault may oops a task the test then waits for: the boot is
	# bounded (15 minutes), and the console decides, not the tests
	# shellcheck disable=SC2086 # one test per word
	NVLAT_HUNG_TASK_SECS=${NVLAT_HUNG_TASK_SECS:-60} \
		NVLAT_TEST_TIMEOUT=${NVLAT_TEST_TIMEOUT:-300} "$TOP/tools/tests/boot.sh" -q -L \
		-k "$out/arch/x86/boot/bzImage" -m 3G -t "${NVLAT_GUEST_TIMEOUT:-900}" \
		-r "$rundir" $expect > "$rundir.log" 2>&1 || true
	n=$((n + 1))
	if "$TOP/tools/vm/scan-console.sh" -K -n 5 "$rundir/console.log" > "$rundir.scan" 2>&1; then
		echo "not ok $n - $name: no kernel report on the console ($rundir/console.log)"
		failed=$((failed + 1))
	else
		echo "ok $n - $name: the debug kernel reports it"
		sed 's/^/# /' "$rundir.scan"
	fi
	git -C "$TREE" worktree remove --force "$src"
done
echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
