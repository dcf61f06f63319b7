// SPDX-License-Identifier: GPL-2.0
/*
 * The string interning table (see strtab.h).
 */
#include "strtab.h"

#include <stdlib.h>
#include <string.h>

#include "banned.h"

/* FNV-1a over the bytes */
static uint32_t str_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	while (len--)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* the slot holding string @h/@s, or the empty slot where it would go */
static size_t slot_of(const struct sr_strtab *t, uint32_t h, const char *s, size_t len)
{
	size_t mask = t->nslots - 1, j;

	for (j = h & mask; t->slot[j]; j = (j + 1) & mask) {
		size_t i = t->slot[j] - 1;

		if (t->hash[i] == h && t->len[i] == len && !memcmp(t->str[i], s, len))
			break;
	}
	return j;
}

long sr_strtab_find(const struct sr_strtab *t, const char *s, size_t len)
{
	size_t j;

	if (!t->nslots)
		return -1;
	j = slot_of(t, str_hash(s, len), s, len);
	return t->slot[j] ? (long)(t->slot[j] - 1) : -1;
}

/* room for one more string: the arrays and an index at most half full */
static int reserve(struct sr_strtab *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **str = realloc(t->str, cap * sizeof(*str));
		size_t *len;
		uint32_t *hash;

		if (!str)
			return -1;
		t->str = str;
		len = realloc(t->len, cap * sizeof(*len));
		if (!len)
			return -1;
		t->len = len;
		hash = realloc(t->hash, cap * sizeof(*hash));
		if (!hash)
			return -1;
		t->hash = hash;
		t->cap = cap;
	}
	if ((t->n + 1) * 2 > t->nslots) {
		size_t nslots = t->nslots ? t->nslots * 2 : 128, i, j;
		size_t *slot = calloc(nslots, sizeof(*slot));

		if (!slot)
			return -1;
		for (i = 0; i < t->n; i++) {
			for (j = t->hash[i] & (nslots - 1); slot[j]; j = (j + 1) & (nslots - 1))
				;
			slot[j] = i + 1;
		}
		free(t->slot);
		t->slot = slot;
		t->nslots = nslots;
	}
	return 0;
}

long sr_strtab_add(struct sr_strtab *t, const char *s, size_t len, int *added)
{
	uint32_t h = str_hash(s, len);
	size_t j;
	char *copy;

	if (added)
		*added = 0;
	if (t->nslots) {
		j = slot_of(t, h, s, len);
		if (t->slot[j])
			return (long)(t->slot[j] - 1);
	}
	if (reserve(t))
		return -1;
	copy = malloc(len + 1);
	if (!copy)
		return -1;
	memcpy(copy, s, len);
	copy[len] = '\0';
	j = slot_of(t, h, s, len);
	t->str[t->n] = copy;
	t->len[t->n] = len;
	t->hash[t->n] = h;
	t->slot[j] = ++t->n;
	if (added)
		*added = 1;
	return (long)(t->n - 1);
}

void sr_strtab_release(struct sr_strtab *t)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		free(t->str[i]);
	free(t->str);
	free(t->len);
	free(t->hash);
	free(t->slot);
	memset(t, 0, sizeof(*t));
}
