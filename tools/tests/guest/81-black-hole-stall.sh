#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# A black-holed path must not swallow the queue.  Two tcp paths, fio 4 KiB
# randread at iodepth 8 through the head; from 5 s to 25 s one path drops
# every packet (netem loss 100%), then heals.  The hole goes to the path
# that ended fewer I/Os in the second before 5 s (the other one carries at
# least half of the load, so the job can go on), under queue-depth, then
# under latency, each in a setup of its own.  Under latency: the healthy
# path completes I/O in every 1 s (or stalls no longer than under
# queue-depth), at most 3 I/Os are sent into the hole from 2 s into it to
# its end (probes must not pile up), and the holed path completes I/O again
# within 15 s of the heal (reconnect_delay 2 s, then the probe recovery).
# A third run, under latency, holes the busier path: what it holds waits
# for keep-alive (keep_alive_tmo 5 s) to fail it over, so the healthy path
# may stand still, but for no more than two keep-alive periods and a
# second.  A fourth run, under latency, switches the iopolicy to
# queue-depth and back to latency just before it holes the idle path, so
# that both estimators are attached again without estimates, as a path
# connected again has none: the healthy path must carry the I/O in every
# second of the hole, not only its probes (the hole, priced at its silence,
# must not keep a path without an estimate out).  The switch comes before
# the hole, not in it: detaching and attaching an estimator freeze the path
# queue, which waits for the requests held in the hole until keep-alive
# fails them over, and queue-depth, which does not count the requests
# started under latency, would meanwhile send I/O into the hole and block
# fio on that frozen queue.  The per-second completions go to the TAP
# diagnostics.
DESCRIPTION="a black-holed path does not swallow the queue under latency"
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

kato=5
NVLAT_TCP_CONNECT_OPTS=",reconnect_delay=2,ctrl_loss_tmo=600,keep_alive_tmo=$kato"
hole_from=5 hole_to=25 runtime=36
tap_plan 12
tmp=$(nvlat_tmpdir black-hole-stall)

# pick WHICH OLD NEW: the path (1 or 2) that ended fewer (WHICH=idle) or
# more (busy) requests between the samples OLD and NEW ("TIME DONE_1 DONE_2
# INFLIGHT_1 INFLIGHT_2"), its share of the load at the time.  (The
# in-flight counts say little: sampled, they are mostly 0 or 1 of the 8.)
pick() {
	local which=$1 d1 d2
	# shellcheck disable=SC2086 # word splitting intended
	set -- $2 $3
	d1=$(($7 - $2)) d2=$(($8 - $3))
	if { [ "$which" = idle ] && [ "$d1" -lt "$d2" ]; } ||
		{ [ "$which" = busy ] && [ "$d1" -gt "$d2" ]; }; then
		echo 1
	else
		echo 2
	fi
}

# renew OUT: switch to queue-depth until neither path has its estimator,
# then back to latency until both have one again, each for at most 5 s;
# how long each took and the nonzero estimates found at the re-attach go
# to OUT.renew.  No subprocess: the sampler keeps time.
renew() {
	local out=$1 t0=${EPOCHREALTIME/[.,]/} t1 k n=0 l v
	printf queue-depth > "$pol" || return
	for ((k = 0; k < 100; k++)); do
		[ -e "${clat[0]}" ] || [ -e "${clat[1]}" ] || break
		nvlat_nap 0.05
	done
	[ "$k" -lt 100 ] || return
	t1=${EPOCHREALTIME/[.,]/}
	printf latency > "$pol" || return
	for ((k = 0; k < 100; k++)); do
		[ ! -e "${clat[0]}" ] || [ ! -e "${clat[1]}" ] || break
		nvlat_nap 0.05
	done
	[ "$k" -lt 100 ] || return
	for l in 0 1; do
		while read -r _ v _; do [ "$v" = 0 ] || n=$((n + 1)); done < "${clat[l]}"
	done
	echo "detached in $(((t1 - t0) / 1000)) ms, attached again in" \
		"$(((${EPOCHREALTIME/[.,]/} - t1) / 1000)) ms with $n estimates" > "$out.renew"
}

# sample OUT WHICH [renew]: every 0.5 s "TIME DONE_1 DONE_2 INFLIGHT_1
# INFLIGHT_2" (requests ended and in flight per path disk) until fio ends;
# holes the path that pick WHICH names over the second before $hole_from,
# into OUT.hole; with renew, has both estimators attached again (renew)
# between the pick and the hole
sample() {
	local out=$1 which=$2 renew=${3:-} t0=${EPOCHREALTIME/[.,]/} now line d a e f fd s hole=''
	local prev=() # the samples of the last second
	exec {fd}>> "$out"
	while kill -0 "$fio" 2> /dev/null; do
		now=${EPOCHREALTIME/[.,]/} line=
		for d in "${NVLAT_DISKS[@]}"; do
			read -r a _ _ _ e _ _ _ f _ < "/sys/block/$d/stat"
			line="$line $((a + e)) $f"
		done
		# shellcheck disable=SC2086 # word splitting intended
		set -- $line
		s=$(((now - t0) / 1000000))
		printf -v line '%d.%06d %s %s %s %s' "$s" $(((now - t0) % 1000000)) \
			"$1" "$3" "$2" "$4"
		echo "$line" >&"$fd"
		prev+=("$line")
		[ "${#prev[@]}" -le 3 ] || prev=("${prev[@]:1}")
		if [ "$s" -ge "$hole_from" ] && [ -z "$hole" ]; then
			hole=$(pick "$which" "${prev[0]}" "$line")
			echo "$hole" > "$out.hole"
			[ -z "$renew" ] || renew "$out" || hole=x
			[ "$hole" = x ] ||
				nvlat_netem_set "$(nvlat_tcp_port "$hole")" loss 100% || hole=x
			[ "$hole" != x ] || echo x > "$out.hole"
		fi
		if [ "$s" -ge "$hole_to" ] && [ -n "$hole" ] && [ "$hole" != x ]; then
			nvlat_netem_set "$(nvlat_tcp_port "$hole")" delay 0us
			hole=x
		fi
		nvlat_nap 0.5
	done
	exec {fd}>&-
}

# run NAME POLICY WHICH [renew]: the recipe under POLICY, samples in $tmp/NAME
run() {
	nvlat_setup tcp tcp || return
	nvlat_iopolicy_set "$2" || return
	[ "$2" != latency ] || nvlat_wait 10 eval 'nvlat_clat_attached 1 && nvlat_clat_attached 2' ||
		return
	nvlat_stat_disks || return
	pol=$(nvlat_iopolicy_file) || return
	clat=("$(nvlat_clat_dir 1)/estimates" "$(nvlat_clat_dir 2)/estimates") || return
	fio --name=hole --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
		--rw=randread --bs=4k --iodepth=8 --time_based --runtime="$runtime" \
		> "$tmp/$1.fio" 2>&1 &
	fio=$!
	sample "$tmp/$1" "$3" "${4:-}"
	wait "$fio" || return
	nvlat_teardown
	[ -s "$tmp/$1.hole" ] && [ "$(cat "$tmp/$1.hole")" != x ]
}

# The analyses take SAMPLES and the holed path H (1 or 2); the healthy
# path's columns are then 4 - H (ended) and 6 - H (in flight).
# stall SAMPLES H: longest time in s in the hole with no I/O ended on the
# healthy path
stall() {
	awk -v a="$hole_from" -v b="$hole_to" -v c=$((4 - $2)) '
		$1 >= a && $1 <= b { if (n != "" && $c == n) { s = $1 - t0; if (s > m) m = s }
				     else { n = $c; t0 = $1 } }
		END { printf "%.1f\n", m }' "$1"
}
# sent SAMPLES H FROM TO: I/Os sent to the holed path between FROM and TO
# (ended plus the change of its in-flight count)
sent() {
	awk -v a="$3" -v b="$4" -v c=$((1 + $2)) -v i=$((3 + $2)) '
		$1 >= a && d == "" { d = $c; f = $i }
		$1 <= b { e = $c; g = $i }
		END { print e - d + g - f }' "$1"
}
# back SAMPLES H: seconds after the heal until the holed path ends I/O again
back() {
	awk -v b="$hole_to" -v c=$((1 + $2)) '
		$1 >= b && n == "" { n = $c; t0 = $1; next }
		n != "" && $c > n { printf "%.1f\n", $1 - t0; f = 1; exit }
		END { if (!f) print 999 }' "$1"
}
# per_second SAMPLES: completions per path in each second of the run
per_second() {
	awk '{ s = int($1); l = s; x[s] = $2; y[s] = $3 }
		END { for (s = 1; s <= l; s++) if ((s - 1) in x && s in x)
			printf "%d:%d/%d ", s, x[s] - x[s - 1], y[s] - y[s - 1]; print "" }' "$1"
}

declare -A holed
trap nvlat_teardown EXIT
for r in "queue-depth queue-depth idle" "latency latency idle" "latency-busy latency busy" \
	"latency-renew latency idle renew"; do
	# shellcheck disable=SC2086 # word splitting intended
	set -- $r
	run "$@"
	tap_result $? "fio through a black hole on the path with $3 requests, under $2${4:+, both estimators attached again before it}"
	h=$(cat "$tmp/$1.hole" 2> /dev/null) || h=2
	[ "$h" = 1 ] || h=2
	holed[$1]=$h
	tap_diag "$1: path $h holed; per second, ended on path 1/path 2: $(per_second "$tmp/$1")"
done
q=$(stall "$tmp/queue-depth" "${holed[queue-depth]}") l=$(stall "$tmp/latency" "${holed[latency]}")
tap_diag "longest stall of the healthy path in the hole: queue-depth ${q} s, latency ${l} s"
nvlat_cmp "$l" '<=' 1.0 || nvlat_cmp "$l" '<=' "$q"
tap_result $? "latency: the healthy path ends I/O in every second of the hole (${l} s, queue-depth ${q} s)"
n=$(sent "$tmp/latency" "${holed[latency]}" $((hole_from + 2)) "$hole_to")
tap_diag "sent into the hole from 2 s into it: queue-depth $(sent "$tmp/queue-depth" "${holed[queue-depth]}" $((hole_from + 2)) "$hole_to"), latency $n"
nvlat_cmp "$n" '<=' 3
tap_result $? "latency: at most 3 I/Os sent into the hole ($n)"
b=$(back "$tmp/latency" "${holed[latency]}")
tap_diag "the holed path ends I/O again after the heal: queue-depth $(back "$tmp/queue-depth" "${holed[queue-depth]}") s, latency $b s"
nvlat_cmp "$b" '<=' 15
tap_result $? "latency: the holed path ends I/O again within 15 s of the heal (${b} s)"
grep -q 'err= 0' "$tmp/latency.fio"
tap_result $? "fio under latency ended without an I/O error"
s=$(stall "$tmp/latency-busy" "${holed[latency-busy]}")
n=$(sent "$tmp/latency-busy" "${holed[latency-busy]}" $((hole_from + 2 * kato + 1)) "$hole_to")
tap_diag "hole on the busier path: longest stall of the other ${s} s, sent into the hole after keep-alive $n"
nvlat_cmp "$s" '<=' $((2 * kato + 1))
tap_result $? "latency, hole on the busier path: the other path stands still at most $((2 * kato + 1)) s (${s} s)"
nvlat_cmp "$n" '<=' 3
tap_result $? "latency, hole on the busier path: at most 3 I/Os sent into it after keep-alive ($n)"
s=$(stall "$tmp/latency-renew" "${holed[latency-renew]}")
tap_diag "hole on the idle path, both estimators attached again just before it ($(cat "$tmp/latency-renew.renew" 2> /dev/null)): longest stall of the other ${s} s"
nvlat_cmp "$s" '<=' 1.0
tap_result $? "latency, the hole and the healthy path without estimates: it ends I/O in every second (${s} s)"
tap_ok "teardown" nvlat_teardown
trap - EXIT
tap_done
