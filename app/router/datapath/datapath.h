/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The datapath plane: what the workers run, and the one place that holds
 * the state they read (struct rt_dp).
 *
 * Threads. The workers read struct rt_dp and write only their own struct
 * rt_worker (counters, TX buffers, the nexthop-use stamps). The control
 * core writes the rest of rt_dp: before the workers start (ports,
 * rings, settings), or at run time only through the publication rules
 * of the libraries (the FIB, the nexthops) and the setters below. It
 * reads the workers' counters through const views (rt_dp_worker_stats).
 *
 * Nothing here calls into the control core or the CLI: packets that need
 * them go on each worker's exception rings, and the control core's own
 * packets come back on one ring that worker 0 transmits.
 */
#ifndef ROUTER_DATAPATH_H
#define ROUTER_DATAPATH_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>

#include "fib.h"
#include "nexthop.h"
#include "peers.h"

#define RT_MAX_PORTS 16
#define RT_MAX_WORKERS 8
/* Packets a worker takes from a queue at once, and the largest burst the
 * stages handle. Random destinations miss the caches at the first FIB
 * level and everything after the lookup waits for it: the more lookups
 * a burst issues together, the more of those misses overlap (docs/
 * performance.md, "Burst size"). -DRT_BURST=N overrides it. */
#ifndef RT_BURST
#define RT_BURST 64
#endif

/* The FIB answers with nexthop indices: both libraries must agree on how
 * many there can be. */
static_assert(NH_INDEX_MAX == FIB_NH_MAX, "lib/nexthop and lib/fib disagree on the index range");
/* ports_down is one bit a port. */
static_assert(RT_MAX_PORTS <= 32, "rt_dp.ports_down holds a bit a port");
static_assert(RT_MAX_WORKERS <= NH_WORKERS_MAX, "a nexthop view per worker");

/* Why a worker dropped a packet. Each has a per-worker counter. */
#define RT_DROP_REASONS(X)                                                                         \
	X(NOT_FOR_US, "not_for_us")                                                                \
	X(ETHERTYPE, "unsupported_ethertype")                                                      \
	X(TRUNCATED, "truncated")                                                                  \
	X(VERSION, "bad_ip_version")                                                               \
	X(IHL, "bad_ihl")                                                                          \
	X(CHECKSUM, "bad_checksum")                                                                \
	X(LENGTH, "bad_length")                                                                    \
	X(MARTIAN_SRC, "martian_source")                                                           \
	X(MARTIAN_DST, "martian_destination")                                                      \
	X(MULTICAST, "multicast_not_routed")                                                       \
	X(BLACKHOLE, "blackhole")                                                                  \
	X(EXC_NEIGH_FULL, "exception_neigh_full")                                                  \
	X(EXC_PROTO_FULL, "exception_proto_full")                                                  \
	X(EXC_LOCAL_FULL, "exception_local_full")                                                  \
	X(EXC_DATA_FULL, "exception_data_full")                                                    \
	X(TX_FULL, "tx_full")                                                                      \
	X(PORT_DOWN, "port_down")                                                                  \
	X(NO_CARRIER, "no_carrier")                                                                \
	X(L2_GROUP, "link_layer_group")

/* Why a worker handed a packet to the control core. */
#define RT_PUNT_REASONS(X)                                                                         \
	X(ARP, "arp")                                                                              \
	X(LOCAL, "local")                                                                          \
	X(RESOLVE, "resolve_gateway")                                                              \
	X(CONNECTED, "resolve_connected")                                                          \
	X(NO_ROUTE, "no_route")                                                                    \
	X(UNREACHABLE, "unreachable")                                                              \
	X(PROHIBIT, "prohibit")                                                                    \
	X(TTL, "ttl_exceeded")                                                                     \
	X(TOO_BIG, "too_big")                                                                      \
	X(FRAGMENT, "fragment")                                                                    \
	X(BEYOND_SCOPE, "beyond_scope")

#define RT_ENUM(name, str) RT_DROP_##name,
enum rt_drop { RT_DROP_REASONS(RT_ENUM) RT_DROP_COUNT };
#undef RT_ENUM
#define RT_ENUM(name, str) RT_PUNT_##name,
enum rt_punt { RT_PUNT_REASONS(RT_ENUM) RT_PUNT_COUNT };
#undef RT_ENUM

extern const char *const rt_drop_names[RT_DROP_COUNT];
extern const char *const rt_punt_names[RT_PUNT_COUNT];

/*
 * The exception path's classes, a ring each from every worker and for
 * every port it receives on, so that a flood of one class never costs
 * another its room, nor a flood on one port another port's
 * (docs/neigh.md):
 * neighbour and router discovery (ARP, NS, NA, RS: what resolution and
 * the router's reachability need); the routing protocols' packets for
 * the control-plane ports (rt_exc_class_local); the rest of what is
 * addressed to the router; and forwarded packets that need help (a
 * neighbour to resolve, an ICMP error, fragmentation). The control core
 * drains them in that order, each ring within a budget a round.
 */
enum rt_exc_class { RT_EXC_NEIGH, RT_EXC_PROTO, RT_EXC_LOCAL, RT_EXC_DATA, RT_EXC_CLASSES };
extern const char *const rt_exc_names[RT_EXC_CLASSES];

#define RT_PORT_BGP 179
#define RT_PORT_BFD 3784 /* single hop; 3785 echo */
#define RT_PORT_BFD_MULTI 4784

/*
 * The class of a frame for the router (punted as RT_PUNT_LOCAL) by its
 * headers, from its first bytes only. Neighbour and router discovery
 * (ICMPv6 133-137 right after the fixed header, the only place they are
 * accepted); then the routing protocols: OSPF, VRRP, BFD, and TCP to or
 * from BGP's port without SYN (a session's segments: a SYN flood at port
 * 179 stays with the rest). In IPv6, up to two Hop-by-Hop, Routing or
 * Destination Options headers are looked past (a routing protocol's
 * packet may carry one); discovery is only ever right after the fixed
 * header. A fragment is "local": its ports are not in it. What the
 * headers call a routing protocol's is only a claim: rt_exc_class_local
 * decides.
 */
static inline enum rt_exc_class
rt_exc_class_hdr(const uint8_t *f, uint32_t len)
{
	const uint8_t *l4;
	uint8_t proto;
	bool ext = false;
	if (len < RTE_ETHER_HDR_LEN + 20)
		return RT_EXC_LOCAL;
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	if (f[12] == 0x08 && f[13] == 0x00) {
		uint32_t ihl = (ip[0] & 0xfu) * 4;
		if ((ip[6] & 0x3f) != 0 || ip[7] != 0 || RTE_ETHER_HDR_LEN + ihl > len)
			return RT_EXC_LOCAL; /* a fragment, or a broken header */
		proto = ip[9];
		l4 = ip + ihl;
	} else if (f[12] == 0x86 && f[13] == 0xdd && len >= RTE_ETHER_HDR_LEN + 40) {
		proto = ip[6];
		l4 = ip + 40;
		/* Hop-by-Hop (0), Routing (43), Destination Options (60): each
		 * its next header, then its length in 8 bytes beyond the first 8. */
		for (int k = 0; k < 2 && (proto == 0 || proto == 43 || proto == 60); k++) {
			if ((uint32_t)(l4 - f) + 2 > len)
				return RT_EXC_LOCAL;
			proto = l4[0];
			l4 += ((uint32_t)l4[1] + 1) * 8;
			ext = true;
		}
		if ((uint32_t)(l4 - f) > len)
			return RT_EXC_LOCAL;
	} else {
		return RT_EXC_LOCAL;
	}
	uint32_t room = len - (uint32_t)(l4 - f);
	switch (proto) {
	case 58: /* ICMPv6 */
		return !ext && room >= 1 && l4[0] >= 133 && l4[0] <= 137 ? RT_EXC_NEIGH
									 : RT_EXC_LOCAL;
	case 89:  /* OSPF */
	case 112: /* VRRP */
		return RT_EXC_PROTO;
	case 17: { /* UDP: BFD */
		if (room < 4)
			return RT_EXC_LOCAL;
		uint16_t dport = (uint16_t)(l4[2] << 8 | l4[3]);
		return dport == RT_PORT_BFD || dport == RT_PORT_BFD + 1 ||
				       dport == RT_PORT_BFD_MULTI
			       ? RT_EXC_PROTO
			       : RT_EXC_LOCAL;
	}
	case 6: { /* TCP: BGP's segments, not its SYNs */
		if (room < 14)
			return RT_EXC_LOCAL;
		uint16_t sport = (uint16_t)(l4[0] << 8 | l4[1]),
			 dport = (uint16_t)(l4[2] << 8 | l4[3]);
		bool bgp = sport == RT_PORT_BGP || dport == RT_PORT_BGP;
		return bgp && !(l4[13] & 0x02) ? RT_EXC_PROTO : RT_EXC_LOCAL;
	}
	default:
		return RT_EXC_LOCAL;
	}
}

/* The class of a frame for the router: its headers' (rt_exc_class_hdr),
 * the routing protocols' only from a peer the router's own stack talks
 * that protocol with (peers.h); from anyone else a routing protocol's
 * packet is the rest's (*stranger set). The control core asks the same
 * to pick the punt bucket of the control-plane port. */
static inline enum rt_exc_class
rt_exc_class_local(const struct rt_peer_table *peers, const uint8_t *f, uint32_t len,
		   bool *stranger)
{
	enum rt_exc_class c = rt_exc_class_hdr(f, len);
	*stranger = false;
	if (c != RT_EXC_PROTO)
		return c;
	/* (The header class read the fixed IP header: the source is there.) */
	const uint8_t *ip = f + RTE_ETHER_HDR_LEN;
	bool v4 = f[12] == 0x08;
	if (rt_peer_known(peers, v4 ? FIB_AF_INET : FIB_AF_INET6, v4 ? ip + 12 : ip + 8))
		return RT_EXC_PROTO;
	*stranger = true;
	return RT_EXC_LOCAL;
}

/* A worker's counters: written by that worker only, on its own lines,
 * read (racily, which is fine for counters) by the control core. */
struct rt_wstats {
	uint64_t rx, fwd, punt_total, drop_total;
	/* Rounds of the worker loop (counted as each begins), those that
	 * found packets, and the TSC cycles those took (each from the end
	 * of the round before). rx / busy_rounds is the mean burst (VPP's
	 * "vectors per call"): near the RX burst size the worker is
	 * saturated, well below it the worker waits for work. busy_cycles /
	 * rx is what a packet costs, drivers included, whatever the offered
	 * load (what testpmd's --record-core-cycles reports). */
	uint64_t rounds, busy_rounds, busy_cycles;
	uint64_t port_rx[RT_MAX_PORTS], port_tx[RT_MAX_PORTS];
	uint64_t port_drop[RT_MAX_PORTS]; /* of the packets received on each port */
	/* Of those, dropped because their class's exception ring was full. */
	uint64_t port_exc_drop[RT_MAX_PORTS][RT_EXC_CLASSES];
	uint64_t punt[RT_PUNT_COUNT];
	uint64_t drop[RT_DROP_COUNT];
	/* The control core's packets this worker sent for it (worker 0):
	 * handed to a queue's buffer, and of those refused (queue full, or
	 * no carrier). */
	uint64_t ctl_tx, ctl_tx_dropped;
	/* Forwarded packets a port's TX queue refused at first and that
	 * waited in the worker's backlog for it (txq.c). */
	uint64_t port_tx_held[RT_MAX_PORTS];
	/* Packets to the router with a routing protocol's headers from a
	 * source that is no peer (rt_exc_class_local), by ingress port. */
	uint64_t port_proto_strangers[RT_MAX_PORTS];
} __rte_cache_aligned;

/* Behind each of a worker's TX queues, the forwarded packets it refused,
 * oldest first, to be sent before anything newer (txq.c): a FIFO of
 * size (a power of two, or 0: none) slots, head and tail counting
 * packets taken out and put in since the start. Cold: touched only
 * while the queue refuses. */
struct rt_txq_backlog {
	struct rte_mbuf **m;
	uint32_t size, head, tail;
};

/* A worker: the fields above st are set before it starts and fixed;
 * rx_port, backlogged, tx_dropped, backlog, nh_used and st are its own
 * to write. */
struct rt_worker {
	unsigned int id; /* 0..nb_workers-1: QSBR thread id, queue index */
	unsigned int lcore;
	/* To the control core, by ingress port and class: a cold path's
	 * pointers (512 bytes), read only by dp_punt. */
	struct rte_ring *exc[RT_MAX_PORTS][RT_EXC_CLASSES];
	const struct nh_dp *nh; /* this worker's nexthop lines */
	/* Forwarded packets on their way to each port's queue (dp_tx_*, in
	 * dp_inline.h); what neither the queue nor the backlog behind it
	 * took, freed (counted as tx_full). */
	struct rte_eth_dev_tx_buffer *txb[RT_MAX_PORTS];
	uint64_t tx_dropped[RT_MAX_PORTS];
	/* Worker 0: the control core's packets, apart from forwarded ones
	 * so that each is counted as what it is. */
	struct rte_eth_dev_tx_buffer *ctl_txb[RT_MAX_PORTS];
	/* Per nexthop index, the low 32 bits of st.rounds (the worker loop's
	 * round, from 1) when this worker last sent a packet through it: the
	 * control core reads them to learn which neighbours are in use (NUD
	 * needs it, and workers never touch neighbour state). A plain store
	 * a packet: a counter's load-add-store would chain through memory
	 * when packets share a nexthop. */
	uint32_t *nh_used;
	uint16_t rx_port; /* the port of the burst in hand: dp_punt's m->port */
	/* The bit of each port whose backlog holds packets: every flush
	 * tests it, so it sits in the padding of a line the worker has in
	 * cache anyway; the backlogs themselves, cold, come last. */
	uint32_t backlogged;
	uint32_t bell_rung; /* the control core's sleep it last rang for */
	/* &rt_dp.peers: the table in force, loaded (acquire) when a packet
	 * with a routing protocol's headers is punted. */
	struct rt_peer_table *const *peers;
	struct rt_wstats st;
	struct rt_txq_backlog backlog[RT_MAX_PORTS];
} __rte_cache_aligned;

struct rt_port {
	uint16_t id;
	uint16_t mtu;
	struct rte_ether_addr mac;
	/* The NIC checks received IPv4 header checksums (RX offload, as the
	 * 82599 does): a packet it marks good is not summed again. */
	bool rx_ip_csum;
	char name[16]; /* port<N> */
	char driver[32];
};

/*
 * The state the workers read. One per router; the control core fills it
 * before the workers start and changes it afterwards only as the field
 * comments say.
 */
struct rt_dp {
	const struct fib *fib;        /* rules (lib/fib publishes them) */
	const struct fib_table *main; /* FIB_TABLE_MAIN, looked up first */
	struct rte_rcu_qsbr *qsbr;    /* the workers report quiescence here */
	uint8_t hash_policy;          /* enum nh_hash_policy, fixed */
	bool idle_backoff;            /* sleep when idle (off for benchmarks) */
	uint32_t idle_sleep_us;
	uint16_t nb_ports;
	/* Bit N set while portN is administratively down (rt_dp_port_bit_set).
	 * The workers send only with valid headers, which lib/nexthop
	 * withdraws while a port is down (nh_port_down); they read this word
	 * to tell why a header is invalid, and once a round to drop what a
	 * down port received. */
	uint32_t ports_down;
	/* Bit N set while portN has no carrier (rt_dp_port_bit_set): the
	 * workers neither poll it nor send on it, and drop what was headed
	 * for it as no_carrier. Read once a worker round. */
	uint32_t ports_nocarrier;
	struct rt_port port[RT_MAX_PORTS];
	unsigned int nb_workers;
	struct rt_worker worker[RT_MAX_WORKERS];
	/* Packets the control core sends: worker 0 transmits them on its
	 * own TX queues, so no device needs a queue for the control core
	 * (net_af_packet spreads received packets over all its queue pairs,
	 * and every RX queue must be polled). Port in m->port. */
	struct rte_ring *ctl_tx;
	volatile int quit; /* the workers stop (main sets it) */
	/* The control core's doorbell (control/loop.c). While it sleeps past
	 * its next millisecond, ctl_asleep holds that sleep's number (never
	 * 0; 0 while it is awake or only waits a millisecond). A worker that
	 * punted packets in a round reads it and, the first time it sees a
	 * sleep's number, writes ctl_bell, an eventfd the control core waits
	 * on: the first exception after a quiet spell is taken at once, not
	 * at the next timer. On a line of its own: the control core writes
	 * it at every long sleep, and quit or the masks above, which every
	 * worker round reads, should not miss the cache for that. */
	uint32_t ctl_asleep __rte_cache_aligned;
	int ctl_bell;
	/* The routing protocols' peers (peers.h): a table the control core
	 * replaces whole (release), freed a grace period later. */
	struct rt_peer_table *peers;
};

/* A port's bit in one of the masks above. */
static inline bool
rt_dp_port_bit(const uint32_t *mask, uint16_t port)
{
	return (__atomic_load_n(mask, __ATOMIC_RELAXED) >> port & 1) != 0;
}

static inline bool
rt_dp_port_up(const struct rt_dp *dp, uint16_t port)
{
	return !rt_dp_port_bit(&dp->ports_down, port);
}

static inline bool
rt_dp_port_carrier(const struct rt_dp *dp, uint16_t port)
{
	return !rt_dp_port_bit(&dp->ports_nocarrier, port);
}

/*
 * Control core: set or clear a port's bit in one of the masks above
 * (ports_down, ports_nocarrier). The workers send only with a valid
 * header, which nh_port_down withdraws; the masks say why a header is
 * invalid, and ports_nocarrier also keeps them off the port's queues. So
 * the caller (control/link.c) sets a bit before withdrawing the headers,
 * and clears it after they are valid again. Release: the changes made
 * before it are visible to a worker that sees the new mask.
 */
static inline void
rt_dp_port_bit_set(uint32_t *mask, uint16_t port, bool on)
{
	uint32_t m = *mask & ~(1u << port);
	__atomic_store_n(mask, m | (uint32_t)on << port, __ATOMIC_RELEASE);
}

/* Control core: a worker's counters, read while it writes them. */
static inline const struct rt_wstats *
rt_dp_worker_stats(const struct rt_dp *dp, unsigned int w)
{
	return &dp->worker[w].st;
}

/* Control core: how many packets worker w's backlog for port holds now
 * (read while the worker changes it: a gauge, a moment old). */
static inline uint32_t
rt_dp_tx_backlog(const struct rt_dp *dp, unsigned int w, uint16_t port)
{
	const struct rt_txq_backlog *b = &dp->worker[w].backlog[port];
	uint32_t head = __atomic_load_n(&b->head, __ATOMIC_RELAXED);
	uint32_t tail = __atomic_load_n(&b->tail, __ATOMIC_RELAXED);
	return RTE_MIN(tail - head, b->size); /* head read first: at most a burst over */
}

/* Control core: the sum of the workers' counters, as `stats` shows them:
 * packets the device's queue refused moved from forwarded and tx to
 * tx_full, so that forwarded counts what left. */
void rt_dp_stats_sum(const struct rt_dp *dp, struct rt_wstats *sum);
/* Control core: a worker's forwarded packets, counted as the sum is. */
uint64_t rt_dp_worker_forwarded(const struct rt_dp *dp, unsigned int w);

/* Per-packet metadata a worker leaves for the control core. */
struct rt_meta {
	uint32_t nh;    /* the nexthop the lookup chose */
	uint8_t reason; /* enum rt_punt */
	/* 1: a packet the router built (rt_output), waiting for its
	 * neighbour: not forwarded, so no TTL to decrement and no ICMP error
	 * about it if the neighbour fails. */
	uint8_t own;
	uint8_t pad[2];
};
extern int rt_meta_offset;
static inline struct rt_meta *
rt_meta(struct rte_mbuf *m)
{
	return RTE_MBUF_DYNFIELD(m, rt_meta_offset, struct rt_meta *);
}
/* Register the rt_meta mbuf field (once, before any packet). */
int rt_meta_register(void);

/* An IPv6 link-local address (fe80::/10, RFC 4291 2.5.6), in network
 * order: scoped to its link, never routed. */
static inline bool
rt_ip6_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/*
 * What the workers would choose for a packet: the nexthop (or group)
 * index for src to dst with flow's selectors (its iif FIB_IIF_LOCAL: the
 * router's own), from the main table and then the rules when there are
 * any; and, for a group, the member a flow with this hash takes. IPv4 in
 * host order, IPv6 in network order. The control core uses them so that
 * its own packets and `route get` follow the datapath's choice.
 */
static inline uint32_t
rt_dp_route4(const struct rt_dp *dp, uint32_t src, uint32_t dst, const struct fib_flow *flow)
{
	uint32_t nh = fib_lookup4(dp->main, dst);
	return fib_rules_active(dp->fib, FIB_AF_INET) ? fib_rule_route4(dp->fib, src, dst, flow, nh)
						      : nh;
}

static inline uint32_t
rt_dp_route6(const struct rt_dp *dp, const uint8_t src[16], const uint8_t dst[16],
	     const struct fib_flow *flow)
{
	uint32_t nh = fib_lookup6(dp->main, dst);
	return fib_rules_active(dp->fib, FIB_AF_INET6)
		       ? fib_rule_route6(dp->fib, src, dst, flow, nh)
		       : nh;
}

/* The flow hashes the workers pick group members by, from a packet's
 * fields as its headers carry them (network order; ports as the first 4
 * bytes of a TCP or UDP header, or 0). */
static inline uint32_t
rt_dp_flow_hash4(const struct rt_dp *dp, uint32_t src_be, uint32_t dst_be, uint8_t proto,
		 uint32_t ports, bool nonfirst_fragment)
{
	return nh_flow_hash4((enum nh_hash_policy)dp->hash_policy, src_be, dst_be, proto, ports,
			     nonfirst_fragment);
}

static inline uint32_t
rt_dp_flow_hash6(const struct rt_dp *dp, const uint8_t src[16], const uint8_t dst[16],
		 uint32_t flow_label, uint8_t proto, uint32_t ports, bool nonfirst_fragment)
{
	return nh_flow_hash6((enum nh_hash_policy)dp->hash_policy, src, dst, flow_label, proto,
			     ports, nonfirst_fragment);
}

/* The worker loop (rte_eal_remote_launch's function; arg: the rt_dp). */
int rt_worker_main(void *arg);
/** How far to scale the exception rings' sizes down (a right shift) so
 * that all of them full hold at most half of nb_mbufs. */
unsigned int rt_exc_ring_shift(unsigned int nb_ports, unsigned int nb_workers,
			       unsigned int nb_mbufs);
/** Create worker w's exception rings (single producer and consumer), a
 * ring per class for each of ports 0..nb_ports-1, their sizes shifted
 * right by shift. @return 0 or a negative errno value. */
int rt_worker_exc_create(struct rt_worker *w, unsigned int nb_ports, unsigned int shift);

/** The size of each TX queue's backlog for want packets (the tx-backlog
 * setting): want rounded down to a power of two, halved until all of
 * them full hold at most a quarter of the pool, nb_mbufs + 1 (a pool is
 * best 2^n - 1; the exception rings may take half, the RX queues need
 * the rest); 0 for want 0. */
unsigned int rt_txq_backlog_size(unsigned int want, unsigned int nb_ports, unsigned int nb_workers,
				 unsigned int nb_mbufs);
/** Give worker w's queue on port a backlog of size (from
 * rt_txq_backlog_size; 0: none, refused packets are dropped), on
 * socket. @return 0 or -ENOMEM. */
int rt_txq_backlog_create(struct rt_worker *w, uint16_t port, unsigned int size, int socket);
/** Worker: n forwarded packets for port that its queue refused, or that
 * must wait behind packets it refused before: the backlog's first,
 * oldest first, then these; what the queue does not take joins the
 * backlog, and what does not fit there is freed and counted in
 * tx_dropped. The cold half of dp_tx_flush (dp_inline.h). */
void rt_txq_refused(struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts, unsigned int n);
/** Worker: send what port's backlog holds, oldest first, as far as the
 * queue takes it. */
void rt_txq_drain(struct rt_worker *w, uint16_t port);
/** Worker: free what port's backlog holds, unsent (the port lost its
 * carrier). @return how many. */
unsigned int rt_txq_discard(struct rt_worker *w, uint16_t port);

/* A whole received burst on port, as the worker runs it: classify by
 * ethertype, validate, look up, act. What bench/ and the tests measure. */
void dp_burst(const struct rt_dp *dp, struct rt_worker *w, uint16_t port, struct rte_mbuf **pkts,
	      unsigned int n);

#endif /* ROUTER_DATAPATH_H */
