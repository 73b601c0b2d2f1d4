#!/bin/bash
# build-rxe.sh OUTDIR: rdma_rxe.ko for Debian's 6.1 kernel with the two upstream fixes
# kernel SMC-R needs on Soft-RoCE (patches/*.patch, each naming its upstream commit).
#
# Sources: drivers/infiniband/sw/rxe/ from the Debian package linux-source-6.1, built
# against linux-headers-KVER (the kernel the VMs boot). About 20 s on 2 cores; the
# module is kept and reused while it is newer than the patches and matches KVER.
# Env: KVER (default: the newest /lib/modules). Prints the module's path.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: build-rxe.sh OUTDIR}
KVER=${KVER:-$(ls /lib/modules 2>/dev/null | sort -V | tail -1)}
TARBALL=/usr/src/linux-source-6.1.tar.xz
KO=$OUT/rdma_rxe.ko
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
KO=$OUT/rdma_rxe.ko

[ -r "$TARBALL" ] || { echo "build-rxe: $TARBALL missing (apt-get install linux-source-6.1)" >&2; exit 1; }
[ -d "/lib/modules/$KVER/build" ] || { echo "build-rxe: no headers for $KVER (apt-get install linux-headers-$KVER)" >&2; exit 1; }

fresh=1
[ -f "$KO" ] || fresh=0
for p in "$HERE"/patches/*.patch "$0"; do
	[ "$fresh" = 1 ] && [ "$p" -nt "$KO" ] && fresh=0
done
if [ "$fresh" = 1 ] && modinfo -F vermagic "$KO" 2>/dev/null | grep -q "^$KVER "; then
	echo "$KO"
	exit 0
fi

SRC=$OUT/src
rm -rf "$SRC"
mkdir -p "$SRC"
tar -xJf "$TARBALL" -C "$SRC" --strip-components=1 --wildcards 'linux-source-6.1/drivers/infiniband/sw/rxe/*'
for p in "$HERE"/patches/*.patch; do
	patch -d "$SRC" -p1 --quiet < "$p" || { echo "build-rxe: $p does not apply" >&2; exit 1; }
done
make -C "/lib/modules/$KVER/build" M="$SRC/drivers/infiniband/sw/rxe" CONFIG_RDMA_RXE=m modules -j2 > "$OUT/build.log" 2>&1 ||
	{ tail -20 "$OUT/build.log" >&2; echo "build-rxe: module build failed" >&2; exit 1; }
cp "$SRC/drivers/infiniband/sw/rxe/rdma_rxe.ko" "$KO.tmp"
strip --strip-debug "$KO.tmp"
mv "$KO.tmp" "$KO"
rm -rf "$SRC"
echo "$KO"
