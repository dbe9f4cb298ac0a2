#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A loop path and a tcp path to the same nvmet namespace form one nvme
# subsystem with two controllers, one multipath head and two path disks;
# I/O through the head works and teardown removes every controller.
DESCRIPTION="a loop and a tcp path form one multipath head with two path disks"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tap_plan 10
nvlat_setup loop tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT

tap_is "$(nvlat_subsystems | wc -l)" 1 "one nvme subsystem for $NVLAT_NQN"
s=/sys/class/nvme-subsystem/$NVLAT_SUBSYS
ctrls=$(find "$s/" -maxdepth 1 -regextype posix-extended -regex '.*/nvme[0-9]+' -printf '%f\n' | sort)
tap_is "$(echo "$ctrls" | wc -w)" 2 "$NVLAT_SUBSYS has two controllers"
tr=$(for c in $ctrls; do cat "/sys/class/nvme/$c/transport"; done | sort | xargs)
tap_is "$tr" "loop tcp" "their transports are loop and tcp"
tap_ok "head /dev/$NVLAT_HEAD is a block device" test -b "/dev/$NVLAT_HEAD"
tap_is "$(find "/sys/block/$NVLAT_HEAD/multipath/" -mindepth 1 -maxdepth 1 | wc -l)" 2 \
	"head lists two path disks"
tap_is "$(nvlat_ana_get 1) $(nvlat_ana_get 2)" "optimized optimized" "both paths are ANA optimized"
tap_ok "tcp path uses tcp port $(nvlat_tcp_port 2)" \
	grep -q "trsvcid=$(nvlat_tcp_port 2)" "/sys/class/nvme/$(nvlat_ctrl 2)/address"
tap_is "$(($(cat "/sys/block/$NVLAT_HEAD/size") / 2048))" "$NVLAT_SIZE_MB" \
	"head capacity is ${NVLAT_SIZE_MB} MiB"
tap_ok "direct reads through the head" \
	dd if="/dev/$NVLAT_HEAD" of=/dev/null bs=4k count=64 iflag=direct status=none
nvlat_teardown
tap_ok "teardown removes all controllers" nvlat_no_ctrls
tap_done
