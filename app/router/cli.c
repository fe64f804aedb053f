/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command language, as iproute2's: `OBJECT COMMAND ARGS`, objects and
 * commands abbreviable ("r a" is "route add"). This file holds the
 * tokenizer, the parsers every command uses, dispatch, and the link, addr
 * stats and save commands; routes are in cli_route.c, rules in
 * cli_rule.c, nexthops and neighbours in cli_nh.c. A command either applies whole or fails with one
 * line naming what was wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "cli.h"

void
rt_buf_printf(struct rt_buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (s == NULL)
			return;
		b->s = s;
		b->cap = cap;
	}
}

int
cli_fail(struct cli *c, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -e;
}

const char *
cli_next(struct cli *c)
{
	return c->pos < c->argc ? c->argv[c->pos++] : NULL;
}

bool
cli_matches(const char *word, const char *full)
{
	size_t n = strlen(word);
	return n > 0 && n <= strlen(full) && strncmp(word, full, n) == 0;
}

static int
parse_ip(const char *s, uint8_t family, struct fib_prefix *p)
{
	memset(p, 0, sizeof(*p));
	if (strchr(s, ':') != NULL) {
		if (family == FIB_AF_INET || inet_pton(AF_INET6, s, p->addr.v6) != 1)
			return -1;
		p->family = FIB_AF_INET6;
		p->len = 128;
		return 0;
	}
	uint32_t a;
	if (family == FIB_AF_INET6 || inet_pton(AF_INET, s, &a) != 1)
		return -1;
	p->family = FIB_AF_INET;
	p->len = 32;
	p->addr.v4 = ntohl(a);
	return 0;
}

int
cli_parse_addr(struct cli *c, const char *what, const char *s, uint8_t family, struct fib_prefix *p)
{
	if (s == NULL)
		return cli_fail(c, EINVAL, "%s: address expected", what);
	if (parse_ip(s, family, p) < 0)
		return cli_fail(c, EINVAL, "%s: invalid address '%s'", what, s);
	return 0;
}

int
cli_parse_prefix(struct cli *c, const char *what, const char *s, uint8_t family,
		 struct fib_prefix *p)
{
	if (s == NULL)
		return cli_fail(c, EINVAL, "%s: prefix expected", what);
	if (strcmp(s, "default") == 0 || strcmp(s, "all") == 0) {
		memset(p, 0, sizeof(*p));
		p->family = family ? family : FIB_AF_INET;
		return 0;
	}
	char buf[64];
	const char *slash = strchr(s, '/');
	size_t n = slash ? (size_t)(slash - s) : strlen(s);
	if (n >= sizeof(buf))
		return cli_fail(c, EINVAL, "%s: invalid prefix '%s'", what, s);
	memcpy(buf, s, n);
	buf[n] = 0;
	if (parse_ip(buf, family, p) < 0)
		return cli_fail(c, EINVAL, "%s: invalid prefix '%s'", what, s);
	if (slash != NULL) {
		char *end;
		unsigned long len = strtoul(slash + 1, &end, 10);
		if (*end != 0 || slash[1] == 0 || len > p->len)
			return cli_fail(c, EINVAL, "%s: invalid prefix '%s'", what, s);
		p->len = (uint8_t)len;
	}
	return 0;
}

int
cli_parse_u32(struct cli *c, const char *what, const char *s, uint32_t max, uint32_t *v)
{
	char *end;
	if (s == NULL)
		return cli_fail(c, EINVAL, "%s: number expected", what);
	unsigned long long x = strtoull(s, &end, 0);
	if (*s == 0 || *s == '-' || *end != 0 || x > max)
		return cli_fail(c, EINVAL, "%s: invalid value '%s'", what, s);
	*v = (uint32_t)x;
	return 0;
}

int
cli_parse_port(struct cli *c, const char *s, uint16_t *port)
{
	if (s == NULL)
		return cli_fail(c, EINVAL, "port name expected");
	for (uint16_t i = 0; i < c->r->nb_ports; i++) {
		if (strcmp(s, c->r->port[i].name) == 0) {
			*port = i;
			return 0;
		}
	}
	return cli_fail(c, ENODEV, "unknown port '%s'", s);
}

int
cli_parse_mac(struct cli *c, const char *s, uint8_t mac[6])
{
	unsigned int b[6];
	char tail;
	if (s == NULL ||
	    sscanf(s, "%2x:%2x:%2x:%2x:%2x:%2x%c", &b[0], &b[1], &b[2], &b[3], &b[4], &b[5],
		   &tail) != 6 ||
	    strlen(s) != 17)
		return cli_fail(c, EINVAL, "invalid MAC address '%s'", s ? s : "");
	for (int i = 0; i < 6; i++)
		mac[i] = (uint8_t)b[i];
	return 0;
}

int
cli_parse_table(struct cli *c, const char *s, uint32_t *table)
{
	/* Local routes live in main (docs/fib.md), so "local" is main. */
	if (s != NULL && (strcmp(s, "main") == 0 || strcmp(s, "local") == 0)) {
		*table = FIB_TABLE_MAIN;
		return 0;
	}
	if (s != NULL && strcmp(s, "default") == 0) {
		*table = FIB_TABLE_DEFAULT;
		return 0;
	}
	int rc = cli_parse_u32(c, "table", s, UINT32_MAX, table);
	if (rc == 0 && *table == 0)
		return cli_fail(c, EINVAL, "table: invalid value '0'");
	return rc;
}

void
cli_addr_bytes(const struct fib_prefix *p, uint8_t out[16])
{
	memset(out, 0, 16);
	if (p->family == FIB_AF_INET) {
		uint32_t be = rte_cpu_to_be_32(p->addr.v4);
		memcpy(out, &be, 4);
	} else {
		memcpy(out, p->addr.v6, 16);
	}
}

const char *
cli_fmt_addr(uint8_t family, const void *addr, char *buf, size_t len)
{
	inet_ntop(family == FIB_AF_INET ? AF_INET : AF_INET6, addr, buf, (socklen_t)len);
	return buf;
}

const char *
cli_fmt_prefix(const struct fib_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];
	if (p->family == FIB_AF_INET) {
		uint32_t be = htonl(p->addr.v4);
		cli_fmt_addr(FIB_AF_INET, &be, a, sizeof(a));
		if (p->len == 32)
			snprintf(buf, len, "%s", a);
		else
			snprintf(buf, len, "%s/%u", a, p->len);
	} else {
		cli_fmt_addr(FIB_AF_INET6, p->addr.v6, a, sizeof(a));
		if (p->len == 128)
			snprintf(buf, len, "%s", a);
		else
			snprintf(buf, len, "%s/%u", a, p->len);
	}
	return buf;
}

const char *
cli_fmt_table(uint32_t table, char *buf, size_t len)
{
	if (table == FIB_TABLE_MAIN)
		snprintf(buf, len, "main");
	else if (table == FIB_TABLE_DEFAULT)
		snprintf(buf, len, "default");
	else
		snprintf(buf, len, "%u", table);
	return buf;
}

/* Selectors of packets, shared by route get and rules. */

/* An input port for rules and route get: a port, or `lo` for the router's
 * own packets (Linux's loopback). */
int
cli_parse_iif(struct cli *c, const char *s, uint16_t *iif)
{
	if (s != NULL && strcmp(s, "lo") == 0) {
		*iif = FIB_IIF_LOCAL;
		return 0;
	}
	return cli_parse_port(c, s, iif);
}

const char *
cli_iif_name(const struct router *r, uint16_t iif)
{
	return iif == FIB_IIF_LOCAL ? "lo" : r->port[iif].name;
}

/* ipproto NAME|N: the protocols rules are written with, as ip-rule(8)
 * takes them, or a number. */
static const struct {
	const char *name;
	uint8_t proto;
} protos[] = {{"icmp", 1},       {"tcp", 6},     {"udp", 17},
	      {"ipv6-icmp", 58}, {"icmpv6", 58}, {"sctp", 132}};

int
cli_parse_proto(struct cli *c, const char *s, uint8_t *out)
{
	if (s == NULL)
		return cli_fail(c, EINVAL, "ipproto: missing value");
	for (unsigned int i = 0; i < RTE_DIM(protos); i++)
		if (strcmp(s, protos[i].name) == 0) {
			*out = protos[i].proto;
			return 0;
		}
	uint32_t v = 0;
	int rc = cli_parse_u32(c, "ipproto", s, 255, &v);
	if (rc == 0 && v == 0)
		rc = cli_fail(c, EINVAL, "ipproto: 0 is not a protocol");
	*out = (uint8_t)v;
	return rc;
}

const char *
cli_proto_name(uint8_t p, char *buf, size_t len)
{
	for (unsigned int i = 0; i < RTE_DIM(protos); i++)
		if (protos[i].proto == p) {
			snprintf(buf, len, "%s", protos[i].name);
			return buf;
		}
	snprintf(buf, len, "%u", p);
	return buf;
}

/* sport|dport N or N-M. */
int
cli_parse_ports(struct cli *c, const char *what, const char *s, uint16_t *lo, uint16_t *hi)
{
	if (s == NULL)
		return cli_fail(c, EINVAL, "%s: missing value", what);
	char a[16];
	const char *dash = strchr(s, '-');
	size_t n = dash ? (size_t)(dash - s) : strlen(s);
	if (n == 0 || n >= sizeof(a))
		return cli_fail(c, EINVAL, "%s: '%s' is not a port or range", what, s);
	memcpy(a, s, n);
	a[n] = 0;
	uint32_t l = 0, h = 0;
	int rc = cli_parse_u32(c, what, a, 65535, &l);
	if (rc == 0)
		rc = cli_parse_u32(c, what, dash ? dash + 1 : a, 65535, &h);
	if (rc == 0 && h < l)
		rc = cli_fail(c, EINVAL, "%s: range %u-%u is empty", what, l, h);
	*lo = (uint16_t)l;
	*hi = (uint16_t)h;
	return rc;
}

/* A rule's port range for show: NULL when it is any. */
const char *
cli_ports_fmt(uint16_t lo, uint16_t hi, char *buf, size_t len)
{
	if (lo == 0 && (hi == 0 || hi == 0xffff))
		return NULL;
	if (lo == hi)
		snprintf(buf, len, "%u", lo);
	else
		snprintf(buf, len, "%u-%u", lo, hi);
	return buf;
}

/* An optional `[dev] PORT` (ip's `ip link show eth0`, `ip link set dev
 * eth0`): *port is set and true returned when one is given; false when
 * none is, or on error (*rc then negative). */
static bool
opt_port(struct cli *c, uint16_t *port, int *rc)
{
	*rc = 0;
	const char *w = cli_next(c);
	if (w != NULL && strcmp(w, "dev") == 0)
		w = cli_next(c);
	if (w == NULL)
		return false;
	*rc = cli_parse_port(c, w, port);
	return *rc == 0;
}

/*
 * A port's counters for link show -s, in ip -s link's layout and JSON
 * keys (stats64): bytes, packets and errors as the device counts them;
 * RX dropped, the packets received on the port that a worker dropped
 * (any reason `stats` lists); RX missed and nombuf, what the device
 * could not receive for want of descriptors or mbufs; TX dropped, what
 * the device's queue would not take. Since routerd started: `stats
 * reset` leaves them alone, as nothing resets ip's counters.
 */
static void
link_stats(struct cli *c, uint16_t port)
{
	struct rte_eth_stats d;
	if (rte_eth_stats_get(port, &d) != 0)
		memset(&d, 0, sizeof(d));
	struct rt_wstats s;
	rt_stats_sum(c->r, &s);
	unsigned long long tx_dropped = 0;
	for (unsigned int w = 0; w < c->r->nb_workers; w++)
		tx_dropped += c->r->worker[w].tx_dropped[port];
	unsigned long long rx[] = {d.ibytes,          d.ipackets, d.ierrors,
				   s.port_drop[port], d.imissed,  d.rx_nombuf};
	unsigned long long tx[] = {d.obytes, d.opackets, d.oerrors, tx_dropped};
	if (c->json) {
		rt_buf_printf(
			c->out,
			",\"stats64\":{\"rx\":{\"bytes\":%llu,\"packets\":%llu,\"errors\":%llu,"
			"\"dropped\":%llu,\"missed\":%llu,\"nombuf\":%llu},"
			"\"tx\":{\"bytes\":%llu,\"packets\":%llu,\"errors\":%llu,"
			"\"dropped\":%llu}}",
			rx[0], rx[1], rx[2], rx[3], rx[4], rx[5], tx[0], tx[1], tx[2], tx[3]);
		return;
	}
	rt_buf_printf(c->out,
		      "    RX:  bytes packets errors dropped  missed  nombuf\n"
		      "    %10llu %7llu %6llu %7llu %7llu %7llu\n"
		      "    TX:  bytes packets errors dropped\n"
		      "    %10llu %7llu %6llu %7llu\n",
		      rx[0], rx[1], rx[2], rx[3], rx[4], rx[5], tx[0], tx[1], tx[2], tx[3]);
}

/* A port's advertised DNS servers, comma-separated (JSON: quoted). */
static void
rdnss_list(struct cli *c, uint16_t port, bool json)
{
	const struct rt_ra *ra = &c->r->ra[port];
	for (unsigned int k = 0; k < ra->nb_rdnss; k++) {
		char a[48];
		cli_fmt_addr(FIB_AF_INET6, ra->rdnss[k], a, sizeof(a));
		rt_buf_printf(c->out, json ? "%s\"%s\"" : "%s%s", k ? "," : "", a);
	}
}

/* A port's advertisement options that differ from the defaults, each
 * with a space before it, as link set takes them. */
static void
ra_options(struct cli *c, uint16_t port)
{
	const struct rt_ra *ra = &c->r->ra[port];
	if (ra->managed)
		rt_buf_printf(c->out, " ra-managed on");
	if (ra->other)
		rt_buf_printf(c->out, " ra-other on");
	if (ra->lifetime_set)
		rt_buf_printf(c->out, " ra-lifetime %u", ra->lifetime_s);
}

/* One port, as link show lists it (first: the first of a JSON list). */
static void
show_link(struct cli *c, uint16_t i, bool first)
{
	const struct router *r = c->r;
	const struct rt_port *p = &r->port[i];
	char mac[RTE_ETHER_ADDR_FMT_SIZE];
	rte_ether_format_addr(mac, sizeof(mac), &p->mac);
	const char *state = rt_port_up(r, i) ? "UP" : "DOWN";
	if (c->json) {
		rt_buf_printf(c->out,
			      "%s{\"ifindex\":%u,\"ifname\":\"%s\",\"flags\":[\"%s\"],"
			      "\"mtu\":%u,\"operstate\":\"%s\",\"address\":\"%s\","
			      "\"driver\":\"%s\",\"ra\":%s,\"ra_managed\":%s,\"ra_other\":%s,"
			      "\"ra_lifetime\":%u,\"rdnss\":[",
			      first ? "" : ",", i, p->name, state, p->mtu, state, mac, p->driver,
			      r->ra[i].on ? "true" : "false", r->ra[i].managed ? "true" : "false",
			      r->ra[i].other ? "true" : "false", rt_ra_lifetime(r, i));
		rdnss_list(c, i, true);
		rt_buf_printf(c->out, "]");
	} else {
		rt_buf_printf(c->out, "%u: %s: <%s> mtu %u state %s driver %s%s", i, p->name, state,
			      p->mtu, state, p->driver, r->ra[i].on ? " ra on" : "");
		ra_options(c, i);
		if (r->ra[i].nb_rdnss) {
			rt_buf_printf(c->out, " rdnss ");
			rdnss_list(c, i, false);
		}
		rt_buf_printf(c->out, "\n    link/ether %s\n", mac);
	}
	if (c->stats)
		link_stats(c, i);
	if (c->json)
		rt_buf_printf(c->out, "}");
}

void
cli_event(struct router *r, unsigned int kind, bool deleted,
	  void (*show)(struct cli *, const void *), const void *obj)
{
	if (!rt_monitoring(kind))
		return;
	struct rt_buf b = {0};
	char err[8];
	struct cli e = {.r = r, .out = &b, .err = err, .errlen = sizeof(err)};
	show(&e, obj);
	rt_monitor(kind, deleted, b.s);
	free(b.s);
}

static void
link_event(struct cli *c, const void *port)
{
	show_link(c, *(const uint16_t *)port, true);
}

/* One address, as ip monitor prints one. */
static void
addr_event(struct cli *c, const void *obj)
{
	const struct rt_addr *a = obj;
	char s[64];
	struct fib_prefix h = a->p;
	h.len = h.family == FIB_AF_INET ? 32 : 128;
	rt_buf_printf(c->out, "%u: %s    %s %s/%u scope %s\n", a->port, c->r->port[a->port].name,
		      a->p.family == FIB_AF_INET ? "inet" : "inet6",
		      cli_fmt_prefix(&h, s, sizeof(s)), a->p.len,
		      rt_prefix_link_local(&a->p) ? "link" : "global");
}

/* rdnss ADDR[,ADDR[,ADDR]] | none: the DNS servers router advertisements
 * name (IPv6 unicast addresses, at most 3, as radvd's RDNSS). */
static int
parse_rdnss(struct cli *c, const char *v, uint8_t out[3][16], unsigned int *n)
{
	*n = 0;
	if (v == NULL)
		return cli_fail(c, EINVAL, "rdnss: 'ADDR[,ADDR...]' or 'none' expected");
	if (strcmp(v, "none") == 0)
		return 0;
	char list[256];
	snprintf(list, sizeof(list), "%s", v);
	for (char *save, *t = strtok_r(list, ",", &save); t != NULL;
	     t = strtok_r(NULL, ",", &save)) {
		struct fib_prefix a;
		int rc = cli_parse_addr(c, "rdnss", t, FIB_AF_INET6, &a);
		if (rc < 0)
			return rc;
		if (*n == 3)
			return cli_fail(c, EINVAL, "rdnss: at most 3 servers");
		if (a.addr.v6[0] == 0xff)
			return cli_fail(c, EINVAL, "rdnss: %s is multicast", t);
		memcpy(out[(*n)++], a.addr.v6, 16);
	}
	return 0;
}

/* WORD on|off, WORD already read: *out set, or -EINVAL and nothing set. */
static int
parse_on_off(struct cli *c, const char *word, bool *out)
{
	const char *v = cli_next(c);
	if (v == NULL || (strcmp(v, "on") != 0 && strcmp(v, "off") != 0))
		return cli_fail(c, EINVAL, "link set: '%s on|off' expected", word);
	*out = strcmp(v, "on") == 0;
	return 0;
}

/* link show [[dev] PORT] | link set [dev] PORT up|down|mtu N|ra ...: the
 * port's state and its router advertisements' settings */
static int
cmd_link(struct cli *c)
{
	const char *cmd = cli_next(c);
	struct router *r = c->r;
	int rc = 0;
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list")) {
		uint16_t only = 0;
		bool one = cmd != NULL && opt_port(c, &only, &rc);
		if (rc < 0)
			return rc;
		if (cli_next(c) != NULL)
			return cli_fail(c, EINVAL, "link show: too many arguments");
		if (c->json)
			rt_buf_printf(c->out, "[");
		bool first = true;
		for (uint16_t i = 0; i < r->nb_ports; i++) {
			if (one && i != only)
				continue;
			show_link(c, i, first);
			first = false;
		}
		if (c->json)
			rt_buf_printf(c->out, "]\n");
		return 0;
	}
	if (!cli_matches(cmd, "set"))
		return cli_fail(c, EINVAL, "link: unknown command '%s'", cmd);
	uint16_t port = 0;
	if (!opt_port(c, &port, &rc))
		return rc < 0 ? rc : cli_fail(c, EINVAL, "link set: port expected");
	bool up = rt_port_up(r, port), ra = r->ra[port].on, set_rdnss = false;
	bool managed = r->ra[port].managed, other = r->ra[port].other;
	int32_t lifetime = r->ra[port].lifetime_set ? r->ra[port].lifetime_s : -1;
	uint8_t rdnss[3][16];
	unsigned int nb_rdnss = 0;
	uint32_t mtu = r->port[port].mtu;
	const char *w;
	while ((w = cli_next(c)) != NULL) {
		if (strcmp(w, "up") == 0)
			up = true;
		else if (strcmp(w, "down") == 0)
			up = false;
		else if (strcmp(w, "ra") == 0 || strcmp(w, "ra-managed") == 0 ||
			 strcmp(w, "ra-other") == 0) {
			bool *flag = strcmp(w, "ra") == 0           ? &ra
				     : strcmp(w, "ra-managed") == 0 ? &managed
								    : &other;
			if ((rc = parse_on_off(c, w, flag)) < 0)
				return rc;
		} else if (strcmp(w, "ra-lifetime") == 0) {
			uint32_t s = 0;
			if ((rc = cli_parse_u32(c, "ra-lifetime", cli_next(c), RT_RA_LIFETIME_MAX,
						&s)) < 0)
				return rc;
			if (s != 0 && s < RT_RA_LIFETIME_MIN)
				return cli_fail(
					c, EINVAL,
					"ra-lifetime: 0 (not a default router) or %u..%u seconds",
					RT_RA_LIFETIME_MIN, RT_RA_LIFETIME_MAX);
			lifetime = (int32_t)s;
		} else if (strcmp(w, "rdnss") == 0) {
			if ((rc = parse_rdnss(c, cli_next(c), rdnss, &nb_rdnss)) < 0)
				return rc;
			set_rdnss = true;
		} else if (strcmp(w, "mtu") == 0) {
			if ((rc = cli_parse_u32(c, "mtu", cli_next(c), 9600, &mtu)) < 0)
				return rc;
			if (mtu < 576)
				return cli_fail(c, EINVAL, "mtu: %u is below 576", mtu);
		} else
			return cli_fail(c, EINVAL, "link set: unknown argument '%s'", w);
	}
	if (mtu != r->port[port].mtu) {
		/* Best effort on the device (virtual ones may refuse); the
		 * router enforces the MTU itself through the nexthops. */
		(void)rte_eth_dev_set_mtu(port, (uint16_t)mtu);
		if ((rc = nh_port_set(r->nh, port, r->port[port].mac.addr_bytes, (uint16_t)mtu)) <
		    0)
			return cli_fail(c, -rc, "link set: %s", strerror(-rc));
		RT_LOG(NOTICE, control, "%s: mtu %u -> %u", r->port[port].name, r->port[port].mtu,
		       mtu);
		r->port[port].mtu = (uint16_t)mtu;
		rt_ra_changed(r, port);
	}
	if (up != rt_port_up(r, port)) {
		RT_LOG(NOTICE, control, "%s: %s", r->port[port].name, up ? "up" : "down");
		/* Workers send only with a valid header, which nh_port_down
		 * withdraws; the mask is what their slow path reads to say
		 * why (port_down rather than a neighbour to resolve). So the
		 * mask changes before the headers when going down, after
		 * them when coming up. */
		uint32_t mask = r->ports_down & ~(1u << port);
		if (up) {
			rte_eth_dev_set_link_up(port);
			(void)nh_port_down(r->nh, port, false);
			__atomic_store_n(&r->ports_down, mask, __ATOMIC_RELEASE);
		} else {
			rte_eth_dev_set_link_down(port);
			__atomic_store_n(&r->ports_down, mask | 1u << port, __ATOMIC_RELEASE);
			(void)nh_port_down(r->nh, port, true);
		}
		/* The routes through the port leave the lookups (or come back),
		 * as Linux deletes a device's routes when it goes down; they
		 * stay configured, shown as linkdown. */
		cli_fib_sync_down(r, r->port[port].name);
	}
	if (set_rdnss)
		rt_ra_set_rdnss(r, port, rdnss, nb_rdnss);
	rt_ra_set_options(r, port, managed, other, lifetime);
	rt_ra_set(r, port, ra);
	cli_event(r, RT_EV_LINK, false, link_event, &port);
	return 0;
}

void
cli_fib_sync_down(struct router *r, const char *what)
{
	int rc = fib_sync_down(r->fib);
	if (rc < 0)
		RT_LOG(WARNING, control,
		       "%s: routes whose nexthops came back could not all be installed (%s): "
		       "they stay down until the next change",
		       what, strerror(-rc));
}

/* addr flush [dev] PORT [scope global|link]: every address of the port
 * (of the family, with -4 or -6), as ip addr flush; `scope` keeps the
 * others. */
static int
addr_flush(struct cli *c)
{
	struct router *r = c->r;
	uint16_t port = 0;
	int rc;
	if (!opt_port(c, &port, &rc))
		return rc < 0 ? rc : cli_fail(c, EINVAL, "addr flush: port expected");
	int scope = -1; /* 0: global, 1: link */
	const char *w = cli_next(c);
	if (w != NULL) {
		const char *v = strcmp(w, "scope") == 0 ? cli_next(c) : NULL;
		if (v == NULL || (strcmp(v, "global") != 0 && strcmp(v, "link") != 0) ||
		    cli_next(c) != NULL)
			return cli_fail(c, EINVAL, "addr flush: 'scope global|link' expected");
		scope = strcmp(v, "link") == 0;
	}
	/* From the end: deleting one moves the others down. */
	for (unsigned int k = r->nb_addrs; k-- > 0;) {
		struct rt_addr a = r->addr[k];
		if (a.port != port || (c->family && a.p.family != c->family) ||
		    (scope >= 0 && rt_prefix_link_local(&a.p) != (scope == 1)))
			continue;
		if ((rc = rt_addr_del(r, port, &a.p)) < 0)
			return cli_fail(c, -rc, "addr flush: %s", strerror(-rc));
		cli_event(r, RT_EV_ADDR, true, addr_event, &a);
	}
	rt_ra_changed(r, port);
	return 0;
}

/* addr add|del ADDR/LEN dev PORT | addr show [[dev] PORT] | addr flush */
static int
cmd_addr(struct cli *c)
{
	const char *cmd = cli_next(c);
	struct router *r = c->r;
	if (cmd == NULL || cli_matches(cmd, "show") || cli_matches(cmd, "list")) {
		int only = -1, rc = 0;
		uint16_t p = 0;
		if (cmd != NULL && opt_port(c, &p, &rc))
			only = p;
		if (rc < 0)
			return rc;
		if (cli_next(c) != NULL)
			return cli_fail(c, EINVAL, "addr show: too many arguments");
		if (c->json)
			rt_buf_printf(c->out, "[");
		bool first = true;
		for (uint16_t i = 0; i < r->nb_ports; i++) {
			if (only >= 0 && i != only)
				continue;
			if (c->json)
				rt_buf_printf(c->out,
					      "%s{\"ifindex\":%u,\"ifname\":\"%s\",\"addr_info\":[",
					      first ? "" : ",", i, r->port[i].name);
			else
				rt_buf_printf(c->out, "%u: %s: <%s> mtu %u\n", i, r->port[i].name,
					      rt_port_up(r, i) ? "UP" : "DOWN", r->port[i].mtu);
			first = false;
			bool afirst = true;
			for (unsigned int k = 0; k < r->nb_addrs; k++) {
				const struct rt_addr *a = &r->addr[k];
				if (a->port != i || (c->family && a->p.family != c->family))
					continue;
				struct fib_prefix h = a->p;
				h.len = h.family == FIB_AF_INET ? 32 : 128;
				char s[64];
				cli_fmt_prefix(&h, s, sizeof(s));
				const char *fam = a->p.family == FIB_AF_INET ? "inet" : "inet6";
				const char *scope = rt_prefix_link_local(&a->p) ? "link" : "global";
				if (c->json)
					rt_buf_printf(c->out,
						      "%s{\"family\":\"%s\",\"local\":\"%s\","
						      "\"prefixlen\":%u,\"scope\":\"%s\"}",
						      afirst ? "" : ",", fam, s, a->p.len, scope);
				else
					rt_buf_printf(c->out, "    %s %s/%u scope %s\n", fam, s,
						      a->p.len, scope);
				afirst = false;
			}
			if (c->json)
				rt_buf_printf(c->out, "]}");
		}
		if (c->json)
			rt_buf_printf(c->out, "]\n");
		return 0;
	}
	if (cli_matches(cmd, "flush"))
		return addr_flush(c);
	bool add = cli_matches(cmd, "add");
	if (!add && !cli_matches(cmd, "delete"))
		return cli_fail(c, EINVAL, "addr: unknown command '%s'", cmd);
	const char *what = add ? "addr add" : "addr del";
	struct fib_prefix p;
	int rc = cli_parse_prefix(c, what, cli_next(c), c->family, &p);
	if (rc < 0)
		return rc;
	const char *dev = cli_next(c);
	if (dev == NULL || strcmp(dev, "dev") != 0)
		return cli_fail(c, EINVAL, "%s: 'dev PORT' expected", what);
	uint16_t port = 0;
	if ((rc = cli_parse_port(c, cli_next(c), &port)) < 0)
		return rc;
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "%s: too many arguments", what);
	rc = add ? rt_addr_add(r, port, &p) : rt_addr_del(r, port, &p);
	if (rc == -EEXIST)
		return cli_fail(c, EEXIST, "%s: address already assigned", what);
	if (rc == -EADDRNOTAVAIL && add)
		return cli_fail(c, EINVAL, "%s: not a unicast address a port can have", what);
	if (rc == -EADDRNOTAVAIL)
		return cli_fail(c, EADDRNOTAVAIL, "%s: address not assigned", what);
	if (rc < 0)
		return cli_fail(c, -rc, "%s: %s", what, strerror(-rc));
	rt_ra_changed(r, port);
	const struct rt_addr a = {.port = port, .p = p};
	cli_event(r, RT_EV_ADDR, !add, addr_event, &a);
	return 0;
}

static void
stat_line(struct cli *c, bool *first, const char *group, const char *name, uint64_t v)
{
	if (c->json)
		rt_buf_printf(c->out, "%s\"%s.%s\":%llu", *first ? "" : ",", group, name,
			      (unsigned long long)v);
	else
		rt_buf_printf(c->out, "%-10s %-24s %llu\n", group, name, (unsigned long long)v);
	*first = false;
}

static const char *const log_levels[] = {"emerg",   "alert",  "crit", "err",
					 "warning", "notice", "info", "debug"};

/* log [show] | log level PATTERN LEVEL: routerd's log types (log.h) and
 * their levels, changed at run time as EAL's --log-level does at start
 * (PATTERN a glob such as router.* or any DPDK log type). */
static int
cmd_log(struct cli *c)
{
	const char *cmd = cli_next(c);
	if (cmd == NULL || cli_matches(cmd, "show")) {
		if (c->json)
			rt_buf_printf(c->out, "{");
		for (unsigned int i = 0; i < rt_nb_logtypes; i++) {
			int lv = rte_log_get_level(*rt_logtypes[i].type);
			const char *name = lv >= 1 && lv <= 8 ? log_levels[lv - 1] : "?";
			if (c->json)
				rt_buf_printf(c->out, "%s\"%s\":\"%s\"", i ? "," : "",
					      rt_logtypes[i].name, name);
			else
				rt_buf_printf(c->out, "%-18s %s\n", rt_logtypes[i].name, name);
		}
		if (c->json)
			rt_buf_printf(c->out, "}\n");
		return 0;
	}
	if (!cli_matches(cmd, "level"))
		return cli_fail(c, EINVAL, "log: unknown command '%s' (try show, level)", cmd);
	const char *pattern = cli_next(c), *level = cli_next(c);
	if (pattern == NULL || level == NULL || cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "usage: log level PATTERN LEVEL");
	for (unsigned int i = 0; i < RTE_DIM(log_levels); i++)
		if (strcmp(level, log_levels[i]) == 0) {
			if (rte_log_set_level_pattern(pattern, i + 1) < 0)
				return cli_fail(c, EINVAL, "log level: cannot set '%s'", pattern);
			RT_LOG(NOTICE, control, "log level %s %s", pattern, level);
			return 0;
		}
	return cli_fail(c, EINVAL, "log level: unknown level '%s' (emerg ... debug)", level);
}

/* What a port's device counts on its own: packets the NIC dropped for
 * want of RX descriptors (the worker fell behind: rx_missed) or of mbufs
 * (rx_nombuf), and bad frames in and failed sends out. Control core
 * only: some drivers accumulate clear-on-read registers as they are
 * read. */
static struct rt_dev_counters
dev_counters(uint16_t port)
{
	struct rte_eth_stats st;
	if (rte_eth_stats_get(port, &st) != 0)
		return (struct rt_dev_counters){0};
	return (struct rt_dev_counters){st.imissed, st.rx_nombuf, st.ierrors, st.oerrors};
}

uint32_t *
cli_table_ids(const struct cli *c, uint32_t *few, uint32_t nfew, uint32_t *n)
{
	uint32_t *ids = few;
	*n = fib_table_ids(c->r->fib, few, nfew);
	if (*n > nfew) {
		uint32_t *all = malloc(sizeof(*all) * *n);
		if (all != NULL)
			ids = all;
		else
			*n = nfew; /* out of memory: the first nfew, already in few */
		*n = RTE_MIN(*n, fib_table_ids(c->r->fib, ids, *n));
	}
	return ids;
}

/* What each table holds now (gauges, never reset): its routes per
 * family and the bytes its lookup structures and RIB take, so that an
 * operator sees a flushed table give its memory back (docs/fib.md). */
static void
fib_lines(struct cli *c, bool *first)
{
	uint32_t few[16], n;
	uint32_t *ids = cli_table_ids(c, few, RTE_DIM(few), &n);
	char name[64];
	for (uint32_t i = 0; i < n; i++) {
		struct fib_mem_stats st;
		if (fib_table_mem(c->r->fib, ids[i], &st) != 0)
			continue;
		snprintf(name, sizeof(name), "table%u.routes4", ids[i]);
		stat_line(c, first, "fib", name, fib_route_count(c->r->fib, ids[i], FIB_AF_INET));
		snprintf(name, sizeof(name), "table%u.routes6", ids[i]);
		stat_line(c, first, "fib", name, fib_route_count(c->r->fib, ids[i], FIB_AF_INET6));
		snprintf(name, sizeof(name), "table%u.bytes", ids[i]);
		stat_line(c, first, "fib", name, st.tbl24_bytes + st.groups_bytes + st.rib_bytes);
	}
	if (ids != few)
		free(ids);
}

/* stats [show|reset] */
static int
cmd_stats(struct cli *c)
{
	struct router *r = c->r;
	const char *cmd = cli_next(c);
	struct rt_wstats s;
	struct rt_ctl_counter ctl[RT_CTL_COUNTERS];
	rt_stats_sum(r, &s);
	rt_ctl_counters(r, ctl);
	if (cmd != NULL && cli_matches(cmd, "reset")) {
		r->base = s;
		for (unsigned int i = 0; i < RT_CTL_COUNTERS; i++)
			r->base_ctl[i] = ctl[i].gauge ? 0 : ctl[i].value;
		for (uint16_t p = 0; p < r->nb_ports; p++)
			r->base_dev[p] = dev_counters(p);
		return 0;
	}
	if (cmd != NULL && !cli_matches(cmd, "show"))
		return cli_fail(c, EINVAL, "stats: unknown command '%s'", cmd);
	bool first = true;
	char name[64];
	if (c->json)
		rt_buf_printf(c->out, "{");
	stat_line(c, &first, "total", "rx", s.rx - r->base.rx);
	stat_line(c, &first, "total", "forwarded", s.fwd - r->base.fwd);
	stat_line(c, &first, "total", "punted", s.punt_total - r->base.punt_total);
	stat_line(c, &first, "total", "dropped", s.drop_total - r->base.drop_total);
	for (uint16_t p = 0; p < r->nb_ports; p++) {
		snprintf(name, sizeof(name), "%s.rx", r->port[p].name);
		stat_line(c, &first, "port", name, s.port_rx[p] - r->base.port_rx[p]);
		snprintf(name, sizeof(name), "%s.tx", r->port[p].name);
		stat_line(c, &first, "port", name, s.port_tx[p] - r->base.port_tx[p]);
		struct rt_dev_counters d = dev_counters(p), b = r->base_dev[p];
		snprintf(name, sizeof(name), "%s.rx_missed", r->port[p].name);
		stat_line(c, &first, "port", name, d.missed - b.missed);
		snprintf(name, sizeof(name), "%s.rx_nombuf", r->port[p].name);
		stat_line(c, &first, "port", name, d.nombuf - b.nombuf);
		snprintf(name, sizeof(name), "%s.rx_errors", r->port[p].name);
		stat_line(c, &first, "port", name, d.rx_errors - b.rx_errors);
		snprintf(name, sizeof(name), "%s.tx_errors", r->port[p].name);
		stat_line(c, &first, "port", name, d.tx_errors - b.tx_errors);
	}
	for (unsigned int w = 0; w < r->nb_workers; w++) {
		const struct rt_wstats *ws = &r->worker[w].st;
		snprintf(name, sizeof(name), "worker%u.rx", w);
		stat_line(c, &first, "worker", name, ws->rx);
		snprintf(name, sizeof(name), "worker%u.forwarded", w);
		stat_line(c, &first, "worker", name, ws->fwd);
		snprintf(name, sizeof(name), "worker%u.rounds", w);
		stat_line(c, &first, "worker", name, ws->rounds);
		snprintf(name, sizeof(name), "worker%u.busy_rounds", w);
		stat_line(c, &first, "worker", name, ws->busy_rounds);
		snprintf(name, sizeof(name), "worker%u.busy_cycles", w);
		stat_line(c, &first, "worker", name, ws->busy_cycles);
	}
	for (int i = 0; i < RT_DROP_COUNT; i++)
		stat_line(c, &first, "drop", rt_drop_names[i], s.drop[i] - r->base.drop[i]);
	for (int i = 0; i < RT_PUNT_COUNT; i++)
		stat_line(c, &first, "punt", rt_punt_names[i], s.punt[i] - r->base.punt[i]);
	for (unsigned int i = 0; i < RT_CTL_COUNTERS; i++)
		stat_line(c, &first, ctl[i].group, ctl[i].name, ctl[i].value - r->base_ctl[i]);
	fib_lines(c, &first);
	if (c->json)
		rt_buf_printf(c->out, "}\n");
	return 0;
}

/*
 * save: what the operator configured, as the commands that recreate it
 * in a routerd started on the same ports, one a line, in an order that
 * applies: a start-up file (`routerctl save > startup.conf`, then
 * `--startup startup.conf`), or `routerctl -b`. Ports' MTUs, permanent
 * neighbours, nexthops with ids (groups after their members), addresses
 * (not the link-local address each port is given, unless it was
 * deleted), routes of every table other than those the router
 * makes itself, rules, then router advertisements and the ports set
 * down. Learnt neighbours,
 * counters and log levels are not configuration.
 */
static int
cmd_save(struct cli *c)
{
	struct router *r = c->r;
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "save: too many arguments");
	if (c->json || c->family || c->stats)
		return cli_fail(c, EINVAL, "save: no options (it writes commands, both families)");
	char a[64];
	for (uint16_t i = 0; i < r->nb_ports; i++)
		rt_buf_printf(c->out, "link set %s mtu %u\n", r->port[i].name, r->port[i].mtu);
	/* Nexthops before the addresses: one made when its gateway was not
	 * the router's could not be made once it is. */
	cli_neigh_save(c);
	cli_nexthop_save(c);
	/* Addresses in the order they were added, across ports: it decides
	 * the source among equals, and which port an address's shared
	 * routes name. */
	for (unsigned int k = 0; k < r->nb_addrs; k++) {
		const struct rt_addr *ad = &r->addr[k];
		struct fib_prefix ll = rt_port_link_local(r, ad->port);
		if (!rt_prefix_same(&ad->p, &ll))
			rt_buf_printf(c->out, "addr add %s dev %s\n",
				      cli_fmt_prefix(&ad->p, a, sizeof(a)), r->port[ad->port].name);
	}
	for (uint16_t i = 0; i < r->nb_ports; i++) {
		struct fib_prefix ll = rt_port_link_local(r, i);
		bool has_ll = false;
		for (unsigned int k = 0; k < r->nb_addrs && !has_ll; k++)
			has_ll = r->addr[k].port == i && rt_prefix_same(&r->addr[k].p, &ll);
		if (!has_ll)
			rt_buf_printf(c->out, "addr del %s dev %s\n",
				      cli_fmt_prefix(&ll, a, sizeof(a)), r->port[i].name);
	}
	cli_route_save(c);
	cli_rule_save(c);
	for (uint16_t i = 0; i < r->nb_ports; i++) {
		if (r->ra[i].nb_rdnss) {
			rt_buf_printf(c->out, "link set %s rdnss ", r->port[i].name);
			rdnss_list(c, i, false);
			rt_buf_printf(c->out, "\n");
		}
		if (r->ra[i].managed || r->ra[i].other || r->ra[i].lifetime_set) {
			rt_buf_printf(c->out, "link set %s", r->port[i].name);
			ra_options(c, i);
			rt_buf_printf(c->out, "\n");
		}
		if (r->ra[i].on)
			rt_buf_printf(c->out, "link set %s ra on\n", r->port[i].name);
		if (!rt_port_up(r, i))
			rt_buf_printf(c->out, "link set %s down\n", r->port[i].name);
	}
	return 0;
}

int
rt_cli_exec(struct router *r, const char *line, struct rt_buf *out, char *err, size_t errlen)
{
	char buf[4096];
	if (strlen(line) >= sizeof(buf)) {
		snprintf(err, errlen, "line too long");
		return -E2BIG;
	}
	strcpy(buf, line);
	struct cli c = {.r = r, .out = out, .err = err, .errlen = errlen};
	err[0] = 0;
	for (char *save, *t = strtok_r(buf, " \t", &save); t != NULL;
	     t = strtok_r(NULL, " \t", &save)) {
		if (c.argc == CLI_MAX_ARGS) {
			snprintf(err, errlen, "too many arguments");
			return -E2BIG;
		}
		c.argv[c.argc++] = t;
	}
	/* Leading options, as routerctl passes them through. */
	while (c.pos < c.argc && c.argv[c.pos][0] == '-') {
		const char *o = c.argv[c.pos++];
		if (strcmp(o, "-j") == 0)
			c.json = true;
		else if (strcmp(o, "-s") == 0)
			c.stats = true;
		else if (strcmp(o, "-4") == 0)
			c.family = FIB_AF_INET;
		else if (strcmp(o, "-6") == 0)
			c.family = FIB_AF_INET6;
		else
			return cli_fail(&c, EINVAL, "unknown option '%s'", o);
	}
	const char *obj = cli_next(&c);
	if (obj == NULL || obj[0] == '#')
		return 0; /* empty line or comment */
	if (cli_matches(obj, "route"))
		return cli_route(&c);
	if (cli_matches(obj, "addr") || cli_matches(obj, "address"))
		return cmd_addr(&c);
	if (cli_matches(obj, "link"))
		return cmd_link(&c);
	if (strcmp(obj, "save") == 0)
		return cmd_save(&c);
	if (cli_matches(obj, "neighbour") || cli_matches(obj, "neighbor"))
		return cli_neigh(&c);
	if (cli_matches(obj, "nexthop"))
		return cli_nexthop(&c);
	if (cli_matches(obj, "rule"))
		return cli_rule(&c);
	if (cli_matches(obj, "stats"))
		return cmd_stats(&c);
	if (cli_matches(obj, "log"))
		return cmd_log(&c);
	return cli_fail(&c, EINVAL,
			"unknown object '%s' (try route, addr, link, neigh, nexthop, "
			"rule, stats, log, save)",
			obj);
}
