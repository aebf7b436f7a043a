/* ethosu_device.h: the driver's device layer. Every register access of the
 * driver goes through ethosu_dev_read / ethosu_dev_write, which exactly one
 * backend implements, chosen at link time:
 *   src/driver/device_mmio/  volatile 32-bit loads/stores at dev->reg (target);
 *   src/driver/host/         the virtual NPU (dev->reg is an ethosu_host_npu).
 * Register facts: src/ethosu/eu_regs.h (docs/ethos-u.md 9.4). */
#ifndef ETHOSU_DEVICE_H
#define ETHOSU_DEVICE_H

#include <stdint.h>

#include "ethosu/eu_regs.h"
#include "ethosu_types.h"

/* 32-bit register access at a byte offset from the register base (a
 * multiple of 4 below 0x1000). */
uint32_t ethosu_dev_read(struct ethosu_device *dev, uint32_t offset);
void ethosu_dev_write(struct ethosu_device *dev, uint32_t offset, uint32_t value);

/* Register offsets and bits: EU_REG_*, EU_STATUS_*, ... (src/ethosu/eu_regs.h). */

#endif /* ETHOSU_DEVICE_H */
