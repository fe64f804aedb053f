/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reader side: lock-free lookups. Nothing here writes shared memory,
 * takes a lock or checks its arguments (the writer's front did).
 *
 * Plain loads are enough against the writer's stores: entries are
 * aligned 16- or 32-bit words (never torn), a group is published by a
 * release store after it is filled, and the reader's load of a group's
 * entry depends on the load of the entry leading to it, which x86 and
 * every other architecture DPDK supports keep in order.
 *
 * Random addresses miss the caches on almost every first-level read (the
 * tables are 32 and 64 MiB; the bench machines' L2 is 1-2 MiB a core,
 * and their shared L3 gives little beyond that). A core keeps about 16
 * misses in flight, so the bulk lookups exist to keep that many
 * outstanding: each level's reads for a whole burst are issued before
 * any is used. IPv4 reads its /16 summary first (mbt.h: 128 KiB, in
 * L2), and the first level only for the /16s that are not uniform,
 * unless the thread's recent bursts say the summary does not pay (path4
 * below).
 *
 * Compiled twice (isa.h): the burst functions for the build's target and
 * for AVX-512, the single lookups once.
 */
#include <stdalign.h>
#include <stdbool.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_prefetch.h>
#ifdef __AVX512F__
#include <immintrin.h>
#endif

#include "isa.h"
#include "table.h"

/* Addresses per pass of the portable paths. */
#define CHUNK 32

/* The first-level table of a family, tagged with MBT_SMALL_TAG while it
 * is a small table's (mbt.h). It is replaced when the family gets its
 * first route, when a small table grows and when the last route goes;
 * the acquire pairs with the writer's release. */
static inline const void *
tbl24_of(const struct mbt *m)
{
	return __atomic_load_n(&m->tbl24, __ATOMIC_ACQUIRE);
}

/* Offset, in entries, of the group an extended entry leads to. */
static inline uint32_t
group_base(uint32_t e)
{
	return (e >> 1) << MBT_GROUP_BITS;
}

/* Small tables, 16-8-8 (IPv4) and 16-8-8-... (IPv6): a plain walk. They
 * hold few routes, so their first level and groups stay in cache, and
 * the datapath's table, main, is never small. */
static inline uint32_t
small4(const void *tagged, const uint16_t *groups, uint32_t dst)
{
	const uint16_t *t = mbt_untag(tagged);
	uint32_t e = t[dst >> 16];
	for (int shift = 8; e & MBT_EXT; shift -= 8)
		e = groups[group_base(e) + ((dst >> shift) & 0xff)];
	return e >> 1;
}

/* An IPv6 walk through the groups from first-level entry e, whose next
 * level is indexed by address byte b. */
static inline uint32_t
walk6(uint32_t e, const uint32_t *groups, const uint8_t *dst, unsigned int b)
{
	for (; e & MBT_EXT; b++)
		e = groups[group_base(e) + dst[b]];
	return e >> 1;
}

static inline uint32_t
small6(const void *tagged, const uint32_t *groups, const uint8_t *dst)
{
	const uint32_t *t = mbt_untag(tagged);
	return walk6(t[(uint32_t)dst[0] << 8 | dst[1]], groups, dst, 2);
}

#ifndef FIB_ISA_AVX512
uint32_t
fib_lookup4(const struct fib_table *t, uint32_t dst)
{
	const uint16_t *tbl24 = tbl24_of(&t->v4);
	if (unlikely(mbt_is_small(tbl24)))
		return small4(tbl24, t->v4.groups, dst);
	uint32_t e = tbl24[MBT_SUM4_OFF + (dst >> 16)];
	if (e & MBT_EXT) {
		e = tbl24[dst >> 8];
		if (unlikely(e & MBT_EXT))
			e = ((const uint16_t *)t->v4.groups)[group_base(e) + (dst & 0xff)];
	}
	return e >> 1;
}
#endif

/*
 * Which way this thread's IPv4 bursts go. The summary pays when many
 * lanes stop at it, as addresses spread over the whole space do (most
 * /16s of the real table are uniform). Traffic to where the table routes
 * lands in mixed /16s, and there the summary is one more dependent read
 * before the first level, while the portable passes prefetch every
 * lane's first-level line at once. 64-lane walks hide more of the
 * summary's wait than 32-lane ones, so a call counts as dense from 7/8
 * (32 lanes) and 15/16 (64) of its lanes past the summary, where the two
 * ways crossed over (docs/performance-log.md). Each thread follows what its walks see: after
 * DIRECT_AFTER dense calls in a row it goes direct, and there every
 * PROBE_EVERY-th call still takes the summary walk to look again;
 * SUMMARY_AFTER probes in a row that are not dense bring it back. Per
 * thread, so nothing is shared between cores; the answers are the same
 * either way (the first level is complete whatever the summary says).
 */
#define DIRECT_AFTER 16
#define PROBE_EVERY 16
#define SUMMARY_AFTER 2

struct path4 {
	uint8_t direct; /* bursts take the portable passes */
	uint8_t streak; /* calls in a row that argued for the other way */
	uint16_t calls; /* while direct: calls since the last probe */
};

static __thread struct path4 path4 __attribute__((tls_model("initial-exec")));

bool
FIB_ISA(fib_lookup4_bulk_direct)(void)
{
	return path4.direct;
}

/* The portable path reads the first level directly, without the /16
 * summary: it prefetches rather than gathers, and reading the summary
 * first (a load it must wait for, then a choice of address) costs more
 * than it saves there. The first level is complete whatever the summary
 * says. */
static inline void
lookup4_chunk(const uint16_t *tbl24, const uint16_t *groups, const uint32_t *dst, uint32_t *nh,
	      unsigned int n)
{
	unsigned int i, next = 0;
	uint8_t ext[CHUNK];

	/* Step 1: prefetch every first-level entry of the chunk. */
	for (i = 0; i < n; i++)
		rte_prefetch0(&tbl24[dst[i] >> 8]);
	/* Step 2: read them; prefetch the group entry for the few longer
	 * than /24, and remember which. */
	for (i = 0; i < n; i++) {
		uint32_t e = tbl24[dst[i] >> 8];
		nh[i] = e;
		if (unlikely(e & MBT_EXT)) {
			rte_prefetch0(&groups[group_base(e) + (dst[i] & 0xff)]);
			ext[next++] = (uint8_t)i;
		}
	}
	/* Step 3: resolve those through their group. */
	for (unsigned int k = 0; k < next; k++) {
		i = ext[k];
		nh[i] = groups[group_base(nh[i]) + (dst[i] & 0xff)];
	}
	for (i = 0; i < n; i++)
		nh[i] >>= 1;
}

#ifdef __AVX512F__
/* 16 entries of a 16-bit table: 32-bit gathers at 2-byte scale read two
 * entries each (the arrays have MBT_SLACK bytes past their end), and
 * the mask keeps the wanted one. */
static inline __m512i
gather16(__m512i idx, const uint16_t *tbl)
{
	return _mm512_and_si512(_mm512_i32gather_epi32(idx, tbl, 2), _mm512_set1_epi32(0xffff));
}

static inline __m512i
mask_gather16(__m512i src, __mmask16 k, __m512i idx, const uint16_t *tbl)
{
	__m512i v = _mm512_mask_i32gather_epi32(src, k, idx, tbl, 2);
	return _mm512_and_si512(v, _mm512_set1_epi32(0xffff));
}

/* The lanes (ext, those whose entry e leads to a group) read the group
 * entry; the others keep e. A gather with an all-zero mask reads
 * nothing. */
static inline __m512i
ext4_x16(__m512i e, __mmask16 ext, __m512i a, const uint16_t *groups)
{
	__m512i base = _mm512_slli_epi32(_mm512_srli_epi32(e, 1), MBT_GROUP_BITS);
	__m512i idx = _mm512_add_epi32(base, _mm512_and_si512(a, _mm512_set1_epi32(0xff)));
	return mask_gather16(e, ext, idx, groups);
}

/* Lanes whose /16 is not uniform read their first-level entry; the
 * others keep the summary's answer. */
static inline __m512i
tbl24_x16(__m512i s, __mmask16 mixed, __m512i a, const uint16_t *tbl24)
{
	return mask_gather16(s, mixed, _mm512_srli_epi32(a, 8), tbl24);
}

/* 16 x v lookups (v = 2 or 4): each level's v gathers issued back to
 * back, before anything depends on them, so the misses of all overlap,
 * and the levels' latencies are paid once for all of them. Returns how
 * many of the 16 x v lanes the summary sent on to the first level. */
static __rte_always_inline unsigned int
lookup4_xv(const uint16_t *tbl24, const uint16_t *groups, const uint32_t *dst, uint32_t *nh,
	   unsigned int v)
{
	__m512i a[4], e[4];
	for (unsigned int k = 0; k < v; k++) {
		a[k] = _mm512_loadu_si512(dst + 16 * k);
		e[k] = gather16(_mm512_srli_epi32(a[k], 16), tbl24 + MBT_SUM4_OFF);
	}
	__mmask16 ext[4], any = 0;
	unsigned int mixed = 0;
	for (unsigned int k = 0; k < v; k++) {
		__mmask16 m = _mm512_test_epi32_mask(e[k], _mm512_set1_epi32(MBT_EXT));
		mixed += (unsigned int)__builtin_popcount(m);
		e[k] = tbl24_x16(e[k], m, a[k], tbl24);
		any |= ext[k] = _mm512_test_epi32_mask(e[k], _mm512_set1_epi32(MBT_EXT));
	}
	/* At 64 lanes (routerd's burst) the group gathers go out whatever
	 * the masks: a branch on gathered values makes the next gathers
	 * wait for them. At 32 they are skipped when no lane needs a group:
	 * AMD's gathers are many micro-operations, and without them the CPU
	 * starts more of the next call while this one waits for memory
	 * (docs/performance-log.md). */
	if (v != 2 || any != 0)
		for (unsigned int k = 0; k < v; k++)
			e[k] = ext4_x16(e[k], ext[k], a[k], groups);
	for (unsigned int k = 0; k < v; k++)
		_mm512_storeu_si512(nh + 16 * k, _mm512_srli_epi32(e[k], 1));
	return mixed;
}

static void
path4_vote(unsigned int mixed, unsigned int lanes)
{
	bool dense = lanes >= 64 ? mixed * 16 >= lanes * 15 : mixed * 8 >= lanes * 7;
	if (dense == (bool)path4.direct) {
		path4.streak = 0;
		return;
	}
	if (++path4.streak >= (path4.direct ? SUMMARY_AFTER : DIRECT_AFTER)) {
		path4.direct = !path4.direct;
		path4.streak = 0;
		path4.calls = 0;
	}
}

#endif

void
FIB_ISA(fib_lookup4_bulk)(const struct fib_table *t, const uint32_t *dst, uint32_t *nh,
			  unsigned int n)
{
	const uint16_t *tbl24 = tbl24_of(&t->v4), *groups = t->v4.groups;
	if (unlikely(mbt_is_small(tbl24))) {
		for (unsigned int i = 0; i < n; i++)
			nh[i] = small4(tbl24, groups, dst[i]);
		return;
	}
#ifdef __AVX512F__
	if (n >= 32 && (!path4.direct || ++path4.calls % PROBE_EVERY == 0)) {
		unsigned int mixed = 0, lanes = n & ~31u;
		for (; n >= 64; n -= 64, dst += 64, nh += 64)
			mixed += lookup4_xv(tbl24, groups, dst, nh, 4);
		for (; n >= 32; n -= 32, dst += 32, nh += 32)
			mixed += lookup4_xv(tbl24, groups, dst, nh, 2);
		path4_vote(mixed, lanes);
	}
#endif
	while (n > 0) {
		unsigned int c = n < CHUNK ? n : CHUNK;
		lookup4_chunk(tbl24, groups, dst, nh, c);
		dst += c;
		nh += c;
		n -= c;
	}
}

/* The top 24 bits of an IPv6 address: one load and a byte swap. */
static inline uint32_t
idx24(const uint8_t *a)
{
	uint32_t v;
	memcpy(&v, a, 4);
	return rte_be_to_cpu_32(v) >> 8;
}

#ifndef FIB_ISA_AVX512
uint32_t
fib_lookup6(const struct fib_table *t, const uint8_t dst[16])
{
	const uint32_t *tbl24 = tbl24_of(&t->v6), *groups = t->v6.groups;
	if (unlikely(mbt_is_small(tbl24)))
		return small6(tbl24, groups, dst);
	return walk6(tbl24[idx24(dst)], groups, dst, 3);
}
#endif

static inline void
lookup6_chunk(const uint32_t *tbl24, const uint32_t *groups, const uint8_t *const *dst,
	      uint32_t *nh, unsigned int n)
{
	uint8_t pend[CHUNK];
	unsigned int i, npend = 0;

	for (i = 0; i < n; i++)
		rte_prefetch0(&tbl24[idx24(dst[i])]);
	for (i = 0; i < n; i++) {
		uint32_t e = tbl24[idx24(dst[i])];
		nh[i] = e;
		if (e & MBT_EXT) {
			rte_prefetch0(&groups[group_base(e) + dst[i][3]]);
			pend[npend++] = (uint8_t)i;
		}
	}
	/* One pass per level, over the addresses still descending: the
	 * reads of a level are independent, so their misses overlap. The
	 * last level holds no extended entry, so b + 1 stays below 16. */
	for (unsigned int b = 3; npend > 0; b++) {
		unsigned int still = 0;
		for (unsigned int k = 0; k < npend; k++) {
			i = pend[k];
			uint32_t e = groups[group_base(nh[i]) + dst[i][b]];
			nh[i] = e;
			if (e & MBT_EXT) {
				rte_prefetch0(&groups[group_base(e) + dst[i][b + 1]]);
				pend[still++] = (uint8_t)i;
			}
		}
		npend = still;
	}
	for (i = 0; i < n; i++)
		nh[i] >>= 1;
}

#if defined(__AVX512F__) && defined(__AVX512BW__)
/* 64-bit half `half` (0 or 1) of 16 addresses, as stored (byte k of the
 * address in byte k of the lane): lanes 0-7 in *h0, 8-15 in *h1. Two
 * gathers through the pointers, not scalar loads through a buffer on
 * the stack: the vector load of the buffer could not take its data from
 * the pending scalar stores. */
static inline void
halves6_x16(const uint8_t *const *dst, unsigned int half, __m512i *h0, __m512i *h1)
{
	const __m512i off = _mm512_set1_epi64(8 * half);
	*h0 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_loadu_si512(dst), off), NULL, 1);
	*h1 = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_loadu_si512(dst + 8), off), NULL, 1);
}

#ifdef __AVX512VBMI__
/* Byte k of each of the 16 lanes of (h0, h1), or with first24 the first
 * three bytes as a big-endian number, in 16 32-bit lanes: one byte
 * permute across both registers, zeroing the bytes not wanted. */
static inline __m512i
bytes6_x16(__m512i h0, __m512i h1, unsigned int k, bool first24)
{
	/* Every byte of 32-bit lane j holds 8j: the offset of address j's
	 * half in the 128 bytes of (h0, h1). */
	const __m512i lane = _mm512_mullo_epi32(
		_mm512_set_epi32(120, 112, 104, 96, 88, 80, 72, 64, 56, 48, 40, 32, 24, 16, 8, 0),
		_mm512_set1_epi32(0x01010101));
	if (first24) {
		__m512i idx = _mm512_add_epi32(lane, _mm512_set1_epi32(0x000102));
		return _mm512_maskz_permutex2var_epi8(0x7777777777777777ull, h0, idx, h1);
	}
	__m512i idx = _mm512_add_epi32(lane, _mm512_set1_epi32((int)k));
	return _mm512_maskz_permutex2var_epi8(0x1111111111111111ull, h0, idx, h1);
}
#else
static inline __m512i
bytes6_x16(__m512i h0, __m512i h1, unsigned int k, bool first24)
{
	__m256i lo, hi;
	if (first24) {
		/* Big-endian bytes 0..2: (b0 << 16) | (b1 << 8) | b2. */
		const __m512i swap = _mm512_broadcast_i32x4(
			_mm_set_epi8(15, 15, 15, 15, 15, 8, 9, 10, 7, 7, 7, 7, 7, 0, 1, 2));
		const __m512i m = _mm512_set1_epi64(0xffffff);
		lo = _mm512_cvtepi64_epi32(_mm512_and_si512(_mm512_shuffle_epi8(h0, swap), m));
		hi = _mm512_cvtepi64_epi32(_mm512_and_si512(_mm512_shuffle_epi8(h1, swap), m));
	} else {
		const __m512i m = _mm512_set1_epi64(0xff);
		__m128i s = _mm_cvtsi32_si128((int)(8 * k));
		lo = _mm512_cvtepi64_epi32(_mm512_and_si512(_mm512_srl_epi64(h0, s), m));
		hi = _mm512_cvtepi64_epi32(_mm512_and_si512(_mm512_srl_epi64(h1, s), m));
	}
	return _mm512_inserti64x4(_mm512_castsi256_si512(lo), hi, 1);
}
#endif

/*
 * 16 x V lookups walked level by level in step: at each level one masked
 * gather per 16 addresses reads the next entry of every address still
 * descending, so the misses of a level overlap and no branch depends on a
 * single address. The only branch is "does any address go deeper", once
 * per level. Each level costs about one miss latency whatever the number
 * of lanes, so the more vectors walk together the better; V is 4 or 8.
 * Below 64 lanes the portable passes are faster on the AVX-512 machines
 * measured; from 64 lanes this walk is (docs/performance-log.md).
 * The low halves of the addresses are loaded only when some prefix
 * longer than /64 is reached.
 */
#define LOOKUP6_MAXV 8
static inline void
lookup6_xv(const uint32_t *tbl24, const uint32_t *groups, const uint8_t *const *dst, uint32_t *nh,
	   unsigned int nv)
{
	const __m512i one = _mm512_set1_epi32(MBT_EXT);
	__m512i h[2 * LOOKUP6_MAXV], e[LOOKUP6_MAXV];
	__mmask16 x[LOOKUP6_MAXV], any = 0;
	/* A prefetch per address before the gathers that load them: with
	 * the gathers alone, addresses streamed from memory (the FIB
	 * benchmark's) left each burst waiting on their misses, which the
	 * hardware prefetcher does not start for gathers. In routerd the
	 * addresses are in packets the worker has already prefetched; there
	 * this costs an instruction an address. */
	for (unsigned int i = 0; i < 16 * nv; i++)
		rte_prefetch0(dst[i]);
	for (unsigned int v = 0; v < nv; v++)
		halves6_x16(dst + 16 * v, 0, &h[2 * v], &h[2 * v + 1]);
	for (unsigned int v = 0; v < nv; v++)
		e[v] = _mm512_i32gather_epi32(bytes6_x16(h[2 * v], h[2 * v + 1], 0, true), tbl24,
					      4);
	for (unsigned int v = 0; v < nv; v++)
		any |= x[v] = _mm512_test_epi32_mask(e[v], one);
	for (unsigned int b = 3; any != 0; b++) {
		if (b == 8)
			for (unsigned int v = 0; v < nv; v++)
				halves6_x16(dst + 16 * v, 1, &h[2 * v], &h[2 * v + 1]);
		for (unsigned int v = 0; v < nv; v++) {
			__m512i g = _mm512_slli_epi32(_mm512_srli_epi32(e[v], 1), MBT_GROUP_BITS);
			__m512i j = _mm512_add_epi32(
				g, bytes6_x16(h[2 * v], h[2 * v + 1], b % 8, false));
			e[v] = _mm512_mask_i32gather_epi32(e[v], x[v], j, groups, 4);
		}
		any = 0;
		for (unsigned int v = 0; v < nv; v++)
			any |= x[v] &= _mm512_test_epi32_mask(e[v], one);
	}
	for (unsigned int v = 0; v < nv; v++)
		_mm512_storeu_si512(nh + 16 * v, _mm512_srli_epi32(e[v], 1));
}
#endif

void
FIB_ISA(fib_lookup6_bulk)(const struct fib_table *t, const uint8_t *const dst[], uint32_t *nh,
			  unsigned int n)
{
	const uint32_t *tbl24 = tbl24_of(&t->v6), *groups = t->v6.groups;
	if (unlikely(mbt_is_small(tbl24))) {
		for (unsigned int i = 0; i < n; i++)
			nh[i] = small6(tbl24, groups, dst[i]);
		return;
	}
#if defined(__AVX512F__) && defined(__AVX512BW__)
	for (; n >= 128; n -= 128, dst += 128, nh += 128)
		lookup6_xv(tbl24, groups, dst, nh, 8);
	for (; n >= 64; n -= 64, dst += 64, nh += 64)
		lookup6_xv(tbl24, groups, dst, nh, 4);
#endif
	while (n > 0) {
		unsigned int c = n < CHUNK ? n : CHUNK;
		lookup6_chunk(tbl24, groups, dst, nh, c);
		dst += c;
		nh += c;
		n -= c;
	}
}
