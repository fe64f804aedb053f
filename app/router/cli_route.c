/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route add|replace|change|del|show|flush|get, and routes' part of save.
 *
 * A unicast route holds one reference on its nexthop: an implicit one made
 * from `via GW dev PORT` (shared with every route through that gateway),
 * the port's connected nexthop for `dev PORT` alone, or an explicit one
 * named by `nhid`. The reference moves with replace and goes with del.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <string.h>

#include "cli.h"

static void route_event(struct cli *c, const void *rt);

static const char *const type_names[FIB_RT_COUNT] = {
	"unicast", "local", "blackhole", "unreachable", "prohibit", "broadcast", "throw"};

/* Routes of Linux's local table: shown with `table local` (or all). */
static bool
local_type(uint8_t type)
{
	return type == FIB_RT_LOCAL || type == FIB_RT_BROADCAST;
}

/* Route origins by name, as iproute2's rt_protos names them. 253 is
 * the router's own (its hidden host routes for neighbours). */
static const struct {
	const char *name;
	uint8_t v;
} origins[] = {{"redirect", 1},
	       {"kernel", RT_ORIGIN_KERNEL},
	       {"boot", RT_ORIGIN_BOOT},
	       {"static", 4},
	       {"ra", 9},
	       {"zebra", 11},
	       {"bird", 12},
	       {"dhcp", 16},
	       {"keepalived", 18},
	       {"babel", 42},
	       {"bgp", 186},
	       {"isis", 187},
	       {"ospf", 188},
	       {"rip", 189},
	       {"eigrp", 192},
	       {"neigh", RT_ORIGIN_NEIGH}};

static const char *
origin_name(uint8_t o, char *buf, size_t len)
{
	for (unsigned int i = 0; i < RTE_DIM(origins); i++)
		if (origins[i].v == o)
			return origins[i].name;
	snprintf(buf, len, "%u", o);
	return buf;
}

/* proto NAME|N. */
static int
parse_origin(struct cli *c, const char *s, uint8_t *out)
{
	for (unsigned int i = 0; s != NULL && i < RTE_DIM(origins); i++)
		if (strcmp(s, origins[i].name) == 0) {
			*out = origins[i].v;
			return 0;
		}
	uint32_t v;
	int rc = cli_parse_u32(c, "proto", s, 255, &v);
	*out = (uint8_t)v;
	return rc;
}

/* One path of a multipath route: `nexthop via ADDR [dev PORT] [weight W]`. */
struct path {
	struct fib_prefix via;
	bool has_dev;
	uint16_t dev;
	uint32_t weight;
};

struct route_args {
	struct fib_route r;
	bool has_metric, has_via, has_dev, has_nhid, onlink;
	struct fib_prefix via;
	uint16_t dev;
	uint32_t nhid;
	unsigned int npaths;
	struct path path[NH_GROUP_MEMBERS_MAX];
};

static int
parse_route(struct cli *c, const char *what, struct route_args *a, bool need_prefix)
{
	memset(a, 0, sizeof(*a));
	a->r.table = FIB_TABLE_MAIN;
	a->r.origin = RT_ORIGIN_BOOT;
	const char *w = cli_next(c);
	for (int t = 0; w != NULL && t < FIB_RT_COUNT; t++) {
		if (strcmp(w, type_names[t]) == 0) {
			a->r.type = (uint8_t)t;
			w = cli_next(c);
			break;
		}
	}
	if (w == NULL && need_prefix)
		return cli_fail(c, EINVAL, "%s: prefix expected", what);
	int rc = w ? cli_parse_prefix(c, what, w, c->family, &a->r.dst) : 0;
	if (rc < 0)
		return rc;
	while ((w = cli_next(c)) != NULL) {
		if (strcmp(w, "via") == 0) {
			/* `default` without -4/-6 takes the gateway's family, as ip. */
			bool any = a->r.dst.len == 0 && c->family == 0;
			rc = cli_parse_addr(c, what, cli_next(c), any ? 0 : a->r.dst.family,
					    &a->via);
			if (rc == 0 && any)
				a->r.dst.family = a->via.family;
			a->has_via = true;
		} else if (strcmp(w, "dev") == 0 || strcmp(w, "oif") == 0) {
			rc = cli_parse_port(c, cli_next(c), &a->dev);
			a->has_dev = true;
		} else if (strcmp(w, "nhid") == 0) {
			rc = cli_parse_u32(c, "nhid", cli_next(c), UINT32_MAX, &a->nhid);
			a->has_nhid = true;
		} else if (strcmp(w, "metric") == 0 || strcmp(w, "priority") == 0 ||
			   strcmp(w, "preference") == 0) {
			rc = cli_parse_u32(c, "metric", cli_next(c), UINT32_MAX, &a->r.metric);
			a->has_metric = true;
		} else if (strcmp(w, "table") == 0) {
			rc = cli_parse_table(c, cli_next(c), &a->r.table);
		} else if (strcmp(w, "proto") == 0 || strcmp(w, "protocol") == 0) {
			rc = parse_origin(c, cli_next(c), &a->r.origin);
			/* kernel marks the addresses' routes, neigh the
			 * neighbours' host routes: show, flush and save tell
			 * the router's own routes by them. */
			if (rc == 0 &&
			    (a->r.origin == RT_ORIGIN_NEIGH || a->r.origin == RT_ORIGIN_KERNEL))
				rc = cli_fail(c, EINVAL, "%s: proto %u is the router's own", what,
					      a->r.origin);
		} else if (strcmp(w, "onlink") == 0) {
			a->onlink = true;
		} else if (strcmp(w, "nexthop") == 0) {
			if (a->npaths == NH_GROUP_MEMBERS_MAX)
				return cli_fail(c, EINVAL, "%s: too many nexthops", what);
			struct path *p = &a->path[a->npaths++];
			p->weight = 1;
			/* Its words: via, dev, weight, until the next keyword. */
			while (c->pos < c->argc) {
				const char *k = c->argv[c->pos];
				if (strcmp(k, "via") == 0) {
					c->pos++;
					rc = cli_parse_addr(c, what, cli_next(c), a->r.dst.family,
							    &p->via);
				} else if (strcmp(k, "dev") == 0) {
					c->pos++;
					rc = cli_parse_port(c, cli_next(c), &p->dev);
					p->has_dev = true;
				} else if (strcmp(k, "weight") == 0) {
					c->pos++;
					rc = cli_parse_u32(c, "weight", cli_next(c), 255,
							   &p->weight);
					if (rc == 0 && p->weight == 0)
						rc = cli_fail(c, EINVAL, "%s: weight 0", what);
				} else {
					break;
				}
				if (rc < 0)
					return rc;
			}
			if (p->via.family == 0)
				return cli_fail(c, EINVAL, "%s: nexthop without via", what);
		} else {
			return cli_fail(c, EINVAL, "%s: unknown argument '%s'", what, w);
		}
		if (rc < 0)
			return rc;
	}
	if (!a->has_metric && a->r.dst.family == FIB_AF_INET6)
		a->r.metric = 1024; /* Linux's default for IPv6 routes */
	return 0;
}

/* Is addr inside one of our prefixes on port? IPv6 link-local addresses
 * are on every link. */
static bool
on_link(const struct router *r, uint16_t port, const struct fib_prefix *addr)
{
	if (rt_prefix_link_local(addr))
		return true;
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		if (a->port != port || a->p.family != addr->family)
			continue;
		unsigned int len = a->p.len;
		if (addr->family == FIB_AF_INET) {
			uint32_t m = len ? 0xffffffffu << (32 - len) : 0;
			if ((a->p.addr.v4 & m) == (addr->addr.v4 & m))
				return true;
			continue;
		}
		unsigned int full = len / 8;
		if (memcmp(a->p.addr.v6, addr->addr.v6, full) != 0)
			continue;
		if (len % 8 &&
		    ((a->p.addr.v6[full] ^ addr->addr.v6[full]) & (uint8_t)(0xff << (8 - len % 8))))
			continue;
		return true;
	}
	return false;
}

/* An implicit gateway nexthop for via (and dev, found from via when not
 * given), with a reference taken. */
static int
gateway_nexthop(struct cli *c, const char *what, const struct fib_prefix *via, bool has_dev,
		uint16_t dev, bool onlink, uint32_t *index)
{
	struct router *r = c->r;
	uint8_t gw[16];
	cli_addr_bytes(via, gw);
	if (rt_addr_is_local(r, via->family, gw))
		return cli_fail(c, EINVAL, "%s: gateway is a local address", what);
	if (!has_dev && rt_prefix_link_local(via))
		return cli_fail(c, EINVAL, "%s: a link-local gateway needs 'dev PORT'", what);
	if (!has_dev) {
		for (uint16_t p = 0; p < r->nb_ports && !has_dev; p++)
			if (on_link(r, p, via)) {
				dev = p;
				has_dev = true;
			}
		if (!has_dev)
			return cli_fail(c, ENETUNREACH, "%s: gateway not on a connected network",
					what);
	} else if (!onlink && !on_link(r, dev, via)) {
		return cli_fail(c, ENETUNREACH,
				"%s: gateway not on a connected network of %s (use onlink)", what,
				r->port[dev].name);
	}
	struct nh_spec s = {.type = NH_T_GATEWAY, .family = via->family, .port = dev};
	memcpy(s.gw, gw, 16);
	int rc = nh_add(r->nh, &s, index);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: nexthop: %s", what, strerror(-rc));
	/* Already resolved: the new nexthop gets its header now. */
	struct neigh_info ni;
	struct neigh_key k = neigh_key(dev, via->family, gw);
	if (neigh_get(r->neigh, &k, &ni) == 0 && ni.state != NEIGH_INCOMPLETE &&
	    ni.state != NEIGH_FAILED)
		nh_neigh_update(r->nh, dev, via->family, gw, ni.mac);
	return 0;
}

/* A multipath route's own group of its paths, with a reference taken. */
static int
multipath_nexthop(struct cli *c, const char *what, struct route_args *a)
{
	struct nh_member m[NH_GROUP_MEMBERS_MAX];
	unsigned int k;
	int rc = 0;
	for (k = 0; k < a->npaths && rc == 0; k++) {
		const struct path *p = &a->path[k];
		rc = gateway_nexthop(c, what, &p->via, p->has_dev, p->dev, a->onlink, &m[k].index);
		m[k].weight = (uint16_t)p->weight;
	}
	if (rc == 0) {
		rc = nh_group_add(c->r->nh, m, a->npaths, &a->r.nh);
		if (rc < 0)
			rc = cli_fail(c, -rc, "%s: nexthops: %s", what,
				      rc == -EINVAL ? "the same path twice" : strerror(-rc));
	} else {
		k--; /* the failed one took no reference */
	}
	/* The group holds the paths now (or, on error, nothing does). */
	for (unsigned int i = 0; i < k; i++)
		nh_unref(c->r->nh, m[i].index);
	return rc;
}

/* The nexthop a unicast route gets, with a reference taken. */
static int
route_nexthop(struct cli *c, const char *what, struct route_args *a)
{
	struct router *r = c->r;
	if (a->npaths > 0) {
		if (a->has_via || a->has_dev || a->has_nhid)
			return cli_fail(c, EINVAL, "%s: nexthop excludes via, dev and nhid", what);
		return multipath_nexthop(c, what, a);
	}
	if (a->has_nhid) {
		if (a->has_via || a->has_dev)
			return cli_fail(c, EINVAL, "%s: nhid excludes via and dev", what);
		if (cli_nh_lookup_id(r, a->nhid, &a->r.nh) != 0)
			return cli_fail(c, ENOENT, "%s: no nexthop with id %u", what, a->nhid);
		nh_ref(r->nh, a->r.nh);
		return 0;
	}
	if (!a->has_via && !a->has_dev)
		return cli_fail(c, EINVAL,
				"%s: 'via ADDR', 'dev PORT', 'nhid ID' or 'nexthop ...' "
				"expected",
				what);
	if (a->has_via)
		return gateway_nexthop(c, what, &a->via, a->has_dev, a->dev, a->onlink, &a->r.nh);
	struct nh_spec s = {.type = NH_T_CONNECTED, .family = a->r.dst.family, .port = a->dev};
	int rc = nh_add(r->nh, &s, &a->r.nh);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: nexthop: %s", what, strerror(-rc));
	return 0;
}

static int
fib_error(struct cli *c, const char *what, const struct fib_prefix *p, int rc)
{
	char s[64];
	cli_fmt_prefix(p, s, sizeof(s));
	switch (rc) {
	case -EEXIST:
		return cli_fail(c, EEXIST, "%s: route %s exists (File exists)", what, s);
	case -ENOENT:
		return cli_fail(c, ESRCH, "%s: no such route %s (No such process)", what, s);
	case -EINVAL:
		return cli_fail(c, EINVAL, "%s: invalid prefix for its length '%s'", what, s);
	case -ENOSPC:
		return cli_fail(c, ENOSPC,
				"%s: %s: lookup table full (second-level groups), nothing changed",
				what, s);
	default:
		return cli_fail(c, -rc, "%s: %s: %s", what, s, strerror(-rc));
	}
}

/* route add, replace, or change (replace, of a route that exists:
 * ip route change). */
static int
route_change(struct cli *c, bool replace, bool must_exist)
{
	const char *what = must_exist ? "route change" : replace ? "route replace" : "route add";
	struct route_args a;
	int rc = parse_route(c, what, &a, true);
	if (rc < 0)
		return rc;
	struct router *r = c->r;
	struct fib_route cur;
	if (must_exist && fib_route_get(r->fib, &a.r, false, &cur) != 0)
		return fib_error(c, what, &a.r.dst, -ENOENT);
	bool holds = a.r.type == FIB_RT_UNICAST;
	if (holds && (rc = route_nexthop(c, what, &a)) < 0)
		return rc;
	struct fib_route old;
	bool had = replace && fib_route_get(r->fib, &a.r, false, &old) == 0;
	rc = replace ? fib_route_replace(r->fib, &a.r) : fib_route_add(r->fib, &a.r);
	if (rc < 0) {
		if (holds)
			nh_unref(r->nh, a.r.nh);
		return fib_error(c, what, &a.r.dst, rc);
	}
	cli_event(r, RT_EV_ROUTE, false, route_event, &a.r);
	if (had && old.type == FIB_RT_UNICAST)
		nh_unref(r->nh, old.nh);
	return 0;
}

static int
route_del(struct cli *c)
{
	struct route_args a;
	int rc = parse_route(c, "route del", &a, true);
	if (rc < 0)
		return rc;
	struct fib_route old;
	rc = fib_route_get(c->r->fib, &a.r, !a.has_metric, &old);
	if (rc == 0)
		rc = fib_route_del(c->r->fib, &old, false);
	if (rc < 0)
		return fib_error(c, "route del", &a.r.dst, rc);
	cli_event(c->r, RT_EV_ROUTE, true, route_event, &old); /* before its nexthop may go */
	if (old.type == FIB_RT_UNICAST)
		nh_unref(c->r->nh, old.nh);
	return 0;
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
	bool first;
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
	rt_buf_printf(c->out, " dev %s", c->r->port[port].name);
	return n->spec.type == NH_T_GATEWAY && !on_link(c->r, port, &via);
}

/* The paths of a multipath route, as ip route shows them. */
static void
show_paths(struct cli *c, const struct nh_info *g)
{
	if (c->json)
		rt_buf_printf(c->out, ",\"nexthops\":[");
	for (uint16_t k = 0; k < g->nb_members; k++) {
		struct nh_info m;
		char gw[64] = "";
		if (nh_get(c->r->nh, g->m[k].index, &m) != 0)
			continue;
		cli_fmt_addr(m.spec.family, m.spec.gw, gw, sizeof(gw));
		/* A path whose port is down, as ip route marks it. */
		bool dead = nh_down(c->r->nh, g->m[k].index);
		if (c->json)
			rt_buf_printf(
				c->out, "%s{\"gateway\":\"%s\",\"dev\":\"%s\",\"weight\":%u%s}",
				k ? "," : "", gw, c->r->port[m.spec.port].name, g->m[k].weight,
				dead ? ",\"flags\":[\"dead\",\"linkdown\"]" : "");
		else
			rt_buf_printf(c->out, "\tnexthop via %s dev %s weight %u%s\n", gw,
				      c->r->port[m.spec.port].name, g->m[k].weight,
				      dead ? " dead linkdown" : "");
	}
	if (c->json)
		rt_buf_printf(c->out, "]");
}

static int
show_route(const struct fib_route *rt, void *arg)
{
	struct show_ctx *s = arg;
	struct cli *c = s->c;
	struct router *r = c->r;
	if (!route_selected(r, s->f, rt))
		return 0;
	char dst[64], gw[64] = "", tb[16], ob[8];
	struct fib_prefix d = rt->dst;
	if (d.len == 0)
		snprintf(dst, sizeof(dst), "default");
	else
		cli_fmt_prefix(&d, dst, sizeof(dst));
	struct nh_info nh = {0};
	bool has_nh = rt->type == FIB_RT_UNICAST && nh_get(r->nh, rt->nh, &nh) == 0;
	const char *dev = NULL;
	if (has_nh && nh.spec.type != NH_T_GROUP) {
		dev = r->port[nh.spec.port].name;
		if (nh.spec.type == NH_T_GATEWAY)
			cli_fmt_addr(nh.spec.family, nh.spec.gw, gw, sizeof(gw));
	}
	const struct rt_addr *own =
		route_addr(r, rt, has_nh && nh.spec.type == NH_T_CONNECTED ? nh.spec.port : -1);
	char src[64] = "";
	if (own != NULL) {
		struct fib_prefix h = own->p;
		h.len = 32;
		cli_fmt_prefix(&h, src, sizeof(src));
		if (dev == NULL)
			dev = r->port[own->port].name;
	}
	const char *proto = origin_name(rt->origin, ob, sizeof(ob));
	cli_fmt_table(rt->table, tb, sizeof(tb));
	/* Linux keeps local routes in a table of their own; routerd keeps
	 * them in main (docs/fib.md) and, listing every table, names them
	 * as Linux does. */
	bool in_local = s->f->all && local_type(rt->type);
	if (in_local)
		snprintf(tb, sizeof(tb), "local");
	bool multipath = has_nh && nh.spec.type == NH_T_GROUP && nh.spec.id == 0;
	if (c->json) {
		rt_buf_printf(c->out, "%s{\"type\":\"%s\",\"dst\":\"%s\"", s->first ? "" : ",",
			      type_names[rt->type], dst);
		if (gw[0])
			rt_buf_printf(c->out, ",\"gateway\":\"%s\"", gw);
		if (dev)
			rt_buf_printf(c->out, ",\"dev\":\"%s\"", dev);
		if (has_nh && nh.spec.id)
			rt_buf_printf(c->out, ",\"nhid\":%u", nh.spec.id);
		if (multipath)
			show_paths(c, &nh);
		if (src[0])
			rt_buf_printf(c->out, ",\"prefsrc\":\"%s\"", src);
		rt_buf_printf(c->out, ",\"protocol\":\"%s\",\"metric\":%u,\"table\":\"%s\"%s}",
			      proto, rt->metric, tb,
			      (rt->flags & FIB_RF_DOWN) ? ",\"flags\":[\"linkdown\"]" : "");
	} else {
		if (rt->type != FIB_RT_UNICAST)
			rt_buf_printf(c->out, "%s ", type_names[rt->type]);
		rt_buf_printf(c->out, "%s", dst);
		if (has_nh && nh.spec.id)
			rt_buf_printf(c->out, " nhid %u", nh.spec.id);
		if (gw[0])
			rt_buf_printf(c->out, " via %s", gw);
		/* In ip route's order: dev, table, proto, scope, src, metric. */
		if (dev)
			rt_buf_printf(c->out, " dev %s", dev);
		/* As ip: a table is named when the listing spans tables, not
		 * when it was asked for. */
		if (s->f->all && (rt->table != FIB_TABLE_MAIN || in_local))
			rt_buf_printf(c->out, " table %s", tb);
		if (rt->origin != RT_ORIGIN_BOOT)
			rt_buf_printf(c->out, " proto %s", proto);
		if (rt->type == FIB_RT_LOCAL)
			rt_buf_printf(c->out, " scope host");
		else if (rt->type == FIB_RT_BROADCAST || (has_nh && nh.spec.type == NH_T_CONNECTED))
			rt_buf_printf(c->out, " scope link");
		if (src[0])
			rt_buf_printf(c->out, " src %s", src);
		if (rt->metric)
			rt_buf_printf(c->out, " metric %u", rt->metric);
		/* Its nexthop's port is down: kept, not looked up (lib/fib). */
		if (rt->flags & FIB_RF_DOWN)
			rt_buf_printf(c->out, " linkdown");
		rt_buf_printf(c->out, "\n");
		if (multipath)
			show_paths(c, &nh);
	}
	s->first = false;
	return 0;
}

/* A route as ip monitor prints it: as route show table all would. */
static void
route_event(struct cli *c, const void *rt)
{
	const struct route_filter all = {.all = true};
	struct show_ctx s = {.c = c, .first = true, .f = &all};
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
			rc = parse_origin(c, cli_next(c), &f->proto);
			f->has_proto = true;
		} else if (strcmp(w, "type") == 0) {
			const char *t = cli_next(c);
			int k = 0;
			while (k < FIB_RT_COUNT && (t == NULL || strcmp(t, type_names[k]) != 0))
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

static int
route_show(struct cli *c)
{
	struct route_filter f;
	int rc = parse_filter(c, "route show", &f);
	if (rc < 0)
		return rc;
	struct show_ctx s = {.c = c, .first = true, .f = &f};
	if (c->json)
		rt_buf_printf(c->out, "[");
	filter_walk(c, &f, show_route, &s);
	if (c->json)
		rt_buf_printf(c->out, "]\n");
	return 0;
}

static int
collect_route(const struct fib_route *rt, void *arg)
{
	struct show_ctx *s = arg;
	if (!route_selected(s->c->r, s->f, rt))
		return 0;
	/* table all leaves the addresses' own routes alone; table local or
	 * type local|broadcast names them. */
	if (s->f->all && local_type(rt->type) && !s->f->has_type)
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
 * unless a type names them. The routes
 * are collected first, then deleted: nothing is deleted if memory for the
 * list runs out. `route flush cache` is accepted and does nothing: there
 * is no route cache (nor in Linux since 3.6). */
static int
route_flush(struct cli *c)
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
		cli_event(c->r, RT_EV_ROUTE, true, route_event, &s.found[i]);
		if (s.found[i].type == FIB_RT_UNICAST)
			nh_unref(c->r->nh, s.found[i].nh);
	}
	free(s.found);
	return 0;
}

/* The id of the table whose route answers a packet (0: a rule's action,
 * or nothing), as the workers route it. */
static uint32_t
answer_table(const struct router *r, const struct fib_prefix *src, const struct fib_prefix *dst,
	     const struct fib_flow *flow)
{
	if (dst->family == FIB_AF_INET)
		return fib_rule_table4(r->fib, src->addr.v4, dst->addr.v4, flow,
				       fib_lookup4(r->main, dst->addr.v4));
	return fib_rule_table6(r->fib, src->addr.v6, dst->addr.v6, flow,
			       fib_lookup6(r->main, dst->addr.v6));
}

/* route get fibmatch: the route that answers dst, in the table the
 * rules chose, shown as route show shows it (as ip route get fibmatch).
 * The router's own host routes for neighbours are not shown by route
 * show, so the route they sit in answers for them. */
static int
route_fibmatch(struct cli *c, const struct fib_prefix *src, const struct fib_prefix *dst,
	       const struct fib_flow *flow)
{
	struct router *r = c->r;
	uint32_t table = answer_table(r, src, dst, flow);
	uint32_t nh = dst->family == FIB_AF_INET ? rt_route4(r, src->addr.v4, dst->addr.v4, flow)
						 : rt_route6(r, src->addr.v6, dst->addr.v6, flow);
	char d[64];
	cli_fmt_prefix(dst, d, sizeof(d));
	if (table == 0) {
		/* A rule's action, or nothing: what Linux's lookup returns. */
		if (nh == r->nh_blackhole)
			return cli_fail(c, EINVAL, "route get: %s: Invalid argument", d);
		if (nh == r->nh_prohibit)
			return cli_fail(c, EACCES, "route get: %s: Permission denied", d);
		return cli_fail(c, ENETUNREACH, "route get: %s: Network is unreachable", d);
	}
	struct fib_route rt;
	if (fib_route_match(r->fib, table, dst, &rt) != 0)
		return cli_fail(c, ENETUNREACH, "route get: %s: Network is unreachable", d);
	for (int len = rt.dst.len - 1; rt.origin == RT_ORIGIN_NEIGH && len >= 0; len--) {
		struct fib_prefix cut = *dst;
		cut.len = (uint8_t)len;
		struct fib_route key = {.dst = rt_prefix_network(&cut), .table = table}, got;
		if (fib_route_get(r->fib, &key, true, &got) == 0 && !(got.flags & FIB_RF_DOWN))
			rt = got;
	}
	const struct route_filter all = {.all = true};
	struct show_ctx s = {.c = c, .first = true, .f = &all};
	if (c->json)
		rt_buf_printf(c->out, "[");
	show_route(&rt, &s);
	if (c->json)
		rt_buf_printf(c->out, "]\n");
	return 0;
}

/* route get ADDR [from ADDR] [iif PORT|lo] [dscp N] [ipproto P] [sport N]
 * [dport N] [fibmatch]: what the datapath would do with a packet from
 * PORT, or without iif, as Linux, with one the router sends itself. */
static int
route_get(struct cli *c)
{
	struct router *r = c->r;
	struct fib_prefix dst, src = {0};
	struct fib_flow flow = {.iif = FIB_IIF_LOCAL};
	bool fibmatch = false;
	const char *w = cli_next(c);
	if (w != NULL && strcmp(w, "fibmatch") == 0) {
		fibmatch = true;
		w = cli_next(c);
	}
	int rc = cli_parse_addr(c, "route get", w, c->family, &dst);
	while (rc == 0 && (w = cli_next(c)) != NULL) {
		uint32_t v;
		uint16_t hi;
		if (strcmp(w, "fibmatch") == 0) {
			fibmatch = true;
		} else if (strcmp(w, "from") == 0) {
			rc = cli_parse_addr(c, "route get", cli_next(c), dst.family, &src);
		} else if (strcmp(w, "iif") == 0) {
			rc = cli_parse_iif(c, cli_next(c), &flow.iif);
		} else if (strcmp(w, "dscp") == 0) {
			rc = cli_parse_u32(c, "dscp", cli_next(c), 63, &v);
			flow.dscp = (uint8_t)v;
		} else if (strcmp(w, "ipproto") == 0) {
			rc = cli_parse_proto(c, cli_next(c), &flow.proto);
		} else if (strcmp(w, "sport") == 0 || strcmp(w, "dport") == 0) {
			uint16_t *port = w[0] == 's' ? &flow.sport : &flow.dport;
			rc = cli_parse_ports(c, w, cli_next(c), port, &hi);
			if (rc == 0 && hi != *port)
				rc = cli_fail(c, EINVAL, "%s: one port, not a range", w);
		} else {
			rc = cli_fail(c, EINVAL, "route get: unknown argument '%s'", w);
		}
	}
	if (rc < 0)
		return rc;
	if (fibmatch)
		return route_fibmatch(c, &src, &dst, &flow);
	uint32_t nh;
	if (dst.family == FIB_AF_INET)
		nh = rt_route4(r, src.addr.v4, dst.addr.v4, &flow);
	else
		nh = rt_route6(r, src.addr.v6, dst.addr.v6, &flow);
	char d[64], gw[64] = "";
	cli_fmt_prefix(&dst, d, sizeof(d));
	if (nh == FIB_NH_NONE)
		return cli_fail(c, ENETUNREACH, "route get: %s: Network is unreachable", d);
	const char *type = "unicast";
	if (nh == r->nh_local)
		type = "local";
	else if (nh == r->nh_blackhole)
		type = "blackhole";
	else if (nh == r->nh_unreachable || nh == r->nh_rule_unreachable)
		type = "unreachable";
	else if (nh == r->nh_prohibit)
		type = "prohibit";
	struct nh_info info;
	const char *dev = NULL;
	uint32_t group = 0;
	if (strcmp(type, "unicast") == 0 && nh_get(r->nh, nh, &info) == 0 &&
	    info.spec.type == NH_T_GROUP) {
		/* The path a packet with these fields takes: the workers'
		 * flow hash over them (ports for TCP and UDP, as the packet
		 * carries them), then the group's bucket. */
		uint32_t ports = 0;
		if (flow.proto == IPPROTO_TCP || flow.proto == IPPROTO_UDP)
			ports = (uint32_t)rte_cpu_to_be_16(flow.sport) |
				(uint32_t)rte_cpu_to_be_16(flow.dport) << 16;
		enum nh_hash_policy pol = (enum nh_hash_policy)r->conf.hash_policy;
		uint32_t hash = dst.family == FIB_AF_INET
					? nh_flow_hash4(pol, rte_cpu_to_be_32(src.addr.v4),
							rte_cpu_to_be_32(dst.addr.v4), flow.proto,
							ports, false)
					: nh_flow_hash6(pol, src.addr.v6, dst.addr.v6, 0,
							flow.proto, ports, false);
		group = nh;
		nh = nh_group_member(&r->worker[0].nh[nh], hash);
		if (nh == 0 || nh_get(r->nh, nh, &info) != 0)
			return cli_fail(c, ENETUNREACH, "route get: %s: Network is unreachable", d);
	}
	if (strcmp(type, "unicast") == 0 && nh_get(r->nh, nh, &info) == 0 &&
	    info.spec.type != NH_T_GROUP) {
		dev = r->port[info.spec.port].name;
		if (info.spec.type == NH_T_GATEWAY)
			cli_fmt_addr(info.spec.family, info.spec.gw, gw, sizeof(gw));
	}
	/* As ip route get: the source the router's own packets take that
	 * way, when no `from` names one. */
	uint8_t dst_be[16];
	cli_addr_bytes(&dst, dst_be);
	char pref[64] = "";
	if (dev != NULL && src.family == 0) {
		const struct rt_addr *a = rt_addr_pick(r, info.spec.port, dst.family, dst_be);
		if (a != NULL) {
			struct fib_prefix h = a->p;
			h.len = h.family == FIB_AF_INET ? 32 : 128;
			cli_fmt_prefix(&h, pref, sizeof(pref));
		}
	}
	/* One of the router's own addresses: delivered as Linux shows it,
	 * through lo, from itself. */
	if (nh == r->nh_local && rt_addr_is_local(r, dst.family, dst_be)) {
		dev = "lo";
		if (src.family == 0)
			snprintf(pref, sizeof(pref), "%s", d);
	}
	/* As ip route get: the table the answer came from, unless main. */
	char tb[16] = "";
	uint32_t table = answer_table(r, &src, &dst, &flow);
	if (table != 0 && table != FIB_TABLE_MAIN)
		cli_fmt_table(table, tb, sizeof(tb));
	/* The matching route of main: a broadcast one delivers as local. */
	struct fib_route rt;
	if (nh == r->nh_local && fib_route_match(r->fib, FIB_TABLE_MAIN, &dst, &rt) == 0 &&
	    rt.type == FIB_RT_BROADCAST)
		type = "broadcast";
	if (c->json) {
		rt_buf_printf(c->out, "[{\"type\":\"%s\",\"dst\":\"%s\"", type, d);
		if (gw[0])
			rt_buf_printf(c->out, ",\"gateway\":\"%s\"", gw);
		if (dev)
			rt_buf_printf(c->out, ",\"dev\":\"%s\"", dev);
		if (pref[0])
			rt_buf_printf(c->out, ",\"prefsrc\":\"%s\"", pref);
		if (tb[0])
			rt_buf_printf(c->out, ",\"table\":\"%s\"", tb);
		if (group)
			rt_buf_printf(c->out, ",\"group_index\":%u", group);
		rt_buf_printf(c->out, ",\"nexthop_index\":%u}]\n", nh);
		return 0;
	}
	rt_buf_printf(c->out, "%s%s%s", strcmp(type, "unicast") ? type : "",
		      strcmp(type, "unicast") ? " " : "", d);
	if (src.family) {
		char f[64];
		cli_fmt_prefix(&src, f, sizeof(f));
		rt_buf_printf(c->out, " from %s", f);
	}
	if (gw[0])
		rt_buf_printf(c->out, " via %s", gw);
	if (dev)
		rt_buf_printf(c->out, " dev %s", dev);
	if (tb[0])
		rt_buf_printf(c->out, " table %s", tb);
	if (pref[0])
		rt_buf_printf(c->out, " src %s", pref);
	rt_buf_printf(c->out, "\n");
	return 0;
}

/* A route as the route add line that recreates it. Not the routes the
 * router makes itself: its addresses' (kernel) and its neighbours' host
 * routes. The metric always (an IPv6 route without one gets 1024); a
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
	if (rt->origin == RT_ORIGIN_KERNEL || rt->origin == RT_ORIGIN_NEIGH)
		return 0;
	char dst[64], ob[8];
	rt_buf_printf(c->out, "route %s %s%s%s", address_key(s, rt) ? "replace" : "add",
		      rt->type ? type_names[rt->type] : "", rt->type ? " " : "",
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
		rt_buf_printf(c->out, " proto %s", origin_name(rt->origin, ob, sizeof(ob)));
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

int
cli_route(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list"))
		return route_show(c);
	if (cli_matches(cmd, "add"))
		return route_change(c, false, false);
	if (cli_matches(cmd, "replace"))
		return route_change(c, true, false);
	if (cli_matches(cmd, "change"))
		return route_change(c, true, true);
	if (cli_matches(cmd, "delete"))
		return route_del(c);
	if (cli_matches(cmd, "get"))
		return route_get(c);
	if (cli_matches(cmd, "flush"))
		return route_flush(c);
	return cli_fail(c, EINVAL, "route: unknown command '%s'", cmd);
}
