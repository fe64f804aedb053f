/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The routing protocols' peers (datapath/peers.h): learnt from what the
 * router's own stack sends through the control-plane ports. A unicast
 * frame Linux writes to a TAP that carries a routing protocol's packet
 * (BGP's TCP, to or from port 179, BFD, OSPF's unicast packets: what
 * rt_exc_class_hdr calls the protocols') makes its destination a peer, or
 * keeps it one; a peer nobody on the router has sent to for PEER_HOLD_MS
 * is forgotten (a BGP session sends a keepalive a minute at least), and
 * when RT_PEERS_MAX are known the one sent to longest ago makes room. So
 * a packet with BGP's headers earns the protocols' class only from an
 * address a daemon here talks to; a spoofed flood of port-179 segments
 * from elsewhere goes with the rest of the router's traffic, counted as
 * proto_strangers.
 *
 * Each change is published as a new table (peers.h: the workers read it
 * with no lock), the old one freed after a QSBR grace period. Changes
 * are rare (a peer appears or is forgotten), a refresh only a time
 * stamp. Control core only.
 */
#include <stdlib.h>
#include <string.h>

#include "ctl_priv.h"
#include "defer.h"

#define PEER_HOLD_MS (10 * 60 * 1000)
#define SWEEP_MS 1000

static struct {
	uint8_t family;
	uint8_t addr[16];
	uint64_t seen_ms;
} learnt[RT_PEERS_MAX];
static unsigned int nb_learnt;
static struct defer gone; /* tables the workers may still read */
static uint64_t next_sweep;

static void
table_free(void *ctx, uint32_t arg)
{
	(void)arg;
	free(ctx);
}

/* A table of what is learnt, in place of the one in force. */
static void
publish(struct router *r)
{
	struct rt_peer_table *t = calloc(1, sizeof(*t));
	if (t == NULL || defer_reserve(&gone, 1) < 0) {
		free(t);
		RT_LOG(ERR, control, "routing peers: out of memory: the table in force kept");
		return;
	}
	for (unsigned int i = 0; i < nb_learnt; i++)
		rt_peer_table_add(t, learnt[i].family, learnt[i].addr);
	struct rt_peer_table *old = r->dp.peers;
	__atomic_store_n(&r->dp.peers, t, __ATOMIC_RELEASE);
	if (old != NULL)
		defer_push(&gone, table_free, old, 0);
}

void
rt_peers_learn(struct router *r, const uint8_t *f, uint32_t len)
{
	if (len < RTE_ETHER_HDR_LEN + 20 || (f[0] & 1) != 0 ||
	    rt_exc_class_hdr(f, len) != RT_EXC_PROTO)
		return; /* not a routing protocol's, or to a group */
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	bool v4 = f[12] == 0x08;
	uint8_t family = v4 ? FIB_AF_INET : FIB_AF_INET6;
	const uint8_t *dst = v4 ? ip + 16 : ip + 24;
	unsigned int alen = v4 ? 4 : 16, oldest = 0;
	uint64_t now = rt_now_ms();
	for (unsigned int i = 0; i < nb_learnt; i++) {
		if (learnt[i].family == family && memcmp(learnt[i].addr, dst, alen) == 0) {
			learnt[i].seen_ms = now;
			return;
		}
		if (learnt[i].seen_ms < learnt[oldest].seen_ms)
			oldest = i;
	}
	unsigned int at = nb_learnt < RT_PEERS_MAX ? nb_learnt++ : oldest;
	learnt[at].family = family;
	memset(learnt[at].addr, 0, sizeof(learnt[at].addr));
	memcpy(learnt[at].addr, dst, alen);
	learnt[at].seen_ms = now;
	r->ctr[RT_CTR_PEERS_LEARNT]++;
	publish(r);
}

/* Each round: the tables no worker can see any more freed; once a
 * second, the peers not sent to for PEER_HOLD_MS forgotten. */
static uint64_t
round_hook(struct router *r, uint64_t now)
{
	defer_reclaim(&gone);
	if (now < next_sweep)
		return gone.count ? now + 1 : next_sweep;
	next_sweep = now + SWEEP_MS;
	unsigned int kept = 0;
	for (unsigned int i = 0; i < nb_learnt; i++)
		if (now - learnt[i].seen_ms < PEER_HOLD_MS)
			learnt[kept++] = learnt[i];
	if (kept != nb_learnt) {
		r->ctr[RT_CTR_PEERS_FORGOTTEN] += nb_learnt - kept;
		nb_learnt = kept;
		publish(r);
	}
	return gone.count ? now + 1 : next_sweep;
}

unsigned int
rt_peers_count(void)
{
	return nb_learnt;
}

int
rt_peers_init(struct router *r)
{
	defer_init(&gone, r->dp.qsbr);
	return rt_loop_on_round(round_hook);
}

void
rt_peers_fini(struct router *r)
{
	defer_fini(&gone);
	free(r->dp.peers);
	r->dp.peers = NULL;
	nb_learnt = 0;
}
