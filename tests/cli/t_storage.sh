# Storage planning from a run: z/OS stacks get IBM's worksheet and the RMB blocks z/OS would
# hold at the run's peak (1 MB RMBs cut into RMBEs of one size, three per link group at
# least), Linux stacks the buffer totals of smcr -d stats, in the netstat report and the
# JSON report (validated against its schema). The block counts are worked out by hand:
#  60 connections with 64 KB RMBEs (16 to a block): 4 blocks; with 256 KB RMBEs (4 to a
#  block): 15; 10 connections: the basic three.
set -eu
. tests/lib.sh

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

scn() { # scn NAME CONNS RMBSIZE PERSONALITY
	cat >"$TMP/$1.scn" <<S
scenario "storage $1"
end 10s
switch SW
adapter RA pfid=0010 switch=SW
adapter RB pfid=0020 switch=SW
stack A personality=$4
  interface eth0 switch=SW ip=10.0.0.1/24
  smcr pfid=0010
  smcr rmbsize=$3
end
stack B personality=$4
  interface eth0 switch=SW ip=10.0.0.2/24
  smcr pfid=0020
  smcr rmbsize=$3
end
app rrsrv B listen port=9000 kind=responder
app many A connect B:9000 kind=rr request=100 response=100 count=5 conns=$2 interval=1ms close=never
S
}
field() { # field FILE STACK KEY: the stack's storage.KEY from a JSON report
	python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print([s for s in r["stacks"] if s["name"]==sys.argv[2]][0]["storage"][sys.argv[3]])' "$@"
}
check() { # check NAME CONNS RMBSIZE BLOCKS
	scn "$1" "$2" "$3" zos
	"$SMCR_SIM" report --format json "$TMP/$1.scn" >"$TMP/$1.json"
	[ "$(field "$TMP/$1.json" A connections_peak)" = "$2" ] || fail "$1: connections_peak $(field "$TMP/$1.json" A connections_peak)"
	[ "$(field "$TMP/$1.json" A link_groups_peak)" = 1 ] || fail "$1: link_groups_peak"
	got=$(field "$TMP/$1.json" A rmb_blocks_peak)
	[ "$got" = "$4" ] || fail "$1: $2 connections with $3 RMBEs: $got RMB blocks, expected $4"
	[ "$(field "$TMP/$1.json" B rmb_blocks_peak)" = "$4" ] || fail "$1: the server's blocks"
	need=$(field "$TMP/$1.json" A fixed_memory_needed_mb)
	[ "$need" = $((1 + 5 + $4)) ] || fail "$1: needed $need MB"
	if command -v tools/validate-json >/dev/null && python3 -c 'import jsonschema' 2>/dev/null; then
		tools/validate-json report "$TMP/$1.json" || fail "$1: the JSON report does not validate"
	fi
	echo "ok $1: $2 connections, $3 RMBEs: $got blocks, FIXEDMEMORY needed $need MB"
}
check c60k64 60 64K 4
check c60k256 60 256K 15
check c10k64 10 64K 3

# the sections in the netstat report: the worksheet for 60 connections (6 MB of workload: 1 + 5 + 3 + 6)
"$SMCR_SIM" report "$TMP/c60k64.scn" >"$TMP/c60k64.txt"
grep -q '^  TCP workload: 60 connections at most:               6 MB' "$TMP/c60k64.txt" || fail "$(grep -A9 'storage planning' "$TMP/c60k64.txt")"
grep -q '^  Worksheet minimum:                                 15 MB' "$TMP/c60k64.txt" || fail "$(grep -A9 'storage planning' "$TMP/c60k64.txt")"
# Linux: the buffer totals of smcr -d stats; 60 RMBs of 64 KB at once at most
scn lnx 60 64K linux
"$SMCR_SIM" report "$TMP/lnx.scn" >"$TMP/lnx.txt"
grep -q '^  RX (RMBs)          usage now 3932160 (3.932M), at most 3932160 (3.932M); given: 64KB x 60$' "$TMP/lnx.txt" ||
	fail "linux: $(grep -A3 'buffer storage' "$TMP/lnx.txt")"
! grep -q 'storage planning' "$TMP/lnx.txt" || fail "a Linux stack with the z/OS worksheet"
echo "storage ok"
