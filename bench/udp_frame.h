/* SPDX-License-Identifier: BSD-3-Clause */
/* The benchmarks' test packet: a UDP frame, 64 bytes unless sized (60
 * bytes in the mbuf, plus the FCS the wire adds), IPv4 or IPv6. A 64-byte
 * IPv6 frame has no room for the whole UDP header: its lengths say 6 bytes
 * and it ends there, which an L3 forwarder does not look at. */
#ifndef BENCH_UDP_FRAME_H
#define BENCH_UDP_FRAME_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>

/* Append the frame to an empty mbuf. Addresses in network byte order,
 * 4 or 16 bytes by family (FIB_AF_INET, FIB_AF_INET6); TTL 64. */
void udp_frame(struct rte_mbuf *m, uint8_t family, const struct rte_ether_addr *dmac,
	       const struct rte_ether_addr *smac, const uint8_t *src, const uint8_t *dst,
	       uint16_t sport);

/* The same, SIZE bytes on the wire (FCS included, 64..1518). */
void udp_frame_sized(struct rte_mbuf *m, uint8_t family, const struct rte_ether_addr *dmac,
		     const struct rte_ether_addr *smac, const uint8_t *src, const uint8_t *dst,
		     uint16_t sport, uint16_t size);

#endif
