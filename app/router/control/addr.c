/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's own addresses. `addr add 192.0.2.1/24 dev port0` installs,
 * in the main table, a local route for 192.0.2.1/32 (deliver here) and a
 * connected route for 192.0.2.0/24 through the port's CONNECTED nexthop
 * (resolve the destination itself), and for an IPv4 prefix of /30 or
 * shorter a broadcast route for its broadcast address (x.x.x.255 of a
 * /24), as Linux's local table holds: packets to it are the router's,
 * never a host to resolve (a scan of .255 addresses would otherwise send
 * an ARP request for each). `addr del` removes them. IPv6 as Linux: /128
 * local, the prefix connected with metric 256; link-local addresses
 * (every port gets fe80:: from its MAC at start, as Linux) are recorded
 * without routes.
 */
#include <errno.h>
#include <string.h>

#include "ctl_priv.h"

bool
rt_prefix_same(const struct fib_prefix *a, const struct fib_prefix *b)
{
	return a->family == b->family && a->len == b->len &&
	       (a->family == FIB_AF_INET ? a->addr.v4 == b->addr.v4
					 : memcmp(a->addr.v6, b->addr.v6, 16) == 0);
}

struct fib_prefix
rt_prefix_network(const struct fib_prefix *p)
{
	struct fib_prefix n = *p;
	if (p->family == FIB_AF_INET) {
		n.addr.v4 = p->len ? p->addr.v4 & ~(0xffffffffu >> p->len) : 0;
		if (p->len == 32)
			n.addr.v4 = p->addr.v4;
		return n;
	}
	for (unsigned int b = p->len; b < 128; b++)
		n.addr.v6[b / 8] &= (uint8_t) ~(0x80 >> (b % 8));
	return n;
}

static struct fib_prefix
host(const struct fib_prefix *p)
{
	struct fib_prefix h = *p;
	h.len = p->family == FIB_AF_INET ? 32 : 128;
	return h;
}

/* The subnet broadcast route of an IPv4 address's prefix; false when the
 * prefix has none (IPv6, /31 as RFC 3021, /32). */
static bool
broadcast_route(const struct fib_prefix *p, struct fib_route *out)
{
	if (p->family != FIB_AF_INET || p->len > 30)
		return false;
	*out = (struct fib_route){.type = FIB_RT_BROADCAST, .origin = RT_ORIGIN_KERNEL};
	out->dst.family = FIB_AF_INET;
	out->dst.len = 32;
	out->dst.addr.v4 = p->addr.v4 | (p->len ? 0xffffffffu >> p->len : 0xffffffffu);
	return true;
}

static int
find(const struct router *r, uint16_t port, const struct fib_prefix *p)
{
	for (unsigned int i = 0; i < r->nb_addrs; i++)
		if (r->addr[i].port == port && rt_prefix_same(&r->addr[i].p, p))
			return (int)i;
	return -1;
}

/* Whether p can be a port's address: a unicast address. Not the
 * unspecified address, loopback, multicast or (IPv4) 0/8 and the limited
 * broadcast address: the datapath takes each of those for a martian or
 * a group, and 0.0.0.0/0 would make every destination on-link. */
static bool
unicast(const struct fib_prefix *p)
{
	if (p->family == FIB_AF_INET) {
		uint32_t first = p->addr.v4 >> 24;
		return first != 0 && first != 127 && (first < 224 || first > 239) &&
		       p->addr.v4 != 0xffffffffu;
	}
	static const uint8_t zero[16];
	const uint8_t *a = p->addr.v6;
	return a[0] != 0xff && !(memcmp(a, zero, 15) == 0 && (a[15] == 0 || a[15] == 1));
}

static int
addr_add(struct router *r, uint16_t port, const struct fib_prefix *p)
{
	if (port >= r->dp.nb_ports)
		return -ENODEV;
	if (!unicast(p))
		return -EADDRNOTAVAIL;
	if (find(r, port, p) >= 0)
		return -EEXIST;
	if (r->nb_addrs == RT_MAX_ADDRS)
		return -ENOSPC;
	if (rt_prefix_link_local(p)) {
		/* No routes: one table could not hold fe80::/64 on every
		 * port, and the datapath hands link-local destinations to
		 * the control core unrouted. */
		r->addr[r->nb_addrs].port = port;
		r->addr[r->nb_addrs++].p = *p;
		return 0;
	}
	bool v4 = p->family == FIB_AF_INET;
	struct fib_route local = {.dst = host(p),
				  .type = FIB_RT_LOCAL,
				  .origin = RT_ORIGIN_KERNEL,
				  .nh = r->nh_local};
	/* The prefix's connected route goes through the port of its first
	 * address (rt_addr_del passes it on in that order too), so that the
	 * addresses, in order, say where it goes (`save` relies on it). */
	struct fib_prefix net = rt_prefix_network(p);
	struct nh_spec cs = {.type = NH_T_CONNECTED, .family = p->family, .port = port};
	for (unsigned int k = 0; k < r->nb_addrs; k++) {
		struct fib_prefix on = rt_prefix_network(&r->addr[k].p);
		if (rt_prefix_same(&on, &net)) {
			cs.port = r->addr[k].port;
			break;
		}
	}
	uint32_t cnh;
	int rc = nh_add(r->nh, &cs, &cnh);
	if (rc < 0)
		return rc;
	struct fib_route conn = {
		.dst = net, .origin = RT_ORIGIN_KERNEL, .nh = cnh, .metric = v4 ? 0 : 256};
	/* Another address in the same prefix shares its routes. */
	rc = fib_route_add(r->fib, &local);
	if (rc < 0 && rc != -EEXIST) {
		nh_unref(r->nh, cnh);
		return rc;
	}
	bool local_added = rc == 0;
	rc = fib_route_add(r->fib, &conn);
	if (rc == -EEXIST) {
		nh_unref(r->nh, cnh); /* the prefix's route holds its own */
		rc = 0;
	}
	if (rc < 0) {
		if (local_added)
			fib_route_del(r->fib, &local, false);
		nh_unref(r->nh, cnh);
		return rc;
	}
	struct fib_route bcast;
	if (broadcast_route(p, &bcast)) {
		/* A failure here (no room) leaves the address working; its
		 * broadcast address is then resolved like a host. */
		fib_route_add(r->fib, &bcast);
	}
	r->addr[r->nb_addrs].port = port;
	r->addr[r->nb_addrs++].p = *p;
	return 0;
}

static int
addr_del(struct router *r, uint16_t port, const struct fib_prefix *p)
{
	int i = find(r, port, p);
	if (i < 0)
		return -EADDRNOTAVAIL;
	/* The others keep their order, as Linux keeps a device's: among
	 * equally good sources rt_addr_pick takes the first, and that must
	 * not change because another address went. */
	memmove(&r->addr[i], &r->addr[i + 1], sizeof(r->addr[0]) * (r->nb_addrs - (unsigned)i - 1));
	r->nb_addrs--;
	if (rt_prefix_link_local(p))
		return 0;
	bool v4 = p->family == FIB_AF_INET;
	struct fib_prefix net = rt_prefix_network(p), me = host(p);
	/* The routes stay while another address needs them: the local one
	 * while the address is configured anywhere (any length), the
	 * broadcast one while any address has the prefix. The connected
	 * route goes through the port of the first address that has the
	 * prefix (rt_addr_add): it stays while the port has another, else
	 * passes to the next port that has one, else goes. */
	bool host_used = false, net_here = false;
	const struct rt_addr *heir = NULL;
	for (unsigned int k = 0; k < r->nb_addrs; k++) {
		const struct rt_addr *o = &r->addr[k];
		struct fib_prefix on = rt_prefix_network(&o->p), oh = host(&o->p);
		host_used |= rt_prefix_same(&oh, &me);
		if (!rt_prefix_same(&on, &net))
			continue;
		net_here |= o->port == port;
		if (heir == NULL)
			heir = o;
	}
	/* Only the address's own routes (proto kernel) go: an operator's
	 * route that holds the same prefix and metric stays. */
	struct fib_route got;
	if (!host_used) {
		struct fib_route local = {.dst = me, .metric = 0};
		if (fib_route_get(r->fib, &local, false, &got) == 0 &&
		    got.origin == RT_ORIGIN_KERNEL)
			fib_route_del(r->fib, &local, false);
	}
	struct fib_route conn = {.dst = net, .metric = v4 ? 0 : 256}, bcast;
	struct nh_info via;
	if (!net_here && fib_route_get(r->fib, &conn, false, &got) == 0 &&
	    got.origin == RT_ORIGIN_KERNEL && nh_get(r->nh, got.nh, &via) == 0 &&
	    via.spec.type == NH_T_CONNECTED && via.spec.port == port) {
		struct nh_spec cs = {.type = NH_T_CONNECTED, .family = p->family};
		uint32_t cnh;
		got.nh = 0;
		if (heir != NULL) {
			cs.port = heir->port;
			if (nh_add(r->nh, &cs, &cnh) == 0) {
				struct fib_route moved = got;
				moved.nh = cnh;
				if (fib_route_replace(r->fib, &moved) == 0)
					got.nh = via.index; /* the old one's reference goes */
				else
					nh_unref(r->nh, cnh);
			}
		}
		if (got.nh == 0 && fib_route_del(r->fib, &conn, false) == 0)
			got.nh = via.index;
		if (got.nh != 0)
			nh_unref(r->nh, got.nh);
	}
	if (heir == NULL && broadcast_route(p, &bcast) &&
	    fib_route_get(r->fib, &bcast, false, &got) == 0 && got.origin == RT_ORIGIN_KERNEL &&
	    got.type == FIB_RT_BROADCAST)
		fib_route_del(r->fib, &bcast, false);
	if (!v4 && !net_here)
		rt_ra_prefix_gone(r, port, &net);
	return 0;
}

/* The port's control-plane port follows (tap.c). */
int
rt_addr_add(struct router *r, uint16_t port, const struct fib_prefix *p)
{
	int rc = addr_add(r, port, p);
	if (rc == 0)
		rt_tap_addr(r, port, p, true);
	return rc;
}

int
rt_addr_del(struct router *r, uint16_t port, const struct fib_prefix *p)
{
	int rc = addr_del(r, port, p);
	if (rc == 0)
		rt_tap_addr(r, port, p, false);
	return rc;
}

unsigned int
rt_addr_routes(const struct router *r, struct fib_route *out, unsigned int max)
{
	unsigned int n = 0;
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct fib_prefix *p = &r->addr[i].p;
		if (rt_prefix_link_local(p))
			continue;
		struct fib_route k[3] = {{.dst = host(p), .type = FIB_RT_LOCAL},
					 {.dst = rt_prefix_network(p),
					  .metric = p->family == FIB_AF_INET ? 0 : 256}};
		unsigned int nk = 2 + broadcast_route(p, &k[2]);
		for (unsigned int j = 0; j < nk; j++) {
			bool seen = false;
			for (unsigned int m = 0; m < n && m < max && !seen; m++)
				seen = rt_prefix_same(&out[m].dst, &k[j].dst) &&
				       out[m].metric == k[j].metric;
			if (seen)
				continue;
			if (n < max)
				out[n] = k[j];
			n++;
		}
	}
	return n;
}

bool
rt_addr_is_local(const struct router *r, uint8_t family, const void *addr)
{
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct fib_prefix *p = &r->addr[i].p;
		if (p->family != family)
			continue;
		uint32_t be = rte_cpu_to_be_32(p->addr.v4);
		if (family == FIB_AF_INET ? memcmp(&be, addr, 4) == 0
					  : memcmp(p->addr.v6, addr, 16) == 0)
			return true;
	}
	return false;
}

/* Length of the common prefix of two addresses of a family. */
static unsigned int
common(uint8_t family, const struct fib_prefix *p, const void *peer)
{
	uint8_t a[16], b[16];
	unsigned int n = family == FIB_AF_INET ? 4 : 16, bits = 0;
	if (family == FIB_AF_INET) {
		uint32_t v = rte_cpu_to_be_32(p->addr.v4);
		memcpy(a, &v, 4);
	} else {
		memcpy(a, p->addr.v6, 16);
	}
	memcpy(b, peer, n);
	for (unsigned int i = 0; i < n; i++) {
		uint8_t x = a[i] ^ b[i];
		if (x) {
			return bits + (unsigned int)__builtin_clz(x) - 24;
		}
		bits += 8;
	}
	return bits;
}

/* Our source address for a peer on a port, as RFC 6724 would choose:
 * one of the peer's scope first (link-local only for link-local peers),
 * then the longest common prefix; one of the right scope on another port
 * rather than a link-local one for a peer beyond the link. */
const struct rt_addr *
rt_addr_pick(const struct router *r, uint16_t port, uint8_t family, const void *peer)
{
	const struct rt_addr *best = NULL;
	unsigned int best_len = 0;
	bool best_fit = false,
	     peer_ll = peer != NULL && family == FIB_AF_INET6 && rt_ip6_link_local(peer);
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		if (a->port != port || a->p.family != family)
			continue;
		bool fit = rt_prefix_link_local(&a->p) == peer_ll;
		unsigned int l = peer ? common(family, &a->p, peer) : 0;
		if (best == NULL || fit > best_fit || (fit == best_fit && l > best_len)) {
			best = a;
			best_len = l;
			best_fit = fit;
		}
	}
	if (best == NULL || !best_fit) /* none fits on the port: any that does */
		for (unsigned int i = 0; i < r->nb_addrs; i++)
			if (r->addr[i].p.family == family &&
			    rt_prefix_link_local(&r->addr[i].p) == peer_ll)
				return &r->addr[i];
	if (best == NULL) /* none at all on the port: any of the family */
		for (unsigned int i = 0; i < r->nb_addrs && best == NULL; i++)
			if (r->addr[i].p.family == family)
				best = &r->addr[i];
	return best;
}

struct fib_prefix
rt_port_link_local(const struct router *r, uint16_t port)
{
	const uint8_t *m = r->dp.port[port].mac.addr_bytes;
	struct fib_prefix ll = {.family = FIB_AF_INET6, .len = 64};
	const uint8_t iid[8] = {m[0] ^ 0x02, m[1], m[2], 0xff, 0xfe, m[3], m[4], m[5]};
	ll.addr.v6[0] = 0xfe;
	ll.addr.v6[1] = 0x80;
	memcpy(&ll.addr.v6[8], iid, 8);
	return ll;
}

bool
rt_addr_on_link(const struct router *r, uint16_t port, const struct fib_prefix *addr)
{
	if (rt_prefix_link_local(addr))
		return true;
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		if (a->port != port || a->p.family != addr->family)
			continue;
		struct fib_prefix net = rt_prefix_network(&a->p), x = *addr;
		x.len = a->p.len;
		x = rt_prefix_network(&x);
		if (rt_prefix_same(&net, &x))
			return true;
	}
	return false;
}

struct fib_prefix
rt_prefix_of_bytes(uint8_t family, const uint8_t *addr)
{
	struct fib_prefix p = {.family = family, .len = family == FIB_AF_INET ? 32 : 128};
	if (family == FIB_AF_INET)
		p.addr.v4 = (uint32_t)addr[0] << 24 | (uint32_t)addr[1] << 16 |
			    (uint32_t)addr[2] << 8 | addr[3];
	else
		memcpy(p.addr.v6, addr, 16);
	return p;
}
