/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_prims' output: the table, the CSV file and the targets' verdicts. */
#include "report.h"
#include "targets.h"

#include <cstring>

/* ---- table and CSV ------------------------------------------------------------------ */

static CsvFile g_csv;

void open_csv(const std::string &path)
{
    g_csv.open(path, "op,size,ours_ms,ours_GBps,ours_frac_of_copy,anchor_name,anchor_ms,anchor_GBps,ratio,status,"
                     "bytes,ours_min_ms,anchor_min_ms,samples,batch,note");
}

void commit_csv() { g_csv.commit(); }

static double frac_of_copy(const Row &r) { return g_copy_gbps > 0 ? gbps(r.bytes, r.ours.med_ms) / g_copy_gbps : 0.0; }

void write_csv_row(const Row &r)
{
    std::string anc = ",,,", anc_min = ",";
    if (r.has_anchor) {
        anc = strf("%.6g,%.6g,%.4f,", r.anc.med_ms, gbps(r.bytes, r.anc.med_ms), r.anc.med_ms / r.ours.med_ms);
        anc_min = strf("%.6g,", r.anc.min_ms);
    }
    g_csv.row("%s,%s,%.6g,%.6g,%.4f,%s,%s%s,%.0f,%.6g,%s%d,%d,%s\n", csv_field(r.op).c_str(),
              csv_field(r.size).c_str(), r.ours.med_ms, gbps(r.bytes, r.ours.med_ms), frac_of_copy(r),
              csv_field(r.anchor).c_str(), anc.c_str(), r.status.c_str(), r.bytes, r.ours.min_ms, anc_min.c_str(),
              r.ours.samples, r.ours.batch, csv_field(r.note).c_str());
}

void print_header_line()
{
    printf("%-13s %-20s %10s %9s %6s  %-28s %10s %9s %7s %-4s  %s\n", "op", "size", "ours_ms", "ours_GBps", "frac",
           "anchor_name", "anchor_ms", "anch_GBps", "ratio", "chk", "note");
}

void print_row(const Row &r)
{
    std::string anc_ms = "-", anc_g = "-", ratio = "-";
    if (r.has_anchor) {
        anc_ms = strf("%.4g", r.anc.med_ms);
        anc_g = strf("%.0f", gbps(r.bytes, r.anc.med_ms));
        ratio = strf("%.3f", r.anc.med_ms / r.ours.med_ms);
    }
    printf("%-13s %-20s %10.4g %9.0f %6.3f  %-28s %10s %9s %7s %-4s  %s\n", r.op.c_str(), r.size.c_str(),
           r.ours.med_ms, gbps(r.bytes, r.ours.med_ms), frac_of_copy(r), r.anchor.c_str(), anc_ms.c_str(),
           anc_g.c_str(), ratio.c_str(), r.status.c_str(), r.note.c_str());
}

/* ---- targets ---------------------------------------------------------------------------- */

static bool key_matches(const Target &t, const Row &r)
{
    size_t len = strlen(t.size);
    bool size_ok = len && t.size[len - 1] == '*' ? r.size.compare(0, len - 1, t.size, len - 1) == 0 : r.size == t.size;
    return r.op == t.op && size_ok && r.variant == t.variant && r.anchor.rfind(t.anchor, 0) == 0;
}

/* "CUB", "cuBLAS", "naive": the anchor as the verdict names it. */
static std::string anchor_label(const Row &r)
{
    if (r.anchor.rfind("cublas", 0) == 0)
        return "cuBLAS";
    if (r.anchor.rfind("cub::", 0) == 0)
        return "CUB";
    return r.anchor.substr(0, r.anchor.find(' '));
}

static std::string time_str(double ms) { return ms < 0.1 ? strf("%.2f us", ms * 1e3) : strf("%.3f ms", ms); }

/* "scan 2^28: >= 90% of copy", and what the row measured against it. */
static void describe(const Target &t, const Row &r, std::string *what, std::string *got, bool *met)
{
    const double frac = frac_of_copy(r), ratio = r.has_anchor ? r.anc.med_ms / r.ours.med_ms : 0.0;
    const std::string label = anchor_label(r);
    std::string key = r.op + " " + r.size + (r.variant.empty() ? "" : " (" + r.variant + ")");
    switch (t.goal) {
    case Goal::FracOfCopy:
        *what = strf("%s: >= %.0f%% of copy", key.c_str(), 100 * t.bound);
        *got = strf("%.1f%% of copy, %.3fx %s", 100 * frac, ratio, label.c_str());
        *met = frac >= t.bound;
        break;
    case Goal::RatioAtLeast:
        *what = strf("%s: >= %.2fx %s", key.c_str(), t.bound, label.c_str());
        *got = strf("%.3fx %s (ours %s, %s %s)", ratio, label.c_str(), time_str(r.ours.med_ms).c_str(),
                    label.c_str(), time_str(r.anc.med_ms).c_str());
        *met = ratio >= t.bound;
        break;
    case Goal::MsAtMost:
        *what = strf("%s: <= %g ms", key.c_str(), t.bound);
        *got = strf("%.3f ms, %.3fx %s", r.ours.med_ms, ratio, label.c_str());
        *met = r.ours.med_ms <= t.bound;
        break;
    }
}

static void print_verdicts(const Row &r, const char *prefix)
{
    for (const Target &t : kTargets) {
        if (!key_matches(t, r))
            continue;
        std::string what, got;
        bool met = false;
        describe(t, r, &what, &got, &met);
        printf("%s%-44s %-52s %s\n", prefix, what.c_str(), got.c_str(),
               r.status == "FAIL" ? "FAIL (wrong result)" : met ? "met" : "NOT met");
    }
}

void print_row_targets(const Row &r)
{
    if (!g_opt.quick && g_copy_gbps > 0)
        print_verdicts(r, "    target ");
}

void print_targets(const std::vector<Row> &rows)
{
    if (g_opt.quick || g_copy_gbps <= 0)
        return;
    printf("\n==== targets (bench/targets.h; ratio = anchor_ms / ours_ms) ====\n");
    for (const Row &r : rows)
        print_verdicts(r, "  ");
}
