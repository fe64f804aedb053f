/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "rib.h"

void
rib_init(struct rib *rib)
{
	rib->root = NULL;
	rib->hint = NULL;
	rib->nroutes = 0;
	slab_init(&rib->nodes, sizeof(struct rib_node));
	slab_init(&rib->route_slab, sizeof(struct rib_route));
}

void
rib_fini(struct rib *rib)
{
	slab_fini(&rib->nodes);
	slab_fini(&rib->route_slab);
	rib->root = NULL;
	rib->hint = NULL;
	rib->nroutes = 0;
}

/* True when node n's prefix contains key/len (n->len <= len). */
static bool
node_covers(const struct rib_node *n, fib_key_t key, unsigned int len)
{
	return n->len <= len && key_prefix(key, n->len) == n->key;
}

struct rib_node *
rib_find(const struct rib *rib, fib_key_t key, unsigned int len, struct rib_node **covering)
{
	struct rib_node *n = rib->root, *cover = NULL;
	key = key_prefix(key, len);
	while (n != NULL && node_covers(n, key, len)) {
		if (n->len == len)
			break;
		if (rib_best(n) != NULL)
			cover = n;
		n = n->child[key_bit(key, n->len)];
	}
	if (covering != NULL)
		*covering = cover;
	return n != NULL && n->len == len && n->key == key ? n : NULL;
}

static struct rib_node *
node_new(struct rib *rib, fib_key_t key, unsigned int len, struct rib_node *parent)
{
	struct rib_node *n = slab_alloc(&rib->nodes);
	if (n != NULL) {
		n->key = key;
		n->len = (uint8_t)len;
		n->parent = parent;
	}
	return n;
}

static void
attach(struct rib_node *parent, struct rib_node *child)
{
	child->parent = parent;
	parent->child[key_bit(child->key, parent->len)] = child;
}

static struct rib_node **
parent_link(struct rib *rib, const struct rib_node *n)
{
	if (n->parent == NULL)
		return &rib->root;
	return &n->parent->child[key_bit(n->key, n->parent->len)];
}

/* The nearest live node above n, or NULL. */
static struct rib_node *
live_above(struct rib_node *n)
{
	for (n = n->parent; n != NULL && rib_best(n) == NULL; n = n->parent)
		;
	return n;
}

/*
 * Routes mostly come in address order (a full table from a peer or a
 * file), so a new prefix usually hangs a few levels from the last one
 * inserted. The descent starts at the deepest ancestor of that node
 * which contains the new prefix, found by climbing: a node above the
 * hint contains key/len exactly when its length is at most both len and
 * the bits key shares with the hint. Every node the descent from the
 * root would have passed above that start contains key/len too, so the
 * result is the same; the covering node, when none is met below the
 * start, is the nearest live one above it. Climbing costs a dependent
 * load a level, so a prefix that shares fewer than HINT_MIN_SHARED bits
 * with the hint, as in random order, starts at the root as before: it
 * would climb most of the way. Tables loaded in prefix order, as dumps
 * and daemons deliver them, start near where each insert goes.
 */
#define HINT_MIN_SHARED 16

struct rib_node *
rib_insert(struct rib *rib, fib_key_t key, unsigned int len, struct rib_node **covering)
{
	struct rib_node **link = &rib->root, *parent = NULL, *n, *cover = NULL;
	key = key_prefix(key, len);

	struct rib_node *start = rib->hint;
	if (start != NULL) {
		unsigned int m = key_common_len(key, start->key);
		if (m > len)
			m = len;
		if (m < HINT_MIN_SHARED)
			start = NULL;
		while (start != NULL && start->len > m)
			start = start->parent;
		if (start != NULL) {
			link = parent_link(rib, start);
			parent = start->parent;
		}
	}

	/* Step 1: descend while the node's prefix contains the new one. */
	while ((n = *link) != NULL && node_covers(n, key, len)) {
		if (n->len == len)
			break;
		if (rib_best(n) != NULL)
			cover = n;
		parent = n;
		link = &n->child[key_bit(key, n->len)];
	}
	if (covering != NULL) {
		if (cover == NULL && start != NULL)
			cover = live_above(start);
		*covering = cover;
	}
	if (n != NULL && n->len == len && n->key == key)
		return rib->hint = n;
	struct rib_node *new = node_new(rib, key, len, parent);
	if (new == NULL)
		return NULL;
	rib->hint = new;
	if (n == NULL) {
		*link = new;
		return new;
	}
	/* Step 2: n diverges from the new prefix. Either the new prefix
	 * contains n and becomes its parent, or both hang below a glue node
	 * at their common prefix. */
	unsigned int common = key_common_len(key, n->key);
	if (common > len)
		common = len;
	if (common > n->len)
		common = n->len;
	if (common == len) {
		*link = new;
		attach(new, n);
		return new;
	}
	struct rib_node *glue = node_new(rib, key_prefix(key, common), common, parent);
	if (glue == NULL) {
		rib->hint = NULL;
		slab_put(&rib->nodes, new);
		return NULL;
	}
	*link = glue;
	attach(glue, n);
	attach(glue, new);
	return new;
}

void
rib_prune(struct rib *rib, struct rib_node *n)
{
	/* A node without routes stays only while it joins two subtrees;
	 * removing one may leave its glue parent with a single child. */
	while (n != NULL && n->routes == NULL) {
		if (n->child[0] != NULL && n->child[1] != NULL)
			return;
		struct rib_node *only = n->child[0] ? n->child[0] : n->child[1];
		struct rib_node *parent = n->parent;
		*parent_link(rib, n) = only;
		if (only != NULL)
			only->parent = parent;
		rib->hint = NULL;
		slab_put(&rib->nodes, n);
		n = parent;
	}
}

struct rib_node *
rib_match(const struct rib *rib, fib_key_t key)
{
	struct rib_node *n = rib->root, *best = NULL;
	while (n != NULL && node_covers(n, key, 128)) {
		if (rib_best(n) != NULL)
			best = n;
		if (n->len == 128)
			break;
		n = n->child[key_bit(key, n->len)];
	}
	return best;
}

static int
range_push(struct range_buf *buf, fib_key_t lo, fib_key_t hi)
{
	if (buf->n == buf->cap) {
		uint32_t cap = buf->cap ? buf->cap * 2 : 64;
		struct mbt_range *r = realloc(buf->r, sizeof(*r) * cap);
		if (r == NULL)
			return -ENOMEM;
		buf->r = r;
		buf->cap = cap;
	}
	buf->r[buf->n].lo = lo;
	buf->r[buf->n].hi = hi;
	buf->n++;
	return 0;
}

void
range_buf_free(struct range_buf *buf)
{
	free(buf->r);
	buf->r = NULL;
	buf->n = buf->cap = 0;
}

struct gap_walk {
	struct range_buf *buf;
	fib_key_t cursor; /* first key not yet emitted or skipped */
	bool done;        /* the cursor passed the last key */
};

/* Emit the gaps before each nearest live descendant, in key order. */
static int
gaps(struct gap_walk *w, const struct rib_node *n)
{
	if (n == NULL)
		return 0;
	if (rib_best(n) == NULL) {
		int rc = gaps(w, n->child[0]);
		return rc ? rc : gaps(w, n->child[1]);
	}
	fib_key_t hi = n->key | key_host_mask(n->len);
	if (w->cursor < n->key && range_push(w->buf, w->cursor, n->key - 1) < 0)
		return -ENOMEM;
	w->cursor = hi + 1;
	w->done = hi == ~(fib_key_t)0;
	return 0;
}

int
rib_ranges(const struct rib_node *n, struct range_buf *buf)
{
	struct gap_walk w = {.buf = buf, .cursor = n->key};
	fib_key_t hi = n->key | key_host_mask(n->len);
	buf->n = 0;
	int rc = gaps(&w, n->child[0]);
	if (rc == 0)
		rc = gaps(&w, n->child[1]);
	if (rc == 0 && !w.done && w.cursor <= hi)
		rc = range_push(buf, w.cursor, hi);
	return rc;
}

static int
walk(const struct rib_node *n, rib_node_cb cb, void *arg)
{
	/* Pre-order, 0-branch first: address order, shorter prefix first. */
	while (n != NULL) {
		if (n->routes != NULL) {
			int rc = cb(n, arg);
			if (rc)
				return rc;
		}
		int rc = walk(n->child[0], cb, arg);
		if (rc)
			return rc;
		n = n->child[1];
	}
	return 0;
}

int
rib_walk(const struct rib *rib, rib_node_cb cb, void *arg)
{
	return walk(rib->root, cb, arg);
}

struct rib_route *
rib_route_alloc(struct rib *rib)
{
	return slab_alloc(&rib->route_slab);
}

void
rib_route_free(struct rib *rib, struct rib_route *r)
{
	slab_put(&rib->route_slab, r);
}
