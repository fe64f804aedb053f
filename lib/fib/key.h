/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Addresses of both families as one 128-bit key, most significant bit
 * first: an IPv4 address sits in the top 32 bits. The RIB and the lookup
 * structures share this so that one implementation serves both families;
 * the cost is a few 128-bit shifts on the control path only.
 */
#ifndef FIB_KEY_H
#define FIB_KEY_H

#include <stdint.h>
#include <string.h>

typedef unsigned __int128 fib_key_t;

static inline fib_key_t
key_from_v4(uint32_t a)
{
	return (fib_key_t)a << 96;
}

/* A big-endian 64-bit number at p. */
static inline uint64_t
key_be64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	v = __builtin_bswap64(v);
#endif
	return v;
}

/* Two loads and two byte swaps, not a loop over bytes: the rule walk
 * builds two keys a packet. */
static inline fib_key_t
key_from_v6(const uint8_t a[16])
{
	return (fib_key_t)key_be64(a) << 64 | key_be64(a + 8);
}

static inline uint32_t
key_to_v4(fib_key_t k)
{
	return (uint32_t)(k >> 96);
}

static inline void
key_to_v6(fib_key_t k, uint8_t a[16])
{
	for (int i = 15; i >= 0; i--) {
		a[i] = (uint8_t)k;
		k >>= 8;
	}
}

/* Mask of the host part of a /len: the low 128 - len bits. */
static inline fib_key_t
key_host_mask(unsigned int len)
{
	return len == 0 ? ~(fib_key_t)0 : (((fib_key_t)1 << (128 - len)) - 1);
}

static inline fib_key_t
key_prefix(fib_key_t k, unsigned int len)
{
	return k & ~key_host_mask(len);
}

/* Bit pos (0 = most significant). */
static inline unsigned int
key_bit(fib_key_t k, unsigned int pos)
{
	return (unsigned int)(k >> (127 - pos)) & 1;
}

/* Length of the common prefix of a and b, 0..128. */
static inline unsigned int
key_common_len(fib_key_t a, fib_key_t b)
{
	fib_key_t x = a ^ b;
	uint64_t hi = (uint64_t)(x >> 64), lo = (uint64_t)x;
	if (hi)
		return (unsigned int)__builtin_clzll(hi);
	if (lo)
		return 64 + (unsigned int)__builtin_clzll(lo);
	return 128;
}

#endif /* FIB_KEY_H */
