#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A black-holed path must not swallow the queue.  Two tcp paths, fio 4 KiB
# randread at iodepth 8 through the head; from 5 s to 25 s path 2 drops
# every packet (netem loss 100%), then heals.  Run under queue-depth, then
# under latency, each in a setup of its own.  Under latency: the healthy
# path 1 completes I/O in every 1 s (or stalls no longer than under
# queue-depth), at most 3 I/Os are sent to path 2 from 2 s into the hole
# to its end (its probes must not pile up), and path 2 completes I/O again
# within 15 s of the heal (reconnect_delay 2 s, then the probe recovery).
# The per-second completions of both paths go to the TAP diagnostics.
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

NVLAT_TCP_CONNECT_OPTS=",reconnect_delay=2,ctrl_loss_tmo=600"
hole_from=5 hole_to=25 runtime=36
tap_plan 7
tmp=$(nvlat_tmpdir black-hole-stall)

# sample OUT: every 0.5 s "TIME DONE_1 DONE_2 INFLIGHT_1 INFLIGHT_2"
# (requests ended and in flight per path disk) until fio ends
sample() {
	local t0=${EPOCHREALTIME/[.,]/} now line d a e f fd
	exec {fd}>> "$1"
	while kill -0 "$fio" 2> /dev/null; do
		now=${EPOCHREALTIME/[.,]/} line=
		for d in "${NVLAT_DISKS[@]}"; do
			read -r a _ _ _ e _ _ _ f _ < "/sys/block/$d/stat"
			line="$line $((a + e)) $f"
		done
		# shellcheck disable=SC2086 # word splitting intended
		set -- $line
		printf '%d.%06d %s %s %s %s\n' $(((now - t0) / 1000000)) \
			$(((now - t0) % 1000000)) "$1" "$3" "$2" "$4" >&"$fd"
		[ "$(((now - t0) / 1000000))" -lt "$hole_from" ] || [ -n "$holed" ] || {
			nvlat_netem_set "$(nvlat_tcp_port 2)" loss 100% && holed=1; }
		[ "$(((now - t0) / 1000000))" -lt "$hole_to" ] || [ -n "$healed" ] || {
			nvlat_netem_set "$(nvlat_tcp_port 2)" delay 0us && healed=1; }
		nvlat_nap 0.5
	done
	exec {fd}>&-
}

# run POLICY: the recipe under POLICY, samples in $tmp/POLICY
run() {
	local p=$1
	holed='' healed=''
	nvlat_setup tcp tcp || return
	nvlat_iopolicy_set "$p" || return
	[ "$p" != latency ] || nvlat_wait 10 eval 'nvlat_clat_attached 1 && nvlat_clat_attached 2' ||
		return
	nvlat_stat_disks || return
	fio --name=hole --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth=8 --time_based --runtime="$runtime" \
		> "$tmp/$p.fio" 2>&1 &
	fio=$!
	sample "$tmp/$p"
	wait "$fio"
	nvlat_teardown
}

# stall SAMPLES: longest time in s in the hole with no I/O ended on path 1
stall() {
	awk -v a="$hole_from" -v b="$hole_to" '
		$1 >= a && $1 <= b { if (n != "" && $2 == n) { s = $1 - t0; if (s > m) m = s }
				     else { n = $2; t0 = $1 } }
		END { printf "%.1f\n", m }' "$1"
}
# sent SAMPLES FROM TO: I/Os sent to path 2 between FROM and TO (ended plus
# the change of its in-flight count)
sent() {
	awk -v a="$2" -v b="$3" '
		$1 >= a && d == "" { d = $3; f = $5 }
		$1 <= b { e = $3; g = $5 }
		END { print e - d + g - f }' "$1"
}
# back SAMPLES: seconds after the heal until path 2 ends I/O again
back() {
	awk -v b="$hole_to" '
		$1 >= b && n == "" { n = $3; t0 = $1; next }
		n != "" && $3 > n { printf "%.1f\n", $1 - t0; f = 1; exit }
		END { if (!f) print 999 }' "$1"
}
# per_second SAMPLES: completions per path in each second of the run
per_second() {
	awk '{ s = int($1); l = s; x[s] = $2; y[s] = $3 }
		END { for (s = 1; s <= l; s++) if ((s - 1) in x && s in x)
			printf "%d:%d/%d ", s, x[s] - x[s - 1], y[s] - y[s - 1]; print "" }' "$1"
}

trap nvlat_teardown EXIT
for p in queue-depth latency; do
	run "$p"
	tap_result $? "fio through the black hole under $p"
	tap_diag "$p: per second, ended on path 1/path 2: $(per_second "$tmp/$p")"
done
q=$(stall "$tmp/queue-depth") l=$(stall "$tmp/latency")
tap_diag "longest stall of path 1 in the hole: queue-depth ${q} s, latency ${l} s"
nvlat_cmp "$l" '<=' 1.0 || nvlat_cmp "$l" '<=' "$q"
tap_result $? "latency: path 1 ends I/O in every second of the hole (${l} s, queue-depth ${q} s)"
n=$(sent "$tmp/latency" $((hole_from + 2)) "$hole_to")
tap_diag "sent to path 2 from 2 s into the hole: queue-depth $(sent "$tmp/queue-depth" $((hole_from + 2)) "$hole_to"), latency $n"
nvlat_cmp "$n" '<=' 3
tap_result $? "latency: at most 3 I/Os sent into the hole ($n)"
b=$(back "$tmp/latency")
tap_diag "path 2 ends I/O again after the heal: queue-depth $(back "$tmp/queue-depth") s, latency $b s"
nvlat_cmp "$b" '<=' 15
tap_result $? "latency: path 2 ends I/O again within 15 s of the heal (${b} s)"
grep -q 'err= 0' "$tmp/latency.fio"
tap_result $? "fio under latency ended without an I/O error"
tap_ok "teardown" nvlat_teardown
trap - EXIT
tap_done
