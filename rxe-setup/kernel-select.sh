# kernel-select.sh (sourced by check-hw.sh and interop/check-interop.sh): which kernel the
# VMs boot. KERNEL (make check-hw|check-interop KERNEL=6.12) is a Debian kernel's
# major.minor; without it, or when it is the installed kernel's, the VMs boot the
# installed kernel (/boot/vmlinuz-KVER, /lib/modules/KVER: tools/install-deps --hw).
# Another version is fetched with kernel-fetch.sh into KCACHE (default BUILD/kernels),
# never installed. Sets and exports:
#   KVER      the kernel's release (6.12.95+deb12-amd64)
#   KIMAGE    its image
#   MODROOT   the root its lib/modules/KVER is under ("" for the installed kernel)
#   KLABEL    major.minor (6.12)
#   LINUX_REL the SMC-Rv2 release it speaks: 0 before 6.6, 1 from 6.6 (SMC_RELEASE)
#   RXE_STOCK 1 when its own rdma_rxe works with kernel SMC-R (6.12 and later have both
#             fixes of interop/patches), 0 when interop needs the patched module (6.1)
# Needs: BUILD, and the functions skip (exit 77 with a reason) and the variable HERE of the
# sourcing script's folder (rxe-setup/ or rxe-setup/interop/).
KSEL_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KCACHE=${KCACHE:-$BUILD/kernels}
installed=$(ls /lib/modules 2>/dev/null | sort -V | tail -1)
installed_label=$(echo "$installed" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
# without KERNEL: the installed kernel, never a download
[ -n "${KERNEL:-}" ] || [ -n "$installed" ] || skip "no kernel in /lib/modules (install linux-image-amd64: tools/install-deps --hw)"
KERNEL=${KERNEL:-$installed_label}
if [ -n "$installed" ] && [ "$KERNEL" = "$installed_label" ]; then
	KVER=$installed
	KIMAGE=/boot/vmlinuz-$KVER
	MODROOT=
else
	command -v apt-get >/dev/null && command -v dpkg-deb >/dev/null && command -v depmod >/dev/null ||
		skip "KERNEL=$KERNEL needs apt-get, dpkg-deb and depmod to fetch Debian's kernel"
	kdir=$("$KSEL_DIR/kernel-fetch.sh" "$KERNEL" "$KCACHE" 2> "$KCACHE.fetch.log") ||
		skip "Debian's kernel $KERNEL could not be fetched: $(tail -1 "$KCACHE.fetch.log")"
	KVER=$(basename "$kdir")
	KIMAGE=$kdir/boot/vmlinuz-$KVER
	MODROOT=$kdir
	# Debian builds 7.2 and 7.3 without CONFIG_DIBS, and SMC depends on it from 6.19 on
	# (net/smc/Kconfig: depends on INET && INFINIBAND && DIBS): no smc.ko at all
	if [ -r "$kdir/config" ] && ! grep -q '^CONFIG_SMC=' "$kdir/config"; then
		why=""
		grep -q '^# CONFIG_DIBS is not set' "$kdir/config" &&
			why=" (CONFIG_DIBS is not set, and SMC depends on it since 6.19: net/smc/Kconfig)"
		SMC_MISSING="Debian's kernel $KVER is built without SMC$why"
	fi
fi
KLABEL=$(echo "$KVER" | sed -E 's/^([0-9]+\.[0-9]+).*/\1/')
kmaj=${KLABEL%%.*}
kmin=${KLABEL#*.}
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 6 ]; }; then LINUX_REL=1; else LINUX_REL=0; fi
if [ "$kmaj" -gt 6 ] || { [ "$kmaj" = 6 ] && [ "$kmin" -ge 12 ]; }; then RXE_STOCK=1; else RXE_STOCK=0; fi
[ -r "$KIMAGE" ] || skip "$KIMAGE is not readable (run as root)"
export KVER KIMAGE MODROOT KLABEL LINUX_REL RXE_STOCK
