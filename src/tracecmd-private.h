/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libtracecmd 1.3 exports these functions from its shared object, but
 * declares them only in trace-cmd-private.h, which Debian's libtracecmd-dev
 * does not ship.  They give facts about the file that the public API does
 * not (CPU count, file version, compression, uname, clock).  Each use is
 * optional: the reader works with the public API alone if one is missing
 * (weak references), so a libtracecmd that drops them still links.
 */
#ifndef SCHEDREPLAY_TRACECMD_PRIVATE_H
#define SCHEDREPLAY_TRACECMD_PRIVATE_H

#include <trace-cmd/trace-cmd.h>

int tracecmd_cpus(struct tracecmd_input *handle) __attribute__((weak));
unsigned long tracecmd_get_in_file_version(struct tracecmd_input *handle) __attribute__((weak));
int tracecmd_get_file_compress_proto(struct tracecmd_input *handle, const char **name,
				     const char **version) __attribute__((weak));
const char *tracecmd_get_uname(struct tracecmd_input *handle) __attribute__((weak));
const char *tracecmd_get_cpustats(struct tracecmd_input *handle) __attribute__((weak));
const char *tracecmd_get_trace_clock(struct tracecmd_input *handle) __attribute__((weak));

#endif
