#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Runs on the host: boot a kernel in QEMU (tools/vm/run.sh) and run the
# guest tests (tools/tests/guest/run-all.sh) in it.  Every make target that
# runs guest tests boots through this script.
#
#   tools/tests/boot.sh [-k bzImage] [-t timeout_s] [-a 'kernel args'] [-A kvm|tcg]
#                       [-c cpus] [-p possible_cpus] [-m mem] [-r rundir]
#                       [-e VAR[=VALUE]]... [-d] [-K] [-L] [-Q] [-q] [-P] [TEST...]
#
# TESTs select tests by number or whole name (see guest/run-all.sh).
# -d: on the instruction clock (tools/vm/run.sh -d).  -P: the placement
# tests in their boot, as make test runs them (TESTs, if any, choose among
# them; common.sh's placement_tests, PLACEMENT_BOOT).  -L: kmemleak scans
# after the tests (debug kernels).  -Q: only the tests marked QUICK=1.
# -K: report failed KUnit suites on the console but do not fail on them.
# -q: do not stream the console.  -a, -A, -c, -p, -m, -r, -e as for
# tools/vm/run.sh.
# Prints the guest's TAP, then "N passed, N failed", where a clean console
# (no BUG, WARNING, lockdep, KASAN, ... report) is one more test point and a
# boot that ends badly without a failed test is one failure.
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

args=()
scan=()
tmo=
placement=
runall=()
rundir=
while getopts 'k:t:a:A:c:p:m:r:e:dKLQqPh' o; do
	case "$o" in
	k | a | A | c | p | m | e) args+=("-$o" "$OPTARG") ;;
	t) tmo=$OPTARG ;;
	r) rundir=$OPTARG ;;
	d | q) args+=("-$o") ;;
	K) scan+=(-K) ;;
	L) runall+=(--kmemleak) ;;
	Q) runall+=(--quick) ;;
	P) placement=1 ;;
	*) sed -n '3,/^set -eu/{/^set/d;s/^# \{0,1\}//;p}' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
if [ -n "$placement" ]; then
	args+=("${PLACEMENT_BOOT[@]}")
	# shellcheck disable=SC2046 # one test number a word
	[ "$#" -gt 0 ] || set -- $(placement_tests)
	tmo=${tmo:-$PLACEMENT_TIMEOUT}
fi
tmo=${tmo:-1800}

initrd=$("$TOP/tools/vm/initramfs.sh")
rundir=${rundir:-$CACHE/runs/$(date +%Y%m%d-%H%M%S)-guest-$$}
rc=0
"$TOP/tools/vm/run.sh" "${args[@]}" -i "$initrd" -t "$tmo" -r "$rundir" -- \
	"$TOP/tools/tests/guest/run-all.sh" "${runall[@]}" "$@" || rc=$?
echo "$rc" > "$rundir/run-status"

sed -n '/^\(ok\|not ok\) /p' "$rundir/results.tap" 2>/dev/null || true
summary=$(cat "$rundir/summary" 2>/dev/null) || summary=
read -r p f <<< "$(pass_fail "$summary")"
p=${p:-0} f=${f:-0}
if "$TOP/tools/vm/scan-console.sh" "${scan[@]}" "$rundir/console.log" > "$rundir/scan.log" 2>&1; then
	p=$((p + 1))
	echo "ok - console clean (no BUG/WARNING/lockdep)"
else
	f=$((f + 1))
	echo "not ok - console clean (no BUG/WARNING/lockdep)"
	sed 's/^/# /' "$rundir/scan.log"
fi
if [ -z "$summary" ]; then
	f=$((f + 1))
	echo "not ok - the guest wrote no summary (exit $rc)"
elif [ "$rc" != 0 ] && [ "$f" = 0 ]; then
	f=1
	echo "not ok - guest run ended badly (exit $rc)"
fi
step "guest tests: ${summary:-no summary from the guest} (exit $rc; results in $rundir)"
echo "$p passed, $f failed"
[ "$f" = 0 ]
