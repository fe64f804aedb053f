/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Frames for the control core's fuzzer (ctl_fuzz.c): each class of what
 * reaches the exception path built well-formed from a seed, then often
 * broken as the wire or an attacker breaks it. The router under test has
 * 192.0.2.1/24, 2001:db8:1::1/64 and fe80::1 on port0, 198.51.100.1/24,
 * 2001:db8:2::1/64 and fe80::2 on port1.
 */
#ifndef FUZZ_FRAMES_H
#define FUZZ_FRAMES_H

#include <stdbool.h>
#include <stdint.h>

#define FZ_FRAME_MAX 1514 /* what a port of MTU 1500 delivers */

struct fz_rng {
	uint64_t s;
};

uint64_t fz_next(struct fz_rng *g);
/* A number in [0, n). */
uint32_t fz_below(struct fz_rng *g, uint32_t n);

/* The classes of frames, one a builder. */
enum fz_class {
	FZ_ARP,
	FZ_ND,         /* NS, NA, RS, RA, redirect */
	FZ_ECHO,       /* to the router */
	FZ_ICMP_ERROR, /* quoting anything, to the router or through it */
	FZ_OPTIONS,    /* IPv4 options */
	FZ_EXT_CHAIN,  /* IPv6 extension header chains */
	FZ_FRAGMENT,   /* a piece of a train to the router */
	FZ_L4_LOCAL,   /* TCP and UDP to the router: closed ports, BGP, BFD */
	FZ_FORWARD,    /* through the router: TTL 1, no route, too big */
	FZ_PROTO,      /* OSPF and VRRP, multicast */
	FZ_CLASSES
};

/* Build a frame of class c into f (FZ_FRAME_MAX bytes at least), from
 * the port it is to arrive on (0 or 1); @return its length. Fragments
 * come from trains the builder keeps between calls: their header
 * lengths, orders, overlaps and sizes up to and past 64 KiB vary. */
unsigned int fz_build(struct fz_rng *g, enum fz_class c, unsigned int port, uint8_t *f);

/* Is a (4 or 16 bytes) one of the router's own addresses? */
bool fz_router_addr(const uint8_t *a, bool v6);

/* Break a frame as the wire or an attacker would, sometimes: flipped
 * bytes, a length field, cut short, padded. @return its new length. */
unsigned int fz_mutate(struct fz_rng *g, uint8_t *f, unsigned int len);

#endif
