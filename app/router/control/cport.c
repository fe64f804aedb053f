/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control-plane ports' traffic (docs/control-plane.md); their devices
 * are tap.c's. Low rate, control core only: the workers never see a TAP.
 *
 * Punt (port -> Linux): a packet for the router that routerd does not
 * answer itself (TCP and UDP: BGP, BFD, SSH; OSPF, VRRP and other
 * protocols; ICMP other than echo requests, such as the replies to a
 * shell's ping; link-local multicast beyond neighbour and router
 * discovery) is written to the TAP of the port it came in on, within a
 * token bucket per port for the routing protocols' packets and another
 * for the rest, so a flood at a router address costs the control core a
 * bounded share, other ports nothing, and a BGP session on the same port
 * nothing either. The routing protocols' bucket (and exception ring) is
 * for the peers the router's stack talks to (peers.c): the frames it
 * writes to the TAPs teach them.
 *
 * A TAP deleted under routerd (ip link del port0) is noticed at once (its
 * descriptor reports an error for ever after) and made again a second
 * later, as it was; the kernel's routes through it went with it, so the
 * mirror dumps the tables again.
 *
 * Inject (Linux -> port): each frame the kernel writes to a TAP is
 * checked (rt_cport_frame_class, cport_frame.c); a unicast IP packet is routed by
 * routerd as if it had made it (rt_output: its FIB, its neighbours, no
 * ICMP error about it), a multicast or broadcast frame (OSPF hellos, a
 * daemon's router advertisements, IGMP and MLD) leaves the paired port
 * unchanged.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "cport_frame.h"
#include "ctl_priv.h"

/* Frames taken from one TAP a round: the loop goes on to its other work
 * and comes back (epoll is level-triggered). */
#define INJECT_PER_ROUND 64
#define REMAKE_MS 1000 /* how long after its deletion a TAP is made again */

/* A punt token, if the bucket of m's kind has one (the routing
 * protocols', or the rest's): punt_rate a second each, a tenth of that
 * (at least 32) at once. */
static bool
punt_token(struct router *r, struct rt_cport *c, unsigned int k)
{
	uint64_t now = rt_now_ms(), rate = r->conf.punt_rate;
	uint64_t burst = rate / 10 > 32 ? rate / 10 : 32;
	if (now > c->bucket[k].last_ms) {
		c->bucket[k].milli += (now - c->bucket[k].last_ms) * rate;
		if (c->bucket[k].milli > burst * 1000)
			c->bucket[k].milli = burst * 1000;
		c->bucket[k].last_ms = now;
	}
	if (c->bucket[k].milli < 1000)
		return false;
	c->bucket[k].milli -= 1000;
	return true;
}

bool
rt_cport_punt(struct router *r, struct rte_mbuf *m, uint16_t in)
{
	if (in >= r->dp.nb_ports || r->cport[in].ifindex == 0)
		return false;
	struct rt_cport *c = &r->cport[in];
	bool stranger;
	unsigned int k = rt_exc_class_local(r->dp.peers, rte_pktmbuf_mtod(m, const uint8_t *),
					    rte_pktmbuf_data_len(m), &stranger) == RT_EXC_PROTO
				 ? 0
				 : 1;
	if (!punt_token(r, c, k)) {
		if (k == 0)
			c->st.punt_limited_proto++;
		else
			c->st.punt_limited++;
		rte_pktmbuf_free(m);
		return true;
	}
	/* A reassembled datagram is a chain: one write of its segments. */
	struct iovec iov[16];
	int n = 0;
	for (struct rte_mbuf *s = m; s != NULL && n < (int)RTE_DIM(iov); s = s->next, n++) {
		iov[n].iov_base = rte_pktmbuf_mtod(s, void *);
		iov[n].iov_len = rte_pktmbuf_data_len(s);
	}
	if (n == (int)RTE_DIM(iov) || writev(c->fd, iov, n) < 0)
		c->st.punt_dropped++; /* the TAP's queue is full, or it is down */
	else
		c->st.punted++;
	rte_pktmbuf_free(m);
	return true;
}

static void
inject(struct router *r, uint16_t port, struct rte_mbuf *m)
{
	struct rt_cport *c = &r->cport[port];
	/* A routing protocol's packet to a peer: the peer's earn its class. */
	rt_peers_learn(r, rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m));
	switch (rt_cport_frame_class(rte_pktmbuf_mtod(m, const uint8_t *), rte_pktmbuf_data_len(m),
				     r->dp.port[port].mtu)) {
	case RT_CPF_UNICAST:
		c->st.injected++;
		rt_output(r, m, port);
		return;
	case RT_CPF_GROUP:
		c->st.injected_group++;
		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->src_addr = r->dp.port[port].mac;
		rt_ctl_tx(r, port, m);
		return;
	case RT_CPF_SHORT:
	case RT_CPF_BAD_IP:
		c->st.inject_bad++;
		break;
	case RT_CPF_LONG:
		c->st.inject_long++;
		break;
	case RT_CPF_ETHERTYPE:
		c->st.inject_ethertype++;
		break;
	}
	rte_pktmbuf_free(m);
}

/* The TAP is gone (deleted by hand): its descriptor, which would wake
 * the loop for ever, closed; made again in REMAKE_MS. */
static void
cport_gone(struct router *r, uint16_t port)
{
	struct rt_cport *c = &r->cport[port];
	RT_LOG(WARNING, control, "%s: control-plane port %s was deleted: made again in %u ms",
	       r->dp.port[port].name, c->name, REMAKE_MS);
	rt_loop_unwatch(&c->w);
	rt_tap_close(r, port);
	c->remake_ms = rt_now_ms() + REMAKE_MS;
	rt_mirror_resync_soon();
}

static void
cport_ready(struct router *r, struct rt_watch *w, uint32_t events)
{
	struct rt_cport *c = (struct rt_cport *)((char *)w - offsetof(struct rt_cport, w));
	uint16_t port = (uint16_t)(c - r->cport);
	if (events & (EPOLLERR | EPOLLHUP)) {
		cport_gone(r, port);
		return;
	}
	for (unsigned int i = 0; i < INJECT_PER_ROUND; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(r->pool);
		if (m == NULL) {
			c->st.inject_nombuf++;
			return;
		}
		uint16_t room = rte_pktmbuf_tailroom(m);
		ssize_t len = read(c->fd, rte_pktmbuf_mtod(m, void *), room);
		if (len <= 0) {
			rte_pktmbuf_free(m);
			if (len < 0 && (errno == EBADFD || errno == EIO))
				cport_gone(r, port);
			return; /* EAGAIN: nothing more */
		}
		/* A frame that filled the buffer may have been cut: too long. */
		rte_pktmbuf_append(m, (uint16_t)len);
		if ((size_t)len >= room) {
			c->st.inject_long++;
			rte_pktmbuf_free(m);
			continue;
		}
		inject(r, port, m);
	}
}

/* TAPs deleted under routerd, made again when due. Wants a round then. */
static uint64_t
remake_hook(struct router *r, uint64_t now)
{
	uint64_t due = UINT64_MAX;
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		struct rt_cport *c = &r->cport[p];
		if (c->remake_ms == 0)
			continue;
		if (now < c->remake_ms) {
			due = RTE_MIN(due, c->remake_ms);
			continue;
		}
		c->w = (struct rt_watch){.ready = cport_ready};
		int rc = rt_tap_open(r, p);
		if (rc == 0 && (c->w.fd = c->fd, rc = rt_loop_watch(&c->w, EPOLLIN)) == 0) {
			c->remake_ms = 0;
			c->st.remade++;
			RT_LOG(NOTICE, control, "%s: control-plane port %s made again (ifindex %d)",
			       r->dp.port[p].name, c->name, c->ifindex);
			rt_tap_default_route(r);
			rt_mirror_resync_soon();
			continue;
		}
		rt_tap_close(r, p);
		c->remake_ms = now + REMAKE_MS;
		due = RTE_MIN(due, c->remake_ms);
		RT_LOG(ERR, control, "%s: control-plane port %s not made again: %s; tried again",
		       r->dp.port[p].name, c->name, strerror(-rc));
	}
	return due;
}

int
rt_cport_init(struct router *r)
{
	int rc = rt_tap_init(r);
	if (rc < 0)
		return rc;
	if (r->conf.control_ports &&
	    ((rc = rt_loop_on_round(remake_hook)) < 0 || (rc = rt_peers_init(r)) < 0))
		return rc;
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		struct rt_cport *c = &r->cport[p];
		if (c->ifindex == 0)
			continue;
		c->w = (struct rt_watch){.fd = c->fd, .ready = cport_ready};
		if ((rc = rt_loop_watch(&c->w, EPOLLIN)) < 0)
			return rc;
	}
	return 0;
}

void
rt_cport_fini(struct router *r)
{
	for (uint16_t p = 0; p < r->dp.nb_ports; p++)
		if (r->cport[p].ifindex != 0)
			rt_loop_unwatch(&r->cport[p].w);
	rt_tap_fini(r);
	rt_peers_fini(r);
}
