#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make kernel: build the test bzImage from tools/vm/kernel.config merged
# onto tinyconfig, through ccache, with O= outside the repository.
#
#   tools/kernel.sh [OUT] [extra fragment...]
#
# OUT defaults to $CACHE/build.  Extra fragments are merged after ours (the
# debug, cost and fault-injection kernels and the option-off build use them).
set -eu
# shellcheck source=common.sh
. "$(dirname "$0")/common.sh"

out=${1:-$BUILD}
[ $# -gt 0 ] && shift
need gcc make flex bison bc ccache
is_kernel "$TREE" || die "no kernel tree at $TREE: run 'make tree' first"
mkdir -p "$out"
export CCACHE_DIR=${CCACHE_DIR:-$CACHE/ccache}
# paths under the cache hashed relative to the build directory: make check's
# worktree and build directories ($CACHE/check/linux, check/build) then
# share objects with $CACHE/linux and $CACHE/build
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$CACHE}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-8G}
export KBUILD_BUILD_TIMESTAMP='Thu Jan  1 00:00:00 UTC 2026'
export KBUILD_BUILD_USER=nvlat KBUILD_BUILD_HOST=bench
kmake() {
	make -s -C "$TREE" O="$out" CC="ccache gcc" HOSTCC="ccache gcc" \
		-j"$(($(nproc) + 1))" "$@"
}

frags=("$TOP/tools/vm/kernel.config" "$@")
cfgsum=$(cat "${frags[@]}" | sha1sum | cut -c1-12)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.nvlat-frag" 2>/dev/null)" != "$cfgsum" ] ||
	[ "$TREE/Kconfig" -nt "$out/.config" ] ||
	[ -n "$(find "$TREE" -name 'Kconfig*' -newer "$out/.config" -print -quit)" ]; then
	step "configuring $out (tinyconfig + ${frags[*]##*/})"
	kmake tinyconfig > /dev/null
	"$TREE/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" "${frags[@]}" > "$out/merge.log" 2>&1
	kmake olddefconfig > /dev/null
	echo "$cfgsum" > "$out/.nvlat-frag"
fi

# Every option we ask for must survive olddefconfig (later fragments win),
# except options this tree does not define (the series' own options on the
# base tree or on a patch before the one that adds them).
mapfile -d '' -t kconfigs < <(find "$TREE" -name 'Kconfig*' -not -path '*/.git/*' -print0)
known=$(sed -n 's/^[[:space:]]*\(menu\)\{0,1\}config[[:space:]]\{1,\}\([A-Z0-9_]*\).*/CONFIG_\2/p' \
	"${kconfigs[@]}" | sort -u)
# A promptless option that nothing in this tree selects cannot be set
# (BLK_CLAT on the patch that adds it, before its users select it).
# shellcheck disable=SC2016 # awk's own $2
promptless=$(awk '/^[[:space:]]*config[[:space:]]/ { name = $2; next }
	name != "" && NF { if ($0 ~ /^[[:space:]]*(bool|tristate)[[:space:]]*$/) print "CONFIG_" name; name = "" }' \
	"${kconfigs[@]}" | sort -u)
selected=$(sed -n 's/^[[:space:]]*select[[:space:]]\{1,\}\([A-Z0-9_]*\).*/CONFIG_\1/p' \
	"${kconfigs[@]}" | sort -u)
known=$(comm -23 <(echo "$known") <(comm -23 <(echo "$promptless") <(echo "$selected")))
bad=$(sed -n -e 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)/\1 \2/p' \
	-e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1 n/p' "${frags[@]}" |
	awk '{ v[$1] = $2 } END { for (k in v) print k, v[k] }' |
	while read -r opt val; do
		grep -qxF "$opt" <<< "$known" || continue
		if [ "$val" = n ]; then
			! grep -qE "^$opt=[ym]" "$out/.config" || printf ' %s=n' "$opt"
		else
			grep -qxF "$opt=$val" "$out/.config" || printf ' %s=%s' "$opt" "$val"
		fi
	done)
[ -z "$bad" ] || die "config options did not stick:$bad (see $out/merge.log)"

step "building bzImage in $out (cold: about 15 minutes on 2 cores)"
kmake bzImage
step "built $(cat "$out/include/config/kernel.release") -> $out/arch/x86/boot/bzImage"
