/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The first stage of a received burst: count, prefetch, pick a family
 * stage by the first frame's ethertype (the stages check each frame as
 * they validate it) and sort by kind whatever it hands back. With
 * ipv4.c and ipv6.c this is the code the workers run on every packet, built
 * as a library so that bench/ measures exactly it.
 */
#include <assert.h>
#include <stddef.h>
#include <string.h>

#include "dp_inline.h"
#include "stages.h"

/* What a received frame is: its length, destination and ethertype
 * decide. Frames to group addresses (broadcast, multicast) are kinds of
 * their own: their packets are never forwarded. VLAN-tagged frames are
 * not configured (F_OTHER). */
enum frame_kind {
	F_IPV4,
	F_IPV4_GROUP,
	F_IPV6,
	F_IPV6_GROUP,
	F_ARP,
	F_TRUNCATED,
	F_NOT_FOR_US,
	F_OTHER
};

static inline enum frame_kind
frame_kind(const struct rt_port *p, const struct rte_mbuf *m, const uint8_t *frame)
{
	if (unlikely(rte_pktmbuf_data_len(m) < RTE_ETHER_HDR_LEN))
		return F_TRUNCATED;
	bool group = dp_l2_group(frame);
	if (!group && !dp_to_port_mac(p, frame))
		return F_NOT_FOR_US;
	switch (((const struct rte_ether_hdr *)frame)->ether_type) {
	case RTE_BE16(RTE_ETHER_TYPE_IPV4):
		return group ? F_IPV4_GROUP : F_IPV4;
	case RTE_BE16(RTE_ETHER_TYPE_IPV6):
		return group ? F_IPV6_GROUP : F_IPV6;
	case RTE_BE16(RTE_ETHER_TYPE_ARP):
		return F_ARP;
	default:
		return F_OTHER;
	}
}

/* The frames of one kind, in arrival order. */
struct kind_list {
	struct rte_mbuf *m[RT_BURST];
	uint8_t *f[RT_BURST];
	unsigned int n;
};

static void
drop_all(struct rt_worker *w, struct rte_mbuf **m, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		dp_drop(w, m[i], RT_DROP_ETHERTYPE);
}

/* What the first family stage handed back (frames of the other family,
 * ARP, frames to group addresses, runts): sorted by kind, each kind to
 * its stage. */
static __rte_noinline void
dp_sort(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	uint8_t **f, unsigned int n)
{
	static_assert(F_IPV4 == 0 && F_IPV4_GROUP == 1 && F_IPV6 == 2 && F_IPV6_GROUP == 3,
		      "the IP kinds come first: they index l");
	struct kind_list l[F_IPV6_GROUP + 1];
	const struct rt_port *p = &dp->port[port];

	for (unsigned int k = 0; k <= F_IPV6_GROUP; k++)
		l[k].n = 0;
	for (unsigned int i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		enum frame_kind kind = frame_kind(p, m, f[i]);
		switch (kind) {
		case F_IPV4:
		case F_IPV4_GROUP:
		case F_IPV6:
		case F_IPV6_GROUP:
			l[kind].f[l[kind].n] = f[i];
			l[kind].m[l[kind].n++] = m;
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
	/* The family stages take every F_IPV4 or F_IPV6 frame (their test is
	 * the same three), so none comes back; were one to, it is dropped,
	 * not leaked. */
	struct kind_list *v4 = &l[F_IPV4], *v6 = &l[F_IPV6];
	if (v4->n)
		drop_all(w, v4->m, dp4_burst(dp, w, port, v4->m, v4->f, v4->n, v4->m, v4->f));
	if (v6->n)
		drop_all(w, v6->m, dp6_burst(dp, w, port, v6->m, v6->f, v6->n, v6->m, v6->f));
	if (l[F_IPV4_GROUP].n)
		dp4_burst_l2group(dp, w, port, l[F_IPV4_GROUP].m, l[F_IPV4_GROUP].f,
				  l[F_IPV4_GROUP].n);
	if (l[F_IPV6_GROUP].n)
		dp6_burst_l2group(dp, w, port, l[F_IPV6_GROUP].m, l[F_IPV6_GROUP].f,
				  l[F_IPV6_GROUP].n);
}

void
dp_burst(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	 unsigned int n)
{
	uint8_t *f[RT_BURST];

	w->st.rx += n;
	w->st.port_rx[port] += n;
	w->rx_port = port;
	if (unlikely(n == 0))
		return;
	for (unsigned int i = 0; i < n; i++) {
		f[i] = rte_pktmbuf_mtod(pkts[i], uint8_t *);
		rte_prefetch0(f[i]);
	}
	/* The usual burst is all one family, sent to the port's own address:
	 * the first frame's ethertype picks the stage, which checks each
	 * frame in its validation pass and hands back the others (into pkts
	 * and f: it reads each entry before it could overwrite it), so the
	 * common case takes no classifying pass of its own. (The first
	 * frame's type is only a hint: reading it from a runt frame reads
	 * the mbuf's own buffer.) */
	uint16_t type0;
	memcpy(&type0, f[0] + offsetof(struct rte_ether_hdr, ether_type), sizeof(type0));
	if (type0 == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		n = dp6_burst(dp, w, port, pkts, f, n, pkts, f);
	else
		n = dp4_burst(dp, w, port, pkts, f, n, pkts, f);
	if (likely(n == 0))
		return;
	dp_sort(dp, w, port, pkts, f, n);
}
