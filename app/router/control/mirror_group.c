/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel mirror's multipath nexthops, one per set of paths. A daemon
 * that spreads a full table over two upstreams writes every route with
 * the same paths (FRR through one nexthop object, BIRD inline): one
 * routerd group for each would take a nexthop index and a bucket table a
 * route, and the 32K indices run out long before the table does. So
 * routes with the same members (the same gateways and weights) share one
 * implicit group, counted here by its users; it goes with the last.
 *
 * A new set of members starts from the buckets of what the route had
 * (nh_group_add_like): when a daemon replaces every route's nexthop as an
 * upstream goes or comes, flows move as if the group had changed in
 * place, only those of the path that went or that the new one needs; and
 * since the first route's new group is the one the others then share,
 * all of them move alike.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mirror_priv.h"

#define HEADS 4096 /* chains of a few at most: indices are 32K */

struct mgroup {
	struct mgroup *next;
	uint32_t index; /* routerd's implicit group */
	uint32_t users; /* the mirror's routes through it */
	uint32_t hash;
	uint16_t n;
	struct nh_member m[NLR_PATHS_MAX]; /* by index, ascending */
};

static struct mgroup *head[HEADS];
static struct mgroup *by_index[NH_INDEX_MAX + 1];

static int
by_member(const void *a, const void *b)
{
	const struct nh_member *x = a, *y = b;
	return x->index < y->index ? -1 : x->index > y->index;
}

static uint32_t
hash_of(const struct nh_member *m, unsigned int n)
{
	uint32_t h = 2166136261u;
	for (unsigned int i = 0; i < n; i++) {
		h = (h ^ m[i].index) * 16777619u;
		h = (h ^ m[i].weight) * 16777619u;
	}
	return h;
}

/* Field by field: a member's padding is whatever the caller's stack had. */
static bool
same(const struct mgroup *g, const struct nh_member *m, unsigned int n)
{
	if (g->n != n)
		return false;
	for (unsigned int i = 0; i < n; i++)
		if (g->m[i].index != m[i].index || g->m[i].weight != m[i].weight)
			return false;
	return true;
}

int
rt_mgroup_get(struct router *r, struct nh_member *m, unsigned int n, uint32_t like, uint32_t *index)
{
	qsort(m, n, sizeof(*m), by_member);
	uint32_t h = hash_of(m, n);
	for (struct mgroup *g = head[h % HEADS]; g != NULL; g = g->next)
		if (g->hash == h && same(g, m, n)) {
			nh_ref(r->nh, g->index);
			g->users++;
			*index = g->index;
			return 0;
		}
	struct mgroup *g = malloc(sizeof(*g));
	if (g == NULL)
		return -ENOMEM;
	int rc = nh_group_add_like(r->nh, m, n, like, index);
	if (rc < 0) {
		free(g);
		return rc;
	}
	*g = (struct mgroup){
		.next = head[h % HEADS], .index = *index, .users = 1, .hash = h, .n = (uint16_t)n};
	memcpy(g->m, m, sizeof(*m) * n);
	head[h % HEADS] = g;
	by_index[*index] = g;
	r->mirror.groups++;
	return 0;
}

void
rt_mgroup_put(struct router *r, uint32_t index)
{
	struct mgroup *g = index <= NH_INDEX_MAX ? by_index[index] : NULL;
	nh_unref(r->nh, index);
	if (g == NULL || --g->users > 0)
		return;
	struct mgroup **p = &head[g->hash % HEADS];
	while (*p != g)
		p = &(*p)->next;
	*p = g->next;
	by_index[index] = NULL;
	free(g);
	r->mirror.groups--;
}

void
rt_mgroup_fini(void)
{
	for (unsigned int i = 0; i < HEADS; i++)
		while (head[i] != NULL) {
			struct mgroup *g = head[i];
			head[i] = g->next;
			by_index[g->index] = NULL;
			free(g);
		}
}
