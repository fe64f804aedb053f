/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_ip.h>
#include <rte_udp.h>

#include "fib.h"
#include "udp_frame.h"

void
udp_frame_sized(struct rte_mbuf *m, uint8_t family, const struct rte_ether_addr *dmac,
		const struct rte_ether_addr *smac, const uint8_t *src, const uint8_t *dst,
		uint16_t sport, uint16_t size)
{
	uint16_t len = (uint16_t)(size - RTE_ETHER_CRC_LEN);
	uint8_t *f = (uint8_t *)rte_pktmbuf_append(m, len);
	memset(f, 0, len);
	struct rte_ether_hdr *eth = (struct rte_ether_hdr *)f;
	eth->dst_addr = *dmac;
	eth->src_addr = *smac;
	struct rte_udp_hdr *u;
	if (family == FIB_AF_INET) {
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eth + 1);
		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(len - 14));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		memcpy(&ip->src_addr, src, 4);
		memcpy(&ip->dst_addr, dst, 4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		u = (struct rte_udp_hdr *)(ip + 1);
		u->dgram_len = rte_cpu_to_be_16((uint16_t)(len - 14 - 20));
	} else {
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(eth + 1);
		ip->vtc_flow = RTE_BE32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16((uint16_t)(len - 14 - 40));
		ip->proto = IPPROTO_UDP;
		ip->hop_limits = 64;
		memcpy(ip->src_addr, src, 16);
		memcpy(ip->dst_addr, dst, 16);
		u = (struct rte_udp_hdr *)(ip + 1);
		u->dgram_len = ip->payload_len;
	}
	u->src_port = rte_cpu_to_be_16(sport);
	u->dst_port = RTE_BE16(5000);
}

void
udp_frame(struct rte_mbuf *m, uint8_t family, const struct rte_ether_addr *dmac,
	  const struct rte_ether_addr *smac, const uint8_t *src, const uint8_t *dst, uint16_t sport)
{
	udp_frame_sized(m, family, dmac, smac, src, dst, sport, 64);
}
