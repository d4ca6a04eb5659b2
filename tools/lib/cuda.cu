// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cuda: I/O into and out of CUDA device memory. Built with nvcc
 * where CUDA is installed, as a library of its own so that libgpupath never
 * depends on CUDA.
 */
#include <errno.h>
#include <cuda_runtime_api.h>

#include "internal.h"

struct cuda_copy {
	char *dptr;
};

static int copy_cuda(void *bounce, uint64_t off, uint64_t n, bool to_bounce, void *arg)
{
	struct cuda_copy *c = (struct cuda_copy *)arg;
	cudaError_t e;

	if (to_bounce)
		e = cudaMemcpy(bounce, c->dptr + off, n, cudaMemcpyDeviceToHost);
	else
		e = cudaMemcpy(c->dptr + off, bounce, n, cudaMemcpyHostToDevice);
	return e == cudaSuccess ? 0 : -EIO;
}

static int is_device_memory(const void *p)
{
	struct cudaPointerAttributes a;

	if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
		cudaGetLastError();
		return 0;
	}
	return a.type == cudaMemoryTypeDevice;
}

/*
 * Directly, through the NVIDIA peer-memory API: the range is pinned for the
 * I/O (whole 64 KiB GPU pages) and let go after. -EXDEV, with the reason,
 * when that cannot be.
 */
static int direct(struct gpupath_dev *dev, uint32_t op, void *dptr, int fd, uint64_t dev_off,
		  uint64_t len, struct gpupath_result *res)
{
	const uint64_t gpu_page = 1ULL << 16;
	uint64_t start = (uintptr_t)dptr & ~(gpu_page - 1);
	uint64_t end = ((uintptr_t)dptr + len + gpu_page - 1) & ~(gpu_page - 1);
	struct gpupath_buf *buf;
	int r;

	r = gpupath_buf_cuda(dev, (void *)(uintptr_t)start, end - start, &buf);
	if (r < 0) {
		res->reason = r == -ENXIO ? GPUPATH_REASON_NO_GPU_REGION :
					    GPUPATH_REASON_NO_PEER_MEMORY;
		return -EXDEV;
	}
	r = (op == GPUPATH_IO_READ ? gpupath_read : gpupath_write)(buf,
		(uintptr_t)dptr - start, fd, dev_off, len, GPUPATH_POLICY_DIRECT, res);
	gpupath_buf_free(buf);
	return r;
}

static int cuda_io(struct gpupath_dev *dev, uint32_t op, void *dptr, int fd, uint64_t dev_off,
		   uint64_t len, enum gpupath_io_policy policy, struct gpupath_result *res)
{
	struct gpupath_result local;
	struct cuda_copy c = { (char *)dptr };
	int r;

	if (!res)
		res = &local;
	res->mode = GPUPATH_MODE_NONE;
	res->reason = GPUPATH_REASON_NONE;
	if (policy > GPUPATH_POLICY_COMPAT || !is_device_memory(dptr))
		return -EINVAL;
	if (policy != GPUPATH_POLICY_COMPAT) {
		r = direct(dev, op, dptr, fd, dev_off, len, res);
		if (r != -EXDEV || policy == GPUPATH_POLICY_DIRECT)
			return r;
	}
	r = gpupath_bounce(dev, op, fd, dev_off, len, copy_cuda, &c, &res->len);
	if (r == 0)
		res->mode = GPUPATH_MODE_BOUNCE;
	return r;
}

extern "C" int gpupath_cuda_read(struct gpupath_dev *dev, void *dptr, int fd, uint64_t dev_off,
				 uint64_t len, enum gpupath_io_policy policy,
				 struct gpupath_result *res)
{
	return cuda_io(dev, GPUPATH_IO_READ, dptr, fd, dev_off, len, policy, res);
}

extern "C" int gpupath_cuda_write(struct gpupath_dev *dev, const void *dptr, int fd,
				  uint64_t dev_off, uint64_t len, enum gpupath_io_policy policy,
				  struct gpupath_result *res)
{
	return cuda_io(dev, GPUPATH_IO_WRITE, (void *)dptr, fd, dev_off, len, policy, res);
}

extern "C" int gpupath_cuda_is_device(const void *p)
{
	return is_device_memory(p);
}

extern "C" int gpupath_cuda_copy(void *dst, const void *src, uint64_t n, int to_device)
{
	cudaError_t e = cudaMemcpy(dst, src, n, to_device ? cudaMemcpyHostToDevice :
							   cudaMemcpyDeviceToHost);

	return e == cudaSuccess ? 0 : -EIO;
}
