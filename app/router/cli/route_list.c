/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes as lists: route show and route flush select them with the same
 * filter (ip-route(8)'s selectors) and walk the tables the same way, and
 * save walks every table to write each route as the route add line that
 * recreates it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_priv.h"

/* Routes of Linux's local table: shown with `table local` (or all). */
static bool
local_type(uint8_t type)
{
	return type == FIB_RT_LOCAL || type == FIB_RT_BROADCAST;
}

/* route show table all: the table ids on the stack up to this many, on
 * the heap beyond. */
#define RT_SHOW_TABLES_MAX 1024

/* The routes `route show` and `route flush` select, as ip-route(8)'s
 * selectors: a prefix (exact, or `root P`: inside P, or `match P`: holding
 * P), `dev`, `via`, `proto`, `type`, and the table. */
enum prefix_mode { PFX_NONE, PFX_EXACT, PFX_ROOT, PFX_MATCH };

struct route_filter {
	uint32_t table;
	bool locals; /* table local: local routes only */
	bool all;    /* table all: every route, local ones marked "table local" */
	enum prefix_mode mode;
	struct fib_prefix prefix;
	bool has_dev, has_via, has_proto, has_type;
	uint16_t dev;
	struct fib_prefix via;
	uint8_t proto, type;
};

struct show_ctx {
	struct cli *c;
	const struct route_filter *f;
	/* route flush: the selected routes, collected, deleted after the walk */
	struct fib_route *found;
	size_t nfound, cap;
	int err;
};

/* Whether p (a route's prefix) is inside q: at least as long, and equal
 * on q's length. */
static bool
prefix_within(const struct fib_prefix *p, const struct fib_prefix *q)
{
	if (p->family != q->family || p->len < q->len)
		return false;
	unsigned int bytes = q->len / 8, bits = q->len % 8;
	const uint8_t *a, *b;
	uint8_t a4[4], b4[4];
	if (p->family == FIB_AF_INET) {
		uint32_t x = rte_cpu_to_be_32(p->addr.v4), y = rte_cpu_to_be_32(q->addr.v4);
		memcpy(a4, &x, 4);
		memcpy(b4, &y, 4);
		a = a4;
		b = b4;
	} else {
		a = p->addr.v6;
		b = q->addr.v6;
	}
	if (memcmp(a, b, bytes) != 0)
		return false;
	return bits == 0 || ((a[bytes] ^ b[bytes]) & (uint8_t)(0xff << (8 - bits))) == 0;
}

/* Whether nexthop info n (a single one, or a member of a group) leaves by
 * the filter's port and gateway. */
static bool
path_selected(const struct route_filter *f, const struct nh_info *n)
{
	if (f->has_dev && n->spec.port != f->dev)
		return false;
	if (!f->has_via)
		return true;
	/* A nexthop holds its gateway as on the wire. */
	uint8_t gw[16];
	cli_addr_bytes(&f->via, gw);
	return n->spec.type == NH_T_GATEWAY && n->spec.family == f->via.family &&
	       memcmp(n->spec.gw, gw, f->via.family == FIB_AF_INET ? 4 : 16) == 0;
}

static bool
route_selected(const struct router *r, const struct route_filter *f, const struct fib_route *rt)
{
	if (rt->origin == RT_ORIGIN_NEIGH)
		return false; /* the router's own host routes for neighbours */
	if (!f->all && local_type(rt->type) != f->locals)
		return false;
	if ((f->mode == PFX_EXACT &&
	     (f->prefix.len != rt->dst.len || !prefix_within(&rt->dst, &f->prefix))) ||
	    (f->mode == PFX_ROOT && !prefix_within(&rt->dst, &f->prefix)) ||
	    (f->mode == PFX_MATCH && !prefix_within(&f->prefix, &rt->dst)))
		return false;
	if ((f->has_proto && rt->origin != f->proto) || (f->has_type && rt->type != f->type))
		return false;
	if (!f->has_dev && !f->has_via)
		return true;
	struct nh_info nh;
	if (rt->type != FIB_RT_UNICAST || nh_get(r->nh, rt->nh, &nh) != 0)
		return false;
	if (nh.spec.type != NH_T_GROUP)
		return path_selected(f, &nh);
	for (uint16_t k = 0; k < nh.nb_members; k++) {
		struct nh_info m;
		if (nh_get(r->nh, nh.m[k].index, &m) == 0 && path_selected(f, &m))
			return true; /* as ip: a multipath route by any of its paths */
	}
	return false;
}

/* The router's IPv4 address a route of an address belongs to, for the
 * `src` (and, for local and broadcast routes, the `dev`) ip route shows:
 * the address itself for its local route, the first address of the
 * port whose prefix the connected route is or whose broadcast address
 * the broadcast route is. NULL for any other route. */
static const struct rt_addr *
route_addr(const struct router *r, const struct fib_route *rt, int port)
{
	if (rt->dst.family != FIB_AF_INET || rt->origin != RT_ORIGIN_KERNEL)
		return NULL;
	for (unsigned int k = 0; k < r->nb_addrs; k++) {
		const struct rt_addr *a = &r->addr[k];
		if (a->p.family != FIB_AF_INET)
			continue;
		uint32_t v = a->p.addr.v4, host = a->p.len ? ~0u >> a->p.len : ~0u;
		if ((rt->type == FIB_RT_LOCAL && v == rt->dst.addr.v4) ||
		    (rt->type == FIB_RT_BROADCAST && a->p.len <= 30 &&
		     (v | host) == rt->dst.addr.v4) ||
		    (rt->type == FIB_RT_UNICAST && a->port == port && a->p.len == rt->dst.len &&
		     (v & ~host) == rt->dst.addr.v4))
			return a;
	}
	return NULL;
}

/* A nexthop's gateway as a prefix of its family's full length. */
static struct fib_prefix
gw_prefix(const struct nh_info *n)
{
	struct fib_prefix p = {.family = n->spec.family};
	if (p.family == FIB_AF_INET) {
		uint32_t be;
		memcpy(&be, n->spec.gw, 4);
		p.addr.v4 = rte_be_to_cpu_32(be);
		p.len = 32;
	} else {
		memcpy(p.addr.v6, n->spec.gw, 16);
		p.len = 128;
	}
	return p;
}

/* `via A dev P` of a nexthop, as route add takes it. @return whether the
 * route needs `onlink` (a route-wide flag, multipath routes included):
 * the gateway is on none of the port's prefixes, so it was added so. */
static bool
save_path(struct cli *c, const struct nh_info *n)
{
	char gw[64];
	struct fib_prefix via = gw_prefix(n);
	uint16_t port = n->spec.port;
	if (n->spec.type == NH_T_GATEWAY)
		rt_buf_printf(c->out, " via %s",
			      cli_fmt_addr(via.family, n->spec.gw, gw, sizeof(gw)));
	rt_buf_printf(c->out, " dev %s", c->r->dp.port[port].name);
	return n->spec.type == NH_T_GATEWAY && !rt_addr_on_link(c->r, port, &via);
}

/* The paths of a multipath route, as ip route shows them. */
static void
show_paths(struct cli *c, const struct nh_info *g)
{
	if (c->json)
		json_arr(&c->j, "nexthops");
	for (uint16_t k = 0; k < g->nb_members; k++) {
		struct nh_info m;
		char gw[64] = "";
		if (nh_get(c->r->nh, g->m[k].index, &m) != 0)
			continue;
		cli_fmt_addr(m.spec.family, m.spec.gw, gw, sizeof(gw));
		/* A path whose port is down, as ip route marks it. */
		bool dead = nh_down(c->r->nh, g->m[k].index);
		const char *dev = c->r->dp.port[m.spec.port].name;
		if (!c->json) {
			rt_buf_printf(c->out, "\tnexthop via %s dev %s weight %u%s\n", gw, dev,
				      g->m[k].weight, dead ? " dead linkdown" : "");
			continue;
		}
		json_obj(&c->j, NULL);
		json_str(&c->j, "gateway", gw);
		json_str(&c->j, "dev", dev);
		json_u64(&c->j, "weight", g->m[k].weight);
		if (dead) {
			json_arr(&c->j, "flags");
			json_str(&c->j, NULL, "dead");
			json_str(&c->j, NULL, "linkdown");
			json_end(&c->j);
		}
		json_end(&c->j);
	}
	if (c->json)
		json_end(&c->j);
}

/* A route's words, as route show prints them. */
struct route_view {
	const struct fib_route *rt;
	struct nh_info nh; /* with has_nh */
	bool has_nh, multipath, in_local, table_named;
	const char *dev, *proto;
	char dst[64], gw[64], src[64], tb[16], ob[8];
};

static void
route_view(const struct router *r, const struct route_filter *f, const struct fib_route *rt,
	   struct route_view *v)
{
	memset(v, 0, sizeof(*v));
	v->rt = rt;
	if (rt->dst.len == 0)
		snprintf(v->dst, sizeof(v->dst), "default");
	else
		cli_fmt_prefix(&rt->dst, v->dst, sizeof(v->dst));
	v->has_nh = rt->type == FIB_RT_UNICAST && nh_get(r->nh, rt->nh, &v->nh) == 0;
	const struct nh_spec *ns = &v->nh.spec;
	if (v->has_nh && ns->type != NH_T_GROUP) {
		v->dev = r->dp.port[ns->port].name;
		if (ns->type == NH_T_GATEWAY)
			cli_fmt_addr(ns->family, ns->gw, v->gw, sizeof(v->gw));
	}
	const struct rt_addr *own =
		route_addr(r, rt, v->has_nh && ns->type == NH_T_CONNECTED ? ns->port : -1);
	if (own != NULL) {
		struct fib_prefix h = own->p;
		h.len = 32;
		cli_fmt_prefix(&h, v->src, sizeof(v->src));
		if (v->dev == NULL)
			v->dev = r->dp.port[own->port].name;
	}
	v->proto = cli_origin_name(rt->origin, v->ob, sizeof(v->ob));
	cli_fmt_table(rt->table, v->tb, sizeof(v->tb));
	/* Linux keeps local routes in a table of their own; routerd keeps
	 * them in main (docs/fib.md) and, listing every table, names them
	 * as Linux does. */
	v->in_local = f->all && local_type(rt->type);
	if (v->in_local)
		snprintf(v->tb, sizeof(v->tb), "local");
	/* As ip: a table is named when the listing spans tables, not when
	 * it was asked for. */
	v->table_named = f->all && (rt->table != FIB_TABLE_MAIN || v->in_local);
	v->multipath = v->has_nh && ns->type == NH_T_GROUP && ns->id == 0;
}

static void
show_json(struct cli *c, const struct route_view *v)
{
	const struct fib_route *rt = v->rt;
	json_obj(&c->j, NULL);
	json_str(&c->j, "type", cli_route_types[rt->type]);
	json_str(&c->j, "dst", v->dst);
	if (v->gw[0])
		json_str(&c->j, "gateway", v->gw);
	if (v->dev)
		json_str(&c->j, "dev", v->dev);
	if (v->has_nh && v->nh.spec.id)
		json_u64(&c->j, "nhid", v->nh.spec.id);
	if (v->multipath)
		show_paths(c, &v->nh);
	if (v->src[0])
		json_str(&c->j, "prefsrc", v->src);
	json_str(&c->j, "protocol", v->proto);
	json_u64(&c->j, "metric", rt->metric);
	json_str(&c->j, "table", v->tb);
	if (rt->flags & FIB_RF_DOWN) {
		json_arr(&c->j, "flags");
		json_str(&c->j, NULL, "linkdown");
		json_end(&c->j);
	}
	json_end(&c->j);
}

/* In ip route's order: type, prefix, nhid, via, dev, table, proto,
 * scope, src, metric, flags; a multipath route's paths below it. */
static void
show_text(struct cli *c, const struct route_view *v)
{
	const struct fib_route *rt = v->rt;
	if (rt->type != FIB_RT_UNICAST)
		rt_buf_printf(c->out, "%s ", cli_route_types[rt->type]);
	rt_buf_printf(c->out, "%s", v->dst);
	if (v->has_nh && v->nh.spec.id)
		rt_buf_printf(c->out, " nhid %u", v->nh.spec.id);
	if (v->gw[0])
		rt_buf_printf(c->out, " via %s", v->gw);
	if (v->dev)
		rt_buf_printf(c->out, " dev %s", v->dev);
	if (v->table_named)
		rt_buf_printf(c->out, " table %s", v->tb);
	if (rt->origin != RT_ORIGIN_BOOT)
		rt_buf_printf(c->out, " proto %s", v->proto);
	if (rt->type == FIB_RT_LOCAL)
		rt_buf_printf(c->out, " scope host");
	else if (rt->type == FIB_RT_BROADCAST || (v->has_nh && v->nh.spec.type == NH_T_CONNECTED))
		rt_buf_printf(c->out, " scope link");
	if (v->src[0])
		rt_buf_printf(c->out, " src %s", v->src);
	if (rt->metric)
		rt_buf_printf(c->out, " metric %u", rt->metric);
	/* Its nexthop's port is down: kept, not looked up (lib/fib). */
	if (rt->flags & FIB_RF_DOWN)
		rt_buf_printf(c->out, " linkdown");
	rt_buf_printf(c->out, "\n");
	if (v->multipath)
		show_paths(c, &v->nh);
}

static int
show_route(const struct fib_route *rt, void *arg)
{
	struct show_ctx *s = arg;
	if (!route_selected(s->c->r, s->f, rt))
		return 0;
	struct route_view v;
	route_view(s->c->r, s->f, rt, &v);
	if (s->c->json)
		show_json(s->c, &v);
	else
		show_text(s->c, &v);
	return 0;
}

/* A route as ip monitor prints it: as route show table all would. */
void
cli_route_event(struct cli *c, const void *rt)
{
	const struct route_filter all = {.all = true};
	struct show_ctx s = {.c = c, .f = &all};
	show_route(rt, &s);
}

/* The selectors of route show and route flush (what: the command). */
static int
parse_filter(struct cli *c, const char *what, struct route_filter *f)
{
	memset(f, 0, sizeof(*f));
	f->table = FIB_TABLE_MAIN;
	const char *w;
	while ((w = cli_next(c)) != NULL) {
		int rc = 0;
		if (strcmp(w, "table") == 0) {
			const char *t = cli_next(c);
			f->locals = t != NULL && strcmp(t, "local") == 0;
			f->all = t != NULL && strcmp(t, "all") == 0;
			if (!f->all)
				rc = cli_parse_table(c, t, &f->table);
		} else if (strcmp(w, "dev") == 0 || strcmp(w, "oif") == 0) {
			rc = cli_parse_port(c, cli_next(c), &f->dev);
			f->has_dev = true;
		} else if (strcmp(w, "via") == 0) {
			rc = cli_parse_addr(c, what, cli_next(c), c->family, &f->via);
			f->has_via = true;
		} else if (strcmp(w, "proto") == 0 || strcmp(w, "protocol") == 0) {
			rc = cli_parse_origin(c, cli_next(c), &f->proto);
			f->has_proto = true;
		} else if (strcmp(w, "type") == 0) {
			const char *t = cli_next(c);
			int k = 0;
			while (k < FIB_RT_COUNT &&
			       (t == NULL || strcmp(t, cli_route_types[k]) != 0))
				k++;
			if (k == FIB_RT_COUNT)
				rc = cli_fail(c, EINVAL, "%s: unknown route type '%s'", what,
					      t ? t : "");
			f->type = (uint8_t)k;
			f->has_type = true;
		} else if (strcmp(w, "all") == 0 || strcmp(w, "any") == 0) {
			f->mode = PFX_NONE; /* every prefix, as ip takes them here */
		} else {
			f->mode = PFX_EXACT;
			if (strcmp(w, "root") == 0 || strcmp(w, "match") == 0 ||
			    strcmp(w, "exact") == 0 || strcmp(w, "to") == 0) {
				f->mode = w[0] == 'r'   ? PFX_ROOT
					  : w[0] == 'm' ? PFX_MATCH
							: PFX_EXACT;
				w = cli_next(c);
			}
			rc = cli_parse_prefix(c, what, w, c->family, &f->prefix);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Walk every table and family the filter covers. */
static void
filter_walk(struct cli *c, const struct route_filter *f, fib_route_cb fn, void *arg)
{
	/* table all: every table in id order (main, 254, among them). */
	uint32_t few[RT_SHOW_TABLES_MAX], *ids = few, n = 1;
	ids[0] = f->table;
	if (f->all)
		ids = cli_table_ids(c, few, RTE_DIM(few), &n);
	for (int k = 0; k < 2; k++) {
		uint8_t af = k ? FIB_AF_INET6 : FIB_AF_INET;
		if ((c->family && c->family != af) ||
		    (f->mode != PFX_NONE && f->prefix.family != af) ||
		    (f->has_via && f->via.family != af))
			continue;
		for (uint32_t i = 0; i < n; i++)
			fib_route_walk(c->r->fib, ids[i], af, fn, arg);
	}
	if (ids != few)
		free(ids);
}

int
cli_route_show(struct cli *c)
{
	struct route_filter f;
	int rc = parse_filter(c, "route show", &f);
	if (rc < 0)
		return rc;
	struct show_ctx s = {.c = c, .f = &f};
	if (c->json)
		json_arr(&c->j, NULL);
	filter_walk(c, &f, show_route, &s);
	if (c->json)
		json_end(&c->j);
	return 0;
}

static int
collect_route(const struct fib_route *rt, void *arg)
{
	struct show_ctx *s = arg;
	if (!route_selected(s->c->r, s->f, rt))
		return 0;
	/* table all leaves the addresses' own routes alone; table local or
	 * type local|broadcast names them. The kernel's routes the mirror
	 * follows change with the kernel's table alone. */
	if ((s->f->all && local_type(rt->type) && !s->f->has_type) || rt_mirror_owns(rt))
		return 0;
	if (s->nfound == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 1024;
		struct fib_route *p = realloc(s->found, cap * sizeof(*p));
		if (p == NULL) {
			s->err = -ENOMEM;
			return -ENOMEM; /* stops the walk */
		}
		s->found = p;
		s->cap = cap;
	}
	s->found[s->nfound++] = *rt;
	return 0;
}

/* route flush SELECTORS: delete every route route show would list with
 * them (ip route flush; a selector is required, as there), but for
 * `table all` the local and broadcast routes of the router's addresses,
 * unless a type names them, and never the kernel's routes the mirror
 * follows (they go when Linux's do). The routes
 * are collected first, then deleted: nothing is deleted if memory for the
 * list runs out. `route flush cache` is accepted and does nothing: there
 * is no route cache (nor in Linux since 3.6). */
int
cli_route_flush(struct cli *c)
{
	if (c->pos < c->argc && strcmp(c->argv[c->pos], "cache") == 0 && c->pos + 1 == c->argc)
		return 0;
	if (c->pos == c->argc)
		return cli_fail(c, EINVAL,
				"route flush: a selector is needed (table, dev, "
				"via, proto, type or a prefix)");
	struct route_filter f;
	int rc = parse_filter(c, "route flush", &f);
	if (rc < 0)
		return rc;
	struct show_ctx s = {.c = c, .f = &f};
	filter_walk(c, &f, collect_route, &s);
	if (s.err < 0) {
		free(s.found);
		return cli_fail(c, -s.err, "route flush: out of memory, nothing deleted");
	}
	for (size_t i = 0; i < s.nfound; i++) {
		if (fib_route_del(c->r->fib, &s.found[i], false) != 0)
			continue;
		rt_mirror_operator_gone(&s.found[i]);
		cli_event(c->r, CLI_EV_ROUTE, true, cli_route_event, &s.found[i]);
		if (s.found[i].type == FIB_RT_UNICAST)
			nh_unref(c->r->nh, s.found[i].nh);
	}
	free(s.found);
	return 0;
}

/* A route as the route add line that recreates it. Not the routes the
 * router makes itself (its addresses' (kernel) and its neighbours' host
 * routes), nor the kernel's it follows (they come from Linux again). The metric always (an IPv6 route without one gets 1024); a
 * prefix of length 0 as one (`default` would leave the family to the
 * gateway). */
struct save_ctx {
	struct cli *c;
	struct fib_route own[3 * RT_MAX_ADDRS]; /* the addresses' routes */
	unsigned int nb_own;
};

/* Whether rt takes the (table, prefix, metric) of one of the addresses'
 * own routes: the saved file adds the addresses first, so it must
 * replace that route. */
static bool
address_key(const struct save_ctx *s, const struct fib_route *rt)
{
	for (unsigned int i = 0; i < s->nb_own; i++)
		if (rt->table == FIB_TABLE_MAIN && rt->metric == s->own[i].metric &&
		    rt_prefix_same(&rt->dst, &s->own[i].dst))
			return true;
	return false;
}

static int
save_route(const struct fib_route *rt, void *arg)
{
	struct save_ctx *s = arg;
	struct cli *c = s->c;
	if (rt->origin == RT_ORIGIN_KERNEL || rt->origin == RT_ORIGIN_NEIGH || rt_mirror_owns(rt))
		return 0;
	char dst[64], ob[8];
	rt_buf_printf(c->out, "route %s %s%s%s", address_key(s, rt) ? "replace" : "add",
		      rt->type ? cli_route_types[rt->type] : "", rt->type ? " " : "",
		      cli_fmt_prefix(&rt->dst, dst, sizeof(dst)));
	struct nh_info nh;
	bool onlink = false;
	if (rt->type == FIB_RT_UNICAST && nh_get(c->r->nh, rt->nh, &nh) == 0) {
		if (nh.spec.id != 0) {
			rt_buf_printf(c->out, " nhid %u", nh.spec.id);
		} else if (nh.spec.type == NH_T_GROUP) {
			for (uint16_t k = 0; k < nh.nb_members; k++) {
				struct nh_info m;
				if (nh_get(c->r->nh, nh.m[k].index, &m) != 0)
					continue;
				rt_buf_printf(c->out, " nexthop");
				onlink |= save_path(c, &m);
				if (nh.m[k].weight != 1)
					rt_buf_printf(c->out, " weight %u", nh.m[k].weight);
			}
		} else {
			onlink = save_path(c, &nh);
		}
	}
	if (onlink)
		rt_buf_printf(c->out, " onlink");
	if (rt->table != FIB_TABLE_MAIN)
		rt_buf_printf(c->out, " table %u", rt->table);
	if (rt->origin != RT_ORIGIN_BOOT)
		rt_buf_printf(c->out, " proto %s", cli_origin_name(rt->origin, ob, sizeof(ob)));
	rt_buf_printf(c->out, " metric %u\n", rt->metric);
	return 0;
}

void
cli_route_save(struct cli *c)
{
	static struct save_ctx s; /* large; the control core is single-threaded */
	s.c = c;
	s.nb_own = RTE_MIN(rt_addr_routes(c->r, s.own, RTE_DIM(s.own)), RTE_DIM(s.own));
	const struct route_filter f = {.all = true};
	filter_walk(c, &f, save_route, &s);
	/* The addresses' routes an operator deleted: deleted again. */
	for (unsigned int i = 0; i < s.nb_own; i++) {
		struct fib_route got, *k = &s.own[i];
		k->table = FIB_TABLE_MAIN;
		if (fib_route_get(c->r->fib, k, false, &got) == 0)
			continue;
		char dst[64];
		rt_buf_printf(c->out, "route del %s metric %u\n",
			      cli_fmt_prefix(&k->dst, dst, sizeof(dst)), k->metric);
	}
}
