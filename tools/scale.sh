#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make scale: the estimator's footprint on a guest with more possible CPUs
# than online ones and fake NUMA nodes (defaults: 2 online, 16 possible, 4
# nodes, 64 namespaces x 2 paths), through guest test 78-clat-scale.
# Prints its diagnostics; docs/scale.md extrapolates them.
# 16 is the most that SeaBIOS's MP table describes (the test kernel has no
# ACPI): with 24 or more QEMU's guest boots with one CPU and SMP disabled.
#
#   tools/scale.sh [POSSIBLE_CPUS [NODES [NAMESPACES]]]
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

possible=${1:-16} nodes=${2:-4}
export NVLAT_SCALE_NS=${3:-64}
"$TOP/tools/kernel.sh"
rundir=$CACHE/runs/scale-$(date +%Y%m%d-%H%M%S)
rc=0
"$TOP/tools/tests/boot.sh" -q -K -p "$possible" -a "numa=fake=$nodes" -r "$rundir" \
	78-clat-scale || rc=$?
grep -hE '^ *(not ok|# (per path|Percpu|[0-9]+ namespaces))' \
	"$rundir/results.tap" || true
exit "$rc"
