/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "slab.h"

#define CHUNK_BYTES (64u << 10)
#define CHUNK_HEAD 64 /* keeps objects cache-line aligned */

void
slab_init(struct slab *s, size_t size)
{
	memset(s, 0, sizeof(*s));
	s->size = (size + 15) & ~(size_t)15;
}

void
slab_fini(struct slab *s)
{
	void *c = s->chunks;
	while (c != NULL) {
		void *next = *(void **)c;
		free(c);
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
			uint8_t *c = aligned_alloc(64, CHUNK_BYTES);
			if (c == NULL)
				return NULL;
			*(void **)c = s->chunks;
			s->chunks = c;
			s->cur = c + CHUNK_HEAD;
			s->cur_end = c + CHUNK_BYTES;
			s->bytes += CHUNK_BYTES;
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
