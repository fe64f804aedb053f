/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The CLI plane: routerctl's server and the command language (as
 * iproute2's). It is the only plane that includes the others' headers:
 * it reads the datapath's counters and asks the control plane and the
 * libraries for every change, through their headers. Control core only.
 */
#ifndef ROUTER_CLI_PUBLIC_H
#define ROUTER_CLI_PUBLIC_H

#include <stdbool.h>
#include <stddef.h>

struct router;

/* A growable string: a command's output. */
struct rt_buf {
	char *s;
	size_t len, cap;
};
void rt_buf_printf(struct rt_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Run one command line; leading "-j", "-s", "-4", "-6" flags are
 * understood. Without may_change, only commands that read are run (the
 * others get -EPERM). On error returns -errno with a one-line message in
 * err and nothing applied. */
int rt_cli_exec(struct router *r, const char *line, bool may_change, struct rt_buf *out, char *err,
		size_t errlen);

/* The first and last lines `save` writes: a start-up file that has the
 * first and not the last was cut short. */
#define CLI_SAVE_FIRST "# routerd configuration, written by routerctl save"
#define CLI_SAVE_LAST "# end of routerd configuration"

/* Listen on r->conf.socket_path, serve routerctl's clients and monitors
 * from the control core's loop, and register for the control plane's
 * events. @return 0 or -errno. */
int cli_server_start(struct router *r);
/* Close the clients and the socket. */
void cli_server_stop(struct router *r);

#endif
