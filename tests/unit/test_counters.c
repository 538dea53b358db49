/* warplab bench --counters and --html without a GPU: Nsight Compute's CSV
 * parsed (sums over a launch's kernels, percentages weighted by duration,
 * thousands separators, the units line and the tool's other output
 * skipped), the lessons' predictions judged both ways (borne out, and
 * contradicted when the counters say otherwise), the profiler window asked
 * only on cuda, and the HTML page self-contained with every rung's code and
 * diff. */
#include "../check.h"
#include "lab/counters.h"
#include "lab/show.h"

#include "warplab_lab.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char csv_two_kernels[] =
    "==PROF== Connected to process 1234 (/usr/bin/warplab)\n"
    "warplab 0.1.0 on NVIDIA H100 80GB HBM3 (cuda backend)\n"
    "==PROF== Profiling \"interleaved_kernel\" - 0: 0%....50%....100% - 9 passes\n"
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\","
    "\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
    "\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\","
    "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\","
    "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\","
    "\"lts__t_sector_hit_rate.pct\",\"sm__warps_active.avg.pct_of_peak_sustained_active\","
    "\"smsp__sass_average_branch_targets_threads_uniform.pct\","
    "\"smsp__sass_branch_targets_threads_divergent.sum\"\n"
    "\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"\",\"byte\",\"byte\",\"nsecond\","
    "\"\",\"\",\"%\",\"%\",\"%\",\"\"\n"
    "\"0\",\"1234\",\"warplab\",\"127.0.0.1\",\"void interleaved_kernel<int, OpSum>(const T1 *, T1 "
    "*, unsigned long)\",\"1\",\"13\",\"(512, 1, 1)\",\"(32768, 1, 1)\",\"0\",\"9.0\","
    "\"67,108,864\",\"131,072\",\"300,000\",\"1,000\",\"24\",\"10.5\",\"80\",\"60\",\"5,000\"\n"
    "\"1\",\"1234\",\"warplab\",\"127.0.0.1\",\"void interleaved_kernel<int, OpSum>(const T1 *, T1 "
    "*, unsigned long)\",\"1\",\"13\",\"(512, 1, 1)\",\"(64, 1, 1)\",\"0\",\"9.0\","
    "\"131072\",\"256\",\"100000\",\"0\",\"0\",\"90.5\",\"40\",\"100\",\"n/a\"\n"
    "==PROF== Disconnected from process 1234\n";

/* Real output: `ncu --csv --page raw --print-units base --metrics ...
 * warplab bench reduce --rung strided_index --size 2^20` with the profiler
 * window, Nsight Compute 2025.3.1 on an H100 (3 kernels, one per level; 299
 * columns, the app's own table before the CSV). */
static void test_parse_real_output(void)
{
    char path[4096];
    snprintf(path, sizeof path, "%s", __FILE__);
    char *slash = strrchr(path, '/');
    snprintf(slash ? slash + 1 : path, sizeof path - (size_t)(slash ? slash + 1 - path : 0),
             "data/ncu_h100_strided_index.csv");
    FILE *file = fopen(path, "rb");
    CHECK_MSG(file != NULL, "cannot open %s", path);
    if (!file)
        return;
    static char text[1 << 16];
    const size_t got = fread(text, 1, sizeof text - 1, file);
    fclose(file);
    text[got] = '\0';
    warplab_counters c;
    CHECK(warplab_counters_parse(text, &c) == WARPLAB_OK);
    CHECK(c.kernels == 3);
    CHECK_NEAR(c.dram_read_bytes, 4197632.0 + 11264.0 + 3584.0, 0);
    CHECK_NEAR(c.dram_write_bytes, 0, 0);
    CHECK_NEAR(c.shared_bank_conflicts, 311784.0 + 600 + 150 + 153600 + 300 + 75, 0);
    CHECK_NEAR(c.divergent_branches, 0, 0);
    CHECK_NEAR(c.duration_ns, 11872.0 + 3776 + 3520, 0);
    CHECK_NEAR(c.branch_efficiency_pct, 100.0, 1e-9);
    CHECK_NEAR(c.achieved_occupancy_pct, (86.05 * 11872 + 23.98 * 3776 + 23.97 * 3520) / 19168,
               1e-9);
}

static void test_parse(void)
{
    warplab_counters c;
    CHECK(warplab_counters_parse(csv_two_kernels, &c) == WARPLAB_OK);
    CHECK(c.valid == 1);
    CHECK(c.kernels == 2);
    CHECK_NEAR(c.dram_read_bytes, 67108864.0 + 131072.0, 0);
    CHECK_NEAR(c.dram_write_bytes, 131072.0 + 256.0, 0);
    CHECK_NEAR(c.duration_ns, 400000.0, 0);
    CHECK_NEAR(c.shared_bank_conflicts, 1024.0, 0);
    CHECK_NEAR(c.divergent_branches, 5000.0, 0); /* n/a is no value, not 0 */
    /* Duration-weighted: (10.5 * 3 + 90.5 * 1) / 4. */
    CHECK_NEAR(c.l2_hit_rate_pct, (10.5 * 3e5 + 90.5 * 1e5) / 4e5, 1e-9);
    CHECK_NEAR(c.achieved_occupancy_pct, (80.0 * 3 + 40.0) / 4, 1e-9);
    CHECK_NEAR(c.branch_efficiency_pct, (60.0 * 3 + 100.0) / 4, 1e-9);

    /* Every metric the list names is one the parser reads. */
    const char *metrics = warplab_counters_metrics();
    CHECK(strstr(metrics, "dram__bytes_read.sum") != NULL);
    CHECK(strstr(metrics, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum") != NULL);

    /* A header without one of the metrics: no counters, and which one. */
    char *lacking = strdup(csv_two_kernels);
    char *at = strstr(lacking, "\"lts__t_sector_hit_rate.pct\"");
    memcpy(at + 1, "xxx", 3);
    CHECK(warplab_counters_parse(lacking, &c) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(c.valid == 0);
    CHECK(strstr(c.note, "lts__t_sector_hit_rate.pct") != NULL);
    free(lacking);
    /* A header and no kernel (the window measured nothing). */
    const char *header_end = strstr(csv_two_kernels, "\"0\",\"1234\"");
    char *no_kernel = strndup(csv_two_kernels, (size_t)(header_end - csv_two_kernels));
    CHECK(warplab_counters_parse(no_kernel, &c) == WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(strstr(c.note, "no kernel") != NULL);
    free(no_kernel);
    /* Without the optional lane-use metrics: parsed, those figures NAN. */
    CHECK(warplab_counters_parse(csv_two_kernels, &c) == WARPLAB_OK);
    CHECK(isnan(c.warp_instructions) && isnan(c.active_lanes_pct) &&
          isnan(c.predicated_on_lanes_pct));
    CHECK(c.refused == 0);
    /* The tool's failure text, no CSV at all; the refusal is told apart. */
    CHECK(warplab_counters_parse("==ERROR== ERR_NVGPUCTRPERM\n", &c) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(c.refused == 1 && c.valid == 0);
    CHECK(strstr(c.note, "may not read") != NULL);
    CHECK(warplab_counters_parse("==ERROR== the application returned an error\n", &c) ==
          WARPLAB_ERROR_INVALID_ARGUMENT);
    CHECK(c.refused == 0);
    CHECK(warplab_counters_parse(NULL, &c) == WARPLAB_ERROR_INVALID_ARGUMENT);
}

/* The lane-use metrics: summed over the kernels, then the share of the 32
 * lanes of each warp instruction that was active and predicated on. */
static void test_parse_lanes(void)
{
    static const char csv[] =
        "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\","
        "\"gpu__time_duration.sum\","
        "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum\","
        "\"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum\","
        "\"lts__t_sector_hit_rate.pct\",\"sm__warps_active.avg.pct_of_peak_sustained_active\","
        "\"smsp__sass_average_branch_targets_threads_uniform.pct\","
        "\"smsp__sass_branch_targets_threads_divergent.sum\",\"smsp__inst_executed.sum\","
        "\"smsp__thread_inst_executed.sum\",\"smsp__thread_inst_executed_pred_on.sum\"\n"
        "\"\",\"\",\"byte\",\"byte\",\"nsecond\",\"\",\"\",\"%\",\"%\",\"%\",\"\",\"inst\","
        "\"inst\",\"inst\"\n"
        "\"0\",\"k\",\"100\",\"0\",\"10\",\"0\",\"0\",\"50\",\"50\",\"100\",\"0\","
        "\"1,000\",\"32,000\",\"16,000\"\n"
        "\"1\",\"k\",\"100\",\"0\",\"10\",\"0\",\"0\",\"50\",\"50\",\"100\",\"0\","
        "\"3000\",\"48000\",\"48000\"\n";
    warplab_counters c;
    CHECK(warplab_counters_parse(csv, &c) == WARPLAB_OK);
    CHECK(c.kernels == 2);
    CHECK_NEAR(c.warp_instructions, 4000.0, 0);
    CHECK_NEAR(c.active_lanes_pct, 100.0 * 80000 / (32.0 * 4000), 1e-9);
    CHECK_NEAR(c.predicated_on_lanes_pct, 100.0 * 64000 / (32.0 * 4000), 1e-9);
}

/* A reduce report of one problem: four rungs with counters. */
static warplab_row make_row(const char *rung, double bytes)
{
    warplab_row row;
    memset(&row, 0, sizeof row);
    snprintf(row.ladder, sizeof row.ladder, "reduce");
    snprintf(row.rung, sizeof row.rung, "%s", rung);
    snprintf(row.backend, sizeof row.backend, "cuda");
    snprintf(row.problem, sizeof row.problem, "n=16777216 int32 sum");
    row.bytes = bytes;
    return row;
}

static warplab_counters make_counters(double dram, double conflicts, double divergent)
{
    warplab_counters c;
    memset(&c, 0, sizeof c);
    c.valid = 1;
    c.kernels = 1;
    c.dram_read_bytes = dram;
    c.shared_bank_conflicts = conflicts;
    c.divergent_branches = divergent;
    c.achieved_occupancy_pct = 90;
    c.branch_efficiency_pct = 95;
    c.l2_hit_rate_pct = 10;
    return c;
}

static char *write_counters(const warplab_report *report, const warplab_counters *counters)
{
    char *text = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&text, &len);
    CHECK(warplab_counters_write(report, counters, "Nsight Compute 2025.1", stream) == WARPLAB_OK);
    fclose(stream);
    return text;
}

static void test_predictions(void)
{
    const double moved = 67108864.0;
    warplab_row rows[4] = {make_row("interleaved", moved), make_row("strided_index", moved),
                           make_row("sequential", moved), make_row("single_pass", moved)};
    warplab_report report;
    memset(&report, 0, sizeof report);
    report.rows = rows;
    report.row_count = 4;
    snprintf(report.backend, sizeof report.backend, "cuda");
    /* What the course says: interleaved diverges without conflicts,
     * strided_index conflicts without diverging, sequential neither, and
     * the one-pass kernel reads the input once. */
    warplab_counters c[4] = {make_counters(moved, 0, 90000), make_counters(moved, 500000, 100),
                             make_counters(moved, 0, 100), make_counters(moved * 1.01, 0, 10)};
    c[0].warp_instructions = 1.5e8; /* the modulo's instructions */
    c[1].warp_instructions = 0.75e8;
    size_t judged = 0;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 0);
    CHECK_MSG(judged == 5, "%zu judged", judged);
    char *text = write_counters(&report, c);
    CHECK(strstr(text, "CONTRADICTED") == NULL);
    CHECK(strstr(text, "borne out") != NULL);
    CHECK(strstr(text, "shared-memory bank conflicts") != NULL);
    CHECK(strstr(text, "divergent branches") != NULL);
    CHECK(strstr(text, "Nsight Compute 2025.1") != NULL);
    free(text);
    /* Counters that say otherwise: sequential as conflicted as
     * strided_index, and the one pass reading twice. Flagged, not hidden. */
    c[2].shared_bank_conflicts = 400000;
    c[3].dram_read_bytes = 2 * moved;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 2);
    text = write_counters(&report, c);
    CHECK(strstr(text, "CONTRADICTED") != NULL);
    CHECK(strstr(text, "the counters contradict the lesson") != NULL);
    free(text);
    /* DRAM bytes short of "moved" by output still dirty in L2 at the
     * kernel's end: contradicted all the same (the claim is "within 5%"),
     * and the text says that the shortfall fits in the L2 (measure past
     * it); without an L2 size, or past it, contradicted without that text;
     * within 5%, borne out. */
    c[2].shared_bank_conflicts = 0;
    c[3].dram_read_bytes = 0.5 * moved;
    c[3].dram_write_bytes = 0.35 * moved;
    c[3].l2_cache_bytes = 0.2 * moved;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    text = write_counters(&report, c);
    CHECK(strstr(text, "may reach DRAM after the kernel: measure at a size well past the L2") !=
          NULL);
    free(text);
    c[3].l2_cache_bytes = 0;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    text = write_counters(&report, c);
    CHECK(strstr(text, "may reach DRAM after the kernel") == NULL);
    free(text);
    c[3].l2_cache_bytes = 0.05 * moved;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    c[3].dram_write_bytes = 0.47 * moved;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 0);
    c[3].dram_write_bytes = 0.35 * moved;
    c[3].dram_read_bytes = 0.85 * moved;
    c[3].dram_write_bytes = 0;
    c[3].l2_cache_bytes = 0.2 * moved;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    c[3].dram_read_bytes = moved;
    /* "Fewer than" a rung that had none is not judged (nothing to fall). */
    const size_t before = judged;
    c[0].warp_instructions = 0;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 0);
    CHECK(judged == before - 1);
    c[0].warp_instructions = 1.5e8;
    /* Predicated, not branched: no divergent branch in interleaved is
     * flagged with the hint that points at lanes% and warp inst. */
    c[0].divergent_branches = 0;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    text = write_counters(&report, c);
    CHECK(strstr(text, "compare lanes% and warp inst") != NULL);
    free(text);
    c[0].divergent_branches = 90000;
    /* strided_index with as many instructions as interleaved: contradicted. */
    c[1].warp_instructions = 1.4e8;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    c[1].warp_instructions = 0.75e8;
    /* Unmeasured rows are not judged, and say why. */
    c[1].valid = 0;
    snprintf(c[1].note, sizeof c[1].note, "ncu exit 1: the profiler measured no kernel");
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 0);
    CHECK_MSG(judged == 2, "%zu judged", judged);
    text = write_counters(&report, c);
    CHECK(strstr(text, "the profiler measured no kernel") != NULL);
    free(text);
}

/* Seed 002's bound for the multi-block matrix multiply: 4 bytes a flop
 * from DRAM. Judged from the bytes per flop; the caches' answer (far fewer)
 * is flagged with the hint that names them, and the L2 hit rate shown. */
static void test_gemm_bound(void)
{
    const double flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
    warplab_row rows[2] = {make_row("many_blocks", 3 * 4096.0 * 4096.0 * 4),
                           make_row("tiled16", 3 * 4096.0 * 4096.0 * 4)};
    for (int i = 0; i < 2; i++) {
        snprintf(rows[i].ladder, sizeof rows[i].ladder, "gemm");
        snprintf(rows[i].problem, sizeof rows[i].problem, "4096x4096x4096 float");
        rows[i].flops = flops;
    }
    warplab_report report;
    memset(&report, 0, sizeof report);
    report.rows = rows;
    report.row_count = 2;
    snprintf(report.backend, sizeof report.backend, "cuda");
    /* As the course argues: 4 bytes a flop, and tiling cuts it 16x. */
    warplab_counters c[2] = {make_counters(4.0 * flops, 0, 0), make_counters(0.25 * flops, 0, 0)};
    size_t judged = 0;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 0);
    CHECK_MSG(judged == 2, "%zu judged", judged);
    char *text = write_counters(&report, c);
    CHECK(strstr(text, "= 4.000 bytes a flop (the lesson's 4); L2 hit rate 10.0%") != NULL);
    free(text);
    /* Today's answer: 0.05 bytes a flop at a 95% L2 hit rate. */
    c[0].dram_read_bytes = 0.05 * flops;
    c[0].l2_hit_rate_pct = 95;
    c[1].dram_read_bytes = 0.01 * flops;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 1);
    text = write_counters(&report, c);
    CHECK(strstr(text, "= 0.050 bytes a flop (the lesson's 4); L2 hit rate 95.0%") != NULL);
    CHECK(strstr(text, "the L1 and the L2 serve the repeats") != NULL);
    free(text);
    /* No flop count: not judged. */
    rows[0].flops = 0;
    CHECK(warplab_counters_contradictions(&report, c, &judged) == 0);
    CHECK(judged == 1);
}

static void test_profile_window(void)
{
    warplab_context *context = NULL;
    CHECK(warplab_context_create(WARPLAB_BACKEND_CPU, 0, &context) == WARPLAB_OK);
    setenv(WARPLAB_PROFILE_ENV, "1", 1);
    /* A cpu run with the variable set times as always: no window there. */
    warplab_bench_options options;
    memset(&options, 0, sizeof options);
    options.ladder = "vecadd";
    options.rungs = "cpu_loop";
    options.sizes = "4096";
    options.repeat = 2;
    warplab_report *report = NULL;
    CHECK(warplab_bench(context, &options, &report) == WARPLAB_OK);
    CHECK(report && report->row_count == 1 && report->rows[0].status == WARPLAB_OK);
    unsetenv(WARPLAB_PROFILE_ENV);

    /* The page: self-contained, every rung of the run with its code, the
     * diff against the rung below, the chart, the settings. */
    warplab_report_destroy(report);
    options.ladder = "reduce";
    options.rungs = NULL;
    CHECK(warplab_bench(context, &options, &report) == WARPLAB_OK);
    char *page = NULL;
    size_t len = 0;
    FILE *stream = open_memstream(&page, &len);
    CHECK(warplab_report_write_html(report, NULL, "warplab bench reduce --html x", stream) ==
          WARPLAB_OK);
    fclose(stream);
    CHECK(strncmp(page, "<!DOCTYPE html>", 15) == 0);
    CHECK(strstr(page, "</html>") != NULL);
    CHECK(strstr(page, "<svg") != NULL);
    CHECK(strstr(page, "warplab bench reduce --html x") != NULL);
    CHECK(strstr(page, "<script") == NULL);
    /* Nothing fetched: the only URL is the SVG namespace. */
    for (const char *p = page; (p = strstr(p, "http")) != NULL; p++)
        CHECK_MSG(strncmp(p, "http://www.w3.org/2000/svg", 26) == 0, "%.60s", p);
    for (size_t i = 0; i < report->row_count; i++) {
        char id[128];
        snprintf(id, sizeof id, "id=\"reduce-%s\"", report->rows[i].rung);
        CHECK_MSG(strstr(page, id) != NULL, "no %s", id);
    }
    /* cpu_threads's code and its diff against cpu_loop (on the cpu backend). */
    CHECK(strstr(page, "diff against cpu_loop") != NULL);
    CHECK(strstr(page, "<span class=\"add\">") != NULL);
    size_t open = 0, close = 0;
    for (const char *p = page; (p = strstr(p, "<details")) != NULL; p++)
        open++;
    for (const char *p = page; (p = strstr(p, "</details>")) != NULL; p++)
        close++;
    CHECK_MSG(open == close && open > 0, "%zu <details>, %zu </details>", open, close);
    /* A handout: every rung's lesson shown, not folded away. */
    for (const char *p = page; (p = strstr(p, "<details class=\"rung\"")) != NULL; p++) {
        const char *end = strchr(p, '>');
        CHECK_MSG(end && strstr(p, " open") && strstr(p, " open") < end, "folded: %.60s", p);
    }
    /* Each code region once: shared helpers at the section's top, each
     * rung its own. */
    size_t regions = 0;
    for (const char *p = page; (p = strstr(p, "<pre class=\"code\">// ")) != NULL; p++) {
        const char *line = p + strlen("<pre class=\"code\">");
        const size_t line_len = strcspn(line, "\n");
        regions++;
        size_t seen = 0;
        for (const char *q = page; (q = strstr(q, "<pre class=\"code\">// ")) != NULL; q++)
            seen += strncmp(q + strlen("<pre class=\"code\">"), line, line_len + 1) == 0;
        CHECK_MSG(seen == 1, "%.*s printed %zu times", (int)line_len, line, seen);
    }
    CHECK(regions > 0);
    CHECK(strstr(page, "Code the rungs below share") != NULL);
    /* A bandwidth ceiling only where one is known. */
    if (report->ceiling_gbs > 0)
        CHECK(strstr(page, "bandwidth ceiling") != NULL);
    else
        CHECK_MSG(strstr(page, "bandwidth ceiling") == NULL, "a ceiling of %g GB/s shown",
                  report->ceiling_gbs);
    free(page);
    warplab_report_destroy(report);
    warplab_context_destroy(context);
}

int main(void)
{
    test_parse();
    test_parse_lanes();
    test_parse_real_output();
    test_predictions();
    test_gemm_bound();
    test_profile_window();
    return check_report("test_counters");
}
