/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writes to a multibit trie (mbt.h): a dry run counts the groups a write
 * needs, so that it either fits or changes nothing; then each range is
 * written level by level, groups made where a range covers part of an
 * entry and merged back where one holds a single value; the IPv4 /16
 * summary follows. Also the group pool's allocation and the writer's own
 * lookup. The first level's forms and memory are mbt_form.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "defer.h"
#include "mbt_priv.h"

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

/* Writer: a group to fill; the dry run guaranteed one is available. */
uint32_t
mbt_group_alloc(struct mbt *m)
{
	uint32_t g = m->nfree ? m->free_stack[--m->nfree] : m->fresh++;
	m->used++;
	return g;
}

/* Groups a write may take: all that are free for a delete, all but the
 * reserve otherwise. */
uint32_t
mbt_groups_available(const struct mbt *m, bool for_delete)
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
void
mbt_group_retire(struct mbt *m, uint32_t g)
{
	m->retiring++;
	(void)defer_push(m->defer, group_release, m, g);
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
	mbt_group_retire(m, ext_entry >> 1);
}

/* True, with the value, when every entry of a group holds one nexthop. */
bool
mbt_group_uniform(const struct mbt *m, const void *g, uint32_t *val)
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
		uint32_t g = mbt_group_alloc(m);
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
	if (mbt_group_uniform(m, child, &u)) {
		/* Merge a group that now says one thing everywhere. */
		ent_put(m, tbl, i, u);
		mbt_group_retire(m, e >> 1);
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
	if (!m->own_tbl24 && val != 0 && mbt_own_tbl24(m) < 0)
		return -ENOMEM;
	struct dry_run d = {.m = m, .val = val};
	for (uint32_t i = 0; i < n; i++)
		dry_table(&d, first_level(m), 0, 0, 0, r[i].lo, r[i].hi);
	if (d.count > mbt_groups_available(m, for_delete)) {
		defer_reclaim(m->defer);
		if (d.count > mbt_groups_available(m, for_delete))
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
		mbt_promote(m);
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
		mbt_demote(m);
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
