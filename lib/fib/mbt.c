/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "defer.h"
#include "mbt.h"
#include "mem.h"

/* The key bits below the entries of a level: 104 for the first level,
 * then 8 fewer per level. */
static unsigned int
level_shift(unsigned int level)
{
	return 128 - MBT_TBL24_BITS - MBT_GROUP_BITS * level;
}

static size_t
groups_bytes(uint32_t n)
{
	return (size_t)n * MBT_GROUP_SIZE * sizeof(uint32_t);
}

int
mbt_init(struct mbt *m, unsigned int levels, uint32_t ngroups, struct defer *defer)
{
	if (ngroups > MBT_GROUPS_MAX)
		return -EINVAL;
	m->levels = (uint8_t)levels;
	m->ngroups = ngroups;
	m->fresh = m->nfree = m->used = 0;
	m->defer = defer;
	m->own_tbl24 = false;
	m->tbl24 = (uint32_t *)fib_mem_zero(MBT_TBL24_SIZE * sizeof(uint32_t));
	m->groups = fib_mem_alloc(groups_bytes(ngroups), false);
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
		fib_mem_free(m->tbl24, MBT_TBL24_SIZE * sizeof(uint32_t));
	m->own_tbl24 = false;
	fib_mem_free(m->groups, groups_bytes(m->ngroups));
	free(m->free_stack);
	m->tbl24 = m->groups = m->free_stack = NULL;
}

/* Writer: a group to fill; the dry run guaranteed one is available. */
static uint32_t
group_alloc(struct mbt *m)
{
	uint32_t g = m->nfree ? m->free_stack[--m->nfree] : m->fresh++;
	m->used++;
	return g;
}

static uint32_t
groups_available(const struct mbt *m)
{
	return m->nfree + (m->ngroups - m->fresh);
}

/* Defer callback: the grace period of group g has ended. */
static void
group_release(void *ctx, uint32_t g)
{
	struct mbt *m = ctx;
	m->free_stack[m->nfree++] = g;
	m->used--;
}

static uint32_t *
group_entries(const struct mbt *m, uint32_t ext_entry)
{
	return m->groups + (ext_entry >> 1);
}

/* Writer: queue an unpublished group and all groups below it. Cannot
 * fail: mbt_write reserved room in the defer queue. */
static void
free_subtree(struct mbt *m, uint32_t ext_entry, unsigned int level)
{
	const uint32_t *g = group_entries(m, ext_entry);
	if (level + 1 < m->levels) {
		for (unsigned int i = 0; i < MBT_GROUP_SIZE; i++)
			if (g[i] & MBT_EXT)
				free_subtree(m, g[i], level + 1);
	}
	(void)defer_push(m->defer, group_release, m, (ext_entry >> 1) / MBT_GROUP_SIZE);
}

/* True, with the value, when every entry of a group holds the same nexthop. */
static bool
group_uniform(const uint32_t *g, uint32_t *val)
{
	uint32_t v = g[0];
	if (v & MBT_EXT)
		return false;
	for (unsigned int i = 1; i < MBT_GROUP_SIZE; i++)
		if (g[i] != v)
			return false;
	*val = v;
	return true;
}

static inline void
entry_store(uint32_t *e, uint32_t v)
{
	__atomic_store_n(e, v, __ATOMIC_RELAXED);
}

/* Index range [*first, *last] of the entries of a table at `level`
 * (covering keys from base) that [lo, hi] touches. */
static void
entry_span(unsigned int level, fib_key_t base, fib_key_t lo, fib_key_t hi, uint32_t *first,
	   uint32_t *last)
{
	unsigned int shift = level_shift(level);
	*first = (uint32_t)((lo - base) >> shift);
	*last = (uint32_t)((hi - base) >> shift);
}

struct dry_run {
	const struct mbt *m;
	uint32_t val;
	uint32_t count;
	/* The last entry per level that the dry run gave a virtual child:
	 * consecutive ranges can share it, and the real run creates it once. */
	bool have_virtual[MBT_LEVELS6];
	fib_key_t virtual_key[MBT_LEVELS6];
};

/*
 * Count the groups writing [lo, hi] would create under a table at
 * `level`. tbl is NULL for a group the real run would have created by
 * now; all its entries then hold `fill`. Only the first and last entries
 * can be partly covered, and only those can need a group.
 */
static void
dry_table(struct dry_run *d, const uint32_t *tbl, uint32_t fill, unsigned int level, fib_key_t base,
	  fib_key_t lo, fib_key_t hi)
{
	unsigned int shift = level_shift(level);
	fib_key_t span = ((fib_key_t)1 << shift) - 1;
	uint32_t first, last;
	entry_span(level, base, lo, hi, &first, &last);

	for (uint32_t i = first; i <= last; i += (last > first ? last - first : 1)) {
		fib_key_t elo = base + ((fib_key_t)i << shift), ehi = elo | span;
		if (lo <= elo && hi >= ehi)
			continue;
		fib_key_t clo = lo > elo ? lo : elo, chi = hi < ehi ? hi : ehi;
		uint32_t e = tbl ? tbl[i] : fill;
		if (e & MBT_EXT) {
			dry_table(d, group_entries(d->m, e), 0, level + 1, elo, clo, chi);
			continue;
		}
		if (e == d->val)
			continue;
		if (!d->have_virtual[level] || d->virtual_key[level] != elo) {
			d->count++;
			d->have_virtual[level] = true;
			d->virtual_key[level] = elo;
		}
		dry_table(d, NULL, e, level + 1, elo, clo, chi);
	}
}

/* Write val into [lo, hi] of a table at `level` covering keys from base. */
static void
write_table(struct mbt *m, uint32_t *tbl, unsigned int level, fib_key_t base, fib_key_t lo,
	    fib_key_t hi, uint32_t val)
{
	unsigned int shift = level_shift(level);
	fib_key_t span = ((fib_key_t)1 << shift) - 1;
	uint32_t first, last;
	entry_span(level, base, lo, hi, &first, &last);

	for (uint32_t i = first; i <= last; i++) {
		fib_key_t elo = base + ((fib_key_t)i << shift), ehi = elo | span;
		uint32_t e = tbl[i];
		if (lo <= elo && hi >= ehi) {
			/* Whole entry: overwrite, then retire what hung below. */
			if (e != val) {
				entry_store(&tbl[i], val);
				if (e & MBT_EXT)
					free_subtree(m, e, level + 1);
			}
			continue;
		}
		fib_key_t clo = lo > elo ? lo : elo, chi = hi < ehi ? hi : ehi;
		if (!(e & MBT_EXT)) {
			if (e == val)
				continue;
			/* Split: a private copy of the entry, edited while no
			 * reader can see it, then published whole. The release
			 * orders the group's contents before the pointer. */
			uint32_t g = group_alloc(m);
			uint32_t *child = m->groups + (size_t)g * MBT_GROUP_SIZE;
			for (unsigned int k = 0; k < MBT_GROUP_SIZE; k++)
				child[k] = e;
			write_table(m, child, level + 1, elo, clo, chi, val);
			__atomic_store_n(&tbl[i], ((g * MBT_GROUP_SIZE) << 1) | MBT_EXT,
					 __ATOMIC_RELEASE);
			continue;
		}
		uint32_t *child = group_entries(m, e);
		write_table(m, child, level + 1, elo, clo, chi, val);
		uint32_t u;
		if (group_uniform(child, &u)) {
			/* Merge a group that now says one thing everywhere. */
			entry_store(&tbl[i], u);
			(void)defer_push(m->defer, group_release, m, (e >> 1) / MBT_GROUP_SIZE);
		}
	}
}

/* Writer: give the structure a first-level table of its own. It is all
 * zeros, as the shared one, so readers may switch at any time. */
static int
own_tbl24(struct mbt *m)
{
	uint32_t *t = fib_mem_alloc(MBT_TBL24_SIZE * sizeof(uint32_t), true);
	if (t == NULL)
		return -ENOMEM;
	__atomic_store_n(&m->tbl24, t, __ATOMIC_RELEASE);
	m->own_tbl24 = true;
	return 0;
}

int
mbt_write(struct mbt *m, const struct mbt_range *r, uint32_t n, uint32_t nh)
{
	uint32_t val = nh << 1;
	if (!m->own_tbl24 && val != 0 && own_tbl24(m) < 0)
		return -ENOMEM;
	struct dry_run d = {.m = m, .val = val};
	for (uint32_t i = 0; i < n; i++)
		dry_table(&d, m->tbl24, 0, 0, 0, r[i].lo, r[i].hi);
	if (d.count > groups_available(m)) {
		defer_reclaim(m->defer);
		if (d.count > groups_available(m))
			return -ENOSPC;
	}
	/* Every group in use, and every one about to be, may be retired. */
	if (defer_reserve(m->defer, m->used + d.count) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		write_table(m, m->tbl24, 0, 0, r[i].lo, r[i].hi, val);
	return 0;
}

uint32_t
mbt_get(const struct mbt *m, fib_key_t key)
{
	uint32_t e = m->tbl24[(uint32_t)(key >> level_shift(0))];
	for (unsigned int level = 1; e & MBT_EXT; level++)
		e = group_entries(m, e)[(uint32_t)(key >> level_shift(level)) & 0xff];
	return e >> 1;
}
