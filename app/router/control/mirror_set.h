/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routes the kernel mirror installed (mirror.c): a hash set keyed by
 * (family, table, prefix, metric), so that the mirror only ever changes
 * or removes its own routes, never an operator's, and knows after a
 * resynchronisation which of its routes the kernel no longer has.
 * Open addressing, linear probing, deletion by backward shift; it grows
 * as routes come. Control core only.
 */
#ifndef ROUTER_MIRROR_SET_H
#define ROUTER_MIRROR_SET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mset_key {
	uint8_t family, len;
	uint16_t pad; /* zero */
	uint32_t table, metric;
	uint8_t addr[16]; /* host bits clear; IPv4 in the first 4 bytes */
};

struct mset_entry {
	struct mset_key key;
	uint32_t gen;           /* the resynchronisation that last saw it */
	uint32_t nh_id;         /* the kernel nexthop object it uses, or 0 */
	uint8_t protocol, type; /* the kernel's RTPROT_* and RTN_* */
	bool used;
};

struct mset {
	struct mset_entry *e;
	size_t cap, n; /* cap a power of two */
};

/** The entry of key, or NULL. */
struct mset_entry *mset_find(const struct mset *s, const struct mset_key *key);
/** The entry of key, added if new (*added set). NULL when memory runs out. */
struct mset_entry *mset_add(struct mset *s, const struct mset_key *key, bool *added);
/** Remove key's entry, if there is one. */
void mset_del(struct mset *s, const struct mset_key *key);
void mset_free(struct mset *s);

#endif
