/* kernels: prepared-op kinds of the custom family: custom operators TFLite Micro ships: TFLite_Detection_PostProcess, CIRCULAR_BUFFER,
 * and the audio front end's signal library (SignalWindow .. SignalFilterBankLog, k_signal.c).
 *
 * Kind numbers 470..489 are this family's (stored in model files: never
 * renumber, add at the end of the range). Each kind gets one line in
 * K_OP_KINDS_CUSTOM ({name, family, data_movement}), which k_op.c puts into
 * its kind table, and is run by k_op_run_custom (k_op_custom.c).
 * docs/kernels-custom.md describes both operators. */
#ifndef NPUC_K_OP_CUSTOM_H
#define NPUC_K_OP_CUSTOM_H

#include "k_common.h"

enum {
    K_OP_CUSTOM_FIRST = 470,
    K_OP_CUSTOM_LAST = 489
};

enum {
    /* k_op_detect_blob. in: box_encodings f32 [1, num_boxes, box_stride],
     * class_predictions f32 [1, num_boxes, num_classes_bg], anchors f32
     * [num_boxes, 4]  out: detection_boxes f32 [out_slots, 4],
     * detection_classes f32 [out_slots], detection_scores f32 [out_slots],
     * num_detections f32 [1]; scratch: k_detect_scratch_bytes */
    K_OP_DETECTION_POSTPROCESS_F32 = 470,
    /* k_op_circbuf_blob. in: input s8 [depth]  out: output s8
     * [num_slots * depth]; persistent: k_circbuf_persistent_bytes.
     * Returns K_OP_NOT_READY when the caller must end this invocation
     * (TFLite Micro's kTfLiteAbort: the stride period is not reached). */
    K_OP_CIRCULAR_BUFFER_S8 = 471,
    /* The signal library (TFLite Micro's signal/micro/kernels), one kind
     * per op; docs/kernels-custom.md. */
    /* k_op_window_blob. in: input s16 [n], weights s16 [wlen]  out: s16 [n] */
    K_OP_SIGNAL_WINDOW_S16 = 472,
    /* k_op_sig_n_blob. in: input s16 [n]  out: output s16 [n], scale_bits s32 [1] */
    K_OP_SIGNAL_FFT_AUTO_SCALE_S16 = 473,
    /* k_op_rfft_blob. in: input s16 [frames * input_length]  out: s16
     * [frames * (fft_length / 2 + 1) * 2] (real, imaginary); scratch:
     * k_rfft_scratch_bytes */
    K_OP_SIGNAL_RFFT_S16 = 474,
    /* k_op_energy_blob. in: spectrum s16 [2 * n_complex]  out: u32 [n_out] */
    K_OP_SIGNAL_ENERGY = 475,
    /* k_op_sig_n_blob (n: channels). in: input u32 [n_in], weights s16
     * [n_weights], unweights s16 [n_weights], channel_frequency_starts,
     * channel_weight_starts, channel_widths s16 [n + 1]  out: u64 [n] */
    K_OP_SIGNAL_FILTER_BANK = 476,
    /* k_op_sig_n_blob. in: input u64 [n], scale_bits s32 [1]  out: u32 [n] */
    K_OP_SIGNAL_FILTER_BANK_SQRT = 477,
    /* k_op_specsub_blob. in: input u32 [n]  out: output u32 [n], noise
     * estimate u32 [n]; persistent: the noise estimate, 4 * n bytes */
    K_OP_SIGNAL_SPECTRAL_SUBTRACTION = 478,
    /* k_op_pcan_blob. in: input u32 [n], noise estimate u32 [n], gain LUT
     * s16 [lut_len]  out: u32 [n] */
    K_OP_SIGNAL_PCAN = 479,
    /* k_op_fblog_blob. in: input u32 [n]  out: s16 [n] */
    K_OP_SIGNAL_FILTER_BANK_LOG = 480,
    /* k_op_posenet_blob. in: heatmaps [1, H, W, 17], short offsets
     * [1, H, W, 34], mid offsets [1, H, W, 64] (each uint8 or float32)  out:
     * keypoints f32 [1, D, 17, 2], keypoint scores f32 [1, D, 17], pose
     * scores f32 [1, D], pose count f32 [1]; scratch: k_posenet_scratch_bytes */
    K_OP_POSENET_DECODER = 481
};

/* SignalWindow: out[f*wlen + i] = sat16((in * w[i]) >> shift), frame by frame. */
typedef struct k_op_window_blob {
    int32_t n;      /* >= 0, a multiple of wlen */
    int32_t wlen;   /* >= 1 */
    int32_t shift;  /* [0, 31] */
    int32_t reserved;
} k_op_window_blob;
_Static_assert(sizeof(k_op_window_blob) == 16, "k_op_window_blob: 4 four-byte fields");

/* One count: the elements (SignalFftAutoScale, SignalFilterBankSquareRoot)
 * or the channels (SignalFilterBank, with the input lengths). */
typedef struct k_op_sig_n_blob {
    int32_t n;          /* >= 0 (filter bank: >= 1) */
    int32_t n_in;       /* filter bank: input values, else 0 */
    int32_t n_weights;  /* filter bank: weights and unweights, else 0 */
    int32_t reserved;
} k_op_sig_n_blob;
_Static_assert(sizeof(k_op_sig_n_blob) == 16, "k_op_sig_n_blob: 4 four-byte fields");

/* SignalRfft, int16: kiss_fft's fixed-point real FFT of fft_length points,
 * each frame's input_length samples zero-padded. The half-length complex
 * FFT's radix factors (p, m pairs) and both twiddle tables (int16 pairs)
 * are computed at prepare time (k_rfft_plan). */
typedef struct k_op_rfft_blob {
    int32_t fft_length;     /* even, [2, K_RFFT_MAX] */
    int32_t input_length;   /* [1, fft_length] */
    int32_t frames;         /* >= 0 */
    int32_t n_factors;      /* radix stages, [1, 32] */
    uint32_t factors_off;   /* int32 [2 * n_factors]: p, m per stage */
    uint32_t tw_off;        /* int16 [2 * fft_length / 2]: the half FFT's twiddles */
    uint32_t super_off;     /* int16 [2 * fft_length / 4]: the real split's twiddles */
    int32_t max_radix;      /* the largest p */
} k_op_rfft_blob;
_Static_assert(sizeof(k_op_rfft_blob) == 32, "k_op_rfft_blob: 8 four-byte fields");

#define K_RFFT_MAX 65536

/* Blob bytes of an RFFT of fft_length points (0 when out of range), and
 * the blob itself filled in b (blob_size bytes, from k_rfft_blob_bytes):
 * host-side, it uses <math.h>'s cos and sin as kiss_fft does. */
uint32_t k_rfft_blob_bytes(int32_t fft_length);
int k_rfft_plan(int32_t fft_length, int32_t input_length, int32_t frames, uint8_t *blob, uint32_t blob_size);
/* Scratch bytes of K_OP_SIGNAL_RFFT_S16 for blob b (0 when out of range). */
uint64_t k_rfft_scratch_bytes(const k_op_rfft_blob *b);

/* SignalEnergy: out[i] = re^2 + im^2 for i in [start, end), 0 elsewhere. */
typedef struct k_op_energy_blob {
    int32_t n_complex;  /* input values / 2 */
    int32_t n_out;
    int32_t start;      /* 0 <= start <= end <= min(n_complex, n_out) */
    int32_t end;
} k_op_energy_blob;
_Static_assert(sizeof(k_op_energy_blob) == 16, "k_op_energy_blob: 4 four-byte fields");

/* SignalFilterBankSpectralSubtraction (TFLite Micro's field meanings). */
typedef struct k_op_specsub_blob {
    int32_t n;                       /* channels, >= 1 */
    uint32_t smoothing;
    uint32_t one_minus_smoothing;
    uint32_t alternate_smoothing;    /* odd channels */
    uint32_t alternate_one_minus_smoothing;
    uint32_t min_signal_remaining;
    uint32_t smoothing_bits;         /* [0, 31] */
    uint32_t spectral_subtraction_bits; /* [0, 63] */
    int32_t clamping;                /* 0 or 1 */
    int32_t reserved;
} k_op_specsub_blob;
_Static_assert(sizeof(k_op_specsub_blob) == 40, "k_op_specsub_blob: 10 four-byte fields");

/* SignalPCAN: per-channel automatic gain control. */
typedef struct k_op_pcan_blob {
    int32_t n;          /* channels */
    int32_t snr_shift;  /* [0, 63] */
    int32_t lut_len;    /* >= K_PCAN_LUT_MIN */
    int32_t reserved;
} k_op_pcan_blob;
_Static_assert(sizeof(k_op_pcan_blob) == 16, "k_op_pcan_blob: 4 four-byte fields");

/* The gain LUT entries the gain function may read (x up to 2^32 - 1). */
#define K_PCAN_LUT_MIN 125

/* SignalFilterBankLog: the log's correction table (kLogLut of TFLite
 * Micro's log.cc: round((log2(1 + k/128) - k/128) * 65536), k = 0..128)
 * is computed at prepare time and stored after the struct. */
typedef struct k_op_fblog_blob {
    int32_t n;                /* channels */
    uint32_t output_scale;
    uint32_t correction_bits; /* [0, 31] */
    uint32_t lut_off;         /* uint16 [K_LOG_LUT] */
} k_op_fblog_blob;
_Static_assert(sizeof(k_op_fblog_blob) == 16, "k_op_fblog_blob: 4 four-byte fields");

#define K_LOG_LUT 129
/* The blob's bytes: the struct, the table, 2 bytes to a multiple of 4. */
#define K_FBLOG_BLOB_BYTES ((uint32_t)sizeof(k_op_fblog_blob) + 2u * K_LOG_LUT + 2u)

/* Fills lut[K_LOG_LUT] (host-side, <math.h>'s log2). */
void k_log_lut(uint16_t *lut);

/* Coral's PosenetDecoderOp: multi-person pose decoding (PersonLab) from the
 * keypoint heatmaps (logits), short- and mid-range offsets. Each input is
 * uint8 (dequantized with its scale and zero point) or float32 (times its
 * scale: 1); the offsets are divided by the stride. */
typedef struct k_op_posenet_blob {
    int32_t h, w;             /* the maps' height and width, >= 1 */
    int32_t max_detections;   /* D, >= 1 */
    int32_t stride;           /* >= 1 */
    float score_threshold;
    float nms_radius;         /* in pixels (the option; divided by the stride) */
    int32_t type[3];          /* heatmaps, short, mid offsets: 0 uint8, 1 float32 */
    float scale[3];
    int32_t zero_point[3];    /* uint8: [0, 255] */
    int32_t reserved;
} k_op_posenet_blob;
_Static_assert(sizeof(k_op_posenet_blob) == 64, "k_op_posenet_blob: 16 four-byte fields");

#define K_POSENET_KEYPOINTS 17
#define K_POSENET_EDGES 16

/* Scratch bytes of K_OP_POSENET_DECODER for blob b (0 when out of range). */
uint64_t k_posenet_scratch_bytes(const k_op_posenet_blob *b);

/* TFLite_Detection_PostProcess. use_regular_nms 1: per-class NMS
 * (detections_per_class each) then the best max_detections over all
 * classes; 0: fast NMS on each box's best class score. out_slots: the
 * detection slots the outputs hold (max_detections, times
 * min(max_classes_per_detection, num_classes) in fast mode). */
typedef struct k_op_detect_blob {
    int32_t num_boxes;         /* >= 1 */
    int32_t box_stride;        /* floats per box encoding, >= 4 (extra values ignored) */
    int32_t num_classes;       /* >= 1 */
    int32_t num_classes_bg;    /* num_classes or num_classes + 1 (background first) */
    int32_t max_detections;    /* >= 0 */
    int32_t max_classes_per_detection; /* fast NMS: >= 1 */
    int32_t detections_per_class;      /* regular NMS: >= 1 */
    int32_t use_regular_nms;   /* 0 or 1 */
    float score_threshold;
    float iou_threshold;       /* in (0, 1] */
    float y_scale, x_scale, h_scale, w_scale;
    int32_t out_slots;
    int32_t reserved;          /* 0 */
} k_op_detect_blob;
_Static_assert(sizeof(k_op_detect_blob) == 64, "k_op_detect_blob: 16 four-byte fields");

/* Scratch bytes K_OP_DETECTION_POSTPROCESS_F32 needs for blob b (0 when the
 * blob's counts are out of range). */
uint64_t k_detect_scratch_bytes(const k_op_detect_blob *b);

/* CIRCULAR_BUFFER: keeps the last num_slots input frames of depth int8
 * values; the op completes (K_OK) every cycles_max-th invocation and asks
 * for the invocation to end (K_OP_NOT_READY) on the others. The frames
 * start at zero_point (the output is a variable tensor in TFLite Micro). */
typedef struct k_op_circbuf_blob {
    int32_t num_slots;   /* >= 1 */
    int32_t depth;       /* >= 1 */
    int32_t cycles_max;  /* >= 1 */
    int32_t zero_point;  /* [-128, 127] */
} k_op_circbuf_blob;
_Static_assert(sizeof(k_op_circbuf_blob) == 16, "k_op_circbuf_blob: 4 four-byte fields");

/* Persistent bytes: an 8-byte header (cycle counter, initialised flag)
 * then the frames. 0 when the blob's counts are out of range. */
uint64_t k_circbuf_persistent_bytes(const k_op_circbuf_blob *b);

/* Designated initializers of k_op.c's kind table for this family. */
#define K_OP_KINDS_CUSTOM                                                        \
    [K_OP_DETECTION_POSTPROCESS_F32] = {"detection_postprocess_f32", F_CUSTOM, 0}, \
    [K_OP_CIRCULAR_BUFFER_S8] = {"circular_buffer_s8", F_CUSTOM, 0},             \
    [K_OP_SIGNAL_WINDOW_S16] = {"signal_window_s16", F_CUSTOM, 0},               \
    [K_OP_SIGNAL_FFT_AUTO_SCALE_S16] = {"signal_fft_auto_scale_s16", F_CUSTOM, 0}, \
    [K_OP_SIGNAL_RFFT_S16] = {"signal_rfft_s16", F_CUSTOM, 0},                   \
    [K_OP_SIGNAL_ENERGY] = {"signal_energy", F_CUSTOM, 0},                       \
    [K_OP_SIGNAL_FILTER_BANK] = {"signal_filter_bank", F_CUSTOM, 0},             \
    [K_OP_SIGNAL_FILTER_BANK_SQRT] = {"signal_filter_bank_sqrt", F_CUSTOM, 0},   \
    [K_OP_SIGNAL_SPECTRAL_SUBTRACTION] = {"signal_spectral_subtraction", F_CUSTOM, 0}, \
    [K_OP_SIGNAL_PCAN] = {"signal_pcan", F_CUSTOM, 0},                           \
    [K_OP_SIGNAL_FILTER_BANK_LOG] = {"signal_filter_bank_log", F_CUSTOM, 0},     \
    [K_OP_POSENET_DECODER] = {"posenet_decoder_f32", F_CUSTOM, 0},

#endif
