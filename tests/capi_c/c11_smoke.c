/* Both C headers compiled as strict C11 (-std=c11 -Wall -Wextra -pedantic -Werror) and used from C:
 * an array's life (create, fill, ghost update, reduce, gather, free), a use after free, a
 * multiblock ring of two blocks glued by a turned interface, and a D3-ARC program in miniature. Prints "C API smoke test passed" on rank 0 if every check holds;
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

/* Two 4 x 4 blocks: block 0's upper face of axis 0 glued to block 1's upper face of axis 1 (block 0's
 * axis 1 runs along block 1's axis 0; both faces upper, so the normal flips). Block 0's ghost (4, j)
 * is then block 1's cell (j, 3). */
static void multiblock_api(int nprocs, int rank) {
  const tessera_box box = {{0, 0}, {4, 4}};
  const tessera_dim_spec specs[2] = {{.kind = TESSERA_DIM_BLOCK}, {.kind = TESSERA_DIM_BLOCK}};
  const int64_t shape[2] = {nprocs, 1};
  const tessera_block_interface turn = {
      .a = {.block = 0, .axis = 0, .upper = 1}, .b = {.block = 1, .axis = 1, .upper = 1}, .perm = {1, 0}, .flip = {1, 0}};
  const tessera_ghosts halo = {.lower = {1, 1}, .upper = {1, 1}, .faces_only = 1};
  tessera_comm world = NULL;
  tessera_grid grid = NULL;
  tessera_dist blocks[2] = {NULL, NULL};
  tessera_multiblock mb = NULL;
  tessera_multiblock_array u = NULL;
  double block1[16], sum = 0;
  size_t patches = 0, block = 0;

  EXPECT(tessera_comm_create(MPI_COMM_WORLD, &world) == TESSERA_OK);
  EXPECT(tessera_grid_create(2, nprocs, shape, &grid) == TESSERA_OK);
  EXPECT(tessera_dist_create(grid, &box, specs, NULL, &blocks[0]) == TESSERA_OK);
  EXPECT(tessera_dist_create(grid, &box, specs, NULL, &blocks[1]) == TESSERA_OK);
  EXPECT(tessera_multiblock_create(world, blocks, 2, &turn, 1, 1, &mb) == TESSERA_OK);
  EXPECT(tessera_multiblock_array_create(mb, TESSERA_DOUBLE, &halo, &u) == TESSERA_OK);
  EXPECT(tessera_multiblock_array_patch_count(u, &patches) == TESSERA_OK);
  for (size_t k = 0; k < patches; ++k) { /* cell (i, j) of block b holds 100 b + 10 i + j */
    tessera_view v;
    EXPECT(tessera_multiblock_array_local(u, k, TESSERA_DOUBLE, &block, &v) == TESSERA_OK);
    for (int64_t i = 0; i < v.count[0]; ++i)
      for (int64_t j = 0; j < v.count[1]; ++j)
        ((double*)v.data)[(v.ghost_lo[0] + i) * v.strides[0] + (v.ghost_lo[1] + j) * v.strides[1]] =
            100.0 * (double)block + 10.0 * (double)(v.first[0] + i) + (double)(v.first[1] + j);
  }
  EXPECT(tessera_multiblock_array_update_ghosts(u) == TESSERA_OK);
  if (rank == nprocs - 1) { /* it owns block 0's row 3: its ghosts (4, j) come from block 1 */
    for (int64_t j = 0; j < 4; ++j) {
      const int64_t ghost[2] = {4, j};
      double got = -1;
      EXPECT(tessera_multiblock_array_get(u, 0, ghost, TESSERA_DOUBLE, &got) == TESSERA_OK);
      EXPECT(got == 100.0 + 10.0 * (double)j + 3.0);
    }
  }
  EXPECT(tessera_multiblock_array_gather_block(u, 1, -1, TESSERA_DOUBLE, block1, 16) == TESSERA_OK &&
         block1[15] == 133.0);
  EXPECT(tessera_multiblock_array_reduce(u, TESSERA_OP_ADD, TESSERA_DOUBLE, &sum) == TESSERA_OK &&
         sum == 2 * 264.0 + 1600.0);
  EXPECT(tessera_multiblock_array_free(&u) == TESSERA_OK);
  EXPECT(tessera_multiblock_free(&mb) == TESSERA_OK);
  EXPECT(tessera_dist_free(&blocks[0]) == TESSERA_OK && tessera_dist_free(&blocks[1]) == TESSERA_OK);
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
  if (nprocs <= 4) multiblock_api(nprocs, rank);
  if (nprocs <= 64) d3arc_api(nprocs, rank);
  EXPECT(tessera_live_handles(&live) == TESSERA_OK && live == 0);
  MPI_Allreduce(&failures, &all_failures, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all_failures == 0 ? "C API smoke test passed\n" : "C API smoke test FAILED\n");
  MPI_Finalize();
  return all_failures != 0;
}
