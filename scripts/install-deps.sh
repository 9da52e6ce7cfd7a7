#!/usr/bin/env bash
# Installs the Debian packages tessera needs that are not installed yet; does nothing when all are.
# Usage: scripts/install-deps.sh [core|bench|fuzz|docs|all]   (default: core = build, test and demo)
set -euo pipefail

core=(build-essential cmake make pkg-config python3 valgrind
      openmpi-bin libopenmpi-dev
      libgtest-dev libgmock-dev libbenchmark-dev libfmt-dev libcli11-dev libfftw3-dev
      libhdf5-openmpi-dev
      librsvg2-bin   # rsvg-convert: the tests render the SVG pictures to PNG and check them
      # MPICH beside OpenMPI (make test MPI=mpich; CI runs the sanitizer suite on it), with its HDF5
      mpich libmpich-dev libhdf5-mpich-dev
      # ScaLAPACK for each MPI (docs/scalapack.md: its tests run in make test)
      libscalapack-openmpi-dev libscalapack-mpich-dev
      # Python module (pybind11, NumPy, mpi4py, pytest for Debian's /usr/bin/python3) and Fortran
      pybind11-dev python3-pybind11 python3-numpy python3-mpi4py python3-pytest gfortran)
bench=(petsc-dev libglobalarrays-dev libarmci-mpi-dev libfftw3-mpi-dev)
# make fuzz: clang and its libFuzzer runtime (libclang_rt.fuzzer), which clang alone does not pull in.
fuzz=(clang libclang-rt-14-dev)
# make docs: the API reference.
docs=(doxygen)

case "${1:-core}" in
  core) wanted=("${core[@]}") ;;
  bench) wanted=("${core[@]}" "${bench[@]}") ;;
  fuzz) wanted=("${core[@]}" "${fuzz[@]}") ;;
  docs) wanted=("${docs[@]}") ;;
  all) wanted=("${core[@]}" "${bench[@]}" "${fuzz[@]}" "${docs[@]}") ;;
  *) echo "install-deps: unknown package set '$1' (core, bench, fuzz, docs or all)" >&2; exit 2 ;;
esac

missing=()
for pkg in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$pkg")
done
((${#missing[@]} == 0)) && exit 0

echo "install-deps: installing ${missing[*]}"
run_as_root=()
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  run_as_root=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${run_as_root[@]}" apt-get update -qq
"${run_as_root[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
