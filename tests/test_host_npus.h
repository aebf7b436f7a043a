/* Shared by the tests that run compiled models on the host: one virtual
 * NPU + ethos-u driver per variant, created on first use. */
#ifndef TEST_HOST_NPUS_H
#define TEST_HOST_NPUS_H

#include <stdio.h>
#include <stdlib.h>

#include "ethosu_driver.h"
#include "../src/driver/host/ethosu_host.h"

static ethosu_host_npu *npus[6];
static struct ethosu_driver drvs[6];

static struct ethosu_driver *driver_for(eu_variant v)
{
    if (!npus[v]) {
        npuc_err err = {0};
        if (ethosu_host_npu_create(v, NULL, &npus[v], &err)) {
            fprintf(stderr, "npu create: %s\n", err.msg);
            exit(1);
        }
        if (ethosu_host_driver_init(&drvs[v], npus[v], NULL, 0)) {
            fprintf(stderr, "driver init failed\n");
            exit(1);
        }
    }
    return &drvs[v];
}

static void free_drivers(void)
{
    for (int v = 0; v < 6; v++)
        if (npus[v]) {
            ethosu_host_driver_deinit(&drvs[v]);
            ethosu_host_npu_free(npus[v]);
            npus[v] = NULL;
        }
}

#endif
