/* SPDX-License-Identifier: BSD-3-Clause */
/* A latency histogram for the load tests (bench/pkt_gen's trials): one
 * bucket a LAT_HIST_NS_PER_BUCKET up to LAT_HIST_MAX_US, one above, and
 * the exact minimum and maximum. Percentiles are read to a bucket's
 * width, which is far below what memif and a polling receiver add. */
#ifndef BENCH_LAT_HIST_H
#define BENCH_LAT_HIST_H

#include <stdint.h>

#define LAT_HIST_NS_PER_BUCKET 10
#define LAT_HIST_MAX_US 2000
#define LAT_HIST_BUCKETS (LAT_HIST_MAX_US * 1000 / LAT_HIST_NS_PER_BUCKET + 1)

struct lat_hist {
	uint64_t n;
	uint64_t min_ns, max_ns;
	uint64_t bucket[LAT_HIST_BUCKETS];
};

void lat_hist_reset(struct lat_hist *h);

static inline void
lat_hist_add(struct lat_hist *h, uint64_t ns)
{
	uint64_t b = ns / LAT_HIST_NS_PER_BUCKET;
	h->bucket[b < LAT_HIST_BUCKETS - 1 ? b : LAT_HIST_BUCKETS - 1]++;
	h->n++;
	h->min_ns = ns < h->min_ns ? ns : h->min_ns;
	h->max_ns = ns > h->max_ns ? ns : h->max_ns;
}

/* The value below which a share Q (0..1) of the samples lie: the upper
 * edge of its bucket, the maximum itself when above the last; 0 if empty. */
uint64_t lat_hist_quantile(const struct lat_hist *h, double q);

#endif
