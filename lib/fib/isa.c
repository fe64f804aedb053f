/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The instruction set of the burst lookups and rule walks (isa.h): chosen
 * when the program loads from what the processor has, and again by the
 * program (fib_isa_select) with the width DPDK allows, so that one
 * binary built for a baseline runs the AVX-512 lookups where they exist,
 * as DPDK's rte_fib picks its AVX-512 lookup at run time. A call costs a
 * branch on a word that never changes while traffic flows.
 */
#include <errno.h>

#include <rte_cpuflags.h>

#include "isa.h"

static bool use_avx512;

/* The processor has x86-64-v4's instructions (what the variant was
 * compiled for): AVX-512 F, BW, CD, DQ and VL, over x86-64-v3's (AVX2,
 * FMA, BMI; DPDK 22.11 does not report LZCNT, which every processor with
 * AVX-512 has). */
static bool
cpu_v4(void)
{
#ifdef FIB_ISA_HAVE_AVX512
	static const enum rte_cpu_flag_t need[] = {
		RTE_CPUFLAG_AVX512F,  RTE_CPUFLAG_AVX512BW, RTE_CPUFLAG_AVX512CD,
		RTE_CPUFLAG_AVX512DQ, RTE_CPUFLAG_AVX512VL, RTE_CPUFLAG_AVX2,
		RTE_CPUFLAG_FMA,      RTE_CPUFLAG_BMI1,     RTE_CPUFLAG_BMI2,
		RTE_CPUFLAG_F16C,     RTE_CPUFLAG_MOVBE,
	};
	for (unsigned int i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (rte_cpu_get_flag_enabled(need[i]) <= 0)
			return false;
	return true;
#else
	return false;
#endif
}

const char *
fib_isa_select(unsigned int max_simd_bits)
{
	use_avx512 = max_simd_bits >= 512 && cpu_v4();
	return fib_isa_name();
}

/* At load: the processor's best, for programs that never choose (the
 * unit tests, the benchmarks). */
static void __attribute__((constructor)) isa_at_load(void)
{
	fib_isa_select(512);
}

int
fib_isa_force(bool avx512)
{
	if (avx512 && !cpu_v4())
		return -ENOTSUP;
	use_avx512 = avx512;
	return 0;
}

bool
fib_isa_avx512(void)
{
	return use_avx512;
}

const char *
fib_isa_name(void)
{
	return use_avx512 ? "avx512" : "base";
}

#ifdef FIB_ISA_HAVE_AVX512
#define DISPATCH(call, args) (use_avx512 ? call##_avx512 args : call##_base args)
#else
#define DISPATCH(call, args) call##_base args
#endif

void
fib_lookup4_bulk(const struct fib_table *t, const uint32_t *dst, uint32_t *nh, unsigned int n)
{
	DISPATCH(fib_lookup4_bulk, (t, dst, nh, n));
}

void
fib_lookup6_bulk(const struct fib_table *t, const uint8_t *const dst[], uint32_t *nh,
		 unsigned int n)
{
	DISPATCH(fib_lookup6_bulk, (t, dst, nh, n));
}

bool
fib_lookup4_bulk_direct(void)
{
	return DISPATCH(fib_lookup4_bulk_direct, ());
}

void
fib_rule_route4_bulk(const struct fib *fib, const struct fib_rule_set *rules, const uint32_t *src,
		     const uint32_t *dst, const struct fib_flow *flow, uint32_t *nh, unsigned int n)
{
	DISPATCH(fib_rule_route4_bulk, (fib, rules, src, dst, flow, nh, n));
}

void
fib_rule_route6_bulk(const struct fib *fib, const struct fib_rule_set *rules,
		     const uint8_t *const *src, const uint8_t *const *dst,
		     const struct fib_flow *flow, uint32_t *nh, unsigned int n)
{
	DISPATCH(fib_rule_route6_bulk, (fib, rules, src, dst, flow, nh, n));
}
