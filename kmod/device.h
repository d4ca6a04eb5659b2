/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _GPUPATH_DEVICE_H
#define _GPUPATH_DEVICE_H

int gpupath_device_init(void);
void gpupath_device_uninit(void);

#endif /* _GPUPATH_DEVICE_H */
