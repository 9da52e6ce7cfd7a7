# The two commands of the README, plus the benchmark suite. Each target installs the Debian packages
# that are missing (scripts/install-deps.sh does nothing when all are there), configures, builds
# and runs. PRESET picks the CMake preset: release (default), debug or asan. MPI picks the MPI:
# openmpi (default) or mpich; MPICH builds use the presets <PRESET>-mpich, in build/<PRESET>-mpich
# (e.g. `make test MPI=mpich`, `make check-asan MPI=mpich`).
PRESET ?= release
MPI    ?= openmpi
ifeq ($(MPI),openmpi)
  CONFIG := $(PRESET)
else ifeq ($(MPI),mpich)
  CONFIG := $(PRESET)-mpich
else
  $(error MPI=$(MPI): choose openmpi or mpich)
endif
BUILD  := build/$(CONFIG)
# scripts/mpirun.sh launches with the chosen MPI's mpiexec; under MPICH, ranks yield when idle
# through the tests' preloaded shim (tests/support/mpich_yield_when_idle.c) once it is built.
export TESSERA_MPI := $(MPI)
export TESSERA_MPICH_YIELD_SHIM := $(CURDIR)/$(BUILD)/tests/support/libtessera_mpich_yield_when_idle.so
JOBS   ?= $(shell nproc)
RANKS  ?= 4

.PHONY: all deps build test demo bench experiments check-asan fuzz docs clean soak

all: build

deps:
	@scripts/install-deps.sh core

$(BUILD)/CMakeCache.txt: | deps
	cmake --preset $(CONFIG)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build --preset $(CONFIG) -j $(JOBS)

## make test: the whole suite (unit tests, MPI tests on 1-4 ranks, packaging test)
test: build
	ctest --preset $(CONFIG)

## make demo: the adaptive SOR solver under emulated load on $(RANKS) local MPI ranks, once per
## balancing policy (examples/adaptive_sor); writes demo-results/summary.json, iterations.csv and
## balance.svg. DEMO_ARGS passes options (e.g. DEMO_ARGS="--n 2048 --policies none horizon").
DEMO_ARGS ?=
demo: build
	scripts/mpirun.sh $(RANKS) $(BUILD)/examples/adaptive_sor --out demo-results $(DEMO_ARGS)

## make bench: benchmarks, written to bench-results/latest.json and a markdown table. The anchors'
## packages (PETSc, Global Arrays, ScaLAPACK, FFTW-MPI) are installed here only, then the build is
## reconfigured so that the drivers that use them are built.
bench: deps
	@scripts/install-deps.sh bench
	cmake --preset $(CONFIG)
	cmake --build --preset $(CONFIG) -j $(JOBS) --target all tessera_benchmarks
	python3 bench/run_all.py --build $(BUILD) --out bench-results

## make experiments: the seed papers' figures and tables redone on tessera (experiments/run_all.py):
## builds only the programs they run, writes experiments-results/<name>.json (bench records, machine
## facts, or the verification failure and no times) and regenerates docs/experiments.md with its
## plots (docs/experiments/*.svg). ONLY picks experiments (`make experiments ONLY="d3arc_fig8
## amp_remap"`; `experiments/run_all.py --list` names them), QUICK=1 the smoke sizes,
## EXPERIMENTS_ARGS passes more options (e.g. --repeats 5). The anchors' packages (FFTW-MPI for NAS FT)
## are installed as for `make bench`, then the build is reconfigured so that their drivers are built.
ONLY  ?=
QUICK ?=
EXPERIMENTS_ARGS ?=
experiments: deps
	@scripts/install-deps.sh bench
	cmake --preset $(CONFIG)
	cmake --build --preset $(CONFIG) -j $(JOBS) --target adaptive_sor amp_remap tessera_cli \
	  redblack3d summa kelp_redblack_mpi kelp_summa_anchors nas_mg_tessera nas_mg_mpi nas_ft_tessera nas_ft_fftw_mpi \
	  zpl_zoom zpl_fft zpl_samplesort zpl_homogeneity zpl_zoom_mpi zpl_fft_mpi zpl_samplesort_mpi zpl_homogeneity_mpi
	python3 experiments/run_all.py --build $(BUILD) $(foreach e,$(ONLY),--only $(e)) $(if $(QUICK),--quick) $(EXPERIMENTS_ARGS)

## make soak: the long randomised soak test (tests/soak/soak.cpp): SOAK_OPS random operations on
## each rank count of SOAK_RANKS (seed SOAK_SEED + ranks), every one checked against a serial
## shadow; checked mode on (SOAK_CHECKED=0 turns it off). Each run ends with the line
## "soak: N operations, M elements checked, K mismatches" and fails if K > 0 or anything threw.
## `make test` runs short versions (soak.short.np*).
## Then SOAK_RESTARTS crash-restart runs (tests/checkpoint_restart/crash_restart.cmake): the SOR
## solver killed (SIGKILL) at a random iteration on 2-4 ranks, its newest checkpoint damaged at
## random, restarted on another rank count; each must end bit-identical to an uninterrupted run.
## SOAK_RESTART_SEED fixes the draws (default: the time, printed).
SOAK_RESTARTS ?= 10
SOAK_RESTART_SEED ?=
SOAK_OPS     ?= 50000
SOAK_RANKS   ?= 1 2 3 4 5 6
SOAK_SEED    ?= 1
SOAK_CHECKED ?= 1
soak: build
	@for n in $(SOAK_RANKS); do \
	  echo "soak: $$n ranks"; \
	  TESSERA_CHECKED=$(SOAK_CHECKED) timeout 600 scripts/mpirun.sh $$n $(BUILD)/tests/soak/tessera_soak \
	    --ops $(SOAK_OPS) --seed $$(( $(SOAK_SEED) + $$n )) || exit 1; \
	done
	cmake -DMPIEXEC=$(CURDIR)/scripts/mpirun.sh -DNPFLAG= -DEXE=$(CURDIR)/$(BUILD)/tests/tessera_sor_restart \
	  -DWORK_DIR=$(CURDIR)/$(BUILD)/soak-restart -DRUNS=$(SOAK_RESTARTS) -DSEED=$(SOAK_RESTART_SEED) \
	  -P tests/checkpoint_restart/crash_restart.cmake

## make check-asan: the whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (built at
## -O1 -g1: the sanitizers make -O2 -g compile 2.3x slower for the same findings).
check-asan:
	$(MAKE) test PRESET=asan MPI=$(MPI)

## make fuzz: the libFuzzer targets (preset fuzz: clang, ASan + UBSan) for FUZZ_SECONDS each, from
## the seeds in fuzz/corpus/<target>; new inputs go to build/fuzz/corpus/<target>, findings (the
## inputs that crash) to build/fuzz/findings/<target>-*. Copy the interesting ones into
## fuzz/corpus/<target>: `make test` replays that folder. The targets (FUZZ_TARGETS):
##   spec  the spec text format (parse, print, parse again, map onto distributions);
##   capi  sequences of C API calls on one rank (valid, freed, NULL and wrong-kind handles, bad
##         sizes, enums and call orders): never a crash, always a status and a message.
## One target: make fuzz FUZZ_TARGETS=capi FUZZ_SECONDS=600.
## LeakSanitizer is off for capi: it reports Open MPI's own allocations under MPI_Init at exit (capi
## checks instead that every handle is freed after each input).
FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= spec capi
fuzz:
	@scripts/install-deps.sh fuzz
	cmake --preset fuzz
	cmake --build --preset fuzz -j $(JOBS)
	mkdir -p build/fuzz/findings
	for t in $(FUZZ_TARGETS); do \
	  mkdir -p build/fuzz/corpus/$$t && \
	  env $$(test $$t = capi && echo ASAN_OPTIONS=detect_leaks=0) build/fuzz/fuzz/tessera_fuzz_$$t -timeout=10 -max_total_time=$(FUZZ_SECONDS) -print_final_stats=1 \
	    $$(test -f fuzz/$$t.dict && echo -dict=fuzz/$$t.dict) -artifact_prefix=build/fuzz/findings/$$t- \
	    build/fuzz/corpus/$$t fuzz/corpus/$$t || exit 1; \
	done

## make docs: the API reference of the public headers (Doxygen), in build/docs/html/index.html.
## Doxygen's warnings about the comments go to build/docs/warnings.log.
docs:
	@scripts/install-deps.sh docs
	mkdir -p build/docs
	doxygen docs/Doxyfile
	@echo "API reference: build/docs/html/index.html ($$(wc -l < build/docs/warnings.log) warnings in build/docs/warnings.log)"

clean:
	rm -rf build
