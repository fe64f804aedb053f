/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control-plane ports' devices: a Linux TAP interface per router port,
 * created in routerd's network namespace through the tun driver, carrying
 * the port's MAC, MTU, state and addresses, so that the routing daemons,
 * SSH and ping on the machine see the router's ports as interfaces
 * (docs/control-plane.md). routerd is the one source of truth: it sets
 * the TAP as the port is, and what someone changes on the TAP by hand is
 * not read back.
 *
 * Each TAP is set up so that Linux never acts in routerd's place
 * (docs/control-plane.md, "Settings"): no ARP (IFF_NOARP: the kernel
 * neither answers nor sends ARP or ND on it, and sends unicast frames to
 * the TAP's own MAC, which routerd routes by their IP destination), no
 * address of its own making (IPv6 addr_gen_mode 1, no DAD, no RAs), no
 * reverse-path filter on what routerd hands it.
 *
 * Linux routes the router's own packets (a shell's ping, a daemon's
 * multihop session) by its own table, which holds only the TAPs'
 * connected routes and what the daemons write: routes added with
 * routerctl are routerd's alone. So routerd gives the kernel a default
 * route of each family at the highest metric, through a TAP that is up
 * and has an address of that family (rt_tap_default_route): any route of
 * Linux's own wins, and what no route of Linux's covers goes to routerd,
 * which routes it by its FIB (rt_output) whichever TAP it came by.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "ctl_priv.h"

static int ctl_sock = -1; /* for the interface ioctls */
static int nl_sock = -1;  /* for addresses and routes (rtnetlink) */
/* The TAP each family's default route goes through (-1: none). */
static int default_via[2] = {-1, -1};

static int
ifreq_ioctl(const char *name, unsigned long req, struct ifreq *ifr)
{
	snprintf(ifr->ifr_name, IFNAMSIZ, "%s", name);
	return ioctl(ctl_sock, req, ifr) < 0 ? -errno : 0;
}

static int
set_flag(const char *name, short flag, bool on)
{
	struct ifreq ifr = {0};
	int rc = ifreq_ioctl(name, SIOCGIFFLAGS, &ifr);
	if (rc < 0)
		return rc;
	short want = on ? (short)(ifr.ifr_flags | flag) : (short)(ifr.ifr_flags & ~flag);
	if (want == ifr.ifr_flags)
		return 0;
	ifr.ifr_flags = want;
	return ifreq_ioctl(name, SIOCSIFFLAGS, &ifr);
}

/* A sysctl of the TAP; a missing one (IPv6 off in the namespace) is fine. */
static void
sysctl_set(const char *family, const char *name, const char *key, const char *val)
{
	char path[128];
	snprintf(path, sizeof(path), "/proc/sys/net/%s/conf/%s/%s", family, name, key);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (write(fd, val, strlen(val)) < 0)
		RT_LOG(WARNING, control, "%s: cannot set %s: %s", name, path, strerror(errno));
	close(fd);
}

/* A request to rtnetlink, and its acknowledgement. */
static int
nl_talk(struct nlmsghdr *n)
{
	static uint32_t seq;
	n->nlmsg_seq = ++seq;
	if (send(nl_sock, n, n->nlmsg_len, 0) < 0)
		return -errno;
	char buf[1024];
	for (;;) {
		ssize_t len = recv(nl_sock, buf, sizeof(buf), 0);
		if (len < 0)
			return -errno;
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; NLMSG_OK(h, (size_t)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != seq || h->nlmsg_type != NLMSG_ERROR)
				continue;
			const struct nlmsgerr *e = NLMSG_DATA(h);
			return e->error;
		}
	}
}

/* Append an attribute to the request in buf (room bytes). */
static void
nl_attr(uint8_t *buf, size_t room, uint16_t type, const void *data, size_t len)
{
	struct nlmsghdr *n = (struct nlmsghdr *)buf;
	size_t at = NLMSG_ALIGN(n->nlmsg_len);
	if (at + RTA_SPACE(len) > room)
		return;
	struct rtattr a = {.rta_len = (unsigned short)RTA_LENGTH(len), .rta_type = type};
	memcpy(buf + at, &a, sizeof(a));
	memcpy(buf + at + RTA_LENGTH(0), data, len);
	n->nlmsg_len = (uint32_t)(at + RTA_SPACE(len));
}

int
rt_tap_addr(struct router *r, uint16_t port, const struct fib_prefix *p, bool add)
{
	const struct rt_cport *c = &r->cport[port];
	if (c->ifindex == 0)
		return 0;
	uint8_t req[256] __attribute__((aligned(4))) = {0};
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	n->nlmsg_len = NLMSG_LENGTH(sizeof(struct ifaddrmsg));
	n->nlmsg_type = add ? RTM_NEWADDR : RTM_DELADDR;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (add ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	struct ifaddrmsg ifa = {.ifa_family = p->family == FIB_AF_INET ? AF_INET : AF_INET6,
				.ifa_prefixlen = p->len,
				.ifa_index = (uint32_t)c->ifindex};
	memcpy(req + NLMSG_HDRLEN, &ifa, sizeof(ifa));
	uint8_t a[16];
	size_t alen = 16;
	if (p->family == FIB_AF_INET) {
		uint32_t be = rte_cpu_to_be_32(p->addr.v4);
		memcpy(a, &be, 4);
		alen = 4;
	} else {
		memcpy(a, p->addr.v6, 16);
	}
	/* No duplicate address detection: the address is routerd's, which
	 * answers for it on the wire. */
	uint32_t flags = IFA_F_NODAD | IFA_F_PERMANENT;
	nl_attr(req, sizeof(req), IFA_LOCAL, a, alen);
	nl_attr(req, sizeof(req), IFA_ADDRESS, a, alen);
	nl_attr(req, sizeof(req), IFA_FLAGS, &flags, sizeof(flags));
	int rc = nl_talk(n);
	if (rc < 0 && !(add ? rc == -EEXIST : rc == -EADDRNOTAVAIL))
		RT_LOG(WARNING, control, "%s: address %s on its control-plane port: %s", c->name,
		       add ? "add" : "del", strerror(-rc));
	rt_tap_default_route(r);
	return rc;
}

/* The first port whose TAP is up, with carrier, and has an address of
 * the family (IPv6: a global one, a link-local source reaching no
 * further than its link), or -1. */
static int
default_port(const struct router *r, uint8_t family)
{
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		if (r->cport[p].ifindex == 0 || !rt_link_oper_up(r, p))
			continue;
		for (unsigned int i = 0; i < r->nb_addrs; i++)
			if (r->addr[i].port == p && r->addr[i].p.family == family &&
			    !rt_prefix_link_local(&r->addr[i].p))
				return p;
	}
	return -1;
}

/* Install (replacing) or remove the default route of a family through
 * the TAP of port (-1: remove). */
static int
default_route_set(const struct router *r, uint8_t family, int port)
{
	uint8_t req[128] __attribute__((aligned(4))) = {0};
	struct nlmsghdr *n = (struct nlmsghdr *)req;
	n->nlmsg_len = NLMSG_LENGTH(sizeof(struct rtmsg));
	n->nlmsg_type = port >= 0 ? RTM_NEWROUTE : RTM_DELROUTE;
	n->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (port >= 0 ? NLM_F_CREATE | NLM_F_REPLACE : 0);
	bool v4 = family == FIB_AF_INET;
	struct rtmsg rtm = {.rtm_family = v4 ? AF_INET : AF_INET6,
			    .rtm_table = RT_TABLE_MAIN,
			    .rtm_protocol = RT_TAP_ROUTE_PROTO,
			    .rtm_scope = v4 ? RT_SCOPE_LINK : RT_SCOPE_UNIVERSE,
			    .rtm_type = RTN_UNICAST};
	memcpy(req + NLMSG_HDRLEN, &rtm, sizeof(rtm));
	uint32_t metric = UINT32_MAX; /* any route of Linux's own wins */
	nl_attr(req, sizeof(req), RTA_PRIORITY, &metric, sizeof(metric));
	if (port >= 0) {
		uint32_t oif = (uint32_t)r->cport[port].ifindex;
		nl_attr(req, sizeof(req), RTA_OIF, &oif, sizeof(oif));
	}
	int rc = nl_talk(n);
	return port < 0 && rc == -ESRCH ? 0 : rc; /* gone with its TAP's going down */
}

void
rt_tap_default_route(const struct router *r)
{
	if (nl_sock < 0 || !r->conf.kernel_default_route)
		return;
	for (uint8_t f = 0; f < 2; f++) {
		uint8_t family = f == 0 ? FIB_AF_INET : FIB_AF_INET6;
		int want = default_port(r, family);
		if (want == default_via[f])
			continue;
		int rc = default_route_set(r, family, want);
		if (rc < 0) {
			RT_LOG(WARNING, control,
			       "IPv%c default route for the router's own packets: %s",
			       f == 0 ? '4' : '6', strerror(-rc));
			continue;
		}
		if (want >= 0)
			RT_LOG(INFO, control,
			       "IPv%c: the router's own packets that Linux has no route for go by "
			       "%s",
			       f == 0 ? '4' : '6', r->cport[want].name);
		default_via[f] = want;
	}
}

void
rt_tap_link(struct router *r, uint16_t port, bool admin_up, bool carrier)
{
	struct rt_cport *c = &r->cport[port];
	if (c->ifindex == 0)
		return;
	int on = carrier;
	/* The TAP's carrier is the port's (TUNSETCARRIER): a daemon sees the
	 * link go down as it would a NIC's, and withdraws its routes. */
	if (ioctl(c->fd, TUNSETCARRIER, &on) < 0)
		RT_LOG(DEBUG, control, "%s: carrier: %s", c->name, strerror(errno));
	int rc = set_flag(c->name, IFF_UP, admin_up);
	if (rc < 0)
		RT_LOG(WARNING, control, "%s: cannot set %s: %s", c->name, admin_up ? "up" : "down",
		       strerror(-rc));
	/* Set down, Linux dropped the TAP's IPv6 link-local address (it
	 * keeps the global ones: keep_addr_on_down) and its routes: the
	 * addresses are given again on up, and the default route moves. */
	for (unsigned int i = 0; admin_up && i < r->nb_addrs; i++)
		if (r->addr[i].port == port && rt_prefix_link_local(&r->addr[i].p))
			rt_tap_addr(r, port, &r->addr[i].p, true);
	rt_tap_default_route(r);
}

void
rt_tap_mtu(struct router *r, uint16_t port)
{
	struct rt_cport *c = &r->cport[port];
	struct ifreq ifr = {.ifr_mtu = r->dp.port[port].mtu};
	if (c->ifindex != 0 && ifreq_ioctl(c->name, SIOCSIFMTU, &ifr) < 0)
		RT_LOG(WARNING, control, "%s: cannot set mtu %u", c->name, r->dp.port[port].mtu);
}

int
rt_tap_open(struct router *r, uint16_t port)
{
	struct rt_cport *c = &r->cport[port];
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct ifreq ifr = {.ifr_flags = IFF_TAP | IFF_NO_PI};
	snprintf(ifr.ifr_name, IFNAMSIZ, "%s", c->name);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	c->fd = fd;
	/* Before it is up: no link-local address of the kernel's own making
	 * (routerd's are mirrored), no DAD, no autoconfiguration. */
	sysctl_set("ipv6", c->name, "addr_gen_mode", "1");
	sysctl_set("ipv6", c->name, "accept_dad", "0");
	sysctl_set("ipv6", c->name, "dad_transmits", "0");
	sysctl_set("ipv6", c->name, "accept_ra", "0");
	sysctl_set("ipv6", c->name, "autoconf", "0");
	sysctl_set("ipv6", c->name, "forwarding", "0");
	sysctl_set("ipv6", c->name, "keep_addr_on_down", "1");
	sysctl_set("ipv4", c->name, "forwarding", "0");
	sysctl_set("ipv4", c->name, "rp_filter", "0");
	sysctl_set("ipv4", c->name, "accept_local", "1");
	/* The port's MAC, when it is one a Linux interface may have (a
	 * net_ring port's is all zeros: the TAP keeps its own, which does
	 * not matter, as routerd routes its frames by IP). */
	int rc = 0;
	if (rte_is_valid_assigned_ether_addr(&r->dp.port[port].mac)) {
		memset(&ifr, 0, sizeof(ifr));
		ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
		memcpy(ifr.ifr_hwaddr.sa_data, &r->dp.port[port].mac, 6);
		rc = ifreq_ioctl(c->name, SIOCSIFHWADDR, &ifr);
	}
	if (rc == 0)
		rc = set_flag(c->name, IFF_NOARP, true);
	if (rc == 0) {
		memset(&ifr, 0, sizeof(ifr));
		rc = ifreq_ioctl(c->name, SIOCGIFINDEX, &ifr);
		c->ifindex = ifr.ifr_ifindex;
	}
	if (rc < 0)
		return rc;
	rt_tap_mtu(r, port);
	rt_tap_link(r, port, rt_dp_port_up(&r->dp, port), r->link[port].carrier);
	for (unsigned int i = 0; i < r->nb_addrs; i++) /* those it has already */
		if (r->addr[i].port == port)
			rt_tap_addr(r, port, &r->addr[i].p, true);
	return 0;
}

int
rt_tap_init(struct router *r)
{
	for (uint16_t p = 0; p < RT_MAX_PORTS; p++)
		r->cport[p].fd = -1;
	if (!r->conf.control_ports)
		return 0;
	ctl_sock = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	nl_sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (ctl_sock < 0 || nl_sock < 0)
		return -errno;
	struct timeval tv = {.tv_sec = 1};
	setsockopt(nl_sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		struct rt_cport *c = &r->cport[p];
		/* The port's own name (port0), or the prefix (at most 11
		 * characters) and its number (below RT_MAX_PORTS). */
		char name[32];
		if (r->conf.control_port_prefix[0])
			snprintf(name, sizeof(name), "%s%u", r->conf.control_port_prefix, p);
		else
			memcpy(name, r->dp.port[p].name, sizeof(r->dp.port[p].name));
		name[sizeof(c->name) - 1] = 0;
		memcpy(c->name, name, sizeof(c->name));
		int rc = rt_tap_open(r, p);
		if (rc < 0) {
			RT_LOG(ERR, control, "%s: no control-plane port %s: %s", r->dp.port[p].name,
			       c->name, strerror(-rc));
			rt_tap_close(r, p);
			return rc;
		}
		RT_LOG(INFO, control, "%s: control-plane port %s (ifindex %d)", r->dp.port[p].name,
		       c->name, c->ifindex);
	}
	return 0;
}

void
rt_tap_close(struct router *r, uint16_t port)
{
	struct rt_cport *c = &r->cport[port];
	if (c->fd >= 0)
		close(c->fd); /* the kernel removes a TAP nobody holds */
	c->fd = -1;
	c->ifindex = 0;
}

void
rt_tap_fini(struct router *r)
{
	for (uint16_t p = 0; p < RT_MAX_PORTS; p++)
		rt_tap_close(r, p);
	if (ctl_sock >= 0)
		close(ctl_sock);
	if (nl_sock >= 0)
		close(nl_sock);
	ctl_sock = nl_sock = -1;
	default_via[0] = default_via[1] = -1; /* gone with the TAPs */
}
