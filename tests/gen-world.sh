#!/bin/sh
# Generate large scenarios for scale and memory measurements (and the out-of-memory test).
#
#   tests/gen-world.sh leafspine N [BYTES]   N stacks (one adapter each) on leaves of at most
#                                            32 ports under one spine, one flat /16; the
#                                            odd stacks listen, each even one sends BYTES
#                                            (default 1M) to the stack before it over SMC-R;
#                                            all start at once
#   tests/gen-world.sh idle C [SIZE]         two stacks, C echo connections of 64 bytes kept
#                                            open (close=never), RMBs and send buffers of
#                                            SIZE (default 16K): the cost of idle connections
#
# The scenario goes to stdout.
set -eu

leafspine() {
	n=$1 bytes=$2
	per_leaf=32
	leaves=$(( (n + per_leaf - 1) / per_leaf ))
	echo "scenario \"$n stacks, leaf-spine\""
	echo "seed 1"
	echo "end 20s"
	echo "switch SPINE"
	l=1
	while [ $l -le $leaves ]; do
		echo "switch LEAF$l"
		echo "wire UP$l LEAF$l SPINE latency=2us bandwidth=100Gbps"
		l=$((l + 1))
	done
	i=1
	while [ $i -le $n ]; do
		leaf=$(( (i - 1) / per_leaf + 1 ))
		pfid=$(printf '%04X' $((0x1000 + i)))
		echo "adapter R$i pfid=$pfid switch=LEAF$leaf"
		echo "stack N$i personality=linux"
		echo "  interface eth0 switch=LEAF$leaf ip=10.0.$((i / 250)).$((i % 250 + 1))/16"
		echo "  smcr pfid=$pfid"
		echo "end"
		i=$((i + 1))
	done
	i=1
	while [ $i -le $n ]; do
		if [ $((i % 2)) -eq 1 ]; then
			echo "app s$i N$i listen port=5000 kind=sink"
		else
			echo "app c$i N$i connect N$((i - 1)):5000 kind=bulk bytes=$bytes"
			echo "expect delivered c$i == $bytes"
			echo "expect mode c$i == SMCR"
		fi
		i=$((i + 1))
	done
	echo "expect aborted == 0"
}

idle() {
	c=$1 size=$2
	echo "scenario \"$c idle connections\""
	echo "seed 1"
	echo "end 30s"
	echo "switch SW"
	echo "adapter RA pfid=0101 switch=SW"
	echo "adapter RB pfid=0102 switch=SW"
	for s in A B; do
		pf=0101; ip=10.0.0.1/24
		[ $s = B ] && pf=0102 && ip=10.0.0.2/24
		echo "stack $s personality=linux"
		echo "  interface eth0 switch=SW ip=$ip"
		echo "  smcr pfid=$pf"
		echo "  smcr rmbsize=$size sndbufsize=$size fixedmemory=0 maxconns=255"
		echo "end"
	done
	echo "app srv B listen port=5000 kind=echo"
	echo "app cli A connect B:5000 kind=echo bytes=64 conns=$c interval=10us close=never"
	echo "expect received cli == $((c * 64))"
	echo "expect mode cli.$c == SMCR"
}

case "${1:-}" in
leafspine) leafspine "${2:?stacks}" "${3:-1M}" ;;
idle) idle "${2:?connections}" "${3:-16K}" ;;
*) echo "usage: $0 leafspine N [BYTES] | idle C [SIZE]" >&2; exit 2 ;;
esac
