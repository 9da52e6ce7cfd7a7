/* D3-ARC Fig. 4: dynamic data migration with a cost-controlled delta, in C against <tessera/d3arc.h>.
 *
 * The red-black SOR of Fig. 2 on a row-wise distribution (D_GENERAL x D_NONE: the paper's
 * experiments cut rows), with an artificial load on one process: process 1 runs `--load` times
 * slower during the middle half of the run (it sleeps after its sweeps, as a competing process
 * would take its core). Every iteration the times are collected (d3_collectall); every
 * `--interval` iterations, if the slowest process is more than 5 % above the mean, the times are
 * normalised (d3_norm, formula 1), a new distribution moving a fraction delta of the way is
 * computed (d3_new_dist), its cost estimated as blocks x the unit cost learned from earlier
 * migrations and delta halved while that exceeds the time the imbalance would cost if it lasted to
 * the end of the run, and the step is applied (d3_migrate), whose measured time updates the unit cost (a
 * trimmed mean of the sorted list of past unit costs, as Section III-B describes).
 *
 * Whatever moves, the values must be those of the serial run: every process compares its rows bit
 * for bit, and rank 0 prints "D3-ARC Fig. 4: the migrating SOR matches the serial run bit for
 * bit" (with the number of migrations; on more than one process at least one must happen). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tessera.h> /* only for tessera_live_handles: the check that d3_finalize released everything */
#include <tessera/d3arc.h>
#include <time.h>

#include "sor_kernel.h"

#define MAX_MIGRATIONS 1024

/* The artificial load: process 1 is `factor` times slower in the middle half of the run. Returns
   the seconds slept. */
static double emulate_load(int my_id, int t, int n_iters, double factor, double seconds) {
  struct timespec pause;
  double extra;
  if (my_id != 1 || t < n_iters / 4 || t >= 3 * n_iters / 4) return 0.0;
  extra = (factor - 1.0) * seconds;
  pause.tv_sec = (time_t)extra;
  pause.tv_nsec = (long)((extra - (double)pause.tv_sec) * 1e9);
  nanosleep(&pause, NULL);
  return extra;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The estimated seconds per block: the mean of the measured unit costs without the largest and
   the smallest (all of them while there are fewer than three). */
static double trimmed_mean(double* costs, int count) {
  int drop = count >= 3 ? 1 : 0, k;
  double sum = 0;
  qsort(costs, (size_t)count, sizeof *costs, by_value);
  for (k = drop; k < count - drop; k++) sum += costs[k];
  return sum / (count - 2 * drop);
}

int main(int argc, char** argv) {
  int w[2], b[2], v[4], *bp, len, nblks, dist_desc;
  vp_t vt[4];
  dist_t d[2];
  real *t_vect, *wt, timing, actual_cost, est_cost, budget, delta = 0.5, load = 4.0;
  real unit_costs[MAX_MIGRATIONS], unit_cost = 0, slowest, mean;
  int n = 64, n_iters = 80, interval = 4, my_id, nprocs, dA, or_id = 0, t, i, j, colour, p, migrations = 0;
  long long mismatches = 0, all_mismatches = 0;
  float *A, *ref;
  size_t live = 0;

  for (i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--n") == 0)
      n = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--iterations") == 0)
      n_iters = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--interval") == 0)
      interval = atoi(argv[i + 1]);
    else if (strcmp(argv[i], "--delta") == 0)
      delta = atof(argv[i + 1]);
    else if (strcmp(argv[i], "--load") == 0)
      load = atof(argv[i + 1]);
  }
  if (n < 2 || n > 4096 || n_iters < 1 || interval < 1 || !(delta > 0 && delta <= 1) || !(load >= 1)) {
    fprintf(stderr,
            "usage: d3arc_migration [--n N] [--iterations K] [--interval I] [--delta D in (0,1]] [--load F >= 1]\n");
    return 2;
  }

  MPI_Init(&argc, &argv);
  if (d3_init(&argc, &argv) != 0) D3_DIE("d3_init");
  MPI_Comm_rank(MPI_COMM_WORLD, &my_id);
  MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
  t_vect = malloc((size_t)nprocs * sizeof *t_vect);
  w[0] = w[1] = n;
  b[0] = b[1] = 1; /* a logical block is one row: the unit of migration */
  dA = d3_darray("A", 2, w, D3_FLOAT, b);
  d[0] = D_GENERAL;
  d[1] = D_NONE;
  if (dA < 0 || d3_dist(dA, G_DEFAULT, d, NULL, NULL) != 0) D3_DIE("d3_darray / d3_dist");
  vt[0] = vt[1] = vt[2] = vt[3] = VP_REL;
  v[0] = v[1] = v[2] = v[3] = 1; /* the columns' viewport lies outside the array: the zero boundary */
  if (d3_viewport(dA, vt, v) != 0) D3_DIE("d3_viewport");
  if (my_id == 0) {
    A = d3_map_DA(dA, NULL);
    if (!A) D3_DIE("d3_map_DA");
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++) A[i * n + j] = initial_guess(i, j);
  }
  if (d3_effect_dist(dA) < 0) D3_DIE("d3_effect_dist");

  for (t = 0; t < n_iters; t++) {
    const double start = MPI_Wtime(); /* mark start time */
    /* perform iteration (mapped anew: a migration moves the region) */
    A = d3_map_OR(dA, or_id, NULL);
    bp = d3_get_OR_bounds(dA, or_id);
    if (d3_num_OR(dA) > 0 && (!A || !bp)) D3_DIE("d3_map_OR");
    for (colour = 0; colour < 2; colour++) {
      if (d3_num_OR(dA) > 0)
        for (i = bp[0]; i <= bp[1]; i++)
          for (j = bp[2]; j <= bp[3]; j++)
            if ((i + j) % 2 == colour) {
              const int ld = bp[7] - bp[6] + 1;
              float* c = &A[(i - bp[4]) * ld + (j - bp[6])];
              *c = sor_update(*c, c[-ld], c[ld], c[-1], c[1], source(i, j, n), n);
            }
      if (colour == 0 && d3_update_OR(dA, or_id) != 0) D3_DIE("d3_update_OR");
    }
    timing = MPI_Wtime() - start; /* timing = mark end time */
    timing += emulate_load(my_id, t, n_iters, load, timing);
    if (d3_update_OR(dA, or_id) != 0) D3_DIE("d3_update_OR");

    /* (9) */ len = nprocs;
    if (d3_collectall(timing, t_vect, &len) != 0) D3_DIE("d3_collectall");
    /* determine if we want to redistribute: at every check, if the slowest is 5 % above the mean */
    slowest = 0;
    mean = 0;
    for (p = 0; p < len; p++) {
      mean += t_vect[p] / len;
      if (t_vect[p] > slowest) slowest = t_vect[p];
    }
    if ((t + 1) % interval != 0 || len < 2 || !(slowest > 1.05 * mean)) continue;
    budget = (slowest - mean) * (n_iters - t - 1); /* what the imbalance costs if it lasts to the end */

    /* (10) */ wt = d3_norm(t_vect, len, 1, 1.5);
    /* (11) */ dist_desc = d3_new_dist(dA, wt, delta, &nblks);
    if (!wt || dist_desc < 0) D3_DIE("d3_norm / d3_new_dist");
    est_cost = nblks * unit_cost;               /* est. cost = nblks * unit cost (0 until one migration was measured) */
    while (est_cost > budget && delta > 0.05) { /* if cost too high, reduce delta */
      delta /= 2;
      dist_desc = d3_new_dist(dA, wt, delta, &nblks); /* invoke d3_new_dist() again */
      if (dist_desc < 0) D3_DIE("d3_new_dist");
      est_cost = nblks * unit_cost;
    }
    if (nblks == 0 || est_cost > budget) continue;
    /* when cost is acceptable, apply the migration */
    /* (12) */ actual_cost = d3_migrate(dA, dist_desc);
    if (actual_cost < 0) D3_DIE("d3_migrate");
    if (migrations < MAX_MIGRATIONS) unit_costs[migrations] = actual_cost / nblks; /* update unit cost */
    migrations++;
    unit_cost = trimmed_mean(unit_costs, migrations < MAX_MIGRATIONS ? migrations : MAX_MIGRATIONS);
    if (my_id == 0)
      printf("iteration %3d: moved %3d rows with delta %.3f in %.2e s (unit cost now %.2e s per row)\n", t + 1, nblks,
             delta, actual_cost, unit_cost);
    if (actual_cost <= budget && delta < 1) delta = delta * 1.5 > 1 ? 1 : delta * 1.5; /* cheap: move more next time */
  }

  /* Compare this process' rows with the serial run. */
  A = d3_map_OR(dA, or_id, NULL);
  bp = d3_get_OR_bounds(dA, or_id);
  ref = serial_sor(n, n_iters);
  if (d3_num_OR(dA) > 0)
    for (i = bp[0]; i <= bp[1]; i++)
      for (j = bp[2]; j <= bp[3]; j++)
        if (memcmp(&A[(i - bp[4]) * (bp[7] - bp[6] + 1) + (j - bp[6])], &ref[(i + 1) * (n + 2) + (j + 1)],
                   sizeof(float)) != 0)
          mismatches++;
  MPI_Allreduce(&mismatches, &all_mismatches, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (my_id == 0) {
    printf("%d processes, %d x %d floats, %d iterations, load x%.1f on process 1: %d migrations, max error %.3e\n",
           nprocs, n, n, n_iters, load, migrations, max_error(ref, n));
    if (all_mismatches != 0)
      printf("MISMATCH: %lld points differ from the serial run\n", all_mismatches);
    else if (nprocs > 1 && migrations == 0)
      printf("FAILED: no migration happened under the load\n");
    else
      printf("D3-ARC Fig. 4: the migrating SOR matches the serial run bit for bit (%d migrations)\n", migrations);
  }
  if (nprocs > 1 && migrations == 0) all_mismatches += 1;
  free(ref);
  free(t_vect);
  if (d3_finalize() != 0) D3_DIE("d3_finalize");
  if (tessera_live_handles(&live) != TESSERA_OK || live != 0) {
    fprintf(stderr, "d3_finalize left %zu tessera handles behind\n", live);
    all_mismatches += 1;
  }
  MPI_Finalize();
  return all_mismatches == 0 ? 0 : 1;
}
