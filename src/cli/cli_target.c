/* cli_target: the target options of compile, run and validate, in one
 * place (docs/cli.md, "The target"). The options only collect strings; what
 * they mean, with the defaults and the recorded target, is target_resolve's
 * (src/target/target.h). */
#include "cli.h"

#include <string.h>

bool cli_target_option(const char *cmd, int argc, char **argv, int *i, target_spec *spec, int *rc)
{
    const char *a = argv[*i];
    const char **slot = NULL;
    if (!strcmp(a, "--target") || !strcmp(a, "--npu") || !strcmp(a, "--accelerator-config")) slot = &spec->target;
    else if (!strcmp(a, "--system-config")) slot = &spec->system_config;
    else if (!strcmp(a, "--memory-mode")) slot = &spec->memory_mode;
    else if (!strcmp(a, "--config")) slot = &spec->config;
    else return false;
    *rc = CLI_OK;
    if (*i + 1 >= argc) {
        *rc = cli_usage_error(cmd, "%s needs a value", a);
        return true;
    }
    const char *v = argv[++*i];
    if (slot == &spec->target) {
        /* the variant is checked at once, in the words of the option used */
        eu_variant var;
        npuc_err err = {0};
        if (target_variant_parse(v, &var, &err)) {
            if (!strcmp(a, "--npu"))
                *rc = cli_usage_error(cmd, "--npu: unknown NPU '%s' (%s)", v, &EU_VARIANT_TARGETS[2]);
            else
                *rc = cli_usage_error(cmd, "%s: %s", a, err.msg);
            return true;
        }
    } else if (!*v) {
        *rc = cli_usage_error(cmd, "%s needs a value", a);
        return true;
    }
    *slot = v;
    return true;
}

npuc_target_spec cli_target_api(const target_spec *spec)
{
    npuc_target_spec t = {.npu = spec->target, .config = spec->config, .system_config = spec->system_config,
                          .memory_mode = spec->memory_mode};
    return t;
}

void cli_target_help(FILE *f, bool replays)
{
    fputs("  --target VARIANT      the NPU: ethos-u55-32, ethos-u55-64, ethos-u55-128,\n"
          "                        ethos-u55-256, ethos-u65-256, ethos-u65-512 (also\n"
          "                        spelt --npu or --accelerator-config)\n"
          "  --system-config S     the system: a built-in name (Vela's system configs,\n"
          "                        SYSTEM or SYSTEM:MODE), a JSON memory-pool file, or\n"
          "                        with --config a [System_Config.S] section\n"
          "  --memory-mode M       Vela memory mode (built-in, or a [Memory_Mode.M]\n"
          "                        section with --config)\n"
          "  --config FILE.ini     a Vela configuration file (vela.ini)\n", f);
    if (replays)
        fputs("                        Default: the target the model was compiled for\n"
              "                        (npuc records it in the model); flags override it.\n"
              "                        Without a record: the NPU the model's command\n"
              "                        streams need, with its default system\n", f);
    else
        fputs("                        Default: ethos-u55-256\n", f);
    fputs("                        Default systems (docs/system-config.md):\n"
          "                        Ethos_U55_High_End_Embedded:Shared_Sram (U55),\n"
          "                        Ethos_U65_High_End:Dedicated_Sram (U65)\n", f);
}

int cli_target_resolve(const char *cmd, const target_spec *spec, const target_desc *recorded,
                       const eu_variant *model_variant, target_desc *out)
{
    npuc_err err = {0};
    int rc = target_resolve(spec, recorded, model_variant, out, &err);
    if (!rc) return CLI_OK;
    (void)cmd;
    return cli_fail(&err);
}
