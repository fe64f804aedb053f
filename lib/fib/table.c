/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route updates: the RIB decides, the lookup structure follows.
 *
 * A prefix's installed value is the nexthop of its lowest-metric route
 * that is not down (for non-unicast types, the conf's type_nh). Every
 * change rewrites the region the prefix owns (rib_ranges) with the new
 * value: the route's own value when it becomes preferred, the covering
 * prefix's value when its last route goes or is down. The write is all
 * or nothing (mbt_write counts its groups first), so on error the RIB
 * change is undone and the table is as it was.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "defer.h"
#include "table.h"

#define GROUPS4_DEFAULT MBT_GROUPS_MAX4 /* 16 MiB of address space, touched on use */
#define GROUPS6_DEFAULT (1u << 20)      /* 1 GiB of address space, touched on use */
/* Groups a small table may use before it takes a 2^24-entry first level
 * (mbt.h): 2 MiB of groups for IPv4, 4 MiB for IPv6, against 32 and 64 MiB. */
#define SMALL_GROUPS_DEFAULT 4096

struct fib_table *
table_create(uint32_t id, const struct fib_conf *conf, struct defer *defer)
{
	struct fib_table *t = aligned_alloc(64, sizeof(*t));
	if (t == NULL)
		return NULL;
	memset(t, 0, sizeof(*t));
	t->id = id;
	t->type_nh = conf->type_nh;
	t->conf = conf;
	rib_init(&t->rib4);
	rib_init(&t->rib6);
	uint32_t g4 = conf->groups4 ? conf->groups4 : GROUPS4_DEFAULT;
	uint32_t g6 = conf->groups6 ? conf->groups6 : GROUPS6_DEFAULT;
	/* Main starts full size: the datapath's table, looked up by the
	 * vector paths, which read only full-size first levels. */
	uint32_t small = conf->small_table_groups ? conf->small_table_groups : SMALL_GROUPS_DEFAULT;
	if (id == FIB_TABLE_MAIN || small == UINT32_MAX)
		small = 0;
	if (mbt_init(&t->v4, MBT_LEVELS4, MBT_ESIZE4, g4, small, defer) < 0 ||
	    mbt_init(&t->v6, MBT_LEVELS6, MBT_ESIZE6, g6, small, defer) < 0) {
		table_free(t);
		return NULL;
	}
	return t;
}

void
table_free(struct fib_table *t)
{
	if (t == NULL)
		return;
	mbt_fini(&t->v4);
	mbt_fini(&t->v6);
	rib_fini(&t->rib4);
	rib_fini(&t->rib6);
	range_buf_free(&t->ranges);
	free(t);
}

struct fam {
	struct rib *rib;
	struct mbt *mbt;
	unsigned int max_len;
};

static struct fam
family(const struct fib_table *t, uint8_t af)
{
	struct fib_table *w = (struct fib_table *)t;
	if (af == FIB_AF_INET)
		return (struct fam){&w->rib4, &w->v4, 32};
	return (struct fam){&w->rib6, &w->v6, 128};
}

static fib_key_t
prefix_key(const struct fib_prefix *p)
{
	return p->family == FIB_AF_INET ? key_from_v4(p->addr.v4) : key_from_v6(p->addr.v6);
}

static void
key_to_prefix(fib_key_t k, unsigned int len, uint8_t af, struct fib_prefix *p)
{
	memset(p, 0, sizeof(*p));
	p->family = af;
	p->len = (uint8_t)len;
	if (af == FIB_AF_INET)
		p->addr.v4 = key_to_v4(k);
	else
		key_to_v6(k, p->addr.v6);
}

static uint32_t
route_value(const struct fib_table *t, const struct rib_route *r)
{
	return r->type == FIB_RT_UNICAST ? r->nh : t->type_nh[r->type];
}

/* What a node's region shows when the node has no live route: the value
 * of its nearest live ancestor c. */
static uint32_t
covering_value(const struct fib_table *t, const struct rib_node *c)
{
	return c ? route_value(t, rib_best(c)) : FIB_NH_NONE;
}

/* What n's region shows: its best route's value, or the covering one's. */
static uint32_t
node_value(const struct fib_table *t, const struct rib_node *n, const struct rib_node *cover)
{
	const struct rib_route *b = rib_best(n);
	return b ? route_value(t, b) : covering_value(t, cover);
}

/* A route's flags as fib_conf.nh_down says now (unicast routes only). */
static uint8_t
route_flags(const struct fib_table *t, uint8_t type, uint32_t nh)
{
	const struct fib_conf *c = t->conf;
	bool down = type == FIB_RT_UNICAST && c->nh_down != NULL && c->nh_down(c->nh_down_ctx, nh);
	return down ? RIB_RT_DOWN : 0;
}

/* The family holds no route any more: its first level, its groups'
 * pages and its RIB's chunks go back, so that flushing a table returns
 * what it held. Failing that (no room to queue the release), the family
 * keeps its memory and works as before. */
static void
family_emptied(struct fam f)
{
	(void)mbt_release(f.mbt);
	/* The RIB's chunks are all free once no node is left. */
	if (f.rib->root == NULL) {
		rib_fini(f.rib);
		rib_init(f.rib);
	}
}

/* Write val over n's region; for_delete: the groups kept for deletes may
 * be used (mbt_write). */
static int
install(struct fib_table *t, struct fam f, const struct rib_node *n, uint32_t val, bool for_delete)
{
	int rc = rib_ranges(n, &t->ranges);
	if (rc == 0)
		rc = mbt_write(f.mbt, t->ranges.r, t->ranges.n, val, for_delete);
	return rc;
}

static void
route_fill(const struct fib_table *t, const struct rib_node *n, const struct rib_route *r,
	   uint8_t af, struct fib_route *out)
{
	key_to_prefix(n->key, n->len, af, &out->dst);
	out->table = t->id;
	out->metric = r->metric;
	out->nh = r->nh;
	out->type = r->type;
	out->origin = r->origin;
	out->flags = (r->flags & RIB_RT_DOWN) ? FIB_RF_DOWN : 0;
}

static struct rib_route **
route_slot(struct rib_node *n, uint32_t metric)
{
	struct rib_route **p = &n->routes;
	while (*p != NULL && (*p)->metric < metric)
		p = &(*p)->next;
	return p;
}

static int
replace_existing(struct fib_table *t, struct fam f, struct rib_node *n,
		 const struct rib_node *cover, struct rib_route *r, const struct fib_route *nr)
{
	struct rib_route saved = *r;
	uint32_t old = node_value(t, n, cover);
	r->nh = nr->nh;
	r->type = nr->type;
	r->origin = nr->origin;
	r->flags = route_flags(t, nr->type, nr->nh);
	uint32_t val = node_value(t, n, cover);
	/* Left without a live route, the node is as good as deleted. */
	int rc = val == old ? 0 : install(t, f, n, val, rib_best(n) == NULL);
	if (rc < 0)
		*r = saved;
	return rc;
}

int
table_route_add(struct fib_table *t, const struct fib_route *nr, bool replace)
{
	struct fam f = family(t, nr->dst.family);
	struct rib_node *cover;
	/* Found or created in one descent; rib_prune() undoes a creation. */
	struct rib_node *n = rib_insert(f.rib, prefix_key(&nr->dst), nr->dst.len, &cover);
	if (n == NULL)
		return -ENOMEM;
	struct rib_route *cur = *route_slot(n, nr->metric);
	if (cur != NULL && cur->metric == nr->metric) {
		if (!replace)
			return -EEXIST;
		return replace_existing(t, f, n, cover, cur, nr);
	}
	uint32_t old = node_value(t, n, cover);
	struct rib_route *r = rib_route_alloc(f.rib);
	if (r == NULL) {
		rib_prune(f.rib, n);
		return -ENOMEM;
	}
	r->metric = nr->metric;
	r->nh = nr->nh;
	r->type = nr->type;
	r->origin = nr->origin;
	r->flags = route_flags(t, nr->type, nr->nh);
	struct rib_route **slot = route_slot(n, nr->metric);
	r->next = *slot;
	*slot = r;

	uint32_t val = node_value(t, n, cover);
	int rc = val == old ? 0 : install(t, f, n, val, false);
	if (rc < 0) {
		*slot = r->next;
		rib_route_free(f.rib, r);
		rib_prune(f.rib, n);
		if (f.rib->nroutes == 0) /* a first level taken for nothing */
			family_emptied(f);
		return rc;
	}
	f.rib->nroutes++;
	mbt_routes(f.mbt, f.rib->nroutes, false);
	return 0;
}

int
table_route_del(struct fib_table *t, const struct fib_route *key, bool any_metric)
{
	struct fam f = family(t, key->dst.family);
	struct rib_node *cover;
	struct rib_node *n = rib_find(f.rib, prefix_key(&key->dst), key->dst.len, &cover);
	if (n == NULL || n->routes == NULL)
		return -ENOENT;
	struct rib_route **slot = any_metric ? &n->routes : route_slot(n, key->metric);
	struct rib_route *r = *slot;
	if (r == NULL || (!any_metric && r->metric != key->metric))
		return -ENOENT;

	uint32_t old = node_value(t, n, cover), val = old;
	if (r == rib_best(n)) {
		const struct rib_route *b = rib_live_from(r->next);
		val = b ? route_value(t, b) : covering_value(t, cover);
	}
	if (val != old) {
		int rc = install(t, f, n, val, true);
		if (rc < 0)
			return rc;
	}
	*slot = r->next;
	rib_route_free(f.rib, r);
	rib_prune(f.rib, n);
	if (--f.rib->nroutes == 0)
		family_emptied(f);
	else
		mbt_routes(f.mbt, f.rib->nroutes, true);
	return 0;
}

int
table_route_get(const struct fib_table *t, const struct fib_route *key, bool any_metric,
		struct fib_route *out)
{
	struct fam f = family(t, key->dst.family);
	struct rib_node *n = rib_find(f.rib, prefix_key(&key->dst), key->dst.len, NULL);
	if (n == NULL || n->routes == NULL)
		return -ENOENT;
	struct rib_route *r = any_metric ? n->routes : *route_slot(n, key->metric);
	if (r == NULL || (!any_metric && r->metric != key->metric))
		return -ENOENT;
	route_fill(t, n, r, key->dst.family, out);
	return 0;
}

int
table_route_match(const struct fib_table *t, const struct fib_prefix *addr, struct fib_route *out)
{
	struct fam f = family(t, addr->family);
	const struct rib_node *n = rib_match(f.rib, prefix_key(addr));
	if (n == NULL)
		return -ENOENT;
	route_fill(t, n, rib_best(n), addr->family, out);
	return 0;
}

struct walk_ctx {
	const struct fib_table *t;
	uint8_t af;
	fib_route_cb cb;
	void *arg;
};

static int
walk_node(const struct rib_node *n, void *arg)
{
	struct walk_ctx *w = arg;
	struct fib_route r;
	for (const struct rib_route *rr = n->routes; rr != NULL; rr = rr->next) {
		route_fill(w->t, n, rr, w->af, &r);
		int rc = w->cb(&r, w->arg);
		if (rc)
			return rc;
	}
	return 0;
}

int
table_route_walk(const struct fib_table *t, uint8_t af, fib_route_cb cb, void *arg)
{
	struct walk_ctx w = {t, af, cb, arg};
	return rib_walk(family(t, af).rib, walk_node, &w);
}

struct sync_ctx {
	struct fib_table *t;
	struct fam f;
	int rc; /* the first error */
};

#define RIB_RT_FLIPPED 0x80 /* sync_node's mark: flags changed this call */

/* Ask nh_down again for each route of a node; install its new value if
 * that changed. Nodes come in pre-order, so the covering node has its
 * answer already, and a descendant that changes later rewrites its own
 * region over what this node wrote. A node that cannot be installed
 * again keeps its routes' old flags. */
static int
sync_node(const struct rib_node *cn, void *arg)
{
	struct sync_ctx *s = arg;
	struct rib_node *n = (struct rib_node *)cn; /* the writer's own trie */
	const struct rib_node *cover = n->parent;
	while (cover != NULL && rib_best(cover) == NULL)
		cover = cover->parent;
	uint32_t old = node_value(s->t, n, cover);
	bool flipped = false;
	for (struct rib_route *r = n->routes; r != NULL; r = r->next) {
		uint8_t now = route_flags(s->t, r->type, r->nh);
		if (now != (r->flags & RIB_RT_DOWN)) {
			r->flags = now | RIB_RT_FLIPPED;
			flipped = true;
		}
	}
	if (!flipped)
		return 0;
	uint32_t val = node_value(s->t, n, cover);
	int rc = val == old ? 0 : install(s->t, s->f, n, val, rib_best(n) == NULL);
	for (struct rib_route *r = n->routes; r != NULL; r = r->next) {
		if (rc < 0 && (r->flags & RIB_RT_FLIPPED))
			r->flags ^= RIB_RT_DOWN;
		r->flags &= (uint8_t)~RIB_RT_FLIPPED;
	}
	if (rc < 0 && s->rc == 0)
		s->rc = rc;
	return 0;
}

int
table_sync_down(struct fib_table *t)
{
	static const uint8_t afs[] = {FIB_AF_INET, FIB_AF_INET6};
	int rc = 0;
	for (unsigned int i = 0; i < sizeof(afs); i++) {
		struct sync_ctx s = {.t = t, .f = family(t, afs[i])};
		(void)rib_walk(s.f.rib, sync_node, &s);
		if (rc == 0)
			rc = s.rc;
	}
	return rc;
}

uint32_t
table_route_count(const struct fib_table *t, uint8_t af)
{
	return family(t, af).rib->nroutes;
}

void
table_mem(const struct fib_table *t, struct fib_mem_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->tbl24_bytes = mbt_first_level_bytes(&t->v4) + mbt_first_level_bytes(&t->v6);
	st->groups4_used = t->v4.used;
	st->groups6_used = t->v6.used;
	st->groups_bytes = (uint64_t)MBT_GROUP_SIZE *
			   ((uint64_t)t->v4.used * MBT_ESIZE4 + (uint64_t)t->v6.used * MBT_ESIZE6);
	st->rib_bytes = t->rib4.nodes.bytes + t->rib4.route_slab.bytes + t->rib6.nodes.bytes +
			t->rib6.route_slab.bytes;
}
