#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# With the loop path ANA-inaccessible all I/O goes to the tcp path; 5 ms of
# netem delay on that tcp port raises the mean completion latency of a
# 4 KiB random-read fio run (iodepth 1) by at least 4 ms, and removing the
# delay brings it back.
DESCRIPTION="netem delay on the only usable path shows in fio's completion latency"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

runtime=${NVLAT_RUNTIME:-5}
tap_plan 11
nvlat_setup loop tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir netem)
port=$(nvlat_tcp_port 2)

# run NAME: fio on the head, then check that >= 95% went to the tcp path.
run() {
	local before after share
	before=$(nvlat_ios_snapshot)
	tap_ok "fio $1 (randread 4k iodepth 1, ${runtime}s)" nvlat_fio "$tmp/$1.json" \
		--filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=1 --runtime="$runtime"
	after=$(nvlat_ios_snapshot)
	tap_diag "$1: $(nvlat_fio_summary "$tmp/$1.json" read)"
	share=$(nvlat_ios_delta "$before" "$after" | awk '$1 == 2 { print $3 }')
	nvlat_cmp "${share:-0}" '>=' 95
	tap_result $? "$1: tcp path completed >= 95% of the I/O (${share:-0}%)"
}

nvlat_iopolicy_set numa
tap_is "$(nvlat_iopolicy_get)" numa "iopolicy numa"
tap_ok "loop path ANA inaccessible" nvlat_ana_set 1 inaccessible
run base
tap_ok "netem delay 5ms on tcp port $port" nvlat_netem_set "$port" delay 5ms
run delayed
base=$(nvlat_fio_clat_mean_us "$tmp/base.json" read)
slow=$(nvlat_fio_clat_mean_us "$tmp/delayed.json" read)
rise=$(nvlat_calc "$slow - $base")
nvlat_cmp "$rise" '>=' 4000
tap_result $? "mean clat rose by >= 4000 us ($(printf '%.0f -> %.0f us, +%.0f' "$base" "$slow" "$rise") us)"
nvlat_netem_del "$port"
runtime=$(((runtime + 1) / 2))
run undelayed
fast=$(nvlat_fio_clat_mean_us "$tmp/undelayed.json" read)
nvlat_cmp "$fast" '<' "$(nvlat_calc "$base + 2000")"
tap_result $? "without netem mean clat is back near base ($(printf %.0f "$fast") us)"
tap_done
