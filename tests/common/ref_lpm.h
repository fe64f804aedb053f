/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The reference the FIB is checked against: the simplest correct
 * longest-prefix match we could write: per prefix length, a hash set of
 * (prefix, value); a lookup probes every length from the longest down.
 * No code or idea shared with lib/fib's structures.
 */
#ifndef TEST_REF_LPM_H
#define TEST_REF_LPM_H

#include <stdint.h>

#include "fib.h"

struct ref_lpm;

struct ref_lpm *ref_create(uint8_t family);
void ref_free(struct ref_lpm *r);
/* Set or overwrite the value of a prefix; value 0 removes it. */
void ref_set(struct ref_lpm *r, const struct fib_prefix *p, uint32_t value);
/* Sort after a series of ref_set calls, before lookups. */
void ref_commit(struct ref_lpm *r);
/* Value of the longest prefix containing the address (dst.len ignored), or 0. */
uint32_t ref_lookup(const struct ref_lpm *r, const struct fib_prefix *addr);

#endif
