/* Compiled as C: the header is valid C, and the library links and runs from a C program. */
#include <math.h>
#include <stdio.h>

#include "tessera.h"

int main(void) {
  float x[6] = {1, 2, 3, -1, -2, -3}, w[3] = {1, 1, 1}, y[6];
  int64_t shape[2] = {2, 3}, wshape[1] = {3};
  tessera_tensor tx = {x, TESSERA_F32, TESSERA_CPU, 0, 2, shape, NULL};
  tessera_tensor tw = {w, TESSERA_F32, TESSERA_CPU, 0, 1, wshape, NULL};
  tessera_tensor ty = {y, TESSERA_F32, TESSERA_CPU, 0, 2, shape, NULL};
  if (tessera_rms_norm(&tx, &tw, &ty, 0.f, NULL) != TESSERA_OK) {
    fprintf(stderr, "rms_norm failed: %s\n", tessera_last_error());
    return 1;
  }
  const float want = 1.f / sqrtf(14.f / 3.f);
  if (fabsf(y[0] - want) > 1e-6f || fabsf(y[5] + 3 * want) > 1e-6f) {
    fprintf(stderr, "wrong result %f %f\n", y[0], y[5]);
    return 1;
  }
  if (tessera_rms_norm(NULL, &tw, &ty, 0.f, NULL) != TESSERA_INVALID_ARGUMENT) return 1;
  printf("C API smoke test passed (tessera %s)\n", tessera_version());
  return 0;
}
