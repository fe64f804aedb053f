/* SPDX-License-Identifier: BSD-3-Clause */
/* Memory probes shared by the benchmarks: how far away memory is right
 * now, so that a run's figures can be read against the machine's state
 * (docs/performance.md: the same code measured twice as slow on a day
 * when memory was 40% farther). */
#ifndef BENCH_MEM_CHASE_H
#define BENCH_MEM_CHASE_H

#include <stddef.h>
#include <stdint.h>

/* size bytes on a 2 MiB boundary, advised for transparent huge pages and
 * faulted in by writes (huge pages, not the shared zero page); exits on
 * failure. Free with bench_huge_free. */
void *bench_huge_alloc(size_t size);
void bench_huge_free(void *p, size_t size);

/* TSC cycles a load of a random pointer chase through bytes of memory,
 * one pointer a 64-byte line, over `steps` loads. */
double bench_chase(size_t bytes, uint64_t steps, uint64_t *seed);

#endif
