/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Error codes shared by every layer below the command line.  Library code
 * returns one of these (negated) plus an optional caller-freed cause string;
 * only the front ends print.  One X-macro keeps codes and texts together.
 */
#ifndef SCHEDREPLAY_ERROR_H
#define SCHEDREPLAY_ERROR_H

#define SR_ERRORS							\
	_SR(OK,		"success")					\
	_SR(NOMEM,	"out of memory")				\
	_SR(IO,		"input/output error")				\
	_SR(FORMAT,	"unknown trace format")				\
	_SR(CORRUPT,	"corrupted trace")				\
	_SR(TRUNCATED,	"truncated trace")				\
	_SR(ORDER,	"events out of time order")			\
	_SR(MISSING,	"required event or field missing")		\
	_SR(USAGE,	"invalid argument")				\
	_SR(UNSUPPORTED, "unsupported feature")				\
	_SR(INTR,	"interrupted")

#define _SR(code, text) SR_E_##code,
enum sr_error { SR_ERRORS SR_E__COUNT };
#undef _SR

/**
 * sr_strerror - text for an error code
 * @err: an sr_error, positive or negated
 *
 * Return: a static string, never NULL.
 */
const char *sr_strerror(int err);

/**
 * sr_cause_set - store a formatted cause for the caller
 * @cause: where to store it (may be NULL: then nothing is stored)
 * @fmt: printf format
 *
 * Return: always -1, so that callers can write "return sr_cause_set(...)"
 * after choosing their own code; the string is freed by the caller.
 */
int sr_cause_set(char **cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
