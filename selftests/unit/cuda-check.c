// SPDX-License-Identifier: GPL-2.0
/*
 * cuda-check: libgpupath-cuda reads a block device into cudaMalloc memory
 * (compat: pinned host memory + cudaMemcpy) and the bytes are compared.
 *
 *   cuda-check BLOCKDEV
 *
 * BLOCKDEV holds pattern 1 (gp-pattern) in its first 8 MiB. Needs a CUDA
 * device and the gpupath module; exits 4 (skip) when either is missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime_api.h>

#include "libgpupath.h"
#include "pattern.h"

#define LEN (8u << 20)

int main(int argc, char **argv)
{
	struct gpupath_result res;
	struct gpupath_dev *dev;
	unsigned char *host;
	void *dptr;
	int n = 0, fd, r;
	unsigned int i;

	if (argc != 2) {
		fprintf(stderr, "usage: cuda-check BLOCKDEV\n");
		return 2;
	}
	if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
		printf("SKIP: no CUDA device\n");
		return 4;
	}
	r = gpupath_dev_open(&dev);
	if (r < 0) {
		printf("SKIP: /dev/gpupath: %s (module not loaded)\n", strerror(-r));
		return 4;
	}
	fd = open(argv[1], O_RDONLY);
	host = malloc(LEN);
	if (fd < 0 || !host || cudaMalloc(&dptr, LEN) != cudaSuccess) {
		printf("FAIL: setup\n");
		return 1;
	}
	/* Direct works where the NVIDIA peer-memory API and a P2P route are. */
	r = gpupath_cuda_read(dev, dptr, fd, 0, LEN, GPUPATH_POLICY_DIRECT, &res);
	if (r && r != -EXDEV) {
		printf("FAIL: direct into CUDA memory: %s\n", strerror(-r));
		return 1;
	}
	printf("direct: %s\n", r ? gpupath_reason_text(res.reason) : "served");
	cudaMemset(dptr, 0, LEN);
	r = gpupath_cuda_read(dev, dptr, fd, 0, LEN, GPUPATH_POLICY_AUTO, &res);
	if (r) {
		printf("FAIL: auto read into CUDA memory: %s\n", strerror(-r));
		return 1;
	}
	cudaMemcpy(host, dptr, LEN, cudaMemcpyDeviceToHost);
	for (i = 0; i < LEN; i++) {
		if (host[i] != pattern_byte(1, i)) {
			printf("FAIL: byte %u in CUDA memory is 0x%02x\n", i, host[i]);
			return 1;
		}
	}
	r = gpupath_cuda_read(dev, host, fd, 0, LEN, GPUPATH_POLICY_AUTO, &res);
	if (r != -EINVAL) {
		printf("FAIL: host memory taken for CUDA memory\n");
		return 1;
	}
	printf("ok: 8 MiB into CUDA memory, mode %s, reason %s\n", gpupath_mode_name(res.mode),
	       gpupath_reason_name(res.reason));
	cudaFree(dptr);
	gpupath_dev_close(dev);
	return 0;
}
