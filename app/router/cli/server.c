/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerctl's server: a unix stream socket served from the control
 * core's loop (rt_loop_watch).
 *
 * The protocol is lines of text. A request is a command line, optionally
 * starting with "-j" (JSON output), "-s", "-4" or "-6". The answer is the
 * command's output lines followed by one status line: ".ok" or
 * ".err MESSAGE". Clients may send many requests without waiting
 * (pipelining); answers come back in order. `monitor` turns the
 * connection into a stream of events (monitor.c).
 *
 * Who may do what: the socket is created with mode 0660 (never wider,
 * not even for a moment), owned by routerd's user and, with
 * socket-group, by that group. A client's credentials (SO_PEERCRED) are
 * read as it connects: root and routerd's own user may run every
 * command; anyone else the socket lets in (the group) only those that
 * read (show, get, monitor, save, stats, log show). The last
 * CLI_CLIENTS_ROOT of the CLI_CLIENTS_MAX connections are kept for the
 * former, so that no number of readers locks the operator out.
 *
 * No client can stall the loop or another client: sockets are
 * non-blocking; a line longer than CLI_LINE_MAX closes the connection; a
 * client runs at most CLI_LINES_ROUND of its lines a round, and none
 * while its unread answers pass CLI_OUT_MAX (what it sent meanwhile waits
 * in its buffer, and it is not read from); one that makes no progress
 * for CLI_STUCK_MS with a line or an answer pending, or sends nothing
 * for cli-idle-timeout seconds, is closed (monitors excepted). A
 * client that finds every place taken is told so in one ".err" line.
 */
#include <errno.h>
#include <grp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

#define CLI_STUCK_MS 30000
#define CLI_LINES_ROUND 64
#define CLI_CLIENTS_ROOT 8

struct client *cli_clients[CLI_CLIENTS_MAX];
static struct rt_watch listener = {.fd = -1};
static uint64_t next_idle_check;

/* Is another routerd answering at sa? Its socket is then not ours to
 * take over (a second routerd started on the same path by mistake). */
static bool
in_use(const struct sockaddr_un *sa)
{
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool used = fd >= 0 && connect(fd, (const struct sockaddr *)sa, sizeof(*sa)) == 0;
	if (fd >= 0)
		close(fd);
	return used;
}

static int
listen_on(const char *path, const char *group)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	gid_t gid = (gid_t)-1;
	if (group[0] != 0) {
		const struct group *g = getgrnam(group);
		if (g == NULL)
			return -ENOENT;
		gid = g->gr_gid;
	}
	/* The socket's directory: /run/router by default. */
	char dir[sizeof(sa.sun_path)];
	strcpy(dir, path);
	char *slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = 0;
		mkdir(dir, 0755);
	}
	strcpy(sa.sun_path, path);
	if (in_use(&sa))
		return -EADDRINUSE;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	/* Created with its final mode: a chmod after bind would leave a
	 * moment in which the umask's mode lets others connect. */
	mode_t old = umask(0117);
	int rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || (gid != (gid_t)-1 && chown(path, (uid_t)-1, gid) < 0) || listen(fd, 16) < 0) {
		int e = errno;
		close(fd);
		unlink(path);
		return -e;
	}
	return fd;
}

static void
client_close(struct client *c)
{
	for (int i = 0; i < CLI_CLIENTS_MAX; i++)
		if (cli_clients[i] == c)
			cli_clients[i] = NULL;
	rt_loop_unwatch(&c->w);
	close(c->w.fd);
	free(c->out.s);
	free(c);
}

/* Leading options, then "monitor" and its objects: @return true when
 * line asks to monitor, with *args after the word and *json set. */
static bool
monitor_request(char *line, char **args, bool *json)
{
	char *w = line + strspn(line, " \t");
	*json = false;
	while (w[0] == '-') {
		size_t n = strcspn(w, " \t");
		if (n == 2 && w[1] == 'j')
			*json = true;
		w += n;
		w += strspn(w, " \t");
	}
	if (strncmp(w, "monitor", 7) != 0 || (w[7] != 0 && w[7] != ' ' && w[7] != '\t'))
		return false;
	*args = w + 7;
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
	char *args;
	bool json;
	if (monitor_request(line, &args, &json)) {
		cli_monitor_start(c, args, json);
		return;
	}
	char err[256];
	if (rt_cli_exec(r, line, c->may_change, &c->out, err, sizeof(err)) < 0) {
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
		ssize_t w = send(c->w.fd, c->out.s + c->out_sent, c->out.len - c->out_sent,
				 MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		c->out_sent += (size_t)w;
		c->last_progress = rt_now_ms();
	}
	c->out.len = c->out_sent = 0;
	return true;
}

static bool
out_full(const struct client *c)
{
	return c->out.len - c->out_sent >= CLI_OUT_MAX;
}

/* Does c hold a whole line it has not run? */
static bool
line_waiting(const struct client *c)
{
	return memchr(c->in, '\n', c->in_len) != NULL;
}

static void
update_interest(struct client *c)
{
	uint32_t ev = 0;
	/* Backpressure: a client is not read from while it does not read
	 * its answers or has lines waiting; and once it hung up, only what
	 * is owed to it matters (a half-closed socket would wake the loop
	 * for ever). */
	if (!c->hung_up) {
		ev |= EPOLLRDHUP;
		if (!out_full(c) && !line_waiting(c))
			ev |= EPOLLIN;
	}
	if (c->out_sent < c->out.len)
		ev |= EPOLLOUT;
	rt_loop_rewatch(&c->w, ev);
}

/* Run c's whole lines, CLI_LINES_ROUND at most, none once its unsent
 * answers reach CLI_OUT_MAX: the answers are bounded before the next
 * line runs, and a client that sends thousands of lines at once shares
 * the loop with the rest. */
static void
run_lines(struct router *r, struct client *c)
{
	size_t start = 0;
	for (unsigned int n = 0; n < CLI_LINES_ROUND && !out_full(c); n++) {
		char *nl = memchr(c->in + start, '\n', c->in_len - start);
		if (nl == NULL)
			break;
		*nl = 0;
		run_line(r, c, c->in + start);
		start = (size_t)(nl - c->in) + 1;
	}
	memmove(c->in, c->in + start, c->in_len - start);
	c->in_len -= start;
}

/* @return false when the client hung up or sent an endless line. */
static bool
read_client(struct router *r, struct client *c)
{
	for (int rounds = 0; rounds < 64 && !out_full(c) && !line_waiting(c); rounds++) {
		ssize_t n =
			recv(c->w.fd, c->in + c->in_len, CLI_LINE_MAX - c->in_len, MSG_DONTWAIT);
		if (n == 0) {
			c->hung_up = true;
			break;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK;
		c->in_len += (size_t)n;
		c->last_progress = c->last_request = rt_now_ms();
		run_lines(r, c);
		if (c->in_len == CLI_LINE_MAX)
			return false; /* an endless line */
	}
	return true;
}

/* Whatever c is owed: lines to run, answers to send. @return false if it
 * must go (now, or because it hung up and has had everything). */
static bool
serve(struct router *r, struct client *c)
{
	if (line_waiting(c) && !out_full(c))
		run_lines(r, c);
	if (!flush_out(c))
		return false;
	/* A client that hung up still gets what it asked for. */
	return !c->hung_up || line_waiting(c) || c->out_sent < c->out.len;
}

static void
client_ready(struct router *r, struct rt_watch *w, uint32_t events)
{
	struct client *c = (struct client *)((char *)w - offsetof(struct client, w));
	if (events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		c->hung_up = true;
	bool keep = true;
	if (events & EPOLLIN)
		keep = read_client(r, c);
	if (!keep || !serve(r, c)) {
		flush_out(c);
		client_close(c);
		return;
	}
	update_interest(c);
}

/* One who may change the router: root, or routerd's own user. */
static bool
may_change(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	return cr.uid == 0 || cr.uid == geteuid();
}

static void
refuse(int fd, const char *why)
{
	char line[160];
	int n = snprintf(line, sizeof(line), ".err routerd: %s\n", why);
	if (send(fd, line, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
		/* it went already: nothing to tell */
	}
	close(fd);
}

static void
accept_ready(struct router *r, struct rt_watch *w, uint32_t events)
{
	(void)r;
	(void)events;
	for (;;) {
		int fd = accept4(w->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return;
		bool root = may_change(fd);
		int slot = -1, used = 0;
		for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
			if (cli_clients[i] != NULL)
				used++;
			else if (slot < 0)
				slot = i;
		}
		if (slot < 0 || (!root && used >= CLI_CLIENTS_MAX - CLI_CLIENTS_ROOT)) {
			refuse(fd, "too many clients connected; try again later");
			continue;
		}
		struct client *c = calloc(1, sizeof(*c));
		if (c == NULL) {
			refuse(fd, "out of memory for a client");
			continue;
		}
		c->w = (struct rt_watch){.fd = fd, .ready = client_ready};
		c->may_change = root;
		c->last_progress = c->last_request = rt_now_ms();
		cli_clients[slot] = c;
		if (rt_loop_watch(&c->w, EPOLLIN | EPOLLRDHUP) < 0)
			client_close(c);
	}
}

/* Should c go, at now? Stuck: a line or an answer pending, and no
 * progress for CLI_STUCK_MS. Idle: nothing sent for idle_ms (a monitor
 * only listens). (The round's now may be older than a progress made in
 * the round: the sums never underflow.) */
static bool
timed_out(const struct client *c, uint64_t now, uint64_t idle_ms)
{
	bool pending = c->in_len != 0 || c->out_sent < c->out.len;
	if (pending)
		return c->last_progress + CLI_STUCK_MS < now;
	return !c->monitor && c->last_request + idle_ms < now;
}

/* Each round of the control loop: monitors may have been given events
 * by anything that ran in it, clients may have lines left from the
 * last; and once a second, stuck and idle clients are closed. Wants the
 * next round at once while lines wait, else at that check. */
static uint64_t
round_hook(struct router *r, uint64_t now)
{
	uint64_t due = UINT64_MAX;
	for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
		struct client *c = cli_clients[i];
		if (c == NULL)
			continue;
		if (c->dead) {
			client_close(c);
			continue;
		}
		if (line_waiting(c) || c->out.len != 0) {
			if (!serve(r, c)) {
				client_close(c);
				continue;
			}
			update_interest(c);
		}
		if (line_waiting(c) && !out_full(c))
			due = now;
	}
	bool check = now >= next_idle_check;
	if (check)
		next_idle_check = now + 1000;
	for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
		struct client *c = cli_clients[i];
		if (c == NULL)
			continue;
		if (check && timed_out(c, now, (uint64_t)r->conf.cli_idle_s * 1000))
			client_close(c);
		else
			due = RTE_MIN(due, next_idle_check);
	}
	return due;
}

int
cli_server_start(struct router *r)
{
	int fd = listen_on(r->conf.socket_path, r->conf.socket_group);
	if (fd < 0)
		return fd;
	listener = (struct rt_watch){.fd = fd, .ready = accept_ready};
	int rc = rt_loop_watch(&listener, EPOLLIN);
	if (rc == 0)
		rc = rt_loop_on_round(round_hook);
	if (rc < 0) {
		close(fd);
		listener.fd = -1;
		return rc;
	}
	r->hooks.neigh_changed = cli_neigh_event;
	r->hooks.link_changed = cli_link_event;
	return 0;
}

void
cli_server_stop(struct router *r)
{
	for (int i = 0; i < CLI_CLIENTS_MAX; i++)
		if (cli_clients[i] != NULL)
			client_close(cli_clients[i]);
	if (listener.fd >= 0) {
		rt_loop_unwatch(&listener);
		close(listener.fd);
		unlink(r->conf.socket_path);
		listener.fd = -1;
	}
	r->hooks.neigh_changed = NULL;
	r->hooks.link_changed = NULL;
}
