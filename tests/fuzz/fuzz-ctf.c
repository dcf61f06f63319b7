// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: a CTF trace directory made from one input.  The first
 * two bytes (big-endian) give the length of the metadata; the metadata
 * follows, and the rest is one data stream file.  Seeds are built by
 * tests/fuzz/run.sh from the committed CTF fixtures.
 */
#include "fuzz-common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char dir[200], path[256];
	size_t mlen;

	if (size < 2)
		return 0;
	mlen = ((size_t)data[0] << 8) | data[1];
	data += 2;
	size -= 2;
	if (mlen > size)
		mlen = size;
	snprintf(dir, sizeof(dir), "%s/ctf", fuzz_scratch_dir());
	mkdir(dir, 0700);
	snprintf(path, sizeof(path), "%s/metadata", dir);
	if (fuzz_write(path, data, mlen))
		return 0;
	snprintf(path, sizeof(path), "%s/stream_0", dir);
	if (fuzz_write(path, data + mlen, size - mlen))
		return 0;
	fuzz_read(dir, "ctf");
	return 0;
}
