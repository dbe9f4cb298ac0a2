#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make check: what a linux-block / linux-nvme reviewer runs on the series.
#
#   tools/check.sh [all|checkpatch|build|cocci|kdoc|docs|maintainers|quilt]...
#
#   checkpatch   checkpatch.pl --strict on every patch; accepted findings are
#                listed with a reason in tools/checkpatch.ignore
#   build        every patch builds on its own, in order, with CONFIG_BLK_CLAT
#                on and off; W=1 and sparse (C=2) on the objects the series
#                touches add no warning over the base tree
#   cocci        coccinelle (report mode) on the touched C files: nothing new
#   kdoc         kernel-doc -none -Wall on new and changed files: nothing new
#   docs         the rst documentation parses (docutils), ABI validates
#   maintainers  get_maintainer.pl names the block and NVMe lists and people
#   quilt        quilt push -a of patches/ on a plain extracted base tree
#
# Works on the work tree ($TREE, series applied by make tree), which must be
# clean; it is left on the commit it was on.  TAP on stdout, one line per
# check; exit status 1 if any failed.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

BASE_TAG=${BASE_TAG:-nvlat-base}
OUT=$CACHE/check
# Debian's python3 first: the kernel's scripts need its ply, git and docutils
PATH=/usr/bin:/bin:$PATH
LISTS='linux-block@vger.kernel.org linux-nvme@lists.infradead.org'
PEOPLE='axboe@kernel.dk kbusch@kernel.org hch@lst.de sagi@grimberg.me'
n=0
failed=0

result() { # result NAME RC [DETAIL]
	n=$((n + 1))
	if [ "$2" = 0 ]; then
		echo "ok $n - $1${3:+ # $3}"
	else
		failed=$((failed + 1))
		echo "not ok $n - $1${3:+ # $3}"
	fi
}

# warnings FILE: compiler and sparse findings without line numbers, sorted
warnings() {
	grep -E '(warning|error):' "$1" | sed -E 's/:[0-9]+:[0-9]+:/:/; s/:[0-9]+:/:/' |
		sed "s|$TREE/||g" | sort -u || true
}

# touched [REV]: the .c files the series changes or adds, up to REV
touched() {
	git -C "$TREE" diff --name-only --diff-filter=AM "$BASE_TAG" "${1:-HEAD}" -- '*.c'
}

check_checkpatch() {
	local p name types rc out
	for p in $(series_patches); do
		name=${p##*/}
		types=$(awk -v f="$name" '!/^#/ && NF >= 2 {
			pat = $1; gsub(/\./, "\\.", pat); gsub(/\*/, ".*", pat)
			if (f ~ "^" pat "$") print $2 }' "$TOP/tools/checkpatch.ignore" | paste -sd, -)
		rc=0
		out=$(cd "$TREE" && ./scripts/checkpatch.pl --strict --quiet --no-summary \
			--show-types ${types:+--ignore "$types"} "$p" 2>&1) || rc=1
		[ -z "$out" ] || rc=1
		[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -n 30
		result "checkpatch --strict $name" "$rc" "${types:+accepted: $types}"
	done
}

# build_at REV DIR: bzImage at REV (on and off), then W=1 C=2 on the touched
# objects; warnings into DIR
build_at() {
	local rev=$1 dir=$2 objs f rc=0
	mkdir -p "$dir"
	git -C "$TREE" checkout -q "$rev"
	"$TOP/tools/kernel.sh" > "$dir/on.log" 2>&1 || rc=1
	"$TOP/tools/kernel.sh" "$CACHE/build-clat-off" "$TOP/tools/vm/clat-off.config" \
		> "$dir/off.log" 2>&1 || rc=1
	objs=
	for f in $(touched "$HEAD_REV"); do
		[ -f "$TREE/$f" ] && objs="$objs ${f%.c}.o"
	done
	# shellcheck disable=SC2086
	make -s -C "$TREE" O="$BUILD" CC="ccache gcc" W=1 C=2 $objs > "$dir/w1.log" 2>&1 || rc=1
	warnings "$dir/w1.log" > "$dir/w1.txt"
	cat "$dir/on.log" "$dir/off.log" | { grep -E 'warning:|error:' || true; } > "$dir/build-warnings.txt"
	return "$rc"
}

check_build() {
	local revs rev i=0 rc new
	need sparse
	# the kernel runs sparse only if it parses its headers (scripts/checker-valid.sh)
	if [ "$(sh "$TREE/scripts/checker-valid.sh" sparse -m64 2>/dev/null)" != 1 ]; then
		n=$((n + 1))
		echo "ok $n - sparse on the touched objects # SKIP sparse $(sparse --version 2>/dev/null) cannot parse this kernel's headers (__typeof_unqual__); W=1 still runs"
	fi
	rm -rf "$OUT/build"
	HEAD_REV=$(git -C "$TREE" rev-parse HEAD)
	trap 'git -C "$TREE" checkout -q "$ORIG"' EXIT
	build_at "$BASE_TAG" "$OUT/build/base" || true
	revs=$(git -C "$TREE" rev-list --reverse "$BASE_TAG..$HEAD_REV")
	# NVLAT_CHECK_LAST=1: only the top commit (the self-test uses it)
	[ -z "${NVLAT_CHECK_LAST:-}" ] || revs=$HEAD_REV
	for rev in $revs; do
		i=$((i + 1))
		rc=0
		build_at "$rev" "$OUT/build/$i" || rc=1
		new=$(comm -13 "$OUT/build/base/w1.txt" "$OUT/build/$i/w1.txt")
		if [ -s "$OUT/build/$i/build-warnings.txt" ] || [ -n "$new" ]; then
			rc=1
			{ cat "$OUT/build/$i/build-warnings.txt"; printf '%s\n' "$new"; } |
				sed '/^$/d; s/^/#   /' | head -n 20
		fi
		[ "$rc" = 0 ] || tail -n 5 "$OUT/build/$i/on.log" "$OUT/build/$i/off.log" | sed 's/^/#   /'
		result "patch $i builds (BLK_CLAT on, off), no new W=1/sparse warning: $(git -C "$TREE" log -1 --format=%s "$rev" | cut -c1-60)" "$rc"
	done
	git -C "$TREE" checkout -q "$ORIG"
	trap - EXIT
}

cocci_files() { # cocci_files DIR FILE...: reports of every semantic patch
	local dir=$1 f
	shift
	for f in "$@"; do
		[ -f "$dir/$f" ] || continue
		find "$TREE/scripts/coccinelle" -name '*.cocci' -print0 |
			xargs -0 -P "$(nproc)" -I{} spatch --very-quiet -D report --no-show-diff \
				--include-headers-for-types -I "$dir/include" --sp-file {} "$dir/$f" 2>/dev/null || true
	done | sed -E "s|$dir/||; s/:[0-9]+:[0-9]+-[0-9]+:/:/" | sort -u
}

check_cocci() {
	local files base tmp new
	need spatch
	mapfile -t files < <(touched)
	tmp=$(mktemp -d)
	git -C "$TREE" worktree add -q --detach "$tmp/base" "$BASE_TAG" 2>/dev/null ||
		{ result "coccicheck" 1 "cannot check out the base"; return; }
	base=$(cocci_files "$tmp/base" "${files[@]}")
	new=$(comm -13 <(printf '%s\n' "$base") <(cocci_files "$TREE" "${files[@]}"))
	git -C "$TREE" worktree remove --force "$tmp/base"
	rm -rf "$tmp"
	[ -z "$new" ] || printf '%s\n' "$new" | sed 's/^/#   /' | head -n 20
	result "coccicheck (report) on ${files[*]}: no new reports" "$([ -z "$new" ] && echo 0 || echo 1)"
}

check_kdoc() {
	local f rc=0 base now
	for f in $(git -C "$TREE" diff --name-only --diff-filter=AM "$BASE_TAG" HEAD -- '*.c' '*.h'); do
		now=$(cd "$TREE" && ./scripts/kernel-doc -none -Wall "$f" 2>&1 | sed -E 's/:[0-9]+:/:/' | sort -u)
		base=
		if git -C "$TREE" show "$BASE_TAG:$f" > "$OUT/kdoc-base.${f##*.}" 2>/dev/null; then
			base=$(cd "$TREE" && ./scripts/kernel-doc -none -Wall "$OUT/kdoc-base.${f##*.}" 2>&1 |
				sed -E "s|$OUT/kdoc-base.${f##*.}|$f|; s/:[0-9]+:/:/" | sort -u)
		fi
		new=$(comm -13 <(printf '%s\n' "$base") <(printf '%s\n' "$now") | sed '/^$/d')
		if [ -n "$new" ]; then
			rc=1
			printf '%s\n' "$new" | sed 's/^/#   /' | head -n 10
		fi
	done
	result "kernel-doc -none -Wall on new and changed files: no new warnings" "$rc"
}

check_docs() {
	local f rc=0
	for f in $(git -C "$TREE" diff --name-only "$BASE_TAG" HEAD -- 'Documentation/*.rst'); do
		python3 - "$TREE/$f" <<'PY' || rc=1
import sys, docutils.core, docutils.utils
src = open(sys.argv[1]).read()
docutils.core.publish_doctree(src, source_path=sys.argv[1],
    settings_overrides={'halt_level': 2, 'report_level': 2})
PY
	done
	result "rst documentation parses with docutils (no warnings)" "$rc"
	rc=0
	if [ -f "$TREE/tools/docs/get_abi.py" ]; then
		(cd "$TREE" && python3 tools/docs/get_abi.py validate) > "$OUT/abi.log" 2>&1 || rc=1
		grep -i 'sysfs-nvme' "$OUT/abi.log" && rc=1
		result "ABI files validate (tools/docs/get_abi.py validate)" "$rc"
	fi
}

check_maintainers() {
	local out rc=0 who
	# shellcheck disable=SC2046
	out=$(cd "$TREE" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
		$(series_patches) 2>&1) || rc=1
	for who in $LISTS $PEOPLE; do
		grep -qF "$who" <<< "$out" || { echo "# get_maintainer.pl does not name $who"; rc=1; }
	done
	result "get_maintainer.pl names the block and NVMe maintainers and lists" "$rc"
}

check_quilt() {
	local tmp rc=0
	need quilt
	tmp=$(mktemp -d)
	git -C "$TREE" archive "$BASE_TAG" | tar -x -C "$tmp"
	(cd "$tmp" && QUILT_PATCHES="$TOP/patches" QUILT_SERIES="$TOP/series" \
		quilt push -a -q) > "$OUT/quilt.log" 2>&1 || rc=1
	[ "$rc" = 0 ] || tail -n 5 "$OUT/quilt.log" | sed 's/^/#   /'
	rm -rf "$tmp"
	result "quilt push -a of patches/ on a plain extracted base tree" "$rc"
}

is_kernel "$TREE" || die "no work tree at $TREE: run 'make tree' first"
tree_clean "$TREE" || die "$TREE has uncommitted changes: commit them first"
ORIG=$(git -C "$TREE" symbolic-ref -q --short HEAD || git -C "$TREE" rev-parse HEAD)
mkdir -p "$OUT"
[ $# -gt 0 ] || set -- all
[ "$1" != all ] || set -- checkpatch kdoc docs maintainers cocci quilt build
echo "TAP version 13"
for c in "$@"; do
	case "$c" in
	checkpatch | build | cocci | kdoc | docs | maintainers | quilt) "check_$c" ;;
	*) die "unknown check '$c'" ;;
	esac
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
