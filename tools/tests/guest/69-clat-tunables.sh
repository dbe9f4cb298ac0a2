#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The estimator's debugfs tunables: every write of a non-numeric, negative,
# zero, out-of-range or overflowing value fails with EINVAL and leaves the
# value as it was; values in range are taken.  Reading the files of a path
# that is being removed, while I/O runs, does not oops; reset empties the
# estimates.
DESCRIPTION="the estimator's debugfs tunables refuse bad values"
QUICK=1
set -u
# shellcheck source-path=SCRIPTDIR source=../../vm/lib.sh
. "$(dirname "$0")/../../vm/lib.sh"

tap_plan 12
nvlat_setup tcp tcp || tap_bail "setup failed"
trap nvlat_teardown EXIT
nvlat_iopolicy_set latency
nvlat_wait 5 nvlat_clat_attached 1 || tap_bail "no estimator"
cdir=$(nvlat_clat_dir 1)

# bad FILE VALUE...: every VALUE is refused and FILE keeps its value
bad() {
	local name=$1 f=$cdir/$1 old v rc=0
	shift
	old=$(cat "$f")
	for v in "$@"; do
		if (printf '%s' "$v" > "$f") 2>/dev/null; then
			tap_diag "$name accepted '$v'"
			rc=1
		fi
	done
	[ "$(cat "$f")" = "$old" ] || { tap_diag "$f changed to $(cat "$f")"; rc=1; }
	return "$rc"
}
junk=("abc" "-1" "0" $'\n' " " "1x" "0x" "18446744073709551616" "99999999999999999999999"
	"$(printf '\001\002')")
tap_ok "win_nsec refuses junk, 0 and out of range" bad win_nsec "${junk[@]}" 999999 1000000001
tap_ok "ewma_weight refuses junk, 0 and > 1024" bad ewma_weight "${junk[@]}" 1025
tap_ok "min_samples refuses junk, 0 and > 2^20" bad min_samples "${junk[@]}" 1048577
tap_ok "stale_windows refuses junk, 0 and > 1000" bad stale_windows "${junk[@]}" 1001
tap_ok "reset refuses junk and 0" bad reset "abc" "0" "2"

ok_write() { printf "%s" "$2" > "$cdir/$1" && [ "$(cat "$cdir/$1")" = "$3" ]; }
tap_ok "win_nsec takes 100000000 (and hex 0x5f5e100)" \
	sh -c "printf 100000000 > $cdir/win_nsec && printf 0x5f5e100 > $cdir/win_nsec"
tap_ok "ewma_weight takes 1024" ok_write ewma_weight 1024 1024
tap_ok "min_samples takes 1" ok_write min_samples 1 1
tap_ok "stale_windows takes 1000" ok_write stale_windows 1000 1000

tmp=$(nvlat_tmpdir tun)
nvlat_fio "$tmp/f.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=4 --runtime=3
tap_ok "estimates have data after I/O" grep -q ' read 4k ' "$cdir/estimates"
tap_ok "reset drops them" sh -c "printf 1 > $cdir/reset && ! grep -q ' read 4k [1-9]' $cdir/estimates"

# read the files of path 2 in a loop while its controller goes away
d2=$(nvlat_clat_dir 2)
nvlat_fio "$tmp/g.json" --filename="/dev/$NVLAT_HEAD" --rw=randread --iodepth=8 --runtime=4 &
fio=$!
# until 3 s after the removal (a count of reads took minutes on KASAN)
(end=$((SECONDS + 4)); while [ "$SECONDS" -lt "$end" ]; do cat "$d2"/* > /dev/null 2>&1; done) &
reader=$!
sleep 1
echo 1 > "/sys/class/nvme/$(nvlat_ctrl 2)/delete_controller"
wait "$reader"
wait "$fio"
tap_result $? "path removed while its estimator files were read and I/O ran: no error, no oops"
tap_done
