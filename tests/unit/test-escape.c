// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the one escaping of trace text (src/escape.c): which bytes
 * are kept and how the others are written, cutting at a whole escape, the
 * JSON filter, and the CSV writer's quoting of every kind of value.
 */
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "escape.h"
#include "unit.h"

static void same_escape(const char *in, const char *want, const char *what)
{
	char *got = sr_escape_dup(in);

	CHECK(got && !strcmp(got, want), "%s: got '%s', want '%s'", what, got ? got : "(null)",
	      want);
	CHECK_EQ(sr_escape_needed(in), strcmp(in, want) != 0, "%s: needed() agrees", what);
	free(got);
}

static void test_escape(void)
{
	static const char *const cases[][3] = {	/* in, out, what */
		{ "hackbench", "hackbench", "printable ASCII is kept" },
		{ "\x1b[2J\x1b[H", "\\x1b[2J\\x1b[H", "ESC" },
		{ "\x1b]0;PW\x07", "\\x1b]0;PW\\x07", "OSC and BEL" },
		{ "A\nB\r\nCD\tE", "A\\nB\\r\\nCD\\tE", "line ends and tab" },
		{ "a\\x", "a\\\\x", "a backslash is doubled (reversible)" },
		{ "\x7f", "\\x7f", "DEL" },
		{ "\x01\x1f", "\\x01\\x1f", "other C0 controls" },
		{ "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
		  "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", "valid UTF-8 (2, 3, 4 bytes) is kept" },
		{ "\xc2\x9b" "31m", "\\xc2\\x9b31m", "a C1 control (U+009B CSI) as bytes" },
		{ "\xc2\xa0", "\xc2\xa0", "U+00A0 is not C1: kept" },
		{ "\x9b", "\\x9b", "a lone continuation byte" },
		{ "\xff\xfe", "\\xff\\xfe", "bytes never in UTF-8" },
		{ "\xc3", "\\xc3", "a sequence cut by the end" },
		{ "\xc3(", "\\xc3(", "a lead byte without its continuation" },
		{ "\xc0\xaf", "\\xc0\\xaf", "an overlong '/'" },
		{ "\xe0\x80\xaf", "\\xe0\\x80\\xaf", "an overlong 3-byte form" },
		{ "\xed\xa0\x80", "\\xed\\xa0\\x80", "a surrogate" },
		{ "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", "above U+10FFFF" },
		{ "", "", "empty" },
	};
	char buf[7], *m = NULL;
	size_t len = 0, i;
	FILE *f;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		same_escape(cases[i][0], cases[i][1], cases[i][2]);

	CHECK(!strcmp(sr_escape_buf(buf, sizeof(buf), "ab\x1b" "cd"), "ab\\x1b"),
	      "a buffer holds whole escapes: '%s'", buf);
	CHECK(!strcmp(sr_escape_buf(buf, sizeof(buf), "abcd\x1b"), "abcd"),
	      "an escape that does not fit is left out: '%s'", buf);
	CHECK(!strcmp(sr_escape_buf(buf, sizeof(buf), NULL), ""), "NULL is empty");

	f = open_memstream(&m, &len);
	sr_escape_fputs("x\x1by\n", f);
	sr_escape_fputs(NULL, f);
	fputc('|', f);
	sr_json_fputs("{\"a\":\"\x7f\xc2\x9b\xc3\xa9\\u001b\"}", f);
	fclose(f);
	CHECK(m && !strcmp(m, "x\\x1by\\n|{\"a\":\"\\u007f\\u009b\xc3\xa9\\u001b\"}"),
	      "fputs escapes; JSON gets DEL and C1 as \\u escapes: %s", m ? m : "");
	free(m);
}

static void test_csv(void)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	char *m = NULL;
	size_t len = 0;
	FILE *f;
	long n;

	CHECK(sqlite3_open(":memory:", &db) == SQLITE_OK, "an in-memory database");
	CHECK(sqlite3_prepare_v2(db, "SELECT 'a,b' AS \"c,1\", 'say \"hi\"' AS q, 'two' ||"
				 " char(10) || 'lines' AS nl, '' AS e, NULL AS n, 2.5 AS r, 7 AS i,"
				 " X'00ff' AS b, ' pad' AS p, 'x' || char(27) || 'y' AS \"x\ty\"",
				 -1, &st, NULL) == SQLITE_OK, "a row of awkward values");
	f = open_memstream(&m, &len);
	n = sr_csv_write(st, f, 1);
	fclose(f);
	CHECK_EQ(n, 1, "one row");
	CHECK(m && !strcmp(m, "\"c,1\",q,nl,e,n,r,i,b,p,x\\ty\n"
			   "\"a,b\",\"say \"\"hi\"\"\",two\\nlines,\"\",,2.5,7,X'00FF',\" pad\","
			   "x\\x1by\n"), "header and row quoted and escaped");
	free(m);
	m = NULL;
	sqlite3_reset(st);
	f = open_memstream(&m, &len);
	n = sr_csv_write(st, f, 0);
	fclose(f);
	CHECK(n == 1 && m && !strncmp(m, "\"a,b\",", 6), "no header when not asked");
	free(m);
	sqlite3_finalize(st);
	sqlite3_close(db);
}

/* sr_json_string() through a memory stream */
static void same_json(const char *in, const char *want, const char *what)
{
	char *got = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&got, &len);

	if (f) {
		sr_json_string(in, f);
		fclose(f);
	}
	CHECK(got && !strcmp(got, want), "json: %s: got '%s', want '%s'", what,
	      got ? got : "(null)", want);
	free(got);
}

static void test_json_string(void)
{
	same_json("hackbench", "\"hackbench\"", "text is quoted");
	same_json("a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash");
	same_json("\x1b[2J\n", "\"\\u001b[2J\\u000a\"", "C0 controls as \\u00XX");
	same_json("\x7f", "\"\\u007f\"", "DEL");
	same_json("\xc2\x9b" "1m", "\"\\u009b1m\"", "a C1 control");
	same_json("caf\xc3\xa9", "\"caf\xc3\xa9\"", "UTF-8 is kept");
	same_json(NULL, "\"\"", "NULL is the empty string");
}

int main(void)
{
	test_escape();
	test_json_string();
	test_csv();
	return unit_done();
}
