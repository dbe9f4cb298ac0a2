#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: every test of the project, in order; TAP on stdout and a last
# line "N passed, N failed".  Exit status 0 only if nothing failed.
#
#   1. check-sync         patches/, series and block/ copies agree
#   2. tree               the series applies to the 7.3 base with git am
#   3. fresh-home         deps.sh, tree.sh's apt set-up and tree.sh's apply
#                         with an empty home, no cache and no git identity
#                         (tools/fresh-home.sh)
#   4. kernel             test kernel builds (series, CONFIG_BLK_CLAT=y)
#   5. kernel-clat-off    block/ and drivers/nvme build with CONFIG_BLK_CLAT=n
#   6. check              tools/check.sh (checkpatch, W=1, sparse, ...)
#   7. boot: KUnit suites (parsed by kunit.py) and the guest tests but the
#      placement tests of make test-placement
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

n=0 passed=0 failed=0
LOGS=$CACHE/test-logs
mkdir -p "$LOGS"

result() { # result NAME RC [DETAIL]
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		passed=$((passed + 1))
		echo "ok $n - $1${3:+ # $3}"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1${3:+ # $3}"
	fi
}

stage() { # stage NAME CMD...: run CMD with its output in a log
	local name=$1 rc=0 t0
	shift
	t0=$(date +%s)
	step "$name: $*" >&2
	"$@" > "$LOGS/$name.log" 2>&1 || rc=$?
	[ "$rc" = 0 ] || { echo "# $name failed, last lines of $LOGS/$name.log:"; tail -n 15 "$LOGS/$name.log" | sed 's/^/#   /'; }
	result "$name" "$rc" "$(($(date +%s) - t0))s"
	return "$rc"
}

echo "TAP version 13"
"$TOP/tools/deps.sh" || exit 1
stage check-sync "$TOP/tools/export.sh" check
stage tree "$TOP/tools/tree.sh" tree || { echo "$passed passed, $failed failed"; exit 1; }
# after the tree: its stand-ins come from the tree's base
stage fresh-home "$TOP/tools/fresh-home.sh"
kernel_ok=0
stage kernel "$TOP/tools/kernel.sh" || kernel_ok=1
stage kernel-clat-off "$TOP/tools/kernel.sh" "$CACHE/build-clat-off" \
	"$TOP/tools/vm/clat-off.config"
if [ -z "${NVLAT_SKIP_CHECK:-}" ]; then
	stage check "$TOP/tools/check.sh" || true
	# count make check's own results, one per patch and check
	grep -E '^(ok|not ok) ' "$LOGS/check.log" | sed 's/^/    /'
	cp=$(grep -c '^ok ' "$LOGS/check.log") || cp=0
	cf=$(grep -c '^not ok ' "$LOGS/check.log") || cf=0
	passed=$((passed + cp))
	failed=$((failed + cf))
fi

# The placement tests that judge shares and rates in TCG's real time,
# which host load and the guest's per-node path asymmetry move
# (tools/tests/README.md): make test-placement.
PLACEMENT="61 64 65 73 76"
if [ "$kernel_ok" = 0 ]; then
	rundir=$CACHE/runs/test-$(date +%Y%m%d-%H%M%S)
	initrd=$("$TOP/tools/vm/initramfs.sh")
	rc=0
	"$TOP/tools/vm/run.sh" -q -i "$initrd" -t "${NVLAT_GUEST_TIMEOUT:-2400}" -r "$rundir" \
		-e NVLAT_SKIP="$PLACEMENT" -- \
		"$TOP/tools/tests/guest/run-all.sh" > "$LOGS/guest-host.log" 2>&1 || rc=$?
	# KUnit ran at boot: one result per test case
	python3 "$TREE/tools/testing/kunit/kunit.py" parse --raw_output=kunit \
		< "$rundir/console.log" > "$LOGS/kunit.log" 2>&1 || true
	kres=$(python3 "$TREE/tools/testing/kunit/kunit.py" parse < "$rundir/console.log" 2>&1 |
		sed 's/\x1b\[[0-9;]*m//g' | tee "$LOGS/kunit-summary.log" | grep -E 'Ran [0-9]+ tests' | tail -n 1)
	kp=$(sed -n 's/.*passed: \([0-9]*\).*/\1/p' <<< "$kres")
	kf=$(sed -n 's/.*failed: \([0-9]*\).*/\1/p' <<< "$kres")
	if [ -z "$kp" ]; then
		result kunit 1 "no KUnit results in $rundir/console.log"
	else
		echo "# KUnit: $kres"
		passed=$((passed + kp - 1))
		failed=$((failed + ${kf:-0}))
		result "kunit (blk-clat, latency path model)" "${kf:-0}" "$kp cases passed, ${kf:-0} failed"
	fi
	# guest tests: their TAP, then their counts
	sed 's/^/    /' "$rundir/results.tap" 2>/dev/null
	gsum=$(cat "$rundir/summary" 2>/dev/null)
	gp=$(sed -n 's/^\([0-9]*\) passed.*/\1/p' <<< "$gsum")
	gf=$(sed -n 's/.* \([0-9]*\) failed.*/\1/p' <<< "$gsum")
	if [ -z "$gp" ] || [ "$rc" != 0 ] && [ "${gf:-0}" = 0 ]; then
		result guest 1 "guest run failed (exit $rc), see $rundir"
	else
		passed=$((passed + gp))
		failed=$((failed + gf))
		echo "# guest tests: $gsum"
	fi
	src=0
	"$TOP/tools/vm/scan-console.sh" "$rundir/console.log" > "$LOGS/scan.log" 2>&1 || src=$?
	[ "$src" = 0 ] || sed 's/^/# /' "$LOGS/scan.log"
	result "console clean (no BUG/WARNING/lockdep)" "$src"
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
