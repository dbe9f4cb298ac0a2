#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test: every test of the project, in order; TAP on stdout (the plan
# last) and a last line "N passed, N failed".  Exit status 0 only if nothing failed.
#
#   1. check-sync         patches/, series and block/ copies agree
#   2. tree               the series applies to the 7.3 base with git am
#   3. fresh-home         deps.sh, tree.sh's apt set-up and tree.sh's apply
#                         with an empty home, no cache and no git identity
#                         (tools/fresh-home.sh)
#   4. kernel             test kernel builds (series, CONFIG_BLK_CLAT=y)
#   5. kernel-clat-off    block/ and drivers/nvme build with CONFIG_BLK_CLAT=n
#   6. check              tools/check.sh (checkpatch, W=1, sparse, ...)
#   7. boot on the instruction clock (run.sh -d): the placement tests, in
#      the background from the end of step 4 on
#   8. with NVLAT_DEBUG=1 (.ci/run): make test-debug's suite (KASAN,
#      lockdep, kmemleak: the lifetime tests and the torture), its kernel
#      built right after step 4 and its boot in the background beside
#      step 7, unless the build ends later than NVLAT_DEBUG_START_MAX
#      seconds into make test (a skip then, not a pass)
#   9. boot: KUnit suites (parsed by kunit.py) and the other guest tests,
#      alone once steps 7 and 8 are done
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
stage tree "$TOP/tools/tree.sh" tree || { echo "1..$n"; echo "$passed passed, $failed failed"; exit 1; }
# after the tree: its stand-ins come from the tree's base
stage fresh-home "$TOP/tools/fresh-home.sh"
kernel_ok=0
stage kernel "$TOP/tools/kernel.sh" || kernel_ok=1

# The placement tests, which judge shares and rates, run in a boot of their
# own on the instruction clock (run.sh -d) with one vCPU, where neither
# host load nor the guest's cross-CPU hand-offs move them
# (tools/tests/README.md): in the background while the other kernels and
# make check build.  make test-placement (tools/tests/boot.sh -P) runs them
# alone.
PLACEMENT=$(placement_tests)
[ -n "$PLACEMENT" ] || die "no placement tests in tools/tests/guest"
if [ "$kernel_ok" = 0 ]; then
	prundir=$CACHE/runs/test-$(date +%Y%m%d-%H%M%S)-d
	mkdir -p "$prundir"
	cp "$BUILD/arch/x86/boot/bzImage" "$prundir/bzImage"
	"$TOP/tools/tests/boot.sh" -q -P -k "$prundir/bzImage" -r "$prundir" \
		> "$LOGS/guest-placement-host.log" 2>&1 &
	ppid=$!
fi

# The debug suite is the longest boot after the placement one and judges
# no times: it runs beside the placement boot, ahead of the builds below,
# so that the real-time boot can start when the placement boot ends.
dpid=
if [ -n "${NVLAT_DEBUG:-}" ] &&
	stage kernel-debug "$TOP/tools/kernel.sh" "$CACHE/build-debug" "$TOP/tools/vm/debug.config"; then
	used=$(($(date +%s) - START_S))
	if [ "$used" -le "${NVLAT_DEBUG_START_MAX:-999999}" ]; then
		drundir=$CACHE/runs/test-$(date +%Y%m%d-%H%M%S)-debug
		NVLAT_RUNDIR=$drundir "$TOP/tools/test-debug.sh" > "$LOGS/guest-debug-host.log" 2>&1 &
		dpid=$!
	else
		n=$((n + 1))
		echo "ok $n - debug-kernel suite # SKIP its kernel was ready ${used}s in, later than NVLAT_DEBUG_START_MAX=${NVLAT_DEBUG_START_MAX}s"
	fi
fi
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

# guest_tests NAME RUNDIR LOG: the guest's TAP from RUNDIR and the counts
# of the tools/tests/boot.sh run that wrote LOG (its console scan included)
guest_tests() {
	local gsum gp gf
	sed 's/^/    /' "$2/results.tap" 2>/dev/null
	gsum=$(tail -n 1 "$3")
	read -r gp gf <<< "$(pass_fail "$gsum")"
	if [ -z "$gp" ]; then
		result "$1" 1 "the boot gave no counts, see $3 and $2"
		return
	fi
	grep -E '^(ok|not ok) - |^# ' "$3" | sed 's/^/    /'
	passed=$((passed + gp))
	failed=$((failed + gf))
	echo "# $1: $gsum"
}

# the patched nvme-cli that 85-nvme-cli-latency runs in the guest
stage nvme-cli "$TOP/tools/nvme-cli/build.sh" || true

[ -z "$dpid" ] || wait "$dpid" || true
if [ "$kernel_ok" = 0 ]; then
	# the real-time boot alone: its tests judge times that load moves
	wait "$ppid"
	rundir=$CACHE/runs/test-$(date +%Y%m%d-%H%M%S)
	NVLAT_SKIP=$PLACEMENT "$TOP/tools/tests/boot.sh" -q -t "${NVLAT_GUEST_TIMEOUT:-2400}" \
		-r "$rundir" > "$LOGS/guest-host.log" 2>&1
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
	guest_tests "guest tests" "$rundir" "$LOGS/guest-host.log"
	guest_tests "placement tests (instruction clock)" "$prundir" "$LOGS/guest-placement-host.log"
fi
[ -z "$dpid" ] || guest_tests "debug-kernel suite (KASAN, lockdep, kmemleak)" "$drundir" \
	"$LOGS/guest-debug-host.log"

# TAP's plan of the top-level results, then the count of every result
# (make check's, the guests' and KUnit's, indented above, included)
echo "1..$n"
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
