/* Both C headers compiled as strict C11 (-std=c11 -Wall -Wextra -pedantic -Werror) and used from C:
 * an array's life (create, fill, ghost update, reduce, gather, free), a use after free, and a
 * D3-ARC program in miniature. Prints "C API smoke test passed" on rank 0 if every check holds;
 * run on 1 and 2 ranks, and under valgrind. */
#include <stdio.h>
#include <string.h>
#include <tessera.h>
#include <tessera/d3arc.h>

static int failures = 0;

#define EXPECT(condition)                                                                                      \
  do {                                                                                                         \
    if (!(condition)) {                                                                                        \
      fprintf(stderr, "%s:%d: %s does not hold (%s)\n", __FILE__, __LINE__, #condition, tessera_last_error()); \
      failures++;                                                                                              \
    }                                                                                                          \
  } while (0)

static void tessera_api(int nprocs) {
  const int64_t extents[2] = {6, 5};
  const tessera_box box = {{0, 0}, {6, 5}};
  const tessera_dim_spec specs[2] = {{.kind = TESSERA_DIM_BLOCK}, {.kind = TESSERA_DIM_CYCLIC, .logical_block = 2}};
  const double one = 1.0;
  double sum = 0, whole[30];
  tessera_comm world = NULL;
  tessera_grid grid = NULL;
  tessera_dist dist = NULL;
  tessera_domain dom = NULL;
  tessera_array a = NULL, stale = NULL;
  tessera_ghosts halo = {.lower = {1, 0}, .upper = {1, 0}};

  EXPECT(tessera_comm_create(MPI_COMM_WORLD, &world) == TESSERA_OK);
  EXPECT(tessera_grid_automatic(2, nprocs, extents, NULL, &grid) == TESSERA_OK);
  EXPECT(tessera_dist_create(grid, &box, specs, NULL, &dist) == TESSERA_OK);
  EXPECT(tessera_domain_create(world, dist, &dom) == TESSERA_OK);
  EXPECT(tessera_array_create(dom, TESSERA_DOUBLE, &halo, &a) == TESSERA_OK);
  EXPECT(tessera_array_fill(a, TESSERA_DOUBLE, &one) == TESSERA_OK);
  EXPECT(tessera_array_update_ghosts(a) == TESSERA_OK);
  EXPECT(tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_DOUBLE, &sum) == TESSERA_OK && sum == 30.0);
  EXPECT(tessera_array_gather_to_all(a, TESSERA_DOUBLE, whole, 30) == TESSERA_OK && whole[29] == 1.0);
  EXPECT(tessera_array_reduce(a, TESSERA_OP_ADD, TESSERA_FLOAT, &sum) == TESSERA_ERR_WRONG_TYPE);
  stale = a;
  EXPECT(tessera_array_free(&a) == TESSERA_OK && a == NULL);
  EXPECT(tessera_array_fill(stale, TESSERA_DOUBLE, &one) == TESSERA_ERR_FREED_HANDLE);
  EXPECT(strstr(tessera_last_error(), "freed") != NULL);
  EXPECT(tessera_domain_free(&dom) == TESSERA_OK);
  EXPECT(tessera_dist_free(&dist) == TESSERA_OK);
  EXPECT(tessera_grid_free(&grid) == TESSERA_OK);
  EXPECT(tessera_comm_free(&world) == TESSERA_OK);
}

static void d3arc_api(int nprocs, int rank) {
  int w[2] = {8, 4}, b[2] = {1, 1}, v[4] = {1, 1, 0, 0}, len = nprocs, d, nb = -1, handle;
  dist_t t[2] = {D_GENERAL, D_NONE};
  vp_t vt[4] = {VP_REL, VP_REL, VP_REL, VP_REL};
  real times[64], *weights;
  double* whole;
  double* region;
  int* bp;

  EXPECT(d3_init(NULL, NULL) == 0);
  d = d3_darray("u", 2, w, D3_DOUBLE, b);
  EXPECT(d >= 0);
  EXPECT(d3_dist(d, G_DEFAULT, t, NULL, NULL) == 0);
  EXPECT(d3_viewport(d, vt, v) == 0);
  whole = rank == 0 ? d3_map_DA(d, NULL) : NULL;
  if (rank == 0) {
    int k;
    EXPECT(whole != NULL);
    for (k = 0; k < 32; k++) whole[k] = k;
  }
  EXPECT(d3_effect_dist(d) >= 0.0);
  EXPECT(d3_map_DA(d, NULL) == NULL); /* the order the paper forbids */
  EXPECT(strstr(d3_last_error(), "wrong call order") != NULL);
  region = d3_map_OR(d, 0, NULL);
  bp = d3_get_OR_bounds(d, 0);
  EXPECT(region != NULL && bp != NULL);
  if (region && bp) EXPECT(region[(bp[0] - bp[4]) * 4] == bp[0] * 4.0);
  EXPECT(d3_update_OR(d, 0) == 0);
  EXPECT(d3_collectall(1.0 + rank, times, &len) == 0 && len == nprocs);
  weights = d3_norm(times, len, 1, 1.5);
  EXPECT(weights == times);
  handle = d3_new_dist(d, weights, 1.0, &nb);
  EXPECT(handle >= 0 && nb >= 0);
  EXPECT(d3_migrate(d, handle) >= 0.0);
  EXPECT(d3_finalize() == 0);
}

int main(int argc, char** argv) {
  int nprocs = 1, rank = 0, all_failures = 0;
  size_t live = 1;
  MPI_Init(&argc, &argv);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  tessera_api(nprocs);
  if (nprocs <= 64) d3arc_api(nprocs, rank);
  EXPECT(tessera_live_handles(&live) == TESSERA_OK && live == 0);
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all_failures == 0 ? "C API smoke test passed\n" : "C API smoke test FAILED\n");
  MPI_Finalize();
  return all_failures != 0;
}
