#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make test-debug: the guest tests on a debug kernel (KASAN, lockdep,
# DEBUG_ATOMIC_SLEEP, kmemleak, UBSAN, DEBUG_OBJECTS_TIMERS, hung-task
# detection), built from tools/vm/kernel.config + tools/vm/debug.config in
# its own directory.  Fails on any test failure and on any BUG, WARNING,
# KASAN, UBSAN, lockdep, hung-task or kmemleak report in the console.
#
#   tools/test-debug.sh [TEST...]      # default: the lifetime tests and a
#                                      # torture of 150 s (70-torture)
set -u
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

out=$CACHE/build-debug
[ $# -gt 0 ] || set -- 60 66 67 69 70
"$TOP/tools/kernel.sh" "$out" "$TOP/tools/vm/debug.config" || die "debug kernel build failed"
# KASAN under TCG runs an operation every few seconds: 150 s for all kinds
export NVLAT_TORTURE_SECONDS=${NVLAT_TORTURE_SECONDS:-150}
# after the tests, two kmemleak scans (-L): a leak shows up on the console
export NVLAT_TEST_TIMEOUT=${NVLAT_TEST_TIMEOUT:-1800}
# the hung-task detector's limit for the tests (the kernel's 300 s covers
# the KUnit suite at boot; tools/vm/debug.config)
export NVLAT_HUNG_TASK_SECS=${NVLAT_HUNG_TASK_SECS:-60}
exec "$TOP/tools/tests/boot.sh" -q -L \
	-k "$out/arch/x86/boot/bzImage" -m 3G -t "${NVLAT_GUEST_TIMEOUT:-3600}" \
	-r "${NVLAT_RUNDIR:-$CACHE/runs/debug-$(date +%Y%m%d-%H%M%S)}" "$@"
