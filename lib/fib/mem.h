/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef FIB_MEM_H
#define FIB_MEM_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Large zeroed arrays for the lookup structures, on 2 MiB pages. They are
 * plain process memory, not DPDK memory: only CPUs read them, so they need
 * no IOVA and the library needs no EAL.
 *
 * populate: back the whole array now. First-level tables are read at
 * random, so every 4 KiB page would cost a TLB miss per lookup; they are
 * taken from the reserved hugetlbfs pool when it has room, else from
 * transparent huge pages, faulted in by writes (a read first would map
 * the zero page and later split the 2 MiB mapping into 4 KiB pages).
 * Without populate (group pools), pages are faulted in on first use.
 */
void *fib_mem_alloc(size_t size, bool populate);
void fib_mem_free(void *p, size_t size);
/* As fib_mem_alloc without populate, on 4 KiB pages until fib_mem_huge
 * says otherwise: a small table's first level and group pool, whose
 * first entries would otherwise take 2 MiB pages (freed with
 * fib_mem_free, which unmaps them at once). */
void *fib_mem_reserve(size_t size);
/* Make [p, p + size) eligible for transparent huge pages, or not. */
void fib_mem_huge(void *p, size_t size, bool huge);
/* Give back the pages of the first `size` bytes of an array that was
 * allocated without populate; they read as zeros and are faulted in
 * again on use. */
void fib_mem_discard(void *p, size_t size);

/* A read-only, all-zero array of `size` bytes shared by every empty
 * lookup structure of the process, so that readers of a family without
 * routes need no test. size must be the same at every call. */
const void *fib_mem_zero(size_t size);

#endif
