/* SPDX-License-Identifier: BSD-3-Clause */
/* routerctl's clients, as server.c keeps them and monitor.c writes events
 * to them. Control core only. */
#ifndef ROUTER_CLI_SERVER_H
#define ROUTER_CLI_SERVER_H

#include <stdbool.h>
#include <stdint.h>

#include "cli_priv.h"

#define CLI_LINE_MAX 4096
#define CLI_OUT_MAX (4u << 20)
#define CLI_CLIENTS_MAX 64

struct client {
	struct rt_watch w; /* the socket, in the control core's loop */
	char in[CLI_LINE_MAX + 1];
	size_t in_len;
	struct rt_buf out;
	size_t out_sent;
	uint64_t last_progress; /* bytes read or sent */
	uint64_t last_request;  /* bytes read */
	bool may_change;        /* root or routerd's user (SO_PEERCRED) */
	bool hung_up;           /* it sends no more: answer what it asked, then close */
	unsigned int monitor;   /* enum cli_event_kind bits: a monitor's kinds */
	bool monitor_json;      /* monitor -j: a JSON object a line */
	bool dead;              /* to close once the current round is done */
};

extern struct client *cli_clients[CLI_CLIENTS_MAX];

/* monitor.c: `[-j] monitor [OBJECT...]`, args after "monitor": turns c
 * into a monitor, or answers .err for an unknown object. */
void cli_monitor_start(struct client *c, char *args, bool json);

#endif
