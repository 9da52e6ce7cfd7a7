#!/usr/bin/env bash
# Runs a program on K local MPI ranks with the settings tessera's tests use: root allowed (CI runs
# as root), oversubscription allowed (more ranks than the 2 cores here), ranks yield when idle.
# Usage: scripts/mpirun.sh K program [args...]
set -euo pipefail
ranks=$1; shift
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_mpi_yield_when_idle=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
exec mpiexec -n "$ranks" "$@"
