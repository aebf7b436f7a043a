/* val_metrics: the comparison figures of validate.h. */
#include "validate.h"

#include <math.h>
#include <string.h>

void val_acc_init(val_acc *a)
{
    memset(a, 0, sizeof *a);
    a->first_diff = -1;
}

void val_acc_add(val_acc *a, double ref, double got)
{
    /* Equal values (including equal infinities, whose difference is NaN)
     * differ by 0. */
    double d = got == ref ? 0.0 : got - ref;
    double ad = fabs(d);
    if (d != 0.0) {
        if (a->first_diff < 0) a->first_diff = (int64_t)a->n;
        a->n_diff++;
    }
    if (ad > a->max_abs) a->max_abs = ad;
    a->sum_abs += ad;
    a->sum_sq += d * d;
    a->dot += ref * got;
    a->ref_sq += ref * ref;
    a->got_sq += got * got;
    a->n++;
}

double val_elem(graph_dtype dt, const void *p, size_t i)
{
    switch (dt) {
    case GRAPH_I8: return ((const int8_t *)p)[i];
    case GRAPH_U8:
    case GRAPH_BOOL: return ((const uint8_t *)p)[i];
    case GRAPH_I16: return ((const int16_t *)p)[i];
    case GRAPH_I32: return ((const int32_t *)p)[i];
    case GRAPH_I64: return (double)((const int64_t *)p)[i];
    case GRAPH_F32: return ((const float *)p)[i];
    case GRAPH_U32: return ((const uint32_t *)p)[i];
    case GRAPH_U16: return ((const uint16_t *)p)[i];
    case GRAPH_F16: return graph_half_to_float(((const uint16_t *)p)[i]);
    case GRAPH_F64: return ((const double *)p)[i];
    case GRAPH_U64: return (double)((const uint64_t *)p)[i];
    case GRAPH_C64: return ((const float *)p)[2 * i];      /* real part */
    case GRAPH_C128: return ((const double *)p)[2 * i];    /* real part */
    case GRAPH_I4: return (int8_t)(uint8_t)((((const uint8_t *)p)[i / 2] >> (i & 1 ? 4 : 0)) << 4) >> 4;
    case GRAPH_STRING: case GRAPH_RESOURCE: case GRAPH_VARIANT: return 0;
    }
    return 0;
}

void val_acc_add_tensor(val_acc *a, graph_dtype dt, const void *ref, const void *got, size_t n, double scale,
                        int64_t zp)
{
    if (memcmp(ref, got, graph_dtype_nbytes(dt, n)) != 0) a->bytes_differ = true;
    for (size_t i = 0; i < n; i++) {
        double r = val_elem(dt, ref, i), g = val_elem(dt, got, i);
        if (scale > 0) {
            r = (r - (double)zp) * scale;
            g = (g - (double)zp) * scale;
        }
        val_acc_add(a, r, g);
    }
}

void val_metrics_finish(const val_acc *a, val_metrics *m)
{
    memset(m, 0, sizeof *m);
    m->n = a->n;
    m->n_diff = a->n_diff;
    m->first_diff = a->first_diff;
    /* NaN compares unequal to itself, so bytes decide, not values */
    m->bit_exact = !a->bytes_differ && a->n_diff == 0;
    m->max_abs = a->max_abs;
    if (a->n) {
        m->mae = a->sum_abs / (double)a->n;
        m->rmse = sqrt(a->sum_sq / (double)a->n);
    }
    if (a->ref_sq == 0.0 && a->got_sq == 0.0) m->cosine = 1.0;
    else if (a->ref_sq == 0.0 || a->got_sq == 0.0) m->cosine = 0.0;
    else m->cosine = a->dot / (sqrt(a->ref_sq) * sqrt(a->got_sq));
    if (a->sum_sq == 0.0) m->l2_rel = 0.0;
    else if (a->ref_sq == 0.0) m->l2_rel = INFINITY;
    else m->l2_rel = sqrt(a->sum_sq) / sqrt(a->ref_sq);
}
