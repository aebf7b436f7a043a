#include "cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "npuc - deploy quantized neural networks on microcontroller NPUs\n"
            "\n"
            "usage: npuc <command> [options]\n"
            "\n"
            "commands:\n"
            "  inspect MODEL   show ops, tensors, quantization, sizes, MACs and NPU support\n"
            "  compile MODEL   compile a model for an Ethos-U NPU\n"
            "  run MODEL       run a model on the reference interpreter\n"
            "  validate MODEL  check the deployed model against the reference on the\n"
            "                  virtual NPU; accuracy figures, profile, reports\n"
            "  help [COMMAND]  show help\n"
            "\n"
            "Run 'npuc <command> --help' for a command's options.\n"
            "Exit status: 0 success, 1 model or input error, 2 usage error,\n"
            "3 validate: NOT bit-exact.\n");
}

int cli_fail(const npuc_err *err)
{
    fprintf(stderr, "npuc: error: %s\n", err->msg[0] ? err->msg : npuc_err_code_name(err->code));
    return err->code == NPUC_E_USAGE ? CLI_EUSAGE : CLI_EMODEL;
}

int cli_fail_last(void)
{
    npuc_err err;
    npuc_last_err(&err);
    return cli_fail(&err);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "npuc %s: ", cmd);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\nTry 'npuc %s --help'.\n", cmd);
    va_end(ap);
    return CLI_EUSAGE;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        usage(stderr);
        return CLI_EUSAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "inspect")) return cli_inspect(argc - 1, argv + 1);
    if (!strcmp(cmd, "run")) return cli_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "compile")) return cli_compile(argc - 1, argv + 1);
    if (!strcmp(cmd, "validate")) return cli_validate(argc - 1, argv + 1);
    if (!strcmp(cmd, "help") || !strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
        if (argc > 2 && !strcmp(argv[2], "inspect")) {
            char *a[] = {"inspect", "--help", NULL};
            return cli_inspect(2, a);
        }
        if (argc > 2 && !strcmp(argv[2], "compile")) {
            char *a[] = {"compile", "--help", NULL};
            return cli_compile(2, a);
        }
        if (argc > 2 && !strcmp(argv[2], "validate")) {
            char *a[] = {"validate", "--help", NULL};
            return cli_validate(2, a);
        }
        if (argc > 2 && !strcmp(argv[2], "run")) {
            char *a[] = {"run", "--help", NULL};
            return cli_run(2, a);
        }
        usage(stdout);
        return CLI_OK;
    }
    if (!strcmp(cmd, "--version")) {
        puts("npuc 0.1.0");
        return CLI_OK;
    }
    fprintf(stderr, "npuc: unknown command '%s'\n\n", cmd);
    usage(stderr);
    return CLI_EUSAGE;
}
