#!/bin/sh
# rxe-host.sh up [--netns] [IFACE…] | down [IFACE…] | status
# Soft-RoCE (rdma_rxe) devices on a Linux host whose kernel has the rdma_rxe module; run
# as root. Hosts without it (no /sys/module/rdma_rxe and no module to load): use the VM,
# `make check-hw` (rxe-setup/check-hw.sh).
#
#   up IFACE…    one rxe device per interface: rxe0, rxe1, … (first free names), via
#                `rdma link add rxeN type rxe netdev IFACE`
#   up           no interface given: a veth pair smcr-veth0/smcr-veth1 (10.77.0.1/24 and
#                10.77.0.2/24) with an rxe device on each end
#   up --netns   the veth ends go into network namespaces smcr-a and smcr-b. rxe in
#                Linux 6.1 (Debian 12) works in the initial namespace only (its UDP socket
#                and routes live there): there the devices appear but carry no traffic.
#                Without --netns both addresses are local to one namespace, so traffic
#                between the two ends is routed through `lo`, which rxe never sees: use a
#                single device (two QPs on it) or two hosts/VMs for a real peer.
#   down IFACE…  remove the rxe devices on those interfaces; with none: every rxe device
#                and the smcr-veth pair and namespaces this script made
#   status       rdma link, ibv_devices and each device's GIDs
# Every action ends by printing `ibv_devices`.
set -eu
VETH0=smcr-veth0 VETH1=smcr-veth1 NS_A=smcr-a NS_B=smcr-b

die() { echo "rxe-host: $*" >&2; exit 1; }
# iproute2's ip by path: a busybox shell would otherwise run its own, smaller ip applet
IP_BIN=
for p in /usr/sbin/ip /usr/bin/ip /sbin/ip /bin/ip; do
	[ -x "$p" ] && [ "$(readlink -f "$p")" != "$(readlink -f /bin/busybox 2>/dev/null)" ] && IP_BIN=$p && break
done
ip() { "${IP_BIN:-die iproute2 is missing}" "$@"; }
need() { command -v "$1" >/dev/null 2>&1 || die "'$1' is missing (Debian: apt-get install $2)"; }

load_rxe() {
	[ -d /sys/module/rdma_rxe ] && return 0
	modprobe rdma_rxe 2>/dev/null && return 0
	die "this kernel has no rdma_rxe module ($(uname -r)); use the VM instead: make check-hw"
}

rxe_on() { # the rxe device bound to interface $1, if any
	rdma link show 2>/dev/null | awk -v nd="$1" '$0 ~ (" netdev " nd "( |$)") { split($2, a, "/"); print a[1]; exit }'
}

free_name() {
	i=0
	while [ -e "/sys/class/infiniband/rxe$i" ]; do i=$((i + 1)); done
	echo "rxe$i"
}

add_rxe() { # interface
	[ -e "/sys/class/net/$1" ] || die "no interface '$1'"
	existing=$(rxe_on "$1")
	if [ -n "$existing" ]; then
		echo "rxe-host: $1 already has $existing"
		return 0
	fi
	name=$(free_name)
	rdma link add "$name" type rxe netdev "$1" || die "rdma link add $name type rxe netdev $1 failed"
	echo "rxe-host: $name on $1"
}

show() {
	echo "--- ibv_devices"
	ibv_devices || true
}

status() {
	echo "--- rdma link"
	rdma link show || true
	for d in /sys/class/infiniband/*; do
		[ -e "$d/ports/1/gids/0" ] || continue
		echo "--- $(basename "$d") port 1: $(cat "$d/ports/1/state")"
		# one grep for the whole table (rxe has 1024 entries), then the non-empty ones
		grep -H -v '^0000:0000:0000:0000:0000:0000:0000:0000$' "$d"/ports/1/gids/* 2>/dev/null |
		while IFS=: read -r f gid; do
			i=${f##*/}
			echo "  gid[$i] $gid $(cat "$d/ports/1/gid_attrs/types/$i" 2>/dev/null) $(cat "$d/ports/1/gid_attrs/ndevs/$i" 2>/dev/null)"
		done
	done
	show
}

up() {
	netns=0
	if [ "${1:-}" = --netns ]; then netns=1; shift; fi
	load_rxe
	if [ $# -gt 0 ]; then
		for ifc in "$@"; do add_rxe "$ifc"; done
		show
		return
	fi
	[ -e "/sys/class/net/$VETH0" ] || ip link add "$VETH0" type veth peer name "$VETH1"
	if [ $netns = 1 ]; then
		# the ends move first: an rxe device follows its netdev out of the namespace
		# by disappearing, so each is created inside its namespace
		for ns in $NS_A $NS_B; do ip netns list | grep -qw "$ns" || ip netns add "$ns"; done
		[ -e "/sys/class/net/$VETH0" ] && ip link set "$VETH0" netns "$NS_A"
		[ -e "/sys/class/net/$VETH1" ] && ip link set "$VETH1" netns "$NS_B"
		ip -n "$NS_A" addr add 10.77.0.1/24 dev "$VETH0" 2>/dev/null || true
		ip -n "$NS_B" addr add 10.77.0.2/24 dev "$VETH1" 2>/dev/null || true
		ip -n "$NS_A" link set "$VETH0" up
		ip -n "$NS_B" link set "$VETH1" up
		for pair in "$NS_A:$VETH0" "$NS_B:$VETH1"; do
			name=$(free_name)
			ip netns exec "${pair%%:*}" rdma link add "$name" type rxe netdev "${pair#*:}" ||
				die "rdma link add $name in namespace ${pair%%:*} failed"
			echo "rxe-host: $name on ${pair#*:} in namespace ${pair%%:*}"
		done
		echo "rxe-host: note: rxe in Linux $(uname -r | cut -d. -f1,2) may serve the initial namespace only"
	else
		ip addr add 10.77.0.1/24 dev "$VETH0" 2>/dev/null || true
		ip addr add 10.77.0.2/24 dev "$VETH1" 2>/dev/null || true
		ip link set "$VETH0" up
		ip link set "$VETH1" up
		add_rxe "$VETH0"
		add_rxe "$VETH1"
	fi
	show
}

down() {
	if [ $# -gt 0 ]; then
		for ifc in "$@"; do
			name=$(rxe_on "$ifc")
			[ -n "$name" ] && rdma link delete "$name" && echo "rxe-host: removed $name from $ifc"
		done
		show
		return
	fi
	for d in /sys/class/infiniband/rxe*; do
		[ -e "$d" ] || continue
		rdma link delete "$(basename "$d")" && echo "rxe-host: removed $(basename "$d")"
	done
	ip link del "$VETH0" 2>/dev/null || true
	for ns in $NS_A $NS_B; do
		ip -n "$ns" link del "$VETH0" 2>/dev/null || true
		ip netns del "$ns" 2>/dev/null || true
	done
	show
}

[ "$(id -u)" = 0 ] || die "run as root"
need rdma iproute2
need ibv_devices ibverbs-utils
cmd=${1:-}
[ $# -gt 0 ] && shift
case $cmd in
up) up "$@" ;;
down) down "$@" ;;
status) status ;;
*) echo "usage: rxe-host.sh up [--netns] [IFACE…] | down [IFACE…] | status" >&2; exit 2 ;;
esac
