#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Adaptation, on the instruction clock with one vCPU: two tcp paths, 2 ms
# extra round trip on path 2 (netem 1 ms each way); mid-run the delay
# moves to path 1.  Under latency >= 95% of the I/O is on the new fast
# path within 1 s of the move, and >= 99% from 1 s after it on (measured:
# 0.1 s and 100.0%; 96.9% with every estimate read as the same).
DESCRIPTION="latency follows a delay that moves from one path to the other"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

nvlat_need_icount
tap_plan 4
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir adapt)
nvlat_stat_disks
p1=$(nvlat_tcp_port 1) p2=$(nvlat_tcp_port 2)
# both qdiscs exist before the run, so that the move is two quick changes
nvlat_netem_set "$p1" delay 0ms || tap_bail "netem failed"
nvlat_netem_set "$p2" delay 1ms || tap_bail "netem failed"
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2

nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=16 --runtime=14 \
	--cpus_allowed=0 &
fio=$!
nvlat_sample_ios "$tmp/samples" 14 0.1 &
smp=$!
nvlat_io_started 30 || tap_bail "fio ended no I/O in 30 s"
sleep 6
# change, never delete, a qdisc under load: a deleted one drops packets;
# the move counts from when both changes are done (tc is slow under TCG)
nvlat_netem_set "$p1" delay 1ms
nvlat_netem_set "$p2" delay 0ms
sleep 0.2
move=$(awk 'END { print $1 }' "$tmp/samples")
wait "$fio"
tap_result $? "fio completed without errors"
wait "$smp"

before=$(nvlat_share_between "$tmp/samples" "$(nvlat_calc "$move - 2.5")" "$(nvlat_calc "$move - 0.5")" 1)
tap_diag "in the 2 s before the move path 1 carried $before% of the I/O"
# the first time after the move from which the next second has >= 95% of
# its I/O on path 2
t90=$(awk -v m="$move" '$1 >= m { t[n] = $1; a[n] = $2; b[n] = $3; n++ }
	END { for (i = 0; i < n; i++) {
		for (k = i; k < n && t[k] < t[i] + 1; k++) ;
		if (k >= n) break
		da = a[k] - a[i]; db = b[k] - b[i]
		if (da + db > 0 && db / (da + db) >= 0.95) { printf "%.2f\n", t[i] - m; exit }
	} print 99 }' "$tmp/samples")
nvlat_cmp "$t90" '<=' 1
tap_result $? "95% of I/O on the new fast path within 1 s of the move (${t90} s)"
after=$(nvlat_share_between "$tmp/samples" "$(nvlat_calc "$move + 1")" 99 2)
nvlat_cmp "$after" '>=' 99
tap_result $? "from 1 s after the move >= 99% on path 2 ($after%)"
tap_diag "$(nvlat_fio_summary "$tmp/f.json" read)"
tap_ok "no fio errors" test "$(nvlat_fio_get "$tmp/f.json" .error)" = 0
tap_done
