/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fib: the router's forwarding information base.
 *
 * A struct fib holds any number of routing tables (ids 1..2^32-1, main is
 * 254, as in Linux) and the policy rules that choose between them. Each
 * table has an IPv4 and an IPv6 RIB (every route, every metric) and a
 * lookup structure holding the best route's nexthop index per address:
 * DIR-24-8 for IPv4, a 24-8-8-... multibit trie for IPv6.
 *
 * Threads: every function that changes the fib (route_*, rule_*, create,
 * free) must be called from one thread, the writer (the control core).
 * The lookup functions may be called concurrently from any number of
 * reader threads that are registered with the rte_rcu_qsbr variable given
 * in fib_conf and report quiescent states: a reader sees, for every
 * address, either the old or the new answer of an update, never a
 * half-written group and never freed memory.
 *
 * Errors: functions returning int return 0 or a negative errno value.
 */
#ifndef ROUTER_FIB_H
#define ROUTER_FIB_H

#include <stdbool.h>
#include <stdint.h>

struct rte_rcu_qsbr;
struct fib;
struct fib_table;

#define FIB_TABLE_MAIN 254u
/* Linux's table "default", looked up by IPv4's default rule 32767 after
 * main. Created by its first route, never by a rule. */
#define FIB_TABLE_DEFAULT 253u

/* Lookup result meaning "no route". Nexthop indices are 1..FIB_NH_MAX:
 * IPv4 entries are 16 bits wide, one of them a flag (see docs/fib.md). */
#define FIB_NH_NONE 0u
#define FIB_NH_MAX 0x7fffu

enum fib_route_type {
	FIB_RT_UNICAST,
	FIB_RT_LOCAL,
	FIB_RT_BLACKHOLE,
	FIB_RT_UNREACHABLE,
	FIB_RT_PROHIBIT,
	/* An IPv4 subnet's broadcast address (Linux's "broadcast" routes of
	 * the local table): for the router itself, never resolved as a host. */
	FIB_RT_BROADCAST,
	/* Linux's "throw": the table has no route for the prefix, so a rule
	 * lookup goes on to the next rule, and a lookup with no rule left
	 * answers FIB_NH_NONE (net unreachable). Installed as FIB_NH_NONE. */
	FIB_RT_THROW,
	FIB_RT_COUNT,
};

/* Address families, with Linux's values. */
#define FIB_AF_INET 2
#define FIB_AF_INET6 10

struct fib_prefix {
	uint8_t family; /* FIB_AF_INET or FIB_AF_INET6 */
	uint8_t len;    /* 0..32 or 0..128 */
	union {
		uint32_t v4;    /* host byte order */
		uint8_t v6[16]; /* network byte order */
	} addr;
};

#define FIB_RF_DOWN 0x01 /* fib_route.flags: its nexthop is down (fib_conf.nh_down) */

struct fib_route {
	struct fib_prefix dst;
	uint32_t table;  /* 0 means FIB_TABLE_MAIN */
	uint32_t metric; /* lower is preferred */
	uint32_t nh;     /* nexthop or group index; required for unicast */
	uint8_t type;    /* enum fib_route_type */
	uint8_t origin;  /* protocol tag, opaque to the fib */
	uint8_t flags;   /* FIB_RF_*: written by get, match and walk; not read */
};

struct fib_conf {
	/* QSBR variable the readers report to; NULL when there are none. */
	struct rte_rcu_qsbr *qsbr;
	/* Second-level groups per table and family (256 entries of 2 bytes
	 * for IPv4, at most 32767; of 4 bytes for IPv6); 0 picks the
	 * default, the IPv4 maximum and 1M for IPv6. Memory is committed as
	 * groups are used. 1/64 of them (at most 256) are kept for deletes,
	 * which may need a group to split a merged one (docs/fib.md). */
	uint32_t groups4;
	uint32_t groups6;
	/* Tables other than main start with a first level of 2^16 entries
	 * per family (128 KiB for IPv4, 256 KiB for IPv6) and one level of
	 * groups more, take the 2^24-entry one (32 / 64 MiB) once a family
	 * uses more than this many groups, and the small one again when
	 * deletes bring it to a quarter of them and it fits in half
	 * (docs/fib.md, "Tables"). 0 picks the default, 4096; UINT32_MAX:
	 * every table full size. */
	uint32_t small_table_groups;
	/* Lookup result installed for routes and rule actions of each
	 * non-unicast type (local, blackhole, unreachable, prohibit,
	 * broadcast). Each must be a valid nexthop index, except that
	 * broadcast's 0 picks local's (delivered as a local address, before
	 * any rule). type_nh[FIB_RT_UNICAST] and [FIB_RT_THROW] are unused. */
	uint32_t type_nh[FIB_RT_COUNT];
	/* Result of a rule whose action is unreachable: Linux answers net
	 * unreachable there, host unreachable for an unreachable route, so
	 * the datapath may want another nexthop. 0: type_nh[UNREACHABLE]. */
	uint32_t rule_unreachable_nh;
	/* Whether a unicast route's nexthop leads nowhere for now (its port
	 * is down). Such a route is kept and walked, flagged FIB_RF_DOWN, but
	 * lookups skip it: the prefix's next route by metric answers, or
	 * when none is left the covering prefix, as if it were deleted (as
	 * Linux deletes the routes of a device set down, and other routers
	 * withdraw them). Asked when a route is added or replaced and by
	 * fib_sync_down. NULL: nothing is ever down. */
	bool (*nh_down)(void *ctx, uint32_t nh);
	void *nh_down_ctx;
};

/**
 * Create an empty fib holding the main table.
 * @return the fib, or NULL with errno set (EINVAL, ENOMEM).
 */
struct fib *fib_create(const struct fib_conf *conf);

/** Free a fib. Readers must no longer use it. NULL is accepted. */
void fib_free(struct fib *fib);

/**
 * Add a route. The table is created if needed.
 * @return 0; -EEXIST if (table, prefix, metric) exists; -EINVAL for a bad
 *   prefix, type or nexthop; -ENOSPC when the lookup structure has no
 *   group left, in which case nothing was changed; -ENOMEM.
 */
int fib_route_add(struct fib *fib, const struct fib_route *r);

/**
 * Add a route, or overwrite the one with the same (table, prefix, metric).
 * @return as fib_route_add, never -EEXIST. On error the old route stays.
 */
int fib_route_replace(struct fib *fib, const struct fib_route *r);

/**
 * Delete a route. With any_metric, the preferred route of the prefix is
 * deleted; otherwise only the one with r->metric. Only r->table, r->dst
 * and r->metric are read.
 * @return 0; -ENOENT if there is no such route; -ENOSPC (rare: the
 *   deletion had to split a merged group and none was left; nothing
 *   changed).
 */
int fib_route_del(struct fib *fib, const struct fib_route *r, bool any_metric);

/**
 * Exact match: the route for (table, prefix, metric), or with any_metric
 * the preferred route of the prefix.
 * @return 0 with *out filled, or -ENOENT.
 */
int fib_route_get(const struct fib *fib, const struct fib_route *key, bool any_metric,
		  struct fib_route *out);

/**
 * Longest-prefix match of one address (dst.len ignored) in a table,
 * returning the preferred route, as lookups do (routes that are down
 * skipped). Writer thread only: it reads the RIB.
 * @return 0 with *out filled, or -ENOENT when no route covers the address.
 */
int fib_route_match(const struct fib *fib, uint32_t table, const struct fib_prefix *addr,
		    struct fib_route *out);

/**
 * After nexthops went down or came up (fib_conf.nh_down answers
 * differently): ask again for every unicast route of every table, and
 * install or withdraw the prefixes whose answer changed.
 * @return 0; or the first error of the routes that could not be installed
 *   again (-ENOSPC, -ENOMEM), which stay down and are tried at the next
 *   call, every other change having been made.
 */
int fib_sync_down(struct fib *fib);

/** Callback for fib_route_walk(); a non-zero return stops the walk. */
typedef int (*fib_route_cb)(const struct fib_route *r, void *arg);

/**
 * Visit every route of a table and family in prefix order (address, then
 * length, then metric).
 * @return 0, the callback's non-zero value, or -ENOENT for no such table.
 */
int fib_route_walk(const struct fib *fib, uint32_t table, uint8_t family, fib_route_cb cb,
		   void *arg);

/** Writer: the ids of the tables that exist, ascending, in ids[0..max);
 * @return how many there are (more than max: the rest left out). */
uint32_t fib_table_ids(const struct fib *fib, uint32_t *ids, uint32_t max);

/** Number of routes in a table and family (all metrics). */
uint32_t fib_route_count(const struct fib *fib, uint32_t table, uint8_t family);

/** Memory used by a table, lookup structures and RIB, in bytes. */
struct fib_mem_stats {
	uint64_t tbl24_bytes;  /* first-level arrays, both families, and IPv4's /16 summary */
	uint64_t groups_bytes; /* second-level groups in use, both families */
	uint32_t groups4_used, groups6_used;
	uint64_t rib_bytes; /* RIB nodes and routes */
};
int fib_table_mem(const struct fib *fib, uint32_t table, struct fib_mem_stats *st);

/**
 * Reclaim memory whose grace period has ended. The writer calls it
 * periodically; route updates call it too when they run short.
 * @return how many releases still wait for a grace period (0: none, and
 * no need to call again until the next change).
 */
uint32_t fib_reclaim(struct fib *fib);

/*
 * Reader side. A table pointer stays valid until fib_free().
 */

/** The table with this id, or NULL if it has never been created. */
const struct fib_table *fib_table_lookup(const struct fib *fib, uint32_t id);

/** IPv4 longest-prefix match; dst in host byte order. */
uint32_t fib_lookup4(const struct fib_table *t, uint32_t dst);

/** IPv4 lookups for a burst; n may be any size. */
void fib_lookup4_bulk(const struct fib_table *t, const uint32_t *dst, uint32_t *nh, unsigned int n);

/** IPv6 longest-prefix match; dst in network byte order. */
uint32_t fib_lookup6(const struct fib_table *t, const uint8_t dst[16]);

/** IPv6 lookups for a burst, given pointers to the addresses. */
void fib_lookup6_bulk(const struct fib_table *t, const uint8_t *const dst[], uint32_t *nh,
		      unsigned int n);

/*
 * The instruction set the burst lookups and rule walks use (isa.c): the
 * build's own, or, on x86-64 processors with AVX-512 (x86-64-v4), a
 * variant compiled for it. When a program loads, the processor's best is
 * chosen; a program that knows a limit (DPDK's max SIMD bitwidth, set by
 * --force-max-simd-bitwidth) chooses again before any lookup runs.
 */
/** Choose: AVX-512 when max_simd_bits >= 512 and the processor and the
 * build have it. @return the name of the choice: "avx512" or "base". */
const char *fib_isa_select(unsigned int max_simd_bits);
/** The choice in force, and its name. */
bool fib_isa_avx512(void);
const char *fib_isa_name(void);
/** Tests and benchmarks: force a choice. @return 0, or -ENOTSUP when
 * the processor or the build lacks AVX-512. */
int fib_isa_force(bool avx512);

/*
 * Policy rules, as in Linux `ip rule`. Rules are tried in priority order;
 * a "table" rule whose table has no matching route (or that does not
 * exist) falls through to the next rule. A fib starts with Linux's
 * default rules: 32766 "lookup main" and, IPv4 only, 32767 "lookup
 * default"; like any rule they can be deleted and added back. Local
 * routes (which live in main, see docs/fib.md) are always matched before
 * any rule, as Linux's priority-0 "lookup local" rule does; that one
 * cannot be deleted.
 */
enum fib_rule_action {
	FIB_RULE_TABLE,
	FIB_RULE_BLACKHOLE,
	FIB_RULE_UNREACHABLE,
	FIB_RULE_PROHIBIT,
	/* Go on at the first rule of priority `target` (later than this
	 * one's, as Linux allows only forward jumps); while no rule has that
	 * priority the goto is skipped, as Linux skips an unresolved one. */
	FIB_RULE_GOTO,
};

#define FIB_IIF_ANY 0xffffu
/* The input "port" of the router's own packets, as Linux's `iif lo`: a
 * rule with it matches only lookups made with it. */
#define FIB_IIF_LOCAL 0xfffeu
#define FIB_DSCP_ANY 0xffu
#define FIB_RULE_PRIO_MAIN 32766u
#define FIB_RULE_PRIO_DEFAULT 32767u

struct fib_rule {
	uint32_t priority;
	uint8_t family;
	uint8_t action;        /* enum fib_rule_action */
	uint8_t dscp;          /* 0..63, or FIB_DSCP_ANY */
	uint8_t ipproto;       /* IP protocol, or 0 for any */
	uint16_t iif;          /* input port, or FIB_IIF_ANY */
	struct fib_prefix src; /* len 0 matches any source */
	struct fib_prefix dst; /* len 0 matches any destination */
	uint32_t table;        /* for FIB_RULE_TABLE; 0 means main */
	uint32_t target;       /* for FIB_RULE_GOTO: a priority above this one's */
	/* Port ranges, inclusive; 0-65535 (both zero counts as that too)
	 * matches any. Packets without ports carry 0. */
	uint16_t sport_lo, sport_hi, dport_lo, dport_hi;
};

/*
 * What rules match in a packet besides its addresses. Eight bytes, so a
 * reader compares it as one word. proto: the IP protocol (IPv6: the
 * header after the fixed one); sport, dport: TCP, UDP or SCTP ports of a
 * packet that carries them (not a later fragment), else 0.
 */
struct fib_flow {
	uint8_t dscp;
	uint8_t proto;
	uint16_t iif;
	uint16_t sport, dport;
};

/** @return 0, -EEXIST for an identical rule, -EINVAL, -ENOMEM. */
int fib_rule_add(struct fib *fib, const struct fib_rule *rule);
/** Delete the first rule equal to *rule. @return 0 or -ENOENT. */
int fib_rule_del(struct fib *fib, const struct fib_rule *rule);
/** Linux's default rules of a family, as a fib starts with them, less
 * local's 0 (local-first delivery, no rule here): 32766 main and, IPv4
 * only as in Linux, 32767 default. @return how many (2 or 1). */
uint32_t fib_rule_defaults(uint8_t family, struct fib_rule out[2]);
/** Which of them *rule is (equal as fib_rule_del compares): 0 main's,
 * 1 default's, -1 neither. */
int fib_rule_default(const struct fib_rule *rule);
/** Visit the rules of a family in evaluation order, default rules
 * included (not the local rule 0, which no list holds). */
typedef int (*fib_rule_cb)(const struct fib_rule *rule, void *arg);
int fib_rule_walk(const struct fib *fib, uint8_t family, fib_rule_cb cb, void *arg);

/** Reader: true when rules beyond main's must be walked for the family:
 * its rules differ from the defaults, or (IPv4) table default has routes
 * (the control path's test; the datapath takes the set itself:
 * fib_rules_get). */
bool fib_rules_active(const struct fib *fib, uint8_t family);

/**
 * Reader: route through the rules (call only when fib_rules_active()).
 * main_nh is the destination's result in the main table, which the caller
 * has already looked up in bulk.
 */
uint32_t fib_rule_route4(const struct fib *fib, uint32_t src, uint32_t dst,
			 const struct fib_flow *flow, uint32_t main_nh);
uint32_t fib_rule_route6(const struct fib *fib, const uint8_t src[16], const uint8_t dst[16],
			 const struct fib_flow *flow, uint32_t main_nh);
/**
 * Control path: the id of the table whose route answers a packet, as
 * fib_rule_route4/6 route it (main without rules; main for the router's
 * own addresses), or 0 when a rule's action answers or nothing does;
 * for `route get fibmatch`. main_nh as for fib_rule_route4/6.
 */
uint32_t fib_rule_table4(const struct fib *fib, uint32_t src, uint32_t dst,
			 const struct fib_flow *flow, uint32_t main_nh);
uint32_t fib_rule_table6(const struct fib *fib, const uint8_t src[16], const uint8_t dst[16],
			 const struct fib_flow *flow, uint32_t main_nh);
/**
 * Reader: a family's rules as published now, for routing a burst with
 * one load of them: NULL while main's answer is the rules' answer (see
 * fib_rules_active). Valid until the reader's next quiescent state.
 */
struct fib_rule_set;
const struct fib_rule_set *fib_rules_get(const struct fib *fib, uint8_t family);
/** Does some rule of the set select by port? Only then must fib_flow's
 * ports be filled in (finding them is most of a flow's cost). */
bool fib_rule_set_ports(const struct fib_rule_set *rules);
/**
 * Reader: route a burst through rules (fib_rules_get's, not NULL): nh[i]
 * holds the main table's answer for dst[i] on entry, the rules' answer
 * on return.
 */
void fib_rule_route4_bulk(const struct fib *fib, const struct fib_rule_set *rules,
			  const uint32_t *src, const uint32_t *dst, const struct fib_flow *flow,
			  uint32_t *nh, unsigned int n);
void fib_rule_route6_bulk(const struct fib *fib, const struct fib_rule_set *rules,
			  const uint8_t *const *src, const uint8_t *const *dst,
			  const struct fib_flow *flow, uint32_t *nh, unsigned int n);

#endif /* ROUTER_FIB_H */
