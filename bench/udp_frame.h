/* SPDX-License-Identifier: BSD-3-Clause */
/* The benchmarks' test packet: a 64-byte UDP frame (60 bytes in the mbuf,
 * plus the FCS the wire adds), IPv4 or IPv6. */
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

#endif
