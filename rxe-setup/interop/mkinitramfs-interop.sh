#!/bin/bash
# mkinitramfs-interop.sh OUT.cpio.gz RDMA_RXE.KO BINARY…: the initramfs of the Linux
# interoperability VMs. It is the real-hardware VM's initramfs (../mkinitramfs.sh: busybox,
# rdma-core, iproute2, tcpdump, the binaries with their libraries, /init = ../guest-init)
# followed by a second cpio archive that the kernel unpacks over it:
#   - the patched rdma_rxe.ko (build-rxe.sh) in place of Debian's, so guest-init loads it
#     (RDMA_RXE.KO "stock": Debian's own, as for 6.12 and later, whose rxe needs neither fix);
#   - the kernel's SMC modules smc.ko and smc_diag.ko (linux-image-amd64), listed in
#     /etc/smcr-interop-modules for the job to load (a VM that runs smcr-sim has no
#     kernel SMC loaded at all).
# Env: KVER (default: the newest /lib/modules), MODROOT (a fetched kernel's root,
# kernel-fetch.sh; default /).
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: mkinitramfs-interop.sh OUT.cpio.gz RDMA_RXE.KO BINARY…}
RXE=${2:?rdma_rxe.ko}
shift 2
MODROOT=${MODROOT:-}
KVER=${KVER:-$(ls "$MODROOT/lib/modules" 2>/dev/null | sort -V | tail -1)}
export KVER MODROOT
mp() { modprobe ${MODROOT:+-d "$MODROOT"} -S "$KVER" --show-depends "$1"; }
"$HERE/../mkinitramfs.sh" "$OUT.base" "$@" >/dev/null

ROOT=$(mktemp -d "${TMPDIR:-/tmp}/smcr-interop-overlay.XXXXXX")
trap 'rm -rf "$ROOT" "$OUT.base" "$OUT.overlay"' EXIT
rxe_path=$(mp rdma_rxe | awk '$1 == "insmod" && /rdma_rxe/ {print $2}')
rxe_path=${rxe_path#"$MODROOT"}
[ -n "$rxe_path" ] || { echo "mkinitramfs-interop: no rdma_rxe in kernel $KVER" >&2; exit 1; }
mkdir -p "$ROOT$(dirname "$rxe_path")" "$ROOT/etc"
[ "$RXE" = stock ] || cp "$RXE" "$ROOT$rxe_path"
: > "$ROOT/etc/smcr-interop-modules"
for m in smc smc_diag; do
	mp "$m" >/dev/null 2>&1 || { echo "mkinitramfs-interop: kernel $KVER has no $m module" >&2; exit 1; }
	mp "$m" | while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		case $path in */ib_core.ko) continue ;; esac # guest-init loaded it with rdma_rxe
		dest=${path#"$MODROOT"}
		grep -qx "$dest" "$ROOT/etc/smcr-interop-modules" && continue
		mkdir -p "$ROOT$(dirname "$dest")"
		cp "$path" "$ROOT$dest"
		echo "$dest" >> "$ROOT/etc/smcr-interop-modules"
	done
done
# macvlan for the second RoCE device of the "sim" VM (rxe allows one device per netdev:
# rxe1 sits on a macvlan of eth0); the sim job loads it from this list
: > "$ROOT/etc/smcr-interop-net-modules"
mp macvlan | while read -r verb path _; do
	[ "$verb" = insmod ] || continue
	dest=${path#"$MODROOT"}
	mkdir -p "$ROOT$(dirname "$dest")"
	cp "$path" "$ROOT$dest"
	echo "$dest" >> "$ROOT/etc/smcr-interop-net-modules"
done
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$OUT.overlay"
cat "$OUT.base" "$OUT.overlay" > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "mkinitramfs-interop: $OUT $(du -h "$OUT" | cut -f1) ($([ "$RXE" = stock ] && echo "Debian's" || echo patched) rdma_rxe, $(wc -l < "$ROOT/etc/smcr-interop-modules") SMC modules, kernel $KVER)"
