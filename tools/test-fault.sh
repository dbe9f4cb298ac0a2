#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest tests that need fault injection (80-attach-retry), on the test
# kernel with failslab and its stack-trace filter (tools/vm/kernel.config +
# tools/vm/fault.config, in $CACHE/build-fault).  make test runs it; ends
# with "N passed, N failed".
#
#   tools/test-fault.sh [PATTERN...]   # default: 80
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

out=$CACHE/build-fault
[ $# -gt 0 ] || set -- 80
"$TOP/tools/kernel.sh" "$out" "$TOP/tools/vm/fault.config" || die "fault-injection kernel build failed"
rundir=$CACHE/runs/fault-$(date +%Y%m%d-%H%M%S)
initrd=$("$TOP/tools/vm/initramfs.sh")
rc=0
"$TOP/tools/vm/run.sh" -q -k "$out/arch/x86/boot/bzImage" -i "$initrd" -t 900 -r "$rundir" -- \
	"$TOP/tools/tests/guest/run-all.sh" "$@" || rc=$?
p=$(grep -c '^ok' "$rundir/results.tap" 2>/dev/null) || p=0
f=$(grep -c '^not ok' "$rundir/results.tap" 2>/dev/null) || f=0
grep -E '^(ok|not ok)' "$rundir/results.tap" 2>/dev/null
grep -hE '^ +(ok|not ok|#)' "$rundir/results.tap" 2>/dev/null
if "$TOP/tools/vm/scan-console.sh" "$rundir/console.log"; then
	p=$((p + 1))
else
	f=$((f + 1))
fi
[ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
echo "# fault-injection kernel run in $rundir"
echo "$p passed, $f failed"
[ "$f" = 0 ]
