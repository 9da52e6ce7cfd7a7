/* D3-ARC Fig. 2: a Poisson solver with a viewport and d3_update_OR, in C against <tessera/d3arc.h>.
 *
 * Solves -laplace(u) = f on the n x n interior points of the unit square (u = 0 on the boundary)
 * with red-black SOR in single precision, as Fig. 2 declares the array (D3_FLOAT), on a
 * BLOCK x GENERAL distribution over the default process grid. Every process then runs the same
 * sweeps serially over the whole grid and compares its own region bit for bit; rank 0 prints
 * "D3-ARC Fig. 2: distributed SOR matches the serial run bit for bit" only if every point agrees.
 * The numbered comments are the markers of Fig. 2. See README.md here. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera.h> /* only for tessera_live_handles: the check that d3_finalize released everything */
#include <tessera/d3arc.h>

#include "sor_kernel.h"

int main(int argc, char** argv) {
  int w[2], b[2], v[4], *bp;
  vp_t vt[4];
  dist_t d[2];
  real* wt;
  int n = 48, n_iters = 60, my_id, nprocs, dA, or_id, t, p, i, j, colour;
  int s_i, e_i, s_j, e_j, lo_i, lo_j, ld;
  float *A, *ref;
  long long mismatches = 0, all_mismatches = 0;
  size_t live = 0;

  for (i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--n") == 0)
      n = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--iterations") == 0)
      n_iters = atoi(argv[i + 1]);
  }
  if (n < 2 || n > 4096 || n_iters < 1) {
    fprintf(stderr, "usage: d3arc_poisson [--n N (2..4096)] [--iterations K (>= 1)]\n");
    return 2;
  }

  MPI_Init(&argc, &argv);
  if (d3_init(&argc, &argv) != 0) D3_DIE("d3_init");
  MPI_Comm_rank(MPI_COMM_WORLD, &my_id);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  w[0] = w[1] = n;
  b[0] = b[1] = 1; /* Fig. 2 passes w as the logical blocks too: one block of the whole array,
                      which could not be distributed; blocks of one index here */

  /* (1) */ dA = d3_darray("A", 2, w, D3_FLOAT, b);
  if (dA < 0) D3_DIE("d3_darray");
  d[0] = D_BLOCK;
  d[1] = D_GENERAL;
  /* compute the weights vector: one weight per process, uneven on purpose (odd ranks twice as much) */
  wt = malloc((size_t)nprocs * sizeof *wt);
  for (p = 0; p < nprocs; p++) wt[p] = 1.0 + p % 2;

  /* (2) */ if (d3_dist(dA, G_DEFAULT, d, NULL, wt) != 0)
    D3_DIE("d3_dist");
  vt[0] = vt[1] = vt[2] = vt[3] = VP_REL;
  v[0] = v[1] = v[2] = v[3] = 1;

  /* (3) */ if (d3_viewport(dA, vt, v) != 0)
    D3_DIE("d3_viewport");
  if (my_id == 0) {
    /* (4) */ A = d3_map_DA(dA, NULL);
    if (!A) D3_DIE("d3_map_DA");
    for (i = 0; i < n; i++) /* initialise array A: an arbitrary first guess */
      for (j = 0; j < n; j++) A[i * n + j] = initial_guess(i, j);
  }
  /* (5) */ if (d3_effect_dist(dA) < 0)
    D3_DIE("d3_effect_dist");

  or_id = 0;
  /* (6) */ A = d3_map_OR(dA, or_id, NULL);
  /* (7) */ bp = d3_get_OR_bounds(dA, or_id);
  if (!A || !bp) D3_DIE("d3_map_OR / d3_get_OR_bounds");
  s_i = bp[0];
  e_i = bp[1];
  s_j = bp[2];
  e_j = bp[3];
  lo_i = bp[4];
  lo_j = bp[6];
  ld = bp[7] - bp[6] + 1; /* the mapped region, viewport included */
#define AT(i, j) A[((i)-lo_i) * ld + ((j)-lo_j)]
  for (t = 0; t < n_iters; t++) {
    /* Fig. 2 updates in place, A[i][j] = f(A, i, j): red-black ordering makes that independent of
       the distribution (a point reads only the other colour), at the price of one d3_update_OR
       per colour. */
    for (colour = 0; colour < 2; colour++) {
      for (i = s_i; i <= e_i; i++)
        for (j = s_j; j <= e_j; j++)
          if ((i + j) % 2 == colour)
            AT(i, j) = sor_update(AT(i, j), AT(i - 1, j), AT(i + 1, j), AT(i, j - 1), AT(i, j + 1), source(i, j, n), n);
      /* (8) */ if (d3_update_OR(dA, or_id) != 0)
        D3_DIE("d3_update_OR");
    }
  }

  /* The serial run, on every process, and the comparison of this process' region. */
  ref = serial_sor(n, n_iters);
  for (i = s_i; i <= e_i; i++)
    for (j = s_j; j <= e_j; j++)
      if (memcmp(&AT(i, j), &ref[(i + 1) * (n + 2) + (j + 1)], sizeof(float)) != 0) mismatches++;
#undef AT
  MPI_Allreduce(&mismatches, &all_mismatches, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (my_id == 0) {
    printf("%d processes, %d x %d floats, BLOCK x GENERAL, %d SOR iterations: max error vs exact %.3e\n", nprocs, n, n,
           n_iters, max_error(ref, n));
    if (all_mismatches == 0)
      printf("D3-ARC Fig. 2: distributed SOR matches the serial run bit for bit\n");
    else
      printf("MISMATCH: %lld points differ from the serial run\n", all_mismatches);
  }
  free(ref);
  free(wt);
  if (d3_finalize() != 0) D3_DIE("d3_finalize");
  if (tessera_live_handles(&live) != TESSERA_OK || live != 0) {
    fprintf(stderr, "d3_finalize left %zu tessera handles behind\n", live);
    all_mismatches += 1;
  }
  MPI_Finalize();
  return all_mismatches == 0 ? 0 : 1;
}
