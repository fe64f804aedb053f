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
 *     working set buys when reads overlap, as a bulk lookup's do;
 *  4. walks of 32 lanes in step, each a chain of `depth` dependent random
 *     reads in a table of a given size, level by level by gathers as the
 *     AVX-512 lookups walk, beside the same stream: how a trie's depth
 *     trades against its size (a compressed trie is smaller but deeper),
 *     and what reading a node by three gathers instead of one costs
 *     (docs/performance.md, "A compressed IPv6 trie").
 * Usage: mem_probe [runs]   (TSC cycles; run pinned: taskset -c 1)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __AVX512F__
#include <immintrin.h>
#endif

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

#ifdef __AVX512F__
/* Cycles a walk of batched walks: 32 lanes, each `depth` reads where a
 * read's line depends on the value the lane read before (the next
 * level's index comes from the entry, as in a trie), in a table of
 * `bytes` (a power of two) filled with random values, beside `stream`
 * bytes a walk of a sequential buffer. Each level's 32 reads are two
 * 16-lane gathers, as the AVX-512 lookups walk: a level's next reads
 * wait for the slowest lane of its gather. */
static double
gathered_walks(size_t bytes, unsigned int depth, const uint32_t *a, uint32_t *out, uint32_t m,
	       const uint8_t *seq, unsigned int stream, uint64_t *seed)
{
	uint32_t *tbl = bench_huge_alloc(bytes);
	const __m512i mask = _mm512_set1_epi32((int)((bytes / 64) - 1));
	for (size_t i = 0; i < bytes / 4; i += 16)
		tbl[i] = (uint32_t)xorshift64(seed);
	uint64_t acc = 0, t0 = bench_tsc();
	for (uint32_t i = 0; i < m; i += BATCH) {
		__m512i a0 = _mm512_loadu_si512(a + i), a1 = _mm512_loadu_si512(a + i + 16);
		__m512i v0 = _mm512_setzero_si512(), v1 = v0;
		for (unsigned int d = 0; d < depth; d++) {
			__m512i i0 = _mm512_slli_epi32(
				_mm512_and_si512(_mm512_xor_si512(v0, a0), mask), 4);
			__m512i i1 = _mm512_slli_epi32(
				_mm512_and_si512(_mm512_xor_si512(v1, a1), mask), 4);
			v0 = _mm512_i32gather_epi32(i0, tbl, 4);
			v1 = _mm512_i32gather_epi32(i1, tbl, 4);
		}
		const uint64_t *q = (const uint64_t *)(seq + (size_t)i * stream);
		for (unsigned int j = 0; j < BATCH * stream / 8; j++)
			acc += q[j];
		_mm512_storeu_si512(out + i, v0);
		_mm512_storeu_si512(out + i + 16, v1);
	}
	double c = (double)(bench_tsc() - t0) / m;
	if (acc == 42)
		puts("");
	bench_huge_free(tbl, bytes);
	return c;
}

/* The same walks with 8-byte entries, each level reading three words of
 * one 32-byte node (offsets 0, 8, 16) by three 8-lane gathers, as a
 * node read field by field does: three times the gathers a level. */
static double
gathered3_walks(size_t bytes, unsigned int depth, const uint32_t *a, uint32_t *out, uint32_t m,
		const uint8_t *seq, unsigned int stream, uint64_t *seed)
{
	uint64_t *tbl = bench_huge_alloc(bytes);
	const __m512i mask = _mm512_set1_epi64((long long)((bytes / 64) - 1));
	for (size_t i = 0; i < bytes / 8; i++)
		tbl[i] = xorshift64(seed) & 0xffffffff;
	uint64_t acc = 0, t0 = bench_tsc();
	for (uint32_t i = 0; i < m; i += BATCH) {
		__m512i av[4], v[4];
		for (int g = 0; g < 4; g++) {
			av[g] = _mm512_cvtepu32_epi64(
				_mm256_loadu_si256((const __m256i *)(a + i + 8 * g)));
			v[g] = _mm512_setzero_si512();
		}
		for (unsigned int d = 0; d < depth; d++)
			for (int g = 0; g < 4; g++) {
				__m512i q = _mm512_slli_epi64(
					_mm512_and_si512(_mm512_xor_si512(v[g], av[g]), mask), 3);
				__m512i x = _mm512_i64gather_epi64(q, tbl, 8);
				__m512i y = _mm512_i64gather_epi64(
					_mm512_add_epi64(q, _mm512_set1_epi64(1)), tbl, 8);
				__m512i z = _mm512_i64gather_epi64(
					_mm512_add_epi64(q, _mm512_set1_epi64(2)), tbl, 8);
				v[g] = _mm512_add_epi64(_mm512_xor_si512(x, y), z);
			}
		const uint64_t *qq = (const uint64_t *)(seq + (size_t)i * stream);
		for (unsigned int j = 0; j < BATCH * stream / 8; j++)
			acc += qq[j];
		for (int g = 0; g < 4; g++)
			_mm256_storeu_si256((__m256i *)(out + i + 8 * g),
					    _mm512_cvtepi64_epi32(v[g]));
	}
	double c = (double)(bench_tsc() - t0) / m;
	if (acc == 42)
		puts("");
	bench_huge_free(tbl, bytes);
	return c;
}
#endif

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
		a[i] = (uint32_t)xorshift64(&seed);
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
#ifdef __AVX512F__
	static const unsigned int depths[] = {1, 2, 3, 4, 5, 6};
	double (*const walks[2])(size_t, unsigned int, const uint32_t *, uint32_t *, uint32_t,
				 const uint8_t *, unsigned int,
				 uint64_t *) = {gathered_walks, gathered3_walks};
	static const char *const how[2] = {
		"one 4-byte gather a level (two of 16 lanes)",
		"three 8-byte gathers a level (a 32-byte node, 3 words)"};
	for (unsigned int h = 0; h < 2; h++) {
		printf("walks of %d lanes in step, %s, beside a %u-byte stream:\n"
		       "cycles a walk by depth (columns) and working set (rows) (median of %u):\n"
		       "          ",
		       BATCH, how[h], stream, runs);
		for (unsigned int d = 0; d < sizeof(depths) / sizeof(depths[0]); d++)
			printf("%8u", depths[d]);
		printf("\n");
		for (unsigned int k = 0; k < sizeof(ws) / sizeof(ws[0]); k++) {
			printf("  %4zu MiB", ws[k] >> 20);
			for (unsigned int d = 0; d < sizeof(depths) / sizeof(depths[0]); d++) {
				double w[31];
				for (unsigned int r = 0; r < runs; r++)
					w[r] = walks[h](ws[k], depths[d], a, out, m / 4, seq,
							stream, &seed);
				printf("%8.2f", bench_median(w, runs));
			}
			printf("\n");
		}
	}
#endif
	return 0;
}
