// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the recorder's BTF reader (src/record-btf.c): member
 * offsets of a struct from a BTF blob built here by hand, damaged blobs,
 * and, where the machine has them, the running kernel's own BTF checked
 * against bpftool's dump of it.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../src/record-local.h"
#include "unit.h"

static unsigned char blob[4096];
static size_t blen;

static void put32(uint32_t v)
{
	memcpy(blob + blen, &v, 4);
	blen += 4;
}

static const char strs[] = "\0int\0unsigned int\0pid_t\0task_struct\0wakee_flips\0bits\0bits8\0pid\0stack\0other"
			   "\0unsigned long\0sched_avg\0load_avg\0sched_entity\0avg\0se\0cfs_rq";

static uint32_t str(const char *s)
{
	size_t i;

	for (i = 1; i < sizeof(strs); i++)
		if (strs[i - 1] == '\0' && !strcmp(strs + i, s))
			return (uint32_t)i;
	return 0;
}

#define INFO(kind, vlen, kflag) ((uint32_t)(kflag) << 31 | (uint32_t)(kind) << 24 | (vlen))

/* header, types, strings: returns the offset where the types start */
static size_t build(void)
{
	size_t types, tlen;

	blen = 0;
	blob[0] = 0x9f; blob[1] = 0xeb; blob[2] = 1; blob[3] = 0;
	blen = 4;
	put32(24);			/* hdr_len */
	put32(0);			/* type_off */
	put32(0);			/* type_len: below */
	put32(0);			/* str_off: below */
	put32(sizeof(strs));		/* str_len */
	types = blen;
	/* [1] int, [2] unsigned int */
	put32(str("int")); put32(INFO(1, 0, 0)); put32(4); put32(0x01000020);
	put32(str("unsigned int")); put32(INFO(1, 0, 0)); put32(4); put32(0x00000020);
	/* [3] typedef pid_t -> int */
	put32(str("pid_t")); put32(INFO(8, 0, 0)); put32(1);
	/* [4] struct other { pid_t pid; } : same member name, another struct */
	put32(str("other")); put32(INFO(4, 1, 0)); put32(4);
	put32(str("pid")); put32(3); put32(0);
	/* [5] struct task_struct, with bitfield encoding (kind_flag) */
	put32(str("task_struct")); put32(INFO(4, 8, 1)); put32(3000);
	put32(str("se")); put32(9); put32(1024);			/* embedded struct */
	put32(str("cfs_rq")); put32(6); put32(2048);		/* a pointer */
	put32(str("stack")); put32(6); put32(64);
	put32(str("wakee_flips")); put32(2); put32(576);
	put32(str("bits")); put32(2); put32(1u << 24 | 1003);	/* 1-bit field at bit 1003 */
	put32(str("bits8")); put32(2); put32(8u << 24 | 1024);	/* 8-bit field, byte-aligned */
	put32(str("pid")); put32(3); put32(10112);
	put32(99999); put32(1); put32(0);			/* name outside the strings */
	/* [6] pointer to void */
	put32(0); put32(INFO(2, 0, 0)); put32(0);
	/* [7] unsigned long; [8] struct sched_avg; [9] struct sched_entity */
	put32(str("unsigned long")); put32(INFO(1, 0, 0)); put32(8); put32(0x00000040);
	put32(str("sched_avg")); put32(INFO(4, 1, 0)); put32(64);
	put32(str("load_avg")); put32(7); put32(256);
	put32(str("sched_entity")); put32(INFO(4, 1, 0)); put32(256);
	put32(str("avg")); put32(8); put32(1536);
	tlen = blen - types;
	memcpy(blob + 12, &(uint32_t){ (uint32_t)tlen }, 4);
	memcpy(blob + 16, &(uint32_t){ (uint32_t)tlen }, 4);
	memcpy(blob + blen, strs, sizeof(strs));
	blen += sizeof(strs);
	return types;
}

static int write_blob(const char *path, size_t len)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f)
		return -1;
	ok = fwrite(blob, 1, len, f) == len;
	return fclose(f) == 0 && ok ? 0 : -1;
}

/* bpftool's offset of STRUCT.MEMBER in the running kernel's BTF, -1 if unknown */
static long bpftool_offset_in(const char *sname, const char *member)
{
	char cmd[512], line[512];
	FILE *p;
	long off = -1;
	int in = 0;

	snprintf(cmd, sizeof(cmd), "bpftool btf dump file /sys/kernel/btf/vmlinux format raw 2>/dev/null");
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char want[128];
		const char *b;

		if (line[0] == '[') {
			if (in)
				break;
			char head[128];

			snprintf(head, sizeof(head), " STRUCT '%s' size=", sname);
			in = strstr(line, head) != NULL;
			continue;
		}
		snprintf(want, sizeof(want), "\t'%s' type_id=", member);
		if (in && !strncmp(line, want, strlen(want)) && (b = strstr(line, "bits_offset=")))
			off = strtol(b + 12, NULL, 10) / 8;
	}
	pclose(p);
	return off;
}

static long bpftool_offset(const char *member)
{
	return bpftool_offset_in("task_struct", member);
}

int main(void)
{
	static const char *const mem[] = { "pid", "wakee_flips", "stack", "bits", "nope", "bits8" };
	static const char *const two[] = { "pid", "wakee_flips" };
	char path[] = "/tmp/test-btf.XXXXXX";
	struct sr_btf_field f[6], g[2];
	int fd = mkstemp(path);
	size_t types;

	if (fd < 0) {
		perror("mkstemp");
		return 1;
	}
	close(fd);
	types = build();
	CHECK(write_blob(path, blen) == 0, "blob written");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 6), 0, "task_struct found");
	CHECK_EQ(f[0].offset, 1264, "pid at byte 1264 (bit 10112)");
	CHECK_EQ(f[0].size, 4, "pid: pid_t is a 4-byte int through its typedef");
	CHECK_EQ(f[1].offset, 72, "wakee_flips at byte 72");
	CHECK_EQ(f[1].size, 4, "wakee_flips: unsigned int");
	CHECK(f[2].size == 8 && f[2].ptr && f[2].offset == 8, "stack: a pointer, 8 bytes at 8");
	CHECK_EQ(f[3].size, 0, "a bitfield not on a byte boundary is not taken");
	CHECK_EQ(f[4].size, 0, "a member the struct lacks");
	CHECK_EQ(f[5].size, 0, "a bitfield on a byte boundary is not taken either");
	{
		static const char *const nested[] = { "se.avg.load_avg", "se.avg.nope", "cfs_rq.x",
						       "pid.x", "cfs_rq" };
		struct sr_btf_field h[5];

		CHECK_EQ(sr_btf_member(path, "task_struct", nested, h, 5), 0, "nested paths");
		CHECK(h[4].size == 8 && h[4].ptr && h[4].offset == 256, "a pointer member: 8 bytes at 256");
		CHECK(!h[0].ptr, "an integer is not a pointer");
		CHECK_EQ(h[0].offset, 128 + 192 + 32, "se.avg.load_avg: the offsets add up");
		CHECK_EQ(h[0].size, 8, "se.avg.load_avg: an unsigned long");
		CHECK_EQ(h[1].size, 0, "a path whose last member is missing");
		CHECK_EQ(h[2].size, 0, "a path through a pointer is not followed");
		CHECK_EQ(h[3].size, 0, "a path through an integer");
	}
	CHECK_EQ(sr_btf_member(path, "mm_struct", mem, f, 5), -1, "a struct the blob lacks");
	CHECK_EQ(f[0].size, 0, "and no field then");

	/* damaged blobs: an error, never a read outside them */
	CHECK(write_blob(path, types + 30) == 0, "truncated blob written");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), -1, "truncated: error");
	CHECK(write_blob(path, 10) == 0, "a header cut short");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), -1, "short header: error");
	build();
	blob[0] = 0xeb;
	blob[1] = 0x9f;
	CHECK(write_blob(path, blen) == 0, "other byte order written");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), -1, "the other byte order: error");
	build();
	memcpy(blob + 12, &(uint32_t){ 1u << 30 }, 4);
	CHECK(write_blob(path, blen) == 0, "type_len beyond the file written");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), -1, "type_len beyond the file: error");
	build();
	blob[types + 7] = 0x7f;		/* kind 31 for [1] */
	CHECK(write_blob(path, blen) == 0, "unknown kind written");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), -1, "an unknown kind: error");
	build();
	memcpy(blob + types + 12, &(uint32_t){ 0x01000010 }, 4);	/* int: 16 bits in 4 bytes */
	CHECK(write_blob(path, blen) == 0, "a partial int written");
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), 0, "a partial int: the struct is found");
	CHECK_EQ(f[0].size, 0, "pid's int does not fill its 4 bytes: not taken");
	CHECK_EQ(f[1].size, 4, "wakee_flips still is");
	unlink(path);
	CHECK_EQ(sr_btf_member(path, "task_struct", mem, f, 5), -1, "a missing file: error");
	/* an endless file: an error at the size cap, not all the memory */
	CHECK_EQ(sr_btf_member("/dev/zero", "task_struct", mem, f, 5), -1, "/dev/zero: error");

	/* the running kernel's BTF, against bpftool */
	if (access("/sys/kernel/btf/vmlinux", R_OK) == 0 && bpftool_offset("pid") >= 0) {
		CHECK_EQ(sr_btf_member("/sys/kernel/btf/vmlinux", "task_struct", two, g, 2), 0,
			 "the running kernel's task_struct");
		CHECK_EQ(g[0].offset, bpftool_offset("pid"), "its pid offset is bpftool's");
		CHECK_EQ(g[1].offset, bpftool_offset("wakee_flips"), "its wakee_flips offset is bpftool's");
		CHECK(g[0].size == 4 && g[1].size == 4, "both 4-byte integers");
		{
			static const char *const la[] = { "se.avg.load_avg" };
			struct sr_btf_field l;
			long want = bpftool_offset("se") + bpftool_offset_in("sched_entity", "avg") +
				    bpftool_offset_in("sched_avg", "load_avg");

			CHECK_EQ(sr_btf_member("/sys/kernel/btf/vmlinux", "task_struct", la, &l, 1), 0,
				 "se.avg.load_avg in the running kernel");
			CHECK_EQ(l.offset, want, "its offset is bpftool's se + avg + load_avg");
			CHECK_EQ(l.size, 8, "an unsigned long");
		}
	} else {
		printf("ok %d - # SKIP no /sys/kernel/btf/vmlinux or no bpftool\n", ++unit_n);
	}
	return unit_done();
}
