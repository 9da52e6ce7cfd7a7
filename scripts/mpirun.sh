#!/usr/bin/env bash
# Runs a program on K local MPI ranks with the settings tessera's tests use: root allowed (CI runs
# as root), oversubscription allowed (more ranks than the 2 cores here), ranks yield when idle.
# Usage: scripts/mpirun.sh K program [args...]
# (TESSERA_MPI picks the MPI: see the end.)
# TESSERA_MPI_TRANSPORT=tcp forces OpenMPI onto TCP between the ranks (--mca btl tcp,self, and
# --mca pml ob1 so that no other PML bypasses the BTLs), so that the network path is exercised
# rather than shared memory (bench/run_all.py's TCP pass); unset or "shm": OpenMPI's default
# (shared memory between local ranks).
# TESSERA_MPI_SINGLE_COPY=off turns OpenMPI's single-copy mechanism for large shared-memory
# messages (CMA) off, as the test suite does (docs/mpi.md says why); unset: OpenMPI's default, as
# users get it (benchmarks and the demo run so).
set -euo pipefail
ranks=$1; shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
case "${TESSERA_MPI_SINGLE_COPY:-default}" in
  default) ;;
  off) export OMPI_MCA_btl_vader_single_copy_mechanism=none ;;
  *) echo "mpirun.sh: unknown TESSERA_MPI_SINGLE_COPY '${TESSERA_MPI_SINGLE_COPY}' (off, or unset)" >&2; exit 2 ;;
esac
case "${TESSERA_MPI_TRANSPORT:-shm}" in
  shm) ;;
  tcp) export OMPI_MCA_btl=tcp,self OMPI_MCA_pml=ob1 ;;  # ob1: the PML that uses the BTLs
  *) echo "mpirun.sh: unknown TESSERA_MPI_TRANSPORT '${TESSERA_MPI_TRANSPORT}' (shm or tcp)" >&2; exit 2 ;;
esac
# TESSERA_MPI=mpich (set by `make ... MPI=mpich`) launches with MPICH's mpiexec, preloading the
# tests' yield-when-idle shim when TESSERA_MPICH_YIELD_SHIM names a built one (MPICH's ranks would
# otherwise spin on the 2 cores: tests/support/mpich_yield_when_idle.c); openmpi or unset: the
# system's mpiexec.
case "${TESSERA_MPI:-openmpi}" in
  openmpi) exec mpiexec -n "$ranks" "$@" ;;
  mpich)
    shim=()
    [[ -f "${TESSERA_MPICH_YIELD_SHIM:-}" ]] &&
      shim=(-genv LD_PRELOAD "$TESSERA_MPICH_YIELD_SHIM" -genv MPIR_CVAR_CH4_GLOBAL_PROGRESS 1)
    exec mpiexec.mpich "${shim[@]}" -n "$ranks" "$@" ;;
  *) echo "mpirun.sh: unknown TESSERA_MPI '${TESSERA_MPI}' (openmpi or mpich)" >&2; exit 2 ;;
esac
