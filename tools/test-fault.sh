#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The guest tests that need fault injection (80-attach-retry), on the test
# kernel with failslab and its stack-trace filter (tools/vm/kernel.config +
# tools/vm/fault.config, in $CACHE/build-fault; the options change struct
# task_struct, so a cold build of its own, about 15-20 minutes on 2 CPUs).
# Ends with the guest's "N passed, N failed" line.
#
#   tools/test-fault.sh [PATTERN...]   # default: 80
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

out=$CACHE/build-fault
[ $# -gt 0 ] || set -- 80
"$TOP/tools/kernel.sh" "$out" "$TOP/tools/vm/fault.config" || die "fault-injection kernel build failed"
exec "$TOP/tools/tests/boot.sh" -q -t 900 -k "$out/arch/x86/boot/bzImage" "$@"
