/* SPDX-License-Identifier: BSD-3-Clause */
/* Reassembly's reading of fragments (reasm_frag.c), for reasm.c alone. */
#ifndef RT_REASM_PRIV_H
#define RT_REASM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;

#define DATA_MAX 65536u /* the most an IP length field lets a datagram carry */

/* What a fragment says about itself. Offsets are from the frame's start. */
struct frag_info {
	uint8_t family; /* 4 or 6 */
	uint8_t proto;  /* IPv4: part of the key; IPv6: the Fragment header's next header */
	uint32_t id;
	const uint8_t *src, *dst;
	uint32_t off, len;   /* where its data goes in the datagram, and how much */
	bool more;           /* more fragments follow */
	uint16_t data_at;    /* its data, after all headers */
	uint16_t nh_at;      /* IPv6: the next-header byte that names the Fragment header */
	uint16_t unfrag_len; /* IP header, plus IPv6 headers before the Fragment header */
};

/* @return 0 and *fi for a fragment (headers within the frame), -1
 * otherwise. Frames from a port are single segments. */
int rt_frag_parse(const struct rte_mbuf *m, struct frag_info *fi);

/* The IP length field's value for a datagram of `data` bytes behind
 * unfrag_len bytes of headers: IPv4's total length, IPv6's payload
 * length (the Fragment header gone). */
uint32_t rt_frag_ip_length(uint8_t family, uint32_t unfrag_len, uint32_t data);

/* Data before the last fragment's that is not a multiple of 8 bytes, or
 * a fragment whose own headers and place pass what a length field can
 * say (the "ping of death"): @return the offset of the field at fault
 * (IPv6 answers with a parameter problem there), or 0. */
uint16_t rt_frag_bad_length(const struct frag_info *fi);

#endif
