# smcr-sim sweep three ways — one process, --jobs 2, mpirun --oversubscribe -np 3 — with
# the merged results compared byte for byte; then a rank killed mid-sweep (Open MPI ends
# the job) and the sweep resumed under mpirun: the points that were in flight run again,
# marked retried, the rest as an uninterrupted sweep. Skips (77) only when Open MPI is
# not installed and cannot be (make check installs it: tools/install-deps --mpi).
set -eu
. tests/lib.sh
if ! command -v mpirun >/dev/null 2>&1; then
	tools/install-deps --mpi >/dev/null 2>&1 || true
	command -v mpirun >/dev/null 2>&1 || { echo "skip: Open MPI (openmpi-bin) is not installed and could not be installed"; exit 77; }
fi
"$SMCR_SIM" --version | grep -q '^mpi: yes' ||
	fail "Open MPI is installed but $SMCR_SIM was built without it ($("$SMCR_SIM" --version | grep mpi)); rebuild"
# CI runs as root; --oversubscribe: three ranks on two cores
MPIRUN="mpirun --oversubscribe --allow-run-as-root"
S=tests/data/sweep/redundant-pair.scn
W=$BUILD/t_sweep_mpi
rm -rf "$W"; mkdir -p "$W"
AXES="--seeds 1..3 --set PATHS=1,2 --set FAILAT=3ms,20ms --set LOSS=0,1/200"

set +e
"$SMCR_SIM" sweep $S $AXES -q --out "$W/one.jsonl" >"$W/one.sum"; r1=$?
"$SMCR_SIM" sweep $S $AXES -q --jobs 2 --out "$W/jobs.jsonl" >"$W/jobs.sum"; r2=$?
$MPIRUN -np 3 "$SMCR_SIM" sweep $S $AXES -q --out "$W/mpi.jsonl" >"$W/mpi.sum" 2>"$W/mpi.err"; r3=$?
set -e
[ $r1 = 1 ] && [ $r2 = 1 ] || fail "one process / --jobs 2 exited $r1 / $r2, expected 1 (failing points)"
[ $r3 != 0 ] || fail "mpirun exited 0 for a sweep with failing points"
cmp "$W/one.jsonl" "$W/jobs.jsonl" || fail "--jobs 2 results differ from one process"
cmp "$W/one.jsonl" "$W/mpi.jsonl" || fail "mpirun -np 3 results differ from one process"
grep -q '^engine: 3 MPI ranks' "$W/mpi.sum" || fail "not three MPI ranks: $(grep engine "$W/mpi.sum")"
[ "$(cut -f3 "$W/mpi.jsonl.wall" | sort -u | wc -l)" = 3 ] || fail "not every rank ran points: $(cut -f3 "$W/mpi.jsonl.wall" | sort | uniq -c)"
# the summary is rank 0's alone: one copy
[ "$(grep -c '^sweep ' "$W/mpi.sum")" = 1 ] || fail "the summary was printed more than once"
n=$(($(wc -l <"$W/one.jsonl") - 1))

# --mpi outside mpirun: a world of one rank (singleton MPI_Init), the same results
"$SMCR_SIM" sweep $S --seeds 1..2 -q --mpi --out "$W/single.jsonl" >"$W/single.sum" 2>&1 || true
"$SMCR_SIM" sweep $S --seeds 1..2 -q --out "$W/single-ref.jsonl" >/dev/null || true
cmp "$W/single.jsonl" "$W/single-ref.jsonl" || fail "--mpi without mpirun: results differ"

# a rank killed while it holds points: mpirun ends the job; --resume under mpirun goes on
SLOW="--seeds 1..8 --set DATA=48M --set END=3s"
"$SMCR_SIM" sweep $S $SLOW -q --out "$W/ref.jsonl" >/dev/null || fail "the slow sweep failed"
set +e
$MPIRUN -np 3 "$SMCR_SIM" sweep $S $SLOW -q --out "$W/kill.jsonl" >/dev/null 2>"$W/kill.err" &
job=$!
set -e
pid=
for i in $(seq 1 600); do
	if grep -q 'rank 2' "$W/kill.jsonl.wall" 2>/dev/null && [ "$(cat "$W/kill.jsonl" 2>/dev/null | wc -l)" -ge 2 ]; then
		# rank 2 of this job: a child of our mpirun whose environment says so
		for c in $(ps -o pid= --ppid $job); do
			if tr '\0' '\n' <"/proc/$c/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=2'; then pid=$c; fi
		done
		[ -n "$pid" ] && break
	fi
	sleep 0.02
done
[ -n "$pid" ] || fail "rank 2 was not found running"
kill -9 "$pid"
set +e; wait $job; rk=$?; set -e
[ $rk != 0 ] || fail "mpirun exited 0 after a rank was killed"
got=$(($(wc -l <"$W/kill.jsonl") - 1))
[ "$got" -lt 8 ] || fail "the killed job finished every point before the kill; no resume to test"
$MPIRUN -np 2 "$SMCR_SIM" sweep $S $SLOW -q --out "$W/kill.jsonl" --resume >"$W/resume.sum" 2>"$W/resume.err" ||
	fail "the resumed sweep failed: $(tail -3 "$W/resume.err")"
grep -q "; $((8 - got)) points\? run now" "$W/resume.sum" || fail "the resume ran other than the $((8 - got)) missing points: $(grep engine "$W/resume.sum")"
grep -q '"retried":1' "$W/kill.jsonl" || fail "no point marked retried after the killed rank"
sed 's/,"retried":1//' "$W/kill.jsonl" | cmp - "$W/ref.jsonl" || fail "resumed results differ from an uninterrupted sweep"
echo "sweep mpi ok: $n points the same three ways; rank 2 killed after $got of 8, resumed under mpirun -np 2"
