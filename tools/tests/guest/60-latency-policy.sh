#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The latency iopolicy: accepted by the subsystem attribute and the
# nvme_core.iopolicy module parameter, near-misses refused with the policy
# unchanged; switching to latency attaches the estimator (rqos/clat) to
# every path, a path connected later gets one too, switching away removes
# them.  Under latency each path shows latency_queue_depth (the
# namespace's requests on it), latency_read_us and latency_write_us (an
# estimate or "-" per online node) and latency_probes; they are empty
# under the other policies, and queue_depth counts under queue-depth only,
# as upstream.
DESCRIPTION="latency is selectable, attaches the estimator and shows per-path attributes"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

param=/sys/module/nvme_core/parameters/iopolicy
tap_plan 20
nvlat_setup tcp tcp || tap_bail "setup failed"
trap 'printf numa > $param; nvlat_teardown' EXIT

# module parameter
old=$(cat "$param")
tap_ok "module parameter accepts latency" sh -c "printf latency > $param"
tap_is "$(cat "$param")" latency "module parameter reads back latency"
bad=0
for s in $'\n' " " "latenc" "latencyy" "Latency" "latency latency" "$(printf 'lat\001ency')" \
	"$(head -c 4000 /dev/zero | tr '\0' l)"; do
	if (printf '%s' "$s" > "$param") 2>/dev/null; then
		tap_diag "module parameter accepted '$s'"
		bad=1
	fi
done
tap_result "$bad" "module parameter refuses near-misses"
tap_is "$(cat "$param")" latency "module parameter unchanged after refusals"
printf '%s' "$old" > "$param"

# subsystem attribute and the estimator's lifetime
tap_ok "iopolicy latency accepted" nvlat_iopolicy_set latency
tap_is "$(nvlat_iopolicy_get)" latency "iopolicy reads back latency"
tap_ok "estimator attached to path 1" nvlat_wait 5 nvlat_clat_attached 1
tap_ok "estimator attached to path 2" nvlat_wait 5 nvlat_clat_attached 2
p1=/sys/block/$(nvlat_path_disk 1)
tap_ok "latency_queue_depth counts under latency" grep -qx '[0-9][0-9]*' "$p1/latency_queue_depth"
tap_is "$(cat "$p1/queue_depth")" "" "queue_depth is empty under latency"
nvlat_fio "$(nvlat_tmpdir policy)/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
	--cpus_allowed=0 --runtime=1
nodes=$(awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' \
	/sys/devices/system/node/online)
r=$(cat "$p1/latency_read_us") w=$(cat "$p1/latency_write_us")
tap_diag "path 1 after 1 s of reads from CPU 0: latency_read_us '$r', latency_write_us '$w', $nodes node(s)"
# an estimate for node 0 (CPU 0's), a figure or "-" for each other node
[ "$(wc -w <<< "$r")" = "$nodes" ] && [ "$(wc -w <<< "$w")" = "$nodes" ] &&
	grep -Eqx '[0-9]+( ([0-9]+|-))*' <<< "$r" && grep -Eqx '(-|[0-9]+)( ([0-9]+|-))*' <<< "$w"
tap_result $? "latency_read_us and latency_write_us: one figure per node, node 0's an estimate"
tap_ok "latency_probes counts" grep -qx '[0-9][0-9]*' "$p1/latency_probes"
bad=0
for s in "latencyx" "latenc" " latency x" " "; do
	nvlat_iopolicy_set "$s" && { tap_diag "accepted '$s'"; bad=1; }
done
tap_result "$bad" "iopolicy attribute refuses near-misses of latency"
tap_is "$(nvlat_iopolicy_get)" latency "iopolicy unchanged after refusals"

# a path that appears while the policy is latency
nvlat_port_add 3 tcp && nvlat_connect 3 tcp && nvlat_wait 30 nvlat_paths_ready
tap_ok "path connected later gets an estimator" nvlat_wait 10 nvlat_clat_attached 3

nvlat_iopolicy_set round-robin
gone() { ! nvlat_clat_attached 1 && ! nvlat_clat_attached 2 && ! nvlat_clat_attached 3; }
tap_ok "switching to round-robin detaches every estimator" nvlat_wait 5 gone
tap_is "$(cat "/sys/block/$(nvlat_path_disk 1)/queue_depth")" "" \
	"queue_depth is empty under round-robin"
tap_is "$(cat "$p1"/latency_{queue_depth,read_us,write_us,probes})" "" \
	"the latency_* files are empty under round-robin"
nvlat_iopolicy_set latency
all() { nvlat_clat_attached 1 && nvlat_clat_attached 2 && nvlat_clat_attached 3; }
tap_ok "switching back attaches them again" nvlat_wait 5 all
nvlat_iopolicy_set numa
tap_ok "and numa detaches them" nvlat_wait 5 gone
tap_done
