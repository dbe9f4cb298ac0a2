#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check-selftest: make check must fail on a planted checkpatch
# warning, a planted sparse-only warning and a commit that breaks the
# build, and pass on the sparse-only plant when sparse is skipped (so it is
# sparse that catches it).  The commits are planted in a worktree of their
# own, detached at the work tree's HEAD: the work tree's checkout and
# branches never move.  Everything planted is removed whatever happens.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

is_kernel "$TREE" || die "no work tree at $TREE: run 'make tree' first"
head=$(git -C "$TREE" rev-parse HEAD)
tmp=$(mktemp -d)
wt=$tmp/linux
planted=
restore() {
	git -C "$TREE" worktree remove --force "$wt" 2> /dev/null || true
	git -C "$TREE" worktree prune
	rm -rf "$tmp"
}
trap restore EXIT
trap 'exit 130' INT TERM HUP
git -C "$TREE" worktree add -q --detach "$wt" "$head"

n=0 failed=0
# expect FAIL|PASS NAME CMD...: ok when make check (CMD) fails, or passes
expect() {
	local want=$1 name=$2 got=PASS what="did not notice"
	shift 2
	n=$((n + 1))
	"$@" > "$tmp/$n.log" 2>&1 || got=FAIL
	[ "$want" = FAIL ] || what=failed
	if [ "$got" != "$want" ]; then
		failed=$((failed + 1))
		echo "not ok $n - $name: make check $what"
		grep -E '^(not ok|#)' "$tmp/$n.log" | head -n 20 | sed 's/^/#   /'
	elif [ "$want" = FAIL ]; then
		echo "ok $n - $name: $(grep -m1 '^not ok' "$tmp/$n.log" | cut -c1-90)"
		grep -m3 '^#   ' "$tmp/$n.log" | cut -c1-150 || true
	else
		echo "ok $n - $name: $(grep -m1 '^ok .* patch ' "$tmp/$n.log" | cut -c1-90)"
	fi
	grep -E '^# (sparse|ccache) ' "$tmp/$n.log" || true
}

# plant MESSAGE CODE: a commit on the worktree's HEAD appending CODE to
# block/blk-clat.c (at the end: no anchor on code that may change)
plant() {
	git -C "$wt" reset -q --hard "$head"
	printf '%s' "$2" >> "$wt/block/blk-clat.c"
	git -C "$wt" -c user.name=check-selftest -c user.email=check-selftest@localhost \
		commit -q -a -m "selftest: $1"
	planted="$planted $(git -C "$wt" rev-parse HEAD)"
}
check_build() { env KSRC="$wt" NVLAT_CHECK_LAST=1 "$@" "$TOP/tools/check.sh" build; }

echo "TAP version 13"
# 1. a checkpatch error (trailing whitespace) in a copy of the repository
cp -a "$TOP" "$tmp/repo"
p=$tmp/repo/patches/$(grep -m1 -v -e '^#' -e '^$' "$TOP/series")
sed -i '0,/^+\t.*;$/s//& /' "$p"
grep -q '^+	.*; $' "$p" || die "could not plant trailing whitespace in $p"
expect FAIL "planted checkpatch error" env KSRC="$wt" "$tmp/repo/tools/check.sh" checkpatch

# 2. a warning only sparse gives: an __le32 used as a plain integer (the
# function has a prototype, so W=1 has nothing to say)
plant "sparse-only warning" '
u32 blk_clat_selftest_le(const __le32 *p);
u32 blk_clat_selftest_le(const __le32 *p)
{
	return *p;
}
'
expect FAIL "planted sparse-only warning" check_build
expect PASS "the same commit with sparse skipped (W=1 does not see it)" check_build NVLAT_NO_SPARSE=1

# 3. a commit that does not build on its own
plant "build break" '
int blk_clat_selftest_break(void);
int blk_clat_selftest_break(void)
{
	return blk_clat_selftest_no_such_symbol;
}
'
expect FAIL "commit that breaks the build" check_build

restore
trap - EXIT
for c in $planted; do
	[ -z "$(git -C "$TREE" for-each-ref --contains "$c" refs/heads refs/tags)" ] ||
		die "planted commit $c is on a branch"
done
[ "$(git -C "$TREE" rev-parse HEAD)" = "$head" ] ||
	echo "# note: the work tree's HEAD moved meanwhile (not by this test: its commits are on no branch)"
echo "# work tree untouched at $(git -C "$TREE" log -1 --format='%h %s' "$head")"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
