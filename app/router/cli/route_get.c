/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route get ADDR [from ADDR] [iif PORT|lo] [dscp N] [ipproto P] [sport N]
 * [dport N] [fibmatch]: what the datapath would do with such a packet,
 * as ip route get says it. The answer is the datapath's own: its lookup
 * and rules (rt_dp_route4/6), its flow hash and the bucket table the
 * workers read for a group's member (rt_dp_flow_hash4/6, nh_group_pick).
 * Without iif, as Linux, the packet is one the router sends itself.
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "cli_priv.h"

struct get_query {
	struct fib_prefix dst, src; /* src.family 0: no `from` */
	struct fib_flow flow;
	bool fibmatch;
};

/* What route get prints. */
struct get_answer {
	const char *type;
	uint32_t nh, group; /* group: the group nh was picked from, or 0 */
	const char *dev;
	char gw[64], pref[64], table[16];
};

static int
parse_get(struct cli *c, struct get_query *q)
{
	*q = (struct get_query){.flow = {.iif = FIB_IIF_LOCAL}};
	const char *w = cli_next(c);
	if (w != NULL && strcmp(w, "fibmatch") == 0) {
		q->fibmatch = true;
		w = cli_next(c);
	}
	int rc = cli_parse_addr(c, "route get", w, c->family, &q->dst);
	while (rc == 0 && (w = cli_next(c)) != NULL) {
		uint32_t v;
		uint16_t hi;
		if (strcmp(w, "fibmatch") == 0) {
			q->fibmatch = true;
		} else if (strcmp(w, "from") == 0) {
			rc = cli_parse_addr(c, "route get", cli_next(c), q->dst.family, &q->src);
		} else if (strcmp(w, "iif") == 0) {
			rc = cli_parse_iif(c, cli_next(c), &q->flow.iif);
		} else if (strcmp(w, "dscp") == 0) {
			rc = cli_parse_u32(c, "dscp", cli_next(c), 63, &v);
			q->flow.dscp = (uint8_t)v;
		} else if (strcmp(w, "ipproto") == 0) {
			rc = cli_parse_proto(c, cli_next(c), &q->flow.proto);
		} else if (strcmp(w, "sport") == 0 || strcmp(w, "dport") == 0) {
			uint16_t *port = w[0] == 's' ? &q->flow.sport : &q->flow.dport;
			rc = cli_parse_ports(c, w, cli_next(c), port, &hi);
			if (rc == 0 && hi != *port)
				rc = cli_fail(c, EINVAL, "%s: one port, not a range", w);
		} else {
			rc = cli_fail(c, EINVAL, "route get: unknown argument '%s'", w);
		}
	}
	return rc;
}

/* The nexthop (or group) index the workers choose. */
static uint32_t
route_of(const struct router *r, const struct get_query *q)
{
	if (q->dst.family == FIB_AF_INET)
		return rt_dp_route4(&r->dp, q->src.addr.v4, q->dst.addr.v4, &q->flow);
	return rt_dp_route6(&r->dp, q->src.addr.v6, q->dst.addr.v6, &q->flow);
}

/* The id of the table whose route answers (0: a rule's action, or
 * nothing), as the workers route the packet. */
static uint32_t
answer_table(const struct router *r, const struct get_query *q)
{
	if (q->dst.family == FIB_AF_INET)
		return fib_rule_table4(r->fib, q->src.addr.v4, q->dst.addr.v4, &q->flow,
				       fib_lookup4(r->dp.main, q->dst.addr.v4));
	return fib_rule_table6(r->fib, q->src.addr.v6, q->dst.addr.v6, &q->flow,
			       fib_lookup6(r->dp.main, q->dst.addr.v6));
}

static int
unreachable(struct cli *c, const struct get_query *q)
{
	char d[64];
	cli_fmt_prefix(&q->dst, d, sizeof(d));
	return cli_fail(c, ENETUNREACH, "route get: %s: Network is unreachable", d);
}

/* route get fibmatch: the route that answers dst, in the table the
 * rules chose, shown as route show shows it (as ip route get fibmatch).
 * The router's own host routes for neighbours are not shown by route
 * show, so the route they sit in answers for them. */
static int
route_fibmatch(struct cli *c, const struct get_query *q)
{
	struct router *r = c->r;
	uint32_t table = answer_table(r, q);
	uint32_t nh = route_of(r, q);
	char d[64];
	cli_fmt_prefix(&q->dst, d, sizeof(d));
	if (table == 0) {
		/* A rule's action, or nothing: what Linux's lookup returns. */
		if (nh == r->nh_blackhole)
			return cli_fail(c, EINVAL, "route get: %s: Invalid argument", d);
		if (nh == r->nh_prohibit)
			return cli_fail(c, EACCES, "route get: %s: Permission denied", d);
		return unreachable(c, q);
	}
	struct fib_route rt;
	if (fib_route_match(r->fib, table, &q->dst, &rt) != 0)
		return unreachable(c, q);
	for (int len = rt.dst.len - 1; rt.origin == RT_ORIGIN_NEIGH && len >= 0; len--) {
		struct fib_prefix cut = q->dst;
		cut.len = (uint8_t)len;
		struct fib_route key = {.dst = rt_prefix_network(&cut), .table = table}, got;
		if (fib_route_get(r->fib, &key, true, &got) == 0 && !(got.flags & FIB_RF_DOWN))
			rt = got;
	}
	if (c->json)
		json_arr(&c->j, NULL);
	cli_route_event(c, &rt);
	if (c->json)
		json_end(&c->j);
	return 0;
}

static const char *
type_of(const struct router *r, uint32_t nh)
{
	if (nh == r->nh_local)
		return "local";
	if (nh == r->nh_blackhole)
		return "blackhole";
	if (nh == r->nh_unreachable || nh == r->nh_rule_unreachable)
		return "unreachable";
	if (nh == r->nh_prohibit)
		return "prohibit";
	return "unicast";
}

/* The member of group a->nh that a packet with the query's fields takes:
 * the workers' flow hash over them (ports for TCP and UDP, as the packet
 * carries them), then the group's bucket. */
static uint32_t
group_member(const struct router *r, const struct get_query *q, uint32_t group)
{
	const struct fib_flow *f = &q->flow;
	uint32_t ports = 0;
	if (f->proto == IPPROTO_TCP || f->proto == IPPROTO_UDP)
		ports = (uint32_t)rte_cpu_to_be_16(f->sport) | (uint32_t)rte_cpu_to_be_16(f->dport)
								       << 16;
	uint32_t hash =
		q->dst.family == FIB_AF_INET
			? rt_dp_flow_hash4(&r->dp, rte_cpu_to_be_32(q->src.addr.v4),
					   rte_cpu_to_be_32(q->dst.addr.v4), f->proto, ports, false)
			: rt_dp_flow_hash6(&r->dp, q->src.addr.v6, q->dst.addr.v6, 0, f->proto,
					   ports, false);
	return nh_group_pick(r->nh, group, hash);
}

/* A unicast answer: the path (a group's member), its port and gateway,
 * and, as ip route get, the source the router's own packets take that
 * way when no `from` names one. @return 0 or -ENETUNREACH. */
static int
unicast_path(const struct router *r, const struct get_query *q, struct get_answer *a)
{
	struct nh_info info;
	if (nh_get(r->nh, a->nh, &info) != 0)
		return 0;
	if (info.spec.type == NH_T_GROUP) {
		a->group = a->nh;
		a->nh = group_member(r, q, a->group);
		if (a->nh == 0 || nh_get(r->nh, a->nh, &info) != 0)
			return -ENETUNREACH;
	}
	a->dev = r->dp.port[info.spec.port].name;
	if (info.spec.type == NH_T_GATEWAY)
		cli_fmt_addr(info.spec.family, info.spec.gw, a->gw, sizeof(a->gw));
	uint8_t dst_be[16];
	cli_addr_bytes(&q->dst, dst_be);
	const struct rt_addr *src = rt_addr_pick(r, info.spec.port, q->dst.family, dst_be);
	if (src != NULL && q->src.family == 0) {
		struct fib_prefix h = src->p;
		h.len = h.family == FIB_AF_INET ? 32 : 128;
		cli_fmt_prefix(&h, a->pref, sizeof(a->pref));
	}
	return 0;
}

/* A local answer: one of the router's own addresses is delivered as
 * Linux shows it, through lo, from itself; a broadcast route of main
 * delivers as local too, named so. */
static void
local_answer(const struct router *r, const struct get_query *q, struct get_answer *a)
{
	uint8_t dst_be[16];
	cli_addr_bytes(&q->dst, dst_be);
	if (rt_addr_is_local(r, q->dst.family, dst_be)) {
		a->dev = "lo";
		if (q->src.family == 0)
			cli_fmt_prefix(&q->dst, a->pref, sizeof(a->pref));
	}
	struct fib_route rt;
	if (fib_route_match(r->fib, FIB_TABLE_MAIN, &q->dst, &rt) == 0 &&
	    rt.type == FIB_RT_BROADCAST)
		a->type = "broadcast";
}

static void
print_json(struct cli *c, const struct get_query *q, const struct get_answer *a)
{
	char d[64];
	cli_fmt_prefix(&q->dst, d, sizeof(d));
	json_arr(&c->j, NULL);
	json_obj(&c->j, NULL);
	json_str(&c->j, "type", a->type);
	json_str(&c->j, "dst", d);
	if (a->gw[0])
		json_str(&c->j, "gateway", a->gw);
	if (a->dev)
		json_str(&c->j, "dev", a->dev);
	if (a->pref[0])
		json_str(&c->j, "prefsrc", a->pref);
	if (a->table[0])
		json_str(&c->j, "table", a->table);
	if (a->group)
		json_u64(&c->j, "group_index", a->group);
	json_u64(&c->j, "nexthop_index", a->nh);
	json_end(&c->j);
	json_end(&c->j);
}

static void
print_text(struct cli *c, const struct get_query *q, const struct get_answer *a)
{
	char d[64];
	cli_fmt_prefix(&q->dst, d, sizeof(d));
	bool unicast = strcmp(a->type, "unicast") == 0;
	rt_buf_printf(c->out, "%s%s%s", unicast ? "" : a->type, unicast ? "" : " ", d);
	if (q->src.family) {
		char f[64];
		rt_buf_printf(c->out, " from %s", cli_fmt_prefix(&q->src, f, sizeof(f)));
	}
	if (a->gw[0])
		rt_buf_printf(c->out, " via %s", a->gw);
	if (a->dev)
		rt_buf_printf(c->out, " dev %s", a->dev);
	if (a->table[0])
		rt_buf_printf(c->out, " table %s", a->table);
	if (a->pref[0])
		rt_buf_printf(c->out, " src %s", a->pref);
	rt_buf_printf(c->out, "\n");
}

int
cli_route_get(struct cli *c)
{
	const struct router *r = c->r;
	struct get_query q;
	int rc = parse_get(c, &q);
	if (rc < 0)
		return rc;
	if (q.fibmatch)
		return route_fibmatch(c, &q);
	struct get_answer a = {.nh = route_of(r, &q)};
	if (a.nh == FIB_NH_NONE)
		return unreachable(c, &q);
	a.type = type_of(r, a.nh);
	if (strcmp(a.type, "unicast") == 0 && unicast_path(r, &q, &a) < 0)
		return unreachable(c, &q);
	if (a.nh == r->nh_local)
		local_answer(r, &q, &a);
	/* As ip route get: the table the answer came from, unless main. */
	uint32_t table = answer_table(r, &q);
	if (table != 0 && table != FIB_TABLE_MAIN)
		cli_fmt_table(table, a.table, sizeof(a.table));
	if (c->json)
		print_json(c, &q, &a);
	else
		print_text(c, &q, &a);
	return 0;
}
