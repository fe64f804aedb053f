/* SPDX-License-Identifier: BSD-3-Clause */
/* The pseudo-random numbers of the benchmarks and the unit tests:
 * xorshift64, fast and the same from run to run for a seed (not zero). */
#ifndef XORSHIFT_H
#define XORSHIFT_H

#include <stdint.h>

static inline uint64_t
xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

#endif
