/* SPDX-License-Identifier: BSD-3-Clause */
/* The growable string commands write their output into (cli.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

void
rt_buf_printf(struct rt_buf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		size_t room = b->cap - b->len;
		va_start(ap, fmt);
		int n = vsnprintf(b->s ? b->s + b->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0)
			return;
		if ((size_t)n < room) {
			b->len += (size_t)n;
			return;
		}
		size_t cap = b->cap ? b->cap * 2 : 4096;
		while (cap - b->len <= (size_t)n)
			cap *= 2;
		char *s = realloc(b->s, cap);
		if (s == NULL)
			return;
		b->s = s;
		b->cap = cap;
	}
}
