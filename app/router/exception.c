/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's side of the exception path: what to do with each
 * packet a worker punted, and the neighbour table's callbacks (probes,
 * header republication, queued packets).
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_ip.h>

#include "cli.h"
#include "router.h"

#define HOST_METRIC 0xfffffffeu /* below any route an operator adds for the host */

static bool
is_v4(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
	       RTE_BE16(RTE_ETHER_TYPE_IPV4);
}

/* Transmit a packet that waited for its neighbour. A forwarded one was
 * punted before the worker rewrote it, so its TTL is done here; the
 * router's own (rt_output) have none to decrement. */
static void
tx_resolved(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t mac[6])
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (!rt_meta(m)->own) {
		if (is_v4(m)) {
			struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
			ip->time_to_live--;
			ip->hdr_checksum = 0;
			ip->hdr_checksum = rte_ipv4_cksum(ip);
		} else {
			((struct rte_ipv6_hdr *)(eth + 1))->hop_limits--;
		}
	}
	rt_l2_send(r, m, port, mac);
}

/* The neighbour a punted packet waits for: the nexthop's gateway, or for
 * a connected destination the destination itself. */
static bool
neighbour_of(struct router *r, struct rte_mbuf *m, uint32_t nh, bool connected, struct neigh_key *k)
{
	struct nh_info info;
	if (nh_get(r->nh, nh, &info) != 0)
		return false;
	const uint8_t *ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	if (!connected) {
		*k = neigh_key(info.spec.port, info.spec.family, info.spec.gw);
		return true;
	}
	if (is_v4(m))
		*k = neigh_key(info.spec.port, NEIGH_AF_INET, ip + 16);
	else
		*k = neigh_key(info.spec.port, NEIGH_AF_INET6, ip + 24);
	return true;
}

static void
resolve(struct router *r, struct rte_mbuf *m, uint32_t nh, bool connected)
{
	struct neigh_key k;
	uint8_t mac[6];
	if (!neighbour_of(r, m, nh, connected, &k)) {
		rte_pktmbuf_free(m);
		return;
	}
	int rc = neigh_resolve(r->neigh, &k, m, rt_now_ms(), mac);
	if (rc == 0) {
		/* Usable already: the worker saw the header just before it was
		 * published, or this nexthop (or host) is new to a known
		 * neighbour. Publish, so the next packets stay on the fast
		 * path, and send this one. */
		rt_neigh_ops.changed(r, &k, mac);
		tx_resolved(r, m, k.port, mac);
	} else if (rc != -EAGAIN) {
		r->neigh_refused++;
		rte_pktmbuf_free(m);
	}
}

/* A forwarded IPv4 packet larger than its nexthop's MTU, DF clear: its
 * fragments go the way it would have (each resolved and its TTL
 * decremented as a punted packet's is); if it cannot be cut, it is
 * dropped, as it was before routerd fragmented. */
static void
fragment_out(struct router *r, struct rte_mbuf *m, uint32_t nh)
{
	struct rte_mbuf *frag[64];
	const struct nh_dp *d = &r->worker[0].nh[nh]; /* as the worker saw it */
	int n = rt_fragment4(r, m, d->mtu, frag, RTE_DIM(frag));
	rte_pktmbuf_free(m);
	if (n < 0) {
		r->exc_unhandled++;
		return;
	}
	bool connected = d->type == NH_T_CONNECTED;
	for (int i = 0; i < n; i++) {
		*rt_meta(frag[i]) = (struct rt_meta){.nh = nh, .reason = RT_PUNT_FRAGMENT};
		resolve(r, frag[i], nh, connected);
	}
	r->fragments += (uint64_t)n;
}

/* Is addr (network order) one of our addresses on the port? */
static bool
on_port(const struct router *r, uint16_t port, uint8_t family, const void *addr)
{
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		uint32_t be = rte_cpu_to_be_32(a->p.addr.v4);
		if (a->port == port && a->p.family == family &&
		    (family == FIB_AF_INET ? memcmp(&be, addr, 4) == 0
					   : memcmp(a->p.addr.v6, addr, 16) == 0))
			return true;
	}
	return false;
}

static void
arp_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct neigh_arp a;
	if (neigh_arp_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &a) !=
	    0) {
		r->exc_unhandled++;
		rte_pktmbuf_free(m);
		return;
	}
	static const uint8_t zero[4];
	struct neigh_key k = neigh_key(in, NEIGH_AF_INET, a.spa);
	uint64_t now = rt_now_ms();
	if (memcmp(a.spa, zero, 4) == 0) {
		/* An address probe (RFC 5227): learn nothing from it. */
	} else if (neigh_arp_gratuitous(&a)) {
		neigh_confirm(r->neigh, &k, a.sha, NEIGH_F_OVERRIDE, now); /* existing only */
	} else if (a.op == NEIGH_ARP_REPLY) {
		neigh_confirm(r->neigh, &k, a.sha, NEIGH_F_SOLICITED | NEIGH_F_OVERRIDE, now);
	} else if (on_port(r, in, FIB_AF_INET, a.tpa)) {
		/* A request for one of our addresses on this port: learn the
		 * sender, answer it on the frame we received. */
		neigh_learn(r->neigh, &k, a.sha, now);
		struct neigh_arp rep = {.op = NEIGH_ARP_REPLY};
		memcpy(rep.sha, &r->port[in].mac, 6);
		memcpy(rep.spa, a.tpa, 4);
		memcpy(rep.tha, a.sha, 6);
		memcpy(rep.tpa, a.spa, 4);
		rte_pktmbuf_reset(m);
		uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, 60);
		memset(buf, 0, 60);
		neigh_arp_build(buf, 60, &rep, a.sha);
		rt_ctl_tx(r, in, m);
		return;
	}
	rte_pktmbuf_free(m);
}

static void
nd_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	struct neigh_nd nd;
	if (neigh_nd_parse(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m), &nd) !=
	    0) {
		r->exc_unhandled++;
		rte_pktmbuf_free(m);
		return;
	}
	uint64_t now = rt_now_ms();
	static const uint8_t zero[16];
	if (nd.type == NEIGH_ND_NA) {
		if (nd.has_lladdr) {
			struct neigh_key k = neigh_key(in, NEIGH_AF_INET6, nd.target);
			neigh_confirm(r->neigh, &k, nd.lladdr, nd.flags, now);
		}
		rte_pktmbuf_free(m);
		return;
	}
	if (!on_port(r, in, FIB_AF_INET6, nd.target)) {
		rte_pktmbuf_free(m);
		return;
	}
	bool dad = memcmp(nd.src, zero, 16) == 0;
	if (!dad && nd.has_lladdr) {
		struct neigh_key k = neigh_key(in, NEIGH_AF_INET6, nd.src);
		neigh_learn(r->neigh, &k, nd.lladdr, now);
	}
	/* Answer: solicited to the asker, or to all nodes for a duplicate
	 * address probe (RFC 4861 7.2.4). We are a router. */
	struct neigh_nd na = {.type = NEIGH_ND_NA,
			      .has_lladdr = true,
			      .flags = NEIGH_F_ROUTER | NEIGH_F_OVERRIDE};
	memcpy(na.eth_src, &r->port[in].mac, 6);
	memcpy(na.src, nd.target, 16);
	memcpy(na.target, nd.target, 16);
	memcpy(na.lladdr, &r->port[in].mac, 6);
	if (dad) {
		static const uint8_t all_nodes[16] = {0xff, 0x02, [15] = 1};
		static const uint8_t all_nodes_mac[6] = {0x33, 0x33, 0, 0, 0, 1};
		memcpy(na.dst, all_nodes, 16);
		memcpy(na.eth_dst, all_nodes_mac, 6);
	} else {
		na.flags |= NEIGH_F_SOLICITED;
		memcpy(na.dst, nd.src, 16);
		memcpy(na.eth_dst, nd.has_lladdr ? nd.lladdr : nd.eth_src, 6);
	}
	rte_pktmbuf_reset(m);
	uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, 128);
	int n = neigh_nd_build(buf, 128, &na);
	rte_pktmbuf_trim(m, (uint16_t)(128 - n));
	rt_ctl_tx(r, in, m);
}

/* Packets for the router itself. Fragments are reassembled first (a
 * large ping to the router comes in fragments); the whole datagram may
 * be a chain of mbufs, its headers and the ICMP header in the first. */
static void
local_in(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	bool reassembled = false;
	if (rt_reasm_is_fragment(m)) {
		uint16_t pointer;
		struct rte_mbuf *whole = rt_reasm_in(r->reasm, m, r->pool, rt_now_ms(), &pointer);
		if (pointer != 0) /* parameter problem, erroneous header field */
			rt_icmp_error(r, m, in, 4, 0, pointer);
		if (whole == NULL)
			return; /* held until the rest arrives, or dropped and counted */
		m = whole;
		reassembled = true;
	}
	const uint8_t *l3 = rte_pktmbuf_mtod_offset(m, const uint8_t *, RTE_ETHER_HDR_LEN);
	uint32_t len = rte_pktmbuf_pkt_len(m) - RTE_ETHER_HDR_LEN;
	if (is_v4(m)) {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)l3;
		unsigned int ihl = (ip->version_ihl & 0xf) * 4u;
		if (ip->next_proto_id == IPPROTO_ICMP && len >= ihl + 8 && l3[ihl] == 8 &&
		    rt_addr_is_local(r, FIB_AF_INET, &ip->dst_addr)) {
			rt_icmp_echo(r, m, in);
			return;
		}
		if (rt_local_closed4(r, m, in))
			return;
	} else {
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)l3;
		const uint8_t *icmp = l3 + sizeof(*ip);
		if (ip->proto == IPPROTO_ICMPV6 && len >= sizeof(*ip) + 8) {
			/* Neighbour discovery in fragments is ignored (RFC 6980). */
			if ((icmp[0] == NEIGH_ND_NS || icmp[0] == NEIGH_ND_NA) && !reassembled) {
				nd_in(r, m, in);
				return;
			}
			if (icmp[0] == NEIGH_ND_RS && !reassembled) {
				rt_ra_rs_in(r, m, in);
				return;
			}
			if (icmp[0] == 128 && rt_addr_is_local(r, FIB_AF_INET6, ip->dst_addr)) {
				rt_icmp_echo(r, m, in);
				return;
			}
		}
		if (rt_local_closed6(r, m, in))
			return;
	}
	r->exc_unhandled++; /* to the router, nothing here handles it: counted */
	rte_pktmbuf_free(m);
}

void
rt_reasm_timer(struct router *r, uint64_t now_ms)
{
	struct rte_mbuf *first;
	while ((first = rt_reasm_expire(r->reasm, now_ms)) != NULL) {
		RT_LOG(DEBUG, exception, "reassembly timed out, first fragment from %s",
		       first->port < r->nb_ports ? r->port[first->port].name : "?");
		/* Fragment reassembly time exceeded (RFC 792, RFC 4443). */
		rt_icmp_error(r, first, first->port, is_v4(first) ? 11 : 3, 1, 0);
	}
}

void
rt_exception(struct router *r, struct rte_mbuf *m)
{
	const struct rt_meta *meta = rt_meta(m);
	uint16_t in = m->port;
	bool v4 = is_v4(m);
	switch (meta->reason) {
	case RT_PUNT_ARP:
		arp_in(r, m, in);
		return;
	case RT_PUNT_LOCAL:
		local_in(r, m, in);
		return;
	case RT_PUNT_RESOLVE:
		resolve(r, m, meta->nh, false);
		return;
	case RT_PUNT_CONNECTED:
		resolve(r, m, meta->nh, true);
		return;
	case RT_PUNT_NO_ROUTE:
		rt_icmp_error(r, m, in, v4 ? 3 : 1, 0, 0); /* net / no route */
		return;
	case RT_PUNT_UNREACHABLE:
		/* A route's unreachable is host unreachable (IPv6: address
		 * unreachable, as Linux); a rule's is net unreachable. */
		if (meta->nh == r->nh_rule_unreachable)
			rt_icmp_error(r, m, in, v4 ? 3 : 1, 0, 0);
		else
			rt_icmp_error(r, m, in, v4 ? 3 : 1, v4 ? 1 : 3, 0);
		return;
	case RT_PUNT_PROHIBIT:
		rt_icmp_error(r, m, in, v4 ? 3 : 1, v4 ? 13 : 1, 0);
		return;
	case RT_PUNT_TTL:
		rt_icmp_error(r, m, in, v4 ? 11 : 3, 0, 0);
		return;
	case RT_PUNT_BEYOND_SCOPE: /* IPv6 only: a link-local source off its link */
		rt_icmp_error(r, m, in, 1, 2, 0);
		return;
	case RT_PUNT_FRAGMENT:
		fragment_out(r, m, meta->nh);
		return;
	case RT_PUNT_TOO_BIG:
		rt_icmp_error(r, m, in, v4 ? 3 : 2, v4 ? 4 : 0, r->worker[0].nh[meta->nh].mtu);
		return;
	default:
		r->exc_unhandled++;
		rte_pktmbuf_free(m);
	}
}

/* Neighbour callbacks (ctx is the router). */

static void
cb_probe(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	struct router *r = ctx;
	const struct rt_addr *src = rt_addr_pick(r, k->port, k->family, k->addr);
	if (src == NULL || k->port >= r->nb_ports)
		return; /* no address to ask from */
	struct rte_mbuf *m = rte_pktmbuf_alloc(r->pool);
	if (m == NULL)
		return;
	uint8_t *buf = (uint8_t *)rte_pktmbuf_append(m, 128);
	memset(buf, 0, 128);
	int n;
	if (k->family == NEIGH_AF_INET) {
		struct neigh_arp req = {.op = NEIGH_ARP_REQUEST};
		uint32_t be = rte_cpu_to_be_32(src->p.addr.v4);
		memcpy(req.sha, &r->port[k->port].mac, 6);
		memcpy(req.spa, &be, 4);
		memcpy(req.tpa, k->addr, 4);
		n = neigh_arp_build(buf, 128, &req, mac);
		if (n < 60)
			n = 60; /* Ethernet minimum, zero padded */
	} else {
		struct neigh_nd ns = {.type = NEIGH_ND_NS, .has_lladdr = true};
		memcpy(ns.eth_src, &r->port[k->port].mac, 6);
		memcpy(ns.src, src->p.addr.v6, 16);
		memcpy(ns.target, k->addr, 16);
		memcpy(ns.lladdr, &r->port[k->port].mac, 6);
		if (mac != NULL) { /* unicast probe of a known neighbour */
			memcpy(ns.dst, k->addr, 16);
			memcpy(ns.eth_dst, mac, 6);
		}
		n = neigh_nd_build(buf, 128, &ns);
	}
	rte_pktmbuf_trim(m, (uint16_t)(128 - n));
	rt_ctl_tx(r, k->port, m);
}

/* Is addr inside a connected prefix of the port (and not ours)? */
static bool
connected_host(const struct router *r, const struct neigh_key *k)
{
	if (rt_addr_is_local(r, k->family, k->addr))
		return false;
	for (unsigned int i = 0; i < r->nb_addrs; i++) {
		const struct rt_addr *a = &r->addr[i];
		if (a->port != k->port || a->p.family != k->family)
			continue;
		unsigned int len = a->p.len, full = len / 8;
		uint8_t mine[16];
		if (k->family == NEIGH_AF_INET) {
			uint32_t be = rte_cpu_to_be_32(a->p.addr.v4);
			memcpy(mine, &be, 4);
		} else {
			memcpy(mine, a->p.addr.v6, 16);
		}
		if (memcmp(mine, k->addr, full) != 0)
			continue;
		if (len % 8 && ((mine[full] ^ k->addr[full]) & (uint8_t)(0xff << (8 - len % 8))))
			continue;
		return true;
	}
	return false;
}

static struct fib_route
host_route(const struct neigh_key *k, uint32_t nh)
{
	struct fib_route hr = {.metric = HOST_METRIC, .origin = RT_ORIGIN_NEIGH, .nh = nh};
	hr.dst.family = k->family;
	if (k->family == NEIGH_AF_INET) {
		hr.dst.len = 32;
		hr.dst.addr.v4 = (uint32_t)k->addr[0] << 24 | (uint32_t)k->addr[1] << 16 |
				 (uint32_t)k->addr[2] << 8 | k->addr[3];
	} else {
		hr.dst.len = 128;
		memcpy(hr.dst.addr.v6, k->addr, 16);
	}
	return hr;
}

/* "192.0.2.2 on port0", for the log. */
static const char *
neigh_name(const struct router *r, const struct neigh_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	inet_ntop(k->family == NEIGH_AF_INET ? AF_INET : AF_INET6, k->addr, a, sizeof(a));
	snprintf(buf, len, "%s on %s", a, k->port < r->nb_ports ? r->port[k->port].name : "?");
	return buf;
}

/*
 * A neighbour's address changed or became unusable. Gateways' nexthops
 * get the new header. A host on a connected prefix gets a host route to
 * its own nexthop while it is usable, so the workers forward to it
 * without the control core; the route goes when it fails, which keeps
 * their number bounded by the neighbour table's.
 */
static void
cb_changed(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	struct router *r = ctx;
	if (rte_log_can_log(rt_logtype_neigh, RTE_LOG_DEBUG)) {
		char n[80];
		if (mac != NULL)
			RT_LOG(DEBUG, neigh, "%s: lladdr " RT_MAC_FMT,
			       neigh_name(r, k, n, sizeof(n)), RT_MAC_BYTES(mac));
		else
			RT_LOG(DEBUG, neigh, "%s: not usable", neigh_name(r, k, n, sizeof(n)));
	}
	bool host = connected_host(r, k);
	struct fib_route hr = host_route(k, 0), got;
	bool have = host && fib_route_get(r->fib, &hr, false, &got) == 0;
	if (host && mac != NULL && !have) {
		struct nh_spec s = {.type = NH_T_GATEWAY, .family = k->family, .port = k->port};
		memcpy(s.gw, k->addr, 16);
		uint32_t nh;
		if (nh_add(r->nh, &s, &nh) == 0) {
			nh_neigh_update(r->nh, k->port, k->family, k->addr, mac);
			hr.nh = nh;
			int rc = fib_route_add(r->fib, &hr);
			if (rc != 0) {
				/* Tried again at every resolution: said once a
				 * second at most. */
				static uint64_t said;
				uint64_t now = rt_now_ms();
				char n[80];
				if (now - said >= 1000) {
					said = now;
					RT_LOG(WARNING, neigh,
					       "%s: no host route (%s): its packets take the "
					       "slow path",
					       neigh_name(r, k, n, sizeof(n)), strerror(-rc));
				}
				nh_unref(r->nh, nh);
			}
		}
	}
	nh_neigh_update(r->nh, k->port, k->family, k->addr, mac);
	if (host && mac == NULL && have && fib_route_del(r->fib, &hr, false) == 0)
		nh_unref(r->nh, got.nh);
	cli_neigh_event(r, k);
}

static void
cb_send(void *ctx, const struct neigh_key *k, const uint8_t *mac, void **pkts, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		tx_resolved(ctx, pkts[i], k->port, mac);
}

static void
cb_failed(void *ctx, const struct neigh_key *k, void **pkts, unsigned int n)
{
	char name[80];
	RT_LOG(DEBUG, neigh, "%s: failed, %u queued packets answered",
	       neigh_name(ctx, k, name, sizeof(name)), n);
	cli_neigh_event(ctx, k);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		bool v4 = is_v4(m);
		if (rt_meta(m)->own) /* ours: no error about it, as Linux */
			rte_pktmbuf_free(m);
		else /* host unreachable */
			rt_icmp_error(ctx, m, m->port, v4 ? 3 : 1, v4 ? 1 : 3, 0);
	}
}

static void
cb_drop(void *ctx, void *pkt)
{
	(void)ctx;
	rte_pktmbuf_free(pkt);
}

const struct neigh_ops rt_neigh_ops = {
	.probe = cb_probe,
	.changed = cb_changed,
	.send = cb_send,
	.failed = cb_failed,
	.drop = cb_drop,
};

/*
 * NUD wants to know which neighbours traffic uses: a STALE entry in use
 * goes to DELAY then PROBE and is confirmed, an unused one is collected.
 * Workers never touch neighbour state: each stamps the nexthops it sends
 * through with its loop count, in an array of its own (dp_send), and once
 * a second the control core tells the neighbour table about every gateway
 * whose stamps moved (their sum changed).
 */
void
rt_neigh_touch_used(struct router *r, uint64_t now)
{
	for (uint32_t i = 1; i <= NH_INDEX_MAX; i++) {
		uint32_t sum = 0;
		for (unsigned int w = 0; w < r->nb_workers; w++)
			sum += __atomic_load_n(&r->worker[w].nh_used[i], __ATOMIC_RELAXED);
		if (sum == r->nh_used_seen[i])
			continue;
		r->nh_used_seen[i] = sum;
		struct nh_info info;
		if (nh_get(r->nh, i, &info) != 0 || info.spec.type != NH_T_GATEWAY)
			continue;
		struct neigh_key k = neigh_key(info.spec.port, info.spec.family, info.spec.gw);
		neigh_touch(r->neigh, &k, now);
	}
}
