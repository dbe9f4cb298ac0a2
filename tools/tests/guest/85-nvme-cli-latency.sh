#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# nvme-cli patched by tools/nvme-cli/ (built by tools/nvme-cli/build.sh
# into $CACHE/nvme-cli/nvme) shows what the latency iopolicy sees of each
# path.  Two tcp paths under latency, 2 s of reads from CPU 0 on the head,
# then nvme show-topology: under each path of the subsystem it prints
# "latency <line>" for every line of that path's latency file, and with -o
# json the same lines in the path's "Latency" array.  Each path's file is
# read right before and right after nvme runs; every line nvme printed must
# be in the file's format and agree with the same line of either read in
# whether there is a read and a write estimate, and the state
# (the values may move, and an estimate turns stale 200 ms after its last
# sample).  Under queue-depth the file is empty and nvme prints no latency
# line and no "Latency" array, but still both paths.  Back under latency,
# a path 2 ms farther than the other shows backed-off under reads at
# iodepth 1, and a black-holed path silent.
#
# NVLAT_NVME_CLI: the patched binary; by default $CACHE/nvme-cli/nvme of
# the host (NVLAT_CACHE, else the cache the run directory is in, else
# ~/.cache/nvme-latency), which the guest sees through its 9p root.  The
# test skips when there is none.
DESCRIPTION="patched nvme show-topology prints each path's latency file"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

# the patched nvme: the first of these that is executable
nvme=
for f in "${NVLAT_NVME_CLI:-}" \
	"${NVLAT_CACHE:+$NVLAT_CACHE/nvme-cli/nvme}" \
	"$(case "${NVLAT_WORK:-}" in */runs/*) echo "${NVLAT_WORK%%/runs/*}/nvme-cli/nvme" ;; esac)" \
	"$HOME/.cache/nvme-latency/nvme-cli/nvme"; do
	[ -n "$f" ] && [ -x "$f" ] && { nvme=$f; break; }
done
if [ -z "$nvme" ]; then
	echo "1..0 # SKIP no patched nvme-cli (run tools/nvme-cli/build.sh on the host, or set NVLAT_NVME_CLI)"
	exit 0
fi

tap_plan 13
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
tmp=$(nvlat_tmpdir nvme-cli)
ids="1 2"

"$nvme" version > "$tmp/version" 2>&1
tap_result $? "$nvme runs"
tap_diag "$(paste -sd ' ' "$tmp/version")"

# topo NAME ARGS...: nvme show-topology ARGS into $tmp/NAME.out (stderr
# NAME.err), each path's latency file read right before into
# $tmp/NAME.b<ID> and right after into $tmp/NAME.a<ID>; nvme's exit status
topo() {
	local n=$1 id rc=0
	shift
	for id in $ids; do cat "$(nvlat_lat_file "$id")" > "$tmp/$n.b$id"; done
	"$nvme" show-topology "$@" > "$tmp/$n.out" 2> "$tmp/$n.err" || rc=$?
	for id in $ids; do cat "$(nvlat_lat_file "$id")" > "$tmp/$n.a$id"; done
	tap_diag "nvme show-topology $* (exit $rc):"
	sed 's/^/#   /' "$tmp/$n.out"
	sed 's/^/#   stderr: /' "$tmp/$n.err"
	return "$rc"
}

# text_lat OUT CTRL: the lines nvme printed as "      latency <line>" under
# the path through controller CTRL in the subsystem of $NVLAT_NQN
# ("  +- nvmeN tcp <address> <state> <ana state>"), without "latency"
text_lat() {
	awk -v nqn="NQN=$NVLAT_NQN" -v c="$2" '
		/^[^ \\]/ { ours = $NF == nqn; cur = 0; next }
		/^      latency / { if (ours && cur) { sub(/^      latency /, ""); print }; next }
		{ cur = $1 == "+-" && $2 == c }' "$1"
}

# text_paths OUT: the controllers of the paths nvme printed in the
# subsystem of $NVLAT_NQN, sorted, on one line
text_paths() {
	awk -v nqn="NQN=$NVLAT_NQN" '
		/^[^ \\]/ { ours = $NF == nqn; next }
		ours && /^  \+- nvme[0-9]+ / { print $2 }' "$1" | sort | paste -sd ' '
}

# json_lat OUT CTRL: the "Latency" array of the path through CTRL in the
# subsystem of $NVLAT_NQN, a line each; "none" without the array
json_lat() {
	jq -r --arg nqn "$NVLAT_NQN" --arg c "$2" '
		.[].Subsystems[] | select(.NQN == $nqn) | .Namespaces[].Paths[]? |
		select(.Name == $c) | if has("Latency") then .Latency[] else "none" end' "$1"
}

# lat_match GOT BEFORE AFTER (files): GOT has as many lines as BEFORE and
# AFTER, each in the latency file's format and equal to the same line of
# BEFORE or of AFTER in the presence of the read and the write estimate,
# and the state
lat_match() {
	awk 'function norm(s,  f) {
			split(s, f, " ")
			return (f[2] == "-" ? "-" : "us") " " (f[4] == "-" ? "-" : "us") " " f[7]
		}
		FILENAME == ARGV[1] { b[FNR] = norm($0); nb = FNR; next }
		FILENAME == ARGV[2] { a[FNR] = norm($0); na = FNR; next }
		!/^read ([0-9]+|-) write ([0-9]+|-) inflight [0-9]+ (fresh|stale|backed-off|silent|none)$/ { bad = 1 }
		{ n = norm($0); ng = FNR }
		n != b[FNR] && n != a[FNR] { bad = 1 }
		END { exit bad || !ng || ng != nb || ng != na }' "$2" "$3" "$1"
}

# show_lat NAME ID GOT: diagnostics of path ID: the file before, nvme's
# lines (GOT, a file) and the file after
show_lat() {
	tap_diag "path $2 ($(nvlat_ctrl "$2")/$(nvlat_path_disk "$2")) latency file before, nvme's lines, file after:"
	sed 's/^/#   before /' "$tmp/$1.b$2"
	sed 's/^/#   nvme   /' "$3"
	sed 's/^/#   after  /' "$tmp/$1.a$2"
}

# --- latency ------------------------------------------------------------------
tap_ok "iopolicy latency accepted" nvlat_iopolicy_set latency
nvlat_wait 5 eval 'nvlat_clat_attached 1 && nvlat_clat_attached 2' ||
	tap_diag "not both paths have an estimator"
nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread \
	--cpus_allowed=0 --runtime=2
tap_diag "reads: $(nvlat_fio_summary "$tmp/f.json" read)"
# the reads' completions counted out of the in-flight counts
idle() { [ "$(nvlat_lat_inflight 1)" = 0 ] && [ "$(nvlat_lat_inflight 2)" = 0 ]; }
nvlat_wait 5 idle || tap_diag "requests still in flight after fio"
est=
for id in $ids; do
	r=$(nvlat_lat_field "$id" read) && [ "$r" != - ] && est="$est $id"
done
[ -n "$est" ]
tap_result $? "a read estimate after reads from CPU 0 (paths:${est:- none})"

topo lat
rc=$?
want=$(for id in $ids; do nvlat_ctrl "$id"; done | sort | paste -sd ' ')
[ "$rc" = 0 ] && [ "$(text_paths "$tmp/lat.out")" = "$want" ]
tap_result $? "nvme show-topology lists both paths ($want)"
for id in $ids; do
	c=$(nvlat_ctrl "$id")
	text_lat "$tmp/lat.out" "$c" > "$tmp/lat.g$id"
	show_lat lat "$id" "$tmp/lat.g$id"
	cmp -s "$tmp/lat.g$id" "$tmp/lat.b$id" || cmp -s "$tmp/lat.g$id" "$tmp/lat.a$id" ||
		tap_diag "(nvme's lines equal neither read exactly)"
	lat_match "$tmp/lat.g$id" "$tmp/lat.b$id" "$tmp/lat.a$id"
	tap_result $? "path $id ($c): the latency lines under it are its latency file"
done

topo latj -o json
rc=$?
bad=$rc
for id in $ids; do
	json_lat "$tmp/latj.out" "$(nvlat_ctrl "$id")" > "$tmp/latj.g$id"
	lat_match "$tmp/latj.g$id" "$tmp/latj.b$id" "$tmp/latj.a$id" ||
		{ show_lat latj "$id" "$tmp/latj.g$id"; bad=1; }
done
tap_result "$bad" "-o json: each path's \"Latency\" array is its latency file"

# --- queue-depth: nothing -------------------------------------------------------
tap_ok "iopolicy queue-depth accepted" nvlat_iopolicy_set queue-depth
topo qd
rc=$?
n=$(for id in $ids; do text_lat "$tmp/qd.out" "$(nvlat_ctrl "$id")"; done | wc -l)
empty=$(cat "$tmp/qd.b1" "$tmp/qd.b2" "$tmp/qd.a1" "$tmp/qd.a2" | wc -c)
tap_diag "queue-depth: the latency files hold $empty bytes, nvme printed $n latency lines"
[ "$rc" = 0 ] && [ "$(text_paths "$tmp/qd.out")" = "$want" ] && [ "$n" = 0 ] &&
	! grep -q '^ *latency ' "$tmp/qd.out"
tap_result $? "under queue-depth show-topology lists both paths and no latency line"
topo qdj -o json
rc=$?
[ "$rc" = 0 ] &&
	[ "$(for id in $ids; do json_lat "$tmp/qdj.out" "$(nvlat_ctrl "$id")"; done | paste -sd ' ')" = "none none" ]
tap_result $? "under queue-depth -o json has both paths and no \"Latency\" array"

# --- a slower path shows as backed off --------------------------------------
# Under latency with one read at a time from CPU 0, path 2 2 ms farther
# (netem delay): it leaves the band, its probes find it outside and come
# at intervals that double, and between them nvme must show it
# backed-off.
tap_ok "iopolicy latency accepted again" nvlat_iopolicy_set latency
c2=$(nvlat_ctrl 2)
nvlat_netem_set "$(nvlat_tcp_port 2)" delay 2ms || tap_diag "netem failed"
fio --name=bo --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
	--rw=randread --bs=4k --iodepth=1 --cpus_allowed=0 --time_based \
	--runtime=60 > /dev/null 2>&1 &
fio=$!
backed() {
	"$nvme" show-topology 2> /dev/null > "$tmp/bo.out" &&
		text_lat "$tmp/bo.out" "$c2" | grep -q ' backed-off$'
}
nvlat_wait 10 backed
rc=$?
tap_diag "path 2 ($c2), 2 ms farther, under reads at iodepth 1:"
text_lat "$tmp/bo.out" "$c2" | sed 's/^/#   latency /'
kill -KILL "$fio" 2> /dev/null
wait "$fio" 2> /dev/null
nvlat_netem_del "$(nvlat_tcp_port 2)"
tap_result "$rc" "a path 2 ms farther shows as backed-off in nvme show-topology"

# --- a black-holed path shows as silent ----------------------------------------
# Under latency with reads at iodepth 16 on both paths, path 2's port is
# black-holed (netem loss 100%): its requests stop completing, and once
# that lasts longer than its estimate and a window (50 ms) nvme must show
# it silent.  Bound: 15 s, before nvme-tcp's I/O timeout (30 s) fails the
# requests over; under TCG beside a make check it took 8.7 s, most of it
# in the nvme runs of the loop.
fio --name=bh --filename="/dev/$NVLAT_HEAD" --ioengine=libaio --direct=1 \
	--rw=randread --bs=4k --iodepth=16 --time_based --runtime=60 > /dev/null 2>&1 &
fio=$!
sleep 2
nvlat_netem_set "$(nvlat_tcp_port 2)" loss 100% || tap_diag "netem failed"
t0=$(date +%s%N)
silent() { "$nvme" show-topology 2> /dev/null > "$tmp/bh.out" && text_lat "$tmp/bh.out" "$c2" | grep -q ' silent$'; }
nvlat_wait 10 silent
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
[ "$ms" -le 15000 ] || rc=1
tap_diag "path 2 ($c2) $ms ms after the black hole:"
text_lat "$tmp/bh.out" "$c2" | sed 's/^/#   latency /'
kill -KILL "$fio" 2> /dev/null
nvlat_netem_del "$(nvlat_tcp_port 2)"
wait "$fio" 2> /dev/null
tap_result "$rc" "a black-holed path shows as silent in nvme show-topology ($ms ms)"
tap_done
