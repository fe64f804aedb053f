/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd: start-up and shutdown. EAL, the settings, the libraries, the
 * ports (every probed ethdev, named port<N>), the workers (every lcore but
 * the main one), the startup file, then the control loop until SIGINT or
 * SIGTERM.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_pdump.h>
#include <rte_ring.h>

#include "cli.h"
#include "conf.h"
#include "control.h"

static struct router *running;

static void
on_signal(int sig)
{
	(void)sig;
	if (running != NULL) {
		running->stop = 1;
		rt_loop_wake();
	}
}

static int
fail(const char *what, int rc)
{
	RT_LOG(ERR, main, "%s: %s", what, strerror(rc < 0 ? -rc : rc));
	return -1;
}

static int
setup_port(struct router *r, uint16_t id)
{
	struct rte_eth_dev_info info;
	int rc = rte_eth_dev_info_get(id, &info);
	if (rc < 0)
		return rc;
	uint16_t nq = (uint16_t)r->dp.nb_workers;
	if (info.max_rx_queues < nq || info.max_tx_queues < nq) {
		RT_LOG(ERR, main,
		       "port%u (%s) has %u RX and %u TX queues; %u workers need "
		       "%u of each (for net_af_packet: qpairs=%u)",
		       id, info.driver_name, info.max_rx_queues, info.max_tx_queues, nq, nq, nq);
		return -EINVAL;
	}
	struct rte_eth_conf conf = {0};
	if (nq > 1 && info.flow_type_rss_offloads != 0) {
		/* Several workers: RSS spreads the flows over their queues. */
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			info.flow_type_rss_offloads &
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP);
	}
	/* Carrier changes by interrupt where the driver raises them (link.c). */
	if (info.dev_flags != NULL && (*info.dev_flags & RTE_ETH_DEV_INTR_LSC))
		conf.intr_conf.lsc = 1;
	/* Let the NIC check IPv4 header checksums where it can: the stage
	 * then skips its own sum for packets marked good (datapath/ipv4.c). */
	bool rx_ip_csum = (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
	if (rx_ip_csum)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	/* One RX and one TX queue per worker. */
	if ((rc = rte_eth_dev_configure(id, nq, nq, &conf)) < 0)
		return rc;
	uint16_t rxd = r->conf.rx_desc, txd = r->conf.tx_desc;
	rte_eth_dev_adjust_nb_rx_tx_desc(id, &rxd, &txd);
	int socket = rte_eth_dev_socket_id(id);
	for (uint16_t q = 0; q < nq; q++)
		if ((rc = rte_eth_rx_queue_setup(id, q, rxd, socket, NULL, r->pool)) < 0)
			return rc;
	for (uint16_t q = 0; q < nq; q++)
		if ((rc = rte_eth_tx_queue_setup(id, q, txd, socket, NULL)) < 0)
			return rc;
	if ((rc = rte_eth_dev_start(id)) < 0)
		return rc;
	struct rt_port *p = &r->dp.port[id];
	p->id = id;
	p->rx_ip_csum = rx_ip_csum;
	snprintf(p->name, sizeof(p->name), "port%u", id);
	snprintf(p->driver, sizeof(p->driver), "%s", info.driver_name);
	rte_eth_macaddr_get(id, &p->mac);
	uint16_t mtu = 1500;
	rte_eth_dev_get_mtu(id, &mtu);
	p->mtu = mtu;
	/* The rings as the driver made them, where it says (memif sizes its
	 * own, by its rsize devarg, and says nothing). */
	struct rte_eth_rxq_info rq;
	struct rte_eth_txq_info tq;
	char rings[64];
	if (rte_eth_rx_queue_info_get(id, 0, &rq) == 0 &&
	    rte_eth_tx_queue_info_get(id, 0, &tq) == 0)
		snprintf(rings, sizeof(rings), "%u/%u descriptors", rq.nb_desc, tq.nb_desc);
	else
		snprintf(rings, sizeof(rings), "rings sized by the driver");
	RT_LOG(INFO, main, "%s: %s, " RT_MAC_FMT ", mtu %u, %u queue pair%s of %s%s%s", p->name,
	       info.driver_name, RT_MAC_BYTES(p->mac.addr_bytes), p->mtu, nq, nq > 1 ? "s" : "",
	       rings, conf.rxmode.mq_mode == RTE_ETH_MQ_RX_RSS ? ", RSS" : "",
	       rx_ip_csum ? ", IPv4 RX checksum offload" : "");
	return nh_port_set(r->nh, id, p->mac.addr_bytes, p->mtu);
}

/* The port's IPv6 link-local address: hosts and routing protocols use
 * it as the next hop. */
static int
add_link_local(struct router *r, uint16_t id)
{
	struct fib_prefix ll = rt_port_link_local(r, id);
	return rt_addr_add(r, id, &ll);
}

static int
setup_workers(struct router *r)
{
	unsigned int lcore;
	RTE_LCORE_FOREACH_WORKER(lcore)
	{
		if (r->dp.nb_workers == RT_MAX_WORKERS)
			break;
		struct rt_worker *w = &r->dp.worker[r->dp.nb_workers];
		w->id = r->dp.nb_workers++;
		w->lcore = lcore;
	}
	if (r->dp.nb_workers == 0) {
		RT_LOG(ERR, main, "no worker lcore: give EAL two or more (-l 0,1)");
		return -EINVAL;
	}
	return 0;
}

/* A TX buffer of RT_BURST packets for port. Forwarded packets' buffers
 * are sent by dp_tx_flush, into the backlog when refused (dropped is
 * NULL); the control core's by rte_eth_tx_buffer_flush, which frees what
 * the queue refuses and counts it in *dropped. */
static struct rte_eth_dev_tx_buffer *
tx_buffer(uint16_t port, uint64_t *dropped)
{
	struct rte_eth_dev_tx_buffer *b = rte_zmalloc_socket(
		"txb", RTE_ETH_TX_BUFFER_SIZE(RT_BURST), 0, rte_eth_dev_socket_id(port));
	if (b == NULL)
		return NULL;
	rte_eth_tx_buffer_init(b, RT_BURST);
	if (dropped != NULL)
		rte_eth_tx_buffer_set_err_callback(b, rte_eth_tx_buffer_count_callback, dropped);
	return b;
}

static int
setup_worker_io(struct router *r)
{
	unsigned int shift = rt_exc_ring_shift(r->dp.nb_ports, r->dp.nb_workers, r->conf.nb_mbufs);
	unsigned int backlog = rt_txq_backlog_size(r->conf.tx_backlog, r->dp.nb_ports,
						   r->dp.nb_workers, r->conf.nb_mbufs);
	RT_LOG(INFO, main,
	       "TX backlog: %u packets a queue (tx-backlog %u, as a power of two whose %u "
	       "queues hold at most a quarter of the %u mbufs)",
	       backlog, r->conf.tx_backlog, r->dp.nb_ports * r->dp.nb_workers, r->conf.nb_mbufs);
	for (unsigned int i = 0; i < r->dp.nb_workers; i++) {
		struct rt_worker *w = &r->dp.worker[i];
		int rc = rt_worker_exc_create(w, r->dp.nb_ports, shift);
		if (rc < 0)
			return rc;
		w->nh = nh_worker_view(r->nh, i);
		w->peers = &r->dp.peers;
		w->nh_used = rte_zmalloc_socket("nh_used", sizeof(uint32_t) * (NH_INDEX_MAX + 1),
						RTE_CACHE_LINE_SIZE,
						(int)rte_lcore_to_socket_id(w->lcore));
		if (w->nh_used == NULL)
			return -ENOMEM;
		for (uint16_t p = 0; p < r->dp.nb_ports; p++) {
			w->txb[p] = tx_buffer(p, NULL);
			if (w->txb[p] == NULL)
				return -ENOMEM;
			rc = rt_txq_backlog_create(w, p, backlog, rte_eth_dev_socket_id(p));
			if (rc < 0)
				return rc;
			if (i != 0) /* worker 0 sends the control core's packets */
				continue;
			w->ctl_txb[p] = tx_buffer(p, &w->st.ctl_tx_dropped);
			if (w->ctl_txb[p] == NULL)
				return -ENOMEM;
		}
	}
	return 0;
}

/* Every probed ethdev, named port<N>, with its link-local address; the
 * control core's TX ring and the workers' queues and buffers on them.
 * @return 0, or main's exit status. */
static int
setup_ports(struct router *r)
{
	int rc;
	r->dp.nb_ports = 0;
	uint16_t id;
	RTE_ETH_FOREACH_DEV(id)
	{
		if (id >= RT_MAX_PORTS) {
			RT_LOG(ERR, main, "more than %u ports", RT_MAX_PORTS);
			return 2;
		}
		if ((rc = setup_port(r, id)) < 0) {
			char what[32];
			snprintf(what, sizeof(what), "port%u setup", id);
			return fail(what, rc);
		}
		r->dp.nb_ports = id + 1;
	}
	if (r->dp.nb_ports == 0)
		RT_LOG(WARNING, main, "no ports (give EAL --vdev or a PCI device)");
	for (uint16_t p = 0; p < r->dp.nb_ports; p++)
		if ((rc = add_link_local(r, p)) < 0)
			return fail("link-local address", rc);
	r->dp.ctl_tx = rte_ring_create("ctl_tx", 4096, (int)rte_socket_id(),
				       RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (r->dp.ctl_tx == NULL)
		return fail("control TX ring", -rte_errno);
	if ((rc = setup_worker_io(r)) < 0)
		return fail("worker queues", rc);
	if ((rc = rt_link_start(r)) < 0)
		return fail("link state", rc);
	return 0;
}

/* A file `save` wrote (its first line) must have its last line: one
 * without was cut short (a `routerctl save > f` stopped halfway), and
 * what it lacks (rules, ports set down come last) would start the
 * router open. @return 0, or -EINVAL with the reason logged. */
static int
startup_whole(FILE *f, const char *path)
{
	char line[4096], last[sizeof(line)] = "";
	bool saved = false;
	for (unsigned int n = 0; fgets(line, sizeof(line), f) != NULL; n++) {
		line[strcspn(line, "\r\n")] = 0;
		if (n == 0)
			saved = strcmp(line, CLI_SAVE_FIRST) == 0;
		if (line[strspn(line, " \t")] != 0)
			strcpy(last, line);
	}
	rewind(f);
	if (saved && strcmp(last, CLI_SAVE_LAST) != 0) {
		RT_LOG(ERR, main,
		       "%s: written by routerctl save but cut short (its last line is not '%s'): "
		       "not applied",
		       path, CLI_SAVE_LAST);
		return -EINVAL;
	}
	return 0;
}

/* Apply the startup file: every line must succeed. */
static int
run_startup(struct router *r, const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		RT_LOG(ERR, main, "%s: %s", path, strerror(errno));
		return -errno;
	}
	char line[4096], err[256];
	unsigned int n = 0;
	int rc = startup_whole(f, path);
	struct rt_buf out = {0};
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		n++;
		line[strcspn(line, "\r\n")] = 0;
		out.len = 0;
		if ((rc = rt_cli_exec(r, line, true, &out, err, sizeof(err))) < 0)
			RT_LOG(ERR, main, "%s:%u: %s", path, n, err);
	}
	free(out.s);
	fclose(f);
	return rc;
}

/* The SIMD width the operator forced (EAL's --force-max-simd-bitwidth,
 * which the EAL checks), or 0. DPDK's default limit (256 bits) is its
 * own libraries'; routerd's lookups and stages take the processor's best
 * unless the operator set one. */
static unsigned int
simd_forced(int argc, char **argv)
{
	static const char opt[] = "--force-max-simd-bitwidth";
	for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strncmp(argv[i], opt, sizeof(opt) - 1) != 0)
			continue;
		const char *v = argv[i][sizeof(opt) - 1] == '=' ? argv[i] + sizeof(opt)
				: i + 1 < argc                  ? argv[i + 1]
								: "0";
		return (unsigned int)strtoul(v, NULL, 0);
	}
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned int forced = simd_forced(argc, argv);
	int n = rte_eal_init(argc, argv);
	if (n < 0) {
		fprintf(stderr, "routerd: EAL initialisation failed%s%s\n", rte_errno ? ": " : "",
			rte_errno ? rte_strerror(rte_errno) : " (see above)");
		return 1;
	}
	argv[n] = argv[0];
	argc -= n;
	argv += n;
	unsigned int bits = forced ? forced : 512;
	const char *isa = fib_isa_select(bits);
	RT_LOG(NOTICE, main, "burst lookups and stages: %s (SIMD width limit %u, %s)", isa, bits,
	       forced ? "forced" : "the processor's best");
	static struct router r;
	conf_defaults(&r.conf);
	if (conf_options(&r.conf, argc, argv) < 0)
		return 2;

	int rc = rt_meta_register();
	if (rc < 0)
		return fail("mbuf metadata", rc);
	r.pool = rte_pktmbuf_pool_create("pkts", r.conf.nb_mbufs, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					 (int)rte_socket_id());
	if (r.pool == NULL)
		return fail("packet pool", -rte_errno);
	if ((rc = setup_workers(&r)) < 0)
		return 2;
	r.dp.idle_backoff = r.conf.idle_backoff;
	r.dp.idle_sleep_us = r.conf.idle_sleep_us;
	if ((rc = rt_tables_create(&r)) < 0 || (rc = rt_control_init(&r)) < 0)
		return fail("libraries", rc);
	if ((rc = setup_ports(&r)) != 0)
		return rc;
	if ((rc = rt_cport_init(&r)) < 0)
		return fail("control-plane ports (--no-control-ports runs without them)", rc);
	/* The operator's configuration before the kernel's routes: a saved
	 * route whose place the kernel's table also holds is the operator's
	 * (the mirror skips the kernel's while it stands), so a start-up
	 * file never fails on what the kernel has. */
	if (r.conf.startup[0] && run_startup(&r, r.conf.startup) < 0)
		return 2;
	if ((rc = rt_mirror_init(&r)) < 0)
		return fail("kernel routes (kernel-routes off runs without them)", rc);

	running = &r;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	/* dpdk-dumpcap can capture on any port (a secondary process). */
	if (rte_pdump_init() != 0)
		RT_LOG(WARNING, main, "packet capture unavailable: %s", rte_strerror(rte_errno));
	if ((rc = cli_server_start(&r)) < 0) {
		RT_LOG(ERR, main, "control socket %s: %s", r.conf.socket_path,
		       rc == -EADDRINUSE ? "another routerd answers on it" : strerror(-rc));
		return 1;
	}
	rte_eal_mp_remote_launch(rt_worker_main, &r.dp, SKIP_MAIN);
	RT_LOG(NOTICE, main, "%u ports, %u workers, socket %s", r.dp.nb_ports, r.dp.nb_workers,
	       r.conf.socket_path);
	rc = rt_control_run(&r);
	RT_LOG(NOTICE, main, "stopping");
	cli_server_stop(&r);
	r.dp.quit = 1;
	rte_eal_mp_wait_lcore();
	for (uint16_t p = 0; p < r.dp.nb_ports; p++) {
		rte_eth_dev_stop(p);
		rte_eth_dev_close(p);
	}
	rte_pdump_uninit();
	rt_mirror_fini(&r);
	rt_cport_fini(&r);
	rt_control_fini(&r);
	fib_free(r.fib);
	nh_table_free(r.nh);
	rte_eal_cleanup();
	return rc < 0 ? 1 : 0;
}
