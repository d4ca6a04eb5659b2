/* SPDX-License-Identifier: ((GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause) */
/* Do not edit directly, auto-generated from: */
/*	Documentation/netlink/specs/gpupath.yaml */
/* YNL-GEN uapi header */

#ifndef _UAPI_LINUX_GPUPATH_NL_H
#define _UAPI_LINUX_GPUPATH_NL_H

#define GPUPATH_GENL_NAME	"gpupath"
#define GPUPATH_GENL_VERSION	1

#define GPUPATH_NAME_LEN		32
#define GPUPATH_WWID_LEN		256
#define GPUPATH_NQN_LEN			224
#define GPUPATH_ADDR_LEN		48
#define GPUPATH_HOST_ID_LEN		37
#define GPUPATH_SECRET_PATH_LEN		256
#define GPUPATH_PORTAL_RAILS_MAX	16
#define GPUPATH_PORTAL_CONNS_MAX	64
#define GPUPATH_TRSVCID_DEFAULT		4420
#define GPUPATH_RECONNECT_DELAY_DEFAULT	2
#define GPUPATH_WEIGHT_MAX		1000
#define GPUPATH_QOS_APPLIED_MAX		64

/**
 * enum gpupath_p2pdma_status - Why P2PDMA is or is not usable.
 * @GPUPATH_P2PDMA_OK: Usable.
 * @GPUPATH_P2PDMA_NOT_BUILT: The kernel the module was built for has no
 *   CONFIG_PCI_P2PDMA (Debian's stock kernels, for one). Every I/O into device
 *   memory falls back to a bounce through host memory.
 */
enum gpupath_p2pdma_status {
	GPUPATH_P2PDMA_OK,
	GPUPATH_P2PDMA_NOT_BUILT,

	/* private: */
	__GPUPATH_P2PDMA_MAX,
	GPUPATH_P2PDMA_MAX = (__GPUPATH_P2PDMA_MAX - 1)
};

/**
 * enum gpupath_feature - What the loaded module can do.
 * @GPUPATH_FEATURE_P2PDMA_BUILT: The module was built against a kernel with
 *   PCI peer-to-peer DMA (CONFIG_PCI_P2PDMA).
 * @GPUPATH_FEATURE_P2PDMA_USABLE: P2PDMA can be used now: built in, and the
 *   module's provider layer is ready. When clear, GPUPATH_A_INFO_P2PDMA_STATUS
 *   says why.
 * @GPUPATH_FEATURE_NVIDIA_P2P: The NVIDIA peer-memory API
 *   (nvidia_p2p_get_pages) is exported by a loaded NVIDIA driver.
 * @GPUPATH_FEATURE_FILE_IO: GPUPATH_IOC_IO and GPUPATH_IOC_SUBMIT take regular
 *   files on ext4 and XFS as well as block devices.
 * @GPUPATH_FEATURE_USER_DIRECT_IO: The kernel pins P2PDMA pages for user-space
 *   direct I/O (Linux 6.2 on): the mmap() of a device buffer takes any
 *   program's O_DIRECT, io_uring or libaio I/O, and gpupath volumes take
 *   P2PDMA pages from anyone. When clear, O_DIRECT on such a mapping fails
 *   with EFAULT.
 * @GPUPATH_FEATURE_PATH_REMOVAL: The kernel tells gpupath when a path's disk
 *   is deleted (Linux 6.8 on): the path is gone within a second, without I/O.
 *   When clear, a deleted path fails at its next I/O and is gone a second
 *   later.
 * @GPUPATH_FEATURE_PATH_ANA: Paths take their ANA state (PATH-SET ANA-STATE,
 *   ANA-TT, ANA-GROUP) and every policy follows it.
 * @GPUPATH_FEATURE_PORTAL_AUTH: Portals take a host NQN and ID of their own
 *   and the files of DH-HMAC-CHAP secrets.
 */
enum gpupath_feature {
	GPUPATH_FEATURE_P2PDMA_BUILT = 1,
	GPUPATH_FEATURE_P2PDMA_USABLE = 2,
	GPUPATH_FEATURE_NVIDIA_P2P = 4,
	GPUPATH_FEATURE_FILE_IO = 8,
	GPUPATH_FEATURE_USER_DIRECT_IO = 16,
	GPUPATH_FEATURE_PATH_REMOVAL = 32,
	GPUPATH_FEATURE_PATH_ANA = 64,
	GPUPATH_FEATURE_PORTAL_AUTH = 128,

	/* private: */
	GPUPATH_FEATURE_MASK = 255,
};

/**
 * enum gpupath_provider_type - Where device memory comes from.
 * @GPUPATH_PROVIDER_P2PDMA: A PCI BAR registered as P2PDMA memory, by the
 *   device's own driver (an NVMe CMB) or by gpupath's PCI stub driver bound
 *   through driver_override.
 * @GPUPATH_PROVIDER_NVIDIA: CUDA memory pinned with nvidia_p2p_get_pages().
 *   Its BAR maps every process's GPU memory: GPUPATH_IOC_ALLOC refuses it, its
 *   memory is reached only through GPUPATH_IOC_REG_CUDA.
 */
enum gpupath_provider_type {
	GPUPATH_PROVIDER_UNSPEC,
	GPUPATH_PROVIDER_P2PDMA,
	GPUPATH_PROVIDER_NVIDIA,

	/* private: */
	__GPUPATH_PROVIDER_MAX,
	GPUPATH_PROVIDER_MAX = (__GPUPATH_PROVIDER_MAX - 1)
};

/**
 * enum gpupath_policy - How a volume picks the path of each I/O. Whatever the
 *   policy, device memory only goes to paths that can DMA it.
 * @GPUPATH_POLICY_ROUND_ROBIN: Usable paths in turn.
 * @GPUPATH_POLICY_QUEUE_DEPTH: The path with the fewest I/Os in flight.
 * @GPUPATH_POLICY_SERVICE_TIME: The least expected wait: I/Os in flight plus
 *   one, times the path's service time (an EWMA of its latency).
 * @GPUPATH_POLICY_WEIGHTED: In proportion to the paths' weights.
 * @GPUPATH_POLICY_GPU_AFFINITY: For device memory, the path whose DMA device
 *   is closest on PCIe to the memory's provider (as pci_p2pdma_distance()
 *   counts); host memory and ties go by the volume's fallback policy.
 */
enum gpupath_policy {
	GPUPATH_POLICY_ROUND_ROBIN,
	GPUPATH_POLICY_QUEUE_DEPTH,
	GPUPATH_POLICY_SERVICE_TIME,
	GPUPATH_POLICY_WEIGHTED,
	GPUPATH_POLICY_GPU_AFFINITY,

	/* private: */
	__GPUPATH_POLICY_MAX,
	GPUPATH_POLICY_MAX = (__GPUPATH_POLICY_MAX - 1)
};

/**
 * enum gpupath_volume_mode - Who does multipath.
 * @GPUPATH_VOLUME_MANAGED: Gpupath: the paths are per-controller namespace
 *   devices (nvme_core.multipath=N).
 * @GPUPATH_VOLUME_NATIVE: The kernel's nvme multipath: the path is an nvme
 *   head device.
 * @GPUPATH_VOLUME_EMPTY: No path yet.
 */
enum gpupath_volume_mode {
	GPUPATH_VOLUME_MANAGED,
	GPUPATH_VOLUME_NATIVE,
	GPUPATH_VOLUME_EMPTY,
};

/**
 * enum gpupath_path_state - What the administrator wants of a path.
 * @GPUPATH_PATH_UP: Used.
 * @GPUPATH_PATH_DOWN: Not used.
 * @GPUPATH_PATH_DRAINING: Not used for new I/O, on the way out.
 */
enum gpupath_path_state {
	GPUPATH_PATH_UP,
	GPUPATH_PATH_DOWN,
	GPUPATH_PATH_DRAINING,
};

/**
 * enum gpupath_path_health - What I/O says of a path.
 * @GPUPATH_HEALTH_LIVE: Working.
 * @GPUPATH_HEALTH_FAILED: An I/O failed with a path error; out of selection
 *   until its controller is live again (checked every second).
 * @GPUPATH_HEALTH_GONE: Its disk was deleted (controller removed); it only
 *   waits to be removed.
 */
enum gpupath_path_health {
	GPUPATH_HEALTH_LIVE,
	GPUPATH_HEALTH_FAILED,
	GPUPATH_HEALTH_GONE,
};

/**
 * enum gpupath_path_link - The host network link a path's connection uses.
 * @GPUPATH_LINK_UNKNOWN: Not known (PCIe paths, or nobody said).
 * @GPUPATH_LINK_UP: The link is up.
 * @GPUPATH_LINK_DOWN: The link is down: the path takes no new I/O, as with
 *   state DOWN, until the link is up again; I/O already on it completes or
 *   fails over. gpupathd sets it from rtnetlink the moment a rail's interface
 *   loses its carrier, before any I/O or keep-alive fails.
 */
enum gpupath_path_link {
	GPUPATH_LINK_UNKNOWN,
	GPUPATH_LINK_UP,
	GPUPATH_LINK_DOWN,

	/* private: */
	__GPUPATH_LINK_MAX,
	GPUPATH_LINK_MAX = (__GPUPATH_LINK_MAX - 1)
};

/**
 * enum gpupath_ana_state - Asymmetric namespace access: what the controller of
 *   a path says of the namespace (its ANA group's state), as gpupathd reads it
 *   from the controller's ANA log page. Every policy sends I/O to optimized
 *   paths (and those whose state is not known) first, to non-optimized paths
 *   only when no optimized path is usable, and never to inaccessible or
 *   persistent-loss paths. A path in change takes no I/O; with no other path,
 *   I/O waits for up to the path's ANA-TT (the controller's ANA transition
 *   time) or the volume's queue timeout, whichever is longer, instead of
 *   failing.
 * @GPUPATH_ANA_UNKNOWN: Not reported (a PCIe path, a controller without ANA,
 *   or nobody said); as optimized.
 */
enum gpupath_ana_state {
	GPUPATH_ANA_UNKNOWN,
	GPUPATH_ANA_OPTIMIZED,
	GPUPATH_ANA_NON_OPTIMIZED,
	GPUPATH_ANA_INACCESSIBLE,
	GPUPATH_ANA_PERSISTENT_LOSS,
	GPUPATH_ANA_CHANGE,

	/* private: */
	__GPUPATH_ANA_MAX,
	GPUPATH_ANA_MAX = (__GPUPATH_ANA_MAX - 1)
};

/**
 * enum gpupath_portal_discover - Where a discovery portal finds its discovery
 *   controllers.
 * @GPUPATH_DISCOVER_ADDRESS: At the portal's TRADDR and TRSVCID (the default).
 * @GPUPATH_DISCOVER_MDNS: By mDNS (NVMe TP8009): each "_nvme-disc._tcp"
 *   service announced on a rail's interface, of the portal's transport
 *   ("p=tcp" or "p=roce") and with the discovery NQN, whose address is on the
 *   rail's subnet. Such a portal has no TRADDR, TRSVCID or SUBSYSNQN; one per
 *   transport.
 */
enum gpupath_portal_discover {
	GPUPATH_DISCOVER_ADDRESS,
	GPUPATH_DISCOVER_MDNS,

	/* private: */
	__GPUPATH_DISCOVER_MAX,
	GPUPATH_DISCOVER_MAX = (__GPUPATH_DISCOVER_MAX - 1)
};

/**
 * enum gpupath_reason - Why an I/O was or was not served directly.
 * @GPUPATH_REASON_NONE: It was (mode direct), or the buffer is host memory.
 * @GPUPATH_REASON_P2PDMA_NOT_BUILT: The kernel has no CONFIG_PCI_P2PDMA.
 * @GPUPATH_REASON_NO_P2P_ROUTE: The kernel's pci_p2pdma_distance() refuses the
 *   provider and the device's DMA engine (no common switch, host bridge not
 *   allowed, ACS redirect).
 * @GPUPATH_REASON_CPU_COPY: The transport moves data with the CPU (nvme-tcp
 *   copies from sockets): there is no DMA engine to aim at device memory, so a
 *   bounce costs nothing extra.
 * @GPUPATH_REASON_VIRTUAL_DMA: The RDMA device is a software device with no
 *   PCI DMA engine (soft-RoCE rxe, siw).
 * @GPUPATH_REASON_MULTIPATH_HEAD: An nvme native-multipath head device: the
 *   path used per I/O is chosen below gpupath, so direct DMA cannot be
 *   promised; use a gpupath volume or the per-path devices.
 * @GPUPATH_REASON_NO_DMA_DEVICE: No DMA device could be found for the block
 *   device (not NVMe, or an unknown transport).
 * @GPUPATH_REASON_NO_PEER_MEMORY: The memory is a CUDA allocation and no
 *   NVIDIA peer-memory provider serves it.
 * @GPUPATH_REASON_DMA_MAP_FAILED: The route check let the I/O go direct, but
 *   the controller's driver could not DMA-map the memory when the I/O was sent
 *   (nvme-pci ends such a bio with a target error); nothing was transferred by
 *   that bio. A real target error on a direct I/O reads the same, and recurs
 *   when the I/O is bounced.
 * @GPUPATH_REASON_NO_P2P_QUEUE: The block device's driver does not take P2P
 *   memory in its requests (its queue lacks the kernel's PCI P2PDMA
 *   capability: virtio-blk, SATA, SCSI, USB, or nvme-pci on DMA ops that
 *   cannot map P2P memory). nvme-rdma is the one exception gpupath makes: it
 *   maps P2P memory through the RDMA device.
 * @GPUPATH_REASON_UNKNOWN_MEMORY: The pages are device memory of no provider
 *   gpupath knows now (its provider was removed, or another driver owns it):
 *   no path can be checked against it.
 * @GPUPATH_REASON_FS_UNSUPPORTED: The file is on a file system other than ext4
 *   or XFS (tmpfs, NFS, btrfs, FUSE, ext2/ext3 mounted as such...), whose
 *   direct I/O gpupath cannot vouch for.
 * @GPUPATH_REASON_FILE_DAX: The file is in DAX mode: the file system copies
 *   its data with the CPU, there is no device to DMA.
 * @GPUPATH_REASON_FILE_ENCRYPTED: The file is encrypted (fscrypt): its data is
 *   transformed on the way.
 * @GPUPATH_REASON_FILE_VERITY: The file has fs-verity: reads are verified by
 *   the CPU through the page cache.
 * @GPUPATH_REASON_FILE_INLINE_DATA: An ext4 file whose data sits inline in its
 *   inode: no data blocks to DMA.
 * @GPUPATH_REASON_FILE_DATA_JOURNAL: Ext4 journals this file's data
 *   (data=journal, or chattr +j), so its I/O goes through the page cache.
 * @GPUPATH_REASON_FILE_BLOCK_MAPPED: A write to an ext4 file without extents
 *   (block-mapped, ext3 layout), which ext4 may finish through the page cache
 *   when it fills a hole.
 * @GPUPATH_REASON_FILE_REALTIME: An XFS realtime file: its data lives on the
 *   realtime device, not on the file system's block device.
 * @GPUPATH_REASON_STACKED_DEVICE: The block device is a stacking or
 *   memory-backed driver gpupath cannot see through (device mapper, loop,
 *   zram, md personalities other than RAID0/1/10 and linear): md RAID0/1/10
 *   and linear arrays are seen through to their members, and a
 *   native-multipath head to its paths where the kernel lets it take P2PDMA
 *   pages.
 * @GPUPATH_REASON_FILE_MAPPED: A write to a file someone has mapped shared and
 *   writable: the file system may fail to drop the range's cached pages and
 *   then finish the write through the page cache, the CPU copying the device
 *   memory.
 * @GPUPATH_REASON_STACKED_TRANSFORM: The block device stacks on others and
 *   computes over the data with the CPU on the way (md RAID4/5/6 parity,
 *   dm-crypt, dm-integrity): device memory would be read and written by the
 *   CPU.
 * @GPUPATH_REASON_NO_GPU_REGION: CUDA memory of a GPU whose BAR has no P2PDMA
 *   region: the NVIDIA driver registers one where BAR1 is static and not
 *   write-combined (NVreg_RegistryDwords=
 *   "RMForceStaticBar1=1;RmForceDisableIomapWC=1"); gpupath registers its own
 *   only where the administrator set its nvidia_bar_region module parameter.
 * @GPUPATH_REASON_IOMMU_BUS_ADDR: The DMA engine's IOMMU translates its DMA,
 *   and the kernel would map this memory for it by PCI bus address, which the
 *   IOMMU does not translate: such P2P lands only if a PCIe switch routes it
 *   to its peer port, and where it goes up to the IOMMU the write is dropped
 *   while the I/O completes without an error. Boot with iommu=pt, or let ACS
 *   redirect P2P through a host bridge that allows it; where the switch does
 *   route P2P, set gpupath's p2p_past_iommu module parameter.
 */
enum gpupath_reason {
	GPUPATH_REASON_NONE,
	GPUPATH_REASON_P2PDMA_NOT_BUILT,
	GPUPATH_REASON_NO_P2P_ROUTE,
	GPUPATH_REASON_CPU_COPY,
	GPUPATH_REASON_VIRTUAL_DMA,
	GPUPATH_REASON_MULTIPATH_HEAD,
	GPUPATH_REASON_NO_DMA_DEVICE,
	GPUPATH_REASON_NO_PEER_MEMORY,
	GPUPATH_REASON_DMA_MAP_FAILED,
	GPUPATH_REASON_NO_P2P_QUEUE,
	GPUPATH_REASON_UNKNOWN_MEMORY,
	GPUPATH_REASON_FS_UNSUPPORTED,
	GPUPATH_REASON_FILE_DAX,
	GPUPATH_REASON_FILE_ENCRYPTED,
	GPUPATH_REASON_FILE_VERITY,
	GPUPATH_REASON_FILE_INLINE_DATA,
	GPUPATH_REASON_FILE_DATA_JOURNAL,
	GPUPATH_REASON_FILE_BLOCK_MAPPED,
	GPUPATH_REASON_FILE_REALTIME,
	GPUPATH_REASON_STACKED_DEVICE,
	GPUPATH_REASON_FILE_MAPPED,
	GPUPATH_REASON_STACKED_TRANSFORM,
	GPUPATH_REASON_NO_GPU_REGION,
	GPUPATH_REASON_IOMMU_BUS_ADDR,

	/* private: */
	__GPUPATH_REASON_MAX,
	GPUPATH_REASON_MAX = (__GPUPATH_REASON_MAX - 1)
};

/**
 * enum gpupath_event - GPUPATH_A_EVENT_TYPE.
 * @GPUPATH_EVENT_PATH_FAILED: A path error took the path out (ERROR).
 * @GPUPATH_EVENT_PATH_GONE: The path's disk was deleted.
 * @GPUPATH_EVENT_FAILBACK: A failed path is live again and back in use.
 * @GPUPATH_EVENT_FAILOVER: I/O of a failed path completed on another one
 *   (NSEC: from the first path error to that completion).
 * @GPUPATH_EVENT_NO_PATH: No path is usable; I/O waits (QUEUE_TIMEOUT).
 * @GPUPATH_EVENT_IO_ERROR: I/O failed to the caller (ERROR, IOS).
 */
enum gpupath_event {
	GPUPATH_EVENT_PATH_FAILED = 1,
	GPUPATH_EVENT_PATH_GONE,
	GPUPATH_EVENT_FAILBACK,
	GPUPATH_EVENT_FAILOVER,
	GPUPATH_EVENT_NO_PATH,
	GPUPATH_EVENT_IO_ERROR,
};

/**
 * enum gpupath_transport - The fabric a portal is reached over.
 * @GPUPATH_TRANSPORT_RDMA: NVMe over RDMA (RoCEv2, InfiniBand, iWARP).
 * @GPUPATH_TRANSPORT_TCP: NVMe over TCP.
 */
enum gpupath_transport {
	GPUPATH_TRANSPORT_RDMA = 1,
	GPUPATH_TRANSPORT_TCP,

	/* private: */
	__GPUPATH_TRANSPORT_MAX,
	GPUPATH_TRANSPORT_MAX = (__GPUPATH_TRANSPORT_MAX - 1)
};

/**
 * enum gpupath_conn_state - A portal's connection.
 * @GPUPATH_CONN_CONNECTING: An attempt is under way.
 * @GPUPATH_CONN_LIVE: Connected, the controller is live.
 * @GPUPATH_CONN_RECONNECTING: Connected, the host is reconnecting a lost
 *   controller.
 * @GPUPATH_CONN_BACKOFF: The last attempt failed; the next one is due in
 *   RETRY_MS.
 * @GPUPATH_CONN_ADOPTED: Live, and was connected before the daemon (by hand,
 *   or by an earlier daemon).
 */
enum gpupath_conn_state {
	GPUPATH_CONN_CONNECTING = 1,
	GPUPATH_CONN_LIVE,
	GPUPATH_CONN_RECONNECTING,
	GPUPATH_CONN_BACKOFF,
	GPUPATH_CONN_ADOPTED,
};

/**
 * enum gpupath_applied - What became of one QoS setting on one device.
 * @GPUPATH_APPLIED_OK: Set, and read back with the wanted value.
 * @GPUPATH_APPLIED_UNSUPPORTED: The device has no such setting.
 * @GPUPATH_APPLIED_FAILED: Setting it failed, or it read back otherwise.
 */
enum gpupath_applied {
	GPUPATH_APPLIED_OK = 1,
	GPUPATH_APPLIED_UNSUPPORTED,
	GPUPATH_APPLIED_FAILED,

	/* private: */
	__GPUPATH_APPLIED_MAX,
	GPUPATH_APPLIED_MAX = (__GPUPATH_APPLIED_MAX - 1)
};

/**
 * enum gpupath_io_op - The direction of an I/O (GPUPATH_IOC_IO,
 *   GPUPATH_A_ROUTE_OP).
 * @GPUPATH_IO_READ: Block device or file to buffer.
 * @GPUPATH_IO_WRITE: Buffer to block device or file.
 */
enum gpupath_io_op {
	GPUPATH_IO_READ = 1,
	GPUPATH_IO_WRITE,
};

/**
 * enum gpupath_stack_kind - What the targets of a device-mapper table do with
 *   the data of a bio (GPUPATH_A_STACK_KIND), as gpupathd read the table.
 * @GPUPATH_STACK_KIND_REMAP: Every target only remaps bios to the devices
 *   below (linear, striped): device memory goes direct when it can go to each
 *   of them.
 * @GPUPATH_STACK_KIND_TRANSFORM: A target reads or writes the data with the
 *   CPU (crypt, integrity, raid, verity, ...): refused, stacked-transform.
 * @GPUPATH_STACK_KIND_OTHER: Any other target (thin, cache, snapshot, mirror,
 *   multipath, zero, error, ...): refused, stacked-device.
 */
enum gpupath_stack_kind {
	GPUPATH_STACK_KIND_REMAP = 1,
	GPUPATH_STACK_KIND_TRANSFORM,
	GPUPATH_STACK_KIND_OTHER,

	/* private: */
	__GPUPATH_STACK_KIND_MAX,
	GPUPATH_STACK_KIND_MAX = (__GPUPATH_STACK_KIND_MAX - 1)
};

enum gpupath_a {
	GPUPATH_A_UNSPEC,
	GPUPATH_A_INFO,
	GPUPATH_A_PROVIDER,
	GPUPATH_A_VOLUME,
	GPUPATH_A_PATH,
	GPUPATH_A_EVENT,
	GPUPATH_A_PORTAL,
	GPUPATH_A_QOS,
	GPUPATH_A_ROUTE,
	GPUPATH_A_CGROUP,
	GPUPATH_A_STACK,

	__GPUPATH_A_MAX,
	GPUPATH_A_MAX = (__GPUPATH_A_MAX - 1)
};

enum gpupath_a_info {
	GPUPATH_A_INFO_UNSPEC,
	GPUPATH_A_INFO_PAD,
	GPUPATH_A_INFO_VERSION,
	GPUPATH_A_INFO_GENL_VERSION,
	GPUPATH_A_INFO_FEATURES,
	GPUPATH_A_INFO_P2PDMA_STATUS,
	GPUPATH_A_INFO_KERNEL,
	GPUPATH_A_INFO_IOCTL_VERSION,

	__GPUPATH_A_INFO_MAX,
	GPUPATH_A_INFO_MAX = (__GPUPATH_A_INFO_MAX - 1)
};

enum gpupath_a_provider {
	GPUPATH_A_PROVIDER_UNSPEC,
	GPUPATH_A_PROVIDER_PAD,
	GPUPATH_A_PROVIDER_ID,
	GPUPATH_A_PROVIDER_TYPE,
	GPUPATH_A_PROVIDER_PCI_DEV,
	GPUPATH_A_PROVIDER_DRIVER,
	GPUPATH_A_PROVIDER_OWNED,
	GPUPATH_A_PROVIDER_SIZE,
	GPUPATH_A_PROVIDER_ALLOCATED,
	GPUPATH_A_PROVIDER_AVAILABLE,
	GPUPATH_A_PROVIDER_STATS,
	GPUPATH_A_PROVIDER_BAR,
	GPUPATH_A_PROVIDER_PEER,
	GPUPATH_A_PROVIDER_USER_LIMIT,
	GPUPATH_A_PROVIDER_CGROUP_LIMIT,
	GPUPATH_A_PROVIDER_USAGE,
	GPUPATH_A_PROVIDER_CGROUP,
	GPUPATH_A_PROVIDER_CGROUP_LIMIT_DEFAULT,
	GPUPATH_A_PROVIDER_CGROUP_OVERRIDE,

	__GPUPATH_A_PROVIDER_MAX,
	GPUPATH_A_PROVIDER_MAX = (__GPUPATH_A_PROVIDER_MAX - 1)
};

enum gpupath_a_volume {
	GPUPATH_A_VOLUME_UNSPEC,
	GPUPATH_A_VOLUME_PAD,
	GPUPATH_A_VOLUME_ID,
	GPUPATH_A_VOLUME_NAME,
	GPUPATH_A_VOLUME_WWID,
	GPUPATH_A_VOLUME_POLICY,
	GPUPATH_A_VOLUME_FALLBACK,
	GPUPATH_A_VOLUME_QUEUE_TIMEOUT,
	GPUPATH_A_VOLUME_SIZE,
	GPUPATH_A_VOLUME_BLOCK_SIZE,
	GPUPATH_A_VOLUME_MODE,
	GPUPATH_A_VOLUME_OPEN,
	GPUPATH_A_VOLUME_PATHS,
	GPUPATH_A_VOLUME_USABLE,
	GPUPATH_A_VOLUME_STATS,
	GPUPATH_A_VOLUME_PATH,

	__GPUPATH_A_VOLUME_MAX,
	GPUPATH_A_VOLUME_MAX = (__GPUPATH_A_VOLUME_MAX - 1)
};

enum gpupath_a_vstats {
	GPUPATH_A_VSTATS_UNSPEC,
	GPUPATH_A_VSTATS_PAD,
	GPUPATH_A_VSTATS_IOS,
	GPUPATH_A_VSTATS_BYTES,
	GPUPATH_A_VSTATS_ERRORS,
	GPUPATH_A_VSTATS_RETRIES,
	GPUPATH_A_VSTATS_QUEUED,
	GPUPATH_A_VSTATS_REFUSED,
	GPUPATH_A_VSTATS_FAILOVERS,
	GPUPATH_A_VSTATS_FAILOVER_LAST_NS,
	GPUPATH_A_VSTATS_FAILOVER_MAX_NS,
	GPUPATH_A_VSTATS_INFLIGHT,

	__GPUPATH_A_VSTATS_MAX,
	GPUPATH_A_VSTATS_MAX = (__GPUPATH_A_VSTATS_MAX - 1)
};

enum gpupath_a_path {
	GPUPATH_A_PATH_UNSPEC,
	GPUPATH_A_PATH_PAD,
	GPUPATH_A_PATH_ID,
	GPUPATH_A_PATH_VOLUME,
	GPUPATH_A_PATH_DEVICE,
	GPUPATH_A_PATH_STATE,
	GPUPATH_A_PATH_HEALTH,
	GPUPATH_A_PATH_WEIGHT,
	GPUPATH_A_PATH_RAIL,
	GPUPATH_A_PATH_TRANSPORT,
	GPUPATH_A_PATH_CONTROLLER,
	GPUPATH_A_PATH_DMA_DEV,
	GPUPATH_A_PATH_REASON,
	GPUPATH_A_PATH_STATS,
	GPUPATH_A_PATH_LINK,
	GPUPATH_A_PATH_ANA_STATE,
	GPUPATH_A_PATH_ANA_TT,
	GPUPATH_A_PATH_ANA_GROUP,

	__GPUPATH_A_PATH_MAX,
	GPUPATH_A_PATH_MAX = (__GPUPATH_A_PATH_MAX - 1)
};

enum gpupath_a_pstats {
	GPUPATH_A_PSTATS_UNSPEC,
	GPUPATH_A_PSTATS_PAD,
	GPUPATH_A_PSTATS_IOS,
	GPUPATH_A_PSTATS_BYTES,
	GPUPATH_A_PSTATS_ERRORS,
	GPUPATH_A_PSTATS_DIRECT_IOS,
	GPUPATH_A_PSTATS_INFLIGHT,
	GPUPATH_A_PSTATS_LATENCY_NS,

	__GPUPATH_A_PSTATS_MAX,
	GPUPATH_A_PSTATS_MAX = (__GPUPATH_A_PSTATS_MAX - 1)
};

enum gpupath_a_event {
	GPUPATH_A_EVENT_UNSPEC,
	GPUPATH_A_EVENT_PAD,
	GPUPATH_A_EVENT_TYPE,
	GPUPATH_A_EVENT_VOLUME,
	GPUPATH_A_EVENT_PATH,
	GPUPATH_A_EVENT_ERROR,
	GPUPATH_A_EVENT_NSEC,
	GPUPATH_A_EVENT_IOS,

	__GPUPATH_A_EVENT_MAX,
	GPUPATH_A_EVENT_MAX = (__GPUPATH_A_EVENT_MAX - 1)
};

enum gpupath_a_portal {
	GPUPATH_A_PORTAL_UNSPEC,
	GPUPATH_A_PORTAL_PAD,
	GPUPATH_A_PORTAL_ID,
	GPUPATH_A_PORTAL_NAME,
	GPUPATH_A_PORTAL_TRANSPORT,
	GPUPATH_A_PORTAL_TRADDR,
	GPUPATH_A_PORTAL_TRSVCID,
	GPUPATH_A_PORTAL_SUBSYSNQN,
	GPUPATH_A_PORTAL_RAIL,
	GPUPATH_A_PORTAL_QOS,
	GPUPATH_A_PORTAL_CTRL_LOSS_TMO,
	GPUPATH_A_PORTAL_FAST_IO_FAIL_TMO,
	GPUPATH_A_PORTAL_RECONNECT_DELAY,
	GPUPATH_A_PORTAL_NR_IO_QUEUES,
	GPUPATH_A_PORTAL_CONN,
	GPUPATH_A_PORTAL_CONN_CLEAR,
	GPUPATH_A_PORTAL_DISCOVERY,
	GPUPATH_A_PORTAL_HOST_NQN,
	GPUPATH_A_PORTAL_HOST_ID,
	GPUPATH_A_PORTAL_DHCHAP_SECRET_FILE,
	GPUPATH_A_PORTAL_DHCHAP_CTRL_SECRET_FILE,
	GPUPATH_A_PORTAL_DISCOVER,

	__GPUPATH_A_PORTAL_MAX,
	GPUPATH_A_PORTAL_MAX = (__GPUPATH_A_PORTAL_MAX - 1)
};

enum gpupath_a_rail {
	GPUPATH_A_RAIL_UNSPEC,
	GPUPATH_A_RAIL_ID,
	GPUPATH_A_RAIL_IFACE,
	GPUPATH_A_RAIL_ADDR,

	__GPUPATH_A_RAIL_MAX,
	GPUPATH_A_RAIL_MAX = (__GPUPATH_A_RAIL_MAX - 1)
};

enum gpupath_a_conn {
	GPUPATH_A_CONN_UNSPEC,
	GPUPATH_A_CONN_RAIL,
	GPUPATH_A_CONN_SUBSYSNQN,
	GPUPATH_A_CONN_TRADDR,
	GPUPATH_A_CONN_STATE,
	GPUPATH_A_CONN_CONTROLLER,
	GPUPATH_A_CONN_ATTEMPTS,
	GPUPATH_A_CONN_ERROR,
	GPUPATH_A_CONN_RETRY_MS,
	GPUPATH_A_CONN_TRSVCID,

	__GPUPATH_A_CONN_MAX,
	GPUPATH_A_CONN_MAX = (__GPUPATH_A_CONN_MAX - 1)
};

enum gpupath_a_qos {
	GPUPATH_A_QOS_UNSPEC,
	GPUPATH_A_QOS_NAME,
	GPUPATH_A_QOS_DSCP,
	GPUPATH_A_QOS_PRIORITY,
	GPUPATH_A_QOS_PFC,
	GPUPATH_A_QOS_ETS,
	GPUPATH_A_QOS_APPLIED,
	GPUPATH_A_QOS_APPLIED_CLEAR,
	GPUPATH_A_QOS_PORTALS,

	__GPUPATH_A_QOS_MAX,
	GPUPATH_A_QOS_MAX = (__GPUPATH_A_QOS_MAX - 1)
};

enum gpupath_a_applied {
	GPUPATH_A_APPLIED_UNSPEC,
	GPUPATH_A_APPLIED_DEVICE,
	GPUPATH_A_APPLIED_SETTING,
	GPUPATH_A_APPLIED_RESULT,
	GPUPATH_A_APPLIED_ERROR,
	GPUPATH_A_APPLIED_VALUE,

	__GPUPATH_A_APPLIED_MAX,
	GPUPATH_A_APPLIED_MAX = (__GPUPATH_A_APPLIED_MAX - 1)
};

enum gpupath_a_stats {
	GPUPATH_A_STATS_UNSPEC,
	GPUPATH_A_STATS_PAD,
	GPUPATH_A_STATS_DIRECT_IOS,
	GPUPATH_A_STATS_DIRECT_BYTES,
	GPUPATH_A_STATS_ERRORS,
	GPUPATH_A_STATS_REFUSED,

	__GPUPATH_A_STATS_MAX,
	GPUPATH_A_STATS_MAX = (__GPUPATH_A_STATS_MAX - 1)
};

enum gpupath_a_peer {
	GPUPATH_A_PEER_UNSPEC,
	GPUPATH_A_PEER_PCI_DEV,
	GPUPATH_A_PEER_DISTANCE,

	__GPUPATH_A_PEER_MAX,
	GPUPATH_A_PEER_MAX = (__GPUPATH_A_PEER_MAX - 1)
};

enum gpupath_a_refused {
	GPUPATH_A_REFUSED_UNSPEC,
	GPUPATH_A_REFUSED_PAD,
	GPUPATH_A_REFUSED_REASON,
	GPUPATH_A_REFUSED_IOS,
	GPUPATH_A_REFUSED_BYTES,

	__GPUPATH_A_REFUSED_MAX,
	GPUPATH_A_REFUSED_MAX = (__GPUPATH_A_REFUSED_MAX - 1)
};

enum gpupath_a_route {
	GPUPATH_A_ROUTE_UNSPEC,
	GPUPATH_A_ROUTE_PROVIDER,
	GPUPATH_A_ROUTE_TARGET,
	GPUPATH_A_ROUTE_OP,
	GPUPATH_A_ROUTE_REASON,
	GPUPATH_A_ROUTE_DEVICE,
	GPUPATH_A_ROUTE_DMA_DEV,
	GPUPATH_A_ROUTE_DISTANCE,
	GPUPATH_A_ROUTE_FABRICS,

	__GPUPATH_A_ROUTE_MAX,
	GPUPATH_A_ROUTE_MAX = (__GPUPATH_A_ROUTE_MAX - 1)
};

enum gpupath_a_usage {
	GPUPATH_A_USAGE_UNSPEC,
	GPUPATH_A_USAGE_PAD,
	GPUPATH_A_USAGE_UID,
	GPUPATH_A_USAGE_CGROUP_ID,
	GPUPATH_A_USAGE_CGROUP,
	GPUPATH_A_USAGE_BYTES,
	GPUPATH_A_USAGE_BUFFERS,
	GPUPATH_A_USAGE_LIMIT,

	__GPUPATH_A_USAGE_MAX,
	GPUPATH_A_USAGE_MAX = (__GPUPATH_A_USAGE_MAX - 1)
};

enum gpupath_a_cgroup {
	GPUPATH_A_CGROUP_UNSPEC,
	GPUPATH_A_CGROUP_PAD,
	GPUPATH_A_CGROUP_ID,
	GPUPATH_A_CGROUP_PATH,
	GPUPATH_A_CGROUP_OTHER,
	GPUPATH_A_CGROUP_STATS,
	GPUPATH_A_CGROUP_HOST_IOS,
	GPUPATH_A_CGROUP_HOST_BYTES,

	__GPUPATH_A_CGROUP_MAX,
	GPUPATH_A_CGROUP_MAX = (__GPUPATH_A_CGROUP_MAX - 1)
};

enum gpupath_a_stack {
	GPUPATH_A_STACK_UNSPEC,
	GPUPATH_A_STACK_PAD,
	GPUPATH_A_STACK_MAJOR,
	GPUPATH_A_STACK_MINOR,
	GPUPATH_A_STACK_DISKSEQ,
	GPUPATH_A_STACK_KIND,
	GPUPATH_A_STACK_TARGETS,

	__GPUPATH_A_STACK_MAX,
	GPUPATH_A_STACK_MAX = (__GPUPATH_A_STACK_MAX - 1)
};

enum gpupath_cmd {
	GPUPATH_CMD_UNSPEC,
	GPUPATH_CMD_GET_INFO,
	GPUPATH_CMD_PROVIDER_GET,
	GPUPATH_CMD_PROVIDER_NEW,
	GPUPATH_CMD_PROVIDER_DEL,
	GPUPATH_CMD_VOLUME_GET,
	GPUPATH_CMD_VOLUME_NEW,
	GPUPATH_CMD_VOLUME_DEL,
	GPUPATH_CMD_VOLUME_SET,
	GPUPATH_CMD_PATH_GET,
	GPUPATH_CMD_PATH_NEW,
	GPUPATH_CMD_PATH_DEL,
	GPUPATH_CMD_PATH_SET,
	GPUPATH_CMD_EVENT,
	GPUPATH_CMD_PORTAL_GET,
	GPUPATH_CMD_PORTAL_NEW,
	GPUPATH_CMD_PORTAL_DEL,
	GPUPATH_CMD_PORTAL_SET,
	GPUPATH_CMD_QOS_GET,
	GPUPATH_CMD_QOS_NEW,
	GPUPATH_CMD_QOS_DEL,
	GPUPATH_CMD_QOS_SET,
	GPUPATH_CMD_ROUTE_GET,
	GPUPATH_CMD_PROVIDER_SET,
	GPUPATH_CMD_CGROUP_GET,
	GPUPATH_CMD_STACK_SET,

	__GPUPATH_CMD_MAX,
	GPUPATH_CMD_MAX = (__GPUPATH_CMD_MAX - 1)
};

#define GPUPATH_MCGRP_CONFIG	"config"
#define GPUPATH_MCGRP_EVENTS	"events"

#endif /* _UAPI_LINUX_GPUPATH_NL_H */
