/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one string interning table of src/: each distinct string stored
 * once, numbered 0, 1, 2... in the order added, found again by its bytes
 * through an open-addressing index.  A string's copy never moves, so the
 * pointer sr_strtab_str() gives stays valid until sr_strtab_release().
 * Used by sr_intern() (event names, for the life of the process), the
 * database writer (reason texts to reason ids) and the text reader (event
 * names to event kinds).  Not thread-safe.
 */
#ifndef SCHEDREPLAY_STRTAB_H
#define SCHEDREPLAY_STRTAB_H

#include <stddef.h>
#include <stdint.h>

struct sr_strtab {
	char **str;		/* str[i]: the i-th string added, NUL-terminated */
	size_t *len;		/* its length */
	uint32_t *hash;		/* its hash */
	size_t n, cap;
	size_t *slot;		/* index + 1 of a string, 0 empty; nslots a power of two */
	size_t nslots;
};

/* Return: the number of @s (@len bytes, no NUL needed) in @t, or -1 if absent */
long sr_strtab_find(const struct sr_strtab *t, const char *s, size_t len);

/**
 * sr_strtab_add - the number of @s (@len bytes) in @t, a copy of it added
 * (with a terminating NUL) when it is not there yet
 * @added: set to whether it was added (may be NULL)
 * Return: the number, or -1 without memory (@t unchanged).
 */
long sr_strtab_add(struct sr_strtab *t, const char *s, size_t len, int *added);

/* Return: string number @i of @t (0 <= @i < t->n) */
static inline const char *sr_strtab_str(const struct sr_strtab *t, long i)
{
	return t->str[i];
}

/* sr_strtab_release - free every string of @t and its index; @t is empty again */
void sr_strtab_release(struct sr_strtab *t);

#endif
