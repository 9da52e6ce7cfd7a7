/* AMP Fig. 3/4 (Edjlali et al.): a transpose schedule reused across time steps, and remaps to a
 * different number of active processors in the middle of the run, in C against <tessera.h>.
 *
 * Three n x n arrays A, B and Temp share one domain (AMP's DAD), block x block. Every time step
 * moves Temp = B^T with a schedule built once (Compute_Transpose_Sched + Data_Move), then
 * A(i,j) = Temp(i,j) + A(i,j) over the local loop bounds (Local_Lower_Bound / Local_Upper_Bound),
 * then updates B from A locally ("more computation involving A & B"). At the remap points
 * (Fig. 4's Detection() / Remap()) the domain is redistributed over a new processor set: the upper
 * half of the processes in reverse order (physical numbers differ from logical ones), later all of
 * them again; the processes outside the set become skeletons that own nothing but still take part
 * in every collective call. A remap makes the old schedule stale (executing it reports
 * TESSERA_ERR_CALL_ORDER), so it is rebuilt with the loop bounds, as Fig. 4 does.
 *
 * Rank 0 gathers A at the end, runs the same steps serially and prints "AMP Fig. 3/4: the
 * remapped transpose run matches the serial run bit for bit" only if every element agrees. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera.h>

/* Stops every process when a call fails, naming the call and tessera's message. */
#define CHECK(call)                                                                                      \
  do {                                                                                                   \
    tessera_status status_ = (call);                                                                     \
    if (status_ != TESSERA_OK) {                                                                         \
      fprintf(stderr, "%s failed: %s: %s\n", #call, tessera_status_name(status_), tessera_last_error()); \
      MPI_Abort(MPI_COMM_WORLD, 1);                                                                      \
    }                                                                                                    \
  } while (0)

static double initial_a(int64_t i, int64_t j) { return (double)(i % 5) + 0.25 * (double)(j % 3); }
static double initial_b(int64_t i, int64_t j, int64_t n) { return (double)(i * n + j) / (double)(n * n); }
/* "More computation involving A & B". */
static double next_b(double b, double a) { return 0.5 * b + 1e-3 * a; }

/* The DAD: n x n, block x block over the processes `active` (count of them). */
static tessera_dist make_dad(int nprocs, const int* active, size_t count, int64_t n) {
  const int64_t extents[2] = {n, n};
  const tessera_box box = {{0, 0}, {n, n}};
  const tessera_dim_spec specs[2] = {{.kind = TESSERA_DIM_BLOCK}, {.kind = TESSERA_DIM_BLOCK}};
  tessera_grid grid;
  tessera_dist dad;
  CHECK(tessera_grid_over_ranks(2, nprocs, active, count, extents, NULL, &grid));
  CHECK(tessera_dist_create(grid, &box, specs, NULL, &dad));
  CHECK(tessera_grid_free(&grid));
  return dad;
}

/* This process' part of the three arrays (they share a distribution and have no ghosts, so one
   set of loop bounds and strides serves all three). */
typedef struct {
  int64_t lo[2], hi[2]; /* Local_Lower_Bound / Local_Upper_Bound, inclusive; empty when lo > hi */
  int64_t stride;
  double *a, *b, *temp;
} local_part;

static local_part loop_bounds(tessera_array A, tessera_array B, tessera_array Temp) {
  local_part part;
  size_t patches = 0;
  tessera_view va, vb, vt;
  memset(&part, 0, sizeof part);
  part.lo[0] = part.lo[1] = 0;
  part.hi[0] = part.hi[1] = -1;
  CHECK(tessera_array_patch_count(A, &patches));
  if (patches == 0) return part; /* a skeleton: owns nothing */
  CHECK(tessera_array_local(A, 0, TESSERA_DOUBLE, &va));
  CHECK(tessera_array_local(B, 0, TESSERA_DOUBLE, &vb));
  CHECK(tessera_array_local(Temp, 0, TESSERA_DOUBLE, &vt));
  for (int d = 0; d < 2; d++) {
    part.lo[d] = va.first[d];
    part.hi[d] = va.first[d] + va.count[d] - 1;
  }
  part.stride = va.strides[0];
  part.a = va.data;
  part.b = vb.data;
  part.temp = vt.data;
  return part;
}

#define LOCAL(part, p, i, j) (part).p[((i) - (part).lo[0]) * (part).stride + ((j) - (part).lo[1])]

int main(int argc, char** argv) {
  int64_t n = 40;
  int steps = 100, shrink_at = 40, grow_at = 70, nprocs, rank, schedules_built = 0, failed = 0;
  const int transpose[2] = {1, 0};
  tessera_comm world;
  tessera_dist dad;
  tessera_domain dom;
  tessera_array A, B, Temp;
  tessera_schedule sched;
  local_part part;
  int* active;
  size_t live = 0;

  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--n") == 0)
      n = atoll(argv[i + 1]);
    else if (strcmp(argv[i], "--steps") == 0)
      steps = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--shrink-at") == 0)
      shrink_at = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--grow-at") == 0)
      grow_at = atoi(argv[i + 1]);
  }
  if (n < 1 || n > 4096 || steps < 1) {
    fprintf(stderr, "usage: amp_transpose [--n N] [--steps S] [--shrink-at K] [--grow-at K]\n");
    return 2;
  }
  MPI_Init(&argc, &argv);
  CHECK(tessera_comm_create(MPI_COMM_WORLD, &world));
  CHECK(tessera_comm_size(world, &nprocs));
  CHECK(tessera_comm_rank(world, &rank));
  active = malloc((size_t)nprocs * sizeof *active);

  /* Compute initial DAD, Sched and loop bounds (Fig. 3). */
  for (int p = 0; p < nprocs; p++) active[p] = p;
  dad = make_dad(nprocs, active, (size_t)nprocs, n);
  CHECK(tessera_domain_create(world, dad, &dom));
  CHECK(tessera_dist_free(&dad));
  CHECK(tessera_array_create(dom, TESSERA_DOUBLE, NULL, &A));
  CHECK(tessera_array_create(dom, TESSERA_DOUBLE, NULL, &B));
  CHECK(tessera_array_create(dom, TESSERA_DOUBLE, NULL, &Temp));
  CHECK(tessera_schedule_transpose(B, Temp, transpose, &sched));
  schedules_built++;
  part = loop_bounds(A, B, Temp);
  for (int64_t i = part.lo[0]; i <= part.hi[0]; i++)
    for (int64_t j = part.lo[1]; j <= part.hi[1]; j++) {
      LOCAL(part, a, i, j) = initial_a(i, j);
      LOCAL(part, b, i, j) = initial_b(i, j, n);
    }

  for (int step = 1; step <= steps; step++) {
    if (step == shrink_at || step == grow_at) { /* If Detection() then Remap() */
      /* New_NProc = Get_No_of_Proc_and_Numb(): the upper half in reverse, or everybody again. */
      size_t count = 0;
      int changed = 0;
      tessera_dist old_dad, new_dad;
      if (step == shrink_at)
        for (int p = nprocs - 1; p >= nprocs / 2; p--) active[count++] = p;
      else
        for (int p = 0; p < nprocs; p++) active[count++] = p;
      new_dad = make_dad(nprocs, active, count, n); /* New_D = Create_DAD(New_NProc) */
      CHECK(tessera_domain_distribution(dom, &old_dad));
      CHECK(tessera_dist_equal(old_dad, new_dad, &changed));
      changed = !changed;
      /* Redistribute_Data(A), (B), (Temp): one call moves every array of the domain. */
      CHECK(tessera_domain_redistribute(dom, new_dad, TESSERA_PRESERVE));
      if (changed && tessera_schedule_execute(sched, B, Temp) != TESSERA_ERR_CALL_ORDER) {
        if (rank == 0) printf("step %d: the schedule of the old DAD was not reported stale\n", step);
        failed = 1;
      }
      CHECK(tessera_schedule_free(&sched));
      CHECK(tessera_schedule_transpose(B, Temp, transpose, &sched)); /* Sched = Compute_Transp_Sched(D) */
      schedules_built++;
      part = loop_bounds(A, B, Temp); /* Lo_Bnd / Up_Bnd = Local_Lower/Upper_Bound(D, ...) */
      if (rank == 0) printf("step %3d: remapped onto %zu of %d processes\n", step, count, nprocs);
      CHECK(tessera_dist_free(&old_dad));
      CHECK(tessera_dist_free(&new_dad));
    }
    CHECK(tessera_schedule_execute(sched, B, Temp)); /* Data_Move(B, Temp, Sched) */
    for (int64_t i = part.lo[0]; i <= part.hi[0]; i++)
      for (int64_t j = part.lo[1]; j <= part.hi[1]; j++)
        LOCAL(part, a, i, j) = LOCAL(part, temp, i, j) + LOCAL(part, a, i, j);
    for (int64_t i = part.lo[0]; i <= part.hi[0]; i++)
      for (int64_t j = part.lo[1]; j <= part.hi[1]; j++)
        LOCAL(part, b, i, j) = next_b(LOCAL(part, b, i, j), LOCAL(part, a, i, j));
  }

  /* The check: A gathered on rank 0 against the same steps run serially. */
  {
    double* gathered = rank == 0 ? malloc((size_t)(n * n) * sizeof *gathered) : NULL;
    CHECK(tessera_array_gather_to(A, 0, TESSERA_DOUBLE, gathered, rank == 0 ? n * n : 0));
    if (rank == 0) {
      double* a = malloc((size_t)(n * n) * sizeof *a);
      double* b = malloc((size_t)(n * n) * sizeof *b);
      double* temp = malloc((size_t)(n * n) * sizeof *temp);
      long long mismatches = 0;
      for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) a[i * n + j] = initial_a(i, j), b[i * n + j] = initial_b(i, j, n);
      for (int step = 1; step <= steps; step++) {
        for (int64_t i = 0; i < n; i++)
          for (int64_t j = 0; j < n; j++) temp[i * n + j] = b[j * n + i];
        for (int64_t k = 0; k < n * n; k++) a[k] = temp[k] + a[k];
        for (int64_t k = 0; k < n * n; k++) b[k] = next_b(b[k], a[k]);
      }
      for (int64_t k = 0; k < n * n; k++) mismatches += memcmp(&a[k], &gathered[k], sizeof(double)) != 0;
      printf("%d processes, %lld x %lld, %d steps, %d transpose schedules built\n", nprocs, (long long)n, (long long)n,
             steps, schedules_built);
      if (mismatches == 0 && !failed)
        printf("AMP Fig. 3/4: the remapped transpose run matches the serial run bit for bit\n");
      else
        printf("MISMATCH: %lld elements differ from the serial run\n", mismatches), failed = 1;
      free(a), free(b), free(temp);
    }
    free(gathered);
  }
  MPI_Bcast(&failed, 1, MPI_INT, 0, MPI_COMM_WORLD);
  CHECK(tessera_schedule_free(&sched));
  CHECK(tessera_array_free(&Temp));
  CHECK(tessera_array_free(&B));
  CHECK(tessera_array_free(&A));
  CHECK(tessera_domain_free(&dom));
  CHECK(tessera_comm_free(&world));
  CHECK(tessera_live_handles(&live));
  if (live != 0) fprintf(stderr, "%zu tessera handles were not freed\n", live), failed = 1;
  free(active);
  MPI_Finalize();
  return failed;
}
