#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Run the guest tests (NN-*.sh next to this file) in order inside the test
# VM and aggregate their TAP output as subtests.
#
#   run-all.sh [--kmemleak] [--quick] [TEST...]
#                              # TESTs: only these, each named by its number
#                              # (60) or its whole name (60-latency-policy)
#
# NVLAT_SKIP: test numbers (NN) not to run here, e.g. the placement tests
# that make test runs on the instruction clock in a boot of their own.
# Each test gets NVLAT_TEST_TIMEOUT seconds (default 600).  The last line
# is "N passed, N failed", counting individual test points; a test file
# that exits non-zero, bails out or misses its plan counts as one more
# failure.  Results also go to $NVLAT_WORK/results.tap and summary.
set -u

dir=$(cd "$(dirname "$0")" && pwd)
tmo=${NVLAT_TEST_TIMEOUT:-600}
out=${NVLAT_WORK:-/tmp}
# Tests run in the guest's /tmp: fio leaves verify state files in its
# current directory, and the repository may be mounted read-only.
cd /tmp || exit 1
# On the instruction clock (NVLAT_ICOUNT) the guest clock jumps over a
# wait for the host: the logs stay in the guest while a test runs and go
# to $out after it, and fio and the tools have been read once before.
logs=$out
if [ -n "${NVLAT_ICOUNT:-}" ]; then
	logs=/tmp/tap
	mkdir -p "$logs"
	fio --name=warm --filename=/tmp/warm --size=1m --ioengine=libaio --rw=randread \
		--output-format=json > /dev/null 2>&1
	rm -f /tmp/warm
	for b in jq nvme awk sed grep tc timeout tail tee sleep mktemp mkfifo date cat tr pkill; do
		command -v "$b" > /dev/null && "$b" --version > /dev/null 2>&1
	done
fi
tap=$logs/results.tap
: > "$tap"
# the hung-task detector's limit for the tests, if the boot set a longer
# one for the KUnit suite (test-debug.sh)
if [ -n "${NVLAT_HUNG_TASK_SECS:-}" ] && [ -w /proc/sys/kernel/hung_task_timeout_secs ]; then
	echo "$NVLAT_HUNG_TASK_SECS" > /proc/sys/kernel/hung_task_timeout_secs
fi

# --kmemleak: after the tests, scan for leaks (debug kernels); a leak is
# reported on the console, where the host's scan finds it.  --quick: only
# the tests marked QUICK=1.
kmemleak=
quick=
while [ $# -gt 0 ]; do
	case "$1" in
	--kmemleak) kmemleak=1 ;;
	--quick) quick=1 ;;
	*) break ;;
	esac
	shift
done

tests=()
for t in "$dir"/[0-9][0-9]-*.sh; do
	n=$(basename "$t" .sh)
	case " ${NVLAT_SKIP:-} " in *" ${n%%-*} "*) continue ;; esac
	[ -z "$quick" ] || grep -q '^QUICK=1$' "$t" || continue
	if [ $# -gt 0 ]; then
		m=
		for p in "$@"; do
			[ "$n" = "$p" ] || [ "${n%%-*}" = "$p" ] && m=1
		done
		[ -n "$m" ] || continue
	fi
	tests+=("$t")
done

emit() { printf '%s\n' "$*" | tee -a "$tap"; }

emit "TAP version 14"
emit "1..${#tests[@]}"
passed=0 failed=0 skipped=0 files_failed=0 i=0
for t in "${tests[@]}"; do
	i=$((i + 1))
	n=$(basename "$t" .sh)
	log=$logs/$n.tap
	emit "# Subtest: $n"
	start=$(date +%s)
	timeout -k 10 "$tmo" bash "$t" > "$log" 2>&1 &
	pid=$!
	# Stream the output while it runs, indented as a subtest.
	tail -n +1 -f --pid="$pid" "$log" 2>/dev/null | sed -u 's/^/    /' | tee -a "$tap" &
	tpid=$!
	rc=0
	wait "$pid" || rc=$?
	wait "$tpid"
	secs=$(($(date +%s) - start))
	p=$(grep -c '^ok ' "$log")
	f=$(grep -c '^not ok ' "$log")
	s=$(grep -c '^ok .*# SKIP' "$log")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$log" | head -n 1)
	# A file fails on its own (one extra failure) when it bails out, times
	# out, misses its plan or exits non-zero without a failed test point.
	why=
	[ "$rc" = 0 ] || [ "$f" -gt 0 ] || why="exit status $rc"
	[ "$rc" != 124 ] || why="timed out after ${tmo}s"
	! grep -q '^Bail out!' "$log" || why="bailed out"
	[ -n "$plan" ] && [ "$plan" = $((p + f)) ] || why="${why:+$why, }ran $((p + f)) of ${plan:-?} planned"
	passed=$((passed + p))
	failed=$((failed + f))
	skipped=$((skipped + s))
	if [ -n "$why" ] || [ "$f" -gt 0 ]; then
		[ -z "$why" ] || failed=$((failed + 1))
		files_failed=$((files_failed + 1))
		emit "not ok $i - $n # ${why:-$f failed} (${secs}s)"
	else
		emit "ok $i - $n # ${secs}s"
	fi
	[ "$logs" = "$out" ] || cp "$log" "$tap" "$out/"
done
emit "# ${#tests[@]} test files, $files_failed failed, $skipped test points skipped"
if [ -n "$kmemleak" ] && [ -w /sys/kernel/debug/kmemleak ]; then
	for _ in 1 2; do
		echo scan > /sys/kernel/debug/kmemleak
		sleep 5
	done
	emit "# kmemleak: $(grep -c '^unreferenced object' /sys/kernel/debug/kmemleak) suspected leaks"
	head -n 40 /sys/kernel/debug/kmemleak > /dev/kmsg 2>/dev/null || true
fi
emit "$passed passed, $failed failed" | tee "$out/summary"
[ "$logs" = "$out" ] || cp "$tap" "$out/"
[ "$failed" = 0 ] && [ "$files_failed" = 0 ]
