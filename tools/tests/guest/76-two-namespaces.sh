#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Two namespaces with ANA groups of their own on two tcp paths, path 2
# with 5 ms more round trip.  Namespace 1 (group 1) is inaccessible on
# path 2 and keeps controller 1 busy (iodepth 4); namespace 2 (group 2,
# optimized on both) reads one request at a time.  Path 1 stays the faster
# one for namespace 2, so under latency >= 90% of its I/O goes there.
# queue-depth counts the other namespace's requests on controller 1 and
# sends namespace 2 to the slow path (shown for the record).
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

runtime=${NVLAT_RUNTIME:-8}
sub=$NVLAT_CFS/nvmet/subsystems/$NVLAT_NQN
tap_plan 5
nvlat_setup tcp tcp || tap_bail "setup failed"
tmp=$(nvlat_tmpdir twons)
# cleanup: namespace 2 and ANA group 2 go before the ports and subsystem
cleanup() {
	{ echo 0 > "$sub/namespaces/2/enable"
	  rmdir "$sub/namespaces/2" "$NVLAT_CFS"/nvmet/ports/[12]/ana_groups/2; } 2>/dev/null
	rm -f "$tmp/ns2.img"
	nvlat_teardown
}
trap cleanup EXIT
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 2500us || tap_bail "netem failed"
for id in 1 2; do
	# a new ANA group starts inaccessible
	{ mkdir "$NVLAT_CFS/nvmet/ports/$id/ana_groups/2" &&
		echo optimized > "$NVLAT_CFS/nvmet/ports/$id/ana_groups/2/ana_state"; } ||
		tap_bail "no ANA group 2 on port $id"
done
truncate -s 256M "$tmp/ns2.img"
{ mkdir "$sub/namespaces/2" && echo 2 > "$sub/namespaces/2/ana_grpid" &&
	echo "$tmp/ns2.img" > "$sub/namespaces/2/device_path" &&
	echo 1 > "$sub/namespaces/2/enable"; } || tap_bail "cannot add namespace 2"
nvlat_ana_set 2 inaccessible || tap_bail "ANA group 1 on port 2"

# ns2_disk ID: the path disk of namespace 2 on port ID
ns2_disk() {
	local d
	for d in /sys/class/nvme/"$(nvlat_ctrl "$1")"/nvme*c*n2; do
		[ -e "$d/stat" ] && { echo "${d##*/}"; return 0; }
	done
	return 1
}
ns2_ready() { ns2_disk 1 > /dev/null && ns2_disk 2 > /dev/null && [ -b "/dev/${NVLAT_HEAD%n*}n2" ]; }
nvlat_wait 20 ns2_ready || tap_bail "no paths for namespace 2"
head2=${NVLAT_HEAD%n*}n2
d1=$(ns2_disk 1) d2=$(ns2_disk 2)
ios() { awk '{ print $1 + $5 }' "/sys/block/$1/stat"; }

# run NAME: namespace 1 loaded, namespace 2 at iodepth 1; prints namespace
# 2's share on path 1
run() {
	local a1 a2 b1 b2 load
	nvlat_fio "$tmp/$1-load.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
		--iodepth=4 --runtime=$((runtime + 2)) &
	load=$!
	sleep 1
	a1=$(ios "$d1") a2=$(ios "$d2")
	nvlat_fio "$tmp/$1.json" --filename="/dev/$head2" --rw=randread --iodepth=1 \
		--runtime="$runtime" || return
	b1=$(ios "$d1") b2=$(ios "$d2")
	wait "$load" || return
	nvlat_calc "100 * ($b1 - $a1) / ($b1 - $a1 + $b2 - $a2 + 0.000001)"
}

nvlat_iopolicy_set queue-depth
s=$(run qd)
tap_diag "queue-depth: namespace 2 on path 1 $s%, $(nvlat_fio_summary "$tmp/qd.json" read)"
tap_ok "iopolicy latency" nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2
s=$(run lat)
tap_result $? "fio under latency"
tap_diag "latency: namespace 2 on path 1 $s%, $(nvlat_fio_summary "$tmp/lat.json" read)"
nvlat_cmp "$s" '>=' 90
tap_result $? "namespace 2 keeps >= 90% on the faster, busy path 1 ($s%)"
lat=$(nvlat_fio_iops "$tmp/lat.json" read)
qd=$(nvlat_fio_iops "$tmp/qd.json" read)
nvlat_cmp "$lat" '>' "$qd"
tap_result $? "namespace 2 IOPS latency > queue-depth ($lat > $qd)"
nvlat_iopolicy_set numa
echo 0 > "$sub/namespaces/2/enable"
tap_ok "namespace 2 removed" rmdir "$sub/namespaces/2"
tap_done
