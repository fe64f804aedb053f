/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel route mirror's rtnetlink side (mirror.c applies what it
 * reads): the notification socket in the control loop, a budget of
 * datagrams a round; the dumps at start and after a lost notification,
 * on a second, blocking socket, and the sweep of the mirror's routes a
 * dump did not show.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/nexthop.h>
#include <linux/rtnetlink.h>

#include "ctl_priv.h"
#include "mirror_priv.h"
/* Every message in the len bytes at buf (a datagram from rtnetlink).
 * @return 1 at the end of a dump, -errno for a dump's error, else 0. */
static int
datagram(struct router *r, const uint8_t *buf, size_t len)
{
	size_t at = 0;
	while (at + sizeof(struct nlmsghdr) <= len) {
		struct nlmsghdr h;
		memcpy(&h, buf + at, sizeof(h));
		if (h.nlmsg_len < sizeof(h) || h.nlmsg_len > len - at) {
			r->mirror.malformed++;
			return 0;
		}
		const struct nlmsghdr *hp = (const struct nlmsghdr *)(buf + at);
		if (h.nlmsg_type == NLMSG_DONE)
			return 1;
		if (h.nlmsg_type == NLMSG_ERROR) {
			struct nlmsgerr e;
			if (h.nlmsg_len >= NLMSG_LENGTH(sizeof(e))) {
				memcpy(&e, NLMSG_DATA(hp), sizeof(e));
				if (e.error != 0)
					return e.error;
			}
			return 1;
		}
		rt_mirror_message(r, hp);
		at += NLMSG_ALIGN(h.nlmsg_len);
	}
	return 0;
}

static uint8_t rxbuf[1 << 16] __attribute__((aligned(8)));

/* Dump one kind of object (RTM_GETROUTE of a family, RTM_GETNEXTHOP) and
 * apply it, on the blocking request socket. @return 0 or -errno. */
static int
dump(struct router *r, uint16_t type, uint8_t family)
{
	struct {
		struct nlmsghdr n;
		union {
			struct rtmsg rt;
			struct nhmsg nh;
		} u;
	} req;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_len =
		NLMSG_LENGTH(type == RTM_GETNEXTHOP ? sizeof(struct nhmsg) : sizeof(struct rtmsg));
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	static uint32_t seq;
	req.n.nlmsg_seq = ++seq;
	if (type == RTM_GETNEXTHOP)
		req.u.nh.nh_family = family;
	else
		req.u.rt.rtm_family = family;
	if (send(rt_mirror.dump, &req, req.n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		ssize_t len = recv(rt_mirror.dump, rxbuf, sizeof(rxbuf), 0);
		if (len < 0)
			return errno == EINTR ? 0 : -errno;
		int rc = datagram(r, rxbuf, (size_t)len);
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
}

/* The kernel's tables as they are now: every route installed or kept,
 * then the mirror's routes it did not see withdrawn. */
static void
resync(struct router *r)
{
	int rc = dump(r, RTM_GETNEXTHOP, AF_UNSPEC);
	if (rc < 0 && rc != -EOPNOTSUPP && rc != -EINVAL)
		RT_LOG(WARNING, control, "kernel nexthop objects: dump failed: %s", strerror(-rc));
	rt_mirror.gen++; /* what the dumps install or keep is marked with it */
	if ((rc = dump(r, RTM_GETROUTE, AF_INET)) < 0 ||
	    (rc = dump(r, RTM_GETROUTE, AF_INET6)) < 0) {
		RT_LOG(ERR, control, "kernel routes: dump failed (%s): tried again", strerror(-rc));
		rt_mirror.resync = true;
		return;
	}
	for (size_t i = 0; i < rt_mirror.own.cap; i++) {
		struct mset_entry *e = &rt_mirror.own.e[i];
		if (e->used && e->gen != rt_mirror.gen) {
			struct mset_key key = e->key;
			rt_mirror_withdraw(r, &key);
			r->mirror.swept++;
			i--;
		}
	}
	r->mirror.resyncs++;
}

/* Notifications, a budget a round; a lost one (ENOBUFS) resynchronises. */
static void
events(struct router *r, struct rt_watch *w, uint32_t ev)
{
	(void)w, (void)ev;
	for (int i = 0; i < 256; i++) {
		ssize_t len = recv(rt_mirror.ev, rxbuf, sizeof(rxbuf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == ENOBUFS) {
				rt_mirror.resync = true;
				continue;
			}
			break;
		}
		datagram(r, rxbuf, (size_t)len);
	}
	if (rt_mirror.resync) {
		rt_mirror.resync = false;
		RT_LOG(NOTICE, control, "kernel routes: notifications lost: resynchronising");
		resync(r);
	}
}

static int
nl_open(bool subscribe)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return -errno;
	struct sockaddr_nl sa = {.nl_family = AF_NETLINK};
	if (subscribe)
		sa.nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
	/* A daemon's full table arrives faster than a round: room for it,
	 * and root may go past the system's limit. */
	int size = 64 << 20;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	int group = RTNLGRP_NEXTHOP;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    (subscribe &&
	     setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &group, sizeof(group)) < 0 &&
	     errno != EINVAL)) {
		int rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

void
rt_mirror_resync_soon(void)
{
	/* Linux removes the routes through an interface set down without a
	 * notification: the next round dumps the tables again. */
	if (rt_mirror.ev >= 0)
		rt_mirror.resync = true;
}

/* A resynchronisation asked for outside the socket's events. */
static void
round_hook(struct router *r, uint64_t now_ms)
{
	(void)now_ms;
	if (rt_mirror.resync && rt_mirror.ev >= 0) {
		rt_mirror.resync = false;
		resync(r);
	}
}

int
rt_mirror_init(struct router *r)
{
	if (!r->conf.control_ports || !r->conf.kernel_routes)
		return 0;
	int rc;
	if ((rt_mirror.ev = nl_open(true)) < 0 || (rt_mirror.dump = nl_open(false)) < 0) {
		rc = rt_mirror.ev < 0 ? rt_mirror.ev : rt_mirror.dump;
		rt_mirror_fini(r);
		return rc;
	}
	rt_mirror.w = (struct rt_watch){.fd = rt_mirror.ev, .ready = events};
	if ((rc = rt_loop_watch(&rt_mirror.w, EPOLLIN)) < 0 ||
	    (rc = rt_loop_on_round(round_hook)) < 0)
		return rc;
	/* Subscribed first, then dumped: a change in between arrives as a
	 * notification after the dump and is applied over it. */
	resync(r);
	return 0;
}

void
rt_mirror_fini(struct router *r)
{
	(void)r;
	if (rt_mirror.ev >= 0) {
		rt_loop_unwatch(&rt_mirror.w);
		close(rt_mirror.ev);
	}
	if (rt_mirror.dump >= 0)
		close(rt_mirror.dump);
	rt_mirror.ev = rt_mirror.dump = -1;
	mset_free(&rt_mirror.own);
	rt_mgroup_fini();
	free(rt_mirror.obj);
	rt_mirror.obj = NULL;
	rt_mirror.obj_cap = rt_mirror.nb_obj = 0;
}
