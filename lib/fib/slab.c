/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "mem.h"
#include "slab.h"

/* Chunks double from 64 KiB to 2 MiB: a small table's RIB stays small,
 * and a full one's sits on 2 MiB pages (transparent huge pages), where
 * on 4 KiB pages a full table's insert descents would miss the TLB. */
#define CHUNK_MIN (64u << 10)
#define CHUNK_MAX (2u << 20)
#define CHUNK_HEAD 64 /* the next chunk and this one's size; objects stay cache-line aligned */

struct chunk_head {
	void *next;
	size_t bytes;
};

static void *
chunk_alloc(size_t bytes)
{
	if (bytes >= CHUNK_MAX)
		return fib_mem_alloc(bytes, false); /* 2 MiB aligned, huge pages */
	return aligned_alloc(64, bytes);
}

static void
chunk_free(void *c, size_t bytes)
{
	if (bytes >= CHUNK_MAX)
		fib_mem_free(c, bytes);
	else
		free(c);
}

void
slab_init(struct slab *s, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->size = (size + 15) & ~(size_t)15;
}

void
slab_fini(struct slab *s)
{
	struct chunk_head *c = s->chunks;
	while (c != NULL) {
		struct chunk_head *next = c->next;
		chunk_free(c, c->bytes);
		c = next;
	}
	slab_init(s, s->size);
}

void *
slab_alloc(struct slab *s)
{
	void *o = s->free;
	if (o != NULL) {
		s->free = *(void **)o;
	} else {
		if (s->cur == NULL || s->cur + s->size > s->cur_end) {
			size_t bytes = s->bytes < CHUNK_MIN   ? CHUNK_MIN
				       : s->bytes < CHUNK_MAX ? (size_t)s->bytes
							      : CHUNK_MAX;
			uint8_t *c = chunk_alloc(bytes);
			if (c == NULL)
				return NULL;
			*(struct chunk_head *)c = (struct chunk_head){s->chunks, bytes};
			s->chunks = c;
			s->cur = c + CHUNK_HEAD;
			s->cur_end = c + bytes;
			s->bytes += bytes;
		}
		o = s->cur;
		s->cur += s->size;
	}
	memset(o, 0, s->size);
	return o;
}

void
slab_put(struct slab *s, void *obj)
{
	*(void **)obj = s->free;
	s->free = obj;
}
