/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Publishing a nexthop to the workers. Each worker has its own line per
 * nexthop; the control core writes every worker's copy.
 *
 * The headers are the only fields that change while workers may read
 * them (a neighbour resolves, changes MAC or fails; a port's MAC
 * changes; a port goes down or up). A valid header says three things at
 * once: the nexthop is a gateway, its neighbour is resolved and its port
 * is up, so the datapath's common case is one test. Each header is a
 * 16-byte slot written with one aligned 16-byte store and read with one
 * aligned 16-byte load; processors with AVX perform
 * those atomically (Intel SDM vol. 3A, 9.1.1; AMD APM vol. 2, 7.3.2), so
 * a worker sees the old header or the new one whole, valid flag included.
 * The other fields (type, port, MTU) are set before the index is first
 * handed out, when no worker can be reading it; the group bucket pointer
 * is published with a release store (group.c).
 */
#include <string.h>

#include "nh_priv.h"

#define ETHERTYPE_IPV4 0x0800
#define ETHERTYPE_IPV6 0x86dd
#define ETHER_HDR_LEN 14 /* destination, source, ethertype */

static void
hdr_store(uint8_t slot[16], __m128i v)
{
	/* VMOVDQA, written out so that the compiler cannot split it. */
	__asm__ volatile("vmovdqa %1, %0" : "=m"(*(__m128i *)slot) : "x"(v) : "memory");
}

static __m128i
hdr_build(const uint8_t dst[6], const uint8_t src[6], uint16_t ethertype, bool valid)
{
	uint8_t b[16] = {0};
	memcpy(b, dst, 6);
	memcpy(b + 6, src, 6);
	b[12] = (uint8_t)(ethertype >> 8);
	b[13] = (uint8_t)ethertype;
	b[14] = valid ? NH_HDR_VALID : 0;
	return _mm_loadu_si128((const __m128i *)b);
}

void
nh_publish(struct nh_table *t, uint32_t index)
{
	const struct nh_obj *o = &t->obj[index];
	static const uint8_t zero[6];
	const struct nh_port *p = o->spec.port < t->nb_ports ? &t->ports[o->spec.port] : NULL;
	bool port_ok = p != NULL && p->set;
	bool valid =
		o->in_use && o->spec.type == NH_T_GATEWAY && o->resolved && port_ok && !p->down;
	const uint8_t *src = port_ok ? p->mac : zero, *dst = valid ? o->mac : zero;
	__m128i h4 = hdr_build(dst, src, ETHERTYPE_IPV4, valid);
	__m128i h6 = hdr_build(dst, src, ETHERTYPE_IPV6, valid);
	uint16_t mtu = port_ok ? p->mtu : t->conf.default_mtu;
	/* Frames are at most 65535 bytes long: an MTU above 65521 allows any. */
	uint16_t frame_max =
		mtu > UINT16_MAX - ETHER_HDR_LEN ? UINT16_MAX : (uint16_t)(mtu + ETHER_HDR_LEN);

	for (uint16_t w = 0; w < t->conf.nb_workers; w++) {
		struct nh_dp *d = &t->view[w][index];
		__atomic_store_n(&d->type, o->in_use ? o->spec.type : NH_T_UNUSED,
				 __ATOMIC_RELAXED);
		__atomic_store_n(&d->port, o->spec.port, __ATOMIC_RELAXED);
		__atomic_store_n(&d->mtu, mtu, __ATOMIC_RELAXED);
		__atomic_store_n(&d->frame_max, frame_max, __ATOMIC_RELAXED);
		hdr_store(d->hdr4, h4);
		hdr_store(d->hdr6, h6);
	}
}
