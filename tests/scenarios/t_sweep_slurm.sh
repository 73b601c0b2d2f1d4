# The Slurm batch script of docs/cluster.md (docs/sweep.sbatch) on a one-node Slurm cluster
# started here on localhost: its own munged, slurmctld and slurmd on ports of their own,
# stopped again at the end. The sweep runs as 3 tasks (srun --mpi=pmix), its results must
# be byte for byte those of one process, and a resubmission continues from the result file.
# Needs root (slurmd) and Debian's slurm-wlm (tools/install-deps --slurm); skips (77)
# without them.
# slow test: about 18 s (most of it waiting for the daemons)
set -eu
. tests/lib.sh
[ "$(id -u)" = 0 ] || { echo "skip: a local Slurm cluster needs root (slurmd)"; exit 77; }
if ! command -v slurmctld >/dev/null 2>&1; then
	tools/install-deps --slurm >/dev/null 2>&1 || true
	command -v slurmctld >/dev/null 2>&1 || { echo "skip: slurm-wlm is not installed and could not be installed"; exit 77; }
fi
"$SMCR_SIM" --version | grep -q '^mpi: yes' || { echo "skip: $SMCR_SIM was built without MPI"; exit 77; }
W=$(cd "$BUILD" && pwd)/t_sweep_slurm
rm -rf "$W"; mkdir -p "$W/state" "$W/spool" "$W/munge"
chmod 700 "$W/munge"
HOST=$(hostname -s)
PORT=$((20000 + $$ % 20000))
stop() { # the daemons this test started, by their pid files; wait until they are gone
	for f in "$W/slurmd.pid" "$W/slurmctld.pid" "$W/munge/munged.pid"; do
		[ -s "$f" ] || continue
		p=$(cat "$f")
		kill "$p" 2>/dev/null || continue
		n=0
		while kill -0 "$p" 2>/dev/null && [ $n -lt 20 ]; do sleep 0.5; n=$((n + 1)); done
		kill -9 "$p" 2>/dev/null || true
	done
}
trap stop EXIT
trap 'stop; exit 1' INT TERM

# munge: our own daemon and socket, the key Debian's package made
[ -r /etc/munge/munge.key ] || { echo "skip: no /etc/munge/munge.key"; exit 77; }
cp /etc/munge/munge.key "$W/munge/key"; chmod 600 "$W/munge/key"
munged --force --key-file="$W/munge/key" --socket="$W/munge/sock" --pid-file="$W/munge/munged.pid" \
	--seed-file="$W/munge/seed" --log-file="$W/munge/log" || fail "munged did not start: $(cat "$W/munge/log")"

cat >"$W/slurm.conf" <<CONF
ClusterName=smcrtest
SlurmctldHost=$HOST(127.0.0.1)
SlurmctldPort=$PORT
SlurmdPort=$((PORT + 1))
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$W/munge/sock
MpiDefault=pmix
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd.pid
SlurmctldLogFile=$W/slurmctld.log
SlurmdLogFile=$W/slurmd.log
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=test Nodes=$HOST Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF="$W/slurm.conf"
slurmctld -i || fail "slurmctld did not start: $(tail -5 "$W/slurmctld.log")"
slurmd || fail "slurmd did not start: $(tail -5 "$W/slurmd.log")"
i=0
until sinfo -h -o %T 2>/dev/null | grep -q idle; do
	i=$((i + 1)); [ $i -lt 30 ] || fail "the node did not come up: $(sinfo 2>&1; tail -5 "$W/slurmd.log")"
	sleep 1
done

AXES="--seeds 1..3 --set PATHS=1,2 --set FAILAT=3ms,20ms"
S=tests/data/sweep/redundant-pair.scn
set +e
"$SMCR_SIM" sweep $S $AXES -q --out "$W/one.jsonl" >"$W/one.sum"
SMCR_SIM=$SMCR_SIM SCENARIO=$S AXES="$AXES" OUT="$W/slurm.jsonl" \
	timeout 300 sbatch --wait --ntasks=3 --overcommit --chdir="$PWD" --output="$W/job-%j.out" docs/sweep.sbatch >"$W/sbatch.out" 2>&1
set -e
grep -q '^Submitted batch job' "$W/sbatch.out" || fail "sbatch: $(cat "$W/sbatch.out")"
job=$(cat "$W"/job-*.out)
cmp "$W/one.jsonl" "$W/slurm.jsonl" || fail "the Slurm job's results differ from one process: $job"
echo "$job" | grep -q '^engine: 3 MPI ranks' || fail "not 3 MPI ranks under srun: $job"
echo "$job" | grep -q '^sweep .*: 12 points' || fail "bad summary: $job"
# a resubmission finds every point done and runs none
rm -f "$W"/job-*.out
set +e
SMCR_SIM=$SMCR_SIM SCENARIO=$S AXES="$AXES" OUT="$W/slurm.jsonl" \
	timeout 300 sbatch --wait --ntasks=2 --chdir="$PWD" --output="$W/job-%j.out" docs/sweep.sbatch >"$W/sbatch2.out" 2>&1
set -e
job=$(cat "$W"/job-*.out)
echo "$job" | grep -q '0 points run now' || fail "the resubmitted job ran points again: $job"
cmp "$W/one.jsonl" "$W/slurm.jsonl" || fail "the resumed results changed"
echo "t_sweep_slurm: ok"
