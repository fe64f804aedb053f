/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rib: every route of one table and family, in a path-compressed binary
 * trie (a PATRICIA trie) keyed by prefix. A node is a prefix; it holds
 * the routes for that prefix sorted by metric, or none when it only
 * joins two subtrees (a glue node). N prefixes take at most 2N - 1 nodes.
 *
 * The lookup structures are derived from it: the region a node's best
 * route owns is its prefix minus the prefixes of its nearest live
 * descendants (rib_ranges), and what that region shows without the node
 * is the best route of its nearest live ancestor (the `covering` node
 * rib_find and rib_insert report). A node is live when it has a route
 * that is not down (RIB_RT_DOWN: its nexthop leads nowhere for now);
 * its best route is the first of those. A node whose routes are all
 * down keeps them, and is to lookups what a glue node is.
 *
 * Writer thread only: readers never see the RIB.
 */
#ifndef FIB_RIB_H
#define FIB_RIB_H

#include <stdint.h>

#include "key.h"
#include "mbt.h"
#include "slab.h"

#define RIB_RT_DOWN 0x01 /* rib_route.flags: its nexthop is down */

struct rib_route {
	struct rib_route *next; /* the route with the next higher metric */
	uint32_t metric;
	uint32_t nh;
	uint8_t type;
	uint8_t origin;
	uint8_t flags;
};

struct rib_node {
	fib_key_t key;             /* prefix, host bits zero */
	struct rib_node *child[2]; /* by the bit after the prefix */
	struct rib_node *parent;
	struct rib_route *routes; /* lowest metric first; NULL for glue */
	uint8_t len;
};

struct rib {
	struct rib_node *root;
	/* The node rib_insert last returned, where the next insert starts
	 * looking (rib.c says why); NULL after any node is freed. */
	struct rib_node *hint;
	uint32_t nroutes;
	struct slab nodes;
	struct slab route_slab;
};

/* A growable array of ranges, reused between updates. */
struct range_buf {
	struct mbt_range *r;
	uint32_t n, cap;
};

/* The first route from r on (in metric order) that is not down, or NULL. */
static inline const struct rib_route *
rib_live_from(const struct rib_route *r)
{
	while (r != NULL && (r->flags & RIB_RT_DOWN))
		r = r->next;
	return r;
}

/* The route lookups use: the lowest-metric route not down, or NULL (a
 * glue node, or one whose routes are all down). */
static inline const struct rib_route *
rib_best(const struct rib_node *n)
{
	return rib_live_from(n->routes);
}

void rib_init(struct rib *rib);
void rib_fini(struct rib *rib);

/* The node for exactly key/len, or NULL. If covering is not NULL, it gets
 * the nearest live node above key/len (whether or not that exists). */
struct rib_node *rib_find(const struct rib *rib, fib_key_t key, unsigned int len,
			  struct rib_node **covering);
/* The node for key/len, created without routes if absent; NULL if out of
 * memory. covering as for rib_find. One descent does both. */
struct rib_node *rib_insert(struct rib *rib, fib_key_t key, unsigned int len,
			    struct rib_node **covering);
/* Remove a node left without routes, if the trie no longer needs it. */
void rib_prune(struct rib *rib, struct rib_node *n);
/* The longest live prefix containing key, or NULL. */
struct rib_node *rib_match(const struct rib *rib, fib_key_t key);
/* Replace buf's contents with the ranges n's routes own. @return 0 or -ENOMEM. */
int rib_ranges(const struct rib_node *n, struct range_buf *buf);
void range_buf_free(struct range_buf *buf);

/* Visit nodes with routes (down or not) in prefix order; a non-zero
 * return stops the walk. */
typedef int (*rib_node_cb)(const struct rib_node *n, void *arg);
int rib_walk(const struct rib *rib, rib_node_cb cb, void *arg);

struct rib_route *rib_route_alloc(struct rib *rib);
void rib_route_free(struct rib *rib, struct rib_route *r);

#endif
