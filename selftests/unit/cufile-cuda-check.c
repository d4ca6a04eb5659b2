// SPDX-License-Identifier: GPL-2.0
/*
 * cufile-cuda-check: the cuFile API into cudaMalloc memory. A regular file
 * holding pattern 1 (gp-pattern) is read with cuFileRead() into CUDA device
 * memory, registered and not; the bytes are copied back and compared. A
 * file goes the compat way (host buffer, then cudaMemcpy through
 * libgpupath-cuda), so the gpupath module is not needed.
 *
 *   cufile-cuda-check FILE
 *
 * Exits 4 (skip) without a CUDA device.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "cufile.h"
#include "pattern.h"

#define LEN (4u << 20)

static int check(const void *dptr, unsigned char *host, size_t off)
{
	unsigned int i;

	if (cudaMemcpy(host, dptr, LEN, cudaMemcpyDeviceToHost) != cudaSuccess)
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
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("SKIP: no CUDA device\n");
		return 4;
	}
	d.handle.fd = open(argv[1], O_RDONLY);
	host = malloc(LEN);
	if (d.handle.fd < 0 || !host || cudaMalloc(&dptr, LEN) != cudaSuccess ||
	    cuFileDriverOpen().err || cuFileHandleRegister(&fh, &d).err) {
		printf("FAIL: setup\n");
		return 1;
	}
	cudaMemset(dptr, 0, LEN);
	r = cuFileRead(fh, dptr, LEN, 0, 0);
	gpupath_cufile_last(&io);
	if (r != (ssize_t)LEN || check(dptr, host, 0)) {
		printf("FAIL: unregistered CUDA memory: %zd (%s, %s)\n", r, io.mode_name,
		       io.reason_name);
		return 1;
	}
	cudaMemset(dptr, 0, LEN);
	if (cuFileBufRegister(dptr, LEN, 0).err ||
	    cuFileRead(fh, dptr, LEN - 4096, 4096, 4096) != (ssize_t)(LEN - 4096) ||
	    cudaMemcpy(host, (char *)dptr + 4096, LEN - 4096, cudaMemcpyDeviceToHost)) {
		printf("FAIL: registered CUDA memory\n");
		return 1;
	}
	for (n = 0; n < (int)(LEN - 4096); n++) {
		if (host[n] != pattern_byte(1, 4096 + n)) {
			printf("FAIL: byte %d of the registered read\n", n);
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
