/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ports as links: administratively up or down, and their MTU. What a
 * change means for routing: the nexthops' headers (lib/nexthop), the
 * routes through the port (lib/fib's fib_sync_down) and the router
 * advertisements. Control core only.
 */
#include <errno.h>
#include <string.h>

#include <rte_ethdev.h>

#include "ctl_priv.h"

void
rt_fib_sync_down(struct router *r, const char *what)
{
	int rc = fib_sync_down(r->fib);
	if (rc < 0)
		RT_LOG(WARNING, control,
		       "%s: routes whose nexthops came back could not all be installed (%s): "
		       "they stay down until the next change",
		       what, strerror(-rc));
}

void
rt_link_set_up(struct router *r, uint16_t port, bool up)
{
	if (up == rt_dp_port_up(&r->dp, port))
		return;
	RT_LOG(NOTICE, control, "%s: %s", r->dp.port[port].name, up ? "up" : "down");
	/* The workers' mask changes before the headers when going down,
	 * after them when coming up (rt_dp_port_set_down). */
	if (up) {
		rte_eth_dev_set_link_up(port);
		(void)nh_port_down(r->nh, port, false);
		rt_dp_port_set_down(&r->dp, port, false);
	} else {
		rte_eth_dev_set_link_down(port);
		rt_dp_port_set_down(&r->dp, port, true);
		(void)nh_port_down(r->nh, port, true);
	}
	rt_fib_sync_down(r, r->dp.port[port].name);
}

int
rt_link_set_mtu(struct router *r, uint16_t port, uint16_t mtu)
{
	struct rt_port *p = &r->dp.port[port];
	if (mtu == p->mtu)
		return 0;
	/* Best effort on the device (virtual ones may refuse); the router
	 * enforces the MTU itself through the nexthops. */
	(void)rte_eth_dev_set_mtu(port, mtu);
	int rc = nh_port_set(r->nh, port, p->mac.addr_bytes, mtu);
	if (rc < 0)
		return rc;
	RT_LOG(NOTICE, control, "%s: mtu %u -> %u", p->name, p->mtu, mtu);
	p->mtu = mtu;
	rt_ra_changed(r, port);
	return 0;
}
