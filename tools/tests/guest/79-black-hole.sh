#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A black-holed tcp path (netem loss 100%) while fio reads through two tcp
# paths.  Its requests stay in flight until error recovery, so anything that
# waits for its queue to drain (attach and detach of the estimator freeze
# it) must not hold up the rest: with path 1 black-holed, the policy is
# switched away, ANA group 1 on port 2 goes non-optimized and back, the
# policy is switched back, ANA flips twice again, and namespace 1 is removed
# (its path through port 2 must go).  The sequence runs under queue-depth
# (no estimator) and then under latency (detach, then attach to the
# black-holed path); each ANA change and the removal must show on the host
# within 2 s plus the time the same step took under queue-depth.
DESCRIPTION="a black-holed path does not hold I/O under any policy"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

NVLAT_TCP_CONNECT_OPTS=",reconnect_delay=1,ctrl_loss_tmo=60"
steps="switch-away ana-1 ana-2 switch-back ana-3 ana-4 remove"
tap_plan 9
declare -A ms

# timed POLICY STEP CMD...: run CMD, keep its duration in ms
timed() {
	local key=$1.$2 t0 rc
	shift 2
	t0=${EPOCHREALTIME/[.,]/}
	"$@"
	rc=$?
	ms[$key]=$(((${EPOCHREALTIME/[.,]/} - t0) / 1000))
	return "$rc"
}

path2_gone() { ! nvlat_path_disk 2 > /dev/null 2>&1 || [ ! -e "/sys/block/$(nvlat_path_disk 2)" ]; }
remove_ns() {
	echo 0 > "$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN/namespaces/1/enable" &&
		nvlat_wait 60 path2_gone
}

# run POLICY: the sequence under POLICY; fails if a step fails
run() {
	local p=$1 fio rc=0
	nvlat_setup tcp tcp || return
	nvlat_iopolicy_set "$p" || return
	[ "$p" != latency ] || nvlat_wait 10 nvlat_clat_attached 1 || return
	fio --name=bh --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth=16 --time_based --runtime=120 \
		> /dev/null 2>&1 &
	fio=$!
	sleep 2
	nvlat_netem_set "$(nvlat_tcp_port 1)" loss 100% || rc=1
	sleep 1
	timed "$p" switch-away nvlat_iopolicy_set round-robin || rc=1
	timed "$p" ana-1 nvlat_ana_set 2 non-optimized || rc=1
	timed "$p" ana-2 nvlat_ana_set 2 optimized || rc=1
	timed "$p" switch-back nvlat_iopolicy_set "$p" || rc=1
	timed "$p" ana-3 nvlat_ana_set 2 non-optimized || rc=1
	timed "$p" ana-4 nvlat_ana_set 2 optimized || rc=1
	timed "$p" remove remove_ns || rc=1
	kill -KILL "$fio" 2> /dev/null
	nvlat_teardown || rc=1
	wait "$fio" 2> /dev/null
	tap_diag "$p: $(for s in $steps; do printf '%s %s ms, ' "$s" "${ms[$p.$s]:-?}"; done)"
	return "$rc"
}

trap nvlat_teardown EXIT
run queue-depth
tap_result $? "every step under queue-depth completed"
run latency
tap_result $? "every step under latency completed"
for s in $steps; do
	q=${ms[queue-depth.$s]:-0} l=${ms[latency.$s]:-999999}
	nvlat_cmp "$l" '<=' $((q + 2000))
	tap_result $? "$s under latency within 2 s of queue-depth ($l <= $q + 2000 ms)"
done
tap_done
