/* SPDX-License-Identifier: BSD-3-Clause */
/* Reader for the vendored prefix tables (bench/data), shared by tests and
 * benchmarks: one "PREFIX/LEN ASN" a line, gzip-compressed. */
#ifndef TEST_PREFIX_FILE_H
#define TEST_PREFIX_FILE_H

#include <stdint.h>

#include "fib.h"

struct prefix_list {
	struct fib_prefix *p;
	uint32_t *asn;
	uint32_t n;
};

/* Load a table; path may end in .gz. @return 0 or -errno. */
int prefix_list_load(const char *path, struct prefix_list *out);
void prefix_list_free(struct prefix_list *l);
/* Drop repeated prefixes, keeping the first of each, in file order.
 * @return how many were dropped. */
uint32_t prefix_list_dedup(struct prefix_list *l);
/* The path of a vendored table: $ROUTER_DATA/name, else bench/data/name
 * relative to the source tree given at build time. */
const char *prefix_data_path(const char *name);
/* An address inside p: p's bits, then host bits from two random words.
 * out: network byte order, 4 or 16 bytes by family. */
void prefix_pick(const struct fib_prefix *p, uint64_t r1, uint64_t r2, uint8_t out[16]);

/* Parse "a.b.c.d/len" or an IPv6 CIDR. @return 0 or -EINVAL. */
int prefix_parse(const char *s, struct fib_prefix *p);

#endif
