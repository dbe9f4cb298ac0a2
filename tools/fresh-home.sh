#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The set-up steps of a first run, on a machine whose home has no cache:
# HOME and XDG_CACHE_HOME point into a new empty directory, NVLAT_CACHE is
# unset.  tools/deps.sh must take its install path (NVLAT_EXTRA_PKGS names
# $NVLAT_FRESH_PKG, default hello, a small package; removed first when
# installed and again at the end unless it was installed before) and log
# into the new cache; tools/tree.sh index must build the private apt index
# of the kernel's suite in the new cache (the fetch without its 200 MB
# download).  As non-root, deps.sh must print the apt-get line instead.
# Git has no identity there (no global or system config, no GIT_* or EMAIL
# variables): tools/tree.sh must apply the series to the cache's tree all
# the same, and refuse, with one line and the tree untouched, to commit it
# into a tree of the user's (KSRC=).  Both run on stand-ins for the 200 MB
# tree: the base's top Makefile and Kconfig and the files the series
# changes, from the work tree's nvlat-base tag (skipped without one).
# tools/send.sh -n (make send-dry-run) must refuse to make the mails without
# an identity, in one line, and with one (a sender given by GIT_AUTHOR_*)
# make every mail from the sender and every patch signed off by the sender
# alone, in place of the repository's author; it runs on the work tree
# (get_maintainer.pl), with its output in the new home.
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

pkg=${NVLAT_FRESH_PKG:-hello}
home=$(mktemp -d)
cache=$home/.cache/nvme-latency
had=
n=0 failed=0
installed() { dpkg-query -W -f='${Status}' "$pkg" 2> /dev/null | grep -q 'ok installed'; }
cleanup() {
	if [ "$(id -u)" = 0 ] && [ -z "$had" ] && installed; then
		DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$pkg" > /dev/null 2>&1 || true
	fi
	rm -rf "$home"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
check() { # check NAME CMD...
	local name=$1
	shift
	n=$((n + 1))
	if "$@"; then
		echo "ok $n - $name"
	else
		failed=$((failed + 1))
		echo "not ok $n - $name"
	fi
}
# fresh CMD...: CMD as on a new machine, its output in $home/out
fresh() {
	env -u NVLAT_CACHE -u KSRC -u KBUILD_OUT -u EMAIL -u GIT_AUTHOR_NAME \
		-u GIT_AUTHOR_EMAIL -u GIT_COMMITTER_NAME -u GIT_COMMITTER_EMAIL \
		GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 \
		HOME="$home" XDG_CACHE_HOME="$home/.cache" \
		NVLAT_EXTRA_PKGS="$pkg" "$@" > "$home/out" 2>&1
	local rc=$?
	sed 's/^/#   /' "$home/out"
	return "$rc"
}

not() { ! "$@"; }
has_index() { compgen -G "$cache/apt/lists/*_Packages*" > /dev/null; }

echo "TAP version 13"
echo "# HOME=$home, no cache; canary package $pkg"
if [ "$(id -u)" = 0 ]; then
	if installed; then
		had=1
		DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq "$pkg" > /dev/null ||
			die "cannot remove $pkg to take deps.sh's install path"
	fi
	check "deps.sh installs a missing package" fresh "$TOP/tools/deps.sh"
	check "$pkg is installed" installed
	check "deps.sh logged into the new cache ($cache/deps.log)" test -f "$cache/deps.log"
else
	check "deps.sh (not root) fails with the apt-get line" not fresh "$TOP/tools/deps.sh"
	check "it names $pkg" grep -q "apt-get install .*$pkg" "$home/out"
fi
check "nothing beside the cache (${cache##*/}.deps.log)" test ! -e "$cache.deps.log"
check "tree.sh index: private apt index of the kernel's suite" fresh "$TOP/tools/tree.sh" index
check "the index is in the new cache ($cache/apt/lists)" has_index

# standin DIR: a git tree at DIR with what the series needs of the base
# (the base's files that its patches change; later patches also change
# files that earlier ones add), tagged as tree.sh tags the base
standin() {
	mkdir -p "$1"
	series_patches | xargs sed -n 's|^--- a/||p' | sort -u |
		xargs git -C "$TREE" ls-tree -r --name-only "$BASE_TAG" -- Makefile Kconfig |
		xargs git -C "$TREE" archive "$BASE_TAG" -- | tar -x -C "$1" &&
		git -C "$1" init -q -b base && git -C "$1" add -A &&
		git -C "$1" -c user.name=base -c user.email=base@localhost commit -q -m base &&
		git -C "$1" tag "$BASE_TAG"
}
one_line_hint() {
	[ "$(wc -l < "$home/out")" = 1 ] && grep -q 'git config --global user.email' "$home/out"
}
nr_patches() { grep -cv -e '^#' -e '^$' "$TOP/series"; }
# the work tree carries the series and the test-only path model
nr_tree_patches() { tree_patches | wc -l; }
applied() { [ "$(git -C "$1" rev-list --count "$BASE_TAG..HEAD")" = "$(nr_tree_patches)" ]; }
untouched() { # untouched DIR REV: HEAD at REV, nothing changed, no am left
	[ "$(git -C "$1" rev-parse HEAD)" = "$2" ] && tree_clean "$1"
}
BASE_TAG=nvlat-base
if git -C "$TREE" rev-parse -q --verify "$BASE_TAG" > /dev/null 2>&1; then
	check "git has no identity here" not fresh git -C "$home" var GIT_COMMITTER_IDENT
	standin "$cache/linux" || die "cannot make a stand-in tree from $TREE"
	check "tree.sh tree: the series applies to the cache's tree without a git identity" \
		fresh "$TOP/tools/tree.sh" tree
	check "all $(nr_tree_patches) patches (series and path model) are committed there" applied "$cache/linux"
	standin "$home/own" || die "cannot make a stand-in tree from $TREE"
	rev=$(git -C "$home/own" rev-parse HEAD)
	check "tree.sh apply KSRC=: refused without a git identity" \
		not fresh env KSRC="$home/own" "$TOP/tools/tree.sh" apply
	check "it says how to set one, in one line" one_line_hint
	check "the user's tree is as it was" untouched "$home/own" "$rev"
else
	echo "# SKIP git identity checks: no work tree with $BASE_TAG at $TREE (make tree)"
fi

# only_sender FILE...: the From: and Signed-off-by: lines of the mails are
# the sender's, and the dry run sent the cover letter and every patch
only_sender() {
	local who='Ada Sender <ada@example.org>'
	[ "$(grep -h -e '^From: ' -e '^Signed-off-by: ' "$@" | sort -u)" = \
		"From: $who"$'\n'"Signed-off-by: $who" ] &&
		[ "$(grep -c "^Signed-off-by: $who\$" "${@:2}" | grep -vc ':1$')" = 0 ] &&
		[ "$(grep -cx "From: $who" "$home/send/send-dry-run.txt")" = $(($(nr_patches) + 1)) ]
}
if is_kernel "$TREE" && [ -x "$TREE/scripts/get_maintainer.pl" ]; then
	check "send.sh -n: refused without a git identity" \
		not fresh env NVLAT_CACHE="$home/send" KSRC="$TREE" "$TOP/tools/send.sh" -n
	check "it says how to set one, in one line" one_line_hint
	check "send.sh -n with a sender's identity" \
		fresh env NVLAT_CACHE="$home/send" KSRC="$TREE" GIT_AUTHOR_NAME='Ada Sender' \
		GIT_AUTHOR_EMAIL=ada@example.org GIT_COMMITTER_NAME='Ada Sender' \
		GIT_COMMITTER_EMAIL=ada@example.org "$TOP/tools/send.sh" -n
	check "every mail is from the sender, every patch signed off by the sender alone" \
		only_sender "$home"/send/send/*.patch
else
	echo "# SKIP send.sh checks: no kernel tree at $TREE (make tree)"
fi
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
