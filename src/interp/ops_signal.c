/* Interpreter bindings of the signal library: the audio front end's custom
 * operators TFLite Micro ships in signal/micro/kernels (SignalWindow,
 * SignalFftAutoScale, SignalRfft, SignalEnergy, SignalFilterBank,
 * SignalFilterBankSquareRoot, SignalFilterBankSpectralSubtraction,
 * SignalPCAN, SignalFilterBankLog), run by the custom family's kernels
 * (k_signal.c). Each checks what TFLite Micro's Prepare checks (counts,
 * ranks, types), reads its parameters from custom_options as TFLite
 * Micro's Init does (the map's values by position, keys in alphabetical
 * order), and refuses what TFLite Micro would read or write out of bounds.
 * docs/kernels-custom.md. */
#include "interp_ops.h"
#include "tflite/flexbuf.h"

#include <string.h>

/* Values of the op's custom_options map, by position (TFLite Micro's
 * FlexbufferWrapper::ElementAsInt32: the map's values in key order). */
static int opt_at(const graph_op *op, uint64_t i, const char *key, int64_t *v, npuc_err *err)
{
    flexbuf_map m;
    if (!op->custom_options || op->n_custom_options == 0)
        return npuc_errf(err, NPUC_E_INVALID, "custom_options are missing (need '%s')", key);
    int rc = flexbuf_root_map(op->custom_options, op->n_custom_options, &m, err);
    if (!rc && i >= m.size)
        return npuc_errf(err, NPUC_E_INVALID, "custom_options have %llu values, '%s' is value %llu",
                         (unsigned long long)m.size, key, (unsigned long long)i);
    if (!rc) rc = flexbuf_elem_raw_int(&m, i, v, err);
    if (rc) return npuc_err_prefix(err, "custom_options ('%s')", key);
    return NPUC_OK;
}

static int opt_i32(const graph_op *op, uint64_t i, const char *key, int32_t *v, npuc_err *err)
{
    int64_t x = 0;
    int rc = opt_at(op, i, key, &x, err);
    *v = (int32_t)x; /* static_cast<int32_t>(ElementAsInt64) */
    return rc;
}

/* tensor t (named what) has type dt and rank (rank < 0: at least 1). */
static int need(const graph_tensor *t, const char *what, graph_dtype dt, int32_t rank, npuc_err *err)
{
    if (!t) return npuc_errf(err, NPUC_E_INVALID, "%s is missing", what);
    if (t->dtype != dt)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' is %s, the kernel takes %s", what, t->name,
                         graph_dtype_name(t->dtype), graph_dtype_name(dt));
    if (rank >= 0 ? t->rank != rank : t->rank < 1)
        return npuc_errf(err, NPUC_E_INVALID, "%s '%s' has rank %d, the kernel takes %s%d", what, t->name, t->rank,
                         rank >= 0 ? "" : "at least ", rank >= 0 ? rank : 1);
    return NPUC_OK;
}

static int32_t elems(const graph_tensor *t) { return (int32_t)graph_tensor_elems(t); }

/* Element counts within the kernels' limits. */
static int small(const graph_tensor *t, const char *what, npuc_err *err)
{
    if (graph_tensor_elems(t) > (size_t)K_OP_MAX_DIM)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "%s '%s' has %zu elements, more than the kernel takes", what,
                         t->name, graph_tensor_elems(t));
    return NPUC_OK;
}

static int same_count(const graph_tensor *a, const char *wa, const graph_tensor *b, const char *wb, npuc_err *err)
{
    if (graph_tensor_elems(a) != graph_tensor_elems(b))
        return npuc_errf(err, NPUC_E_INVALID, "%s '%s' has %zu elements, %s '%s' %zu", wa, a->name,
                         graph_tensor_elems(a), wb, b->name, graph_tensor_elems(b));
    return NPUC_OK;
}

/* ---- SignalWindow ---- */

static int prep_window(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *w = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if (!rc) rc = need(in, "input", GRAPH_I16, -1, err);
    if (!rc) rc = need(w, "weights", GRAPH_I16, 1, err);
    if (!rc) rc = need(out, "output", GRAPH_I16, in->rank, err);
    if (!rc) rc = small(in, "input", err);
    if (!rc) rc = same_count(in, "input", out, "output", err);
    k_op_window_blob b = {elems(in), elems(w), 0, 0};
    if (!rc) rc = opt_i32(n->op, 0, "shift", &b.shift, err);
    if (rc) return rc;
    if (b.wlen < 1 || b.n % b.wlen)
        return npuc_errf(err, NPUC_E_INVALID, "input of %d values is not whole frames of the %d weights", b.n, b.wlen);
    if (b.shift < 0 || b.shift > 31) return npuc_errf(err, NPUC_E_UNSUPPORTED, "shift %d is outside 0..31", b.shift);
    k_op_window_blob *p = interp_node_blob(n, K_OP_SIGNAL_WINDOW_S16, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- SignalFftAutoScale ---- */

static int prep_fft_auto_scale(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 2, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0), *sb = interp_node_out_t(n, 1);
    if (!rc) rc = need(in, "input", GRAPH_I16, 1, err);
    if (!rc) rc = need(out, "output", GRAPH_I16, 1, err);
    if (!rc) rc = need(sb, "scale_bits", GRAPH_I32, 0, err);
    if (!rc) rc = small(in, "input", err);
    if (!rc) rc = same_count(in, "input", out, "output", err);
    if (rc) return rc;
    k_op_sig_n_blob *p = interp_node_blob(n, K_OP_SIGNAL_FFT_AUTO_SCALE_S16, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = (k_op_sig_n_blob){elems(out), 0, 0, 0};
    return NPUC_OK;
}

/* ---- SignalRfft ---- */

static int prep_rfft(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if (rc) return rc;
    if (!in || !out) return npuc_errf(err, NPUC_E_INVALID, "needs an input and an output");
    int64_t type = 0;
    bool found = false;
    flexbuf_map m;
    if (!n->op->custom_options || n->op->n_custom_options == 0)
        return npuc_errf(err, NPUC_E_INVALID, "custom_options are missing (need 'T' and 'fft_length')");
    rc = flexbuf_root_map(n->op->custom_options, n->op->n_custom_options, &m, err);
    if (!rc) rc = flexbuf_get_int(&m, "T", &type, &found, err);
    if (rc) return npuc_err_prefix(err, "custom_options ('T')");
    if (!found || type != TFL_INT16)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "T (%s) is not int16: npuc's kernel is the int16 form",
                         found ? graph_dtype_name((graph_dtype)type) : "missing");
    int32_t fft_length = 0;
    if ((rc = opt_i32(n->op, 1, "fft_length", &fft_length, err))) return rc;
    if ((rc = need(in, "input", GRAPH_I16, -1, err)) || (rc = need(out, "output", GRAPH_I16, in->rank, err)) ||
        (rc = small(in, "input", err)) || (rc = small(out, "output", err)))
        return rc;
    if (fft_length < 2 || fft_length > K_RFFT_MAX || fft_length % 2)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "fft_length %d: the kernel takes an even length in 2..%d",
                         fft_length, K_RFFT_MAX);
    const int32_t in_len = in->shape[in->rank - 1], out_len = out->shape[out->rank - 1];
    if (in_len < 1 || in_len > fft_length)
        return npuc_errf(err, NPUC_E_INVALID, "frames of %d samples for an FFT of %d points", in_len, fft_length);
    const int32_t frames = elems(in) / in_len;
    if (out_len != fft_length + 2)
        return npuc_errf(err, NPUC_E_INVALID, "output frames of %d values, an FFT of %d points gives %d (%d complex)",
                         out_len, fft_length, fft_length + 2, fft_length / 2 + 1);
    if ((int64_t)elems(out) != (int64_t)frames * out_len)
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has %d values, %d frames give %lld", out->name, elems(out),
                         frames, (long long)frames * out_len);
    const uint32_t size = k_rfft_blob_bytes(fft_length);
    uint8_t *p = interp_node_blob(n, K_OP_SIGNAL_RFFT_S16, size);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    if (k_rfft_plan(fft_length, in_len, frames, p, size) != K_OK)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "an FFT of %d points does not factor within 32 stages", fft_length);
    k_op_rfft_blob b;
    memcpy(&b, p, sizeof b);
    n->scratch_size = (size_t)k_rfft_scratch_bytes(&b);
    return NPUC_OK;
}

/* ---- SignalEnergy ---- */

static int prep_energy(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if (!rc) rc = need(in, "input", GRAPH_I16, 1, err);
    if (!rc) rc = need(out, "output", GRAPH_U32, 1, err);
    if (!rc) rc = small(in, "input", err);
    if (!rc) rc = small(out, "output", err);
    k_op_energy_blob b = {0};
    if (!rc) rc = opt_i32(n->op, 0, "end_index", &b.end, err);
    if (!rc) rc = opt_i32(n->op, 1, "start_index", &b.start, err);
    if (rc) return rc;
    b.n_complex = elems(in) / 2;
    b.n_out = elems(out);
    if (b.start < 0 || b.end < b.start || b.end > b.n_complex || b.end > b.n_out)
        return npuc_errf(err, NPUC_E_INVALID, "bins [%d, %d) are outside the %d complex inputs or the %d outputs",
                         b.start, b.end, b.n_complex, b.n_out);
    k_op_energy_blob *p = interp_node_blob(n, K_OP_SIGNAL_ENERGY, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- SignalFilterBank ---- */

static int prep_filter_bank(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 6, 6, 1, err);
    if (rc) return rc;
    static const char *const what[6] = {"input", "weights", "unweights", "channel_frequency_starts",
                                        "channel_weight_starts", "channel_widths"};
    for (int32_t i = 0; i < 6 && !rc; i++) {
        rc = need(interp_node_in_t(n, i), what[i], i == 0 ? GRAPH_U32 : GRAPH_I16, 1, err);
        if (!rc) rc = small(interp_node_in_t(n, i), what[i], err);
    }
    const graph_tensor *out = interp_node_out_t(n, 0);
    if (!rc) rc = need(out, "output", GRAPH_U64, 1, err);
    k_op_sig_n_blob b = {0};
    if (!rc) rc = opt_i32(n->op, 0, "num_channels", &b.n, err);
    if (rc) return rc;
    if (b.n < 1 || b.n >= K_OP_MAX_DIM) return npuc_errf(err, NPUC_E_INVALID, "num_channels %d", b.n);
    if (elems(out) != b.n)
        return npuc_errf(err, NPUC_E_INVALID, "output '%s' has %d values for %d channels", out->name, elems(out), b.n);
    for (int32_t i = 3; i < 6; i++)
        if (elems(interp_node_in_t(n, i)) < b.n + 1)
            return npuc_errf(err, NPUC_E_INVALID, "%s has %d values, %d channels read %d", what[i],
                             elems(interp_node_in_t(n, i)), b.n, b.n + 1);
    if ((rc = same_count(interp_node_in_t(n, 1), "weights", interp_node_in_t(n, 2), "unweights", err))) return rc;
    b.n_in = elems(interp_node_in_t(n, 0));
    b.n_weights = elems(interp_node_in_t(n, 1));
    k_op_sig_n_blob *p = interp_node_blob(n, K_OP_SIGNAL_FILTER_BANK, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- SignalFilterBankSquareRoot ---- */

static int prep_fb_sqrt(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 2, 2, 1, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *sb = interp_node_in_t(n, 1), *out = interp_node_out_t(n, 0);
    if (!rc) rc = need(in, "input", GRAPH_U64, 1, err);
    if (!rc) rc = need(sb, "scale_bits", GRAPH_I32, 0, err);
    if (!rc) rc = need(out, "output", GRAPH_U32, 1, err);
    if (!rc) rc = small(in, "input", err);
    if (!rc) rc = same_count(in, "input", out, "output", err);
    if (rc) return rc;
    k_op_sig_n_blob *p = interp_node_blob(n, K_OP_SIGNAL_FILTER_BANK_SQRT, sizeof *p);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = (k_op_sig_n_blob){elems(in), 0, 0, 0};
    return NPUC_OK;
}

/* ---- SignalFilterBankSpectralSubtraction ---- */

static int prep_specsub(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 2, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0), *ne = interp_node_out_t(n, 1);
    if (!rc) rc = need(in, "input", GRAPH_U32, 1, err);
    if (!rc) rc = need(out, "output", GRAPH_U32, 1, err);
    if (!rc) rc = need(ne, "noise_estimate", GRAPH_U32, 1, err);
    if (rc) return rc;
    /* the map's keys in order: alternate_one_minus_smoothing,
     * alternate_smoothing, clamping, min_signal_remaining, num_channels,
     * one_minus_smoothing, smoothing, smoothing_bits,
     * spectral_subtraction_bits */
    static const char *const key[9] = {"alternate_one_minus_smoothing", "alternate_smoothing", "clamping",
                                       "min_signal_remaining", "num_channels", "one_minus_smoothing", "smoothing",
                                       "smoothing_bits", "spectral_subtraction_bits"};
    int64_t v[9];
    for (int32_t i = 0; i < 9 && !rc; i++) rc = opt_at(n->op, (uint64_t)i, key[i], &v[i], err);
    if (rc) return rc;
    k_op_specsub_blob b = {0};
    b.alternate_one_minus_smoothing = (uint32_t)(int32_t)v[0];
    b.alternate_smoothing = (uint32_t)(int32_t)v[1];
    b.clamping = v[2] != 0;   /* ElementAsBool: the slot as a uint64, non-zero */
    b.min_signal_remaining = (uint32_t)(int32_t)v[3];
    b.n = (int32_t)v[4];
    b.one_minus_smoothing = (uint32_t)(int32_t)v[5];
    b.smoothing = (uint32_t)(int32_t)v[6];
    b.smoothing_bits = (uint32_t)(int32_t)v[7];
    b.spectral_subtraction_bits = (uint32_t)(int32_t)v[8];
    if (b.n < 1 || b.n > K_OP_MAX_DIM) return npuc_errf(err, NPUC_E_INVALID, "num_channels %d", b.n);
    if (elems(in) != b.n || elems(out) != b.n || elems(ne) != b.n)
        return npuc_errf(err, NPUC_E_INVALID, "input, output and noise_estimate have %d, %d, %d values for %d channels",
                         elems(in), elems(out), elems(ne), b.n);
    if (b.smoothing_bits > 31 || b.spectral_subtraction_bits > 63)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "smoothing_bits %u / spectral_subtraction_bits %u: shifts beyond 31 / 63",
                         b.smoothing_bits, b.spectral_subtraction_bits);
    k_op_specsub_blob *p = interp_node_blob(n, K_OP_SIGNAL_SPECTRAL_SUBTRACTION, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    n->persistent_size = 4u * (size_t)b.n;   /* the noise estimate, zero at start and reset */
    return NPUC_OK;
}

/* ---- SignalPCAN ---- */

static int prep_pcan(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 3, 3, 1, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *ne = interp_node_in_t(n, 1), *lut = interp_node_in_t(n, 2),
                       *out = interp_node_out_t(n, 0);
    if (!rc) rc = need(in, "input", GRAPH_U32, 1, err);
    if (!rc) rc = need(ne, "noise_estimate", GRAPH_U32, 1, err);
    if (!rc) rc = need(lut, "gain_lut", GRAPH_I16, 1, err);
    if (!rc) rc = need(out, "output", GRAPH_U32, 1, err);
    if (!rc) rc = small(in, "input", err);
    if (!rc) rc = small(lut, "gain_lut", err);
    if (!rc) rc = same_count(in, "input", out, "output", err);
    if (!rc) rc = same_count(in, "input", ne, "noise_estimate", err);
    k_op_pcan_blob b = {elems(in), 0, 0, 0};
    if (!rc) rc = opt_i32(n->op, 0, "snr_shift", &b.snr_shift, err);
    if (rc) return rc;
    b.lut_len = elems(lut);
    if (b.lut_len < K_PCAN_LUT_MIN)
        return npuc_errf(err, NPUC_E_INVALID, "gain_lut '%s' has %d values, the gain function reads up to %d", lut->name,
                         b.lut_len, K_PCAN_LUT_MIN);
    if (b.snr_shift < 0 || b.snr_shift > 63)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "snr_shift %d is outside 0..63", b.snr_shift);
    k_op_pcan_blob *p = interp_node_blob(n, K_OP_SIGNAL_PCAN, sizeof b);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    *p = b;
    return NPUC_OK;
}

/* ---- SignalFilterBankLog ---- */

static int prep_fb_log(interp_node *n, npuc_err *err)
{
    int rc = interp_check_counts(n, 1, 1, 1, err);
    const graph_tensor *in = interp_node_in_t(n, 0), *out = interp_node_out_t(n, 0);
    if (!rc) rc = need(in, "input", GRAPH_U32, 1, err);
    if (!rc) rc = need(out, "output", GRAPH_I16, 1, err);
    if (!rc) rc = small(in, "input", err);
    if (!rc) rc = same_count(in, "input", out, "output", err);
    int32_t corr = 0, scale = 0;
    if (!rc) rc = opt_i32(n->op, 0, "input_correction_bits", &corr, err);
    if (!rc) rc = opt_i32(n->op, 1, "output_scale", &scale, err);
    if (rc) return rc;
    if (corr < 0 || corr > 31)
        return npuc_errf(err, NPUC_E_UNSUPPORTED, "input_correction_bits %d is outside 0..31", corr);
    const size_t size = K_FBLOG_BLOB_BYTES;
    uint8_t *p = interp_node_blob(n, K_OP_SIGNAL_FILTER_BANK_LOG, size);
    if (!p) return npuc_errf(err, NPUC_E_NOMEM, "out of memory");
    const k_op_fblog_blob b = {elems(in), (uint32_t)scale, (uint32_t)corr, (uint32_t)sizeof(k_op_fblog_blob)};
    memcpy(p, &b, sizeof b);
    uint16_t lut[K_LOG_LUT];
    k_log_lut(lut);
    memcpy(p + sizeof b, lut, sizeof lut);
    return NPUC_OK;
}

static const interp_op_impl impls[] = {
    {TFL_OP_CUSTOM, prep_window, "SignalWindow"},
    {TFL_OP_CUSTOM, prep_fft_auto_scale, "SignalFftAutoScale"},
    {TFL_OP_CUSTOM, prep_rfft, "SignalRfft"},
    {TFL_OP_CUSTOM, prep_energy, "SignalEnergy"},
    {TFL_OP_CUSTOM, prep_filter_bank, "SignalFilterBank"},
    {TFL_OP_CUSTOM, prep_fb_sqrt, "SignalFilterBankSquareRoot"},
    {TFL_OP_CUSTOM, prep_specsub, "SignalFilterBankSpectralSubtraction"},
    {TFL_OP_CUSTOM, prep_pcan, "SignalPCAN"},
    {TFL_OP_CUSTOM, prep_fb_log, "SignalFilterBankLog"},
};

INTERP_OPS_TABLE(interp_ops_signal, impls)
