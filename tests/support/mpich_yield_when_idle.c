/* Yield-when-idle for MPICH's tests on an oversubscribed machine (LD_PRELOAD).
 *
 * The test suite runs up to 5 ranks on 2 cores. OpenMPI's ranks give up the core while they wait
 * (OMPI_MCA_mpi_yield_when_idle=1); Debian's MPICH (device ch4:ucx) has no such setting: a waiting
 * rank spins through its whole time slice while the rank it waits for is descheduled. Measured on the
 * 2-core machine, 1000 MPI_Allreduce on 4 ranks: OpenMPI 0.015 s, MPICH 10.4 s, MPICH with this
 * shim 0.016 s. The tests also set MPIR_CVAR_CH4_GLOBAL_PROGRESS=1, without which non-blocking
 * collectives polled with MPI_Test and MPI_Comm_dup stay 30-100x slower than OpenMPI's (200
 * MPI_Comm_dup on 4 ranks: 0.84 s; with it 0.03 s, OpenMPI 0.03 s).
 *
 * MPICH drives UCX through ucp_worker_progress(), which returns how many events it handled. This
 * wrapper calls the real one and, when nothing happened, yields the core. It changes no result, only
 * who runs while a rank waits. With an MPICH that does not use UCX the symbol is never called and the
 * shim does nothing. Tests only: the library itself never loads it. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sched.h>
#include <stddef.h>

typedef struct ucp_worker* ucp_worker_h;
typedef unsigned (*progress_function)(ucp_worker_h);

unsigned ucp_worker_progress(ucp_worker_h worker) {
  static progress_function real_progress = NULL;
  if (real_progress == NULL) {
    real_progress = (progress_function)dlsym(RTLD_NEXT, "ucp_worker_progress");
    if (real_progress == NULL) return 0; /* no UCX underneath: nothing to progress */
  }
  const unsigned events = real_progress(worker);
  if (events == 0) sched_yield();
  return events;
}
