#!/usr/bin/env bash
# The layering rule of docs/architecture.md: the exchange layer is the only one that calls MPI
# (the io layer also keeps HDF5's own MPI-IO). Every other layer communicates through
# tessera::Communicator. This fails, listing file:line, when a call of an MPI function (MPI_ + name + "(") appears in the
# code (not the comments or string literals) of the layers below. Types and constants
# (MPI_Comm, MPI_COMM_WORLD) are fine: they are not calls.
# Usage: scripts/check_mpi_layers.sh [repository root]   (ctest: layers.no_mpi_outside_exchange)
#        scripts/check_mpi_layers.sh --files FILE...     (just these files: the check's own test)
set -euo pipefail

checked=(
  include/tessera/array include/tessera/balance include/tessera/layout include/tessera/plan
  include/tessera/geometry include/tessera/core include/tessera/spec include/tessera/scalapack
  src/layout src/plan src/spec src/capi
  include/tessera.h include/tessera/d3arc.h
)

files=()
if [[ ${1:-} == --files ]]; then
  shift
  files=("$@")
  checked=()
else
  root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
  cd "$root"
fi
for path in "${checked[@]}"; do
  # A renamed or moved folder must not switch the check off quietly.
  [[ -e $path ]] || { echo "check_mpi_layers: $root/$path does not exist; update the list" >&2; exit 2; }
  while IFS= read -r file; do files+=("$file"); done < <(find "$path" -type f \( -name '*.hpp' -o -name '*.h' -o -name '*.cpp' -o -name '*.c' \) | sort)
done

# Per line: drop string literals, then /* */ comments (across lines), then // comments; report
# what is left if it calls MPI.
violations=$(awk '
  FNR == 1 { in_block = 0 }
  {
    line = $0
    gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
    if (in_block) {
      end = index(line, "*/")
      if (end == 0) next
      line = substr(line, end + 2)
      in_block = 0
    }
    while ((start = index(line, "/*")) > 0) {
      rest = substr(line, start + 2)
      end = index(rest, "*/")
      if (end == 0) { line = substr(line, 1, start - 1); in_block = 1; break }
      line = substr(line, 1, start - 1) " " substr(rest, end + 2)
    }
    sub(/\/\/.*/, "", line)
    if (line ~ /(^|[^A-Za-z0-9_])MPI_[A-Z][A-Za-z_]*[ \t]*\(/) printf "%s:%d: %s\n", FILENAME, FNR, $0
  }
' "${files[@]}")

if [[ -n $violations ]]; then
  echo "MPI calls outside the exchange layer (use tessera::Communicator, include/tessera/exchange/communicator.hpp):"
  echo "$violations"
  exit 1
fi
echo "no MPI calls outside the exchange layer (${#files[@]} files checked)"
