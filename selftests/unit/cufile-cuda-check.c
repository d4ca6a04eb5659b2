// SPDX-License-Identifier: GPL-2.0
/*
 * cufile-cuda-check: the cuFile API into CUDA device memory (cuMemAlloc,
 * from NVIDIA's driver or the project's double, selftests/cuda). A regular file
 * holding pattern 1 (gp-pattern) is read with cuFileRead() into CUDA device
 * memory, registered and not; the bytes are copied back and compared. A
 * file goes the compat way (host buffer, then a copy through
 * libgpupath-cuda), so the gpupath module is not needed.
 *
 *   cufile-cuda-check FILE
 *
 * Exits 4 (skip) without a CUDA driver or device.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <string.h>

#include "cufile.h"
#include "pattern.h"
#include "cu.h"

#define LEN (4u << 20)

static int check(const void *dptr, unsigned char *host, size_t off)
{
	unsigned int i;

	if (cu.dtoh(host, (uintptr_t)dptr, LEN))
		return -1;
	for (i = 0; i < LEN; i++)
		if (host[i] != pattern_byte(1, off + i))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	CUfileDescr_t d = { .type = CU_FILE_HANDLE_TYPE_OPAQUE_FD };
	struct gpupath_cufile_io io;
	unsigned char *host;
	CUfileHandle_t fh;
	ssize_t r;
	void *dptr;
	int n = 0;

	if (argc != 2) {
		fprintf(stderr, "usage: cufile-cuda-check FILE\n");
		return 2;
	}
	cu_open();
	d.handle.fd = open(argv[1], O_RDONLY);
	host = malloc(LEN);
	dptr = cu_alloc(LEN);
	if (d.handle.fd < 0 || !host || cuFileDriverOpen().err ||
	    cuFileHandleRegister(&fh, &d).err) {
		printf("FAIL: setup\n");
		return 1;
	}
	memset(host, 0, LEN);
	cu.htod((uintptr_t)dptr, host, LEN);
	r = cuFileRead(fh, dptr, LEN, 0, 0);
	gpupath_cufile_last(&io);
	if (r != (ssize_t)LEN || check(dptr, host, 0)) {
		printf("FAIL: unregistered CUDA memory: %zd (%s, %s)\n", r, io.mode_name,
		       io.reason_name);
		return 1;
	}
	memset(host, 0, LEN);
	cu.htod((uintptr_t)dptr, host, LEN);
	if (cuFileBufRegister(dptr, LEN, 0).err ||
	    cuFileRead(fh, dptr, LEN - 4096, 4096, 4096) != (ssize_t)(LEN - 4096) ||
	    cu.dtoh(host, (uintptr_t)dptr + 4096, LEN - 4096)) {
		printf("FAIL: registered CUDA memory\n");
		return 1;
	}
	for (n = 0; n < (int)(LEN - 4096); n++) {
		if (host[n] != pattern_byte(1, 4096 + n)) {
			printf("FAIL: byte %d of the registered read\n", n);
			return 1;
		}
	}
	/* An unaligned device address and file offset. */
	if (cuFileRead(fh, (char *)dptr + 3, 100000, 5, 0) != 100000 ||
	    cu.dtoh(host, (uintptr_t)dptr + 3, 100000)) {
		printf("FAIL: unaligned read into CUDA memory\n");
		return 1;
	}
	for (n = 0; n < 100000; n++) {
		if (host[n] != pattern_byte(1, 5 + n)) {
			printf("FAIL: byte %d of the unaligned read\n", n);
			return 1;
		}
	}
	cuFileBufDeregister(dptr);
	cuFileHandleDeregister(fh);
	cuFileDriverClose();
	printf("ok: 4 MiB into CUDA memory through cuFileRead, %s (%s)\n", io.mode_name,
	       io.reason_name);
	return 0;
}
