/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Route origins (protocols) by name, as iproute2's rt_protos and FRR's
 * zebra name them: one table for the CLI (route ... proto NAME) and the
 * settings (kernel-protocols). 253 is the router's own (its hidden host
 * routes for neighbours).
 */
#include <errno.h>
#include <string.h>

#include "control.h"

static const struct {
	const char *name;
	uint8_t v;
} origins[] = {{"redirect", 1},
	       {"kernel", RT_ORIGIN_KERNEL},
	       {"boot", RT_ORIGIN_BOOT},
	       {"static", 4},
	       {"ra", 9},
	       {"zebra", 11},
	       {"bird", 12},
	       {"dhcp", 16},
	       {"keepalived", 18},
	       {"babel", 42},
	       {"bgp", 186},
	       {"isis", 187},
	       {"ospf", 188},
	       {"rip", 189},
	       {"eigrp", 192},
	       {"sharp", 194},
	       {"pbr", 195},
	       {"openfabric", 197},
	       {"neigh", RT_ORIGIN_NEIGH}};

const char *
rt_origin_name(uint8_t v)
{
	for (unsigned int i = 0; i < sizeof(origins) / sizeof(origins[0]); i++)
		if (origins[i].v == v)
			return origins[i].name;
	return NULL;
}

int
rt_origin_by_name(const char *name, uint8_t *v)
{
	for (unsigned int i = 0; name != NULL && i < sizeof(origins) / sizeof(origins[0]); i++)
		if (strcmp(name, origins[i].name) == 0) {
			*v = origins[i].v;
			return 0;
		}
	return -ENOENT;
}
