/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The measurements the FIB's layout rests on (docs/fib.md,
 * docs/performance.md):
 *  1. load latency by working-set size (a random pointer chase): where the
 *     caches stop helping on this machine;
 *  2. random first-level lookups, 32 per batch with all reads issued
 *     first, in a 2^24-entry table of 4-byte and of 2-byte entries: what
 *     halving the table gives;
 *  3. independent random reads, one per line, 32 per batch, by working
 *     set, alone and beside a sequential stream of 24 bytes a read (the
 *     IPv6 benchmark's address and result traffic): what a smaller
 *     working set buys when reads overlap, as a bulk lookup's do.
 * Usage: mem_probe [runs]   (TSC cycles; run pinned: taskset -c 1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_util.h"
#include "mem_chase.h"

#define N24 (1u << 24)
#define BATCH 32

/* The same batched loop for each entry width: only the element type,
 * and so the table's footprint in cache, differs. */
#define DEFINE_LOOKUPS(name, type)                                                                 \
	static double name(const type *tbl, const uint32_t *a, uint32_t *out, uint32_t m)          \
	{                                                                                          \
		uint64_t t0 = bench_tsc();                                                         \
		for (uint32_t i = 0; i < m; i += BATCH) {                                          \
			for (int j = 0; j < BATCH; j++)                                            \
				__builtin_prefetch(&tbl[a[i + j] >> 8]);                           \
			for (int j = 0; j < BATCH; j++)                                            \
				out[i + j] = tbl[a[i + j] >> 8];                                   \
		}                                                                                  \
		return (double)(bench_tsc() - t0) / m;                                             \
	}

DEFINE_LOOKUPS(lookups32, uint32_t)
DEFINE_LOOKUPS(lookups16, uint16_t)

/* Cycles a read of batched independent random reads (one per 64-byte
 * line of a table of `bytes`, a power of two), with `stream` bytes of a
 * sequential buffer summed a read besides. */
static double
batched_reads(size_t bytes, const uint32_t *a, uint32_t *out, uint32_t m, const uint8_t *seq,
	      unsigned int stream)
{
	uint32_t *tbl = bench_huge_alloc(bytes);
	uint32_t mask = (uint32_t)(bytes / 64) - 1;
	uint64_t acc = 0, t0 = bench_tsc();
	for (uint32_t i = 0; i < m; i += BATCH) {
		uint32_t v[BATCH];
		for (int j = 0; j < BATCH; j++)
			v[j] = tbl[(a[i + j] & mask) * 16];
		const uint64_t *q = (const uint64_t *)(seq + (size_t)i * stream);
		for (unsigned int j = 0; j < BATCH * stream / 8; j++)
			acc += q[j];
		for (int j = 0; j < BATCH; j++)
			out[i + j] = v[j];
	}
	double c = (double)(bench_tsc() - t0) / m;
	if (acc == 42)
		puts("");
	bench_huge_free(tbl, bytes);
	return c;
}

int
main(int argc, char **argv)
{
	unsigned int runs = argc > 1 ? (unsigned int)atoi(argv[1]) : 5;
	if (runs < 1 || runs > 31)
		runs = 5;
	uint64_t seed = 88172645463325252ull;
	static const size_t sizes[] = {1u << 20, 8u << 20, 32u << 20, 64u << 20, 256u << 20};
	printf("load latency, random pointer chase (median of %u):\n", runs);
	for (unsigned int k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		double v[31];
		for (unsigned int r = 0; r < runs; r++)
			v[r] = bench_chase(sizes[k], 2000000, &seed);
		printf("  %4zu MiB  %6.1f cycles\n", sizes[k] >> 20, bench_median(v, runs));
	}
	const uint32_t m = 1u << 22;
	uint32_t *a = malloc(sizeof(*a) * m), *out = malloc(sizeof(*out) * m);
	for (uint32_t i = 0; i < m; i++)
		a[i] = (uint32_t)bench_rand(&seed);
	uint32_t *t32 = bench_huge_alloc(sizeof(uint32_t) * N24);
	uint16_t *t16 = bench_huge_alloc(sizeof(uint16_t) * N24);
	double v32[31], v16[31];
	for (unsigned int r = 0; r < runs; r++) {
		v32[r] = lookups32(t32, a, out, m);
		v16[r] = lookups16(t16, a, out, m);
	}
	double c32 = bench_median(v32, runs), c16 = bench_median(v16, runs);
	printf("random first-level lookups, batches of %d (median of %u):\n", BATCH, runs);
	printf("  4-byte entries (64 MiB)  %6.2f cycles\n", c32);
	printf("  2-byte entries (32 MiB)  %6.2f cycles  (%.2fx)\n", c16, c32 / c16);
	const unsigned int stream = 24;
	uint8_t *seq = bench_huge_alloc((size_t)m * stream);
	static const size_t ws[] = {1u << 20, 2u << 20, 4u << 20, 8u << 20, 16u << 20, 64u << 20};
	printf("independent random reads, batches of %d, by working set (median of %u):\n", BATCH,
	       runs);
	for (unsigned int k = 0; k < sizeof(ws) / sizeof(ws[0]); k++) {
		double alone[31], beside[31];
		for (unsigned int r = 0; r < runs; r++) {
			alone[r] = batched_reads(ws[k], a, out, m, seq, 0);
			beside[r] = batched_reads(ws[k], a, out, m, seq, stream);
		}
		printf("  %4zu MiB  %6.2f cycles, %6.2f beside a %u-byte stream\n", ws[k] >> 20,
		       bench_median(alone, runs), bench_median(beside, runs), stream);
	}
	return 0;
}
