/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mbt: the multibit lookup table behind both families.
 *
 * A first level of 2^24 entries indexed by the top 24 address bits, then
 * groups of 256 entries, each indexed by the next 8 bits. IPv4 uses two
 * levels (DIR-24-8: one read, or two for prefixes longer than /24); IPv6
 * uses fourteen (24 + 13 x 8 = 128 bits: at most 14 dependent reads, and
 * 2 to 4 for the /29../48 prefixes that make up most real tables).
 *
 * Entries: bit 0 = 0: the rest is the nexthop index (0 = no route);
 *          bit 0 = 1: the rest is the index of a child group.
 * IPv4 entries are 16 bits, IPv6 entries 32. A random IPv4 lookup is one
 * DRAM miss into the first level, and halving that table (32 MiB instead
 * of 64) makes those misses cheaper (fewer TLB and cache misses; docs/
 * fib.md, "Lookup structures"); it limits nexthop indices to 15 bits (FIB_NH_MAX) and IPv4 tables to 32767
 * groups, i.e. 32767 /24s holding longer prefixes. IPv6 needs far more
 * groups (about 0.2 per route on the real table), so it keeps 32 bits.
 *
 * IPv4 also keeps a summary of 2^16 entries in front of the first level,
 * one per /16: the /16's answer when all its 256 first-level entries
 * hold one nexthop, else MBT_EXT ("read the first level"). It is 128
 * KiB, so it stays in L2, and on the real table at least 72% of the
 * /16s are uniform (unrouted space, and routes of /16 or shorter with
 * nothing longer inside): a uniform random address then needs no read
 * of the 32 MiB first level 72% of the time, and the lines of the first
 * level that lookups still touch are those of the at most 18,271 other
 * /16s, 9 MiB (docs/fib.md). It lives in the same allocation as the first level,
 * MBT_SUM4_OFF entries in, so one pointer switch covers both.
 *
 * Writer: one thread. Readers: any number, lock-free. The writer builds
 * a new group completely before a release store publishes it, overwrites
 * entries with single aligned stores (never torn), and hands unpublished
 * groups to the QSBR defer queue, so a reader walking an old path
 * finishes it on memory that is still intact.
 */
#ifndef FIB_MBT_H
#define FIB_MBT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "key.h"

struct defer;

#define MBT_TBL24_BITS 24
#define MBT_TBL24_SIZE (1u << MBT_TBL24_BITS)
#define MBT_GROUP_BITS 8
#define MBT_GROUP_SIZE (1u << MBT_GROUP_BITS)
#define MBT_EXT 1u
#define MBT_LEVELS4 2
#define MBT_LEVELS6 14
#define MBT_ESIZE4 2
#define MBT_ESIZE6 4
/* Group indices must fit an entry; IPv6 is capped at 16M groups (16 GiB). */
#define MBT_GROUPS_MAX4 0x7fffu
#define MBT_GROUPS_MAX6 (1u << 24)
/* Gathers read 4 bytes at a 2-byte entry: arrays get this much slack. */
#define MBT_SLACK 64
/* The IPv4 summary: one entry per /16, after the first level and its
 * slack (offset in entries). */
#define MBT_SUM4_BITS 16
#define MBT_SUM4_SIZE (1u << MBT_SUM4_BITS)
#define MBT_SUM4_OFF (MBT_TBL24_SIZE + MBT_SLACK / MBT_ESIZE4)
/*
 * Small tables. A table may start with a first level of 2^16 entries
 * (128 KiB for IPv4, 256 KiB for IPv6) and one more level of groups,
 * 16-8-8 for IPv4, instead of 32 or 64 MiB, so that tables holding a few
 * routes (VRFs) cost little; once it uses more than small_groups groups
 * it takes the 2^24-entry first level (mbt_promote() in mbt_form.c). Readers tell
 * the two apart by bit 0 of tbl24 (both are at least 64-byte aligned).
 */
#define MBT_SMALL_BITS 16
#define MBT_SMALL_SIZE (1u << MBT_SMALL_BITS)
#define MBT_SMALL_TAG 1u

/* Whether a first-level pointer (struct mbt.tbl24) is a small table's,
 * and the table it points to. */
static inline bool
mbt_is_small(const void *tbl24)
{
	return ((uintptr_t)tbl24 & MBT_SMALL_TAG) != 0;
}

static inline void *
mbt_untag(const void *tbl24)
{
	return (void *)((uintptr_t)tbl24 & ~(uintptr_t)MBT_SMALL_TAG);
}

struct mbt {
	/* Read by readers on every lookup. tbl24 is the process's shared
	 * zero table while the family has no route, and a table of its own
	 * from its first route until its last goes (mbt_release): empty
	 * families cost no memory. Tagged with MBT_SMALL_TAG while it is a
	 * small table's 2^16 entries.
	 * uint16_t entries for IPv4, uint32_t for IPv6. */
	void *tbl24;
	void *groups;
	/* Writer only, on its own cache line: the writer updates these on
	 * every split and merge, and readers must not lose their line. */
	_Alignas(64) uint8_t levels; /* with a 2^24-entry first level; one more while small */
	uint8_t esize;               /* entry size in bytes */
	uint32_t small_groups;       /* 0: never small; else groups a small table may use */
	uint32_t ngroups;            /* capacity */
	uint32_t fresh;              /* groups [fresh, ngroups) were never used */
	uint32_t nfree;              /* groups on free_stack */
	uint32_t *free_stack;        /* released groups, ready for reuse */
	uint32_t used;               /* groups published or awaiting their grace period */
	uint32_t retiring;           /* of those, awaiting it */
	uint32_t shrink_at; /* routes at which a delete tries the small form (mbt_routes) */
	uint32_t reserve;   /* groups only deletes may take (mbt_write) */
	bool own_tbl24;     /* tbl24 is ours, not the shared zero table */
	struct defer *defer;
};

/* An inclusive range of keys, aligned to the family's address width. */
struct mbt_range {
	fib_key_t lo, hi;
};

/* levels and esize: MBT_LEVELS4 and MBT_ESIZE4, or the 6 ones.
 * small_groups: 0 for a structure that always has a 2^24-entry first
 * level, else how many groups it may use with a small one.
 * @return 0, -EINVAL (too many groups) or -ENOMEM. */
int mbt_init(struct mbt *m, unsigned int levels, unsigned int esize, uint32_t ngroups,
	     uint32_t small_groups, struct defer *defer);
void mbt_fini(struct mbt *m);

/*
 * Make every key of the n ranges (sorted, disjoint) answer nh. Groups
 * needed are counted first: -ENOSPC (or -ENOMEM) is returned with the
 * table untouched when they are not all available.
 *
 * A delete can need groups too (a merged group must split again when
 * its covering route goes), and a router that cannot delete a route is
 * worse off than one that cannot add one. So the last groups, 1/64 of
 * them and at most MBT_DELETE_RESERVE, are kept for writes with
 * for_delete set: once only those are left, adds fail and deletes still
 * succeed.
 */
#define MBT_DELETE_RESERVE 256
int mbt_write(struct mbt *m, const struct mbt_range *r, uint32_t n, uint32_t nh, bool for_delete);

/*
 * Give a family that holds no route any more (every entry 0) its memory
 * back: readers switch to the shared zero table at once, the first level
 * is freed after a grace period, and the group pool's pages are returned
 * behind it if no group was taken meanwhile. The next route allocates a
 * fresh first level, as the first one did. @return 0, or -ENOMEM (the
 * defer queue could not grow: the family keeps its memory, and works).
 */
int mbt_release(struct mbt *m);

/*
 * The family's route count after an add (deleted false) or a delete.
 * A structure that may be small and has grown takes the small form again
 * once its groups have fallen to a quarter of small_groups and its mixed
 * /16s fit (mbt.c, demote). A try reads the first level (IPv6's is 64
 * MiB), so deletes try only as the count halves: at half its peak, then
 * at half the count of the last try; adds never try.
 */
void mbt_routes(struct mbt *m, uint32_t routes, bool deleted);

/* Bytes of the first level (and IPv4 summary) the structure owns now. */
size_t mbt_first_level_bytes(const struct mbt *m);

/* Reference lookup for one key, for tests and the control path. */
uint32_t mbt_get(const struct mbt *m, fib_key_t key);

#endif
