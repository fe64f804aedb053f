/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The exception rings: their classes' names, their sizes and their
 * making. What goes on which is dp_punt's (dp_inline.h); what comes off,
 * the control core's (control/loop.c).
 */
#include <stdio.h>

#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ring.h>

#include "datapath.h"

const char *const rt_exc_names[RT_EXC_CLASSES] = {"neigh", "proto", "local", "data"};

/*
 * A ring's size by class, before scaling: room for a few control-loop
 * rounds' budgets (loop.c) of each. Data gets the most, as packets that
 * wait for a neighbour come in bursts when a flow starts.
 */
static const unsigned int exc_size[RT_EXC_CLASSES] = {256, 256, 256, 512};
#define EXC_SIZE_MIN 64u

unsigned int
rt_exc_ring_shift(unsigned int nb_ports, unsigned int nb_workers, unsigned int nb_mbufs)
{
	unsigned int per_port = 0, shift = 0;
	for (unsigned int c = 0; c < RT_EXC_CLASSES; c++)
		per_port += exc_size[c];
	/* Every ring full at once may hold at most half the mbufs: the
	 * ports' RX queues need the rest, or a flood on every port would
	 * starve reception through the pool instead. */
	while ((per_port >> shift) * nb_ports * nb_workers > nb_mbufs / 2 &&
	       (exc_size[0] >> (shift + 1)) >= EXC_SIZE_MIN)
		shift++;
	return shift;
}

int
rt_worker_exc_create(struct rt_worker *w, unsigned int nb_ports, unsigned int shift)
{
	for (unsigned int p = 0; p < nb_ports; p++)
		for (unsigned int c = 0; c < RT_EXC_CLASSES; c++) {
			char name[RTE_RING_NAMESIZE];
			snprintf(name, sizeof(name), "exc%u_%u_%s", w->id, p, rt_exc_names[c]);
			w->exc[p][c] =
				rte_ring_create(name, exc_size[c] >> shift, (int)rte_socket_id(),
						RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (w->exc[p][c] == NULL)
				return -rte_errno;
		}
	return 0;
}
