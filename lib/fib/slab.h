/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fixed-size object allocator for RIB nodes and routes: objects come from
 * chunks that double from 64 KiB to 2 MiB (slab.c says why) and return
 * to a free list, so a full table's 1M small objects cost no malloc each
 * and free in one sweep. Writer thread only.
 */
#ifndef FIB_SLAB_H
#define FIB_SLAB_H

#include <stddef.h>
#include <stdint.h>

struct slab {
	size_t size;      /* object size, at least a pointer */
	void *free;       /* free list, linked through the objects */
	void *chunks;     /* chunk list, linked through each chunk's first word */
	uint8_t *cur;     /* next never-used object in the newest chunk */
	uint8_t *cur_end; /* end of the newest chunk */
	uint64_t bytes;   /* memory held, for statistics */
};

void slab_init(struct slab *s, size_t size);
void slab_fini(struct slab *s);
/* A zeroed object, or NULL. */
void *slab_alloc(struct slab *s);
void slab_put(struct slab *s, void *obj);

#endif
