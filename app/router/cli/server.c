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
 * No client can stall the loop or another client: sockets are
 * non-blocking; a line longer than CLI_LINE_MAX closes the connection; a
 * client whose unread answers pass CLI_OUT_MAX is not read from until it
 * catches up, and is closed if it makes no progress for CLI_IDLE_MS.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "server.h"

#define CLI_IDLE_MS 30000

struct client *cli_clients[CLI_CLIENTS_MAX];
static struct rt_watch listener = {.fd = -1};
static uint64_t next_idle_check;

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

static void
update_interest(struct client *c)
{
	uint32_t ev = EPOLLRDHUP;
	if (c->out.len - c->out_sent < CLI_OUT_MAX)
		ev |= EPOLLIN; /* backpressure: stop reading a client that does not read */
	if (c->out_sent < c->out.len)
		ev |= EPOLLOUT;
	rt_loop_rewatch(&c->w, ev);
}

/* @return false when the client hung up or sent an endless line. */
static bool
read_client(struct router *r, struct client *c)
{
	for (int rounds = 0; rounds < 64 && c->out.len - c->out_sent < CLI_OUT_MAX; rounds++) {
		ssize_t n =
			recv(c->w.fd, c->in + c->in_len, CLI_LINE_MAX - c->in_len, MSG_DONTWAIT);
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
		if (c->in_len == CLI_LINE_MAX)
			return false; /* an endless line */
	}
	return true;
}

static void
client_ready(struct router *r, struct rt_watch *w, uint32_t events)
{
	struct client *c = (struct client *)((char *)w - offsetof(struct client, w));
	bool keep = true;
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
		keep = read_client(r, c);
	if (keep)
		keep = flush_out(c);
	/* A client that hung up still gets what it asked for. */
	if (!keep || ((events & (EPOLLRDHUP | EPOLLHUP)) && c->out_sent >= c->out.len)) {
		flush_out(c);
		client_close(c);
		return;
	}
	update_interest(c);
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
		int slot = -1;
		for (int i = 0; i < CLI_CLIENTS_MAX && slot < 0; i++)
			if (cli_clients[i] == NULL)
				slot = i;
		struct client *c = slot >= 0 ? calloc(1, sizeof(*c)) : NULL;
		if (c == NULL) {
			close(fd); /* too many clients */
			continue;
		}
		c->w = (struct rt_watch){.fd = fd, .ready = client_ready};
		c->last_progress = rt_now_ms();
		cli_clients[slot] = c;
		if (rt_loop_watch(&c->w, EPOLLIN | EPOLLRDHUP) < 0)
			client_close(c);
	}
}

/* Each round of the control loop: monitors may have been given events
 * by anything that ran in it; and once a second, clients stuck mid-line
 * or not reading are closed. Wants a round at that check while a client
 * is part-way through a line or a reply. */
static uint64_t
round_hook(struct router *r, uint64_t now)
{
	(void)r;
	for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
		struct client *c = cli_clients[i];
		if (c == NULL || (!c->monitor && !c->dead))
			continue;
		if (c->dead || (c->out_sent < c->out.len && !flush_out(c)))
			client_close(c);
		else if (c->out.len != 0)
			update_interest(c);
	}
	bool check = now >= next_idle_check;
	if (check)
		next_idle_check = now + 1000;
	uint64_t due = UINT64_MAX;
	for (int i = 0; i < CLI_CLIENTS_MAX; i++) {
		struct client *c = cli_clients[i];
		if (c == NULL || (c->in_len == 0 && c->out_sent >= c->out.len))
			continue;
		if (check && now - c->last_progress > CLI_IDLE_MS)
			client_close(c);
		else
			due = next_idle_check;
	}
	return due;
}

int
cli_server_start(struct router *r)
{
	int fd = listen_on(r->conf.socket_path);
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
