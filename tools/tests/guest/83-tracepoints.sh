#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The latency iopolicy's trace events: nvme:nvme_lat_select, one per I/O
# that the policy places (head, path, rule, whether a plan decided, the
# path's estimate and requests in flight), and blk_clat:blk_clat_fold, one
# per bucket folded (path disk, node, direction, size class, window mean,
# new estimate, samples).  Enabled, they fire with their fields filled;
# disabled, they write nothing.  trace-cmd, where installed, reads them.
DESCRIPTION="the nvme_lat_select and nvme_lat_fold trace events"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tr=/sys/kernel/tracing
[ -e "$tr/events" ] || mount -t tracefs tracefs "$tr" 2> /dev/null
if ! [ -d "$tr/events/nvme/nvme_lat_select" ]; then
	echo "1..0 # SKIP no trace event nvme:nvme_lat_select (CONFIG_TRACING off or no series)"
	exit 0
fi
tap_plan 9
nvlat_setup tcp tcp || tap_bail "setup failed"
ev="$tr/events/nvme/nvme_lat_select/enable $tr/events/blk_clat/blk_clat_fold/enable"
# shellcheck disable=SC2086 # two files
trap 'for f in $ev; do echo 0 > $f; done; nvlat_teardown' EXIT
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 2 || tap_bail "no estimator"
tmp=$(nvlat_tmpdir trace)

echo 4096 > "$tr/buffer_size_kb"
echo > "$tr/trace"
# shellcheck disable=SC2086
for f in $ev; do echo 1 > "$f"; done
nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 --runtime=2
# shellcheck disable=SC2086
for f in $ev; do echo 0 > "$f"; done
cp "$tr/trace" "$tmp/trace"

sel=$(grep -c ' nvme_lat_select: ' "$tmp/trace")
fold=$(grep -c ' blk_clat_fold: ' "$tmp/trace")
tap_diag "$sel nvme_lat_select and $fold blk_clat_fold events in 2 s of fio; the first of each:"
grep -m 2 ' nvme_lat_select: ' "$tmp/trace" | sed 's/^ */#   /'
grep -m 2 ' blk_clat_fold: ' "$tmp/trace" | sed 's/^ */#   /'
ios=$(nvlat_fio_get "$tmp/f.json" .read.total_ios)
tap_ok "nvme_lat_select fired for most of the $ios reads" [ "$sel" -ge $((ios / 2)) ]

paths="$(nvlat_path_disk 1)|$(nvlat_path_disk 2)"
bad=$(grep ' nvme_lat_select: ' "$tmp/trace" | grep -Evc \
	"head=$NVLAT_HEAD path=($paths) rule=(probe|band|outside) plan=[01] lat_ns=[0-9]+ inflight=[0-9]+$")
tap_is "$bad" 0 "every nvme_lat_select names the head, a path of it, a rule, an estimate, a count"
tap_ok "some nvme_lat_select carry an estimate" \
	grep -Eq ' nvme_lat_select: .* lat_ns=[1-9]' "$tmp/trace"
tap_ok "some nvme_lat_select were decided by the full rule (plan=0)" \
	grep -q ' nvme_lat_select: .* plan=0 ' "$tmp/trace"

# the hidden path disks have no dev file: two dev_t, the head's major, not the head's
head_dev=$(cat "/sys/block/$NVLAT_HEAD/dev")
tap_ok "blk_clat_fold fired" [ "$fold" -gt 0 ]
bad=$(grep ' blk_clat_fold: ' "$tmp/trace" | grep -Evc \
	"blk_clat_fold: +${head_dev%:*},[0-9]+ node=[0-9]+ (read|write) class=(4k|16k|64k|256k|large) mean_ns=[1-9][0-9]* lat_ns=[1-9][0-9]* samples=[1-9][0-9]*$")
devs=$(grep -o ' blk_clat_fold: *[0-9]*,[0-9]*' "$tmp/trace" | awk '{ print $2 }' | sort -u)
tap_diag "blk_clat_fold devices: ${devs//$'\n'/ }, head ${head_dev/:/,}"
[ "$bad" = 0 ] && [ "$(wc -w <<< "$devs")" = 2 ] && ! grep -qx "${head_dev/:/,}" <<< "$devs"
tap_result $? "every blk_clat_fold names one of two path disks, a bucket, a mean, an estimate, samples"
tap_ok "blk_clat_fold shows 4 KiB reads" grep -q ' blk_clat_fold: .* read class=4k ' "$tmp/trace"

echo > "$tr/trace"
nvlat_fio "$tmp/g.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 --runtime=1
tap_is "$(grep -c 'nvme_lat_select\|blk_clat_fold' "$tr/trace")" 0 "disabled, the events write nothing"

if command -v trace-cmd > /dev/null; then
	trace-cmd record -q -o "$tmp/trace.dat" -e nvme:nvme_lat_select -e blk_clat:blk_clat_fold \
		fio --name=tc --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 --bs=4k \
		--rw=randread --iodepth=4 --time_based --runtime=1 > /dev/null 2>&1
	trace-cmd report -i "$tmp/trace.dat" > "$tmp/report" 2> /dev/null
	tap_diag "trace-cmd report, the first event of each kind:"
	for r in 'rule=probe plan=0' 'rule=band plan=0' 'rule=band plan=1' 'rule=outside' 'blk_clat_fold:'; do
		grep -m 1 "$r" "$tmp/report" | sed 's/^ */#   /'
	done
	both() { grep -q 'blk_clat_fold:' "$1" && grep -q 'nvme_lat_select:' "$1"; }
	tap_ok "trace-cmd records and reports both events" both "$tmp/report"
else
	tap_skip "trace-cmd records and reports both events" "no trace-cmd"
fi
tap_done
