#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the test kernel and run the guest tests (tools/tests/guest) in it.
#
#   tools/tests/guest.sh [-k bzImage] [-t timeout_s] [-a 'kernel args'] [-A kvm|tcg]
#                        [-c cpus] [-p possible_cpus] [-d] [-K] [-q] [-P] [TEST...]
#
# TESTs select tests by number or whole name (see guest/run-all.sh).  Fails when a test
# fails, the guest times out or the console shows a kernel splat or a
# failed KUnit suite (-K: report KUnit failures but do not fail).  -q does
# not stream the console.  -d: on the instruction clock (tools/vm/run.sh -d).
# -P: the placement tests in their boot, as make test runs them (TESTs,
# if any, choose among them; common.sh's placement_tests, PLACEMENT_BOOT).
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

args=()
scan=()
tmo=
placement=
while getopts 'k:t:a:A:c:p:dKqPh' o; do
	case "$o" in
	k) args+=(-k "$OPTARG") ;;
	t) tmo=$OPTARG ;;
	a) args+=(-a "$OPTARG") ;;
	A) args+=(-A "$OPTARG") ;;
	c) args+=(-c "$OPTARG") ;;
	p) args+=(-p "$OPTARG") ;;
	d) args+=(-d) ;;
	K) scan+=(-K) ;;
	q) args+=(-q) ;;
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
rundir=$CACHE/runs/$(date +%Y%m%d-%H%M%S)-guest-$$
rc=0
"$TOP/tools/vm/run.sh" "${args[@]}" -i "$initrd" -t "$tmo" -r "$rundir" -- \
	"$TOP/tools/tests/guest/run-all.sh" "$@" || rc=$?
src=0
"$TOP/tools/vm/scan-console.sh" "${scan[@]}" "$rundir/console.log" || src=$?
summary=$(cat "$rundir/summary" 2>/dev/null || echo "no summary from the guest")
step "guest tests: $summary (exit $rc; results in $rundir)"
[ "$rc" = 0 ] || exit "$rc"
[ "$src" = 0 ] || exit 1
