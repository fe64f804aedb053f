/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The words every command is made of, parsed and printed as iproute2
 * parses and prints them: addresses and prefixes, numbers, ports, MACs,
 * tables, and the packet selectors of rules and route get. Each parser
 * either sets its result or fails with the one-line error (cli_fail).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_priv.h"

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
	for (uint16_t i = 0; i < c->r->dp.nb_ports; i++) {
		if (strcmp(s, c->r->dp.port[i].name) == 0) {
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
	return iif == FIB_IIF_LOCAL ? "lo" : r->dp.port[iif].name;
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
bool
cli_opt_port(struct cli *c, uint16_t *port, int *rc)
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
