/* npuc inspect: what is in a model. */
#include "cli.h"
#include "interp/interp.h"
#include "compiler/cc.h"
#include "emit/emit.h"
#include "runtime/host/npurt_host.h"
#include "npurt/npurt_crypto.h"
#include "npurt/reloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void help(FILE *f)
{
    fprintf(f,
            "usage: npuc inspect MODEL [--help]\n"
            "\n"
            "Prints the ops (with options, MACs and where `npuc compile` places them for\n"
            "ethos-u55-256 with the default system: NPU, or CPU and why), the tensors (type, shape, bytes, quantization), the model's\n"
            "inputs and outputs, and totals: MACs, constant bytes, the activation arena\n"
            "of the reference interpreter.\n"
            "\n"
            "On a loadable model (NAME_rel.bin) it prints the header, the memory layout\n"
            "and the pool table, and checks the SHA-256 digest.\n"
            "\n"
            "Exit status: 0 success, 1 model error, 2 usage error.\n");
}

static void quant_str(const graph_tensor *t, char *b, size_t n)
{
    if (t->q.n == 0) snprintf(b, n, "-");
    else if (t->q.n == 1) snprintf(b, n, "scale %.9g zp %lld", (double)t->q.scale[0], (long long)t->q.zero_point[0]);
    else snprintf(b, n, "per-axis(%d) x%d scale[0] %.6g", t->q.axis, t->q.n, (double)t->q.scale[0]);
}

static void options_str(const graph_op *op, char *b, size_t n)
{
    const tfl_options *o = &op->opt;
    const char *pad = o->padding == TFL_PAD_SAME ? "SAME" : "VALID";
    const char *act = tfl_activation_name(o->activation);
    switch (op->opcode) {
    case TFL_OP_CONV_2D:
        snprintf(b, n, "stride %dx%d dil %dx%d %s act %s", o->stride_w, o->stride_h, o->dilation_w, o->dilation_h, pad, act);
        break;
    case TFL_OP_DEPTHWISE_CONV_2D:
        snprintf(b, n, "stride %dx%d dil %dx%d mult %d %s act %s", o->stride_w, o->stride_h, o->dilation_w,
                 o->dilation_h, o->depth_multiplier, pad, act);
        break;
    case TFL_OP_AVERAGE_POOL_2D:
    case TFL_OP_MAX_POOL_2D:
        snprintf(b, n, "filter %dx%d stride %dx%d %s act %s", o->filter_w, o->filter_h, o->stride_w, o->stride_h, pad, act);
        break;
    case TFL_OP_TRANSPOSE_CONV:
        snprintf(b, n, "stride %dx%d %s act %s", o->stride_w, o->stride_h, pad, act);
        break;
    case TFL_OP_FULLY_CONNECTED: case TFL_OP_ADD: case TFL_OP_SUB: case TFL_OP_MUL: case TFL_OP_SVDF:
        snprintf(b, n, "act %s", act);
        break;
    case TFL_OP_CONCATENATION: snprintf(b, n, "axis %d act %s", o->axis, act); break;
    case TFL_OP_SOFTMAX: snprintf(b, n, "beta %g", (double)o->beta); break;
    case TFL_OP_LEAKY_RELU: snprintf(b, n, "alpha %g", (double)o->alpha); break;
    case TFL_OP_PACK: case TFL_OP_UNPACK: snprintf(b, n, "axis %d n %d", o->axis, o->num); break;
    case TFL_OP_MEAN: snprintf(b, n, "keep_dims %d", o->keep_dims); break;
    default: b[0] = 0; break;
    }
}

/* "target: SYSTEM:MODE on VARIANT (recorded)" for a model npuc compiled. */
static void print_target(const target_found *tf, const char *indent)
{
    if (!tf->record) return;
    target_desc t;
    npuc_err err = {0};
    if (target_record_parse(tf->record, tf->record_len, "target record", &t, &err))
        printf("%starget: malformed record (%s)\n", indent, err.msg);
    else
        printf("%starget: %s on %s (recorded by npuc compile; npuc run and validate replay it)\n", indent, t.name,
               target_variant_name(t.variant));
}

/* A runtime-loadable model: header checks, layout table, digest. */
static int inspect_reloc(const char *path)
{
    npuc_err err = {0};
    uint8_t *f;
    size_t n;
    if (cli_read_aligned(path, &f, &n, &err)) return cli_fail(&err);
    npurt_reloc_info info;
    npurt_error e = {0};
    char msg[512], *table = NULL;
    if (npurt_reloc_get_info(f, n, &info, &e)) {
        npurt_host_error_text(NULL, &e, msg, sizeof msg);
        npuc_errf(&err, NPUC_E_FORMAT, "%s: %s", path, msg);
        free(f);
        return cli_fail(&err);
    }
    const char *base = strrchr(path, '/');
    emit_reloc_out r = {.file = f, .file_size = info.file_size};
    if (emit_reloc_table(&r, base ? base + 1 : path, &table, &err)) {
        free(f);
        return cli_fail(&err);
    }
    fputs(table, stdout);
    free(table);
    uint8_t digest[32];
    uint32_t body = info.file_size - NPURL_TRAILER_SIZE;
    npurt_sha256(f, body, digest);
    bool ok = npurt_ct_equal(digest, f + body, 32);
    printf("  format %u.%u, needs runtime %u.%u, %u epochs, %u inputs, %u outputs\n", info.format_major,
           info.format_minor, info.runtime_major, info.runtime_minor, info.n_epochs, info.n_inputs, info.n_outputs);
    printf("  SHA-256 digest: %s\n", ok ? "ok" : "MISMATCH (corrupt or modified)");
    target_found tf;
    target_find_in_compiled(f, n, &tf);
    print_target(&tf, "  ");
    free(f);
    if (!ok) {
        npuc_errf(&err, NPUC_E_FORMAT, "%s: file byte 0x%x: SHA-256 digest mismatch", path, body);
        return cli_fail(&err);
    }
    return CLI_OK;
}

int cli_inspect(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            help(stdout);
            return CLI_OK;
        } else if (argv[i][0] == '-' && argv[i][1]) {
            return cli_usage_error("inspect", "unknown option '%s'", argv[i]);
        } else if (!path) {
            path = argv[i];
        } else {
            return cli_usage_error("inspect", "unexpected argument '%s'", argv[i]);
        }
    }
    if (!path) return cli_usage_error("inspect", "no model given");
    FILE *fp = fopen(path, "rb");
    if (fp) {
        char magic[4] = {0};
        size_t got = fread(magic, 1, 4, fp);
        fclose(fp);
        if (got == 4 && !memcmp(magic, "NPRL", 4)) return inspect_reloc(path);
    }
    npuc_err err = {0};
    tfl_model *m;
    graph *g;
    if (cli_load_graph(path, &m, &g, &err)) return cli_fail(&err);

    printf("model: %s\n", path);
    printf("schema version %u, %d subgraph%s, %d buffers%s%s%s\n", m->version, m->n_subgraphs,
           m->n_subgraphs == 1 ? "" : "s", m->n_buffers, m->description ? ", description \"" : "",
           m->description ? m->description : "", m->description ? "\"" : "");
    if (m->n_subgraphs > 1) printf("note: only subgraph 0 is listed; the others run inside its IF / WHILE / CALL_ONCE ops\n");
    for (int32_t i = 0; i < m->n_metadata; i++) printf("metadata '%s' (buffer %u)\n", m->metadata[i].name ? m->metadata[i].name : "", m->metadata[i].buffer);
    target_found tf;
    target_find_in_tflite(m, &tf);
    print_target(&tf, "");

    char shape[96], q[96], opts[128], why[256];
    printf("\ninputs:\n");
    for (int32_t i = 0; i < g->n_inputs; i++) {
        const graph_tensor *t = &g->tensors[g->inputs[i]];
        cli_shape_str(t, shape, sizeof shape);
        quant_str(t, q, sizeof q);
        printf("  %d: tensor %d '%s' %s %s %zu bytes, %s\n", i, g->inputs[i], t->name, graph_dtype_name(t->dtype), shape,
               t->nbytes, q);
    }
    printf("outputs:\n");
    for (int32_t i = 0; i < g->n_outputs; i++) {
        const graph_tensor *t = &g->tensors[g->outputs[i]];
        cli_shape_str(t, shape, sizeof shape);
        quant_str(t, q, sizeof q);
        printf("  %d: tensor %d '%s' %s %s %zu bytes, %s\n", i, g->outputs[i], t->name, graph_dtype_name(t->dtype), shape,
               t->nbytes, q);
    }

    printf("\nops:\n  %-4s %-24s %-22s %-44s %12s  %s\n", "#", "op", "inputs -> outputs", "options", "MACs", "Ethos-U");
    uint64_t total_macs = 0;
    int32_t npu_ops = 0, folded_ops = 0;
    /* the compiler's own placement, so inspect and compile never disagree */
    cc_model *cm = NULL;
    {
        cc_options co;
        memset(&co, 0, sizeof co);
        npuc_err ce = {0};
        if (target_default(EU_U55_256, &co.sys, &ce) || cc_compile(g, &co, &cm, &ce)) {
            printf("  (the compiler rejects the model: %s)\n", ce.msg);
            cm = NULL;
        }
    }
    for (int32_t i = 0; i < g->n_ops; i++) {
        const graph_op *op = &g->ops[i];
        char io[128];
        size_t o = 0;
        for (int32_t k = 0; k < op->n_in && o < sizeof io; k++)
            o += (size_t)snprintf(io + o, sizeof io - o, "%s%d", k ? "," : "", op->in[k]);
        if (o < sizeof io) o += (size_t)snprintf(io + o, sizeof io - o, " -> ");
        for (int32_t k = 0; k < op->n_out && o < sizeof io; k++)
            o += (size_t)snprintf(io + o, sizeof io - o, "%s%d", k ? "," : "", op->out[k]);
        options_str(op, opts, sizeof opts);
        uint64_t macs = graph_op_macs(g, op);
        total_macs += macs;
        int32_t ci = cm ? cc_op_of_source(cm, i) : -1;
        bool npu = ci >= 0 && cm->ops[ci].npu;
        snprintf(why, sizeof why, "%s", !cm ? "not compiled" : ci >= 0 ? cm->ops[ci].why : "");
        npu_ops += npu;
        folded_ops += cm && ci < 0;
        printf("  %-4d %-24s %-22s %-44s %12llu  %s%s\n", i, graph_op_name(op), io, opts, (unsigned long long)macs,
               npu ? "yes" : cm && ci < 0 ? "folded (constant, computed at compile time)" : "no: ", npu ? "" : why);
        if (!interp_op_supported(g, op, why, sizeof why)) printf("       reference interpreter: %s\n", why);
    }

    printf("\ntensors:\n  %-4s %-40s %-8s %-18s %10s  %-10s %s\n", "#", "name", "type", "shape", "bytes", "kind", "quantization");
    size_t const_bytes = 0;
    for (int32_t i = 0; i < g->n_tensors; i++) {
        const graph_tensor *t = &g->tensors[i];
        cli_shape_str(t, shape, sizeof shape);
        quant_str(t, q, sizeof q);
        const char *kind = t->data ? "const" : (t->is_variable ? "state" : (t->producer < 0 ? "input" : "activation"));
        if (t->data) const_bytes += t->nbytes;
        printf("  %-4d %-40.40s %-8s %-18s %10zu  %-10s %s\n", i, t->name, graph_dtype_name(t->dtype), shape, t->nbytes,
               kind, q);
    }

    cc_model_free(cm);
    if (folded_ops)
        printf("\ntotals:\n  ops: %d (%d on the Ethos-U, %d on the CPU), %d folded into constants\n", g->n_ops, npu_ops,
               g->n_ops - npu_ops - folded_ops, folded_ops);
    else
        printf("\ntotals:\n  ops: %d (%d on the Ethos-U, %d on the CPU)\n", g->n_ops, npu_ops, g->n_ops - npu_ops);
    printf("  MACs: %llu\n", (unsigned long long)total_macs);
    printf("  constant data: %zu bytes\n", const_bytes);
    interp *ip;
    if (interp_create(g, NULL, &ip, &err) == 0) {
        printf("  reference interpreter arena: %zu bytes (+%zu scratch/state)\n", interp_arena_size(ip),
               interp_scratch_size(ip));
        interp_free(ip);
    } else {
        printf("  reference interpreter arena: n/a (%s)\n", err.msg);
    }
    graph_free(g);
    tfl_model_free(m);
    return CLI_OK;
}
