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

/*
 * The decompressor, declared here for the same reason; the struct must keep
 * the layout of libtracecmd 1.3's.  Without these the structural check
 * skips compressed contents and the page reader leaves compressed files to
 * libtracecmd's own iteration.
 */
struct tracecmd_compression;
struct tracecmd_msg_handle;
struct tracecmd_compress_chunk {
	unsigned int size;
	unsigned int zsize;
	off_t zoffset;
	off_t offset;
};
struct tracecmd_compression *tracecmd_compress_alloc(const char *name, const char *version, int fd,
						     struct tep_handle *tep,
						     struct tracecmd_msg_handle *msg_handle)
	__attribute__((weak));
void tracecmd_compress_destroy(struct tracecmd_compression *handle) __attribute__((weak));
int tracecmd_uncompress_chunk(struct tracecmd_compression *handle,
			      struct tracecmd_compress_chunk *chunk, char *data) __attribute__((weak));
int tracecmd_uncompress_block(struct tracecmd_compression *handle) __attribute__((weak));
int tracecmd_compress_buffer_read(struct tracecmd_compression *handle, char *dst, int len)
	__attribute__((weak));

#endif
