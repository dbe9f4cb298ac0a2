#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make size: the production lines the series adds, per file and in all:
# the series (patches/, in `series` order) applied to the work tree's base
# in a temporary index, and its diff counted.  Not counted: documentation
# (Documentation/), the KUnit suites (*-test.c, their Kconfig entries and
# Makefile lines, and the #ifdef CONFIG_*_KUNIT_TEST blocks that include
# them) and patch 1's fix to tcp.c.  "net" subtracts the lines the series
# removes from those files, such as a function it moves.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

BASE_TAG=${BASE_TAG:-nvlat-base}
is_kernel "$TREE" || die "no work tree at $TREE: run 'make tree' first"
idx=$(mktemp)
trap 'rm -f "$idx"' EXIT
export GIT_INDEX_FILE=$idx
git -C "$TREE" read-tree "$BASE_TAG"
while read -r p; do
	git -C "$TREE" apply --cached "$TOP/patches/$p" || die "$p does not apply to $BASE_TAG"
done < "$TOP/series"
git -C "$TREE" diff --cached "$BASE_TAG" | awk '
	/^diff --git / { f = $3; sub(/^a\//, "", f); kunit = 0; next }
	/^(---|\+\+\+) / { next }
	f ~ /^Documentation\// || f ~ /-test\.c$/ || f == "drivers/nvme/host/tcp.c" { next }
	/^\+config / { kunit = $2 ~ /_KUNIT_TEST$/ }
	/^\+#ifdef CONFIG_[A-Z_]*_KUNIT_TEST$/ { kunit = 2 }
	kunit == 1 && !/^\+/ { kunit = 0 }
	/^\+/ {
		if (!kunit && !/_KUNIT_TEST/) add[f]++
		if (kunit == 2 && /^\+#endif/) kunit = 0
		next
	}
	/^-/ { del[f]++ }
	END {
		for (f in del) add[f] += 0
		for (f in add) {
			printf "%6d %5d  %s\n", add[f], del[f], f | "sort -k3"
			a += add[f]; d += del[f]
		}
		close("sort -k3")
		printf "%6d %5d  in all: added, removed; net %d\n", a, d, a - d
	}'
