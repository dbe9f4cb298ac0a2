#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The estimator follows a path's latency, on the instruction clock: with
# 500 us added to the round trip of one of two tcp paths (netem 250 us
# each way, ten times the paths' own latency here), that path's 4 KiB read
# estimate rises by 450-750 us within 4 s while the other path's stays
# within 50 us (a tenth of the step; it moves by its own load, which the
# delayed path hands over); when the delay is removed it falls back to
# within 60 us of its baseline within 5 s.  The delayed path leaves the
# band at once, so from then on mostly probes refresh it, and their
# interval backs off to 16 windows (800 ms): runs took 0.24-1.85 s for the
# rise and up to 2.44 s for the fall, and one rise took more than 2 s.
DESCRIPTION="a path's estimate follows a 500 us delay step up and back"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
tap_plan 6
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir clat)
port=$(nvlat_tcp_port 2)

nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2 || tap_bail "no estimator"
nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
	--iodepth=2 --runtime=20 --cpus_allowed=0 &
fio=$!
nvlat_io_started 30 || tap_bail "fio ended no I/O in 30 s"

# est ID: estimate in us (1 decimal), 0 when there is none
est() {
	local ns
	ns=$(nvlat_clat_est_ns "$1" 2>/dev/null) || ns=0
	nvlat_calc "$ns / 1e3"
}
# watch ID SECONDS CMP US: poll every 0.1 s until est(ID) CMP US; prints
# the time it took, fails after SECONDS
watch() {
	local t0=${EPOCHREALTIME/[.,]/} now v
	while :; do
		v=$(est "$1")
		now=${EPOCHREALTIME/[.,]/}
		if nvlat_cmp "$v" "$3" "$4"; then
			echo "$(((now - t0) / 1000)) ms, $v us"
			return 0
		fi
		[ $((now - t0)) -lt $(($2 * 1000000)) ] || { echo "timeout, $v us"; return 1; }
		sleep 0.1
	done
}

sleep 5
b1=$(est 1) b2=$(est 2)
tap_diag "baseline estimates: path 1 $b1 us, path 2 $b2 us"
nvlat_cmp "$b1" '>' 0 && nvlat_cmp "$b2" '>' 0
tap_result $? "both paths have an estimate after 5 s"

nvlat_netem_set "$port" delay 250us
r=$(watch 2 4 '>=' "$(nvlat_calc "$b2 + 450")")
tap_result $? "path 2 estimate rose by >= 450 us within 4 s ($r)"
sleep 1
s2=$(est 2) s1=$(est 1)
tap_diag "with delay: path 1 $s1 us, path 2 $s2 us"
rise=$(nvlat_calc "$s2 - $b2")
nvlat_cmp "$rise" '>=' 450 && nvlat_cmp "$rise" '<=' 750
tap_result $? "path 2 rise is 450-750 us (+$rise us)"
d1=$(nvlat_calc "$s1 - $b1")
nvlat_cmp "${d1#-}" '<=' 50
tap_result $? "path 1 estimate stayed within 50 us ($d1 us)"

nvlat_netem_set "$port" delay 0ms
r=$(watch 2 5 '<=' "$(nvlat_calc "$b2 + 60")")
tap_result $? "path 2 estimate back within 60 us of baseline within 5 s ($r)"
wait "$fio"
tap_result $? "fio completed without errors"
tap_done
