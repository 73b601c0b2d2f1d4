#!/bin/bash
# kernel-pair.sh SHARE SRV_INITRD SRV_KIMAGE CLI_INITRD CLI_KIMAGE [SMC_PEER ARGS…]: two Linux
# kernels talking SMC-R to each other over Soft-RoCE (no smcr-sim in the VMs): "srv"
# (10.0.0.1) runs `smc_peer server`, "cli" (10.0.0.2) `smc_peer client`, each after loading
# smc.ko and smc_diag.ko, a UEID and a PNET entry for rxe0 (smc_nl). The initramfs images
# come from mkinitramfs-interop.sh for each kernel (kernel-fetch.sh for the ones not
# installed); the wire lands in SHARE/wire.pcap (QEMU filter-dump), each side's smc_diag,
# netlink link groups and links in SHARE/srv.out and SHARE/cli.out.
# The smc_peer arguments are given to both sides (default: --conns 4 --bytes 16384); the
# client also gets --peer 10.0.0.1 --wait 60. Env: WD (guest watchdog, s; 120), SRV_EXTRA and
# CLI_EXTRA (shell lines each job runs before smc_peer, such as sysctls).
# Exit: vm-run.sh's (0 when both jobs passed).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SHARE=${1:?usage: kernel-pair.sh SHARE SRV_INITRD SRV_KIMAGE CLI_INITRD CLI_KIMAGE [SMC_PEER ARGS…]}
SRV_INITRD=${2:?} SRV_KIMAGE=${3:?} CLI_INITRD=${4:?} CLI_KIMAGE=${5:?}
shift 5
ARGS="$*"
[ -n "$ARGS" ] || ARGS="--conns 4 --bytes 16384"
WD=${WD:-120}
mkdir -p "$SHARE"
rm -f "$SHARE"/job-*.sh "$SHARE"/*.out "$SHARE"/wire.pcap
job() { # ROLE SMC_PEER_COMMAND EXTRA
	cat <<EOF
while read -r ko; do insmod "\$ko" || exit 1; done < /etc/smcr-interop-modules
smc_nl ueid-add SMC-RXE-LAB || exit 1
smc_nl pnet-add LABNET eth0 rxe0 1 || exit 1
echo "kernel \$(uname -r)" > /mnt/host/$1.out
$3
$2 >> /mnt/host/$1.out 2>&1; rc=\$?
smc_nl lgrs >> /mnt/host/$1.out
smc_nl links >> /mnt/host/$1.out
smc_nl stats >> /mnt/host/$1.out
cat /mnt/host/$1.out
exit \$rc
EOF
}
job srv "smc_peer server --port 5000 $ARGS" "${SRV_EXTRA:-}" > "$SHARE/job-srv.sh"
job cli "smc_peer client --peer 10.0.0.1 --port 5000 --wait 60 $ARGS" "${CLI_EXTRA:-}" > "$SHARE/job-cli.sh"
WD=$WD TIMEOUT=$((WD + 60)) KIMAGE=$SRV_KIMAGE KIMAGE2=$CLI_KIMAGE INITRD2=$CLI_INITRD \
	timeout --kill-after=10 $((WD + 90)) "$HERE/../vm-run.sh" "$SRV_INITRD" "$SHARE" pair srv cli
