#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make kunit: run the blk-clat tests and the latency iopolicy's path model
# with the kernel's own KUnit runner, natively (UML, $KUNIT_ARCH to change),
# in a build directory of its own.  About a minute once built.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

need python3 gcc make
is_kernel "$TREE" || die "no work tree at $TREE: run 'make tree' first"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
cd "$TREE"
exec python3 tools/testing/kunit/kunit.py run --kunitconfig="$TOP/tools/kunitconfig" \
	--build_dir="$CACHE/kunit-${KUNIT_ARCH:-um}" --arch="${KUNIT_ARCH:-um}" \
	--make_options CC="ccache gcc" --jobs="$(($(nproc) + 1))" --timeout=900 "$@"
