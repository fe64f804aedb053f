/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What mbt.c (the writes) and mbt_form.c (a structure's memory: its first
 * level in each form, its group pool) share. Writer only, but for the
 * entry accessors, whose stores readers see whole.
 */
#ifndef FIB_MBT_PRIV_H
#define FIB_MBT_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "mbt.h"

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

/* Groups in use, not counting those awaiting their grace period. */
static inline uint32_t
groups_live(const struct mbt *m)
{
	return m->used - m->retiring;
}
/* mbt.c: the group pool. */
/* A group to fill; the dry run guaranteed one is available. */
uint32_t mbt_group_alloc(struct mbt *m);
/* Groups a write may take: all that are free for a delete, all but the
 * reserve otherwise. */
uint32_t mbt_groups_available(const struct mbt *m, bool for_delete);
/* Queue group g, which no reader can reach any more, for reuse after its
 * grace period. Cannot fail: room was reserved. */
void mbt_group_retire(struct mbt *m, uint32_t g);
/* True, with the value, when every entry of a group holds one nexthop. */
bool mbt_group_uniform(const struct mbt *m, const void *g, uint32_t *val);

/* mbt_form.c: the first level. */
/* Give the structure a first-level table of its own, small if it may be.
 * @return 0 or -ENOMEM. */
int mbt_own_tbl24(struct mbt *m);
/* A small table grown past small_groups takes the full form; a full one
 * whose groups fell to a quarter of it, the small form again. Either
 * stays as it is without memory for the change, which is correct. */
void mbt_promote(struct mbt *m);
void mbt_demote(struct mbt *m);

#endif
