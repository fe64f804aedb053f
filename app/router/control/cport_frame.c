/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a frame from a control-plane port's TAP is: an IP packet to route,
 * a group frame to send as it is, or something to refuse. It comes from
 * the kernel of routerd's own machine, but whatever wrote to the TAP is
 * checked as any input is: this reads only the bytes given, and lets
 * through only an IPv4 or IPv6 header that fits the frame and the port's
 * MTU (tests/unit/router/test_cport.c fuzzes it).
 */
#include <stddef.h>
#include <stdint.h>

#include <rte_ether.h>

#include "cport_frame.h"

enum rt_cport_frame
rt_cport_frame_class(const uint8_t *f, size_t len, uint16_t mtu)
{
	if (len < RTE_ETHER_HDR_LEN)
		return RT_CPF_SHORT;
	if (len > RTE_ETHER_HDR_LEN + (size_t)mtu)
		return RT_CPF_LONG;
	uint16_t type = (uint16_t)(f[12] << 8 | f[13]);
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	size_t l3 = len - RTE_ETHER_HDR_LEN;
	if (type == RTE_ETHER_TYPE_IPV4) {
		if (l3 < 20)
			return RT_CPF_SHORT;
		unsigned int ihl = (ip[0] & 0xfu) * 4;
		if (ip[0] >> 4 != 4 || ihl < 20 || ihl > l3 || (size_t)(ip[2] << 8 | ip[3]) > l3 ||
		    (size_t)(ip[2] << 8 | ip[3]) < ihl)
			return RT_CPF_BAD_IP;
	} else if (type == RTE_ETHER_TYPE_IPV6) {
		if (l3 < 40)
			return RT_CPF_SHORT;
		if (ip[0] >> 4 != 6 || 40 + (size_t)(ip[4] << 8 | ip[5]) > l3)
			return RT_CPF_BAD_IP;
	} else {
		return RT_CPF_ETHERTYPE;
	}
	return f[0] & 1 ? RT_CPF_GROUP : RT_CPF_UNICAST;
}
