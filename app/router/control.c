/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control core's loop. It sleeps in epoll_wait for at most 1 ms at a
 * time (so the exception rings are drained within a millisecond without
 * busy-polling), serves the CLI socket and its monitors, runs the
 * neighbour and router advertisement timers and reclaims memory after
 * QSBR grace periods.
 *
 * The socket protocol is lines of text. A request is a CLI command line,
 * optionally starting with "-j" (JSON output), "-4" or "-6". The answer is the
 * command's output lines followed by one status line: ".ok" or
 * ".err MESSAGE". Clients may send many requests without waiting
 * (pipelining); answers come back in order.
 *
 * `monitor [OBJECT...]` turns the connection into a stream: after its
 * ".ok", a line for each change of the objects named (link, address,
 * route, rule, nexthop, neigh; all without any), as ip monitor prints
 * them, until the client goes. Whatever it sends after is ignored.
 *
 * No client can stall the loop or another client: sockets are
 * non-blocking; a line longer than RT_LINE_MAX closes the connection; a
 * client whose unread answers pass RT_OUT_MAX is not read from until it
 * catches up, and is closed if it makes no progress for RT_IDLE_MS; a
 * monitor whose unread events pass RT_OUT_MAX is closed.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_log.h>
#include <rte_ring.h>

#include "router.h"

#define RT_LINE_MAX 4096
#define RT_OUT_MAX (4u << 20)
#define RT_IDLE_MS 30000
#define RT_CLIENTS_MAX 64
#define EXC_PER_TICK 512

struct client {
	int fd;
	char in[RT_LINE_MAX + 1];
	size_t in_len;
	struct rt_buf out;
	size_t out_sent;
	uint64_t last_progress;
	unsigned int monitor; /* enum rt_event bits: a monitor's kinds */
	bool dead;            /* to close once the current round is done */
};

static struct client *clients[RT_CLIENTS_MAX];
static int epfd = -1, listen_fd = -1;

void
rt_ctl_tx(struct router *r, uint16_t port, struct rte_mbuf *m)
{
	m->port = port;
	if (port >= r->nb_ports || rte_ring_sp_enqueue(r->ctl_tx, m) != 0) {
		r->ctl_tx_dropped++;
		rte_pktmbuf_free(m);
	}
}

static int
listen_on(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	/* The socket's directory: /run/router by default. */
	char dir[sizeof(sa.sun_path)];
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
	}
	strcpy(sa.sun_path, path);
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		int e = errno;
		close(fd);
		return -e;
	}
	chmod(path, 0660);
	return fd;
}

static void
client_close(struct client *c)
{
	for (int i = 0; i < RT_CLIENTS_MAX; i++)
		if (clients[i] == c)
			clients[i] = NULL;
	epoll_ctl(epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->out.s);
	free(c);
}

static void
accept_clients(void)
{
	for (;;) {
		int fd = accept4(listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		int slot = -1;
		for (int i = 0; i < RT_CLIENTS_MAX && slot < 0; i++)
			if (clients[i] == NULL)
				slot = i;
		struct client *c = slot >= 0 ? calloc(1, sizeof(*c)) : NULL;
		if (c == NULL) {
			close(fd); /* too many clients */
			continue;
		}
		c->fd = fd;
		c->last_progress = rt_now_ms();
		clients[slot] = c;
		struct epoll_event ev = {.events = EPOLLIN | EPOLLRDHUP, .data.ptr = c};
		epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev);
	}
}

bool
rt_monitoring(unsigned int kind)
{
	for (int i = 0; i < RT_CLIENTS_MAX; i++)
		if (clients[i] != NULL && (clients[i]->monitor & kind) && !clients[i]->dead)
			return true;
	return false;
}

static const struct {
	const char *name, *tag;
	unsigned int kind;
} kinds[] = {{"link", "[LINK]", RT_EV_LINK},          {"address", "[ADDR]", RT_EV_ADDR},
	     {"route", "[ROUTE]", RT_EV_ROUTE},       {"rule", "[RULE]", RT_EV_RULE},
	     {"nexthop", "[NEXTHOP]", RT_EV_NEXTHOP}, {"neigh", "[NEIGH]", RT_EV_NEIGH}};

void
rt_monitor(unsigned int kind, bool deleted, const char *text)
{
	const char *tag = "";
	for (unsigned int k = 0; k < RTE_DIM(kinds); k++)
		if (kinds[k].kind == kind)
			tag = kinds[k].tag;
	for (int i = 0; i < RT_CLIENTS_MAX; i++) {
		struct client *c = clients[i];
		if (c == NULL || !(c->monitor & kind) || c->dead || text == NULL)
			continue;
		/* As ip monitor: the object tagged when several are watched. */
		bool tagged = (c->monitor & (c->monitor - 1)) != 0;
		for (const char *l = text; *l != 0;) {
			const char *nl = strchr(l, '\n');
			int n = nl ? (int)(nl - l) : (int)strlen(l);
			/* A continuation line (indented) belongs to the line
			 * before: no tag, no "Deleted". */
			bool cont = l[0] == ' ' || l[0] == '\t';
			rt_buf_printf(&c->out, "%s%s%s%.*s\n", tagged && !cont ? tag : "",
				      tagged && !cont ? " " : "",
				      deleted && !cont ? "Deleted " : "", n, l);
			l += n + (nl != NULL);
		}
		if (c->out.len - c->out_sent > RT_OUT_MAX)
			c->dead = true; /* a monitor that does not read */
	}
}

/* monitor [OBJECT...]: the kinds named (as ip monitor takes them, also
 * abbreviated), or every kind. @return false for an unknown object. */
static bool
start_monitor(struct client *c, char *args)
{
	unsigned int want = 0;
	for (char *save, *w = strtok_r(args, " \t", &save); w != NULL;
	     w = strtok_r(NULL, " \t", &save)) {
		unsigned int k = strcmp(w, "all") == 0 ? ~0u : 0;
		for (unsigned int i = 0; i < RTE_DIM(kinds) && k == 0; i++)
			if (strncmp(w, kinds[i].name, strlen(w)) == 0 ||
			    (strcmp(w, "neighbour") == 0 && kinds[i].kind == RT_EV_NEIGH) ||
			    (strcmp(w, "addr") == 0 && kinds[i].kind == RT_EV_ADDR))
				k = kinds[i].kind;
		if (k == 0) {
			rt_buf_printf(&c->out,
				      ".err monitor: unknown object '%s' (link, address, "
				      "route, rule, nexthop, neigh, all)\n",
				      w);
			return false;
		}
		want |= k;
	}
	c->monitor = want ? want : ~0u;
	rt_buf_printf(&c->out, ".ok\n");
	return true;
}

static void
run_line(struct router *r, struct client *c, char *line)
{
	size_t n = strlen(line), before = c->out.len;
	if (n > 0 && line[n - 1] == '\r')
		line[n - 1] = 0;
	if (c->monitor)
		return; /* a stream now: what it sends is ignored */
	const char *w = line + strspn(line, " \t");
	if (strncmp(w, "monitor", 7) == 0 && (w[7] == 0 || w[7] == ' ' || w[7] == '\t')) {
		start_monitor(c, (char *)w + 7);
		return;
	}
	char err[256];
	if (rt_cli_exec(r, line, &c->out, err, sizeof(err)) < 0) {
		c->out.len = before; /* a failed command shows only its error */
		rt_buf_printf(&c->out, ".err %s\n", err);
		RT_LOG(DEBUG, control, "'%s': %s", line, err);
	} else {
		rt_buf_printf(&c->out, ".ok\n");
		RT_LOG(DEBUG, control, "'%s': ok", line);
	}
}

/* Write what we can; @return false if the client must go. */
static bool
flush_out(struct client *c)
{
	while (c->out_sent < c->out.len) {
		ssize_t w = send(c->fd, c->out.s + c->out_sent, c->out.len - c->out_sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		c->out_sent += (size_t)w;
		c->last_progress = rt_now_ms();
	}
	c->out.len = c->out_sent = 0;
	return true;
}

static void
update_interest(struct client *c)
{
	uint32_t ev = EPOLLRDHUP;
	if (c->out.len - c->out_sent < RT_OUT_MAX)
		ev |= EPOLLIN; /* backpressure: stop reading a client that does not read */
	if (c->out_sent < c->out.len)
		ev |= EPOLLOUT;
	struct epoll_event e = {.events = ev, .data.ptr = c};
	epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &e);
}

static bool
read_client(struct router *r, struct client *c)
{
	for (int rounds = 0; rounds < 64 && c->out.len - c->out_sent < RT_OUT_MAX; rounds++) {
		ssize_t n = recv(c->fd, c->in + c->in_len, RT_LINE_MAX - c->in_len, MSG_DONTWAIT);
		if (n == 0)
			return false;
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		c->in_len += (size_t)n;
		c->last_progress = rt_now_ms();
		size_t start = 0;
		for (size_t i = 0; i < c->in_len; i++) {
			if (c->in[i] != '\n')
				continue;
			c->in[i] = 0;
			run_line(r, c, c->in + start);
			start = i + 1;
		}
		memmove(c->in, c->in + start, c->in_len - start);
		c->in_len -= start;
		if (c->in_len == RT_LINE_MAX)
			return false; /* an endless line */
	}
	return true;
}

static void
drain_exceptions(struct router *r)
{
	struct rte_mbuf *pkts[64];
	for (unsigned int w = 0; w < r->nb_workers; w++) {
		unsigned int done = 0, n;
		while (done < EXC_PER_TICK &&
		       (n = rte_ring_sc_dequeue_burst(r->worker[w].exc, (void **)pkts, 64, NULL)) >
			       0) {
			for (unsigned int i = 0; i < n; i++)
				rt_exception(r, pkts[i]);
			done += n;
		}
	}
}

int
rt_control_run(struct router *r)
{
	epfd = epoll_create1(EPOLL_CLOEXEC);
	listen_fd = listen_on(r->conf.socket_path);
	if (epfd < 0 || listen_fd < 0) {
		RTE_LOG(ERR, USER1, "control socket %s: %s\n", r->conf.socket_path,
			strerror(listen_fd < 0 ? -listen_fd : errno));
		return -1;
	}
	struct epoll_event ev = {.events = EPOLLIN, .data.ptr = NULL};
	epoll_ctl(epfd, EPOLL_CTL_ADD, listen_fd, &ev);
	uint64_t next_timer = 0, next_touch = 0;
	while (!r->stop) {
		struct epoll_event evs[32];
		int n = epoll_wait(epfd, evs, 32, 1);
		for (int i = 0; i < n; i++) {
			struct client *c = evs[i].data.ptr;
			if (c == NULL) {
				accept_clients();
				continue;
			}
			bool keep = true;
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
				keep = read_client(r, c);
			if (keep)
				keep = flush_out(c);
			/* A client that hung up still gets what it asked for. */
			if (!keep || ((evs[i].events & (EPOLLRDHUP | EPOLLHUP)) &&
				      c->out_sent >= c->out.len)) {
				flush_out(c);
				client_close(c);
				continue;
			}
			update_interest(c);
		}
		drain_exceptions(r);
		uint64_t now = rt_now_ms();
		rt_ra_timer(r, now);
		if (now >= next_touch) {
			rt_neigh_touch_used(r, now);
			rt_reasm_timer(r, now);
			next_touch = now + 1000;
		}
		if (now >= next_timer) {
			uint64_t due = neigh_timer(r->neigh, now);
			next_timer = due ? due : now + 1000;
			if (next_timer > now + 1000)
				next_timer = now + 1000;
			for (int i = 0; i < RT_CLIENTS_MAX; i++) {
				struct client *c = clients[i];
				if (c != NULL && now - c->last_progress > RT_IDLE_MS &&
				    (c->in_len > 0 || c->out_sent < c->out.len))
					client_close(c); /* stuck mid-line or not reading */
			}
		}
		fib_reclaim(r->fib);
		nh_reclaim(r->nh);
		/* Monitors: events may have been queued for any of them. */
		for (int i = 0; i < RT_CLIENTS_MAX; i++) {
			struct client *c = clients[i];
			if (c == NULL || (!c->monitor && !c->dead))
				continue;
			if (c->dead || (c->out_sent < c->out.len && !flush_out(c)))
				client_close(c);
			else if (c->out.len != 0)
				update_interest(c);
		}
	}
	/* What must go out before the workers stop: worker 0 sends what
	 * the control core queues, so wait (briefly) for the ring to empty. */
	rt_ra_shutdown(r);
	for (int ms = 0; ms < 200 && !rte_ring_empty(r->ctl_tx); ms++)
		rte_delay_us_sleep(1000);
	rte_delay_us_sleep(2000); /* the round that took them flushes them */
	for (int i = 0; i < RT_CLIENTS_MAX; i++)
		if (clients[i] != NULL)
			client_close(clients[i]);
	close(listen_fd);
	unlink(r->conf.socket_path);
	close(epfd);
	return 0;
}
