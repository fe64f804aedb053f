/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The kernel route mirror's rtnetlink side (mirror.c applies what it
 * reads): the notification socket in the control loop, a budget of
 * datagrams a round; the dumps at start and after a lost notification,
 * on a second socket, read a budget a round too, and the sweep of the
 * mirror's routes a dump did not show.
 */
#include <errno.h>
#include <stdint.h>
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

/* What a resynchronisation dumps, in order: the nexthop objects first,
 * as routes name them. */
static const struct {
	uint16_t type;
	uint8_t family;
} kinds[] = {{RTM_GETNEXTHOP, AF_UNSPEC}, {RTM_GETROUTE, AF_INET}, {RTM_GETROUTE, AF_INET6}};
#define KINDS (sizeof(kinds) / sizeof(kinds[0]))
/* Datagrams of a dump a round (each some hundreds of routes): a full
 * table takes a few hundred rounds, none of them long. */
#define DUMP_BUDGET 16

/* Ask for dump k on the request socket. @return 0 or -errno. */
static int
dump_request(unsigned int k)
{
	struct {
		struct nlmsghdr n;
		union {
			struct rtmsg rt;
			struct nhmsg nh;
		} u;
	} req;
	memset(&req, 0, sizeof(req));
	uint16_t type = kinds[k].type;
	req.n.nlmsg_len =
		NLMSG_LENGTH(type == RTM_GETNEXTHOP ? sizeof(struct nhmsg) : sizeof(struct rtmsg));
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	static uint32_t seq;
	req.n.nlmsg_seq = ++seq;
	if (type == RTM_GETNEXTHOP)
		req.u.nh.nh_family = kinds[k].family;
	else
		req.u.rt.rtm_family = kinds[k].family;
	return send(rt_mirror.dump, &req, req.n.nlmsg_len, 0) < 0 ? -errno : 0;
}

/* The end of a resynchronisation: the mirror's routes the dumps did not
 * show are withdrawn. */
static void
sweep(struct router *r)
{
	for (size_t i = 0; i < rt_mirror.own.cap; i++) {
		struct mset_entry *e = &rt_mirror.own.e[i];
		if (e->used && e->gen != rt_mirror.gen) {
			struct mset_key key = e->key;
			rt_mirror_withdraw(r, &key);
			r->mirror.swept++;
			i--; /* the backward shift may have moved another here */
		}
	}
	r->mirror.resyncs++;
}

/* The notification socket is in the loop's epoll unless a dump is being
 * read (notifications wait for its end, and a readable socket would wake
 * the loop at once every round) or until ev_after_ms: after a read, the
 * next waits for the clock's next millisecond, so that a daemon's burst
 * of changes wakes the control core once a millisecond rather than once
 * a route, which slowed the daemon's own writes to the kernel. */
static void
ev_watch(uint64_t now_ms)
{
	bool on = rt_mirror.dumping < 0 && now_ms >= rt_mirror.ev_after_ms;
	if (on != rt_mirror.ev_on && rt_mirror.ev >= 0 &&
	    rt_loop_rewatch(&rt_mirror.w, on ? EPOLLIN : 0) == 0)
		rt_mirror.ev_on = on;
}

/* The dump being read, k, or none (-1). */
static void
dumping(int k)
{
	rt_mirror.dumping = k;
	ev_watch(rt_now_ms());
}

/* A dump failed: none in progress, and another resynchronisation soon. */
static void
dump_failed(const char *what, int rc)
{
	RT_LOG(ERR, control, "kernel routes: %s (%s): tried again", what, strerror(-rc));
	dumping(-1);
	rt_mirror.resync = true;
}

/* Start dump k, or end the resynchronisation after the last. */
static void
dump_next(struct router *r, unsigned int k)
{
	if (k < KINDS) {
		int rc = dump_request(k);
		if (rc == 0)
			dumping((int)k);
		else
			dump_failed("dump request failed", rc);
		return;
	}
	dumping(-1);
	sweep(r);
}

/*
 * The kernel's tables as they are now: every route installed or kept,
 * then the mirror's routes they did not have withdrawn. The dumps are
 * read a budget a round (resync_step), so a full table does not hold the
 * control core for the second or two it takes; meanwhile notifications
 * wait in their socket and are applied after it, in the order the
 * kernel made them, as a blocking dump would have them.
 */
static void
resync_start(struct router *r)
{
	if (rt_mirror.dumping >= 0)
		return;  /* one in progress: its sweep comes after what it reads */
	rt_mirror.gen++; /* what the dumps install or keep is marked with it */
	dump_next(r, 0);
}

/* Up to budget datagrams of the dump in progress (blocking: wait for
 * each, as at start). */
static void
resync_step(struct router *r, unsigned int budget, bool blocking)
{
	for (unsigned int i = 0; i < budget && rt_mirror.dumping >= 0; i++) {
		ssize_t len =
			recv(rt_mirror.dump, rxbuf, sizeof(rxbuf), blocking ? 0 : MSG_DONTWAIT);
		if (len < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			dump_failed("dump failed", -errno);
			return;
		}
		int rc = datagram(r, rxbuf, (size_t)len);
		unsigned int k = (unsigned int)rt_mirror.dumping;
		if (rc < 0 &&
		    !(kinds[k].type == RTM_GETNEXTHOP && (rc == -EOPNOTSUPP || rc == -EINVAL))) {
			dump_failed("dump failed", rc);
			return;
		}
		if (rc != 0)
			dump_next(r, k + 1);
	}
}

/* Notifications were lost (ENOBUFS): those still queued are dropped
 * unread before the tables are dumped again. Some of them are older than
 * the lost ones: applied after the dump, a stale add would undo a lost
 * delete that the dump already shows. What arrives from here on is newer
 * than anything lost, and is applied after the dump, in order. */
static void
overrun(struct router *r)
{
	for (;;) {
		ssize_t n = recv(rt_mirror.ev, rxbuf, sizeof(rxbuf), MSG_DONTWAIT);
		if (n > 0)
			r->mirror.dropped++;
		else if (n == 0 || errno != ENOBUFS)
			break;
	}
	rt_mirror.resync = true;
}

/* Notifications, a budget a round; a lost one (ENOBUFS) resynchronises.
 * None is read while a dump is in progress (see resync_start). */
static void
events(struct router *r, struct rt_watch *w, uint32_t ev)
{
	(void)w, (void)ev;
	int i;
	for (i = 0; i < 256 && rt_mirror.dumping < 0 && !rt_mirror.resync; i++) {
		ssize_t len = recv(rt_mirror.ev, rxbuf, sizeof(rxbuf), MSG_DONTWAIT);
		if (len < 0) {
			if (errno == ENOBUFS)
				overrun(r);
			break;
		}
		datagram(r, rxbuf, (size_t)len);
	}
	if (i > 0 && i < 256) { /* read them all: the next after a pause */
		uint64_t now = rt_now_ms();
		rt_mirror.ev_after_ms = now + 1;
		ev_watch(now);
	}
	if (rt_mirror.resync && rt_mirror.dumping < 0) {
		rt_mirror.resync = false;
		RT_LOG(NOTICE, control, "kernel routes: notifications lost: resynchronising");
		resync_start(r);
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
		sa.nl_groups = RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE | RTMGRP_LINK;
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

/* The dump socket is readable: the next part of the dump in progress. */
static void
dump_ready(struct router *r, struct rt_watch *w, uint32_t ev)
{
	(void)w, (void)ev;
	if (rt_mirror.dumping >= 0) {
		resync_step(r, DUMP_BUDGET, false);
		return;
	}
	/* an answer to no dump (what a failed one left): dropped, or the
	 * socket would stay readable and wake every round */
	while (recv(rt_mirror.dump, rxbuf, sizeof(rxbuf), MSG_DONTWAIT) >= 0)
		;
}

/* A resynchronisation asked for outside the socket's events, and the
 * dump in progress, a budget a round (what is left makes the dump socket
 * ready again). Wants a round when the notifications' pause ends. */
static uint64_t
round_hook(struct router *r, uint64_t now_ms)
{
	if (rt_mirror.ev < 0)
		return UINT64_MAX;
	ev_watch(now_ms);
	if (rt_mirror.resync && rt_mirror.dumping < 0) {
		rt_mirror.resync = false;
		resync_start(r);
	}
	resync_step(r, DUMP_BUDGET, false);
	return !rt_mirror.ev_on && rt_mirror.dumping < 0 ? rt_mirror.ev_after_ms : UINT64_MAX;
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
	rt_mirror.dw = (struct rt_watch){.fd = rt_mirror.dump, .ready = dump_ready};
	rt_mirror.ev_on = true;
	if ((rc = rt_loop_watch(&rt_mirror.w, EPOLLIN)) < 0 ||
	    (rc = rt_loop_watch(&rt_mirror.dw, EPOLLIN)) < 0 ||
	    (rc = rt_loop_on_round(round_hook)) < 0)
		return rc;
	/* Subscribed first, then dumped: a change in between arrives as a
	 * notification after the dump and is applied over it. The first
	 * dump is read whole: routerd starts with the kernel's routes. */
	resync_start(r);
	resync_step(r, UINT32_MAX, true);
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
	if (rt_mirror.dump >= 0) {
		rt_loop_unwatch(&rt_mirror.dw);
		close(rt_mirror.dump);
	}
	rt_mirror.ev = rt_mirror.dump = -1;
	mset_free(&rt_mirror.own);
	mset_free(&rt_mirror.shadowed);
	rt_mgroup_fini();
	free(rt_mirror.obj);
	rt_mirror.obj = NULL;
	rt_mirror.obj_cap = rt_mirror.nb_obj = 0;
}
