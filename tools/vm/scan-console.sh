#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Scan a guest console log for kernel splats.
#
#   tools/vm/scan-console.sh [-n lines] [-K] LOG
#
# Exits 1 and prints the first offending lines (with line numbers) when the
# log shows a BUG, WARNING, Oops, call trace, KASAN/UBSAN/kmemleak report,
# lockdep report or hung task, or a failed KUnit suite (only reported, not
# fatal, with -K); 0 when clean; 2 when LOG is missing.
set -eu

max=20
kunit_fatal=1
while [ $# -gt 1 ]; do
	case "$1" in
	-n) max=$2; shift 2 ;;
	-K) kunit_fatal=; shift ;;
	*) break ;;
	esac
done
[ $# = 1 ] || { echo "usage: ${0##*/} [-n lines] [-K] LOG" >&2; exit 2; }
log=$1
[ -f "$log" ] || { echo "${0##*/}: no such log: $log" >&2; exit 2; }

pat='BUG:|WARNING:|KASAN|UBSAN|possible circular locking|hung_task|blocked for more than|kmemleak: [0-9]+ new suspected|unreferenced object 0x|Oops|Call Trace|Kernel panic|general protection fault|kernel BUG at|RCU stall|rcu_sched self-detected|soft lockup|hard LOCKUP'
rc=0
# kernel messages only (printk time stamps): test output may name these words
hits=$(grep -naE "^\[ *[0-9]+\.[0-9]+\] .*($pat)" "$log" | head -n "$max" || true)
if [ -n "$hits" ]; then
	echo "${0##*/}: kernel problems in $log:"
	printf '%s\n' "$hits" | cut -c1-200 | sed 's/^/  /'
	rc=1
fi
# KUnit: a top-level "not ok N suite" line (TAP at the start of the message).
kunit=$(grep -naE '^\[ *[0-9.]+\] (not ok [0-9]+ |    not ok [0-9]+ )' "$log" | head -n "$max" || true)
if [ -n "$kunit" ]; then
	note=
	[ -n "$kunit_fatal" ] || note=' (ignored: -K)'
	echo "${0##*/}: KUnit failures in $log$note:"
	printf '%s\n' "$kunit" | cut -c1-200 | sed 's/^/  /'
	[ -z "$kunit_fatal" ] || rc=1
fi
[ "$rc" != 0 ] || echo "${0##*/}: $log is clean"
exit "$rc"
