/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routes from the kernel (docs/control-plane.md, "Routes from the
 * kernel"). A routing daemon on the router (BIRD, FRR's zebra) writes its
 * routes into the kernel's tables in routerd's namespace, through the
 * control-plane ports; routerd subscribes to rtnetlink's route and
 * nexthop notifications, dumps the tables at start, and keeps its own FIB
 * equal to the kernel's for the routes it follows:
 *
 * - those whose every path leaves by a control-plane port, and the
 *   blackhole, unreachable, prohibit and throw ones;
 * - of every protocol but the kernel's own (its connected and local
 *   routes, which routerd makes itself from its addresses) unless the
 *   settings name the protocols;
 * - of every table but local (kernel table N is routerd's table N).
 *
 * A route routerd cannot take (a path by an interface that is not a
 * control-plane port among others, an encapsulation, a source-specific
 * route, a gateway on no connected network of its port, a prefix an
 * operator's route already holds at that metric) is skipped, counted and
 * logged once a reason; nothing is half applied. The mirror changes and
 * removes only the routes it installed (mirror_set.h): what an operator
 * adds with routerctl is never touched, and wins over the kernel's at
 * the same table, prefix and metric.
 *
 * The rtnetlink side is mirror_nl.c. A lost notification (ENOBUFS: the
 * socket's buffer overflowed) starts a resynchronisation: the tables are
 * dumped again, every route seen is installed or kept, and only then are
 * the mirror's routes the dump did not have withdrawn.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <net/if.h>

#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "ctl_priv.h"
#include "mirror_priv.h"

struct rt_mirror rt_mirror = {.ev = -1, .dump = -1, .dumping = -1};

static struct kobj *
obj_slot(uint32_t id, bool add)
{
	if (rt_mirror.obj_cap == 0 || (add && (rt_mirror.nb_obj + 1) * 2 > rt_mirror.obj_cap)) {
		if (!add)
			return NULL;
		size_t cap = rt_mirror.obj_cap ? rt_mirror.obj_cap * 2 : 256;
		struct kobj *o = calloc(cap, sizeof(*o));
		if (o == NULL)
			return NULL;
		for (size_t i = 0; i < rt_mirror.obj_cap; i++) {
			if (!rt_mirror.obj[i].used || rt_mirror.obj[i].dead)
				continue;
			size_t j = rt_mirror.obj[i].nh.id * 2654435761u & (cap - 1);
			while (o[j].used)
				j = (j + 1) & (cap - 1);
			o[j] = rt_mirror.obj[i];
		}
		free(rt_mirror.obj);
		rt_mirror.obj = o;
		rt_mirror.obj_cap = cap;
	}
	for (size_t j = id * 2654435761u & (rt_mirror.obj_cap - 1);;
	     j = (j + 1) & (rt_mirror.obj_cap - 1)) {
		if (rt_mirror.obj[j].used && rt_mirror.obj[j].nh.id == id)
			return &rt_mirror.obj[j];
		if (!rt_mirror.obj[j].used)
			return add ? &rt_mirror.obj[j] : NULL;
	}
}

static const char *const skip_why[RT_MIRROR_SKIP_COUNT] = {
	[RT_MIRROR_SKIP_IFACE] = "a path by an interface that is not a control-plane port",
	[RT_MIRROR_SKIP_ENCAP] = "an encapsulation",
	[RT_MIRROR_SKIP_SOURCE] = "a source-specific or TOS route",
	[RT_MIRROR_SKIP_GATEWAY] = "a gateway on no connected network of its port",
	[RT_MIRROR_SKIP_CONFLICT] = "an operator's route at the same prefix and metric",
	[RT_MIRROR_SKIP_NEXTHOP] = "an unknown or unusable nexthop object",
	[RT_MIRROR_SKIP_FULL] = "no room (nexthops or lookup table)",
};

static void
skip(struct router *r, enum rt_mirror_skip why, const struct nlr_route *k)
{
	r->mirror.skipped[why]++;
	if (rt_mirror.said[why])
		return;
	rt_mirror.said[why] = true;
	char a[INET6_ADDRSTRLEN];
	inet_ntop(k->family, k->dst, a, sizeof(a));
	RT_LOG(WARNING, control,
	       "kernel route %s/%u (table %u, proto %u) not followed: %s; counted, said once", a,
	       k->dst_len, k->table, k->protocol, skip_why[why]);
}

/* The protocols followed: those the settings name, or every one but the
 * kernel's own (its connected and local routes: routerd makes them);
 * never the default routes routerd itself gives the kernel. */
static bool
protocol_followed(const struct router *r, uint8_t proto)
{
	if (proto == RT_TAP_ROUTE_PROTO) /* routerd's own (tap.c), for Linux only */
		return false;
	if (!r->conf.kernel_protocols_set)
		return proto != RTPROT_KERNEL;
	return r->conf.kernel_protocols[proto / 8] >> (proto % 8) & 1;
}

/* The port of a control-plane port's ifindex, or -1. */
static int
port_of(const struct router *r, uint32_t ifindex)
{
	for (uint16_t p = 0; p < r->dp.nb_ports; p++)
		if (r->cport[p].ifindex != 0 && (uint32_t)r->cport[p].ifindex == ifindex)
			return p;
	return -1;
}

/* The paths of a route: its own, or its nexthop object's (a group's
 * members each a single nexthop object). @return the number, 0 for a
 * blackhole object, -1 when the object is unknown or unusable. */
static int
paths_of(const struct nlr_route *k, struct nlr_path *out)
{
	if (k->nh_id == 0) {
		memcpy(out, k->path, sizeof(*out) * k->npaths);
		return (int)k->npaths;
	}
	const struct kobj *o = obj_slot(k->nh_id, false);
	if (o == NULL || o->dead || o->nh.encap || o->nh.fdb)
		return -1;
	if (o->nh.blackhole)
		return 0;
	if (o->nh.ngroup == 0) {
		out[0] = o->nh.path;
		return 1;
	}
	for (unsigned int i = 0; i < o->nh.ngroup; i++) {
		const struct kobj *x = obj_slot(o->nh.group[i].id, false);
		if (x == NULL || x->dead || x->nh.ngroup != 0 || x->nh.blackhole || x->nh.encap)
			return -1;
		out[i] = x->nh.path;
		out[i].weight = o->nh.group[i].weight;
	}
	return (int)o->nh.ngroup;
}

/* Whether the mirror follows route k at all (else it is not its
 * business: another interface's, the kernel's own, table local, a
 * table the settings do not name). */
static bool
table_followed(const struct router *r, uint32_t table)
{
	if (table == RT_TABLE_LOCAL || table == RT_TABLE_UNSPEC)
		return false;
	if (r->conf.nb_kernel_tables == 0)
		return true;
	for (unsigned int i = 0; i < r->conf.nb_kernel_tables; i++)
		if (r->conf.kernel_tables[i] == table)
			return true;
	return false;
}

static bool
followed(const struct router *r, const struct nlr_route *k, const struct nlr_path *p, int n)
{
	if (k->flags & RTM_F_CLONED || !table_followed(r, k->table))
		return false;
	if (!protocol_followed(r, k->protocol))
		return false;
	switch (k->type) {
	case RTN_BLACKHOLE:
	case RTN_UNREACHABLE:
	case RTN_PROHIBIT:
	case RTN_THROW:
		return true;
	case RTN_UNICAST:
		break;
	default:
		return false;
	}
	/* A unicast route is ours when a path leaves by a control-plane port. */
	for (int i = 0; i < n; i++)
		if (port_of(r, p[i].ifindex) >= 0)
			return true;
	return n <= 0 && k->nh_id != 0; /* an object we cannot read: say so */
}

static struct mset_key
key_of(const struct nlr_route *k)
{
	struct mset_key key = {
		.family = k->family, .len = k->dst_len, .table = k->table, .metric = k->priority};
	memcpy(key.addr, k->dst, k->family == AF_INET ? 4 : 16);
	return key;
}

/* The key of a route of routerd's FIB: its table as the kernel numbers
 * them (0 is main), the address as on the wire. */
static struct mset_key
key_of_fib(const struct fib_route *rt)
{
	struct mset_key key = {.family = rt->dst.family,
			       .len = rt->dst.len,
			       .table = rt->table ? rt->table : FIB_TABLE_MAIN,
			       .metric = rt->metric};
	if (rt->dst.family == FIB_AF_INET) {
		uint32_t be = rte_cpu_to_be_32(rt->dst.addr.v4);
		memcpy(key.addr, &be, 4);
	} else {
		memcpy(key.addr, rt->dst.addr.v6, 16);
	}
	return key;
}

bool
rt_mirror_owns(const struct fib_route *rt)
{
	struct mset_key key = key_of_fib(rt);
	return mset_find(&rt_mirror.own, &key) != NULL;
}

void
rt_mirror_operator_gone(const struct fib_route *rt)
{
	struct mset_key key = key_of_fib(rt);
	if (mset_find(&rt_mirror.shadowed, &key) == NULL)
		return;
	mset_del(&rt_mirror.shadowed, &key);
	rt_mirror_resync_soon();
}

static struct fib_prefix
prefix_of(const struct nlr_route *k)
{
	struct fib_prefix p = {.family = k->family == AF_INET ? FIB_AF_INET : FIB_AF_INET6,
			       .len = k->dst_len};
	if (k->family == AF_INET) {
		uint32_t be;
		memcpy(&be, k->dst, 4);
		p.addr.v4 = rte_be_to_cpu_32(be);
	} else {
		memcpy(p.addr.v6, k->dst, 16);
	}
	return p;
}

/* routerd's nexthop for the route's paths, with a reference taken; like
 * is what the route had (0: nothing), where a new group's flows start. */
static int
nexthop_of(struct router *r, const struct nlr_route *k, const struct nlr_path *p, int n,
	   uint32_t like, uint32_t *nh, enum rt_mirror_skip *why)
{
	struct nh_member mem[NLR_PATHS_MAX];
	int taken = 0, rc = 0;
	for (int i = 0; i < n && rc == 0; i++) {
		int port = port_of(r, p[i].ifindex);
		struct nh_spec s = {.family = p[i].gw_family == AF_INET    ? FIB_AF_INET
					      : p[i].gw_family == AF_INET6 ? FIB_AF_INET6
									   : 0,
				    .port = (uint16_t)port};
		if (port < 0) {
			*why = RT_MIRROR_SKIP_IFACE;
			rc = -ENODEV;
			break;
		}
		if (s.family != 0) {
			s.type = NH_T_GATEWAY;
			memcpy(s.gw, p[i].gw, 16);
			struct fib_prefix gw = rt_prefix_of_bytes(s.family, s.gw);
			if (!p[i].onlink && !rt_addr_on_link(r, (uint16_t)port, &gw)) {
				*why = RT_MIRROR_SKIP_GATEWAY;
				rc = -ENETUNREACH;
				break;
			}
		} else {
			s.type = NH_T_CONNECTED;
			s.family = k->family == AF_INET ? FIB_AF_INET : FIB_AF_INET6;
		}
		if ((rc = nh_add(r->nh, &s, &mem[i].index)) < 0) {
			*why = RT_MIRROR_SKIP_FULL;
			break;
		}
		taken++;
		mem[i].weight = p[i].weight > 255 ? 255 : p[i].weight;
		if (s.type == NH_T_GATEWAY)
			rt_neigh_publish(r, (uint16_t)port, s.family, s.gw);
	}
	/* The kernel lets a group name one gateway twice (by two objects
	 * alike, or after one is replaced): one member, with both weights. */
	int m = 0;
	for (int i = 0; i < taken; i++) {
		int j = 0;
		while (j < m && mem[j].index != mem[i].index)
			j++;
		if (j == m) {
			mem[m++] = mem[i];
			continue;
		}
		unsigned int w = (unsigned int)mem[j].weight + mem[i].weight;
		mem[j].weight = (uint16_t)(w > 255 ? 255 : w);
		nh_unref(r->nh, mem[i].index);
	}
	if (rc == 0 && m == 1) {
		*nh = mem[0].index;
		return 0;
	}
	if (rc == 0 && (rc = rt_mgroup_get(r, mem, (unsigned int)m, like, nh)) < 0)
		*why = RT_MIRROR_SKIP_FULL;
	for (int i = 0; i < m; i++) /* the group holds them now, or nothing does */
		nh_unref(r->nh, mem[i].index);
	return rc;
}

static uint8_t
fib_type(uint8_t rtn)
{
	switch (rtn) {
	case RTN_BLACKHOLE:
		return FIB_RT_BLACKHOLE;
	case RTN_UNREACHABLE:
		return FIB_RT_UNREACHABLE;
	case RTN_PROHIBIT:
		return FIB_RT_PROHIBIT;
	case RTN_THROW:
		return FIB_RT_THROW;
	default:
		return FIB_RT_UNICAST;
	}
}

/* Route k into routerd's FIB, in place of the mirror's route of its key
 * if it has one. @return 1 when installed, 0 when it is not the mirror's
 * business, -1 when skipped (*why says why). */
static int
install_route(struct router *r, const struct nlr_route *k, enum rt_mirror_skip *why)
{
	struct nlr_path p[NLR_PATHS_MAX];
	int n = paths_of(k, p);
	if (!followed(r, k, p, n))
		return 0;
	struct fib_route fr = {.dst = prefix_of(k),
			       .table = k->table,
			       .metric = k->priority,
			       .origin = k->protocol,
			       .type = fib_type(k->type)};
	*why = k->encap               ? RT_MIRROR_SKIP_ENCAP
	       : k->src_len || k->tos ? RT_MIRROR_SKIP_SOURCE
	       : n < 0                ? RT_MIRROR_SKIP_NEXTHOP
	       : k->too_many          ? RT_MIRROR_SKIP_FULL
				      : RT_MIRROR_SKIP_COUNT;
	if (*why != RT_MIRROR_SKIP_COUNT)
		return -1;
	if (fr.type == FIB_RT_UNICAST && n == 0)
		fr.type = FIB_RT_BLACKHOLE; /* a blackhole nexthop object */
	struct mset_key key = key_of(k);
	struct fib_route old;
	bool mine = mset_find(&rt_mirror.own, &key) != NULL;
	bool had = fib_route_get(r->fib, &fr, false, &old) == 0;
	if (had && !mine) {
		/* Remembered: when the operator's goes, the kernel's comes in
		 * (rt_mirror_operator_gone). */
		bool added;
		mset_add(&rt_mirror.shadowed, &key, &added);
		*why = RT_MIRROR_SKIP_CONFLICT;
		return -1;
	}
	uint32_t like = had && old.type == FIB_RT_UNICAST ? old.nh : 0;
	*why = RT_MIRROR_SKIP_FULL;
	if (fr.type == FIB_RT_UNICAST && nexthop_of(r, k, p, n, like, &fr.nh, why) < 0)
		return -1;
	bool added;
	struct mset_entry *e = mset_add(&rt_mirror.own, &key, &added);
	if (e == NULL || fib_route_replace(r->fib, &fr) < 0) {
		if (e != NULL && added)
			mset_del(&rt_mirror.own, &key);
		if (fr.type == FIB_RT_UNICAST)
			rt_mgroup_put(r, fr.nh);
		*why = RT_MIRROR_SKIP_FULL;
		return -1;
	}
	e->gen = rt_mirror.gen;
	e->nh_id = k->nh_id;
	e->protocol = k->protocol;
	e->type = k->type;
	if (had && old.type == FIB_RT_UNICAST)
		rt_mgroup_put(r, old.nh);
	if (had)
		r->mirror.replaced++;
	else
		r->mirror.added++;
	return 1;
}

/* The kernel has route k (new, replaced, or seen in a dump). One the
 * mirror does not take, at the key of one it had (a replace by a route
 * out of another interface, with an encapsulation, an off-link
 * gateway...), takes the old one away: it is no longer Linux's. A route
 * that only shares the key's fields (a TOS, a source prefix) is another
 * route, and a cloned one no route at all. */
static void
install(struct router *r, const struct nlr_route *k)
{
	enum rt_mirror_skip why = RT_MIRROR_SKIP_COUNT;
	int rc = install_route(r, k, &why);
	if (rc > 0)
		return;
	if (rc < 0)
		skip(r, why, k);
	else
		r->mirror.ignored++;
	struct mset_key key = key_of(k);
	if (!(k->flags & RTM_F_CLONED) && k->src_len == 0 && k->tos == 0 &&
	    mset_find(&rt_mirror.own, &key) != NULL)
		rt_mirror_withdraw(r, &key);
}

/* The mirror's route of key goes. */
void
rt_mirror_withdraw(struct router *r, const struct mset_key *key)
{
	struct nlr_route k = {.family = key->family,
			      .dst_len = key->len,
			      .table = key->table,
			      .priority = key->metric};
	memcpy(k.dst, key->addr, 16);
	struct fib_route fr = {.dst = prefix_of(&k), .table = key->table, .metric = key->metric},
			 old;
	if (fib_route_get(r->fib, &fr, false, &old) == 0 &&
	    fib_route_del(r->fib, &old, false) == 0 && old.type == FIB_RT_UNICAST)
		rt_mgroup_put(r, old.nh);
	mset_del(&rt_mirror.own, key);
	r->mirror.deleted++;
}

/* Routes through kernel nexthop object id follow its change: each is
 * installed again from what the mirror knows of it (or withdrawn with
 * the object). A walk of the mirror's routes: objects are replaced in
 * place rarely (FRR points its routes at new ones instead), and a new
 * object needs none. */
static void
object_changed(struct router *r, uint32_t id, bool gone)
{
	for (size_t i = 0; i < rt_mirror.own.cap; i++) {
		struct mset_entry *e = &rt_mirror.own.e[i];
		if (!e->used || e->nh_id != id)
			continue;
		struct mset_key key = e->key;
		if (gone) {
			rt_mirror_withdraw(r, &key);
			i--; /* the backward shift may have moved another here */
			continue;
		}
		struct nlr_route k = {.family = key.family,
				      .dst_len = key.len,
				      .table = key.table,
				      .priority = key.metric,
				      .nh_id = id,
				      .protocol = e->protocol,
				      .type = e->type};
		memcpy(k.dst, key.addr, 16);
		install(r, &k);
	}
}

/* The paths routerd has for the mirror's route of key, as rtnetlink
 * names them (the control-plane port's ifindex, the gateway, the
 * weight). @return their number; 0 for none or a route by object. */
static int
paths_installed(struct router *r, const struct mset_key *key, struct nlr_path *out)
{
	const struct mset_entry *e = mset_find(&rt_mirror.own, key);
	struct nlr_route k = {.family = key->family, .dst_len = key->len};
	memcpy(k.dst, key->addr, 16);
	struct fib_route fr = {.dst = prefix_of(&k), .table = key->table, .metric = key->metric};
	static struct nh_info nh; /* large; the control core is single-threaded */
	if (e == NULL || e->nh_id != 0 || fib_route_get(r->fib, &fr, false, &fr) != 0 ||
	    fr.type != FIB_RT_UNICAST || nh_get(r->nh, fr.nh, &nh) != 0)
		return 0;
	struct nh_member one = {.index = fr.nh, .weight = 1};
	const struct nh_member *m = nh.spec.type == NH_T_GROUP ? nh.m : &one;
	int n = nh.spec.type == NH_T_GROUP ? nh.nb_members : 1;
	for (int i = 0; i < n; i++) {
		struct nh_info x;
		if (nh_get(r->nh, m[i].index, &x) != 0)
			return 0;
		out[i] = (struct nlr_path){.ifindex = (uint32_t)r->cport[x.spec.port].ifindex,
					   .gw_family =
						   x.spec.type == NH_T_GATEWAY ? x.spec.family : 0,
					   .weight = m[i].weight,
					   .onlink = true}; /* it was taken as it is */
		memcpy(out[i].gw, x.spec.gw, 16);
	}
	return n;
}

static bool
same_path(const struct nlr_path *a, const struct nlr_path *b)
{
	return a->ifindex == b->ifindex && a->gw_family == b->gw_family &&
	       memcmp(a->gw, b->gw, a->gw_family == AF_INET ? 4 : 16) == 0;
}

/* The kernel deleted route k. An IPv6 multipath route loses one path
 * with `ip -6 route del P via G`, and the notification names that path
 * alone (IPv4 deletes a route whole): the route stays, with the others. */
static void
deleted(struct router *r, const struct nlr_route *k)
{
	struct mset_key key = key_of(k);
	mset_del(&rt_mirror.shadowed, &key);
	if (mset_find(&rt_mirror.own, &key) == NULL)
		return;
	struct nlr_route left = *k;
	int n = k->family == AF_INET6 && k->nh_id == 0 && k->npaths > 0
			? paths_installed(r, &key, left.path)
			: 0;
	int kept = 0;
	for (int i = 0; i < n; i++) {
		bool gone = false;
		for (unsigned int j = 0; j < k->npaths && !gone; j++)
			gone = same_path(&left.path[i], &k->path[j]);
		if (!gone)
			left.path[kept++] = left.path[i];
	}
	if (kept == 0 || kept == n) { /* all of it, or no path it has: the route */
		rt_mirror_withdraw(r, &key);
		return;
	}
	left.npaths = (unsigned int)kept;
	left.type = RTN_UNICAST;
	install(r, &left);
}

/* A control-plane port set down in Linux (by routerd, or by hand) or
 * deleted: the kernel took its routes away, IPv4's without a word, so
 * the tables are dumped again. Other interfaces are not the mirror's. */
static void
link_changed(struct router *r, const struct nlmsghdr *h)
{
	struct ifinfomsg ifi;
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(ifi)))
		return;
	memcpy(&ifi, NLMSG_DATA(h), sizeof(ifi));
	int p = ifi.ifi_index > 0 ? port_of(r, (uint32_t)ifi.ifi_index) : -1;
	if (p < 0)
		return;
	bool down = h->nlmsg_type == RTM_DELLINK || !(ifi.ifi_flags & IFF_UP);
	if (down && !rt_mirror.tap_down[p])
		rt_mirror_resync_soon();
	rt_mirror.tap_down[p] = down;
}

void
rt_mirror_message(struct router *r, const struct nlmsghdr *h)
{
	switch (h->nlmsg_type) {
	case RTM_NEWLINK:
	case RTM_DELLINK:
		link_changed(r, h);
		return;
	case RTM_NEWROUTE:
	case RTM_DELROUTE: {
		struct nlr_route k;
		if (nlr_route_parse(h, &k) < 0) {
			r->mirror.malformed++;
			return;
		}
		r->mirror.unknown_attrs += k.unknown;
		if (h->nlmsg_type == RTM_NEWROUTE)
			install(r, &k);
		else
			deleted(r, &k);
		return;
	}
	case RTM_NEWNEXTHOP:
	case RTM_DELNEXTHOP: {
		struct nlr_nexthop nh;
		if (nlr_nexthop_parse(h, &nh) < 0) {
			r->mirror.malformed++;
			return;
		}
		r->mirror.unknown_attrs += nh.unknown;
		bool gone = h->nlmsg_type == RTM_DELNEXTHOP;
		struct kobj *o = obj_slot(nh.id, !gone);
		if (o == NULL)
			return;
		if (gone) {
			object_changed(r, nh.id, true);
			o->dead = true;
			return;
		}
		/* A new object (or one deleted before, whose routes went
		 * with it) has no route yet: the kernel sends an object
		 * before the routes through it. Only a replaced one has
		 * routes to install again. */
		bool fresh = !o->used || o->dead;
		if (!o->used)
			rt_mirror.nb_obj++;
		o->used = true;
		o->dead = false;
		o->nh = nh;
		if (!fresh)
			object_changed(r, nh.id, false);
		return;
	}
	default:
		return;
	}
}
