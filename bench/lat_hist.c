/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "lat_hist.h"

void
lat_hist_reset(struct lat_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min_ns = UINT64_MAX;
}

uint64_t
lat_hist_quantile(const struct lat_hist *h, double q)
{
	if (h->n == 0)
		return 0;
	/* the rank of the sample wanted, 1-based, at least the first */
	uint64_t rank = (uint64_t)(q * (double)h->n + 0.999999), seen = 0;
	if (rank == 0)
		rank = 1;
	for (uint32_t b = 0; b < LAT_HIST_BUCKETS; b++) {
		seen += h->bucket[b];
		if (seen >= rank) {
			if (b == LAT_HIST_BUCKETS - 1)
				return h->max_ns;
			uint64_t edge = (uint64_t)(b + 1) * LAT_HIST_NS_PER_BUCKET;
			return edge < h->max_ns ? edge : h->max_ns;
		}
	}
	return h->max_ns;
}
