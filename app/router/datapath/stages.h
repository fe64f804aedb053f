/* SPDX-License-Identifier: BSD-3-Clause */
/* The family stages a worker runs on each received burst (classify.c
 * calls them; private to datapath/). */
#ifndef ROUTER_DP_STAGES_H
#define ROUTER_DP_STAGES_H

#include "datapath.h"

/* ipv4.c and ipv6.c are compiled twice: for the build's target (_base)
 * and, on x86-64, for x86-64-v4 (_avx512, where x8.h's eight-at-a-time
 * steps exist); the stages run the variant of the FIB's choice
 * (fib_isa_avx512), made when routerd starts. */
#ifdef DP_ISA_AVX512
#define DP_ISA(name) name##_avx512
#else
#define DP_ISA(name) name##_base
#endif

/*
 * Packets of a burst received on `port`, with the address of each one's
 * frame (its Ethernet header, at the data offset), which dp_burst reads
 * once. Every packet the stages keep is forwarded, punted or dropped.
 *
 * dp4_burst and dp6_burst take frames not yet classified: each checks
 * the frames in its validation pass and keeps those of its family sent
 * to the port's own address; the others it hands back, in order, in
 * rest/rest_frames (which may be pkts/frames themselves), and returns
 * how many. The _l2group stages take frames of their family sent to a
 * link-layer group address: their packets are delivered locally or
 * dropped, never forwarded.
 */
#define DP_ISA_FUNCTIONS(sfx)                                                                      \
	unsigned int dp4_burst##sfx(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,    \
				    struct rte_mbuf **pkts, uint8_t **frames, unsigned int n,      \
				    struct rte_mbuf **rest, uint8_t **rest_frames);                \
	unsigned int dp6_burst##sfx(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,    \
				    struct rte_mbuf **pkts, uint8_t **frames, unsigned int n,      \
				    struct rte_mbuf **rest, uint8_t **rest_frames);                \
	void dp4_burst_l2group##sfx(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,    \
				    struct rte_mbuf **pkts, uint8_t **frames, unsigned int n);     \
	void dp6_burst_l2group##sfx(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,    \
				    struct rte_mbuf **pkts, uint8_t **frames, unsigned int n);
DP_ISA_FUNCTIONS(_base)
#ifdef DP_ISA_HAVE_AVX512
DP_ISA_FUNCTIONS(_avx512)
#define DP_ISA_CALL(f, args) (fib_isa_avx512() ? f##_avx512 args : f##_base args)
#else
#define DP_ISA_CALL(f, args) f##_base args
#endif

static inline unsigned int
dp4_burst(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	  uint8_t **frames, unsigned int n, struct rte_mbuf **rest, uint8_t **rest_frames)
{
	return DP_ISA_CALL(dp4_burst, (dp, w, port, pkts, frames, n, rest, rest_frames));
}

static inline unsigned int
dp6_burst(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	  uint8_t **frames, unsigned int n, struct rte_mbuf **rest, uint8_t **rest_frames)
{
	return DP_ISA_CALL(dp6_burst, (dp, w, port, pkts, frames, n, rest, rest_frames));
}

static inline void
dp4_burst_l2group(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n)
{
	DP_ISA_CALL(dp4_burst_l2group, (dp, w, port, pkts, frames, n));
}

static inline void
dp6_burst_l2group(const struct rt_dp *dp, struct rt_worker *w, uint16_t port,
		  struct rte_mbuf **pkts, uint8_t **frames, unsigned int n)
{
	DP_ISA_CALL(dp6_burst_l2group, (dp, w, port, pkts, frames, n));
}

#endif
