#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# An estimator attach that fails is visible and retried.  failslab fails one
# allocation made from blk_clat_attach() (stack-trace filter on its address
# range) while the subsystem switches to latency: the kernel must warn
# "latency estimator not attached, retrying" on the head, and until the
# retry (1 s later) the path without an estimator must show state "none"
# on every line of its latency file while the other path has its
# estimator; the retry must attach it, and I/O must then give both paths
# an estimate.  Needs a kernel with FAILSLAB and
# FAULT_INJECTION_STACKTRACE_FILTER: make test-fault runs it on the
# fault-injection kernel (tools/test-fault.sh); elsewhere it skips.
DESCRIPTION="a failed estimator attach is shown and retried (fault kernel)"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

fs=/sys/kernel/debug/failslab
if [ ! -e "$fs/require-start" ]; then
	echo "1..0"
	tap_diag "SKIP: no failslab stack-trace filter in this kernel (tools/test-fault.sh has one)"
	exit 0
fi
tap_plan 7
nvlat_setup loop tcp || tap_bail "setup failed"
failslab_off() { echo 0 > "$fs/probability"; echo 0 > "$fs/times"; }
trap 'failslab_off; nvlat_teardown' EXIT
nvlat_iopolicy_has latency || tap_bail "no latency iopolicy"

# the address range of blk_clat_attach(), which blk_clat_alloc() is inlined
# into or called from (then its range counts as well)
range=$(awk '$1 != "0000000000000000" { a[NR] = $1; n[NR] = $3 }
	END { for (i = 1; i < NR; i++)
		if (n[i] == "blk_clat_attach" || n[i] == "blk_clat_alloc") {
			if (lo == "" || a[i] < lo) lo = a[i]
			if (hi == "" || a[i + 1] > hi) hi = a[i + 1]
		}
		if (lo != "") print lo, hi }' /proc/kallsyms)
[ -n "$range" ] || tap_bail "blk_clat_attach not in /proc/kallsyms"
read -r lo hi <<< "$range"
nvlat_iopolicy_set numa || tap_bail "cannot set numa"
if ! { echo "0x$lo" > "$fs/require-start" && echo "0x$hi" > "$fs/require-end" &&
	echo N > "$fs/ignore-gfp-wait" && echo 1 > "$fs/interval" &&
	echo 1 > "$fs/times" && echo 0 > "$fs/verbose" &&
	echo 100 > "$fs/probability"; }; then
	tap_bail "cannot arm failslab"
fi

# each path's files, looked up once: states forks nothing
ids=$(nvlat_path_ids)
declare -A est lat
for id in $ids; do
	est[$id]=$(nvlat_clat_dir "$id")/estimates || tap_bail "no path disk for port $id"
	lat[$id]=$(nvlat_lat_file "$id") || tap_bail "no path disk for port $id"
done
# states: in REPLY, per path "ID:attached" (its debugfs estimates exists),
# "ID:none" (every line of its latency file says none) or "ID:STATE,..."
# (the states its latency file shows)
states() {
	local id s t w
	REPLY=''
	for id in $ids; do
		s=''
		if [ -e "${est[$id]}" ]; then
			s=attached
		else
			while read -r -a w; do s=$s${s:+,}${w[-1]}; done < "${lat[$id]}"
			t=",$s,"
			[ -z "$s" ] || [ "${t//,none/}" != , ] || s=none
		fi
		REPLY="$REPLY $id:${s:-empty}"
	done
	REPLY=${REPLY# }
}
# failed_shown: in REPLY, one path attached and the other none
re_failed='^[0-9]+:(attached [0-9]+:none|none [0-9]+:attached)$'
failed_shown() { [[ "$REPLY" =~ $re_failed ]]; }
re_both='^[0-9]+:attached [0-9]+:attached$'
both_attached() { states; [[ "$REPLY" =~ $re_both ]]; }
both_estimated() { nvlat_clat_est_ns 1 > /dev/null && nvlat_clat_est_ns 2 > /dev/null; }
warning="$NVLAT_HEAD: latency estimator not attached, retrying"
warned() { dmesg | tail -n +"$((log0 + 1))" | grep -qF "$warning"; }
log0=$(dmesg | wc -l)
nvlat_iopolicy_set latency || tap_bail "cannot set latency"
t0=${EPOCHREALTIME/[.,]/}
seen='' shown=''
# One path attached and the other none is a moment of every switch (the
# second attach under way); after the warning it lasts until the retry,
# 1 s later: look for the warning only then, and look again.
for ((k = 0; k < 100; k++)); do
	states
	if failed_shown && warned; then
		seen=$(((${EPOCHREALTIME/[.,]/} - t0) / 1000))
		states
		! failed_shown || shown=$REPLY
		break
	fi
	both_attached && break
	nvlat_nap 0.05
done
tap_diag "states after the switch: $REPLY; the warning seen after ${seen:-no} ms"
tap_ok "the kernel warned \"${warning#*: }\" on $NVLAT_HEAD" [ -n "$seen" ]
tap_ok "before the retry, one path's latency file showed state none, the other attached" \
	[ -n "$shown" ]
tap_is "$(cat "$fs/times")" 0 "failslab failed its one allocation"
failslab_off
nvlat_wait 10 both_attached
tap_result $? "the retry attached it: both attached after $(((${EPOCHREALTIME/[.,]/} - t0) / 1000)) ms ($REPLY)"
for id in $(nvlat_path_ids); do
	nvlat_clat_attached "$id"
	tap_result $? "path $id has its estimator's debugfs files"
done
nvlat_fio /tmp/nvlat-80.json --filename="/dev/$NVLAT_HEAD" --rw=randread --bs=4k --iodepth=4 --runtime=3 > /dev/null &&
	nvlat_wait 5 both_estimated
tap_result $? "I/O under latency gives both paths an estimate"
tap_done
