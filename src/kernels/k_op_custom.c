/* Prepared ops of the custom family (k_op_custom.h): dispatch, and
 * CIRCULAR_BUFFER (TFLite Micro's circular_buffer.cc). The detection
 * post-process is in k_detect.c, the signal library in k_signal.c, the PoseNet decoder in k_posenet.c. */
#include "k_op_internal.h"

int k_detect_run(const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_signal_run(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io);
int k_posenet_run(const uint8_t *blob, uint32_t size, const k_op_io *io);

/* ---- CIRCULAR_BUFFER ---- */

/* Persistent header: counter = invocations since the op last completed
 * (TFLM's cycles_max - cycles_until_run: 0 after a reset, as the zeroed
 * persistent memory is), init = 1 once the frames hold zero_point. */
typedef struct circbuf_state {
    int32_t counter;
    int32_t init;
} circbuf_state;
_Static_assert(sizeof(circbuf_state) == 8, "circbuf_state: 8 bytes");

static bool circbuf_ok(const k_op_circbuf_blob *b)
{
    return k_op_dim(b->num_slots, 1) && k_op_dim(b->depth, 1) && b->cycles_max >= 1 &&
           k_op_in_range(b->zero_point, -128, 127) &&
           k_op_mul((uint64_t)b->num_slots, (uint64_t)b->depth) <= (uint64_t)INT32_MAX - 8u;
}

uint64_t k_circbuf_persistent_bytes(const k_op_circbuf_blob *b)
{
    return circbuf_ok(b) ? 8u + (uint64_t)b->num_slots * (uint64_t)b->depth : 0;
}

static int circbuf_run(const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    k_op_circbuf_blob b;
    K_OP_LOAD(b, blob, size);
    if (!circbuf_ok(&b)) return K_E_INVALID;
    if (!io) return K_OK;
    const size_t depth = (size_t)b.depth, total = (size_t)b.num_slots * depth;
    void *in, *out;
    int rc = k_op_in(io, 0, depth, 1, &in);
    if (!rc) rc = k_op_out(io, 0, total, 1, &out);
    if (rc) return rc;
    if (!io->persistent || io->persistent_size < 8u + (uint64_t)total || ((uintptr_t)io->persistent & 3u) != 0)
        return K_E_INVALID;
    circbuf_state st;
    memcpy(&st, io->persistent, sizeof st);
    uint8_t *frames = (uint8_t *)io->persistent + 8;
    if (st.init == 0) {
        memset(frames, (int)(uint8_t)(int8_t)b.zero_point, total);
        st.init = 1;
        st.counter = 0;
    }
    if (st.init != 1 || st.counter < 0 || st.counter >= b.cycles_max) return K_E_INVALID;
    /* drop the oldest frame, append the input (every invocation) */
    memmove(frames, frames + depth, total - depth);
    memcpy(frames + (total - depth), in, depth);
    memcpy(out, frames, total);
    st.counter++;
    const bool complete = st.counter == b.cycles_max;
    if (complete) st.counter = 0;
    memcpy(io->persistent, &st, sizeof st);
    return complete ? K_OK : K_OP_NOT_READY;
}

int k_op_run_custom(uint32_t kind, const uint8_t *blob, uint32_t size, const k_op_io *io)
{
    switch (kind) {
    case K_OP_DETECTION_POSTPROCESS_F32: return k_detect_run(blob, size, io);
    case K_OP_CIRCULAR_BUFFER_S8: return circbuf_run(blob, size, io);
    case K_OP_SIGNAL_WINDOW_S16: case K_OP_SIGNAL_FFT_AUTO_SCALE_S16: case K_OP_SIGNAL_RFFT_S16:
    case K_OP_SIGNAL_ENERGY: case K_OP_SIGNAL_FILTER_BANK: case K_OP_SIGNAL_FILTER_BANK_SQRT:
    case K_OP_SIGNAL_SPECTRAL_SUBTRACTION: case K_OP_SIGNAL_PCAN: case K_OP_SIGNAL_FILTER_BANK_LOG:
        return k_signal_run(kind, blob, size, io);
    case K_OP_POSENET_DECODER: return k_posenet_run(blob, size, io);
    default: return K_E_INVALID;
    }
}
