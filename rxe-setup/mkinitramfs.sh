#!/bin/bash
# mkinitramfs.sh OUT.cpio.gz [BINARY…]: a small initramfs for the real-hardware VM, made
# only from installed Debian packages (tools/install-deps --hw) plus the given binaries:
#   linux-image-amd64   the modules for Soft-RoCE (rdma_rxe, ib_uverbs), virtio-net, 9p
#   busybox-static      the shell and core utilities
#   rdma-core, ibverbs-providers, ibverbs-utils, perftest, iproute2, tcpdump
#                       libibverbs with the rxe provider, ibv_devices/ibv_devinfo,
#                       ib_write_bw, ip/rdma, tcpdump
# Each binary goes to /usr/bin with its shared-library closure (ldd). The guest's /init is
# rxe-setup/guest-init. Env: KVER (default: the newest /lib/modules), MODROOT: a directory
# holding lib/modules/KVER of a kernel that is not installed (kernel-fetch.sh), default /.
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:?usage: mkinitramfs.sh OUT.cpio.gz [BINARY…]}
shift
MODROOT=${MODROOT:-}
KVER=${KVER:-$(ls "$MODROOT/lib/modules" 2>/dev/null | sort -V | tail -1)}
[ -n "$KVER" ] && [ -d "$MODROOT/lib/modules/$KVER" ] || { echo "mkinitramfs: no kernel modules in $MODROOT/lib/modules (install linux-image-amd64)" >&2; exit 1; }
LIBDIR=/usr/lib/x86_64-linux-gnu
ROOT=$(mktemp -d "${TMPDIR:-/tmp}/smcr-initramfs.XXXXXX")
trap 'rm -rf "$ROOT"' EXIT
mkdir -p "$ROOT"/{bin,sbin,etc,proc,sys,dev,tmp,run/netns,mnt/host,root,usr/bin,usr/sbin,lib64,lib/modules/"$KVER"}
mkdir -p "$ROOT/var"
ln -s ../run "$ROOT/var/run"
# Debian 12 is merged-/usr: one library directory, reachable under both names
mkdir -p "$ROOT$LIBDIR"
ln -s "../usr/lib/x86_64-linux-gnu" "$ROOT/lib/x86_64-linux-gnu"

# busybox: every applet as a link, except where a real tool is installed below
cp /bin/busybox "$ROOT/bin/busybox"
for a in $("$ROOT/bin/busybox" --list); do
	[ -e "$ROOT/bin/$a" ] || ln -s busybox "$ROOT/bin/$a"
done

# kernel modules in load order, dependencies first (modprobe --show-depends)
# (a module built into the kernel is no insmod line; crc32_generic became crc32 in 6.x)
MODULES="crc32_generic virtio_pci virtio_net 9pnet_virtio 9p ib_uverbs rdma_rxe veth"
: > "$ROOT/etc/smcr-modules"
for m in $MODULES; do
	{ modprobe ${MODROOT:+-d "$MODROOT"} -S "$KVER" --show-depends "$m" 2>/dev/null || true; } | while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		dest=${path#"$MODROOT"}
		grep -qx "$dest" "$ROOT/etc/smcr-modules" && continue
		mkdir -p "$ROOT$(dirname "$dest")"
		cp "$path" "$ROOT$dest"
		echo "$dest" >> "$ROOT/etc/smcr-modules"
	done
done
for m in virtio_net rdma_rxe; do
	grep -q "/$m.ko\$" "$ROOT/etc/smcr-modules" || grep -qw "$m" "$MODROOT/lib/modules/$KVER/modules.builtin" 2>/dev/null ||
		{ echo "mkinitramfs: kernel $KVER has no $m module" >&2; exit 1; }
done

# programs with their libraries
copy_closure() {
	local f=$1 dest=$2 lib
	mkdir -p "$ROOT$(dirname "$dest")"
	cp -L "$f" "$ROOT$dest"
	ldd "$f" 2>/dev/null | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' | while read -r lib; do
		[ -e "$ROOT$lib" ] && continue
		mkdir -p "$ROOT$(dirname "$lib")"
		cp -L "$lib" "$ROOT$lib"
	done
}
for t in /usr/bin/ip /usr/bin/rdma /usr/bin/ibv_devices /usr/bin/ibv_devinfo /usr/bin/ib_write_bw \
         /usr/bin/ib_send_bw /usr/bin/tcpdump; do
	[ -x "$t" ] || { echo "mkinitramfs: missing $t (tools/install-deps --hw)" >&2; exit 1; }
	copy_closure "$t" "$t"
done
# Debian's busybox prefers its own applets over $PATH: the real iproute2 tools win
rm -f "$ROOT/bin/ip"
ln -s /usr/bin/ip "$ROOT/bin/ip"
# the rxe user-space provider and its driver file; libgcc_s for pthread_cancel/exit
for p in "$LIBDIR"/libibverbs/librxe-rdmav*.so "$LIBDIR/libgcc_s.so.1"; do
	copy_closure "$p" "$p"
done
mkdir -p "$ROOT/etc/libibverbs.d"
cp /etc/libibverbs.d/rxe.driver "$ROOT/etc/libibverbs.d/"
[ -e "$ROOT/lib64/ld-linux-x86-64.so.2" ] || cp -L /lib64/ld-linux-x86-64.so.2 "$ROOT/lib64/"
[ -d /etc/iproute2 ] && cp -a /etc/iproute2 "$ROOT/etc/"
[ -d /usr/share/iproute2 ] && { mkdir -p "$ROOT/usr/share"; cp -a /usr/share/iproute2 "$ROOT/usr/share/"; }
printf 'root:x:0:0:root:/root:/bin/sh\ntcpdump:x:0:0::/:/bin/sh\n' > "$ROOT/etc/passwd"
printf 'root:x:0:\ntcpdump:x:0:\n' > "$ROOT/etc/group"
echo "127.0.0.1 localhost" > "$ROOT/etc/hosts"

for b in "$@"; do
	[ -x "$b" ] || { echo "mkinitramfs: $b is not an executable" >&2; exit 1; }
	copy_closure "$b" "/usr/bin/$(basename "$b")"
done

cp "$HERE/rxe-host.sh" "$ROOT/usr/bin/rxe-host.sh"   # exercised in the VM by check-hw
cp "$HERE/guest-init" "$ROOT/init"
chmod 755 "$ROOT/init"
(cd "$ROOT" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) > "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "mkinitramfs: $OUT $(du -h "$OUT" | cut -f1) ($(wc -l < "$ROOT/etc/smcr-modules") modules, kernel $KVER)"
