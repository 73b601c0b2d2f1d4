#!/bin/bash
# kernel-fetch.sh KERNEL CACHE: Debian's kernel image KERNEL (6.1, 6.12, 7.3, …: major.minor)
# for the VM labs, fetched with apt-get download from the Debian suite that carries it and
# unpacked into CACHE — never installed, nothing written to the host's /boot or /lib/modules.
#
#   6.1          bookworm                 linux-image-6.1.0-N-amd64
#   6.2 … 6.12   bookworm-backports       linux-image-6.12.P+deb12-amd64
#   6.13 …       trixie-backports         linux-image-X.Y.P+deb13-amd64; from 6.19 on that is
#                                         a meta package: the kernel is in linux-binary-KVER,
#                                         the modules in linux-modules-KVER, the config and
#                                         modules.builtin in linux-base-KVER
# (the newest build of that major.minor in the suite). The kernel's config is kept as
# CACHE/KVER/config: check-interop reads from it whether the kernel has SMC at all
# (Debian builds 7.2 and 7.3 without CONFIG_DIBS, and SMC depends on it since 6.19). apt runs on its own configuration in
# CACHE/apt (the suites above, Debian's archive keyring), so the host's sources are left as
# they are. Prints the kernel's directory, CACHE/KVER, which holds boot/vmlinuz-KVER and
# lib/modules/KVER with modules.dep (depmod -b), the modules uncompressed where the package
# had them compressed (busybox insmod loads plain .ko files). Reused while present.
# Needs apt-get, dpkg-deb, depmod, xz, zstd (for .ko.zst) and the Debian archive keyring.
set -euo pipefail
KERNEL=${1:?usage: kernel-fetch.sh KERNEL CACHE}
CACHE=${2:?usage: kernel-fetch.sh KERNEL CACHE}
case $KERNEL in
[0-9]*.[0-9]*) ;;
*) echo "kernel-fetch: KERNEL is major.minor, such as 6.1, 6.12 or 7.3 (got '$KERNEL')" >&2; exit 2 ;;
esac
mkdir -p "$CACHE"
CACHE=$(cd "$CACHE" && pwd)
major=${KERNEL%%.*}
minor=${KERNEL#*.}
minor=${minor%%.*}
if [ "$major" -lt 6 ] || { [ "$major" = 6 ] && [ "$minor" -lt 2 ]; }; then
	suite=bookworm
elif [ "$major" = 6 ] && [ "$minor" -le 12 ]; then
	suite=bookworm-backports
else
	suite=trixie-backports
fi

# apt on its own configuration: the three suites, lists and downloads in CACHE/apt
APT=$CACHE/apt
mkdir -p "$APT/lists/partial" "$APT/archives/partial" "$APT/etc"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -r "$keyring" ] || { echo "kernel-fetch: $keyring missing (apt-get install debian-archive-keyring)" >&2; exit 1; }
for s in bookworm bookworm-backports trixie-backports; do
	echo "deb [signed-by=$keyring] http://deb.debian.org/debian $s main"
done > "$APT/etc/sources.list"
aptopts=(-o "Dir::Etc::SourceList=$APT/etc/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o "Dir::State::Lists=$APT/lists" -o "Dir::Cache=$APT" -o "Dir::Cache::archives=$APT/archives"
	-o Dir::State::status=/dev/null -o APT::Sandbox::User=root -o Debug::NoLocking=1)
# the lists: fetched when missing or older than a day
if [ -z "$(find "$APT/lists" -maxdepth 1 -name '*Packages*' -mtime -1 2>/dev/null | head -1)" ]; then
	apt-get "${aptopts[@]}" -q update > "$APT/update.log" 2>&1 ||
		{ tail -5 "$APT/update.log" >&2; echo "kernel-fetch: apt-get update failed" >&2; exit 1; }
fi

# the newest image package of that version in the suite (not -rt, -cloud, -dbg, -unsigned)
pick() { # REGEX: the package names matching, newest version last
	apt-cache "${aptopts[@]}" search --names-only "$1" 2>/dev/null | awk '{print $1}' |
		while read -r p; do
			v=$(apt-cache "${aptopts[@]}" show "$p" 2>/dev/null | awk '/^Version:/ { print $2; exit }')
			[ -n "$v" ] && echo "$v $p"
		done | sort -V | tail -1
}
if [ "$suite" = bookworm ]; then
	re="^linux-image-$major\\.$minor\\.0-[0-9]+-amd64\$"
else
	re="^linux-image-$major\\.$minor\\.[0-9]+\\+deb1[23]-amd64\$"
fi
read -r ver pkg <<< "$(pick "$re")" || true
[ -n "${pkg:-}" ] || { echo "kernel-fetch: no linux-image for $KERNEL in $suite" >&2; exit 1; }
KVER=${pkg#linux-image-}
DIR=$CACHE/$KVER
if [ -f "$DIR/ready" ]; then
	echo "$DIR"
	exit 0
fi

debs=("$pkg")
# from 6.19 on linux-image-* is a meta package: linux-binary-* holds the kernel,
# linux-modules-* the modules
if [ "$suite" = trixie-backports ] && { [ "$major" -gt 6 ] || [ "$minor" -ge 19 ]; }; then
	debs=("linux-binary-$KVER" "linux-modules-$KVER" "linux-base-$KVER")
fi
mkdir -p "$APT/debs"
(cd "$APT/debs" && apt-get "${aptopts[@]}" -q download "${debs[@]}" > "$APT/download.log" 2>&1) ||
	{ tail -5 "$APT/download.log" >&2; echo "kernel-fetch: apt-get download ${debs[*]} failed" >&2; exit 1; }
rm -rf "$DIR.tmp"
mkdir -p "$DIR.tmp"
for d in "${debs[@]}"; do
	f=$(ls "$APT/debs/${d}_"*.deb | tail -1)
	dpkg-deb -x "$f" "$DIR.tmp"
done
# merged /usr (trixie): modules under usr/lib/modules; give them the classic place too
if [ -d "$DIR.tmp/usr/lib/modules/$KVER" ] && [ ! -e "$DIR.tmp/lib/modules" ]; then
	mkdir -p "$DIR.tmp/lib"
	ln -s ../usr/lib/modules "$DIR.tmp/lib/modules"
fi
[ -d "$DIR.tmp/lib/modules/$KVER/kernel" ] || { echo "kernel-fetch: no modules in ${debs[*]}" >&2; exit 1; }
# compressed modules: plain .ko for busybox insmod (the signature stays appended)
find "$DIR.tmp/lib/modules/$KVER/" -name '*.ko.xz' -exec xz -d {} +
find "$DIR.tmp/lib/modules/$KVER/" -name '*.ko.zst' -exec sh -c 'for f; do zstd -q -d --rm "$f"; done' sh {} +
depmod -b "$DIR.tmp" "$KVER" 2> "$DIR.tmp/depmod.log" ||
	{ cat "$DIR.tmp/depmod.log" >&2; echo "kernel-fetch: depmod failed" >&2; exit 1; }
mkdir -p "$DIR.tmp/boot"
# from 6.19 on the kernel sits beside its modules (linux-binary-*)
[ -r "$DIR.tmp/boot/vmlinuz-$KVER" ] || [ ! -r "$DIR.tmp/lib/modules/$KVER/vmlinuz" ] ||
	ln -s "../lib/modules/$KVER/vmlinuz" "$DIR.tmp/boot/vmlinuz-$KVER"
[ -r "$DIR.tmp/boot/vmlinuz-$KVER" ] || { echo "kernel-fetch: no boot/vmlinuz-$KVER in $pkg" >&2; exit 1; }
for cfg in "$DIR.tmp/boot/config-$KVER" "$DIR.tmp/lib/modules/$KVER/config"; do
	if [ -r "$cfg" ]; then
		cp "$cfg" "$DIR.tmp/config"
		break
	fi
done
echo "$pkg $ver from $suite" > "$DIR.tmp/ready"
rm -rf "$DIR"
mv "$DIR.tmp" "$DIR"
echo "$DIR"
