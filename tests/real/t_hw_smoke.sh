# Smoke test on a real RDMA device: one QEMU VM (Debian's kernel, Soft-RoCE rxe0) runs
# verbs_selftest loop with 8 MiB (SENDs, RDMA WRITE verified, error mapping, port events)
# and scenarios/two-stacks.scn with --real-hw on rxe0. About 15 s under TCG. Skips (exit 77) with the reason when the VM's Debian packages are
# missing and cannot be installed here, or SMCR_HW_SMOKE=0. The full run: make check-hw.
# slow test: about 12 s (a VM under TCG)
set -u
if [ "${SMCR_HW_SMOKE:-1}" = 0 ]; then
	echo "SKIP: SMCR_HW_SMOKE=0"
	exit 77
fi
if ! deps=$(tools/install-deps --hw 2>&1); then
	echo "$deps"
	echo "SKIP: the real-hardware VM needs Debian packages that cannot be installed here (see above)"
	exit 77
fi
rxe-setup/check-hw.sh "$BUILD" --smoke
rc=$?
[ $rc -eq 77 ] && echo "SKIP: the real-hardware VM cannot run here (reason above)"
exit $rc
