/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_fib.h>
#include <rte_fib6.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>

#include "lpm_peers.h"

static unsigned int name_seq;

static uint64_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	if (rte_malloc_get_socket_stats(0, &st) < 0)
		return 0;
	return st.heap_allocsz_bytes;
}

static uint32_t
result_u32(const void *out, unsigned int i)
{
	return ((const uint32_t *)out)[i];
}

static uint32_t
result_u64(const void *out, unsigned int i)
{
	return (uint32_t)((const uint64_t *)out)[i];
}

/* Our FIB. */

struct ours {
	struct fib *fib;
	const struct fib_table *t;
	uint8_t af;
};

static int
ours_add(void *ctx, const struct fib_prefix *p, uint32_t nh)
{
	struct ours *o = ctx;
	struct fib_route r = {.dst = *p, .nh = nh};
	return fib_route_add(o->fib, &r);
}

static int
ours_del(void *ctx, const struct fib_prefix *p)
{
	struct ours *o = ctx;
	struct fib_route r = {.dst = *p};
	return fib_route_del(o->fib, &r, true);
}

static void
ours_destroy(void *ctx)
{
	struct ours *o = ctx;
	fib_free(o->fib);
	free(o);
}

static void
ours_bulk4(void *ctx, const void *addrs, void *out, unsigned int n)
{
	fib_lookup4_bulk(((struct ours *)ctx)->t, addrs, out, n);
}

static void
ours_bulk6(void *ctx, const void *addrs, void *out, unsigned int n)
{
	/* The datapath passes pointers into packets; build them here, so
	 * their cost is counted. */
	const uint8_t(*a)[16] = addrs;
	const uint8_t *p[PEER_BURST_MAX];
	for (unsigned int i = 0; i < n; i++)
		p[i] = a[i];
	fib_lookup6_bulk(((struct ours *)ctx)->t, p, out, n);
}

static uint32_t
ours_one4(void *ctx, const void *addr)
{
	return fib_lookup4(((struct ours *)ctx)->t, *(const uint32_t *)addr);
}

static uint32_t
ours_one6(void *ctx, const void *addr)
{
	return fib_lookup6(((struct ours *)ctx)->t, addr);
}

int
peer_ours(struct peer *p, uint8_t family, uint32_t nroutes, uint32_t ngroups)
{
	(void)nroutes;
	(void)ngroups; /* the defaults: group memory is committed as used */
	struct ours *o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	struct fib_conf conf = {0};
	for (int t = FIB_RT_LOCAL; t < FIB_RT_COUNT; t++)
		conf.type_nh[t] = FIB_NH_MAX - (uint32_t)t;
	o->fib = fib_create(&conf);
	if (o->fib == NULL) {
		free(o);
		return -errno;
	}
	o->t = fib_table_lookup(o->fib, FIB_TABLE_MAIN);
	o->af = family;
	*p = (struct peer){.name = "ours",
			   .family = family,
			   .ctx = o,
			   .add = ours_add,
			   .del = ours_del,
			   .destroy = ours_destroy,
			   .nvariants = 1,
			   .variant = {"bulk"},
			   .bulk = {family == FIB_AF_INET ? ours_bulk4 : ours_bulk6},
			   .one = family == FIB_AF_INET ? ours_one4 : ours_one6,
			   .result = {result_u32}};
	return 0;
}

struct fib *
peer_ours_fib(const struct peer *p)
{
	return ((struct ours *)p->ctx)->fib;
}

/* rte_fib, DIR-24-8 with 4-byte next hops. */

struct dpdk_ctx {
	void *obj;
	uint64_t heap_base;
	int type[PEER_MAX_VARIANTS]; /* implementation behind each variant */
};

static int
rte_fib_add_(void *ctx, const struct fib_prefix *p, uint32_t nh)
{
	return rte_fib_add(((struct dpdk_ctx *)ctx)->obj, p->addr.v4, p->len, nh);
}

static int
rte_fib_del_(void *ctx, const struct fib_prefix *p)
{
	return rte_fib_delete(((struct dpdk_ctx *)ctx)->obj, p->addr.v4, p->len);
}

static void
rte_fib_destroy_(void *ctx)
{
	rte_fib_free(((struct dpdk_ctx *)ctx)->obj);
	free(ctx);
}

/* rte_fib picks its implementation per object: one variant per
 * implementation, selected before each is timed. */
static int
rte_fib_select_(void *ctx, unsigned int v)
{
	struct dpdk_ctx *c = ctx;
	return rte_fib_select_lookup(c->obj, (enum rte_fib_lookup_type)c->type[v]);
}

static int
rte_fib6_select_(void *ctx, unsigned int v)
{
	struct dpdk_ctx *c = ctx;
	return rte_fib6_select_lookup(c->obj, (enum rte_fib6_lookup_type)c->type[v]);
}

static void
rte_fib_bulk(void *ctx, const void *addrs, void *out, unsigned int n)
{
	rte_fib_lookup_bulk(((struct dpdk_ctx *)ctx)->obj, (uint32_t *)(uintptr_t)addrs, out,
			    (int)n);
}

static uint32_t
rte_fib_one(void *ctx, const void *addr)
{
	uint64_t nh;
	rte_fib_lookup_bulk(((struct dpdk_ctx *)ctx)->obj, (uint32_t *)(uintptr_t)addr, &nh, 1);
	return (uint32_t)nh;
}

int
peer_rte_fib(struct peer *p, uint32_t nroutes, uint32_t ngroups)
{
	struct dpdk_ctx *c = calloc(1, sizeof(*c));
	char name[32];
	snprintf(name, sizeof(name), "bfib%u", name_seq++);
	struct rte_fib_conf conf = {.type = RTE_FIB_DIR24_8,
				    .default_nh = 0,
				    .max_routes = (int)nroutes,
				    .dir24_8 = {.nh_sz = RTE_FIB_DIR24_8_4B, .num_tbl8 = ngroups}};
	c->heap_base = heap_used();
	c->obj = rte_fib_create(name, 0, &conf);
	if (c->obj == NULL) {
		free(c);
		return -ENOMEM;
	}
	*p = (struct peer){.name = "rte_fib",
			   .family = FIB_AF_INET,
			   .ctx = c,
			   .add = rte_fib_add_,
			   .del = rte_fib_del_,
			   .destroy = rte_fib_destroy_,
			   .select = rte_fib_select_,
			   .one = rte_fib_one};
	static const struct {
		const char *name;
		enum rte_fib_lookup_type type;
	} v[] = {{"avx512", RTE_FIB_LOOKUP_DIR24_8_VECTOR_AVX512},
		 {"scalar_inline", RTE_FIB_LOOKUP_DIR24_8_SCALAR_INLINE},
		 {"scalar_macro", RTE_FIB_LOOKUP_DIR24_8_SCALAR_MACRO}};
	for (unsigned int i = 0; i < 3; i++) {
		if (rte_fib_select_lookup(c->obj, v[i].type) != 0)
			continue; /* not available on this CPU or EAL setting */
		c->type[p->nvariants] = v[i].type;
		p->variant[p->nvariants] = v[i].name;
		p->result[p->nvariants] = result_u64;
		p->bulk[p->nvariants++] = rte_fib_bulk;
	}
	return 0;
}

/* rte_lpm. */

static int
rte_lpm_add_(void *ctx, const struct fib_prefix *p, uint32_t nh)
{
	return rte_lpm_add(((struct dpdk_ctx *)ctx)->obj, p->addr.v4, p->len, nh);
}

static int
rte_lpm_del_(void *ctx, const struct fib_prefix *p)
{
	return rte_lpm_delete(((struct dpdk_ctx *)ctx)->obj, p->addr.v4, p->len);
}

static void
rte_lpm_destroy_(void *ctx)
{
	rte_lpm_free(((struct dpdk_ctx *)ctx)->obj);
	free(ctx);
}

static void
rte_lpm_bulk(void *ctx, const void *addrs, void *out, unsigned int n)
{
	rte_lpm_lookup_bulk(((struct dpdk_ctx *)ctx)->obj, addrs, out, n);
}

static void
rte_lpm_x4(void *ctx, const void *addrs, void *out, unsigned int n)
{
	const struct rte_lpm *lpm = ((struct dpdk_ctx *)ctx)->obj;
	const uint32_t *a = addrs;
	uint32_t *nh = out;
	unsigned int i;
	for (i = 0; i + 4 <= n; i += 4)
		rte_lpm_lookupx4(lpm, _mm_loadu_si128((const __m128i *)&a[i]), &nh[i], 0);
	for (; i < n; i++)
		if (rte_lpm_lookup(lpm, a[i], &nh[i]) != 0)
			nh[i] = 0;
}

/* lookup_bulk flags hits in bit 24 and leaves misses' low bits
 * undefined; lookupx4 writes the plain next hop, or 0 (our default). */
static uint32_t
rte_lpm_bulk_result(const void *out, unsigned int i)
{
	uint32_t v = ((const uint32_t *)out)[i];
	return v & RTE_LPM_LOOKUP_SUCCESS ? v & 0x00ffffff : 0;
}

static uint32_t
rte_lpm_one(void *ctx, const void *addr)
{
	uint32_t nh;
	return rte_lpm_lookup(((struct dpdk_ctx *)ctx)->obj, *(const uint32_t *)addr, &nh) == 0 ? nh
												: 0;
}

int
peer_rte_lpm(struct peer *p, uint32_t nroutes, uint32_t ngroups)
{
	struct dpdk_ctx *c = calloc(1, sizeof(*c));
	char name[32];
	snprintf(name, sizeof(name), "blpm%u", name_seq++);
	struct rte_lpm_config conf = {.max_rules = nroutes, .number_tbl8s = ngroups};
	c->heap_base = heap_used();
	c->obj = rte_lpm_create(name, 0, &conf);
	if (c->obj == NULL) {
		free(c);
		return -ENOMEM;
	}
	*p = (struct peer){.name = "rte_lpm",
			   .family = FIB_AF_INET,
			   .ctx = c,
			   .add = rte_lpm_add_,
			   .del = rte_lpm_del_,
			   .destroy = rte_lpm_destroy_,
			   .nvariants = 2,
			   .variant = {"bulk", "x4"},
			   .bulk = {rte_lpm_bulk, rte_lpm_x4},
			   .result = {rte_lpm_bulk_result, result_u32},
			   .one = rte_lpm_one};
	return 0;
}

/* rte_fib6, trie with 4-byte next hops. */

static int
rte_fib6_add_(void *ctx, const struct fib_prefix *p, uint32_t nh)
{
	return rte_fib6_add(((struct dpdk_ctx *)ctx)->obj, p->addr.v6, p->len, nh);
}

static int
rte_fib6_del_(void *ctx, const struct fib_prefix *p)
{
	return rte_fib6_delete(((struct dpdk_ctx *)ctx)->obj, p->addr.v6, p->len);
}

static void
rte_fib6_destroy_(void *ctx)
{
	rte_fib6_free(((struct dpdk_ctx *)ctx)->obj);
	free(ctx);
}

static void
rte_fib6_bulk(void *ctx, const void *addrs, void *out, unsigned int n)
{
	rte_fib6_lookup_bulk(((struct dpdk_ctx *)ctx)->obj, (uint8_t(*)[16])(uintptr_t)addrs, out,
			     (int)n);
}

static uint32_t
rte_fib6_one(void *ctx, const void *addr)
{
	uint64_t nh;
	rte_fib6_lookup_bulk(((struct dpdk_ctx *)ctx)->obj, (uint8_t(*)[16])(uintptr_t)addr, &nh,
			     1);
	return (uint32_t)nh;
}

int
peer_rte_fib6(struct peer *p, uint32_t nroutes, uint32_t ngroups)
{
	struct dpdk_ctx *c = calloc(1, sizeof(*c));
	char name[32];
	snprintf(name, sizeof(name), "bfib6_%u", name_seq++);
	struct rte_fib6_conf conf = {.type = RTE_FIB6_TRIE,
				     .default_nh = 0,
				     .max_routes = (int)nroutes,
				     .trie = {.nh_sz = RTE_FIB6_TRIE_4B, .num_tbl8 = ngroups}};
	c->heap_base = heap_used();
	c->obj = rte_fib6_create(name, 0, &conf);
	if (c->obj == NULL) {
		free(c);
		return -ENOMEM;
	}
	*p = (struct peer){.name = "rte_fib6",
			   .family = FIB_AF_INET6,
			   .ctx = c,
			   .add = rte_fib6_add_,
			   .del = rte_fib6_del_,
			   .destroy = rte_fib6_destroy_,
			   .select = rte_fib6_select_,
			   .one = rte_fib6_one};
	static const struct {
		const char *name;
		enum rte_fib6_lookup_type type;
	} v[] = {{"avx512", RTE_FIB6_LOOKUP_TRIE_VECTOR_AVX512},
		 {"scalar", RTE_FIB6_LOOKUP_TRIE_SCALAR}};
	for (unsigned int i = 0; i < 2; i++) {
		if (rte_fib6_select_lookup(c->obj, v[i].type) != 0)
			continue;
		c->type[p->nvariants] = v[i].type;
		p->variant[p->nvariants] = v[i].name;
		p->result[p->nvariants] = result_u64;
		p->bulk[p->nvariants++] = rte_fib6_bulk;
	}
	return 0;
}

/* rte_lpm6. */

static int
rte_lpm6_add_(void *ctx, const struct fib_prefix *p, uint32_t nh)
{
	return rte_lpm6_add(((struct dpdk_ctx *)ctx)->obj, p->addr.v6, p->len, nh);
}

static int
rte_lpm6_del_(void *ctx, const struct fib_prefix *p)
{
	return rte_lpm6_delete(((struct dpdk_ctx *)ctx)->obj, p->addr.v6, p->len);
}

static void
rte_lpm6_destroy_(void *ctx)
{
	rte_lpm6_free(((struct dpdk_ctx *)ctx)->obj);
	free(ctx);
}

static void
rte_lpm6_bulk(void *ctx, const void *addrs, void *out, unsigned int n)
{
	rte_lpm6_lookup_bulk_func(((struct dpdk_ctx *)ctx)->obj, (uint8_t(*)[16])(uintptr_t)addrs,
				  out, n);
}

static uint32_t
rte_lpm6_result(const void *out, unsigned int i)
{
	int32_t v = ((const int32_t *)out)[i];
	return v < 0 ? 0 : (uint32_t)v;
}

static uint32_t
rte_lpm6_one(void *ctx, const void *addr)
{
	uint32_t nh;
	return rte_lpm6_lookup(((struct dpdk_ctx *)ctx)->obj, addr, &nh) == 0 ? nh : 0;
}

int
peer_rte_lpm6(struct peer *p, uint32_t nroutes, uint32_t ngroups)
{
	struct dpdk_ctx *c = calloc(1, sizeof(*c));
	char name[32];
	snprintf(name, sizeof(name), "blpm6_%u", name_seq++);
	struct rte_lpm6_config conf = {.max_rules = nroutes, .number_tbl8s = ngroups};
	c->heap_base = heap_used();
	c->obj = rte_lpm6_create(name, 0, &conf);
	if (c->obj == NULL) {
		free(c);
		return -ENOMEM;
	}
	*p = (struct peer){.name = "rte_lpm6",
			   .family = FIB_AF_INET6,
			   .ctx = c,
			   .add = rte_lpm6_add_,
			   .del = rte_lpm6_del_,
			   .destroy = rte_lpm6_destroy_,
			   .nvariants = 1,
			   .variant = {"bulk"},
			   .bulk = {rte_lpm6_bulk},
			   .result = {rte_lpm6_result},
			   .one = rte_lpm6_one};
	return 0;
}

void
peer_update_mem(struct peer *p)
{
	if (strcmp(p->name, "ours") == 0) {
		/* One family has routes: the other has no memory of its own. */
		struct fib_mem_stats st;
		fib_table_mem(peer_ours_fib(p), FIB_TABLE_MAIN, &st);
		p->mem = st.tbl24_bytes + st.groups_bytes + st.rib_bytes;
		return;
	}
	p->mem = heap_used() - ((struct dpdk_ctx *)p->ctx)->heap_base;
}
