/* SPDX-License-Identifier: BSD-3-Clause */
/* The check of frames from a control-plane port's TAP (cport_frame.c). */
#ifndef ROUTER_CPORT_FRAME_H
#define ROUTER_CPORT_FRAME_H

#include <stddef.h>
#include <stdint.h>

enum rt_cport_frame {
	RT_CPF_UNICAST, /* an IP packet to route */
	RT_CPF_GROUP,   /* a multicast or broadcast frame, sent as it is */
	RT_CPF_SHORT,   /* shorter than an Ethernet header, or its IP header */
	RT_CPF_LONG,    /* longer than the port's MTU allows */
	RT_CPF_ETHERTYPE,
	RT_CPF_BAD_IP, /* an IP header that does not hold together */
};

/* What the len bytes at f are, for a port of MTU mtu. */
enum rt_cport_frame rt_cport_frame_class(const uint8_t *f, size_t len, uint16_t mtu);

#endif
