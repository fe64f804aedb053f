/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command language, as iproute2's: `OBJECT COMMAND ARGS`, objects and
 * commands abbreviable ("r a" is "route add"). This file splits a line
 * into words, reads the leading options and hands the rest to the
 * object's file (link.c, addr.c, route.c, rule.c, nexthop.c, neigh.c,
 * stats.c, log.c, save.c). A command either applies whole or fails with
 * one line naming what was wrong.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_ethdev.h>

#include "cli_priv.h"

int
cli_fail(struct cli *c, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(c->err, c->errlen, fmt, ap);
	va_end(ap);
	return -e;
}

int
cli_may_change(struct cli *c, const char *obj, const char *cmd)
{
	if (c->may_change)
		return 0;
	return cli_fail(c, EPERM,
			"permission denied: '%s %s' changes the router, which only root "
			"(or routerd's own user) may; this connection may only read",
			obj, cmd);
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

int
rt_cli_exec(struct router *r, const char *line, bool may_change, struct rt_buf *out, char *err,
	    size_t errlen)
{
	char buf[4096];
	if (strlen(line) >= sizeof(buf)) {
		snprintf(err, errlen, "line too long");
		return -E2BIG;
	}
	strcpy(buf, line);
	struct cli c = {.r = r, .out = out, .err = err, .errlen = errlen, .may_change = may_change};
	json_init(&c.j, out);
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
		return cli_addr(&c);
	if (cli_matches(obj, "link"))
		return cli_link(&c);
	if (strcmp(obj, "save") == 0)
		return cli_save(&c);
	if (cli_matches(obj, "neighbour") || cli_matches(obj, "neighbor"))
		return cli_neigh(&c);
	if (cli_matches(obj, "nexthop"))
		return cli_nexthop(&c);
	if (cli_matches(obj, "rule"))
		return cli_rule(&c);
	if (cli_matches(obj, "stats"))
		return cli_stats(&c);
	if (cli_matches(obj, "log"))
		return cli_log(&c);
	return cli_fail(&c, EINVAL,
			"unknown object '%s' (try route, addr, link, neigh, nexthop, "
			"rule, stats, log, save)",
			obj);
}
