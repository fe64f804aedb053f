/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_ring.h>

#include "dp_harness.h"

static void
die(const char *what, int err)
{
	fprintf(stderr, "dp_harness: %s: %s\n", what, strerror(err));
	exit(1);
}

int
dp_harness_eal(const char *argv0, const char *file_prefix, unsigned int nb_null)
{
	char prefix[64];
	snprintf(prefix, sizeof(prefix), "--file-prefix=%s", file_prefix);
	char *argv[16] = {(char *)argv0,
			  "-l",
			  "0",
			  "--no-huge",
			  "-m",
			  "256",
			  "--no-pci",
			  "--no-telemetry",
			  "--log-level=lib.eal:error",
			  prefix};
	int argc = 10;
	static char *const nulls[] = {"--vdev=net_null0", "--vdev=net_null1"};
	for (unsigned int i = 0; i < nb_null && i < RTE_DIM(nulls); i++)
		argv[argc++] = nulls[i];
	return rte_eal_init(argc, argv);
}

void
dp_harness_setup(struct router *r, unsigned int tx_buffer)
{
	int rc = rt_meta_register();
	if (rc < 0)
		die("mbuf metadata", -rc);
	r->conf.hash_policy = NH_HASH_L4;
	r->dp.nb_workers = 1;
	if ((rc = rt_tables_create(r)) < 0)
		die("tables", -rc);
	r->pool = rte_pktmbuf_pool_create("harness", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					  (int)rte_socket_id());
	if (r->pool == NULL)
		die("mbuf pool", rte_errno);
	uint16_t id;
	RTE_ETH_FOREACH_DEV(id)
	{
		if (id >= 2)
			break;
		struct rte_eth_conf conf = {0};
		if (rte_eth_dev_configure(id, 1, 1, &conf) < 0 ||
		    rte_eth_rx_queue_setup(id, 0, 512, (int)rte_socket_id(), NULL, r->pool) < 0 ||
		    rte_eth_tx_queue_setup(id, 0, 512, (int)rte_socket_id(), NULL) < 0 ||
		    rte_eth_dev_start(id) < 0)
			die("port", EIO);
		struct rt_port *p = &r->dp.port[id];
		p->id = id;
		p->mtu = 1500;
		rte_eth_macaddr_get(id, &p->mac);
		nh_port_set(r->nh, id, p->mac.addr_bytes, p->mtu);
		r->dp.nb_ports = (uint16_t)(id + 1);
	}
	if (r->dp.nb_ports < 2)
		die("two ports are needed (--vdev=net_null0 --vdev=net_null1)", EINVAL);
	struct rt_worker *w = &r->dp.worker[0];
	rc = rt_worker_exc_create(w, r->dp.nb_ports, 0);
	w->nh = nh_worker_view(r->nh, 0);
	w->peers = &r->dp.peers;
	w->nh_used = rte_zmalloc("nh_used", sizeof(uint32_t) * (NH_INDEX_MAX + 1), 64);
	if (rc < 0 || w->nh_used == NULL)
		die("worker", ENOMEM);
	for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
		w->txb[p] = rte_zmalloc("txb", RTE_ETH_TX_BUFFER_SIZE(tx_buffer), 0);
		if (w->txb[p] == NULL)
			die("tx buffer", ENOMEM);
		rte_eth_tx_buffer_init(w->txb[p], (uint16_t)tx_buffer);
	}
}

uint32_t
dp_harness_gateway(struct router *r, uint8_t family, uint8_t last, const uint8_t mac[6])
{
	struct nh_spec s = {.type = NH_T_GATEWAY, .family = family, .port = 1};
	if (family == FIB_AF_INET) {
		s.gw[0] = 10, s.gw[1] = 255, s.gw[3] = last;
	} else {
		s.gw[0] = 0x20, s.gw[1] = 0x01, s.gw[2] = 0x0d, s.gw[3] = 0xb8, s.gw[15] = last;
	}
	uint32_t idx;
	if (nh_add(r->nh, &s, &idx) < 0)
		die("gateway", ENOSPC);
	nh_neigh_update(r->nh, 1, family, s.gw, mac);
	return idx;
}
