#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check-selftest: make check must fail on a planted checkpatch
# warning, a planted sparse warning and a commit that breaks the build.
# Each plant is undone (copy removed, commit reset) whatever happens.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

is_kernel "$TREE" || die "no work tree at $TREE: run 'make tree' first"
tree_clean "$TREE" || die "$TREE has uncommitted changes"
head=$(git -C "$TREE" rev-parse HEAD)
branch=$(git -C "$TREE" symbolic-ref -q --short HEAD || echo "$head")
tmp=$(mktemp -d)
restore() {
	git -C "$TREE" checkout -q -f "$branch"
	git -C "$TREE" reset -q --hard "$head"
	rm -rf "$tmp"
}
trap restore EXIT
n=0 failed=0
expect_fail() { # expect_fail NAME CMD...: ok when CMD fails
	local name=$1
	shift
	n=$((n + 1))
	if "$@" > "$tmp/$n.log" 2>&1; then
		failed=$((failed + 1))
		echo "not ok $n - $name: make check did not notice"
	else
		echo "ok $n - $name: $(grep -m1 '^not ok' "$tmp/$n.log" | cut -c1-90)"
	fi
}

echo "TAP version 13"
# 1. a checkpatch warning (trailing whitespace) in a copy of the repository
cp -a "$TOP" "$tmp/repo"
p=$(ls "$tmp"/repo/patches/0002-*.patch)
sed -i 's/^+static DEFINE_MUTEX(blk_clat_attach_mutex);$/& /' "$p"
grep -q '^+static DEFINE_MUTEX(blk_clat_attach_mutex); $' "$p" || die "could not plant"
expect_fail "planted checkpatch warning" "$tmp/repo/tools/check.sh" checkpatch

# 2. a W=1 and sparse warning (no prototype; plain integer as NULL
# pointer) in a top commit.  Debian's sparse cannot parse 7.3's headers,
# and then make check says so and only W=1 can catch it.
printf '\nvoid *blk_clat_selftest_ptr(void)\n{\n\treturn 0;\n}\n' >> "$TREE/block/blk-clat.c"
git -C "$TREE" commit -q -a -m "selftest: W=1 and sparse warning"
expect_fail "planted W=1/sparse warning" env NVLAT_CHECK_LAST=1 "$TOP/tools/check.sh" build
git -C "$TREE" reset -q --hard "$head"

# 3. a commit that does not build on its own
sed -i '0,/^static DEFINE_MUTEX(blk_clat_attach_mutex);$/s//static DEFINE_MUTEX(blk_clat_attach_mutex)/' \
	"$TREE/block/blk-clat.c"
git -C "$TREE" commit -q -a -m "selftest: build break"
expect_fail "commit that breaks the build" env NVLAT_CHECK_LAST=1 "$TOP/tools/check.sh" build
git -C "$TREE" reset -q --hard "$head"

restore
trap - EXIT
if ! tree_clean "$TREE" || [ "$(git -C "$TREE" rev-parse HEAD)" != "$head" ]; then
	die "the work tree was not restored"
fi
echo "# work tree restored to $(git -C "$TREE" log -1 --format='%h %s' "$head")"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
