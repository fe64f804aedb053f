/* SPDX-License-Identifier: BSD-3-Clause */
/* What the CLI's files share: a command's context, the parsers and
 * formatters every command uses, and events for monitors. Control core
 * only; nothing outside cli/ includes this. */
#ifndef ROUTER_CLI_PRIV_H
#define ROUTER_CLI_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "control.h"
#include "json.h"

/* Enough for any line that fits the 4096 bytes a command may have: a
 * route with NH_GROUP_MEMBERS_MAX paths, "nexthop via A dev P weight W"
 * each, as `save` writes it. */
#define CLI_MAX_ARGS 512

struct cli {
	struct router *r;
	struct rt_buf *out;
	char *err;
	size_t errlen;
	bool may_change; /* the client is routerd's user or root (server.c) */
	bool json;
	struct json j;  /* with json: the writer, into out */
	bool stats;     /* -s: link show adds the ports' counters, as ip -s does */
	uint8_t family; /* 0: both; FIB_AF_INET or FIB_AF_INET6 (-4, -6) */
	int argc;
	char *argv[CLI_MAX_ARGS];
	int pos; /* next argument */
};

/* Set the one-line error and return -e. */
int cli_fail(struct cli *c, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* For a command of object obj that changes the router, called by its
 * dispatcher once the commands that only read are ruled out: 0 when the
 * client may change the router, else -EPERM with the error set. */
int cli_may_change(struct cli *c, const char *obj, const char *cmd);
/* The next argument, or NULL. */
const char *cli_next(struct cli *c);
/* iproute2-style abbreviation: word is a non-empty prefix of full. */
bool cli_matches(const char *word, const char *full);

int cli_parse_prefix(struct cli *c, const char *what, const char *s, uint8_t family,
		     struct fib_prefix *p);
int cli_parse_addr(struct cli *c, const char *what, const char *s, uint8_t family,
		   struct fib_prefix *p);
int cli_parse_u32(struct cli *c, const char *what, const char *s, uint32_t max, uint32_t *v);
int cli_parse_port(struct cli *c, const char *s, uint16_t *port);
int cli_parse_mac(struct cli *c, const char *s, uint8_t mac[6]);
int cli_parse_table(struct cli *c, const char *s, uint32_t *table);
/* The ids of every table, ascending, and their number in *n: in few when
 * they fit, else in an array the caller frees when it is not few. */
uint32_t *cli_table_ids(const struct cli *c, uint32_t *few, uint32_t nfew, uint32_t *n);

/* Packet selectors (route get, rules): an input port or `lo`; an IP
 * protocol by name or number; a port or an N-M range. */
int cli_parse_iif(struct cli *c, const char *s, uint16_t *iif);
const char *cli_iif_name(const struct router *r, uint16_t iif);
int cli_parse_proto(struct cli *c, const char *s, uint8_t *out);
const char *cli_proto_name(uint8_t p, char *buf, size_t len);
int cli_parse_ports(struct cli *c, const char *what, const char *s, uint16_t *lo, uint16_t *hi);
/* A port range to show: NULL when it is any. */
const char *cli_ports_fmt(uint16_t lo, uint16_t hi, char *buf, size_t len);

/* Formatting. */
const char *cli_fmt_prefix(const struct fib_prefix *p, char *buf, size_t len);
const char *cli_fmt_addr(uint8_t family, const void *addr, char *buf, size_t len);
/* An address as on the wire (network order; IPv4 in the first 4 bytes,
 * the rest zero), as nexthops and the address table hold it. */
void cli_addr_bytes(const struct fib_prefix *p, uint8_t out[16]);
const char *cli_fmt_table(uint32_t table, char *buf, size_t len);

/* Kinds of change a `monitor` client may watch (monitor.c). */
enum cli_event_kind {
	CLI_EV_LINK = 1,
	CLI_EV_ADDR = 2,
	CLI_EV_ROUTE = 4,
	CLI_EV_RULE = 8,
	CLI_EV_NEXTHOP = 16,
	CLI_EV_NEIGH = 32,
};
/* A change, for the monitors of kind: what show prints about obj
 * (text or JSON, as each monitor asked), deleted or not; nothing is
 * formatted when no monitor watches kind. */
void cli_event(struct router *r, unsigned int kind, bool deleted,
	       void (*show)(struct cli *, const void *), const void *obj);

/* A neighbour's change, for monitors: the entry as neigh show prints it,
 * or its deletion (the control plane's neigh_changed hook too). */
void cli_neigh_event(struct router *r, const struct neigh_key *k);

/* The nexthop an operator's id names (not 0, not the rules' own).
 * @return 0 or -ENOENT. */
int cli_nh_lookup_id(const struct router *r, uint32_t id, uint32_t *index);

/* An optional `[dev] PORT` (ip's `ip link show eth0`, `ip link set dev
 * eth0`): *port is set and true returned when one is given; false when
 * none is, or on error (*rc then negative). */
bool cli_opt_port(struct cli *c, uint16_t *port, int *rc);

/* A port's flags as ip link shows them (NO-CARRIER, BROADCAST,
 * MULTICAST, UP, LOWER_UP): @return how many, in flags; and as text,
 * comma-separated. */
unsigned int cli_link_flags(const struct router *r, uint16_t port, const char *flags[4]);
void cli_link_flags_text(const struct router *r, uint16_t port, char *buf, size_t len);
/* A port's change, for monitors (the control plane's link_changed hook). */
void cli_link_event(struct router *r, uint16_t port);

/* Whether any monitor watches a kind of change (enum cli_event_kind). */
bool cli_monitoring(unsigned int kind);

/* Routes (route.c, route_list.c, route_get.c). */
extern const char *const cli_route_types[FIB_RT_COUNT];
/* A route origin (proto) by iproute2's name, or its number in buf. */
const char *cli_origin_name(uint8_t o, char *buf, size_t len);
int cli_parse_origin(struct cli *c, const char *s, uint8_t *out);
int cli_route_show(struct cli *c);
int cli_route_flush(struct cli *c);
/* One route as route show table all shows it (monitors, fibmatch). */
void cli_route_event(struct cli *c, const void *rt);

/* Command families, one file each. */
int cli_link(struct cli *c);
int cli_addr(struct cli *c);
int cli_route(struct cli *c);
int cli_route_get(struct cli *c);
int cli_rule(struct cli *c);
int cli_nexthop(struct cli *c);
int cli_neigh(struct cli *c);
int cli_stats(struct cli *c);
int cli_log(struct cli *c);
int cli_save(struct cli *c);

/* save: the commands that recreate what the operator configured, one
 * part each (save.c puts them in order). */
void cli_link_save_mtu(struct cli *c);
void cli_link_save_state(struct cli *c);
void cli_addr_save(struct cli *c);
void cli_nexthop_save(struct cli *c);
void cli_neigh_save(struct cli *c);
void cli_route_save(struct cli *c);
void cli_rule_save(struct cli *c);

#endif
