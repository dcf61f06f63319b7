// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the string interning table (src/strtab.c) and for the
 * metadata escaping both ends of the recording's metadata share
 * (src/meta.c): numbers in the order added, a string found again by its
 * bytes (also without a NUL, and not by a prefix), copies that do not move
 * while the table grows, sr_intern()'s one pointer per text, and the \xHH
 * round trip.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "meta.h"
#include "reader-local.h"
#include "strtab.h"
#include "unit.h"

static void test_strtab(void)
{
	struct sr_strtab t = { 0 };
	const char *first;
	char buf[32];
	int added, i, ok = 1;

	CHECK_EQ(sr_strtab_find(&t, "a", 1), -1, "an empty table finds nothing");
	CHECK_EQ(sr_strtab_add(&t, "sched_switch", 12, &added), 0, "the first string is 0");
	CHECK_EQ(added, 1, "and was added");
	first = sr_strtab_str(&t, 0);
	CHECK_EQ(sr_strtab_add(&t, "sched_waking", 12, &added), 1, "the second is 1");
	CHECK_EQ(sr_strtab_add(&t, "sched_switch", 12, &added), 0, "a string already there keeps its number");
	CHECK_EQ(added, 0, "and is not added again");
	CHECK_EQ(sr_strtab_find(&t, "sched_switchXYZ", 12), 0, "found by its bytes, no NUL needed");
	CHECK_EQ(sr_strtab_find(&t, "sched_sw", 8), -1, "a prefix is another string");
	CHECK_EQ(sr_strtab_add(&t, "", 0, NULL), 2, "the empty string is a string");
	/* past several index and array growths */
	for (i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		if (sr_strtab_add(&t, buf, strlen(buf), NULL) != i + 3)
			ok = 0;
	}
	CHECK(ok, "5000 more strings numbered in the order added");
	for (i = 0, ok = 1; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "name-%d", i);
		if (sr_strtab_find(&t, buf, strlen(buf)) != i + 3 ||
		    strcmp(sr_strtab_str(&t, i + 3), buf))
			ok = 0;
	}
	CHECK(ok, "each found again with its text");
	CHECK(sr_strtab_str(&t, 0) == first && !strcmp(first, "sched_switch"),
	      "a string's copy does not move as the table grows");
	CHECK_EQ(t.n, 5003, "n counts the strings");
	sr_strtab_release(&t);
	CHECK(t.n == 0 && !t.str && sr_strtab_find(&t, "name-1", 6) == -1,
	      "a released table is empty and usable");
	sr_strtab_release(&t);
}

static void test_intern(void)
{
	char a[] = "tracing_mark_write", b[] = "tracing_mark_write";
	const char *pa = sr_intern(a), *pb = sr_intern(b);

	CHECK(pa == pb && pa != a, "sr_intern gives one copy per text");
	a[0] = 'X';
	CHECK(!strcmp(pa, "tracing_mark_write"), "the copy is the process's, not the caller's");
	CHECK(sr_intern("print") != pa, "another text, another copy");
}

static void test_meta_escape(void)
{
	const char *in = "kworker/3:1 \\ \xc3\xa9\x1b";
	char *e = sr_meta_escape(in);

	CHECK(e && !strcmp(e, "kworker/3:1\\x20\\x5c\\x20\\xc3\\xa9\\x1b"),
	      "blanks, backslashes and bytes outside '!'..'~' become \\xHH: '%s'", e ? e : "");
	if (e)
		sr_meta_unescape(e);
	CHECK(e && !strcmp(e, in), "sr_meta_unescape undoes it");
	free(e);
}

int main(void)
{
	test_strtab();
	test_intern();
	test_meta_escape();
	return unit_done();
}
