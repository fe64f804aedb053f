/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FIB's instruction-set variants (isa.c). lookup.c and rules_match.c
 * are compiled twice: for the build's target, and, on x86-64, for
 * x86-64-v4 (AVX-512: FIB_ISA_AVX512), their burst functions named by
 * FIB_ISA(); isa.c's public functions call one of the two, chosen at
 * start from the processor (fib_isa_select). The rest of those files is
 * compiled once, in the build's own.
 */
#ifndef FIB_ISA_H
#define FIB_ISA_H

#include <stdbool.h>
#include <stdint.h>

#include "fib.h"

#ifdef FIB_ISA_AVX512
#define FIB_ISA(name) name##_avx512
#else
#define FIB_ISA(name) name##_base
#endif

#define FIB_ISA_FUNCTIONS(sfx)                                                                     \
	void fib_lookup4_bulk##sfx(const struct fib_table *t, const uint32_t *dst, uint32_t *nh,   \
				   unsigned int n);                                                \
	void fib_lookup6_bulk##sfx(const struct fib_table *t, const uint8_t *const dst[],          \
				   uint32_t *nh, unsigned int n);                                  \
	bool fib_lookup4_bulk_direct##sfx(void);                                                   \
	void fib_rule_route4_bulk##sfx(const struct fib *fib, const struct fib_rule_set *rules,    \
				       const uint32_t *src, const uint32_t *dst,                   \
				       const struct fib_flow *flow, uint32_t *nh, unsigned int n); \
	void fib_rule_route6_bulk##sfx(const struct fib *fib, const struct fib_rule_set *rules,    \
				       const uint8_t *const *src, const uint8_t *const *dst,       \
				       const struct fib_flow *flow, uint32_t *nh, unsigned int n);
FIB_ISA_FUNCTIONS(_base)
#ifdef FIB_ISA_HAVE_AVX512
FIB_ISA_FUNCTIONS(_avx512)
#endif

#endif
