/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports as links: administratively up or down (the operator's), with or
 * without carrier (the driver's), and their MTU. What a change means for
 * routing: the nexthops' headers (lib/nexthop), the routes through the
 * port (lib/fib's fib_sync_down), the workers' masks, the neighbours.
 * Control core only, but for lsc_event, which runs in EAL's interrupt
 * thread and only marks a port for the control core to read.
 *
 * Carrier is read with rte_eth_link_get_nowait: when the driver raises a
 * link-state-change interrupt (ixgbe does), at once; otherwise every
 * link_poll_ms (memif, ring and null report no interrupt).
 * DPDK 22.11's af_packet and af_xdp drivers report their link up from
 * start to stop whatever their kernel interface does, so for those the
 * carrier is also the interface's own, read when the kernel announces a
 * change of it (below).
 */
#include <errno.h>
#include <string.h>
#include <net/if.h> /* before linux/if.h, which then adds only IFF_LOWER_UP and the like */
#include <linux/if.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_dev.h>
#include <rte_devargs.h>
#include <rte_ethdev.h>
#include <rte_kvargs.h>
#include <rte_rcu_qsbr.h>

#include "ctl_priv.h"

/* Drivers that interrupt are read this often anyway, in case one is lost. */
#define LSC_SAFETY_MS 1000u

static uint32_t lsc_pending; /* bit N: the interrupt thread saw portN change */
static uint32_t kif_pending; /* bit N: the kernel announced a change of portN's interface */

void
rt_fib_sync_down(struct router *r, const char *what)
{
	int rc = fib_sync_down(r->fib);
	if (rc < 0)
		RT_LOG(WARNING, control,
		       "%s: routes whose nexthops came back could not all be installed (%s): "
		       "they stay down until the next change",
		       what, strerror(-rc));
}

/*
 * Bring the workers' masks, the nexthops' headers and the FIB to a port's
 * administrative state and carrier. Going down, the masks change before
 * the headers are withdrawn, so that a worker's slow path says why (and
 * stops touching the port); coming up, after the headers are valid
 * again. Once a port is down, a grace period passes before this returns:
 * no worker is then inside its queues or holds one of its old headers.
 */
static void
settle(struct router *r, uint16_t port, bool admin_up, bool carrier)
{
	struct rt_dp *dp = &r->dp;
	bool was_admin = rt_dp_port_up(dp, port), was_carrier = rt_dp_port_carrier(dp, port);
	bool was_oper = was_admin && was_carrier, oper = admin_up && carrier;
	if (!admin_up && was_admin)
		rt_dp_port_bit_set(&dp->ports_down, port, true);
	if (!carrier && was_carrier)
		rt_dp_port_bit_set(&dp->ports_nocarrier, port, true);
	if (oper != was_oper)
		(void)nh_port_down(r->nh, port, !oper);
	if (admin_up && !was_admin)
		rt_dp_port_bit_set(&dp->ports_down, port, false);
	if (carrier && !was_carrier)
		rt_dp_port_bit_set(&dp->ports_nocarrier, port, false);
	if (admin_up != was_admin || carrier != was_carrier)
		rt_tap_link(r, port, admin_up, carrier);
	if (admin_up != was_admin)
		rt_mirror_resync_soon();
	if (oper == was_oper)
		return;
	if (!oper)
		rte_rcu_qsbr_synchronize(dp->qsbr, RTE_QSBR_THRID_INVALID);
	rt_fib_sync_down(r, dp->port[port].name);
}

/*
 * Ports that are sockets on a kernel interface (net_af_packet, net_af_xdp,
 * named by their devargs' iface=): the interface's index in l->kif, its
 * carrier read by RTM_GETLINK on kif_nl. The carrier is IFF_LOWER_UP,
 * which the kernel sets as the driver reports it (a veth: as soon as both
 * ends are up), not IFF_RUNNING, which follows it later through the
 * kernel's linkwatch work: routerd's own `link set up` finds its carrier
 * at once. An interface that is down, or gone, has none.
 *
 * Changes are not polled for: kif_watch, a second socket in the
 * kernel's RTNLGRP_LINK group, hears of every change of an interface's
 * flags (the carrier among them, as the kernel's linkwatch passes it on:
 * at once, but a second after the previous change for some devices that
 * flap), and the port is read then, and once a second besides, as ports
 * with a link interrupt are. Each answer to RTM_GETLINK is a full link
 * dump: a query every link_poll_ms would cost an idle control core
 * several ms of CPU a second (docs/performance.md).
 */
static int kif_nl = -1;
static struct rt_watch kif_watch = {.fd = -1};

static void
kif_find(struct rt_link *l, uint16_t port)
{
	struct rte_eth_dev_info info;
	l->kif = 0;
	if (rte_eth_dev_info_get(port, &info) != 0 || info.device == NULL ||
	    (strcmp(info.driver_name, "net_af_packet") != 0 &&
	     strcmp(info.driver_name, "net_af_xdp") != 0))
		return;
	const struct rte_devargs *da = rte_dev_devargs(info.device);
	struct rte_kvargs *kv =
		da != NULL && da->args != NULL ? rte_kvargs_parse(da->args, NULL) : NULL;
	const char *name = kv != NULL ? rte_kvargs_get(kv, "iface") : NULL;
	if (name != NULL)
		l->kif = if_nametoindex(name);
	rte_kvargs_free(kv);
}

/* The kernel's interface IFINDEX: 1 up with carrier, 0 not (or gone),
 * -errno no answer. The kernel answers a RTM_GETLINK within the send, so
 * the reply already waits in the socket. */
static int
kif_carrier(unsigned int ifindex)
{
	static uint32_t seq;
	struct {
		struct nlmsghdr h;
		struct ifinfomsg i;
	} q = {
		.h = {.nlmsg_len = sizeof(q),
		      .nlmsg_type = RTM_GETLINK,
		      .nlmsg_flags = NLM_F_REQUEST,
		      .nlmsg_seq = ++seq},
		.i = {.ifi_family = AF_UNSPEC, .ifi_index = (int)ifindex},
	};
	if (send(kif_nl, &q, sizeof(q), 0) < 0)
		return -errno;
	/* Replies to earlier requests that timed out are skipped by seq. */
	uint32_t buf[4096];
	ssize_t len;
	while ((len = recv(kif_nl, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type != RTM_NEWLINK) /* NLMSG_ERROR: no such interface */
				return 0;
			const struct ifinfomsg *i = NLMSG_DATA(h);
			return (i->ifi_flags & (IFF_UP | IFF_LOWER_UP)) == (IFF_UP | IFF_LOWER_UP);
		}
	}
	return len < 0 ? -errno : -EIO;
}

/* The kernel's announcements: mark the ports whose interface changed,
 * for this round's rt_link_timer. A lost announcement (the socket's
 * buffer overran) marks them all. */
static void
kif_ready(struct router *r, struct rt_watch *w, uint32_t events)
{
	(void)events;
	uint32_t buf[2048];
	ssize_t len;
	while ((len = recv(w->fd, buf, sizeof(buf), MSG_DONTWAIT)) != 0) {
		if (len < 0) {
			if (errno == ENOBUFS)
				for (uint16_t p = 0; p < r->dp.nb_ports; p++)
					kif_pending |= (r->link[p].kif != 0 ? 1u : 0u) << p;
			if (errno == EINTR || errno == ENOBUFS)
				continue;
			return;
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
				continue;
			const struct ifinfomsg *i = NLMSG_DATA(h);
			for (uint16_t p = 0; p < r->dp.nb_ports; p++)
				if (r->link[p].kif != 0 && r->link[p].kif == (unsigned int)i->ifi_index)
					kif_pending |= 1u << p;
		}
	}
}

/* Join RTNLGRP_LINK, once any port has a kernel interface. */
static int
kif_watch_start(void)
{
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK};
	kif_watch.fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	kif_watch.ready = kif_ready;
	if (kif_watch.fd < 0)
		return -errno;
	int rc = bind(kif_watch.fd, (struct sockaddr *)&sa, sizeof(sa)) < 0
			 ? -errno
			 : rt_loop_watch(&kif_watch, EPOLLIN);
	if (rc < 0) {
		close(kif_watch.fd);
		kif_watch.fd = -1;
	}
	return rc;
}

/* What the driver (and, under a socket port, the kernel) says of a port now. */
static void
link_read(struct router *r, uint16_t port)
{
	struct rt_link *l = &r->link[port];
	struct rte_eth_link e;
	if (rte_eth_link_get_nowait(port, &e) != 0)
		return;
	l->speed = e.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : e.link_speed;
	l->full_duplex = e.link_duplex == RTE_ETH_LINK_FULL_DUPLEX;
	bool carrier = e.link_status == RTE_ETH_LINK_UP;
	if (carrier && l->kif != 0) {
		int k = kif_carrier(l->kif);
		if (k < 0)
			return; /* no answer this time: as it was */
		carrier = k == 1;
	}
	if (carrier == l->carrier)
		return;
	l->carrier = carrier;
	l->changes++;
	RT_LOG(NOTICE, control, "%s: %s", r->dp.port[port].name,
	       carrier ? "carrier" : "no carrier");
	settle(r, port, rt_dp_port_up(&r->dp, port), carrier);
	/* As Linux on carrier loss: the learnt neighbours go, the
	 * operator's (permanent) stay. */
	if (!carrier)
		neigh_flush(r->neigh, port);
	if (r->hooks.link_changed != NULL)
		r->hooks.link_changed(r, port);
}

void
rt_link_set_up(struct router *r, uint16_t port, bool up)
{
	if (up == rt_dp_port_up(&r->dp, port))
		return;
	RT_LOG(NOTICE, control, "%s: %s", r->dp.port[port].name, up ? "up" : "down");
	if (up)
		rte_eth_dev_set_link_up(port);
	else
		rte_eth_dev_set_link_down(port);
	settle(r, port, up, rt_dp_port_carrier(&r->dp, port));
	/* The carrier may follow (af_packet sets its interface up or down). */
	link_read(r, port);
}

/* Each round: the ports the interrupt thread marked, and those due. */
void
rt_link_timer(struct router *r, uint64_t now_ms)
{
	uint32_t pending = __atomic_exchange_n(&lsc_pending, 0, __ATOMIC_ACQUIRE) | kif_pending;
	kif_pending = 0;
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		struct rt_link *l = &r->link[p];
		if (!(pending >> p & 1) && now_ms < l->next_ms)
			continue;
		uint32_t every = r->conf.link_poll_ms;
		if ((l->lsc || (l->kif != 0 && kif_watch.fd >= 0)) && every < LSC_SAFETY_MS)
			every = LSC_SAFETY_MS;
		l->next_ms = now_ms + every;
		link_read(r, p);
	}
}

uint64_t
rt_link_due(const struct router *r)
{
	uint64_t due = UINT64_MAX;
	for (uint16_t p = 0; p < r->dp.nb_ports; p++)
		due = RTE_MIN(due, r->link[p].next_ms);
	return due;
}

/* EAL's interrupt thread: mark the port, wake the control core. */
static int
lsc_event(uint16_t port, enum rte_eth_event_type type, void *ctx, void *param)
{
	(void)type, (void)ctx, (void)param;
	if (port < RT_MAX_PORTS)
		__atomic_fetch_or(&lsc_pending, 1u << port, __ATOMIC_RELEASE);
	rt_loop_wake(); /* its round runs rt_link_timer */
	return 0;
}

int
rt_link_start(struct router *r)
{
	kif_nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (kif_nl < 0)
		return -errno;
	/* Before the first read, so that no change falls between the two. */
	bool kif_any = false;
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		kif_find(&r->link[p], p);
		kif_any |= r->link[p].kif != 0;
	}
	int rc = kif_any ? kif_watch_start() : 0;
	if (rc < 0)
		RT_LOG(WARNING, control,
		       "the kernel's link announcements cannot be heard (%s): "
		       "the carrier of af_packet and af_xdp ports is polled instead",
		       strerror(-rc));
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		struct rte_eth_dev_info info;
		struct rt_link *l = &r->link[p];
		l->carrier = true; /* as the workers start: read just below */
		if (rte_eth_dev_info_get(p, &info) == 0 && info.dev_flags != NULL &&
		    (*info.dev_flags & RTE_ETH_DEV_INTR_LSC))
			l->lsc = rte_eth_dev_callback_register(p, RTE_ETH_EVENT_INTR_LSC, lsc_event,
							       NULL) == 0;
		link_read(r, p);
		l->changes = 0;
	}
	return 0;
}

int
rt_link_set_mtu(struct router *r, uint16_t port, uint16_t mtu)
{
	struct rt_port *p = &r->dp.port[port];
	if (mtu == p->mtu)
		return 0;
	/* Best effort on the device (virtual ones may refuse); the router
	 * enforces the MTU itself through the nexthops. */
	(void)rte_eth_dev_set_mtu(port, mtu);
	int rc = nh_port_set(r->nh, port, p->mac.addr_bytes, mtu);
	if (rc < 0)
		return rc;
	RT_LOG(NOTICE, control, "%s: mtu %u -> %u", p->name, p->mtu, mtu);
	p->mtu = mtu;
	rt_ra_changed(r, port);
	rt_tap_mtu(r, port);
	return 0;
}
