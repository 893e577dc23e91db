/* SPDX-License-Identifier: BSD-3-Clause */
/* bench_prims' output: the table on stdout, the CSV file, the targets. */
#pragma once

#include "harness.cuh"

void open_csv(const std::string &path);
/* Close the CSV and rename it into place (dies if it cannot). */
void commit_csv();
void write_csv_row(const Row &r);

void print_header_line();
void print_row(const Row &r);

/* The verdict of each target (targets.h) that judges row r, one line each;
 * nothing in --quick runs. */
void print_row_targets(const Row &r);
/* Every judged target again, after the summary table (full runs only). */
void print_targets(const std::vector<Row> &rows);
