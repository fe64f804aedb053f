/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Deferred reclamation for the writer. Memory a reader may still be
 * walking is queued with a QSBR token and released only once every
 * registered reader has reported a quiescent state after the token was
 * taken. Writer thread only; no locking.
 */
#ifndef FIB_DEFER_H
#define FIB_DEFER_H

#include <stdint.h>

struct rte_rcu_qsbr;

typedef void (*defer_fn)(void *ctx, uint32_t arg);

struct defer_item {
	uint64_t token;
	defer_fn fn;
	void *ctx;
	uint32_t arg;
};

struct defer {
	struct rte_rcu_qsbr *qsbr; /* NULL: no readers, release at once */
	struct defer_item *items;  /* ring, capacity a power of two */
	uint32_t cap, head, count;
};

void defer_init(struct defer *d, struct rte_rcu_qsbr *qsbr);
/* Release everything still queued, readers or not: for teardown only. */
void defer_fini(struct defer *d);
/* Make room for n more items, so that the next n pushes cannot fail.
 * @return 0 or -ENOMEM. */
int defer_reserve(struct defer *d, uint32_t n);
/* @return 0 or -ENOMEM, in which case nothing was queued. */
int defer_push(struct defer *d, defer_fn fn, void *ctx, uint32_t arg);
/* Release what no reader can still see; never waits. @return count. */
uint32_t defer_reclaim(struct defer *d);

#endif
