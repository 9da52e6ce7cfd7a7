# The two commands of the README, plus the benchmark suite. Each target installs the Debian packages
# that are missing (scripts/install-deps.sh does nothing when all are there), configures, builds
# and runs. PRESET picks the CMake preset: release (default), debug or asan.
PRESET ?= release
BUILD  := build/$(PRESET)
JOBS   ?= $(shell nproc)
RANKS  ?= 4

.PHONY: all deps build test demo bench check-asan clean

all: build

deps:
	@scripts/install-deps.sh core

$(BUILD)/CMakeCache.txt: | deps
	cmake --preset $(PRESET)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build --preset $(PRESET) -j $(JOBS)

## make test: the whole suite (unit tests, MPI tests on 1-4 ranks, packaging test)
test: build
	ctest --preset $(PRESET)

## make demo: the main demonstration on $(RANKS) local MPI ranks
demo: build
	scripts/mpirun.sh $(RANKS) $(BUILD)/examples/kelp_jacobi

## make bench: benchmarks, written to bench-results/latest.json and a markdown table. The anchors'
## packages (PETSc, Global Arrays, ScaLAPACK, FFTW-MPI) are installed here only, then the build is
## reconfigured so that the drivers that use them are built.
bench: deps
	@scripts/install-deps.sh bench
	cmake --preset $(PRESET)
	cmake --build --preset $(PRESET) -j $(JOBS)
	python3 bench/run_all.py --build $(BUILD) --out bench-results

## make check-asan: the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer
check-asan:
	$(MAKE) test PRESET=asan

clean:
	rm -rf build
