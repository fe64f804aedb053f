/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One routing table: per family a RIB (writer only) and a lookup
 * structure (read by workers). The reader-visible part of each family is
 * the two array pointers at the top of its mbt, on a cache line the
 * writer does not write after creation.
 */
#ifndef FIB_TABLE_H
#define FIB_TABLE_H

#include <stdint.h>

#include "fib.h"
#include "mbt.h"
#include "rib.h"

struct defer;

struct fib_table {
	struct mbt v4;
	struct mbt v6;
	/* Writer only. */
	uint32_t id;
	const uint32_t *type_nh; /* fib_conf.type_nh */
	const struct fib_conf *conf;
	struct rib rib4;
	struct rib rib6;
	struct range_buf ranges; /* scratch for updates */
};

struct fib_table *table_create(uint32_t id, const struct fib_conf *conf, struct defer *defer);
void table_free(struct fib_table *t);

int table_route_add(struct fib_table *t, const struct fib_route *r, bool replace);
int table_route_del(struct fib_table *t, const struct fib_route *r, bool any_metric);
int table_route_get(const struct fib_table *t, const struct fib_route *key, bool any_metric,
		    struct fib_route *out);
int table_route_match(const struct fib_table *t, const struct fib_prefix *addr,
		      struct fib_route *out);
int table_route_walk(const struct fib_table *t, uint8_t family, fib_route_cb cb, void *arg);
uint32_t table_route_count(const struct fib_table *t, uint8_t family);
int table_sync_down(struct fib_table *t);
void table_mem(const struct fib_table *t, struct fib_mem_stats *st);

/* Whether the calling thread's full IPv4 bursts now skip the /16 summary
 * (lookup.c says when they do); for tests. */
bool fib_lookup4_bulk_direct(void);

#endif
