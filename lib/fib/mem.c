/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "mem.h"

#define HUGE_2M (2u << 20)

static size_t
round_2m(size_t size)
{
	return (size + HUGE_2M - 1) & ~((size_t)HUGE_2M - 1);
}

/* 2 MiB-aligned anonymous memory, eligible for transparent huge pages
 * if huge. */
static void *
thp_alloc(size_t len, bool huge)
{
	/* Map 2 MiB more and trim, so the array starts on a 2 MiB boundary
	 * and huge pages can back all of it. */
	uint8_t *raw = mmap(NULL, len + HUGE_2M, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (raw == MAP_FAILED)
		return NULL;
	uintptr_t start = ((uintptr_t)raw + HUGE_2M - 1) & ~((uintptr_t)HUGE_2M - 1);
	size_t head = start - (uintptr_t)raw;
	if (head)
		munmap(raw, head);
	if (HUGE_2M - head)
		munmap((uint8_t *)start + len, HUGE_2M - head);
	/* Advisory: with THP in "madvise" mode this is what enables it; in
	 * "always" mode the other advice keeps small tables on 4 KiB pages. */
	(void)madvise((void *)start, len, huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	return (void *)start;
}

void *
fib_mem_alloc(size_t size, bool populate)
{
	size_t len = round_2m(size);
	if (populate) {
		void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE, -1, 0);
		if (p != MAP_FAILED)
			return p;
	}
	void *p = thp_alloc(len, true);
	if (p != NULL && populate && madvise(p, len, MADV_POPULATE_WRITE) != 0)
		memset(p, 0, len); /* kernels before 5.14 */
	return p;
}

void
fib_mem_free(void *p, size_t size)
{
	if (p != NULL)
		munmap(p, round_2m(size));
}

void *
fib_mem_reserve(size_t size)
{
	return thp_alloc(round_2m(size), false);
}

void
fib_mem_huge(void *p, size_t size, bool huge)
{
	if (p != NULL)
		(void)madvise(p, round_2m(size), huge ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
}

void
fib_mem_discard(void *p, size_t size)
{
	if (p != NULL && size != 0)
		(void)madvise(p, size, MADV_DONTNEED);
}

static pthread_once_t zero_once = PTHREAD_ONCE_INIT;
static void *zero_mem;
static size_t zero_size;

static void
zero_init(void)
{
	void *p = mmap(NULL, zero_size, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1,
		       0);
	zero_mem = p == MAP_FAILED ? NULL : p;
}

const void *
fib_mem_zero(size_t size)
{
	zero_size = size;
	pthread_once(&zero_once, zero_init);
	return zero_mem;
}
