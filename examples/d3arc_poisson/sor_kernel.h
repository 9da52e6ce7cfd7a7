/* The numerics shared by the two D3-ARC programs (Fig. 2 and Fig. 4): one red-black SOR update of
 * -laplace(u) = f on the unit square, the serial reference run, and the error against the exact
 * solution sin(pi x) sin(pi y). The distributed sweeps and the serial one call the same
 * sor_update, so their results agree bit for bit. */
#ifndef D3ARC_SOR_KERNEL_H
#define D3ARC_SOR_KERNEL_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tessera/d3arc.h>

#define SOR_OMEGA 1.8f
#define SOR_PI 3.14159265358979323846

/* Prints why a primitive failed and stops every process. */
#define D3_DIE(what)                                             \
  do {                                                           \
    fprintf(stderr, "%s failed: %s\n", (what), d3_last_error()); \
    MPI_Abort(MPI_COMM_WORLD, 1);                                \
  } while (0)

static inline float source(int i, int j, int n) {
  const double h = 1.0 / (n + 1), x = (i + 1) * h, y = (j + 1) * h;
  return (float)(2.0 * SOR_PI * SOR_PI * sin(SOR_PI * x) * sin(SOR_PI * y));
}

static inline float initial_guess(int i, int j) { return (float)((i * 7 + j * 3) % 11) / 11.0f; }

/* u_new = (1 - omega) u + omega / 4 (neighbours + h^2 f). */
static inline float sor_update(float u, float north, float south, float west, float east, float f, int n) {
  const float h2 = 1.0f / (float)((n + 1) * (n + 1));
  return (1.0f - SOR_OMEGA) * u + SOR_OMEGA * 0.25f * (north + south + west + east + h2 * f);
}

/* The same sweeps over the whole grid, on an (n+2) x (n+2) array whose rim is the zero boundary. */
static inline float* serial_sor(int n, int iterations) {
  const int ld = n + 2;
  float* u = calloc((size_t)ld * (size_t)ld, sizeof *u);
  int t, colour, i, j;
  if (!u) return NULL;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) u[(i + 1) * ld + (j + 1)] = initial_guess(i, j);
  for (t = 0; t < iterations; t++)
    for (colour = 0; colour < 2; colour++)
      for (i = 0; i < n; i++)
        for (j = 0; j < n; j++)
          if ((i + j) % 2 == colour) {
            float* c = &u[(i + 1) * ld + (j + 1)];
            *c = sor_update(*c, c[-ld], c[ld], c[-1], c[1], source(i, j, n), n);
          }
  return u;
}

static inline double max_error(const float* u, int n) {
  const double h = 1.0 / (n + 1);
  double worst = 0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      const double e = fabs(u[(i + 1) * (n + 2) + (j + 1)] - sin(SOR_PI * (i + 1) * h) * sin(SOR_PI * (j + 1) * h));
      if (e > worst) worst = e;
    }
  return worst;
}

#endif
