/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbour table's callbacks (lib/neigh calls them on the control
 * core): probes to send, MACs to publish into the nexthops' headers,
 * host routes for neighbours on connected prefixes, queued packets to
 * send or answer with an error. And what the workers tell the table
 * about which neighbours traffic uses.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

#include <rte_ip.h>

#include "ctl_priv.h"

#define HOST_METRIC 0xfffffffeu /* below any route an operator adds for the host */

/* Transmit a packet that waited for its neighbour. A forwarded one was
 * punted before the worker rewrote it, so its TTL is done here; the
 * router's own (rt_output) have none to decrement. */
void
rt_tx_resolved(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t mac[6])
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (!rt_meta(m)->own) {
		if (rt_frame_v4(m)) {
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

static void
cb_probe(void *ctx, const struct neigh_key *k, const uint8_t *mac)
{
	struct router *r = ctx;
	const struct rt_addr *src = rt_addr_pick(r, k->port, k->family, k->addr);
	if (src == NULL || k->port >= r->dp.nb_ports)
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
		memcpy(req.sha, &r->dp.port[k->port].mac, 6);
		memcpy(req.spa, &be, 4);
		memcpy(req.tpa, k->addr, 4);
		n = neigh_arp_build(buf, 128, &req, mac);
		if (n < 60)
			n = 60; /* Ethernet minimum, zero padded */
	} else {
		struct neigh_nd ns = {.type = NEIGH_ND_NS, .has_lladdr = true};
		memcpy(ns.eth_src, &r->dp.port[k->port].mac, 6);
		memcpy(ns.src, src->p.addr.v6, 16);
		memcpy(ns.target, k->addr, 16);
		memcpy(ns.lladdr, &r->dp.port[k->port].mac, 6);
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
	struct fib_prefix a = rt_prefix_of_bytes(k->family, k->addr);
	return !rt_addr_is_local(r, k->family, k->addr) && rt_addr_on_link(r, k->port, &a);
}

static struct fib_route
host_route(const struct neigh_key *k, uint32_t nh)
{
	return (struct fib_route){.dst = rt_prefix_of_bytes(k->family, k->addr),
				  .metric = HOST_METRIC,
				  .origin = RT_ORIGIN_NEIGH,
				  .nh = nh};
}

/* "192.0.2.2 on port0", for the log. */
static const char *
neigh_name(const struct router *r, const struct neigh_key *k, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	inet_ntop(k->family == NEIGH_AF_INET ? AF_INET : AF_INET6, k->addr, a, sizeof(a));
	snprintf(buf, len, "%s on %s", a,
		 k->port < r->dp.nb_ports ? r->dp.port[k->port].name : "?");
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
	if (r->hooks.neigh_changed != NULL)
		r->hooks.neigh_changed(r, k);
}

static void
cb_send(void *ctx, const struct neigh_key *k, const uint8_t *mac, void **pkts, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		rt_tx_resolved(ctx, pkts[i], k->port, mac);
}

static void
cb_failed(void *ctx, const struct neigh_key *k, void **pkts, unsigned int n)
{
	char name[80];
	RT_LOG(DEBUG, neigh, "%s: failed, %u queued packets answered",
	       neigh_name(ctx, k, name, sizeof(name)), n);
	struct router *r = ctx;
	if (r->hooks.neigh_changed != NULL)
		r->hooks.neigh_changed(r, k);
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (rt_meta(m)->own) /* ours: no error about it, as Linux */
			rte_pktmbuf_free(m);
		else
			rt_icmp_error(r, m, m->port, RT_ICMP_HOST_UNREACH, 0);
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
		for (unsigned int w = 0; w < r->dp.nb_workers; w++)
			sum += __atomic_load_n(&r->dp.worker[w].nh_used[i], __ATOMIC_RELAXED);
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

void
rt_neigh_publish(struct router *r, uint16_t port, uint8_t family, const uint8_t *addr)
{
	struct neigh_info ni;
	struct neigh_key k = neigh_key(port, family, addr);
	if (neigh_get(r->neigh, &k, &ni) == 0 && ni.state != NEIGH_INCOMPLETE &&
	    ni.state != NEIGH_FAILED)
		nh_neigh_update(r->nh, port, family, addr, ni.mac);
}
