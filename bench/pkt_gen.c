/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The project's traffic generator: UDP frames to random addresses in
 * random prefixes of a table, the pattern ring_loop puts in the ring loop.
 * Two modes:
 *
 *   pkt_gen [EAL: one port] -- --table FILE --dmac MAC [--seconds S]
 *           [--flows N] [--src ADDR] [--sources N] [--rate PPS] [--size N|imix]
 *     streams on its port for S seconds, as fast as the port takes the
 *     frames (memif pushes back when the receiver falls behind, so the
 *     rate sent is the receiver's) or paced at RATE, and prints the
 *     packets a second it sent, every second and overall. Whatever comes
 *     back is received and freed, so a peer is never held up by it.
 *
 *   pkt_gen [EAL: two ports] -- --commands --table FILE --dmac MAC [--retry] ...
 *     the tester of an RFC 2544 trial (bench/ndr.sh): sends on the first
 *     port, receives what the device under test forwards on the second,
 *     and takes commands on stdin, one a line:
 *       trial RATE SECONDS  offer RATE packets a second (0: as fast as
 *                           the port takes them) for SECONDS, wait for
 *                           the stragglers, print one "result" line;
 *       size N|imix         rebuild the frames at N bytes, or IMIX;
 *       quit
 *     It prints "ready" once both ports are up.
 *
 *   pkt_gen [EAL: no port] -- --pcap OUT --table FILE --dmac MAC ...
 *     writes the frames it would send to a pcap file and exits: the same
 *     traffic for pktgen-dpdk to replay (bench/pktgen.sh).
 *
 * Frames are built once, N (--flows, default 4096) of them, as
 * templates. Flow I comes from source port 1024 + I and from source
 * address ADDR + I mod --sources (default 64, counted in the address's
 * last 16 bits; ADDR from --src, default 192.0.2.100 or 2001:db8:1::100),
 * so that RSS and ECMP hashes see both vary; each burst copies the next 32 into freshly allocated mbufs,
 * which the driver frees after its own copy. (Sending the templates
 * themselves with their reference count raised cost two atomic
 * read-modify-writes a packet, enough to make the generator the bound.)
 *
 * Sizes count the FCS, as RFC 2544 does: 64 bytes is 60 in the mbuf.
 * IMIX is the simple 7:4:1 mix of 64, 594 and 1518 bytes. Each frame with
 * room for it carries a 12-byte tag after its UDP header (the trial's
 * number and the TSC at sending), from which the receiving side reads the
 * latency. A 64-byte IPv6 frame has no such room: it carries instead, in
 * its flow label (which routers leave as it is), the number of its burst,
 * whose TSC at sending the generator keeps (a burst is stamped once).
 * The TSC is the same clock on every core of the machine (constant and
 * synchronised on the CPUs this runs on), so a tag stamped on one core
 * and read on another, in the process of the same generator, is exact.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include "bench_util.h"
#include "lat_hist.h"
#include "prefix_file.h"
#include "udp_frame.h"

#define BURST 32
#define TAG_LEN 12
#define TAG_MAGIC 0x52470000u /* "RG" and the trial's number */
/* Bursts numbered in IPv6 flow labels: 1..2^20-1, then again; 33 million
 * frames, seconds at any rate, before a number comes back. */
#define SEQ_MASK 0xfffffu
#define IMIX_SIZE 0 /* --size imix */
#define AWAY_US 50  /* a round of the trial's loop takes a few µs */

static volatile int stop;

static void
on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct gen {
	uint16_t tx_port, rx_port;
	uint8_t family;
	uint16_t tag_off; /* UDP payload: where the tag goes */
	uint16_t size;    /* bytes a frame, or IMIX_SIZE */
	uint32_t n_tpl, n_src, next, trial;
	uint64_t hz;
	struct rte_mempool *mp;
	struct rte_mbuf **tpl;
	struct rte_ether_addr dmac, smac;
	uint8_t src[16];
	struct prefix_list pl;
	struct lat_hist hist;
	uint32_t seq;        /* the last burst's number (IPv6) */
	uint64_t *burst_tsc; /* by burst number: its TSC at sending (IPv6) */
	uint64_t trial_t0;   /* the TSC the trial started at */
	bool retry;          /* --retry: offer refused frames again */
	uint16_t n_pend;     /* frames of pend to offer (again) */
	struct rte_mbuf *pend[BURST];
};

/* The mix's frame I: seven of 64 bytes, four of 594, one of 1518,
 * spread over twelve so that no burst is all of one size. */
static uint16_t
imix_size(uint32_t i)
{
	static const uint16_t mix[12] = {64, 594, 64, 64, 1518, 64, 594, 64, 64, 594, 64, 594};
	return mix[i % 12];
}

static void
build_templates(struct gen *g)
{
	if (g->tpl[0] != NULL)
		rte_pktmbuf_free_bulk(g->tpl, g->n_tpl);
	if (rte_pktmbuf_alloc_bulk(g->mp, g->tpl, g->n_tpl) != 0)
		bench_die("mbufs", -ENOMEM);
	uint64_t seed = 0x6e6;
	unsigned int alen = g->family == FIB_AF_INET ? 4 : 16;
	for (uint32_t i = 0; i < g->n_tpl; i++) {
		uint8_t dst[16], src[16];
		const struct fib_prefix *p = &g->pl.p[xorshift64(&seed) % g->pl.n];
		uint64_t h = xorshift64(&seed), l = xorshift64(&seed);
		prefix_pick(p, h, l, dst);
		memcpy(src, g->src, alen);
		uint16_t low = (uint16_t)((src[alen - 2] << 8 | src[alen - 1]) + i % g->n_src);
		src[alen - 2] = (uint8_t)(low >> 8);
		src[alen - 1] = (uint8_t)low;
		udp_frame_sized(g->tpl[i], g->family, &g->dmac, &g->smac, src, dst,
				(uint16_t)(1024 + i),
				g->size == IMIX_SIZE ? imix_size(i) : g->size);
	}
	g->next = 0;
}

/* Stamp N frames with the TSC now: the tag, or (a 64-byte IPv6 frame)
 * the number of a burst whose TSC is kept. Done again when a refused
 * frame is offered again, so that its latency is the device's. */
static void
stamp(struct gen *g, struct rte_mbuf **b, uint16_t n)
{
	uint64_t now = rte_rdtsc();
	uint32_t tag = TAG_MAGIC | (g->trial & 0xffff);
	uint32_t seq = 0;
	if (g->burst_tsc != NULL) {
		seq = g->seq = g->seq % SEQ_MASK + 1;
		g->burst_tsc[seq] = now;
	}
	for (uint16_t k = 0; k < n; k++) {
		uint8_t *d = rte_pktmbuf_mtod(b[k], uint8_t *);
		if (b[k]->data_len >= g->tag_off + TAG_LEN) {
			memcpy(d + g->tag_off, &tag, 4);
			memcpy(d + g->tag_off + 4, &now, 8);
		} else if (seq != 0) { /* the flow label: bytes 1-3, low 20 bits */
			d[15] = (uint8_t)((d[15] & 0xf0) | seq >> 16);
			d[16] = (uint8_t)(seq >> 8);
			d[17] = (uint8_t)seq;
		}
	}
}

/* Offer a burst: the frames the port refused last time (with --retry),
 * or the next BURST. Returns how many the port took. Without --retry
 * what it refuses is freed; with it, it is offered again next time, as
 * pktgen-dpdk does (its TX buffer's error callback keeps them). */
static uint16_t
send_burst(struct gen *g, uint64_t *bytes)
{
	struct rte_mbuf **b = g->pend;
	if (g->n_pend == 0) {
		if (rte_pktmbuf_alloc_bulk(g->mp, b, BURST) != 0)
			bench_die("mbufs in flight", -ENOMEM);
		for (int k = 0; k < BURST; k++) {
			const struct rte_mbuf *t = g->tpl[g->next + (uint32_t)k];
			rte_memcpy(rte_pktmbuf_mtod(b[k], void *), rte_pktmbuf_mtod(t, const void *),
				   t->data_len);
			b[k]->data_len = t->data_len;
			b[k]->pkt_len = t->pkt_len;
		}
		g->n_pend = BURST;
		g->next = g->next + BURST + BURST > g->n_tpl ? 0 : g->next + BURST;
	}
	stamp(g, b, g->n_pend);
	uint16_t n = rte_eth_tx_burst(g->tx_port, 0, b, g->n_pend);
	for (uint16_t k = 0; k < n; k++)
		*bytes += b[k]->pkt_len + RTE_ETHER_CRC_LEN;
	uint16_t left = (uint16_t)(g->n_pend - n);
	if (left > 0 && g->retry) {
		memmove(b, b + n, left * sizeof(b[0]));
	} else if (left > 0) {
		rte_pktmbuf_free_bulk(b + n, left);
		left = 0;
	}
	g->n_pend = left;
	return n;
}

/* Free what is still waiting to be offered again; returns how many. */
static uint16_t
drop_pending(struct gen *g)
{
	uint16_t n = g->n_pend;
	if (n > 0)
		rte_pktmbuf_free_bulk(g->pend, n);
	g->n_pend = 0;
	return n;
}

/* Receive a burst on the receiving port; latency of this trial's tags. */
static uint16_t
receive(struct gen *g)
{
	struct rte_mbuf *b[BURST];
	uint16_t got = rte_eth_rx_burst(g->rx_port, 0, b, BURST);
	if (got == 0)
		return 0;
	uint64_t now = rte_rdtsc();
	uint32_t want = TAG_MAGIC | (g->trial & 0xffff), tag;
	for (uint16_t k = 0; k < got; k++) {
		const uint8_t *d = rte_pktmbuf_mtod(b[k], const uint8_t *);
		uint64_t sent;
		if (b[k]->data_len >= g->tag_off + TAG_LEN) {
			memcpy(&tag, d + g->tag_off, 4);
			memcpy(&sent, d + g->tag_off + 4, 8);
			if (tag != want)
				continue;
		} else if (g->burst_tsc != NULL && b[k]->data_len >= 14 + 40) {
			uint32_t seq =
				(uint32_t)(d[15] & 0x0f) << 16 | (uint32_t)d[16] << 8 | d[17];
			sent = g->burst_tsc[seq];
			if (seq == 0 || sent < g->trial_t0) /* untagged, or an earlier trial's */
				continue;
		} else {
			continue;
		}
		if (sent <= now)
			lat_hist_add(&g->hist, (now - sent) * 1000000000 / g->hz);
	}
	rte_pktmbuf_free_bulk(b, got);
	return got;
}

/* One trial: offer RATE (0: all the port takes) for SECONDS, then
 * receive until 50 ms pass with nothing (a second at most), and print
 * the counts and the latency. A frame the port refused counts as offered
 * and lost at a set rate: on a wire it would have been dropped at the
 * receiver's full RX ring, which is what memif's full ring stands for.
 * With --retry it is offered again (receiving in between), pktgen-dpdk's
 * way over memif: the ring then throttles the tester and only the
 * device's own drops count as lost. */
static void
trial(struct gen *g, double rate, double seconds)
{
	while (receive(g) > 0) /* stragglers of the last trial */
		;
	g->trial++;
	lat_hist_reset(&g->hist);
	uint64_t offered = 0, sent = 0, received = 0, bytes = 0;
	uint64_t t0 = rte_rdtsc(), end = t0 + (uint64_t)(seconds * (double)g->hz);
	g->trial_t0 = t0;
	double cycles_per_pkt = rate > 0 ? (double)g->hz / rate : 0;
	/* Time the loop was away (more than AWAY_US between two rounds):
	 * the tester's CPU taken from it, which delays what it sends and
	 * what it receives alike, so that the trial's latency is not only
	 * the device's. */
	uint64_t now = t0, prev = t0, away = 0, away_max = 0, away_min = g->hz / 1000000 * AWAY_US;
	while (now < end && !stop) {
		received += receive(g);
		now = rte_rdtsc();
		if (now - prev > away_min) {
			away += now - prev;
			away_max = RTE_MAX(away_max, now - prev);
		}
		prev = now;
		bool fresh = g->n_pend == 0;
		if (fresh && rate > 0 && now < t0 + (uint64_t)((double)offered * cycles_per_pkt))
			continue;
		uint16_t n = send_burst(g, &bytes);
		sent += n;
		offered += rate == 0 ? n : fresh ? BURST : 0;
	}
	/* frames refused to the end (--retry) were never taken: not offered */
	uint16_t left = drop_pending(g);
	if (rate > 0)
		offered -= left;
	double secs = (double)(now - t0) / (double)g->hz;
	uint64_t quiet = now, limit = now + g->hz;
	while ((now = rte_rdtsc()) < limit && now - quiet < g->hz / 20) {
		uint16_t got = receive(g);
		received += got;
		if (got > 0)
			quiet = now;
	}
	printf("result rate_pps %.0f offered %llu sent %llu received %llu seconds %.3f "
	       "frame_bytes %.1f lat_n %llu lat_min_ns %llu lat_p50_ns %llu lat_p99_ns %llu "
	       "lat_max_ns %llu away_us %llu away_max_us %llu\n",
	       (double)offered / secs, (unsigned long long)offered, (unsigned long long)sent,
	       (unsigned long long)received, secs, sent ? (double)bytes / (double)sent : 0.0,
	       (unsigned long long)g->hist.n, (unsigned long long)(g->hist.n ? g->hist.min_ns : 0),
	       (unsigned long long)lat_hist_quantile(&g->hist, 0.5),
	       (unsigned long long)lat_hist_quantile(&g->hist, 0.99),
	       (unsigned long long)g->hist.max_ns, (unsigned long long)(away * 1000000 / g->hz),
	       (unsigned long long)(away_max * 1000000 / g->hz));
	fflush(stdout);
}

/* The templates as a classic pcap file (microsecond stamps, Ethernet). */
static void
write_pcap(const struct gen *g, const char *path)
{
	FILE *f = fopen(path, "wb");
	if (f == NULL)
		bench_die(path, -errno);
	const uint32_t hdr[6] = {0xa1b2c3d4, 0x00040002, 0, 0, 65535, 1};
	fwrite(hdr, sizeof(hdr), 1, f);
	for (uint32_t i = 0; i < g->n_tpl; i++) {
		const struct rte_mbuf *m = g->tpl[i];
		const uint32_t rec[4] = {0, i, m->data_len, m->data_len};
		fwrite(rec, sizeof(rec), 1, f);
		fwrite(rte_pktmbuf_mtod(m, const void *), m->data_len, 1, f);
	}
	if (fclose(f) != 0)
		bench_die(path, -errno);
}

static uint16_t
parse_size(const char *s)
{
	if (strcmp(s, "imix") == 0)
		return IMIX_SIZE;
	unsigned long v = strtoul(s, NULL, 10);
	return v >= 64 && v <= 1518 ? (uint16_t)v : UINT16_MAX;
}

/* The command loop of a trial tester (see the top of the file). */
static void
commands(struct gen *g)
{
	struct rte_eth_link l0, l1;
	for (int i = 0; i < 1000; i++) {
		rte_eth_link_get_nowait(g->tx_port, &l0);
		rte_eth_link_get_nowait(g->rx_port, &l1);
		if (l0.link_status && l1.link_status)
			break;
		rte_delay_us_sleep(10000);
	}
	if (!l0.link_status || !l1.link_status)
		bench_die("ports down after 10 s", -ENOTCONN);
	printf("ready\n");
	fflush(stdout);
	char line[128], arg[32];
	double rate, seconds;
	while (!stop && fgets(line, sizeof(line), stdin) != NULL) {
		if (sscanf(line, "trial %lf %lf", &rate, &seconds) == 2 && rate >= 0 &&
		    seconds > 0) {
			trial(g, rate, seconds);
		} else if (sscanf(line, "size %31s", arg) == 1 && parse_size(arg) != UINT16_MAX) {
			g->size = parse_size(arg);
			build_templates(g);
			printf("ok\n");
		} else if (strncmp(line, "quit", 4) == 0) {
			break;
		} else {
			printf("error bad command: %s", line);
		}
		fflush(stdout);
	}
}

/* Stream mode (see the top of the file). */
static void
stream(struct gen *g, double seconds, double rate)
{
	uint64_t hz = g->hz, t0 = rte_rdtsc(), end = t0 + (uint64_t)(seconds * (double)hz);
	uint64_t sent = 0, mark = t0, sent_mark = 0, received = 0, bytes = 0;
	uint64_t gap = rate > 0 ? (uint64_t)((double)hz * BURST / rate) : 0, due = t0;
	while (!stop) {
		received += receive(g);
		if (gap != 0) { /* paced: sleep until this burst is due */
			uint64_t t = rte_rdtsc();
			if (t < due)
				rte_delay_us_sleep((unsigned int)((due - t) * 1000000 / hz) + 1);
			due += gap;
		}
		sent += send_burst(g, &bytes);
		uint64_t now = rte_rdtsc();
		if (now - mark >= hz) {
			printf("sent_mpps %.3f\n", (double)(sent - sent_mark) /
							   ((double)(now - mark) / (double)hz) /
							   1e6);
			fflush(stdout);
			mark = now;
			sent_mark = sent;
		}
		if (now >= end)
			break;
	}
	double secs = (double)(rte_rdtsc() - t0) / (double)hz;
	drop_pending(g);
	printf("sent %llu packets in %.2f s: %.3f Mpps\n", (unsigned long long)sent, secs,
	       (double)sent / secs / 1e6);
	printf("received %llu packets\n", (unsigned long long)received);
}

/* The command line, after EAL's arguments. */
struct args {
	const char *table, *src, *pcap;
	bool have_dmac, cmd_mode;
	double seconds, rate;
};

static void
parse_args(int argc, char **argv, struct gen *g, struct args *a)
{
	static const struct option opts[] = {{"table", required_argument, NULL, 't'},
					     {"dmac", required_argument, NULL, 'd'},
					     {"seconds", required_argument, NULL, 's'},
					     {"flows", required_argument, NULL, 'f'},
					     {"src", required_argument, NULL, 'a'},
					     {"rate", required_argument, NULL, 'r'},
					     {"size", required_argument, NULL, 'z'},
					     {"commands", no_argument, NULL, 'c'},
					     {"pcap", required_argument, NULL, 'p'},
					     {"sources", required_argument, NULL, 'n'},
					     {"retry", no_argument, NULL, 'y'},
					     {NULL, 0, NULL, 0}};
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 't':
			a->table = optarg;
			break;
		case 'd':
			a->have_dmac = rte_ether_unformat_addr(optarg, &g->dmac) == 0;
			break;
		case 's':
			a->seconds = strtod(optarg, NULL);
			break;
		case 'f':
			g->n_tpl = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'a':
			a->src = optarg;
			break;
		case 'r':
			a->rate = strtod(optarg, NULL);
			break;
		case 'z':
			g->size = parse_size(optarg);
			break;
		case 'c':
			a->cmd_mode = true;
			break;
		case 'p':
			a->pcap = optarg;
			break;
		case 'n':
			g->n_src = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case 'y':
			g->retry = true;
			break;
		default:
			bench_die("unknown option", -EINVAL);
		}
	}
	if (a->table == NULL || !a->have_dmac || g->n_tpl < BURST || g->n_src < 1 ||
	    g->n_src > 65536 || a->seconds <= 0 || a->rate < 0 || g->size == UINT16_MAX)
		bench_die("give --table, --dmac, --flows >= 32, --sources 1..65536, --seconds > 0, "
			  "--rate >= 0, --size 64..1518 or imix",
			  -EINVAL);
	if (rte_eth_dev_count_avail() != (a->pcap ? 0 : a->cmd_mode ? 2 : 1))
		bench_die(a->pcap       ? "give EAL no port with --pcap"
			  : a->cmd_mode ? "give EAL two ports with --commands"
					: "give EAL one port",
			  -EINVAL);
}

int
main(int argc, char **argv)
{
	bench_eal_init(&argc, &argv);
	static struct gen g = {.size = 64, .n_tpl = 4096, .n_src = 64};
	struct args a = {.seconds = 10};
	parse_args(argc, argv, &g, &a);
	const char *table = a.table, *src_s = a.src, *pcap = a.pcap;
	bool cmd_mode = a.cmd_mode;
	g.tx_port = 0;
	g.rx_port = cmd_mode ? 1 : 0;

	int rc = prefix_list_load(table, &g.pl);
	if (rc < 0)
		bench_die(table, rc);
	if (g.pl.n == 0)
		bench_die("empty table", -EINVAL);
	g.family = g.pl.p[0].family;
	g.tag_off = g.family == FIB_AF_INET ? 14 + 20 + 8 : 14 + 40 + 8;
	if (g.family == FIB_AF_INET6 && pcap == NULL &&
	    (g.burst_tsc = calloc(SEQ_MASK + 1, sizeof(*g.burst_tsc))) == NULL)
		bench_die("burst stamps", -ENOMEM);
	if (src_s == NULL)
		src_s = g.family == FIB_AF_INET ? "192.0.2.100" : "2001:db8:1::100";
	if (inet_pton(g.family == FIB_AF_INET ? AF_INET : AF_INET6, src_s, g.src) != 1)
		bench_die("--src", -EINVAL);

	g.mp = rte_pktmbuf_pool_create("gen", g.n_tpl + 8192, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (g.mp == NULL)
		bench_die("mbuf pool", -rte_errno);
	if (pcap == NULL)
		bench_port_start(0, g.mp, 512, 1024);
	if (cmd_mode)
		bench_port_start(1, g.mp, 512, 1024);
	if (pcap == NULL)
		rte_eth_macaddr_get(0, &g.smac);
	else /* pktgen's port, whatever its address: memif does not filter */
		rte_ether_unformat_addr("02:00:00:00:00:10", &g.smac);
	g.tpl = calloc(g.n_tpl, sizeof(*g.tpl));
	if (g.tpl == NULL)
		bench_die("templates", -ENOMEM);
	g.hz = rte_get_tsc_hz();
	build_templates(&g);

	if (pcap != NULL) {
		write_pcap(&g, pcap);
		rte_eal_cleanup();
		return 0;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cmd_mode)
		commands(&g);
	else
		stream(&g, a.seconds, a.rate);
	prefix_list_free(&g.pl);
	rte_eth_dev_stop(0);
	if (cmd_mode)
		rte_eth_dev_stop(1);
	rte_eal_cleanup();
	return 0;
}
