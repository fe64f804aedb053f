/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control plane's files share among themselves: the exception
 * path, the packets the router originates, and their timers. Control
 * core only; nothing outside control/ includes this (tests excepted).
 */
#ifndef ROUTER_CTL_PRIV_H
#define ROUTER_CTL_PRIV_H

#include <rte_ip.h>
#include <rte_mbuf.h>

#include "control.h"

/* Whether a frame (its Ethernet header at the data) carries IPv4. */
static inline bool
rt_frame_v4(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod(m, const struct rte_ether_hdr *)->ether_type ==
	       RTE_BE16(RTE_ETHER_TYPE_IPV4);
}

/* loop.c: transmit one packet on a port from the control core (through
 * worker 0's queues). Takes ownership. */
void rt_ctl_tx(struct router *r, uint16_t port, struct rte_mbuf *m);

/* exception.c: handle a packet a worker punted. Takes ownership. */
void rt_exception(struct router *r, struct rte_mbuf *m);
/* The same for a burst from one ring, its lookups started ahead. */
void rt_exception_burst(struct router *r, struct rte_mbuf **pkts, unsigned int n);
/* Expire pending reassemblies: ICMP time exceeded to their senders. */
void rt_reasm_timer(struct router *r, uint64_t now_ms);

/* arp_nd.c: ARP and neighbour discovery addressed to the router. Take
 * ownership. */
void rt_arp_in(struct router *r, struct rte_mbuf *m, uint16_t in);
void rt_nd_in(struct router *r, struct rte_mbuf *m, uint16_t in);

/* neigh_glue.c: the neighbour table's callbacks (ctx: the router). */
extern const struct neigh_ops rt_neigh_ops;
/* Tell the neighbour table which gateways traffic used since last time. */
void rt_neigh_touch_used(struct router *r, uint64_t now_ms);
/* A packet waiting for neighbour k: transmit it now that its MAC is
 * known (a forwarded one has its TTL decremented here). */
void rt_tx_resolved(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t mac[6]);

/* output.c: send m, an IP packet the router built (Ethernet header
 * space first, its ethertype set), by the route to its destination; in
 * is the port of the packet it answers (for IPv6 link-local
 * destinations). Takes ownership. */
void rt_output(struct router *r, struct rte_mbuf *m, uint16_t in);
/* Fill in the Ethernet addresses and transmit on port. */
void rt_l2_send(struct router *r, struct rte_mbuf *m, uint16_t port, const uint8_t mac[6]);

/* frag.c: cut m (a frame holding an IPv4 packet, DF clear) into
 * fragments of at most mtu bytes of IP, new frames in out[0..max) with
 * m's Ethernet header and port, headers summed. m is left to the caller.
 * @return the number of fragments; -EINVAL for a packet that may not or
 * cannot be cut (DF set, multi-segment, lengths wrong), -ENOBUFS when
 * mbufs or max run out (none is left allocated). */
int rt_fragment4(struct router *r, const struct rte_mbuf *m, unsigned int mtu,
		 struct rte_mbuf **out, unsigned int max);
/* The same for an IPv6 packet of the router's own (no extension header)
 * at most mtu bytes of IP a fragment, each with a Fragment header of
 * identification id. -EINVAL for lengths wrong or an MTU below 1280. */
int rt_fragment6(struct router *r, const struct rte_mbuf *m, unsigned int mtu, uint32_t id,
		 struct rte_mbuf **out, unsigned int max);

/* The one's complement sum of the len bytes at off in m, whatever its
 * segments (a reassembled datagram is a chain), plus phdr (a pseudo-
 * header's sum, or 0), folded: 0xffff when the message's checksum
 * verifies; its complement is the checksum to write. 0 when m holds fewer
 * bytes. For ICMP (icmp.c) and UDP and TCP (local.c) alike. */
static inline uint16_t
rt_cksum_mbuf(const struct rte_mbuf *m, uint32_t off, uint32_t len, uint16_t phdr)
{
	uint16_t raw;
	if (rte_raw_cksum_mbuf(m, off, len, &raw) != 0)
		return 0;
	uint32_t sum = (uint32_t)raw + phdr;
	return (uint16_t)((sum & 0xffff) + (sum >> 16));
}

/*
 * icmp.c. The errors the router sends, by what went wrong; icmp.c
 * translates each into the type and code of the packet's family (RFC 792
 * and RFC 1812 for IPv4, RFC 4443 for IPv6, as Linux chooses them).
 */
enum rt_icmp_kind {
	RT_ICMP_NET_UNREACH,   /* no route; a rule's unreachable */
	RT_ICMP_HOST_UNREACH,  /* an unreachable route; a neighbour that failed */
	RT_ICMP_ADMIN_PROHIB,  /* a prohibit route or rule */
	RT_ICMP_BEYOND_SCOPE,  /* IPv6: a link-local source leaving its link */
	RT_ICMP_PORT_UNREACH,  /* UDP to the router, no service there */
	RT_ICMP_PROTO_UNREACH, /* to the router, an unknown protocol (info:
				* IPv6's pointer to the next header) */
	RT_ICMP_TTL_EXCEEDED,  /* TTL or hop limit expired in transit */
	RT_ICMP_REASM_TIMEOUT, /* fragments that never made a whole */
	RT_ICMP_TOO_BIG,       /* larger than the MTU (info: the MTU) */
	RT_ICMP_PARAM_PROBLEM, /* an erroneous header field (info: pointer) */
	RT_ICMP_KINDS
};
void rt_icmp_init(struct router *r);
/* Send an error of `kind` about packet m (its Ethernet header at its
 * data), received on port `in`, if the rules and limits allow; frees m. */
void rt_icmp_error(struct router *r, struct rte_mbuf *m, uint16_t in, enum rt_icmp_kind kind,
		   uint32_t info);
/* Answer an echo request addressed to us; frees m. */
void rt_icmp_echo(struct router *r, struct rte_mbuf *m, uint16_t in);

/* local.c: answer m, addressed to one of our unicast addresses and to
 * nothing the router serves, as Linux's stack answers a closed port or
 * an unknown protocol (ICMP port or protocol unreachable, TCP reset);
 * m's IP header is at its data, after Ethernet, the datagram whole.
 * @return true when m was answered (and freed); false for the caller to
 * drop it (not for us, nothing to answer, or checksum wrong). */
bool rt_local_closed4(struct router *r, struct rte_mbuf *m, uint16_t in);
bool rt_local_closed6(struct router *r, struct rte_mbuf *m, uint16_t in);

/* ra.c */
void rt_ra_rs_in(struct router *r, struct rte_mbuf *m, uint16_t in);
void rt_ra_timer(struct router *r, uint64_t now_ms);
/* When rt_ra_timer has something to send next (UINT64_MAX: never). */
uint64_t rt_ra_due(const struct router *r);
/* The port no longer has an address in the IPv6 prefix p. */
void rt_ra_prefix_gone(struct router *r, uint16_t port, const struct fib_prefix *p);
/* Stopping: a last advertisement (lifetime 0) on every port that sends
 * them, so hosts stop using the router now, not in 30 minutes. */
void rt_ra_shutdown(struct router *r);

/* link.c: each round, the carriers the driver's interrupt marked and
 * those due to be polled. */
void rt_link_timer(struct router *r, uint64_t now_ms);
/* When rt_link_timer has a port to read next. */
uint64_t rt_link_due(const struct router *r);

/* cport.c: the control-plane ports' traffic. */ /* Hand m, for the router, to the TAP of port in: true when taken (sent,
 * or dropped and counted), false when the port has no TAP. */
bool rt_cport_punt(struct router *r, struct rte_mbuf *m, uint16_t in);

/* mirror.c: dump the kernel's tables again at the next round (an
 * interface set down loses its routes without a notification). */
void rt_mirror_resync_soon(void);

/* peers.c: the routing protocols' peers (datapath/peers.h), learnt from
 * the frames Linux writes to the TAPs (rt_peers_learn, each one). */
int rt_peers_init(struct router *r);
void rt_peers_fini(struct router *r);
void rt_peers_learn(struct router *r, const uint8_t *f, uint32_t len);
unsigned int rt_peers_count(void);

/* tap.c: the TAP devices. rt_tap_init opens them (control_ports on),
 * with the port's MAC, MTU, state and addresses. */
int rt_tap_init(struct router *r);
void rt_tap_fini(struct router *r);
void rt_tap_close(struct router *r, uint16_t port);
/* Make port's TAP again (rt_tap_init's, for one port: its name, MAC,
 * MTU, state, addresses). @return 0 or -errno. */
int rt_tap_open(struct router *r, uint16_t port);
/* Mirror an address added to or removed from a port. @return 0 or -errno. */
int rt_tap_addr(struct router *r, uint16_t port, const struct fib_prefix *p, bool add);
/* The port's administrative state and carrier, or its MTU, changed. */
void rt_tap_link(struct router *r, uint16_t port, bool admin_up, bool carrier);
void rt_tap_mtu(struct router *r, uint16_t port);
/* The protocol of the default routes routerd gives the kernel for the
 * router's own packets (rt_tap_default_route): a number no daemon in
 * iproute2's rt_protos uses; the mirror never follows it. */
#define RT_TAP_ROUTE_PROTO 247
/* Bring those routes to the ports' state and addresses
 * (kernel-default-route on). */
void rt_tap_default_route(const struct router *r);

/* telemetry.c: /router/stats and /router/workers for dpdk-telemetry.py. */
void rt_telemetry_init(struct router *r);

#endif /* ROUTER_CTL_PRIV_H */
