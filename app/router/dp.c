/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The first stage of a received burst: count, check the frame is for us,
 * classify by ethertype, hand each family's packets to its stage. With
 * dp4.c and dp6.c this is the code the workers run on every packet, built
 * as a library so that bench/ measures exactly it.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "dp.h"
#include "dp_stages.h"

/* Frames for us: our MAC, or group addresses (broadcast, multicast).
 * Eight-byte loads (the MAC and the two bytes after it, in the frame and
 * in struct rt_port), compared on the MAC's 48 bits: three instructions
 * where rte_is_same_ether_addr takes seven. */
static inline bool
for_us(const struct rt_port *p, const struct rte_ether_hdr *eth)
{
	uint64_t a, b;
	static_assert(offsetof(struct rt_port, mac) + 8 <= sizeof(struct rt_port),
		      "eight bytes readable at rt_port.mac");
	memcpy(&a, &eth->dst_addr, 8);
	memcpy(&b, &p->mac, 8);
	return ((a ^ b) << 16) == 0 || (a & 1) != 0; /* bit 0: group address */
}

/* What a received frame is: its length, destination and ethertype
 * decide. VLAN-tagged frames are not configured (F_OTHER). */
enum frame_kind { F_IPV4, F_IPV6, F_ARP, F_TRUNCATED, F_NOT_FOR_US, F_OTHER };

static inline enum frame_kind
frame_kind(const struct rt_port *p, const struct rte_mbuf *m, const uint8_t *frame)
{
	const struct rte_ether_hdr *eth = (const struct rte_ether_hdr *)frame;
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return F_TRUNCATED;
	if (unlikely(!for_us(p, eth)))
		return F_NOT_FOR_US;
	switch (eth->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_IPV4):
		return F_IPV4;
	case RTE_BE16(RTE_ETHER_TYPE_IPV6):
		return F_IPV6;
	case RTE_BE16(RTE_ETHER_TYPE_ARP):
		return F_ARP;
	default:
		return F_OTHER;
	}
}

void
dp_burst(const struct router *r, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	 unsigned int n)
{
	struct rte_mbuf *v4[RT_BURST], *v6[RT_BURST];
	uint8_t *f[RT_BURST], *f4[RT_BURST], *f6[RT_BURST];
	unsigned int n4 = 0, n6 = 0;
	const struct rt_port *p = &r->port[port];

	w->st.rx += n;
	w->st.port_rx[port] += n;
	w->rx_port = port;
	for (unsigned int i = 0; i < n; i++) {
		f[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		rte_prefetch0(f[i]);
	}
	/* The usual burst, every frame IPv4 and for us, goes to the IPv4
	 * stage as it came: no arrays to fill. */
	unsigned int i = 0;
	while (i < n && likely(frame_kind(p, pkts[i], f[i]) == F_IPV4))
		i++;
	if (likely(i == n)) {
		dp4_burst(r, w, port, pkts, f, n);
		return;
	}
	/* Otherwise sort the burst by kind, the first i being IPv4. */
	for (n4 = 0; n4 < i; n4++) {
		v4[n4] = pkts[n4];
		f4[n4] = f[n4];
	}
	for (; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		switch (frame_kind(p, m, f[i])) {
		case F_IPV4:
			f4[n4] = f[i];
			v4[n4++] = m;
			break;
		case F_IPV6:
			f6[n6] = f[i];
			v6[n6++] = m;
			break;
		case F_ARP:
			dp_punt(w, m, RT_PUNT_ARP, 0);
			break;
		case F_TRUNCATED:
			dp_drop(w, m, RT_DROP_TRUNCATED);
			break;
		case F_NOT_FOR_US:
			dp_drop(w, m, RT_DROP_NOT_FOR_US);
			break;
		case F_OTHER:
			dp_drop(w, m, RT_DROP_ETHERTYPE);
			break;
		}
	}
	if (n4)
		dp4_burst(r, w, port, v4, f4, n4);
	if (n6)
		dp6_burst(r, w, port, v6, f6, n6);
}
