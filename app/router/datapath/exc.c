/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception rings: their classes' names and their making. What goes
 * on which is dp_punt's (dp_inline.h); what comes off, the control core's.
 */
#include <stdio.h>

#include <rte_errno.h>
#include <rte_ring.h>

#include "datapath.h"

const char *const rt_exc_names[RT_EXC_CLASSES] = {"neigh", "proto", "local", "data"};

int
rt_worker_exc_create(struct rt_worker *w, unsigned int size)
{
	for (unsigned int c = 0; c < RT_EXC_CLASSES; c++) {
		char name[RTE_RING_NAMESIZE];
		snprintf(name, sizeof(name), "exc%u_%s", w->id, rt_exc_names[c]);
		w->exc[c] = rte_ring_create(name, size, (int)rte_socket_id(),
					    RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (w->exc[c] == NULL)
			return -rte_errno;
	}
	return 0;
}
