/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_util.h"
#include "mem_chase.h"

#define ALIGN_2M ((size_t)2 << 20)

void *
bench_huge_alloc(size_t size)
{
	size = (size + ALIGN_2M - 1) & ~(ALIGN_2M - 1);
	uint8_t *raw = mmap(NULL, size + ALIGN_2M, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (raw == MAP_FAILED)
		bench_die("mmap", errno);
	uint8_t *p = (uint8_t *)(((uintptr_t)raw + ALIGN_2M - 1) & ~(ALIGN_2M - 1));
	/* Keep only the aligned part, so bench_huge_free can unmap it all
	 * (the tail is never empty: p < raw + ALIGN_2M). */
	if (p > raw)
		munmap(raw, (size_t)(p - raw));
	munmap(p + size, (size_t)(raw + ALIGN_2M - p));
	madvise(p, size, MADV_HUGEPAGE);
	memset(p, 1, size);
	return p;
}

void
bench_huge_free(void *p, size_t size)
{
	munmap(p, (size + ALIGN_2M - 1) & ~(ALIGN_2M - 1));
}

double
bench_chase(size_t bytes, uint64_t steps, uint64_t *seed)
{
	size_t n = bytes / 64;
	uint64_t *buf = bench_huge_alloc(bytes);
	uint32_t *perm = malloc(sizeof(*perm) * n);
	if (perm == NULL)
		bench_die("chase", ENOMEM);
	for (size_t i = 0; i < n; i++)
		perm[i] = (uint32_t)i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = xorshift64(seed) % (i + 1);
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	/* One cycle through every line in random order: each load's
	 * address is the previous load's value, so loads cannot overlap. */
	for (size_t i = 0; i < n; i++)
		buf[perm[i] * 8] = (uint64_t)(uintptr_t)&buf[perm[(i + 1) % n] * 8];
	uint64_t *p = &buf[perm[0] * 8];
	for (size_t i = 0; i < n; i++) /* warm: TLB and whatever caches hold */
		p = (uint64_t *)(uintptr_t)*p;
	uint64_t t0 = bench_tsc();
	for (uint64_t i = 0; i < steps; i++)
		p = (uint64_t *)(uintptr_t)*p;
	double c = (double)(bench_tsc() - t0) / (double)steps;
	if (p == NULL) /* keeps the chase from being optimised away */
		puts("");
	bench_huge_free(buf, bytes);
	free(perm);
	return c;
}
