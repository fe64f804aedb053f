/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>

#include <rte_rcu_qsbr.h>

#include "defer.h"

void
defer_init(struct defer *d, struct rte_rcu_qsbr *qsbr)
{
	d->qsbr = qsbr;
	d->items = NULL;
	d->cap = d->head = d->count = 0;
}

static struct defer_item *
item_at(struct defer *d, uint32_t i)
{
	return &d->items[(d->head + i) & (d->cap - 1)];
}

void
defer_fini(struct defer *d)
{
	for (uint32_t i = 0; i < d->count; i++) {
		struct defer_item *it = item_at(d, i);
		it->fn(it->ctx, it->arg);
	}
	free(d->items);
	defer_init(d, d->qsbr);
}

static int
grow(struct defer *d, uint32_t need)
{
	uint32_t ncap = d->cap ? d->cap : 256;
	while (ncap < need)
		ncap *= 2;
	struct defer_item *n = malloc(sizeof(*n) * ncap);
	if (n == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < d->count; i++)
		n[i] = *item_at(d, i);
	free(d->items);
	d->items = n;
	d->cap = ncap;
	d->head = 0;
	return 0;
}

int
defer_reserve(struct defer *d, uint32_t n)
{
	if (d->qsbr == NULL || d->cap - d->count >= n)
		return 0;
	return grow(d, d->count + n);
}

int
defer_push(struct defer *d, defer_fn fn, void *ctx, uint32_t arg)
{
	if (d->qsbr == NULL) {
		fn(ctx, arg);
		return 0;
	}
	if (d->count == d->cap && grow(d, d->cap + 1) < 0)
		return -ENOMEM;
	struct defer_item *it = item_at(d, d->count);
	/* The token is taken after the caller unpublished the memory; a
	 * reader that reports quiescence after this point cannot hold it. */
	it->token = rte_rcu_qsbr_start(d->qsbr);
	it->fn = fn;
	it->ctx = ctx;
	it->arg = arg;
	d->count++;
	return 0;
}

uint32_t
defer_reclaim(struct defer *d)
{
	uint32_t n = 0;
	/* Tokens grow monotonically, so the first item still in its grace
	 * period ends the scan. */
	while (d->count > 0) {
		struct defer_item *it = item_at(d, 0);
		if (rte_rcu_qsbr_check(d->qsbr, it->token, false) != 1)
			break;
		it->fn(it->ctx, it->arg);
		d->head = (d->head + 1) & (d->cap - 1);
		d->count--;
		n++;
	}
	return n;
}
