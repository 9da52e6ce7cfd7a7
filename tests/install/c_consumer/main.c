/* Built by a C-only CMake project (and, separately, with mpicc and pkg-config's tessera-c) against
 * the installed tessera: a 12 x 12 array of i*j in blocks with one ghost layer, a ghost update
 * checked against the values it must bring, a redistribution to uneven row cuts, a gather compared
 * with the serial array and a sum. Prints "c consumer: K ranks, sum 4356, ok" on rank 0 when every
 * rank's checks hold, and exits non-zero on every rank otherwise. */
#include <stdio.h>
#include <stdlib.h>
#include <tessera.h>

#define N 12

static int failures = 0;
#define EXPECT(condition)                                                                                  \
  do {                                                                                                     \
    if (!(condition)) {                                                                                    \
      fprintf(stderr, "%s:%d: %s does not hold (%s)\n", __FILE__, __LINE__, #condition, tessera_last_error()); \
      failures++;                                                                                          \
    }                                                                                                      \
  } while (0)

/* Sets every owned element (i, j) to i * j through the rank's view. */
static void fill(tessera_array u) {
  size_t patches = 0;
  tessera_view v;
  int64_t i, j;
  EXPECT(tessera_array_patch_count(u, &patches) == TESSERA_OK);
  if (patches == 0) return;
  EXPECT(tessera_array_local(u, 0, TESSERA_DOUBLE, &v) == TESSERA_OK);
  for (i = 0; i < v.count[0]; i++)
    for (j = 0; j < v.count[1]; j++)
      ((double*)v.data)[(v.ghost_lo[0] + i) * v.strides[0] + (v.ghost_lo[1] + j) * v.strides[1]] =
          (double)((v.first[0] + i) * (v.first[1] + j));
}

/* After a ghost update every stored element, ghosts included, holds i * j. */
static void check_stored(tessera_array u) {
  size_t patches = 0;
  tessera_view v;
  int64_t i, j;
  EXPECT(tessera_array_patch_count(u, &patches) == TESSERA_OK);
  if (patches == 0) return;
  EXPECT(tessera_array_local(u, 0, TESSERA_DOUBLE, &v) == TESSERA_OK);
  for (i = 0; i < v.extents[0]; i++)
    for (j = 0; j < v.extents[1]; j++) {
      const int64_t gi = v.first[0] + i - v.ghost_lo[0], gj = v.first[1] + j - v.ghost_lo[1];
      if (gi < 0 || gi >= N || gj < 0 || gj >= N) continue; /* outside the domain: no ghost there */
      EXPECT(((double*)v.data)[i * v.strides[0] + j * v.strides[1]] == (double)(gi * gj));
    }
}

int main(int argc, char** argv) {
  int rank, nprocs, all_failures = 0, c;
  const int64_t extents[2] = {N, N};
  const tessera_box box = {{0, 0}, {N, N}};
  const tessera_dim_spec blocks[2] = {{.kind = TESSERA_DIM_BLOCK}, {.kind = TESSERA_DIM_BLOCK}};
  int64_t grid_shape[2], *rows;
  tessera_dim_spec cuts[2] = {{.kind = TESSERA_DIM_CUT}, {.kind = TESSERA_DIM_BLOCK}};
  tessera_comm world = NULL;
  tessera_grid grid = NULL;
  tessera_dist dist = NULL, uneven = NULL;
  tessera_domain dom = NULL;
  tessera_array u = NULL;
  tessera_ghosts halo;
  double sum = 0, whole[N * N];
  size_t live = 1;

  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  EXPECT(tessera_comm_create(MPI_COMM_WORLD, &world) == TESSERA_OK);
  EXPECT(tessera_grid_automatic(2, nprocs, extents, NULL, &grid) == TESSERA_OK);
  EXPECT(tessera_dist_create(grid, &box, blocks, NULL, &dist) == TESSERA_OK);
  EXPECT(tessera_domain_create(world, dist, &dom) == TESSERA_OK);
  EXPECT(tessera_ghosts_uniform(2, 1, &halo) == TESSERA_OK);
  EXPECT(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &u) == TESSERA_OK);
  fill(u);
  EXPECT(tessera_array_update_ghosts(u) == TESSERA_OK);
  check_stored(u);
  EXPECT(tessera_array_reduce(u, TESSERA_OP_ADD, TESSERA_DOUBLE, &sum) == TESSERA_OK);
  EXPECT(sum == 66.0 * 66.0);

  /* Rows cut unevenly: the first grid row gets a third of the rows. */
  EXPECT(tessera_grid_shape(grid, grid_shape) == TESSERA_OK);
  rows = malloc((size_t)(grid_shape[0] + 1) * sizeof *rows);
  rows[0] = 0;
  for (c = 1; c < grid_shape[0]; c++) rows[c] = N / 3 + (c - 1) * (N - N / 3) / (grid_shape[0] - 1);
  rows[grid_shape[0]] = N;
  cuts[0].boundaries = rows;
  cuts[0].boundary_count = (size_t)grid_shape[0] + 1;
  EXPECT(tessera_dist_create(grid, &box, cuts, NULL, &uneven) == TESSERA_OK);
  EXPECT(tessera_domain_redistribute(dom, uneven, TESSERA_PRESERVE) == TESSERA_OK);
  EXPECT(tessera_array_update_ghosts(u) == TESSERA_OK);
  check_stored(u);
  EXPECT(tessera_array_gather_to(u, 0, TESSERA_DOUBLE, whole, N * N) == TESSERA_OK);
  if (rank == 0)
    for (c = 0; c < N * N; c++) EXPECT(whole[c] == (double)((c / N) * (c % N)));

  EXPECT(tessera_array_free(&u) == TESSERA_OK);
  EXPECT(tessera_domain_free(&dom) == TESSERA_OK);
  EXPECT(tessera_dist_free(&dist) == TESSERA_OK);
  EXPECT(tessera_dist_free(&uneven) == TESSERA_OK);
  EXPECT(tessera_grid_free(&grid) == TESSERA_OK);
  EXPECT(tessera_comm_free(&world) == TESSERA_OK);
  EXPECT(tessera_live_handles(&live) == TESSERA_OK && live == 0);
  free(rows);

  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("c consumer: %d ranks, sum %.0f, %s\n", nprocs, sum, all_failures == 0 ? "ok" : "WRONG");
  MPI_Finalize();
  return all_failures == 0 ? 0 : 1;
}
