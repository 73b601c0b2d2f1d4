#!/bin/bash
# vm-run.sh INITRD SHARE single ROLE [IP]
# vm-run.sh INITRD SHARE pair ROLE1 ROLE2
# vm-run.sh INITRD SHARE wireloop ROLE
# Boot the real-hardware VM(s) from Debian's kernel and INITRD (mkinitramfs.sh). SHARE is
# a host directory the guests mount over virtio-9p: it must hold job-ROLE.sh; logs,
# captures and results land there. `pair` joins two VMs (10.0.0.1 = ROLE1, 10.0.0.2 =
# ROLE2) by a QEMU socket netdev (no host networking, no privileges) and records the wire
# with filter-dump into SHARE/wire.pcap. `wireloop` boots one VM with two NICs joined by
# a QEMU hub (eth0 10.0.0.1 with rxe0, eth1 10.0.0.2 with rxe1; the guest routes traffic
# between them over that wire) and records it into SHARE/wire.pcap the same way.
#
# Acceleration: KVM when /dev/kvm works, else TCG. /dev/kvm from kvm_pvm (nested PVM
# hosts) runs only PVM guest kernels, and some nested hosts abort with "failed to set MSR";
# both fall back to TCG. Env: ACCEL=kvm|tcg, MEM (MiB), SMP, WD (guest watchdog, s),
# TIMEOUT (outer limit per VM, s), KVER, KIMAGE (the kernel image; default
# /boot/vmlinuz-KVER), KIMAGE2 and INITRD2 (pair: the second VM's, for peers on two
# kernels; default the first's), CAPTURE=1 (tcpdump in the first guest), SNAPLEN (its bytes
# per frame, 0 = all).
# Exit: 0 when every guest's job passed; otherwise 1 (the guest's verdicts are printed).
set -u
INITRD=${1:?usage: vm-run.sh INITRD SHARE single ROLE [IP] | pair ROLE1 ROLE2}
SHARE=${2:?}
MODE=${3:?}
KVER=${KVER:-$(ls /lib/modules 2>/dev/null | sort -V | tail -1)}
KERNEL=${KIMAGE:-/boot/vmlinuz-$KVER}
WD=${WD:-300}
TIMEOUT=${TIMEOUT:-$((WD + 60))}
CAPTURE=${CAPTURE:-0}
SNAPLEN=${SNAPLEN:-0}
[ -r "$KERNEL" ] || { echo "vm-run: cannot read $KERNEL (install linux-image-amd64; reading it needs root)" >&2; exit 1; }
command -v qemu-system-x86_64 >/dev/null || { echo "vm-run: qemu-system-x86_64 missing (tools/install-deps --hw)" >&2; exit 1; }

kvm_usable() {
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	[ -d /sys/module/kvm_pvm ] && return 1
	return 0
}
if [ -z "${ACCEL:-}" ]; then
	if kvm_usable; then ACCEL=kvm; else ACCEL=tcg; fi
fi

verdict() { # QEMU exit status → words
	case $1 in
	33) echo passed ;; 35) echo failed ;; 37) echo "watchdog fired" ;; 39) echo "set-up failed" ;;
	124) echo "killed by the outer timeout" ;; *) echo "QEMU exited with $1" ;;
	esac
}

# qemu ACCEL NAME SMP MEM APPEND NETDEV-ARGS…: one VM, console into SHARE/NAME.console.
# no_timer_check: under TCG on a busy host the kernel's check of the 8254 timer through
# the IO-APIC can time out, and 6.12 then panics at boot ("IO-APIC + timer doesn't work",
# seen with a load average of 11 on 2 cores).
# (VM_KERNEL, VM_INITRD: another kernel and initramfs for this VM)
qemu() {
	local accel=$1 name=$2 smp=$3 mem=$4 append=$5
	local kernel=${VM_KERNEL:-$KERNEL} initrd=${VM_INITRD:-$INITRD}
	shift 5
	local acc
	if [ "$accel" = kvm ]; then acc="-enable-kvm -cpu host"; else acc="-accel tcg,thread=multi -cpu max"; fi
	# shellcheck disable=SC2086
	timeout --kill-after=10 "$TIMEOUT" qemu-system-x86_64 $acc -m "$mem" -smp "$smp" \
		-kernel "$kernel" -initrd "$initrd" -nographic -no-reboot -nodefaults -serial stdio \
		-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
		-virtfs "local,path=$SHARE,mount_tag=host0,security_model=none,id=fs0" \
		"$@" -append "console=ttyS0 quiet panic=-1 no_timer_check smcr.wd=$WD $append" > "$SHARE/$name.console" 2>&1
}

run_single() {
	local role=$1 ip=${2:-10.0.0.1/24} t0 rc
	t0=$(date +%s.%N)
	qemu "$ACCEL" "$role" "${SMP:-2}" "${MEM:-1024}" "smcr.role=$role smcr.ip=$ip smcr.capture=$CAPTURE" \
		-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0
	rc=$?
	# a nested host that cannot run this guest under KVM: say so and use TCG
	if [ "$ACCEL" = kvm ] && [ $rc -ne 33 ] && [ $rc -ne 35 ]; then
		echo "vm-run: KVM did not work here ($(verdict $rc); $(grep -m1 -i 'error' "$SHARE/$role.console")); retrying with TCG"
		ACCEL=tcg
		qemu tcg "$role" "${SMP:-2}" "${MEM:-1024}" "smcr.role=$role smcr.ip=$ip smcr.capture=$CAPTURE" \
			-netdev user,id=n0,restrict=on -device virtio-net-pci,netdev=n0
		rc=$?
	fi
	printf 'vm-run: %s: %s in %.1f s (accel %s)\n' "$role" "$(verdict $rc)" "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$ACCEL"
	[ $rc -eq 33 ]
}

run_pair() {
	local r1=$1 r2=$2 t0 port p1 p2 rc1 rc2
	port=$((20000 + RANDOM % 20000))
	[ "$ACCEL" = kvm ] && echo "vm-run: pair runs under TCG (KVM fallback is only probed for single VMs)" && ACCEL=tcg
	rm -f "$SHARE/wire.pcap"
	t0=$(date +%s.%N)
	qemu "$ACCEL" "$r1" 1 "${MEM:-768}" "smcr.role=$r1 smcr.ip=10.0.0.1/24 smcr.capture=$CAPTURE smcr.snaplen=$SNAPLEN" \
		-netdev "socket,id=n0,listen=127.0.0.1:$port" -device virtio-net-pci,netdev=n0,mac=52:54:00:00:00:01 \
		-object "filter-dump,id=d0,netdev=n0,file=$SHARE/wire.pcap" &
	p1=$!
	sleep 1
	VM_KERNEL=${KIMAGE2:-$KERNEL} VM_INITRD=${INITRD2:-$INITRD} \
		qemu "$ACCEL" "$r2" 1 "${MEM:-768}" "smcr.role=$r2 smcr.ip=10.0.0.2/24" \
		-netdev "socket,id=n0,connect=127.0.0.1:$port" -device virtio-net-pci,netdev=n0,mac=52:54:00:00:00:02 &
	p2=$!
	wait $p2; rc2=$?
	wait $p1; rc1=$?
	printf 'vm-run: %s: %s, %s: %s, in %.1f s (accel %s)\n' "$r1" "$(verdict $rc1)" "$r2" "$(verdict $rc2)" \
		"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$ACCEL"
	[ $rc1 -eq 33 ] && [ $rc2 -eq 33 ]
}

run_wireloop() {
	local role=$1 t0 rc
	[ "$ACCEL" = kvm ] && echo "vm-run: wireloop runs under TCG (KVM fallback is only probed for single VMs)" && ACCEL=tcg
	rm -f "$SHARE/wire.pcap"
	t0=$(date +%s.%N)
	qemu "$ACCEL" "$role" "${SMP:-2}" "${MEM:-1024}" \
		"smcr.role=$role smcr.ip=10.0.0.1/24 smcr.ip2=10.0.0.2/24 smcr.capture=$CAPTURE smcr.snaplen=$SNAPLEN" \
		-netdev hubport,id=n0,hubid=0 -device virtio-net-pci,netdev=n0,mac=52:54:00:00:00:01 \
		-netdev hubport,id=n1,hubid=0 -device virtio-net-pci,netdev=n1,mac=52:54:00:00:00:02 \
		-object "filter-dump,id=d0,netdev=n0,file=$SHARE/wire.pcap"
	rc=$?
	printf 'vm-run: %s: %s in %.1f s (accel %s, two NICs on one wire)\n' "$role" "$(verdict $rc)" \
		"$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN{print b-a}')" "$ACCEL"
	[ $rc -eq 33 ]
}

case $MODE in
single) run_single "${4:?role}" "${5:-}" ;;
wireloop) run_wireloop "${4:?role}" ;;
pair) run_pair "${4:?role1}" "${5:?role2}" ;;
*) echo "vm-run: mode is single, pair or wireloop" >&2; exit 2 ;;
esac
