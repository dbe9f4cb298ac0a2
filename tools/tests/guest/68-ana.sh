#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ANA under latency: with the fast (loop) path non-optimized, I/O goes to
# the optimized tcp path although it is slower; with the fast path
# inaccessible it is never used; back to optimized it takes the I/O again.
DESCRIPTION="latency keeps to ANA optimized paths and follows ANA changes"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tap_plan 4
nvlat_setup loop tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir ana)
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 2500us
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2

# run NAME: 4 s of 4 KiB randread; prints the loop path's share
run() {
	local before
	before=$(nvlat_ios_snapshot)
	nvlat_fio "$tmp/$1.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=16 \
		--runtime=4 || return
	nvlat_ios_delta "$before" "$(nvlat_ios_snapshot)" | awk '$1 == 1 { print $3 }'
}

s=$(run opt)
nvlat_cmp "$s" '>=' 90
tap_result $? "both optimized: the fast path takes >= 90% ($s%)"
nvlat_ana_set 1 non-optimized
s=$(run nonopt)
nvlat_cmp "$s" '<=' 5
tap_result $? "fast path non-optimized: the optimized slow path takes >= 95% (fast $s%)"
nvlat_ana_set 1 inaccessible
s=$(run inacc)
tap_is "$s" 0.0 "fast path inaccessible: never used"
nvlat_ana_set 1 optimized
s=$(run back)
nvlat_cmp "$s" '>=' 90
tap_result $? "fast path optimized again: >= 90% ($s%)"
tap_done
