#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The demo behind 'make demo': boot the test kernel once; in the guest, one
# null_blk namespace on two asymmetric paths (loop, and tcp with +5 ms
# round trip) runs tools/tiobench.fio under every iopolicy the kernel
# offers (tools/demo-guest.sh).  Prints one table per policy and a summary.
#
#   tools/demo.sh [-t guest_timeout_s]
#
# Environment: RUNTIME (s per phase, default 8), SIZE (256m), NUMJOBS (2).
# Results stay in $CACHE/runs/<timestamp>-demo-<pid>/demo.
set -eu
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"
# shellcheck source-path=SCRIPTDIR source=bench/common.sh
. "$TOP/tools/bench/common.sh"

tmo=540
while getopts 't:h' o; do
	case "$o" in
	t) tmo=$OPTARG ;;
	*) sed -n '3,/^set -eu/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
	esac
done
need jq awk qemu-system-x86_64 fio
[ -f "$BUILD/arch/x86/boot/bzImage" ] || die "no test kernel: run 'make kernel'"

rundir=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-demo-$$
out=$rundir/demo
mkdir -p "$out"
# our own copy: other jobs (make check) rebuild $BUILD at other revisions
cp "$BUILD/arch/x86/boot/bzImage" "$rundir/bzImage"
: > "$out/progress"

step "demo: tiobench (RUNTIME=${RUNTIME:-8}s per phase) on loop + tcp(+5 ms), every iopolicy"
follow "$out/progress" &
fpid=$!
rc=0
"$TOP/tools/vm/run.sh" -q -k "$rundir/bzImage" -t "$tmo" -r "$rundir" \
	-e SIZE="${SIZE:-256m}" -e RUNTIME="${RUNTIME:-8}" -e NUMJOBS="${NUMJOBS:-2}" -- \
	"$TOP/tools/demo-guest.sh" || rc=$?
touch "$out/progress.stop"
wait "$fpid" || true
[ "$rc" = 0 ] || die "guest failed (exit $rc); see $rundir/console.log"
[ -s "$out/policies" ] || die "no results in $out"

# rows: policy phase MiB/s p50 p99 p99.9 (ms, fio lat) clat/lat-mean share...
label() {
	case "$2" in loop) echo "loop%" ;; *) echo "tcp+5ms%" ;; esac
}
hdr=$(while read -r id t _; do printf ' %9s' "$(label "$id" "$t")"; done < "$out/paths")
rows=$out/rows.tsv
: > "$rows"
while read -r p; do
	for ph in seqwrite randwrite seqread randread; do
		case "$ph" in *write) d="write" ;; *) d="read" ;; esac
		f=$out/$p-$ph.json
		[ -s "$f" ] || die "missing $f"
		{
			printf '%s\t%s\t' "$p" "$ph"
			fio_json "$f" | jq -r --arg d "$d" '.jobs[0][$d] |
				[.bw / 1024, .lat_ns.percentile["50.000000"] / 1e6,
				 .lat_ns.percentile["99.000000"] / 1e6,
				 .lat_ns.percentile["99.900000"] / 1e6,
				 (if .lat_ns.mean > 0 then .clat_ns.mean / .lat_ns.mean else 0 end)] | @tsv' |
				tr '\n' '\t'
			sort -n "$out/$p-$ph.share" | awk '{ printf "%s\t", $3 }'
			echo
		} >> "$rows"
	done
done < "$out/policies"

echo
echo "Latency columns: fio 'lat' (submission + completion) percentiles in ms;"
echo "under TCG most of an I/O's time is spent in submission, so fio 'clat' (mean"
echo "clat/lat shown as clat%) can miss much of it.  Path share from the path disks' stat."
awk -F'\t' -v hdr="$hdr" '
	$1 != last { printf "\n== iopolicy %s ==\n%-10s %8s %8s %8s %8s %6s%s\n", $1,
		"phase", "MiB/s", "p50", "p99", "p99.9", "clat%", hdr; last = $1 }
	{ printf "%-10s %8.2f %8.2f %8.2f %8.2f %6.0f", $2, $3, $4, $5, $6, 100 * $7
	  for (i = 8; i <= NF && $i != ""; i++) printf " %9.1f", $i
	  printf "\n" }' "$rows"

# summary: mean over the phases of bandwidth and p99 per policy
echo
awk -F'\t' '
	{ if (!($1 in bw)) ord[n++] = $1; bw[$1] += $3; p99[$1] += $5; c[$1]++ }
	END {
		if (!("latency" in bw)) { print "summary: the kernel offers no latency iopolicy"; exit }
		lb = bw["latency"] / c["latency"]; lp = p99["latency"] / c["latency"]
		s = sprintf("summary: latency %.2f MiB/s, p99 %.1f ms (mean of 4 phases)", lb, lp)
		for (i = 0; i < n; i++) {
			p = ord[i]
			if (p == "latency") continue
			b = bw[p] / c[p]; q = p99[p] / c[p]
			s = s sprintf("; vs %s: %.2fx bandwidth, %.2fx p99", p,
				b > 0 ? lb / b : 0, q > 0 ? lp / q : 0)
		}
		print s
	}' "$rows"
grep -qx latency "$out/policies" ||
	die "the test kernel does not offer the latency iopolicy (run 'make kernel')"
step "demo done; fio JSON in $out"
