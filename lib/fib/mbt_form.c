/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A multibit trie's memory: its first level in each form (none of its
 * own while it has no route, reading the shared zero table; small, a
 * 2^16-entry level for tables other than main; full, 2^24 entries) and
 * the moves between them, each built whole and published by one release
 * store, what it replaced retired through the defer queue; and its group
 * pool. The writes themselves are mbt.c's.
 */
#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "defer.h"
#include "mbt_priv.h"
#include "mem.h"

/* The bytes of a first level of entry size esize, 2^24 entries (with the
 * IPv4 summary after them) or a small table's 2^16. */
static size_t
tbl24_size(unsigned int esize, bool small)
{
	if (small)
		return (size_t)MBT_SMALL_SIZE * esize + MBT_SLACK;
	if (esize == MBT_ESIZE4)
		return ((size_t)MBT_SUM4_OFF + MBT_SUM4_SIZE) * MBT_ESIZE4 + MBT_SLACK;
	return (size_t)MBT_TBL24_SIZE * esize + MBT_SLACK;
}

/* A first level, zeroed: a small one (128 or 256 KiB) on ordinary
 * pages, faulted in as used; a full one as fib_mem_alloc says. */
static void *
tbl24_alloc(unsigned int esize, bool small)
{
	size_t n = tbl24_size(esize, small);
	return small ? fib_mem_reserve(n) : fib_mem_alloc(n, true);
}

static void
tbl24_release(void *p, unsigned int esize, bool small)
{
	fib_mem_free(p, tbl24_size(esize, small));
}

size_t
mbt_first_level_bytes(const struct mbt *m)
{
	if (!m->own_tbl24)
		return 0;
	if (is_small(m))
		return (size_t)MBT_SMALL_SIZE * m->esize;
	/* The IPv4 summary counts; the slack does not. */
	return (size_t)MBT_TBL24_SIZE * m->esize +
	       (m->esize == MBT_ESIZE4 ? (size_t)MBT_SUM4_SIZE * MBT_ESIZE4 : 0);
}

/* The process's shared all-zero first level, large enough for either
 * family's (and the summary): what a family without routes reads. */
static void *
zero_tbl24(void)
{
	static_assert(((size_t)MBT_SUM4_OFF + MBT_SUM4_SIZE) * MBT_ESIZE4 <=
			      (size_t)MBT_TBL24_SIZE * MBT_ESIZE6,
		      "the shared zero table covers the IPv4 summary");
	return (void *)fib_mem_zero((size_t)MBT_TBL24_SIZE * MBT_ESIZE6 + MBT_SLACK);
}

static size_t
groups_bytes(const struct mbt *m)
{
	return (size_t)m->ngroups * MBT_GROUP_SIZE * m->esize + MBT_SLACK;
}

int
mbt_init(struct mbt *m, unsigned int levels, unsigned int esize, uint32_t ngroups,
	 uint32_t small_groups, struct defer *defer)
{
	if (ngroups > (esize == MBT_ESIZE4 ? MBT_GROUPS_MAX4 : MBT_GROUPS_MAX6))
		return -EINVAL;
	m->levels = (uint8_t)levels;
	m->small_groups = small_groups;
	m->esize = (uint8_t)esize;
	m->ngroups = ngroups;
	m->fresh = m->nfree = m->used = m->retiring = m->shrink_at = 0;
	m->reserve = ngroups / 64 < MBT_DELETE_RESERVE ? ngroups / 64 : MBT_DELETE_RESERVE;
	m->defer = defer;
	m->own_tbl24 = false;
	m->tbl24 = zero_tbl24();
	/* A small table's groups on 4 KiB pages: its first group would take
	 * a 2 MiB page of each pool. Huge pages once it grows (promote). */
	m->groups = small_groups ? fib_mem_reserve(groups_bytes(m))
				 : fib_mem_alloc(groups_bytes(m), false);
	m->free_stack = malloc(sizeof(uint32_t) * (ngroups ? ngroups : 1));
	if (m->tbl24 == NULL || m->groups == NULL || m->free_stack == NULL) {
		mbt_fini(m);
		return -ENOMEM;
	}
	return 0;
}

void
mbt_fini(struct mbt *m)
{
	if (m->own_tbl24)
		tbl24_release(first_level(m), m->esize, is_small(m));
	fib_mem_free(m->groups, groups_bytes(m));
	free(m->free_stack);
	m->own_tbl24 = false;
	m->tbl24 = m->groups = NULL;
	m->free_stack = NULL;
}

/* Writer: give the structure a first-level table of its own, small if
 * it may be. It is all zeros, as the shared one, so readers may switch
 * at any time; the tag tells them its width. */
int
mbt_own_tbl24(struct mbt *m)
{
	bool sm = m->small_groups != 0;
	void *t = tbl24_alloc(m->esize, sm);
	if (t == NULL)
		return -ENOMEM;
	__atomic_store_n(&m->tbl24, (void *)((uintptr_t)t | (sm ? MBT_SMALL_TAG : 0)),
			 __ATOMIC_RELEASE);
	m->own_tbl24 = true;
	return 0;
}

/* Defer callbacks: a first level that no reader can still be reading
 * (arg: its entry size, and 256 if it is a small one); a group that
 * none can reach. */
#define SMALL_ARG 256u
static void
tbl24_free(void *tbl, uint32_t arg)
{
	tbl24_release(tbl, arg & (SMALL_ARG - 1), (arg & SMALL_ARG) != 0);
}

/* Defer callback, queued behind a released first level: when no group
 * is in use any more (none was taken since), hand the pool's pages back
 * and start it afresh. Every group released before it has passed its
 * grace period, so no reader can reach one. */
static void
pool_trim(void *ctx, uint32_t unused)
{
	struct mbt *m = ctx;
	(void)unused;
	if (m->used != 0 || m->fresh == 0)
		return;
	fib_mem_discard(m->groups, (size_t)m->fresh * MBT_GROUP_SIZE * m->esize);
	m->fresh = m->nfree = 0;
	/* The family starts small again (unless it has grown since): 4 KiB
	 * pages, as mbt_init gave it. */
	if (m->small_groups != 0 && (!m->own_tbl24 || is_small(m)))
		fib_mem_huge(m->groups, groups_bytes(m), false);
}

int
mbt_release(struct mbt *m)
{
	if (!m->own_tbl24)
		return 0;
	if (defer_reserve(m->defer, 2) < 0)
		return -ENOMEM;
	void *old = first_level(m);
	uint32_t arg = m->esize | (is_small(m) ? SMALL_ARG : 0);
	/* Release: pairs with the readers' acquire (they read zeros either
	 * way: the old table holds only zeros too). */
	__atomic_store_n(&m->tbl24, zero_tbl24(), __ATOMIC_RELEASE);
	m->own_tbl24 = false;
	m->shrink_at = 0;
	(void)defer_push(m->defer, tbl24_free, old, arg);
	(void)defer_push(m->defer, pool_trim, m, 0);
	return 0;
}

/*
 * Writer: a small table that has grown past small_groups groups takes a
 * 2^24-entry first level. Entry x * 256 + y of the new one is entry y of
 * the group under small entry x, or small entry x itself when that leads
 * to no group; the groups below are shared as they are. The new level is
 * built whole, then published by one release store (a reader walks the
 * old or the new structure, each complete); the small level and the
 * groups it led to are retired through the defer queue. Without memory
 * for it the table stays small, which is correct, only larger.
 */
void
mbt_promote(struct mbt *m)
{
	const void *small = first_level(m);
	uint32_t ngroups = 0;
	for (uint32_t x = 0; x < MBT_SMALL_SIZE; x++)
		ngroups += ent_get(m, small, x) & MBT_EXT;
	if (defer_reserve(m->defer, ngroups + 1) < 0)
		return;
	uint8_t *big = tbl24_alloc(m->esize, false);
	if (big == NULL)
		return;
	const size_t run = (size_t)MBT_GROUP_SIZE * m->esize;
	uint16_t *sum = (uint16_t *)big + MBT_SUM4_OFF;
	for (uint32_t x = 0; x < MBT_SMALL_SIZE; x++) {
		uint32_t e = ent_get(m, small, x);
		uint8_t *dst = big + x * run;
		/* Plain stores (vector code): no reader sees this level yet. */
		if (e & MBT_EXT)
			memcpy(dst, child_of(m, e), run);
		else if (m->esize == MBT_ESIZE4)
			for (uint32_t k = 0; k < MBT_GROUP_SIZE; k++)
				((uint16_t *)dst)[k] = (uint16_t)e;
		else
			for (uint32_t k = 0; k < MBT_GROUP_SIZE; k++)
				((uint32_t *)dst)[k] = e;
		/* A group is never uniform (writes merge those), so a /16
		 * that had one is mixed. */
		if (m->esize == MBT_ESIZE4)
			sum[x] = (uint16_t)((e & MBT_EXT) ? MBT_EXT : e);
	}
	__atomic_store_n(&m->tbl24, (void *)big, __ATOMIC_RELEASE);
	fib_mem_huge(m->groups, groups_bytes(m), true);
	/* The groups first: without readers (no QSBR) a push frees at once. */
	for (uint32_t x = 0; x < MBT_SMALL_SIZE; x++) {
		uint32_t e = ent_get(m, small, x);
		if (e & MBT_EXT)
			mbt_group_retire(m, e >> 1);
	}
	(void)defer_push(m->defer, tbl24_free, (void *)small, m->esize | SMALL_ARG);
}

/* Whether the 256 first-level entries of /16 x (a full level's) hold
 * one value and no group: IPv4 reads its summary, IPv6 the entries, as
 * a group's. */
static bool
run_uniform(const struct mbt *m, const void *big, uint32_t x)
{
	if (m->esize == MBT_ESIZE4)
		return !(((const uint16_t *)big)[MBT_SUM4_OFF + x] & MBT_EXT);
	uint32_t v;
	return mbt_group_uniform(m, (const uint8_t *)big + (size_t)x * MBT_GROUP_SIZE * m->esize,
				 &v);
}

/*
 * Writer: a grown table whose groups have fallen to a quarter of
 * small_groups takes the small form again, promote's inverse: small
 * entry x holds the value of /16 x when its 256 first-level entries all
 * hold that one, else leads to a new group holding those 256 entries as
 * they are (the groups below shared). It needs a group for each mixed
 * /16 and is made only when the table then uses at most half of
 * small_groups, so that it does not flap between the forms. Built
 * whole, published by one release store, the full level retired
 * through the defer queue. Without room it stays full, which is
 * correct, only larger.
 */
void
mbt_demote(struct mbt *m)
{
	void *big = first_level(m);
	uint32_t budget = m->small_groups / 2;
	if (groups_live(m) > budget)
		return;
	budget -= groups_live(m);
	if (budget > mbt_groups_available(m, false))
		budget = mbt_groups_available(m, false);
	/* The mixed /16s, in order. IPv6 reads its 64 MiB level for this:
	 * stop at the first /16 over the budget. */
	uint32_t *mixed = malloc(sizeof(uint32_t) * (budget + 1)), n = 0;
	if (mixed == NULL)
		return;
	for (uint32_t x = 0; x < MBT_SMALL_SIZE && n <= budget; x++)
		if (!run_uniform(m, big, x))
			mixed[n++] = x;
	void *small = NULL;
	if (n <= budget && defer_reserve(m->defer, 1) == 0)
		small = tbl24_alloc(m->esize, true);
	if (small == NULL) {
		free(mixed);
		return;
	}
	const size_t run = (size_t)MBT_GROUP_SIZE * m->esize;
	for (uint32_t x = 0, j = 0; x < MBT_SMALL_SIZE; x++) {
		const uint8_t *from = (const uint8_t *)big + x * run;
		/* Plain stores: no reader sees this level or its new groups
		 * yet. A uniform /16's value is its first entry. */
		if (j == n || mixed[j] != x) {
			ent_put(m, small, x, ent_get(m, from, 0));
			continue;
		}
		j++;
		uint32_t g = mbt_group_alloc(m);
		memcpy(group_at(m, g), from, run);
		ent_put(m, small, x, (g << 1) | MBT_EXT);
	}
	free(mixed);
	__atomic_store_n(&m->tbl24, (void *)((uintptr_t)small | MBT_SMALL_TAG), __ATOMIC_RELEASE);
	(void)defer_push(m->defer, tbl24_free, big, m->esize);
}
