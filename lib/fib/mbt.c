/* SPDX-License-Identifier: BSD-3-Clause */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "defer.h"
#include "mbt.h"
#include "mem.h"

/* The writer's view of the first level: the pointer it stored (its
 * tag says whether it is small) without the tag. */
static inline bool
is_small(const struct mbt *m)
{
	return mbt_is_small(m->tbl24);
}

static inline void *
first_level(const struct mbt *m)
{
	return mbt_untag(m->tbl24);
}

/* Levels of the current form: one more while small. */
static inline unsigned int
levels(const struct mbt *m)
{
	return m->levels + is_small(m);
}

/* The key bits below the entries of a level: 104 for a 24-bit first
 * level (112 for a small table's 16-bit one), then 8 fewer per level. */
static unsigned int
level_shift(const struct mbt *m, unsigned int level)
{
	unsigned int bits0 = is_small(m) ? MBT_SMALL_BITS : MBT_TBL24_BITS;
	return 128 - bits0 - MBT_GROUP_BITS * level;
}

/* Whether the first level has a /16 summary after it: IPv4's, 24 bits
 * wide (mbt.h). */
static inline bool
has_summary(const struct mbt *m)
{
	return m->esize == MBT_ESIZE4 && !is_small(m);
}

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

/* Entry accessors. The writer's stores are single aligned stores, which
 * readers see whole; relaxed is enough where nothing else is published
 * with the value. */
static inline uint32_t
ent_get(const struct mbt *m, const void *tbl, uint32_t i)
{
	return m->esize == 2 ? ((const uint16_t *)tbl)[i] : ((const uint32_t *)tbl)[i];
}

static inline void
ent_put(const struct mbt *m, void *tbl, uint32_t i, uint32_t v)
{
	if (m->esize == 2)
		__atomic_store_n(&((uint16_t *)tbl)[i], (uint16_t)v, __ATOMIC_RELAXED);
	else
		__atomic_store_n(&((uint32_t *)tbl)[i], v, __ATOMIC_RELAXED);
}

/* Publish a child group: the release orders the group's contents before
 * the entry that leads to it. */
static inline void
ent_publish(const struct mbt *m, void *tbl, uint32_t i, uint32_t v)
{
	if (m->esize == 2)
		__atomic_store_n(&((uint16_t *)tbl)[i], (uint16_t)v, __ATOMIC_RELEASE);
	else
		__atomic_store_n(&((uint32_t *)tbl)[i], v, __ATOMIC_RELEASE);
}

static inline void *
group_at(const struct mbt *m, uint32_t g)
{
	return (uint8_t *)m->groups + (size_t)g * MBT_GROUP_SIZE * m->esize;
}

/* The group an extended entry leads to. */
static inline void *
child_of(const struct mbt *m, uint32_t ext_entry)
{
	return group_at(m, ext_entry >> 1);
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

/* Writer: a group to fill; the dry run guaranteed one is available. */
static uint32_t
group_alloc(struct mbt *m)
{
	uint32_t g = m->nfree ? m->free_stack[--m->nfree] : m->fresh++;
	m->used++;
	return g;
}

/* Groups a write may take: all that are free for a delete, all but the
 * reserve otherwise. */
static uint32_t
groups_available(const struct mbt *m, bool for_delete)
{
	uint32_t free = m->nfree + (m->ngroups - m->fresh);
	if (for_delete)
		return free;
	return free > m->reserve ? free - m->reserve : 0;
}

/* Defer callback: the grace period of group g has ended. */
static void
group_release(void *ctx, uint32_t g)
{
	struct mbt *m = ctx;
	m->free_stack[m->nfree++] = g;
	m->used--;
	m->retiring--;
}

/* Writer: queue group g, which no reader can reach any more, for reuse
 * after its grace period. Cannot fail: room was reserved. */
static void
group_retire(struct mbt *m, uint32_t g)
{
	m->retiring++;
	(void)defer_push(m->defer, group_release, m, g);
}

/* Groups in use, not counting those awaiting their grace period. */
static inline uint32_t
groups_live(const struct mbt *m)
{
	return m->used - m->retiring;
}

/* Writer: queue an unpublished group and all groups below it. Cannot
 * fail: mbt_write reserved room in the defer queue. */
static void
free_subtree(struct mbt *m, uint32_t ext_entry, unsigned int level)
{
	const void *g = child_of(m, ext_entry);
	if (level + 1 < levels(m)) {
		for (uint32_t i = 0; i < MBT_GROUP_SIZE; i++) {
			uint32_t e = ent_get(m, g, i);
			if (e & MBT_EXT)
				free_subtree(m, e, level + 1);
		}
	}
	group_retire(m, ext_entry >> 1);
}

/* True, with the value, when every entry of a group holds one nexthop. */
static bool
group_uniform(const struct mbt *m, const void *g, uint32_t *val)
{
	uint32_t v = ent_get(m, g, 0);
	if (v & MBT_EXT)
		return false;
	for (uint32_t i = 1; i < MBT_GROUP_SIZE; i++)
		if (ent_get(m, g, i) != v)
			return false;
	*val = v;
	return true;
}

/*
 * How [lo, hi] meets a table at `level` that covers keys from base:
 * entries first..last are touched, and the ones strictly inside
 * (full_first..full_last, possibly empty) are covered whole. Only the
 * first and last can be partial, and only partial entries need groups.
 */
struct span {
	uint32_t first, last;
	int64_t full_first, full_last; /* full_first > full_last: none */
	fib_key_t entry_mask;          /* keys per entry, minus one */
};

static struct span
span_of(const struct mbt *m, unsigned int level, fib_key_t base, fib_key_t lo, fib_key_t hi)
{
	unsigned int shift = level_shift(m, level);
	struct span s = {.entry_mask = ((fib_key_t)1 << shift) - 1};
	s.first = (uint32_t)((lo - base) >> shift);
	s.last = (uint32_t)((hi - base) >> shift);
	s.full_first = (int64_t)s.first + ((lo & s.entry_mask) != 0);
	s.full_last = (int64_t)s.last - ((hi & s.entry_mask) != s.entry_mask);
	return s;
}

/* Key range of entry i of a table covering keys from base, clipped to [lo, hi]. */
static void
clip(const struct mbt *m, const struct span *s, unsigned int level, fib_key_t base, uint32_t i,
     fib_key_t lo, fib_key_t hi, fib_key_t *elo, fib_key_t *clo, fib_key_t *chi)
{
	*elo = base + ((fib_key_t)i << level_shift(m, level));
	fib_key_t ehi = *elo | s->entry_mask;
	*clo = lo > *elo ? lo : *elo;
	*chi = hi < ehi ? hi : ehi;
}

static bool
partial(const struct span *s, uint32_t i)
{
	return (int64_t)i < s->full_first || (int64_t)i > s->full_last;
}

struct dry_run {
	const struct mbt *m;
	uint32_t val;
	uint32_t count;
	/* The last entry per level that the dry run gave a virtual child:
	 * consecutive ranges can share it, and the real run creates it once. */
	bool have_virtual[MBT_LEVELS6 + 1];
	fib_key_t virtual_key[MBT_LEVELS6 + 1];
};

/*
 * Count the groups writing [lo, hi] would create under a table at
 * `level`. tbl is NULL for a group the real run would have created by
 * now; all its entries then hold `fill`.
 */
static void
dry_table(struct dry_run *d, const void *tbl, uint32_t fill, unsigned int level, fib_key_t base,
	  fib_key_t lo, fib_key_t hi)
{
	struct span s = span_of(d->m, level, base, lo, hi);
	uint32_t edge[2] = {s.first, s.last};
	for (unsigned int k = 0; k < (s.last > s.first ? 2u : 1u); k++) {
		uint32_t i = edge[k];
		if (!partial(&s, i))
			continue;
		fib_key_t elo, clo, chi;
		clip(d->m, &s, level, base, i, lo, hi, &elo, &clo, &chi);
		uint32_t e = tbl ? ent_get(d->m, tbl, i) : fill;
		if (e & MBT_EXT) {
			dry_table(d, child_of(d->m, e), 0, level + 1, elo, clo, chi);
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

static void write_table(struct mbt *m, void *tbl, unsigned int level, fib_key_t base, fib_key_t lo,
			fib_key_t hi, uint32_t val);

/* Write val into the part [clo, chi] of entry i, which it does not cover. */
static void
write_partial(struct mbt *m, void *tbl, unsigned int level, uint32_t i, fib_key_t elo,
	      fib_key_t clo, fib_key_t chi, uint32_t val)
{
	uint32_t e = ent_get(m, tbl, i);
	if (!(e & MBT_EXT)) {
		if (e == val)
			return;
		/* Split: a private copy of the entry, edited while no reader
		 * can see it, then published whole. */
		uint32_t g = group_alloc(m);
		void *child = group_at(m, g);
		for (uint32_t k = 0; k < MBT_GROUP_SIZE; k++)
			ent_put(m, child, k, e);
		write_table(m, child, level + 1, elo, clo, chi, val);
		ent_publish(m, tbl, i, (g << 1) | MBT_EXT);
		return;
	}
	void *child = child_of(m, e);
	write_table(m, child, level + 1, elo, clo, chi, val);
	uint32_t u;
	if (group_uniform(m, child, &u)) {
		/* Merge a group that now says one thing everywhere. */
		ent_put(m, tbl, i, u);
		group_retire(m, e >> 1);
	}
}

/* True if any entry of [first, last] leads to a group. */
static bool
any_ext(const struct mbt *m, const void *tbl, uint32_t first, uint32_t last)
{
	uint32_t acc = 0;
	if (m->esize == 2)
		for (uint32_t i = first; i <= last; i++)
			acc |= ((const uint16_t *)tbl)[i];
	else
		for (uint32_t i = first; i <= last; i++)
			acc |= ((const uint32_t *)tbl)[i];
	return acc & MBT_EXT;
}

/*
 * Overwrite whole entries [first, last] with val, retiring the groups
 * below them. Most runs of a full table have no group under them (a /8
 * is 65536 first-level entries), and for those the loops below compile
 * to vector code: a scan, then a fill. The fill uses plain stores: each
 * aligned entry is still written whole, which is all readers rely on.
 */
static void
fill(struct mbt *m, void *tbl, unsigned int level, uint32_t first, uint32_t last, uint32_t val)
{
	if (any_ext(m, tbl, first, last)) {
		for (uint32_t i = first; i <= last; i++) {
			uint32_t e = ent_get(m, tbl, i);
			if (e == val)
				continue;
			ent_put(m, tbl, i, val);
			if (e & MBT_EXT)
				free_subtree(m, e, level + 1);
		}
	} else if (m->esize == 2) {
		for (uint32_t i = first; i <= last; i++)
			((uint16_t *)tbl)[i] = (uint16_t)val;
	} else {
		for (uint32_t i = first; i <= last; i++)
			((uint32_t *)tbl)[i] = val;
	}
}

/* Write val into [lo, hi] of a table at `level` covering keys from base. */
static void
write_table(struct mbt *m, void *tbl, unsigned int level, fib_key_t base, fib_key_t lo,
	    fib_key_t hi, uint32_t val)
{
	struct span s = span_of(m, level, base, lo, hi);
	fib_key_t elo, clo, chi;
	if (partial(&s, s.first)) {
		clip(m, &s, level, base, s.first, lo, hi, &elo, &clo, &chi);
		write_partial(m, tbl, level, s.first, elo, clo, chi, val);
	}
	if (s.full_first <= s.full_last)
		fill(m, tbl, level, (uint32_t)s.full_first, (uint32_t)s.full_last, val);
	if (s.last != s.first && partial(&s, s.last)) {
		clip(m, &s, level, base, s.last, lo, hi, &elo, &clo, &chi);
		write_partial(m, tbl, level, s.last, elo, clo, chi, val);
	}
}

/* Writer: give the structure a first-level table of its own, small if
 * it may be. It is all zeros, as the shared one, so readers may switch
 * at any time; the tag tells them its width. */
static int
own_tbl24(struct mbt *m)
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
static void
promote(struct mbt *m)
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
			group_retire(m, e >> 1);
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
	return group_uniform(m, (const uint8_t *)big + (size_t)x * MBT_GROUP_SIZE * m->esize, &v);
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
static void
demote(struct mbt *m)
{
	void *big = first_level(m);
	uint32_t budget = m->small_groups / 2;
	if (groups_live(m) > budget)
		return;
	budget -= groups_live(m);
	if (budget > groups_available(m, false))
		budget = groups_available(m, false);
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
		uint32_t g = group_alloc(m);
		memcpy(group_at(m, g), from, run);
		ent_put(m, small, x, (g << 1) | MBT_EXT);
	}
	free(mixed);
	__atomic_store_n(&m->tbl24, (void *)((uintptr_t)small | MBT_SMALL_TAG), __ATOMIC_RELEASE);
	(void)defer_push(m->defer, tbl24_free, big, m->esize);
}

/* What the IPv4 summary says of a /16 whose 256 first-level entries are
 * e, of which entry `at` was just written: their nexthop if they all
 * hold the same one, else MBT_EXT. */
static uint16_t
summary_of(const uint16_t *e, uint32_t at)
{
	uint16_t v = e[at];
	/* Most writes leave the /16 mixed, and the written entry's
	 * neighbour or the /16's ends usually show it at once. */
	if ((v & MBT_EXT) || e[at ^ 1] != v || e[0] != v || e[MBT_GROUP_SIZE - 1] != v)
		return MBT_EXT;
	/* Else a line at a time (vector code), stopping at the first that
	 * differs. */
	for (uint32_t i = 0; i < MBT_GROUP_SIZE; i += 32) {
		uint16_t diff = 0;
		for (uint32_t k = i; k < i + 32; k++)
			diff |= (uint16_t)(e[k] ^ v);
		if (diff != 0)
			return MBT_EXT;
	}
	return v;
}

/*
 * Writer, IPv4: bring the summary of every /16 that [lo, hi] touches up
 * to date, after the first level (write_table). A /16 inside the range
 * was filled whole with val; the one or two at its ends are scanned
 * (512 bytes each). A reader that reads a summary entry before its
 * update takes the /16's answer from before the write, which held until
 * then; one that reads it after finds the first level already written.
 */
static void
summary_write(struct mbt *m, fib_key_t lo, fib_key_t hi, uint32_t val)
{
	const unsigned int shift = 128 - MBT_SUM4_BITS;
	uint16_t *t24 = first_level(m), *sum = t24 + MBT_SUM4_OFF;
	for (uint32_t x = (uint32_t)(lo >> shift); x <= (uint32_t)(hi >> shift); x++) {
		fib_key_t xlo = (fib_key_t)x << shift, xhi = xlo | (((fib_key_t)1 << shift) - 1);
		/* The first entry of the range inside this /16. */
		uint32_t at =
			lo > xlo ? (uint32_t)(lo >> level_shift(m, 0)) & (MBT_GROUP_SIZE - 1) : 0;
		uint16_t v = lo <= xlo && xhi <= hi
				     ? (uint16_t)val
				     : summary_of(t24 + ((size_t)x << MBT_GROUP_BITS), at);
		if (sum[x] != v)
			__atomic_store_n(&sum[x], v, __ATOMIC_RELEASE);
	}
}

int
mbt_write(struct mbt *m, const struct mbt_range *r, uint32_t n, uint32_t nh, bool for_delete)
{
	uint32_t val = nh << 1;
	if (!m->own_tbl24 && val != 0 && own_tbl24(m) < 0)
		return -ENOMEM;
	struct dry_run d = {.m = m, .val = val};
	for (uint32_t i = 0; i < n; i++)
		dry_table(&d, first_level(m), 0, 0, 0, r[i].lo, r[i].hi);
	if (d.count > groups_available(m, for_delete)) {
		defer_reclaim(m->defer);
		if (d.count > groups_available(m, for_delete))
			return -ENOSPC;
	}
	/* Every group in use, and every one about to be, may be retired. */
	if (defer_reserve(m->defer, m->used + d.count) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++) {
		write_table(m, first_level(m), 0, 0, r[i].lo, r[i].hi, val);
		if (has_summary(m))
			summary_write(m, r[i].lo, r[i].hi, val);
	}
	if (is_small(m) && groups_live(m) > m->small_groups)
		promote(m);
	return 0;
}

void
mbt_routes(struct mbt *m, uint32_t routes, bool deleted)
{
	if (m->small_groups == 0)
		return;
	if (!deleted) {
		if (routes / 2 > m->shrink_at)
			m->shrink_at = routes / 2;
		return;
	}
	if (routes > m->shrink_at || routes == 0)
		return;
	m->shrink_at = routes / 2;
	if (!is_small(m) && m->own_tbl24 && groups_live(m) <= m->small_groups / 4)
		demote(m);
}

uint32_t
mbt_get(const struct mbt *m, fib_key_t key)
{
	const void *t = first_level(m);
	if (has_summary(m)) {
		uint16_t s = ((const uint16_t *)t)[MBT_SUM4_OFF + (key >> (128 - MBT_SUM4_BITS))];
		if (!(s & MBT_EXT))
			return s >> 1;
	}
	uint32_t e = ent_get(m, t, (uint32_t)(key >> level_shift(m, 0)));
	for (unsigned int level = 1; e & MBT_EXT; level++)
		e = ent_get(m, child_of(m, e), (uint32_t)(key >> level_shift(m, level)) & 0xff);
	return e >> 1;
}
