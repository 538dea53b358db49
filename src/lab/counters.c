/* Hardware counters beside the lessons (warplab bench --counters): the
 * profiler window the harness opens, the parser of Nsight Compute's CSV,
 * and the counters table with each lesson's prediction and its verdict.
 * Running ncu is the command line's (cli/counters_run.c): the library never
 * starts processes. */
#include "counters.h"

#include "warplab_lab.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

bool wl_profile_requested(const wl_backend *backend)
{
    const char *asked = getenv(WARPLAB_PROFILE_ENV);
    return backend->ops->kind == WARPLAB_BACKEND_CUDA && asked && strcmp(asked, "1") == 0;
}

warplab_status wl_profile_window(wl_backend *backend, int open)
{
#ifdef WARPLAB_HAVE_CUDA
    if (backend->ops->kind == WARPLAB_BACKEND_CUDA)
        return wl_cuda_profile_window(backend, open);
#endif
    (void)open;
    return wl_fail(backend, WARPLAB_ERROR_UNSUPPORTED, "no profiler window on the %s backend",
                   backend->ops->name);
}

const char *warplab_ladder_default_sizes(const char *ladder_name, int gpu)
{
    const wl_ladder *ladder = ladder_name ? wl_ladder_find(ladder_name) : NULL;
    if (!ladder)
        return NULL;
    return gpu ? ladder->default_sizes_gpu : ladder->default_sizes_cpu;
}

/* ------------------------------------------------------------------------ */
/* Nsight Compute's CSV                                                     */

enum {
    M_DURATION,
    M_DRAM_READ,
    M_DRAM_WRITE,
    M_CONFLICTS_LD,
    M_CONFLICTS_ST,
    M_OCCUPANCY,
    M_BRANCH_EFFICIENCY,
    M_DIVERGENT,
    M_L2_HIT,
    M_WARP_INSTRUCTIONS,
    M_THREAD_INSTRUCTIONS,
    M_THREAD_INSTRUCTIONS_PRED_ON,
    METRIC_COUNT
};
/* The metrics from here on are optional: a CSV without them (an older
 * capture, another tool version) still parses, their figures NAN. */
#define FIRST_OPTIONAL_METRIC M_WARP_INSTRUCTIONS

static const char *const metric_names[METRIC_COUNT] = {
    "gpu__time_duration.sum",
    "dram__bytes_read.sum",
    "dram__bytes_write.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sm__warps_active.avg.pct_of_peak_sustained_active",
    "smsp__sass_average_branch_targets_threads_uniform.pct",
    "smsp__sass_branch_targets_threads_divergent.sum",
    "lts__t_sector_hit_rate.pct",
    "smsp__inst_executed.sum",
    "smsp__thread_inst_executed.sum",
    "smsp__thread_inst_executed_pred_on.sum",
};

const char *warplab_counters_metrics(void)
{
    static char list[1024];
    if (!list[0]) {
        size_t used = 0;
        for (int i = 0; i < METRIC_COUNT; i++)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? "," : "",
                                     metric_names[i]);
    }
    return list;
}

/* Splits one CSV line into fields (quotes removed, "" inside quotes kept as
 * one quote); returns how many, at most capacity. */
#define MAX_FIELDS 1024
#define FIELD_LEN 256
static int csv_fields(const char *line, size_t len, char fields[][FIELD_LEN], int capacity)
{
    int count = 0;
    size_t i = 0;
    while (i <= len && count < capacity) {
        size_t used = 0;
        bool quoted = i < len && line[i] == '"';
        if (quoted)
            i++;
        while (i < len) {
            if (quoted && line[i] == '"') {
                if (i + 1 < len && line[i + 1] == '"') {
                    i++;
                } else {
                    i++;
                    quoted = false;
                    continue;
                }
            } else if (!quoted && line[i] == ',') {
                break;
            }
            if (used + 1 < FIELD_LEN)
                fields[count][used++] = line[i];
            i++;
        }
        fields[count][used] = '\0';
        count++;
        i++; /* past the comma */
    }
    return count;
}

/* A number as ncu writes it ("1,234.5", "1234.5", "n/a"): NAN when none. */
static double csv_number(const char *text)
{
    char digits[FIELD_LEN];
    size_t used = 0;
    for (const char *p = text; *p && used + 1 < sizeof digits; p++)
        if (*p != ',' && !isspace((unsigned char)*p))
            digits[used++] = *p;
    digits[used] = '\0';
    char *end = NULL;
    const double value = strtod(digits, &end);
    return used && end && *end == '\0' ? value : NAN;
}

static void counters_fail(warplab_counters *counters, const char *why)
{
    counters->valid = 0;
    wl_copy_string(counters->note, sizeof counters->note, why);
}

warplab_status warplab_counters_parse(const char *csv, warplab_counters *counters)
{
    if (!counters)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    memset(counters, 0, sizeof *counters);
    if (!csv) {
        counters_fail(counters, "no profiler output");
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (strstr(csv, "ERR_NVGPUCTRPERM") || strstr(csv, "permission to access")) {
        counters_fail(counters, "the user may not read the GPU's performance counters "
                                "(ERR_NVGPUCTRPERM)");
        counters->refused = 1;
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    static char fields[MAX_FIELDS][FIELD_LEN];
    int column[METRIC_COUNT];
    for (int m = 0; m < METRIC_COUNT; m++)
        column[m] = -1;
    bool header = false;
    double sums[METRIC_COUNT] = {0};
    double weight = 0.0;
    for (const char *p = csv; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (len && p[len - 1] == '\r')
            len--;
        const int count = csv_fields(p, len, fields, MAX_FIELDS);
        p = nl ? nl + 1 : NULL;
        if (!header) {
            /* The header: "ID","Process ID",...,"Kernel Name",...,metrics. */
            if (count < 2 || strcmp(fields[0], "ID") != 0)
                continue;
            for (int c = 0; c < count; c++)
                for (int m = 0; m < METRIC_COUNT; m++)
                    if (strcmp(fields[c], metric_names[m]) == 0)
                        column[m] = c;
            for (int m = 0; m < FIRST_OPTIONAL_METRIC; m++)
                if (column[m] < 0) {
                    char why[160];
                    wl_format(why, sizeof why, "the profiler's output lacks %s", metric_names[m]);
                    counters_fail(counters, why);
                    return WARPLAB_ERROR_INVALID_ARGUMENT;
                }
            header = true;
            continue;
        }
        /* The units line has no ID; a kernel's line starts with its number. */
        if (count < 2 || !isdigit((unsigned char)fields[0][0]))
            continue;
        double value[METRIC_COUNT];
        for (int m = 0; m < METRIC_COUNT; m++)
            value[m] = column[m] >= 0 && column[m] < count ? csv_number(fields[column[m]]) : NAN;
        const double duration = isfinite(value[M_DURATION]) ? value[M_DURATION] : 0.0;
        for (int m = 0; m < METRIC_COUNT; m++) {
            if (!isfinite(value[m]))
                continue;
            const bool percentage = m == M_OCCUPANCY || m == M_BRANCH_EFFICIENCY || m == M_L2_HIT;
            sums[m] += percentage ? value[m] * duration : value[m];
        }
        weight += duration;
        counters->kernels++;
    }
    if (!header) {
        counters_fail(counters, "no counters in the profiler's output");
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    if (counters->kernels == 0) {
        counters_fail(counters, "the profiler measured no kernel");
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    }
    counters->valid = 1;
    counters->duration_ns = sums[M_DURATION];
    counters->dram_read_bytes = sums[M_DRAM_READ];
    counters->dram_write_bytes = sums[M_DRAM_WRITE];
    counters->shared_bank_conflicts = sums[M_CONFLICTS_LD] + sums[M_CONFLICTS_ST];
    counters->divergent_branches = sums[M_DIVERGENT];
    counters->achieved_occupancy_pct = weight > 0 ? sums[M_OCCUPANCY] / weight : NAN;
    counters->branch_efficiency_pct = weight > 0 ? sums[M_BRANCH_EFFICIENCY] / weight : NAN;
    counters->l2_hit_rate_pct = weight > 0 ? sums[M_L2_HIT] / weight : NAN;
    const bool lanes = column[M_WARP_INSTRUCTIONS] >= 0 && sums[M_WARP_INSTRUCTIONS] > 0;
    counters->warp_instructions =
        column[M_WARP_INSTRUCTIONS] >= 0 ? sums[M_WARP_INSTRUCTIONS] : NAN;
    counters->active_lanes_pct =
        lanes && column[M_THREAD_INSTRUCTIONS] >= 0
            ? 100.0 * sums[M_THREAD_INSTRUCTIONS] / (32.0 * sums[M_WARP_INSTRUCTIONS])
            : NAN;
    counters->predicated_on_lanes_pct =
        lanes && column[M_THREAD_INSTRUCTIONS_PRED_ON] >= 0
            ? 100.0 * sums[M_THREAD_INSTRUCTIONS_PRED_ON] / (32.0 * sums[M_WARP_INSTRUCTIONS])
            : NAN;
    return WARPLAB_OK;
}

/* ------------------------------------------------------------------------ */
/* What each lesson predicts                                                 */

typedef enum counter_id {
    COUNTER_DRAM,
    COUNTER_CONFLICTS,
    COUNTER_OCCUPANCY,
    COUNTER_BRANCH_EFFICIENCY,
    COUNTER_DIVERGENT,
    COUNTER_L2_HIT,
    COUNTER_WARP_INSTRUCTIONS
} counter_id;

typedef enum relation {
    FEWER,       /* at most factor x the other rung's */
    MORE,        /* at least factor x the other rung's, and above zero */
    NONZERO,     /* above zero */
    NEAR_MOVED,  /* DRAM bytes within factor (a fraction) of the rung's "moved" */
    ABOVE_MOVED, /* DRAM bytes at least factor x "moved" */
    PER_FLOP     /* DRAM bytes a flop at least half of factor (a bound's bytes a flop) */
} relation;

typedef struct prediction {
    const char *ladder;
    const char *rung; /* NULL: the ladder's best rung */
    counter_id counter;
    relation rel;
    const char *than; /* FEWER, MORE: the rung compared with */
    double factor;
    const char *claim; /* the lesson's words */
    const char *hint;  /* what a contradiction may mean, or NULL */
} prediction;

static const prediction predictions[] = {
    {"vecadd", "grid_stride", COUNTER_DRAM, NEAR_MOVED, NULL, 0.05,
     "every element read and written once", NULL},
    {"vecadd", NULL, COUNTER_DRAM, NEAR_MOVED, NULL, 0.05,
     "the library's pick moves only the bytes it must", NULL},
    {"reduce", "interleaved", COUNTER_DIVERGENT, NONZERO, NULL, 0,
     "tid % (2s) == 0: the lanes of a warp take different paths (divergence)",
     "a short if is often compiled to predicated instructions: the idle lanes are then "
     "predicated off, no divergent branch is counted, and the rungs that follow predicate "
     "their bodies too (compare lanes% and warp inst)"},
    /* What separates interleaved from strided_index where the compiler
     * predicates both bodies (sm_90, nvcc 13: @P LDS/STS in both): the
     * modulo by a variable, some ten instructions per level in every warp. */
    {"reduce", "strided_index", COUNTER_WARP_INSTRUCTIONS, FEWER, "interleaved", 0.7,
     "index = 2*s*tid replaces tid % (2s): the same tree in fewer instructions", NULL},
    {"reduce", "strided_index", COUNTER_CONFLICTS, MORE, "interleaved", 2.0,
     "a warp's addresses 2*s*tid fall into few banks (bank conflicts)", NULL},
    {"reduce", "sequential", COUNTER_CONFLICTS, FEWER, "strided_index", 0.1,
     "sequential addressing: a warp reads 32 consecutive words, no bank conflicts", NULL},
    {"reduce", NULL, COUNTER_DRAM, NEAR_MOVED, NULL, 0.05,
     "one pass: the input read once, from DRAM", NULL},
    {"transpose", "naive", COUNTER_DRAM, ABOVE_MOVED, NULL, 1.1,
     "a warp's writes go to 32 different output rows, one transaction each",
     "the L2 merges the partial sectors of neighbouring warps before they reach DRAM: the "
     "cost is in L1/L2 transactions, not in DRAM bytes"},
    {"transpose", "tiled", COUNTER_CONFLICTS, MORE, "naive", 2.0,
     "reading a tile column hits one bank 32 times: bank conflicts", NULL},
    {"transpose", "padded", COUNTER_CONFLICTS, FEWER, "tiled", 0.05,
     "[32][33]: a tile column spans all 32 banks, the conflicts are gone", NULL},
    {"transpose", "vectorized", COUNTER_DRAM, NEAR_MOVED, NULL, 0.05,
     "a warp's accesses fill whole 32-byte sectors", NULL},
    {"transpose", NULL, COUNTER_DRAM, NEAR_MOVED, NULL, 0.05,
     "the best rung moves 2 x the matrix and nothing more", NULL},
    /* Seed 002's bound: each multiply-add loads an element of M and one of N
     * from global memory. Past it on today's GPUs (the gemm conclusion);
     * the counters show where the loads went. */
    {"gemm", "many_blocks", COUNTER_DRAM, PER_FLOP, NULL, 4.0,
     "bound by global memory: two 4-byte loads per multiply-add, 4 bytes a flop from DRAM",
     "the threads of a block load the same rows of M and columns of N: the L1 and the L2 serve "
     "the repeats (L2 hit rate), so DRAM moves a fraction of the course's 4 bytes a flop and "
     "the kernel runs past bandwidth / 4"},
    {"gemm", "tiled16", COUNTER_DRAM, FEWER, "many_blocks", 0.5,
     "tiling cuts global traffic by TILE_WIDTH", NULL},
    {"gemm", "conflict_free", COUNTER_CONFLICTS, FEWER, "vectorized", 0.5,
     "A stored transposed and padded: no bank conflicts", NULL},
};

static const char *counter_name(counter_id counter)
{
    switch (counter) {
    case COUNTER_DRAM: return "DRAM bytes";
    case COUNTER_CONFLICTS: return "shared-memory bank conflicts";
    case COUNTER_OCCUPANCY: return "achieved occupancy";
    case COUNTER_BRANCH_EFFICIENCY: return "branch efficiency";
    case COUNTER_DIVERGENT: return "divergent branches";
    case COUNTER_L2_HIT: return "L2 hit rate";
    case COUNTER_WARP_INSTRUCTIONS: return "warp instructions executed";
    }
    return "?";
}

static double counter_value(const warplab_counters *c, counter_id counter)
{
    switch (counter) {
    case COUNTER_DRAM: return c->dram_read_bytes + c->dram_write_bytes;
    case COUNTER_CONFLICTS: return c->shared_bank_conflicts;
    case COUNTER_OCCUPANCY: return c->achieved_occupancy_pct;
    case COUNTER_BRANCH_EFFICIENCY: return c->branch_efficiency_pct;
    case COUNTER_DIVERGENT: return c->divergent_branches;
    case COUNTER_L2_HIT: return c->l2_hit_rate_pct;
    case COUNTER_WARP_INSTRUCTIONS: return c->warp_instructions;
    }
    return NAN;
}

/* The row of rung in [first, end) of the report, or -1. */
static long find_row(const warplab_report *report, size_t first, size_t end, const char *rung)
{
    for (size_t i = first; i < end; i++)
        if (strcmp(report->rows[i].rung, rung) == 0)
            return (long)i;
    return -1;
}

typedef enum verdict { NOT_JUDGED, BORNE_OUT, CONTRADICTED } verdict;

/* Judges one prediction over a group of rows (one ladder, one problem);
 * writes what was measured to text. */
static verdict judge(const prediction *p, const char *rung, const warplab_report *report,
                     const warplab_counters *counters, size_t first, size_t end, char *text,
                     size_t len)
{
    text[0] = '\0';
    const long row = find_row(report, first, end, rung);
    if (row < 0 || !counters[row].valid) {
        wl_format(text, len, "not measured");
        return NOT_JUDGED;
    }
    const double value = counter_value(&counters[row], p->counter);
    if (!isfinite(value)) {
        wl_format(text, len, "no value");
        return NOT_JUDGED;
    }
    const double moved = report->rows[row].bytes;
    switch (p->rel) {
    case NONZERO: wl_format(text, len, "%.4g", value); return value > 0 ? BORNE_OUT : CONTRADICTED;
    case NEAR_MOVED:
    case ABOVE_MOVED:
        if (!(moved > 0)) {
            wl_format(text, len, "no moved count");
            return NOT_JUDGED;
        }
        {
            const warplab_counters *c = &counters[row];
            const double l2 = c->l2_cache_bytes > 0 ? c->l2_cache_bytes : 0.0;
            wl_format(text, len, "%.4g MB (read %.4g, written %.4g) = %.3f x moved (%.4g MB)",
                      value / 1e6, c->dram_read_bytes / 1e6, c->dram_write_bytes / 1e6,
                      value / moved, moved / 1e6);
            if (p->rel == ABOVE_MOVED)
                return value >= p->factor * moved ? BORNE_OUT : CONTRADICTED;
            /* Output still dirty in L2 at the kernel's end reaches DRAM after
             * it: up to the L2's size may be missing from the writes. The
             * verdict stays strict (within the factor); the text says when
             * the shortfall fits in the L2, so that the reader measures again
             * at a size well past it. */
            const double low = moved * (1.0 - p->factor);
            if (l2 > 0 && c->dram_write_bytes > 0 && value < low && value >= low - l2) {
                const size_t used = strlen(text);
                wl_format(text + used, len - used,
                          "; short by less than the L2's %.4g MB of output, which may reach DRAM "
                          "after the kernel: measure at a size well past the L2",
                          l2 / 1e6);
            }
            return value >= low && value <= moved * (1.0 + p->factor) ? BORNE_OUT : CONTRADICTED;
        }
    case PER_FLOP: {
        const double flops = report->rows[row].flops;
        if (!(flops > 0)) {
            wl_format(text, len, "no flop count");
            return NOT_JUDGED;
        }
        const warplab_counters *c = &counters[row];
        wl_format(text, len, "%.4g MB for %.4g GFLOP = %.3f bytes a flop (the lesson's %.3g)",
                  value / 1e6, flops / 1e9, value / flops, p->factor);
        if (isfinite(c->l2_hit_rate_pct)) {
            const size_t used = strlen(text);
            wl_format(text + used, len - used, "; L2 hit rate %.1f%%", c->l2_hit_rate_pct);
        }
        return value / flops >= 0.5 * p->factor ? BORNE_OUT : CONTRADICTED;
    }
    case FEWER:
    case MORE: {
        const long other = find_row(report, first, end, p->than);
        if (other < 0 || !counters[other].valid) {
            wl_format(text, len, "%.4g; %s not measured", value, p->than);
            return NOT_JUDGED;
        }
        const double base = counter_value(&counters[other], p->counter);
        if (!isfinite(base)) {
            wl_format(text, len, "%.4g; %s has no value", value, p->than);
            return NOT_JUDGED;
        }
        wl_format(text, len, "%.4g against %.4g for %s", value, base, p->than);
        if (p->rel == FEWER && !(base > 0)) {
            const size_t used = strlen(text);
            wl_format(text + used, len - used, ": nothing to fall from");
            return NOT_JUDGED;
        }
        if (p->rel == FEWER)
            return value <= p->factor * base ? BORNE_OUT : CONTRADICTED;
        return value > 0 && value >= p->factor * base ? BORNE_OUT : CONTRADICTED;
    }
    }
    return NOT_JUDGED;
}

static const char *relation_words(const prediction *p, char *text, size_t len)
{
    switch (p->rel) {
    case FEWER: wl_format(text, len, "at most %.3g x %s's", p->factor, p->than); break;
    case MORE: wl_format(text, len, "at least %.3g x %s's", p->factor, p->than); break;
    case NONZERO: wl_format(text, len, "above zero"); break;
    case NEAR_MOVED:
        wl_format(text, len, "the rung's moved bytes within %.0f%%", 100 * p->factor);
        break;
    case ABOVE_MOVED: wl_format(text, len, "at least %.3g x the moved bytes", p->factor); break;
    case PER_FLOP:
        wl_format(text, len, "near %.3g bytes a flop (at least half of it)", p->factor);
        break;
    }
    return text;
}

/* The groups of a report: each ladder's first problem (what --counters
 * measures). Calls visit(first, end) per group. */
typedef struct group_range {
    size_t first, end;
} group_range;

static size_t first_problem_groups(const warplab_report *report, group_range *groups)
{
    size_t count = 0;
    for (size_t i = 0; i < report->row_count;) {
        size_t end = i + 1;
        while (end < report->row_count &&
               strcmp(report->rows[end].ladder, report->rows[i].ladder) == 0)
            end++;
        /* Within the ladder: the rows of its first problem. */
        size_t stop = i;
        while (stop < end && strcmp(report->rows[stop].problem, report->rows[i].problem) == 0)
            stop++;
        /* Host rows may carry the same problem text; rows are in problem order. */
        groups[count++] = (group_range){i, stop};
        i = end;
    }
    return count;
}

/* Room for every group of the report (at most one a row), or NULL. */
static group_range *alloc_groups(const warplab_report *report)
{
    return calloc(report->row_count ? report->row_count : 1, sizeof(group_range));
}

static const char *prediction_rung(const prediction *p)
{
    if (p->rung)
        return p->rung;
    const wl_ladder *ladder = wl_ladder_find(p->ladder);
    return ladder ? ladder->best_rung : "";
}

size_t warplab_counters_contradictions(const warplab_report *report,
                                       const warplab_counters *counters, size_t *judged)
{
    size_t contradicted = 0, count = 0;
    group_range *groups = alloc_groups(report);
    const size_t group_count = groups ? first_problem_groups(report, groups) : 0;
    for (size_t g = 0; g < group_count; g++)
        for (size_t k = 0; k < sizeof predictions / sizeof predictions[0]; k++) {
            const prediction *p = &predictions[k];
            if (strcmp(p->ladder, report->rows[groups[g].first].ladder) != 0)
                continue;
            char text[320];
            const verdict v = judge(p, prediction_rung(p), report, counters, groups[g].first,
                                    groups[g].end, text, sizeof text);
            count += v != NOT_JUDGED;
            contradicted += v == CONTRADICTED;
        }
    free(groups);
    if (judged)
        *judged = count;
    return contradicted;
}

static void format_number(char *text, size_t len, double value, const char *format)
{
    if (isfinite(value))
        wl_format(text, len, format, value);
    else
        wl_format(text, len, "-");
}

warplab_status warplab_counters_write(const warplab_report *report,
                                      const warplab_counters *counters, const char *tool,
                                      FILE *stream)
{
    if (!report || !counters || !stream)
        return WARPLAB_ERROR_INVALID_ARGUMENT;
    group_range *groups = alloc_groups(report);
    if (!groups)
        return WARPLAB_ERROR_HOST_OUT_OF_MEMORY;
    const size_t group_count = first_problem_groups(report, groups);
    for (size_t g = 0; g < group_count; g++) {
        const warplab_row *head = &report->rows[groups[g].first];
        fprintf(stream,
                "\n%s, %s: hardware counters of one launch of each rung (%s; caches flushed "
                "before each kernel)\n",
                head->ladder, head->problem, tool && *tool ? tool : "Nsight Compute");
        fprintf(stream, "%-20s %9s %9s %9s %7s %11s %7s %7s %9s %9s %6s %7s %4s\n", "rung",
                "moved MB", "DRAM rd", "DRAM wr", "x moved", "bank confl.", "occup%", "branch%",
                "divergent", "warp inst", "lanes%", "L2 hit%", "krn");
        for (size_t i = groups[g].first; i < groups[g].end; i++) {
            const warplab_row *row = &report->rows[i];
            const warplab_counters *c = &counters[i];
            if (!c->valid) {
                if (!(row->flags & WARPLAB_ROW_SKIPPED))
                    fprintf(stream, "%-20s %9.2f  %s\n", row->rung, row->bytes / 1e6,
                            c->note[0] ? c->note : "not measured");
                continue;
            }
            const double dram = c->dram_read_bytes + c->dram_write_bytes;
            char ratio[16], occupancy[16], branch[16], l2[16], instructions[16], lanes[16];
            format_number(ratio, sizeof ratio, row->bytes > 0 ? dram / row->bytes : NAN, "%.3f");
            format_number(occupancy, sizeof occupancy, c->achieved_occupancy_pct, "%.1f");
            format_number(branch, sizeof branch, c->branch_efficiency_pct, "%.1f");
            format_number(l2, sizeof l2, c->l2_hit_rate_pct, "%.1f");
            format_number(instructions, sizeof instructions, c->warp_instructions, "%.4g");
            format_number(lanes, sizeof lanes, c->predicated_on_lanes_pct, "%.1f");
            fprintf(stream, "%-20s %9.2f %9.2f %9.2f %7s %11.0f %7s %7s %9.0f %9s %6s %7s %4d\n",
                    row->rung, row->bytes / 1e6, c->dram_read_bytes / 1e6,
                    c->dram_write_bytes / 1e6, ratio, c->shared_bank_conflicts, occupancy, branch,
                    c->divergent_branches, instructions, lanes, l2, c->kernels);
        }
        bool any = false;
        for (size_t k = 0; k < sizeof predictions / sizeof predictions[0]; k++) {
            const prediction *p = &predictions[k];
            if (strcmp(p->ladder, head->ladder) != 0)
                continue;
            if (!any)
                fprintf(stream, "\nwhat the %s lessons predict the counters show:\n", head->ladder);
            any = true;
            char measured[320], relation_text[96];
            const char *rung = prediction_rung(p);
            const verdict v = judge(p, rung, report, counters, groups[g].first, groups[g].end,
                                    measured, sizeof measured);
            fprintf(stream, "  %-12s %s: %s %s\n      \"%s\"\n      measured: %s -> %s\n%s%s%s",
                    v == CONTRADICTED ? "CONTRADICTED"
                    : v == BORNE_OUT  ? "borne out"
                                      : "not judged",
                    rung, counter_name(p->counter),
                    relation_words(p, relation_text, sizeof relation_text), p->claim, measured,
                    v == CONTRADICTED ? "the counters contradict the lesson"
                    : v == BORNE_OUT  ? "as the lesson says"
                                      : "cannot tell",
                    v == CONTRADICTED && p->hint ? "      (" : "",
                    v == CONTRADICTED && p->hint ? p->hint : "",
                    v == CONTRADICTED && p->hint ? ")\n" : "");
        }
    }
    free(groups);
    return WARPLAB_OK;
}
