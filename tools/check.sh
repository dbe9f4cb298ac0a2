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
#                touches add no warning over the base tree (blk-clat files
#                that no option selects yet are compiled alone with
#                CONFIG_BLK_CLAT forced)
#   cocci        coccinelle (report mode) on the touched C files: nothing new
#   kdoc         kernel-doc -none -Wall on new and changed files: nothing new
#   docs         the rst documentation parses (docutils), ABI validates
#   maintainers  get_maintainer.pl names the block and NVMe lists and people
#   quilt        quilt push -a of patches/ on a plain extracted base tree
#
# Checks the last commit of the work tree ($TREE, series applied by make
# tree) in a git worktree of its own ($CACHE/check/linux, removed at the
# end), built in build directories of its own ($CACHE/check/build and
# build-clat-off): the work tree's checkout and make kernel's build are
# never touched, so a guest booted meanwhile gets the kernel it expects.
# The paths mirror $CACHE/linux and $CACHE/build, so through ccache
# (CCACHE_BASEDIR=$CACHE, as in kernel.sh) most objects come from make
# kernel's builds.  Sparse (C=2) runs when tools/sparse.sh finds or builds
# one that parses the tree; NVLAT_NO_SPARSE=1 skips it.
# TAP on stdout, one line per check; exit status 1 if any failed.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

BASE_TAG=${BASE_TAG:-nvlat-base}
OUT=$CACHE/check
SRC=$OUT/linux
ON=$OUT/build
OFF=$OUT/build-clat-off
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache} CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
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
		sed "s|$SRC/||g" | sort -u || true
}

# src_at REV: make check's own worktree $SRC, at REV
src_at() {
	if [ ! -e "$SRC/.git" ]; then
		git -C "$TREE" worktree prune
		rm -rf "$SRC"
		git -C "$TREE" worktree add -q --detach "$SRC" "$1"
	elif [ "$(git -C "$SRC" rev-parse HEAD)" != "$(git -C "$TREE" rev-parse "$1^{commit}")" ]; then
		git -C "$SRC" checkout -q --detach "$1"
	fi
}

src_remove() {
	[ -e "$SRC" ] || return 0
	git -C "$TREE" worktree remove --force "$SRC" 2> /dev/null || rm -rf "$SRC"
	git -C "$TREE" worktree prune
}

# ccache_hits: direct and preprocessed hits, and misses, of the cache so far
ccache_hits() {
	ccache --print-stats 2> /dev/null | awk '
		$1 ~ /^(direct|preprocessed)_cache_hit$/ { h += $2 }
		$1 == "cache_miss" { m = $2 }
		END { print h + 0, m + 0 }'
}

# touched: the .c files the series changes or adds
touched() {
	git -C "$TREE" diff --name-only --diff-filter=AM "$BASE_TAG" "$HEAD_REV" -- '*.c'
}

check_checkpatch() {
	local p name types rc out
	for p in $(series_patches) $(test_patches); do
		name=${p##*/}
		types=$(awk -v f="$name" '!/^#/ && NF >= 2 {
			pat = $1; gsub(/\./, "\\.", pat); gsub(/\*/, ".*", pat)
			if (f ~ "^" pat "$") print $2 }' "$TOP/tools/checkpatch.ignore" | paste -sd, -)
		rc=0
		out=$(cd "$SRC" && ./scripts/checkpatch.pl --strict --quiet --no-summary \
			--show-types ${types:+--ignore "$types"} "$p" 2>&1) || rc=1
		[ -z "$out" ] || rc=1
		[ "$rc" = 0 ] || printf '%s\n' "$out" | sed 's/^/#   /' | head -n 30
		result "checkpatch --strict $name" "$rc" "${types:+accepted: $types}"
	done
}

# w1_make ARGS...: make ARGS in the work tree's "on" build, with W=1 and sparse
w1_make() {
	PATH=$SPARSE_PATH${SPARSE_PATH:+:}$PATH make -s -C "$SRC" O="$ON" CC="ccache gcc" \
		HOSTCC="ccache gcc" -j"$(($(nproc) + 1))" W=1 ${SPARSE_C:+"$SPARSE_C"} "$@"
}

# build_at REV DIR: bzImage at REV (on and off), then W=1 C=2 on the touched
# objects; logs and warnings into DIR
build_at() {
	local rev=$1 dir=$2 objs alone f rc=0
	mkdir -p "$dir"
	src_at "$rev"
	KSRC=$SRC "$TOP/tools/kernel.sh" "$ON" > "$dir/on.log" 2>&1 || rc=1
	KSRC=$SRC "$TOP/tools/kernel.sh" "$OFF" "$TOP/tools/vm/clat-off.config" \
		> "$dir/off.log" 2>&1 || rc=1
	# what this revision's configuration builds; a promptless option
	# (BLK_CLAT) has no user before a later patch selects it, so its
	# files are compiled alone with the option forced on
	objs='' alone=''
	for f in $(touched); do
		[ -f "$SRC/$f" ] || continue
		# a KUnit suite is #included into the file it tests, built with it
		case $f in *-test.c) continue ;; esac
		if ar t "$ON/${f%/*}/built-in.a" 2> /dev/null | grep -qE "(^|/)${f%.c}\.o$"; then
			objs="$objs ${f%.c}.o"
		elif [ "${f#block/blk-clat}" != "$f" ]; then
			alone="$alone ${f%.c}.o"
			echo "# $(git -C "$TREE" log -1 --format=%h "$rev"): $f is not built in this configuration yet: compiled alone with CONFIG_BLK_CLAT forced"
		else
			echo "# $(git -C "$TREE" log -1 --format=%h "$rev"): $f is not built in this configuration yet"
		fi
	done
	# shellcheck disable=SC2086
	w1_make $objs > "$dir/w1.log" 2>&1 || rc=1
	# shellcheck disable=SC2086
	[ -z "$alone" ] || w1_make KCFLAGS=-DCONFIG_BLK_CLAT=1 $alone >> "$dir/w1.log" 2>&1 || rc=1
	warnings "$dir/w1.log" > "$dir/w1.txt"
	cat "$dir/on.log" "$dir/off.log" | { grep -E 'warning:|error:' || true; } > "$dir/build-warnings.txt"
	return "$rc"
}

# sparse_setup: SPARSE_PATH is where a sparse that parses the tree is, or
# empty (on PATH already), and SPARSE_C is C=2; without one, says that
# sparse is skipped and SPARSE_C is empty
sparse_setup() {
	local why=
	SPARSE_PATH='' SPARSE_C=C=2
	if [ -n "${NVLAT_NO_SPARSE:-}" ]; then
		why="NVLAT_NO_SPARSE is set"
	elif ! SPARSE_PATH=$("$TOP/tools/sparse.sh" 2> "$OUT/sparse.log"); then
		why="no sparse that parses this kernel: $(tail -n 1 "$OUT/sparse.log")"
		SPARSE_PATH=
	fi
	if [ -n "$why" ]; then
		n=$((n + 1))
		echo "ok $n - sparse on the touched objects # SKIP $why; W=1 still runs"
		SPARSE_C=
		return
	fi
	echo "# sparse $(PATH=$SPARSE_PATH${SPARSE_PATH:+:}$PATH sparse --version) (${SPARSE_PATH:-on PATH})"
}

check_build() {
	local revs rev i=0 rc new c0 h0 m0 h1 m1
	sparse_setup
	rm -rf "$OUT/logs"
	c0=$(ccache_hits)
	build_at "$BASE_TAG" "$OUT/logs/base" || true
	revs=$(git -C "$TREE" rev-list --reverse "$BASE_TAG..$HEAD_REV")
	# NVLAT_CHECK_LAST=1: only the top commit (the self-test uses it)
	[ -z "${NVLAT_CHECK_LAST:-}" ] || revs=$HEAD_REV
	for rev in $revs; do
		i=$((i + 1))
		rc=0
		build_at "$rev" "$OUT/logs/$i" || rc=1
		new=$(comm -13 "$OUT/logs/base/w1.txt" "$OUT/logs/$i/w1.txt")
		if [ -s "$OUT/logs/$i/build-warnings.txt" ] || [ -n "$new" ]; then
			rc=1
			{ cat "$OUT/logs/$i/build-warnings.txt"; printf '%s\n' "$new"; } |
				sed '/^$/d; s/^/#   /' | head -n 20
		fi
		[ "$rc" = 0 ] || tail -n 5 "$OUT/logs/$i/on.log" "$OUT/logs/$i/off.log" | sed 's/^/#   /'
		result "patch $i builds (BLK_CLAT on, off), no new W=1/sparse warning: $(git -C "$TREE" log -1 --format=%s "$rev" | cut -c1-60)" "$rc"
	done
	src_at "$HEAD_REV"
	read -r h0 m0 <<< "$c0"
	read -r h1 m1 <<< "$(ccache_hits)"
	echo "# ccache during the builds: $((h1 - h0)) hits, $((m1 - m0)) misses"
}

cocci_files() { # cocci_files DIR FILE...: reports of every semantic patch
	local dir=$1 f
	shift
	for f in "$@"; do
		[ -f "$dir/$f" ] || continue
		find "$SRC/scripts/coccinelle" -name '*.cocci' -print0 |
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
	new=$(comm -13 <(printf '%s\n' "$base") <(cocci_files "$SRC" "${files[@]}"))
	git -C "$TREE" worktree remove --force "$tmp/base"
	rm -rf "$tmp"
	[ -z "$new" ] || printf '%s\n' "$new" | sed 's/^/#   /' | head -n 20
	result "coccicheck (report) on ${files[*]}: no new reports" "$([ -z "$new" ] && echo 0 || echo 1)"
}

check_kdoc() {
	local f rc=0 base now
	for f in $(git -C "$TREE" diff --name-only --diff-filter=AM "$BASE_TAG" "$HEAD_REV" -- '*.c' '*.h'); do
		now=$(cd "$SRC" && ./scripts/kernel-doc -none -Wall "$f" 2>&1 | sed -E 's/:[0-9]+:/:/' | sort -u)
		base=
		if git -C "$TREE" show "$BASE_TAG:$f" > "$OUT/kdoc-base.${f##*.}" 2>/dev/null; then
			base=$(cd "$SRC" && ./scripts/kernel-doc -none -Wall "$OUT/kdoc-base.${f##*.}" 2>&1 |
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
	for f in $(git -C "$TREE" diff --name-only "$BASE_TAG" "$HEAD_REV" -- 'Documentation/*.rst'); do
		python3 - "$SRC/$f" <<'PY' || rc=1
import sys, docutils.core, docutils.utils
src = open(sys.argv[1]).read()
docutils.core.publish_doctree(src, source_path=sys.argv[1],
    settings_overrides={'halt_level': 2, 'report_level': 2})
PY
	done
	result "rst documentation parses with docutils (no warnings)" "$rc"
	rc=0
	if [ -f "$SRC/tools/docs/get_abi.py" ]; then
		(cd "$SRC" && python3 tools/docs/get_abi.py validate) > "$OUT/abi.log" 2>&1 || rc=1
		grep -i 'sysfs-nvme' "$OUT/abi.log" && rc=1
		result "ABI files validate (tools/docs/get_abi.py validate)" "$rc"
	fi
}

check_maintainers() {
	local out rc=0 who
	# shellcheck disable=SC2046
	out=$(cd "$SRC" && ./scripts/get_maintainer.pl --no-git --no-git-fallback --no-rolestats \
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
mkdir -p "$OUT"
exec 9> "$OUT/lock"
flock -n 9 || die "another make check is running (lock $OUT/lock)"
HEAD_REV=$(git -C "$TREE" rev-parse HEAD)
DIRTY=
tree_clean "$TREE" || DIRTY=1
trap src_remove EXIT
trap 'exit 130' INT TERM HUP
src_at "$HEAD_REV"
[ $# -gt 0 ] || set -- all
[ "$1" != all ] || set -- checkpatch kdoc docs maintainers cocci quilt build
echo "TAP version 13"
echo "# $(git -C "$TREE" log -1 --format='%h %s' "$HEAD_REV")${DIRTY:+ (uncommitted changes in the work tree are not checked)}"
for c in "$@"; do
	case "$c" in
	checkpatch | build | cocci | kdoc | docs | maintainers | quilt) "check_$c" ;;
	*) die "unknown check '$c'" ;;
	esac
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
