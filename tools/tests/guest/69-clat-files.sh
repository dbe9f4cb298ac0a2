#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The estimator's debugfs file and what the latency file shows of it.
# rqos/clat holds estimates only (no tunables, no reset), one line per
# direction, "read|write LAT_NS AGE".  A new estimator has no estimate
# (LAT_NS 0 on both).  While reads run, on the path that carried most of
# them, the read estimate is fresh (AGE under the 4 windows after which it
# is stale) and the path's latency file shows it in microseconds, rounded.
# Estimators attached again after a switch to queue-depth and back start
# without estimates (81-black-hole-stall relies on it).  Reading both
# files of a path that is being removed, while I/O runs, does not oops;
# the path left alone loses its estimator (a head with one path has none).
DESCRIPTION="the estimator's debugfs estimates, the latency file, reads during removal"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tap_plan 8
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 1 || tap_bail "no estimator"
cdir=$(nvlat_clat_dir 1)
est=$cdir/estimates	# path 1's, then the busier path's
tmp=$(nvlat_tmpdir files)

files=$(cd "$cdir" && echo *)
tap_is "$files" estimates "rqos/clat holds the estimates file only"

# format: a read line, then a write line
awk '!/^(read|write) [0-9]+ [0-9]+$/ || $1 != (NR == 1 ? "read" : "write") { bad = 1 }
	END { exit bad || NR != 2 }' "$est"
tap_result $? "estimates: a line per direction, in its format"
tap_is "$(awk '$2 != 0' "$est")" "" "a new estimator has no estimate"

a=$(nvlat_ios_snapshot)
nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 \
	--cpus_allowed=0 --runtime=2
b=$(nvlat_ios_snapshot)
# the path that carried most reads: the other may see probes only
busy=$(nvlat_ios_delta "$a" "$b" | sort -k2,2nr | awk 'NR == 1 { print $1 }')
busy=${busy:-1}
est=$(nvlat_clat_dir "$busy")/estimates
# fresh while reads run: an estimate ages once the I/O stops
nvlat_fio "$tmp/g.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 \
	--cpus_allowed=0 --runtime=3 &
sleep 2
tap_diag "path $busy (most reads) during reads from CPU 0:"
awk '$2 != 0' "$est" | sed 's/^/#   /'
sed 's/^/#   /' "$(nvlat_lat_file "$busy")"
awk '$1 == "read" { f = $2 > 0 && $3 < 4 } END { exit !f }' "$est"
tap_result $? "the read estimate is there and fresh on path $busy"
wait
# same: the latency file shows the debugfs estimate (after the last fold)
same() {
	local ns us
	ns=$(awk '$1 == "read" { print $2 }' "$est")
	us=$(nvlat_lat_field "$busy" read)
	REPLY="debugfs $ns ns, latency file $us us"
	[ -n "$ns" ] && [ "$ns" != 0 ] && [ "$us" = $(((ns + 500) / 1000)) ]
}
nvlat_wait 5 same
tap_result $? "the latency file shows the read estimate in us ($REPLY)"

none() { nvlat_clat_attached "$1" && [ -z "$(awk '$2 != 0' "$(nvlat_clat_dir "$1")/estimates")" ]; }
nvlat_iopolicy_set queue-depth
nvlat_wait 5 eval '! nvlat_clat_attached 1 && ! nvlat_clat_attached 2' ||
	tap_diag "estimators still attached under queue-depth"
nvlat_iopolicy_set latency
nvlat_wait 5 eval 'none 1 && none 2'
tap_result $? "attached again after queue-depth, neither path has an estimate"

# read the files of path 2 in a loop while its controller goes away
d2=$(nvlat_clat_dir 2) l2=$(nvlat_lat_file 2)
nvlat_fio "$tmp/g.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 --runtime=4 &
fio=$!
# until 3 s after the removal (a count of reads took minutes on KASAN)
(end=$((SECONDS + 4)); while [ "$SECONDS" -lt "$end" ]; do cat "$d2"/* "$l2" > /dev/null 2>&1; done) &
reader=$!
sleep 1
echo 1 > "/sys/class/nvme/$(nvlat_ctrl 2)/delete_controller"
wait "$reader"
wait "$fio"
tap_result $? "path removed while its estimates and latency files were read and I/O ran: no error, no oops"
# the timer that runs while I/O does has the work detach the last estimator
alone() {
	REPLY=$(cat "$(nvlat_lat_file 1)")
	! nvlat_clat_attached 1 && [ "${REPLY##* }" = none ]
}
nvlat_fio "$tmp/h.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 --runtime=1
nvlat_wait 5 alone
tap_result $? "path 1, left alone, has no estimator (latency file: $REPLY)"
tap_done
