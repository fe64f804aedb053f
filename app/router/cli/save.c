/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include "cli_priv.h"

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
 * counters and log levels are not configuration, nor are the kernel's
 * routes the mirror follows (a routing daemon's: they come from Linux
 * again). The first and last lines are the comments CLI_SAVE_FIRST and
 * CLI_SAVE_LAST: a start-up file that begins with the one and lacks the
 * other was cut short, and routerd refuses it (run_startup).
 */
int
cli_save(struct cli *c)
{
	if (cli_next(c) != NULL)
		return cli_fail(c, EINVAL, "save: too many arguments");
	if (c->json || c->family || c->stats)
		return cli_fail(c, EINVAL, "save: no options (it writes commands, both families)");
	rt_buf_printf(c->out, "%s\n", CLI_SAVE_FIRST);
	cli_link_save_mtu(c);
	/* Nexthops before the addresses: one made when its gateway was not
	 * the router's could not be made once it is. */
	cli_neigh_save(c);
	cli_nexthop_save(c);
	cli_addr_save(c);
	cli_route_save(c);
	cli_rule_save(c);
	cli_link_save_state(c);
	rt_buf_printf(c->out, "%s\n", CLI_SAVE_LAST);
	return 0;
}
