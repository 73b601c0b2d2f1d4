# `smcr-sim node` without RDMA devices, two processes on 127.0.0.1: the CLC handshake runs
# as the first bytes of a kernel TCP connection, the client declines (no SMC-R device),
# both fall back to TCP with Linux's reasons, and every byte arrives checked (bulk to a
# sink, and an echo). A node whose peer never comes fails within its timeout.
set -eu
. tests/lib.sh

port=$((30000 + $$ % 20000))
"$SMCR_SIM" node --listen 127.0.0.1:$port --conns 3 --format json --timeout 30s > "$BUILD/node-srv.json" 2> "$BUILD/node-srv.err" &
srv=$!
"$SMCR_SIM" node --connect 127.0.0.1:$port --conns 3 --bytes 2M --timeout 30s -v > "$BUILD/node-cli.txt" 2> "$BUILD/node-cli.err" ||
	fail "the client failed: $(cat "$BUILD/node-cli.err")"
wait $srv || fail "the server failed: $(cat "$BUILD/node-srv.err")"
grep -q 'node node (client, no RDMA device): 3 of 3 connection(s) done (SMC-R 0, fallback 3, failed 0)' "$BUILD/node-cli.txt" ||
	fail "client summary: $(head -3 "$BUILD/node-cli.txt")"
grep -q 'fallback reason 0x03030000 (SMC_CLC_DECL_NOSMCDEV)' "$BUILD/node-cli.txt" || fail "no NOSMCDEV reason"
grep -q 'connection 3: fallback to TCP, reason 0x03030000' "$BUILD/node-cli.err" || fail "no fallback in the event log"
if command -v jq >/dev/null; then
	[ "$(jq -c '.node | [.role, .connections_done, .fallback, .bytes_verified, .content_ok, .ok]' "$BUILD/node-srv.json")" = '["server",3,3,6291456,true,true]' ] ||
		fail "server result: $(jq -c .node "$BUILD/node-srv.json")"
	jq -e '.stacks[0].stats.fallbacks[] | select(.code == "0x05000000" and .server == 3)' "$BUILD/node-srv.json" >/dev/null ||
		fail "the server's fallback statistics lack PEERDECL: $(jq -c .stacks[0].stats.fallbacks "$BUILD/node-srv.json")"
fi

port=$((port + 1))
"$SMCR_SIM" node --listen 127.0.0.1:$port --app echo --timeout 30s > "$BUILD/node-esrv.txt" 2>&1 &
srv=$!
"$SMCR_SIM" node --connect 127.0.0.1:$port --app echo --bytes 1M --timeout 30s > "$BUILD/node-ecli.txt" 2>&1 ||
	fail "echo client failed: $(cat "$BUILD/node-ecli.txt")"
wait $srv || fail "echo server failed: $(cat "$BUILD/node-esrv.txt")"
grep -q 'sent 1048576 bytes, received 1048576 (1048576 verified)' "$BUILD/node-ecli.txt" || fail "echo: $(head -3 "$BUILD/node-ecli.txt")"

# the client first: its three connections are refused and retried until the server listens
port=$((port + 1))
"$SMCR_SIM" node --connect 127.0.0.1:$port --conns 3 --bytes 256K --timeout 30s > "$BUILD/node-late.txt" 2>&1 &
cli=$!
sleep 0.5
"$SMCR_SIM" node --listen 127.0.0.1:$port --conns 3 --timeout 30s > "$BUILD/node-late-srv.txt" 2>&1 || fail "late server failed"
wait $cli || fail "early client failed: $(cat "$BUILD/node-late.txt")"
grep -q 'received 786432 (786432 verified)' "$BUILD/node-late-srv.txt" || fail "late server: $(head -3 "$BUILD/node-late-srv.txt")"

# no peer: a refused connect is retried for --wait, then the node fails (exit 1)
t0=$(date +%s)
expect_exit 1 timeout 20 "$SMCR_SIM" node --connect 127.0.0.1:$((port + 1)) --wait 1s --timeout 10s
[ $(( $(date +%s) - t0 )) -lt 10 ] || fail "a refused connect took too long to fail"
# no client: the server gives up at its timeout (exit 2: the node could not run)
expect_exit 2 timeout 20 "$SMCR_SIM" node --listen 127.0.0.1:$((port + 2)) --timeout 1s
expect_stderr 'is the client running' "$SMCR_SIM" node --listen 127.0.0.1:$((port + 3)) --timeout 1s
# a peer whose first bytes are no CLC message: the connection fails at once and the
# server ends (exit 1, why), instead of waiting out its --timeout
port=$((port + 4))
"$SMCR_SIM" node --listen 127.0.0.1:$port --timeout 60s > "$BUILD/node-bad.txt" 2> "$BUILD/node-bad.err" &
srv=$!
t0=$(date +%s)
python3 -c '
import socket, sys, time
for i in range(50):
    try:
        s = socket.create_connection(("127.0.0.1", int(sys.argv[1]))); break
    except OSError:
        time.sleep(0.1)
s.sendall(bytes(range(16)))
time.sleep(0.5)
s.close()' $port
set +e; wait $srv; rc=$?; set -e
[ "$rc" = 1 ] || fail "a server given a malformed CLC message exited $rc: $(cat "$BUILD/node-bad.err")"
[ $(( $(date +%s) - t0 )) -lt 20 ] || fail "a server given a malformed CLC message waited for its timeout"
grep -qx 'smcr-sim node: 1 connection(s) failed; connection 1: aborted (protocol violation)' "$BUILD/node-bad.err" ||
	fail "malformed CLC: $(cat "$BUILD/node-bad.err")"
echo "node tcp ok"
