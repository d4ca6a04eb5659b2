// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libgpupath-cufile: the parameter API (cuFile 1.14) and the statistics
 * API (1.15) (private.h says what is where).
 *
 * Parameters are staged before cuFileDriverOpen and taken at the open over
 * the configuration file, as NVIDIA documents; reading one gives the staged
 * value (or the default) while the driver is closed, the one in use while
 * it is open. Those gpupath has a use for are the configuration's
 * (config.c); the others are kept and read back, and named once on stderr
 * when set. Statistics count this process's cuFile calls (levels 1 and 2);
 * level 3 adds, per provider of device memory (gpupath's "GPU"), its PCI
 * address and the device memory allocated from it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "private.h"
#include "libgpupath-admin.h"

#define NSIZE	(CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS + 1)
#define NBOOL	(CUFILE_PARAM_STREAM_MEMOPS_BYPASS + 1)
#define NSTR	(CUFILE_PARAM_LOG_DIR + 1)
#define SLABS_MAX 16
#define FIELD(f) offsetof(struct drv, f)
#define NONE	((size_t)-1)	/* kept here, no use in gpupath */

/* A size_t parameter: its range, default, and drv's field (or NONE). */
static const struct {
	const char *name;
	size_t min, max, def, field;
	bool kb;		/* KiB, in whole 4 KiB */
} sizes[NSIZE] = {
	[CUFILE_PARAM_PROFILE_STATS] = { "profile.cufile_stats", 0, 3, 0, NONE },
	[CUFILE_PARAM_EXECUTION_MAX_IO_QUEUE_DEPTH] = { "execution.max_io_queue_depth", 1, 256,
							128, NONE },
	[CUFILE_PARAM_EXECUTION_MAX_IO_THREADS] = { "execution.max_io_threads", 0, 32, 4, NONE },
	[CUFILE_PARAM_EXECUTION_MIN_IO_THRESHOLD_SIZE_KB] = {
		"execution.min_io_threshold_size_kb", 4, 4294967295ULL, 8192, NONE },
	[CUFILE_PARAM_EXECUTION_MAX_REQUEST_PARALLELISM] = {
		"execution.max_request_parallelism", 0, 8, 4, NONE },
	[CUFILE_PARAM_PROPERTIES_MAX_DIRECT_IO_SIZE_KB] = {
		"properties.max_direct_io_size_kb", 4, CHUNK_MAX >> 10, MAX_DIRECT_KB_DEFAULT,
		FIELD(max_direct_kb), true },
	[CUFILE_PARAM_PROPERTIES_MAX_DEVICE_CACHE_SIZE_KB] = {
		"properties.max_device_cache_size_kb", 4, 1ULL << 40, MAX_CACHE_KB_DEFAULT,
		FIELD(max_cache_kb), true },
	[CUFILE_PARAM_PROPERTIES_PER_BUFFER_CACHE_SIZE_KB] = {
		"properties.per_buffer_cache_size_kb", 4, 16384, CHUNK >> 10, NONE, true },
	[CUFILE_PARAM_PROPERTIES_MAX_DEVICE_PINNED_MEM_SIZE_KB] = {
		"properties.max_device_pinned_mem_size_kb", 4, 1ULL << 40, MAX_PINNED_KB_DEFAULT,
		FIELD(max_pinned_kb), true },
	[CUFILE_PARAM_PROPERTIES_IO_BATCHSIZE] = { "properties.io_batchsize", 1, BATCH_MAX,
						   BATCH_DEFAULT, FIELD(batch_size) },
	[CUFILE_PARAM_POLLTHRESHOLD_SIZE_KB] = { "properties.poll_mode_max_size_kb", 4,
						 1ULL << 40, POLL_KB_DEFAULT, FIELD(poll_kb), true },
	[CUFILE_PARAM_PROPERTIES_BATCH_IO_TIMEOUT_MS] = { "properties.batch_io_timeout_msecs", 1,
							  1000, DEFAULT_TIMEOUT_MS, NONE },
};

static const struct {
	const char *name;
	bool def;
	size_t field;
} bools[NBOOL] = {
	[CUFILE_PARAM_PROPERTIES_USE_POLL_MODE] = { "properties.use_poll_mode", false,
						    FIELD(poll) },
	[CUFILE_PARAM_PROPERTIES_ALLOW_COMPAT_MODE] = { "properties.allow_compat_mode", true,
							FIELD(allow_compat) },
	[CUFILE_PARAM_FORCE_COMPAT_MODE] = { "properties.force_compat_mode", false,
					     FIELD(force_compat) },
	[CUFILE_PARAM_FS_MISC_API_CHECK_AGGRESSIVE] = { "miscellaneous.api_check_aggressive",
							false, NONE },
	[CUFILE_PARAM_EXECUTION_PARALLEL_IO] = { "execution.parallel_io", true, NONE },
	[CUFILE_PARAM_PROFILE_NVTX] = { "profile.nvtx", false, NONE },
	[CUFILE_PARAM_PROPERTIES_ALLOW_SYSTEM_MEMORY] = { "properties.allow_system_memory", true,
							  NONE },
	[CUFILE_PARAM_USE_PCIP2PDMA] = { "properties.use_pci_p2pdma", true, NONE },
	[CUFILE_PARAM_PREFER_IO_URING] = { "prefer io_uring", false, NONE },
	[CUFILE_PARAM_FORCE_ODIRECT_MODE] = { "force O_DIRECT mode", false, NONE },
	[CUFILE_PARAM_SKIP_TOPOLOGY_DETECTION] = { "skip topology detection", false, NONE },
	[CUFILE_PARAM_STREAM_MEMOPS_BYPASS] = { "stream memops bypass", false, NONE },
};

static const char *const str_names[NSTR] = {
	[CUFILE_PARAM_LOGGING_LEVEL] = "logging.level",
	[CUFILE_PARAM_ENV_LOGFILE_PATH] = "CUFILE_LOGFILE_PATH",
	[CUFILE_PARAM_LOG_DIR] = "logging.dir",
};

/* Staged (set before the open) and kept values; drv.lock. */
static struct {
	size_t size[NSIZE];
	bool flag[NBOOL];
	char *str[NSTR];
	uint32_t size_set, bool_set;	/* staged, by parameter */
	uint32_t size_kept, bool_kept;	/* set, of no use in gpupath: kept for good */
	size_t slab_size[SLABS_MAX], slab_count[SLABS_MAX];
	int slabs;
	bool named[NSIZE + NBOOL + NSTR + 1];	/* and the slab arrays */
} par = {
	.slab_size = { 4, 1024, 16384 },
	.slab_count = { 128, 64, 64 },
	.slabs = 3,
};

/* Says once that a parameter set has no use in gpupath. */
static void name_unused(unsigned int i, const char *name)
{
	if (par.named[i])
		return;
	par.named[i] = true;
	fprintf(stderr, "libgpupath-cufile: %s: not used by gpupath; kept\n", name);
}

void params_apply(void)
{
	unsigned int i;

	for (i = 0; i < NSIZE; i++)
		if (par.size_set & (1u << i) && sizes[i].field != NONE)
			*(size_t *)((char *)&drv + sizes[i].field) = par.size[i];
	for (i = 0; i < NBOOL; i++)
		if (par.bool_set & (1u << i) && bools[i].field != NONE)
			*(bool *)((char *)&drv + bools[i].field) = par.flag[i];
	if ((par.size_set & (1u << CUFILE_PARAM_PROFILE_STATS)) && !(drv.api_set & API_SET_STATS))
		drv.stats_level = par.size[CUFILE_PARAM_PROFILE_STATS];
	/* "Staged parameter values are cleared when the driver is opened." */
	par.size_set = par.bool_set = 0;
}

EXPORT CUfileError_t cuFileSetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t value)
{
	CUfileOpError err = CU_FILE_SUCCESS;

	if ((unsigned int)param >= NSIZE || value < sizes[param].min || value > sizes[param].max ||
	    (sizes[param].kb && value % 4))
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	if (drv.opens) {
		err = CU_FILE_DRIVER_ALREADY_OPEN;
	} else {
		par.size[param] = value;
		par.size_set |= 1u << param;
		if (sizes[param].field == NONE && param != CUFILE_PARAM_PROFILE_STATS) {
			par.size_kept |= 1u << param;
			name_unused(param, sizes[param].name);
		}
	}
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}

EXPORT CUfileError_t cuFileGetParameterSizeT(CUFileSizeTConfigParameter_t param, size_t *value)
{
	bool set;

	if ((unsigned int)param >= NSIZE || !value)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	set = (par.size_set | par.size_kept) & (1u << param);
	if (drv.opens && param == CUFILE_PARAM_PROFILE_STATS)
		*value = drv.stats_level;
	else if (drv.opens && sizes[param].field != NONE)
		*value = *(size_t *)((char *)&drv + sizes[param].field);
	else
		*value = set ? par.size[param] : sizes[param].def;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileGetParameterMinMaxValue(CUFileSizeTConfigParameter_t param,
						   size_t *min_value, size_t *max_value)
{
	if ((unsigned int)param >= NSIZE || !min_value || !max_value)
		return status(CU_FILE_INVALID_VALUE);
	*min_value = sizes[param].min;
	*max_value = sizes[param].max;
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileSetParameterBool(CUFileBoolConfigParameter_t param, bool value)
{
	CUfileOpError err = CU_FILE_SUCCESS;

	if ((unsigned int)param >= NBOOL)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	if (drv.opens) {
		err = CU_FILE_DRIVER_ALREADY_OPEN;
	} else {
		par.flag[param] = value;
		par.bool_set |= 1u << param;
		if (bools[param].field == NONE) {
			par.bool_kept |= 1u << param;
			name_unused(NSIZE + param, bools[param].name);
		}
	}
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}

EXPORT CUfileError_t cuFileGetParameterBool(CUFileBoolConfigParameter_t param, bool *value)
{
	bool set;

	if ((unsigned int)param >= NBOOL || !value)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	set = (par.bool_set | par.bool_kept) & (1u << param);
	if (drv.opens && bools[param].field != NONE)
		*value = *(bool *)((char *)&drv + bools[param].field);
	else
		*value = set ? par.flag[param] : bools[param].def;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileSetParameterString(CUFileStringConfigParameter_t param,
					      const char *desc_str)
{
	CUfileOpError err = CU_FILE_SUCCESS;
	char *copy;

	if ((unsigned int)param >= NSTR || param == CUFILE_PARAM_ENV_LOGFILE_PATH || !desc_str ||
	    !*desc_str || strlen(desc_str) > 4096)
		return status(CU_FILE_INVALID_VALUE);
	copy = strdup(desc_str);
	if (!copy)
		return status(CU_FILE_NOMEM_ERROR);
	pthread_mutex_lock(&drv.lock);
	if (drv.opens) {
		err = CU_FILE_DRIVER_ALREADY_OPEN;
		free(copy);
	} else {
		free(par.str[param]);
		par.str[param] = copy;
		name_unused(NSIZE + NBOOL + param, str_names[param]);
	}
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}

EXPORT CUfileError_t cuFileGetParameterString(CUFileStringConfigParameter_t param,
					      char *desc_str, int len)
{
	const char *v;
	CUfileOpError err = CU_FILE_SUCCESS;

	if ((unsigned int)param >= NSTR || !desc_str || len <= 0)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	if (param == CUFILE_PARAM_ENV_LOGFILE_PATH)
		v = getenv("CUFILE_LOGFILE_PATH");
	else
		v = par.str[param] ? par.str[param] :
		    param == CUFILE_PARAM_LOGGING_LEVEL ? "ERROR" : "";
	if (!v || strlen(v) >= (size_t)len)
		err = CU_FILE_INVALID_VALUE;
	else
		strcpy(desc_str, v);
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}

EXPORT CUfileError_t cuFileSetParameterPosixPoolSlabArray(const size_t *size_values,
							  const size_t *count_values, int len)
{
	CUfileOpError err = CU_FILE_SUCCESS;
	int i;

	if (!size_values || !count_values || len <= 0 || len > SLABS_MAX)
		return status(CU_FILE_INVALID_VALUE);
	for (i = 0; i < len; i++)
		if (!size_values[i] || size_values[i] % 4 || !count_values[i])
			return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	if (drv.opens) {
		err = CU_FILE_DRIVER_ALREADY_OPEN;
	} else {
		memcpy(par.slab_size, size_values, len * sizeof(*size_values));
		memcpy(par.slab_count, count_values, len * sizeof(*count_values));
		par.slabs = len;
		/* gpupath's compat I/O needs no pool: its bounce is per I/O. */
		name_unused(NSIZE + NBOOL + NSTR, "properties.posix_pool_slab_*");
	}
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}

EXPORT CUfileError_t cuFileGetParameterPosixPoolSlabArray(size_t *size_values,
							  size_t *count_values, int len)
{
	CUfileOpError err = CU_FILE_SUCCESS;

	if (!size_values || !count_values)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	if (len != par.slabs) {
		err = CU_FILE_INVALID_VALUE;
	} else {
		memcpy(size_values, par.slab_size, len * sizeof(*size_values));
		memcpy(count_values, par.slab_count, len * sizeof(*count_values));
	}
	pthread_mutex_unlock(&drv.lock);
	return status(err);
}

/* ---- statistics ---------------------------------------------------------- */

static struct {
	pthread_mutex_t lock;
	bool running;
	CUfileStatsLevel2_t s;
} st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000ULL + t.tv_nsec;
}

uint64_t stats_clock(void)
{
	return __atomic_load_n(&st.running, __ATOMIC_RELAXED) ? now_ns() : 0;
}

void stats_op(size_t counter, bool ok)
{
	CUfileOpCounter_t *c;

	if (!__atomic_load_n(&st.running, __ATOMIC_RELAXED))
		return;
	pthread_mutex_lock(&st.lock);
	c = (CUfileOpCounter_t *)((char *)&st.s.basic + counter);
	if (ok)
		c->ok++;
	else
		c->err++;
	pthread_mutex_unlock(&st.lock);
}

/* The histogram bin of @n bytes: bin k holds sizes up to 4 << k KiB. */
static unsigned int bin(size_t n)
{
	unsigned int k = 0;

	while (k < 31 && n > (4096ULL << k))
		k++;
	return k;
}

void stats_io(bool wr, bool batch, ssize_t r, size_t size, uint64_t t0)
{
	CUfileStatsLevel1_t *b = &st.s.basic;
	uint64_t us;

	if (!t0 || !__atomic_load_n(&st.running, __ATOMIC_RELAXED))
		return;
	us = (now_ns() - t0) / 1000;
	pthread_mutex_lock(&st.lock);
	if (batch) {
		(r >= 0 ? &b->batch_complete_ops.ok : &b->batch_complete_ops.err)[0]++;
		if (r > 0)
			*(wr ? &b->batch_write_bytes : &b->batch_read_bytes) += r;
		b->batch_completion_lat_sum_us += us;
	} else if (wr) {
		(r >= 0 ? &b->write_ops.ok : &b->write_ops.err)[0]++;
		b->write_bytes += r > 0 ? r : 0;
		b->write_lat_sum_us += us;
	} else {
		(r >= 0 ? &b->read_ops.ok : &b->read_ops.err)[0]++;
		b->read_bytes += r > 0 ? r : 0;
		b->read_lat_sum_us += us;
	}
	if (r >= 0 && drv.stats_level >= 2)
		(wr ? st.s.write_size_kb_hist : st.s.read_size_kb_hist)[bin(size)]++;
	pthread_mutex_unlock(&st.lock);
}

EXPORT CUfileError_t cuFileSetStatsLevel(int level)
{
	if (level < 0 || level > 3)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	drv.stats_level = level;
	drv.api_set |= API_SET_STATS;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileGetStatsLevel(int *level)
{
	if (!level)
		return status(CU_FILE_INVALID_VALUE);
	pthread_mutex_lock(&drv.lock);
	*level = (int)drv.stats_level;
	pthread_mutex_unlock(&drv.lock);
	return status(CU_FILE_SUCCESS);
}

/* The driver open, and (with @level) statistics of at least that level. */
static CUfileOpError stats_usable(int level)
{
	CUfileOpError err = CU_FILE_SUCCESS;

	pthread_mutex_lock(&drv.lock);
	if (!drv.opens)
		err = CU_FILE_DRIVER_NOT_INITIALIZED;
	else if ((int)drv.stats_level < level)
		err = CU_FILE_INVALID_VALUE;
	pthread_mutex_unlock(&drv.lock);
	return err;
}

EXPORT CUfileError_t cuFileStatsStart(void)
{
	CUfileOpError err = stats_usable(1);

	if (err == CU_FILE_SUCCESS)
		__atomic_store_n(&st.running, true, __ATOMIC_RELAXED);
	return status(err);
}

EXPORT CUfileError_t cuFileStatsStop(void)
{
	CUfileOpError err = stats_usable(0);

	if (err == CU_FILE_SUCCESS)
		__atomic_store_n(&st.running, false, __ATOMIC_RELAXED);
	return status(err);
}

EXPORT CUfileError_t cuFileStatsReset(void)
{
	CUfileOpError err = stats_usable(0);

	if (err == CU_FILE_SUCCESS) {
		pthread_mutex_lock(&st.lock);
		memset(&st.s, 0, sizeof(st.s));
		pthread_mutex_unlock(&st.lock);
	}
	return status(err);
}

/* The counters into @s (@size bytes: level 1 or 2), with the averages. */
static CUfileOpError stats_copy(void *s, size_t size, int level)
{
	CUfileStatsLevel1_t *b = s;
	CUfileOpError err;

	if (!s)
		return CU_FILE_INVALID_VALUE;
	err = stats_usable(level);
	if (err != CU_FILE_SUCCESS)
		return err;
	pthread_mutex_lock(&st.lock);
	memcpy(s, &st.s, size);
	pthread_mutex_unlock(&st.lock);
	if (b->read_ops.ok)
		b->read_lat_avg_us = b->read_lat_sum_us / b->read_ops.ok;
	if (b->write_ops.ok)
		b->write_lat_avg_us = b->write_lat_sum_us / b->write_ops.ok;
	if (b->read_lat_sum_us)
		b->read_bw_bytes_per_sec = b->read_bytes * 1000000 / b->read_lat_sum_us;
	if (b->write_lat_sum_us)
		b->write_bw_bytes_per_sec = b->write_bytes * 1000000 / b->write_lat_sum_us;
	if (b->batch_complete_ops.ok)
		b->batch_completion_lat_avg_us = b->batch_completion_lat_sum_us /
						 b->batch_complete_ops.ok;
	return CU_FILE_SUCCESS;
}

EXPORT CUfileError_t cuFileGetStatsL1(CUfileStatsLevel1_t *stats)
{
	return status(stats_copy(stats, sizeof(*stats), 1));
}

EXPORT CUfileError_t cuFileGetStatsL2(CUfileStatsLevel2_t *stats)
{
	return status(stats_copy(stats, sizeof(*stats), 2));
}

/* The module's providers of device memory: malloc'ed, or NULL (none, no module). */
static struct gpupath_provider *providers(size_t *n)
{
	struct gpupath_provider *list = NULL;
	struct gpupath_ctl *ctl;

	*n = 0;
	if (gpupath_ctl_open(&ctl) < 0)
		return NULL;
	if (gpupath_ctl_provider_list(ctl, &list, sizeof(*list), n) < 0) {
		list = NULL;
		*n = 0;
	}
	gpupath_ctl_close(ctl);
	return list;
}

EXPORT CUfileError_t cuFileGetStatsL3(CUfileStatsLevel3_t *stats)
{
	struct gpupath_provider *p;
	CUfileOpError err;
	size_t i, n;

	if (!stats)
		return status(CU_FILE_INVALID_VALUE);
	memset(stats, 0, sizeof(*stats));
	err = stats_copy(&stats->detailed, sizeof(stats->detailed), 3);
	if (err != CU_FILE_SUCCESS)
		return status(err);
	p = providers(&n);
	for (i = 0; i < n && i < 16; i++) {
		/* gpupath keeps no per-GPU split of this process's I/O: its name and memory. */
		memcpy(stats->per_gpu_stats[i].uuid, p[i].pci_dev, CUFILE_GPU_UUID_LEN);
		stats->per_gpu_stats[i].reg_bytes = p[i].allocated;
	}
	stats->num_gpus = i;
	free(p);
	return status(CU_FILE_SUCCESS);
}

EXPORT CUfileError_t cuFileGetBARSizeInKB(int gpuIndex, size_t *barSize)
{
	struct gpupath_provider *p;
	CUfileOpError err;
	size_t n;

	if (!barSize || gpuIndex < 0)
		return status(CU_FILE_INVALID_VALUE);
	err = stats_usable(0);
	if (err != CU_FILE_SUCCESS)
		return status(err);
	p = providers(&n);
	if ((size_t)gpuIndex < n)
		*barSize = p[gpuIndex].size >> 10;
	else if (!drv.dev)
		*barSize = 0;	/* no module: no BAR in use, as NVIDIA's without nvidia-fs */
	else
		err = CU_FILE_INVALID_VALUE;
	free(p);
	return status(err);
}
