/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Text from a trace on its way to a terminal or a line-based format.  A
 * task's comm (and the host, kernel and file names a trace carries) is
 * whatever bytes the traced program put there: an escape sequence clears the
 * screen or sets the window title, a line end splits a TSV or CSV row.  Every
 * front end that prints such a string passes it through here, so that all
 * outputs escape the same bytes the same way:
 *
 *   \n \r \t   line feed, carriage return, tab
 *   \\         a backslash (so that the text can be turned back)
 *   \xHH       any other C0 control (0x00-0x1f), DEL (0x7f), the bytes of a
 *              C1 control (U+0080-U+009F, "\xc2\x9b" for U+009B) and every
 *              byte that is not part of valid UTF-8
 *
 * Everything else (printable ASCII and valid UTF-8) is kept as it is.  The
 * CSV writer (RFC 4180: a field with a comma, a double quote, a line end, a
 * leading or trailing blank, or an empty text is quoted, quotes doubled)
 * escapes its text fields first, so a CSV row is always one line.
 */
#ifndef SCHEDREPLAY_ESCAPE_H
#define SCHEDREPLAY_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

#include <sqlite3.h>

/* Return: whether @s (NULL: no) holds a byte the escaping changes */
int sr_escape_needed(const char *s);

/**
 * sr_escape_dup - @s escaped (NULL is taken as "")
 * Return: a new string (caller frees with free()), or NULL without memory.
 */
char *sr_escape_dup(const char *s);

/*
 * sr_escape_buf - @s escaped into @buf of @len bytes, cut before an escape
 * that does not fit.  Return: @buf.
 */
char *sr_escape_buf(char *buf, size_t len, const char *s);

/* write @s (NULL: nothing) escaped to @f */
void sr_escape_fputs(const char *s, FILE *f);

/*
 * sr_json_fputs - write a JSON text made by SQLite to @f, with DEL and the
 * C1 controls (which SQLite leaves raw inside strings) as \u007f, \u0080..
 * \u009f: the same JSON value, safe on a terminal.
 */
void sr_json_fputs(const char *json, FILE *f);

/*
 * sr_json_string - write @s (NULL is taken as "") to @f as a JSON string:
 * quoted, with '"' and '\\' escaped, C0 controls and DEL as \u00XX and the
 * C1 controls (UTF-8 U+0080..U+009F) as \u0080..\u009f, the rest as it is.
 * The one JSON string writer of the tree (SQLite's json_object() makes the
 * rest; sr_json_fputs() makes its controls safe).
 */
void sr_json_string(const char *s, FILE *f);

/*
 * sr_csv_write - every row of @st as CSV, a header line of the column names
 * first when @header; NULL is an empty field, an empty text "", a blob
 * X'HEX', lines end in LF.  Return: the rows written, or -1 when a step
 * fails (the statement's error is in its database handle) or @out fails.
 */
long sr_csv_write(sqlite3_stmt *st, FILE *out, int header);

#endif
