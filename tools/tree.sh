#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make tree: build (once) a git tree of Debian's linux-source-7.3 in the
# cache, tag the pristine base, and apply the series with git am, then the
# test-only path model (tools/model/), which the tests need.
# make apply KSRC=DIR: the same on any clean kernel git tree (drop the top
# commit, the model, for the series alone).
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

PKG=${KPKG:-linux-source-7.3}
SUITE=${KSUITE:-trixie-backports}
BASE_TAG=${BASE_TAG:-nvlat-base}

# apt_index: the private apt index of $SUITE in the cache (the first step of
# fetching $PKG; 'tools/tree.sh index' runs only it).
apt_index() {
	need apt-get
	step "apt index of $SUITE from $(mirror_uri) into $CACHE/apt" >&2
	apt_private "$CACHE/apt" deb "$SUITE" >&2 || die "apt-get update of $SUITE failed"
	apt-cache "${APT_OPTS[@]}" show "$PKG" > /dev/null 2>&1 ||
		die "no $PKG in $SUITE on the mirror; set KDEB=path/to/$PKG.deb"
}

fetch_deb() {
	local deb
	deb=$(find "$CACHE/deb" -name "${PKG}_*.deb" 2>/dev/null | head -n 1)
	if [ -n "${KDEB:-}" ]; then deb=$KDEB; fi
	if [ -n "$deb" ]; then printf '%s\n' "$deb"; return; fi
	apt_index
	mkdir -p "$CACHE/deb"
	step "fetching $PKG from $SUITE" >&2
	(cd "$CACHE/deb" && apt-get "${APT_OPTS[@]}" -qq download "$PKG" >&2) ||
		die "apt-get download $PKG failed (is $SUITE on the mirror?)"
	find "$CACHE/deb" -name "${PKG}_*.deb" | head -n 1
}

make_base() {
	local deb tmp tarball ver
	deb=$(fetch_deb)
	ver=$(dpkg-deb -f "$deb" Version)
	tmp="$CACHE/unpack.$$"
	rm -rf "$tmp" "$TREE.new"
	mkdir -p "$tmp" "$TREE.new"
	step "unpacking $deb"
	dpkg-deb -x "$deb" "$tmp"
	tarball=$(find "$tmp/usr/src" -name 'linux-source-*.tar.*' | head -n 1)
	[ -n "$tarball" ] || die "$deb holds no kernel tarball"
	tar -xaf "$tarball" -C "$TREE.new" --strip-components=1
	rm -rf "$tmp"
	# Debian's packaging block ignores every top-level entry (/*, !/debian/);
	# drop it so that new files under block/ and drivers/ can be committed.
	sed -i '/^\/\*$/,$d' "$TREE.new/.gitignore"
	step "committing the pristine base (about 2 minutes)"
	git -C "$TREE.new" init -q -b base
	git -C "$TREE.new" add -A
	git -C "$TREE.new" "${OWN_IDENT[@]}" commit -q -m "Linux $(make -s -C "$TREE.new" kernelversion) from Debian $PKG $ver"
	git -C "$TREE.new" tag "$BASE_TAG"
	mv "$TREE.new" "$TREE"
}

# The committer of the series in the cache's work tree when git has no
# identity (a new machine): the tree is ours, and the patches keep their
# authors.  In the user's own tree (KSRC=) the user's identity is right.
OWN_IDENT=(-c "user.name=nvme-latency work tree" -c "user.email=nvme-latency@localhost")

# has_ident DIR: git can name a committer in DIR
has_ident() { git -C "$1" var GIT_COMMITTER_IDENT > /dev/null 2>&1; }

# apply_series DIR [own]: git am the series and the test-only path model
# (tools/model/) on DIR's HEAD; on failure, abort
# and leave DIR as it was.  With "own" (the cache's tree), commit as
# OWN_IDENT when git has no identity.
apply_series() {
	local dir=$1 head ident=()
	mapfile -t p < <(tree_patches)
	[ "${#p[@]}" -gt 0 ] || { step "series is empty"; return 0; }
	if ! has_ident "$dir"; then
		[ "${2:-}" = own ] ||
			no_identity "to commit the series in $dir with"
		ident=("${OWN_IDENT[@]}")
	fi
	head=$(git -C "$dir" rev-parse HEAD)
	if ! git -C "$dir" "${ident[@]}" am -q --no-3way "${p[@]}" > "$CACHE/am.log" 2>&1; then
		git -C "$dir" am --abort > /dev/null 2>&1 || true
		git -C "$dir" reset -q --hard "$head"
		die "series does not apply to $dir at $head: $(grep -m1 -E 'error|failed' "$CACHE/am.log" || echo see "$CACHE/am.log")"
	fi
	step "applied ${#p[@]} patches on $(git -C "$dir" describe --always "$head")"
}

# series_matches DIR: the commits base..HEAD are the series and the
# test-only patches (by patch-id).
series_matches() {
	local dir=$1 a b
	a=$(git -C "$dir" log --reverse -p "$BASE_TAG..HEAD" | git patch-id --stable | cut -d' ' -f1)
	b=$(tree_patches | xargs -r cat | git patch-id --stable | cut -d' ' -f1)
	[ "$a" = "$b" ]
}

mkdir -p "$CACHE"
case "${1:-tree}" in
tree)
	if [ -n "${KSRC:-}" ]; then exec "$0" apply; fi
	[ -d "$TREE/.git" ] || make_base
	tree_clean "$TREE" || die "$TREE has uncommitted changes: commit or stash them first"
	if [ "$(git -C "$TREE" rev-parse HEAD)" = "$(git -C "$TREE" rev-parse "$BASE_TAG^{commit}")" ]; then
		git -C "$TREE" checkout -q -B nvme-latency
		apply_series "$TREE" own
	elif series_matches "$TREE"; then
		step "$TREE is up to date with the series"
	else
		die "$TREE has commits that differ from patches/: run 'make export' to keep them or 'make reset-tree' to drop them"
	fi
	;;
reset)
	[ -d "$TREE/.git" ] || exec "$0" tree
	tree_clean "$TREE" || die "$TREE has uncommitted changes: commit or stash them first"
	git -C "$TREE" checkout -q -B nvme-latency "$BASE_TAG"
	apply_series "$TREE" own
	;;
apply)
	[ -n "${KSRC:-}" ] || die "apply needs KSRC=<kernel git tree>"
	[ -d "$KSRC" ] || die "KSRC=$KSRC does not exist"
	is_kernel "$KSRC" || die "KSRC=$KSRC is not a Linux kernel source tree"
	git -C "$KSRC" rev-parse --git-dir > /dev/null 2>&1 || die "KSRC=$KSRC is not a git tree (use quilt, see README)"
	tree_clean "$KSRC" || die "KSRC=$KSRC has uncommitted changes or an am in progress: clean it first"
	apply_series "$KSRC"
	;;
index)
	# only the apt part of the fetch, into the cache (tools/fresh-home.sh)
	apt_index
	;;
*) die "usage: $0 [tree|reset|apply|index]" ;;
esac
