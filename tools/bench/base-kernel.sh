#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Build the unpatched base kernel (tag nvlat-base of the cached tree, in a
# worktree at $CACHE/linux-base) with the test kernel's config and the
# given fragments, in its own build directory (default $CACHE/build-base),
# and print the bzImage path on stdout.  The bench boots it for the cost
# comparison.  Through ccache most objects come from the patched builds.
#
#   tools/bench/base-kernel.sh [OUT [FRAGMENT...]]
set -eu
# shellcheck source-path=SCRIPTDIR source=../common.sh
. "$(dirname "$0")/../common.sh"

base=$CACHE/linux-base
git -C "$TREE" rev-parse -q --verify nvlat-base > /dev/null ||
	die "no tag nvlat-base in $TREE: run 'make tree'"
if [ ! -d "$base" ]; then
	step "worktree of nvlat-base at $base" >&2
	git -C "$TREE" worktree prune
	git -C "$TREE" worktree add -q --detach "$base" nvlat-base >&2
fi
[ "$(git -C "$base" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse 'nvlat-base^{commit}')" ] ||
	git -C "$base" checkout -q --detach nvlat-base >&2
tree_clean "$base" || die "$base has local changes"
bout=${1:-$CACHE/build-base}
[ $# -gt 0 ] && shift
KSRC=$base "$TOP/tools/kernel.sh" "$bout" "$@" >&2
echo "$bout/arch/x86/boot/bzImage"
