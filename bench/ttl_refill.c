/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * For routerd-loop only (bench/fwd_bench.sh's ring loop): a fixed set of
 * packets goes round two looped net_ring ports forever, so each would
 * expire after its TTL's worth of hops. A TX callback on every queue
 * gives a packet leaving with a TTL (hop limit) that would expire at the
 * next hop a fresh one, RFC 1624's incremental update keeping the IPv4
 * checksum right: on the way out the worker has just written the packet,
 * so the check reads a line already in its cache. It is added when a
 * port starts: the link wraps rte_eth_dev_start (-Wl,--wrap), so
 * routerd's own code is unchanged.
 */
#include <errno.h>
#include <stddef.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_ip.h>

#define REFILL_TTL 64

int __real_rte_eth_dev_start(uint16_t port);
int __wrap_rte_eth_dev_start(uint16_t port);

/* RFC 1624 eqn. 3: HC' = ~(~HC + ~m + m') for one 16-bit word changing
 * from m to m' (host order values, checksum in network order). */
static uint16_t
csum_update(uint16_t csum_be, uint16_t old, uint16_t new)
{
	uint32_t s = (uint16_t)~rte_be_to_cpu_16(csum_be) + (uint32_t)(uint16_t)~old + new;
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return rte_cpu_to_be_16((uint16_t)~s);
}

/* A packet whose TTL byte said it may expire: refill it by its family. */
static void
refill_one(struct rte_mbuf *m)
{
	struct rte_ether_hdr *eth = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		if (ip->time_to_live > 1)
			return;
		uint16_t was = (uint16_t)(ip->time_to_live << 8 | ip->next_proto_id);
		uint16_t now = (uint16_t)(REFILL_TTL << 8 | ip->next_proto_id);
		ip->time_to_live = REFILL_TTL;
		ip->hdr_checksum = csum_update(ip->hdr_checksum, was, now);
	} else if (eth->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
		if (ip->hop_limits <= 1)
			ip->hop_limits = REFILL_TTL;
	}
}

/* The loop carries one family (bench/fwd_bench.sh runs them apart): the
 * burst's first packet says where the TTL byte is, and each packet's is
 * one load and a compare; the few that may expire are looked at whole. A
 * packet of the other family slipping through unrefilled would expire
 * and leave the loop, which fwd_bench.sh reports ("lost"). */
static uint16_t
refill(uint16_t port, uint16_t queue, struct rte_mbuf *pkts[], uint16_t n, void *arg)
{
	(void)port, (void)queue, (void)arg;
	if (n == 0)
		return 0;
	const struct rte_ether_hdr *e0 = rte_pktmbuf_mtod(pkts[0], const struct rte_ether_hdr *);
	unsigned int ttl_at =
		RTE_ETHER_HDR_LEN + (e0->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)
					     ? offsetof(struct rte_ipv4_hdr, time_to_live)
					     : offsetof(struct rte_ipv6_hdr, hop_limits));
	for (uint16_t i = 0; i < n; i++)
		if (unlikely(rte_pktmbuf_mtod(pkts[i], const uint8_t *)[ttl_at] <= 1))
			refill_one(pkts[i]);
	return n;
}

int
__wrap_rte_eth_dev_start(uint16_t port)
{
	int rc = __real_rte_eth_dev_start(port);
	struct rte_eth_dev_info info;
	if (rc < 0 || rte_eth_dev_info_get(port, &info) != 0)
		return rc;
	for (uint16_t q = 0; q < info.nb_tx_queues; q++)
		if (rte_eth_add_tx_callback(port, q, refill, NULL) == NULL)
			return -ENOTSUP;
	return rc;
}
