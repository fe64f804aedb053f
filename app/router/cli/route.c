/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route add|replace|change|del, and the dispatch of every route command
 * (show, flush and save are route_list.c's, get is route_get.c's).
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

#include "cli_priv.h"

const char *const cli_route_types[FIB_RT_COUNT] = {
	"unicast", "local", "blackhole", "unreachable", "prohibit", "broadcast", "throw"};

const char *
cli_origin_name(uint8_t o, char *buf, size_t len)
{
	const char *name = rt_origin_name(o);
	if (name != NULL)
		return name;
	snprintf(buf, len, "%u", o);
	return buf;
}

/* proto NAME|N. */
int
cli_parse_origin(struct cli *c, const char *s, uint8_t *out)
{
	if (rt_origin_by_name(s, out) == 0)
		return 0;
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

/* One path of a multipath route, `nexthop` read: its words (via, dev,
 * weight) until the next keyword. */
static int
parse_path(struct cli *c, const char *what, struct route_args *a)
{
	if (a->npaths == NH_GROUP_MEMBERS_MAX)
		return cli_fail(c, EINVAL, "%s: too many nexthops", what);
	struct path *p = &a->path[a->npaths++];
	p->weight = 1;
	int rc = 0;
	while (rc == 0 && c->pos < c->argc) {
		const char *k = c->argv[c->pos];
		if (strcmp(k, "via") == 0) {
			c->pos++;
			rc = cli_parse_addr(c, what, cli_next(c), a->r.dst.family, &p->via);
		} else if (strcmp(k, "dev") == 0) {
			c->pos++;
			rc = cli_parse_port(c, cli_next(c), &p->dev);
			p->has_dev = true;
		} else if (strcmp(k, "weight") == 0) {
			c->pos++;
			rc = cli_parse_u32(c, "weight", cli_next(c), 255, &p->weight);
			if (rc == 0 && p->weight == 0)
				rc = cli_fail(c, EINVAL, "%s: weight 0", what);
		} else {
			break;
		}
	}
	if (rc == 0 && p->via.family == 0)
		rc = cli_fail(c, EINVAL, "%s: nexthop without via", what);
	return rc;
}

static int
parse_route(struct cli *c, const char *what, struct route_args *a, bool need_prefix)
{
	memset(a, 0, sizeof(*a));
	a->r.table = FIB_TABLE_MAIN;
	a->r.origin = RT_ORIGIN_BOOT;
	const char *w = cli_next(c);
	for (int t = 0; w != NULL && t < FIB_RT_COUNT; t++) {
		if (strcmp(w, cli_route_types[t]) == 0) {
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
			rc = cli_parse_origin(c, cli_next(c), &a->r.origin);
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
			rc = parse_path(c, what, a);
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
		for (uint16_t p = 0; p < r->dp.nb_ports && !has_dev; p++)
			if (rt_addr_on_link(r, p, via)) {
				dev = p;
				has_dev = true;
			}
		if (!has_dev)
			return cli_fail(c, ENETUNREACH, "%s: gateway not on a connected network",
					what);
	} else if (!onlink && !rt_addr_on_link(r, dev, via)) {
		return cli_fail(c, ENETUNREACH,
				"%s: gateway not on a connected network of %s (use onlink)", what,
				r->dp.port[dev].name);
	}
	struct nh_spec s = {.type = NH_T_GATEWAY, .family = via->family, .port = dev};
	memcpy(s.gw, gw, 16);
	int rc = nh_add(r->nh, &s, index);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: nexthop: %s", what, strerror(-rc));
	rt_neigh_publish(r, dev, via->family, gw);
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

/* A route the kernel mirror follows changes with the kernel's table
 * only (docs/control-plane.md): an operator's change would leave routerd
 * disagreeing with Linux, and the mirror's next change would undo it. */
static int
mirror_refuse(struct cli *c, const char *what, const struct fib_route *rt)
{
	char dst[64], tb[16], ob[8];
	return cli_fail(c, EPERM,
			"%s: %s (table %s, metric %u) is the kernel's route (proto %s), "
			"followed from Linux: change it there (ip route, or its routing daemon)",
			what, cli_fmt_prefix(&rt->dst, dst, sizeof(dst)),
			cli_fmt_table(rt->table, tb, sizeof(tb)), rt->metric,
			cli_origin_name(rt->origin, ob, sizeof(ob)));
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
	bool exists = fib_route_get(r->fib, &a.r, false, &cur) == 0;
	if (must_exist && !exists)
		return fib_error(c, what, &a.r.dst, -ENOENT);
	if (exists && rt_mirror_owns(&cur))
		return mirror_refuse(c, what, &cur);
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
	cli_event(r, CLI_EV_ROUTE, false, cli_route_event, &a.r);
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
	if (rc == 0 && rt_mirror_owns(&old))
		return mirror_refuse(c, "route del", &old);
	if (rc == 0)
		rc = fib_route_del(c->r->fib, &old, false);
	if (rc < 0)
		return fib_error(c, "route del", &a.r.dst, rc);
	rt_mirror_operator_gone(&old);
	cli_event(c->r, CLI_EV_ROUTE, true, cli_route_event, &old); /* before its nexthop may go */
	if (old.type == FIB_RT_UNICAST)
		nh_unref(c->r->nh, old.nh);
	return 0;
}

int
cli_route(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list"))
		return cli_route_show(c);
	if (cli_matches(cmd, "get"))
		return cli_route_get(c);
	int rc = cli_may_change(c, "route", cmd);
	if (rc < 0)
		return rc;
	if (cli_matches(cmd, "add"))
		return route_change(c, false, false);
	if (cli_matches(cmd, "replace"))
		return route_change(c, true, false);
	if (cli_matches(cmd, "change"))
		return route_change(c, true, true);
	if (cli_matches(cmd, "delete"))
		return route_del(c);
	if (cli_matches(cmd, "flush"))
		return cli_route_flush(c);
	return cli_fail(c, EINVAL, "route: unknown command '%s'", cmd);
}
