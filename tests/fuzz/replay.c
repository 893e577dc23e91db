/* SPDX-License-Identifier: BSD-3-Clause */
/* replay.c - replays a fuzz target's corpus without libFuzzer (built with
 * the ordinary compiler, registered as a ctest test per target): every
 * file of every folder named on the command line (or each file named)
 * goes once through the target's LLVMFuzzerTestOneInput. A target's check
 * fails by abort(), so a finding kept in the corpus fails the test run. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
/* Optional in a target. */
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long size;
    if (!f) {
        perror(path);
        return 1;
    }
    if (fseek(f, 0, SEEK_END) != 0 || (size = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = (unsigned char *)malloc((size_t)size + 1)) || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        fprintf(stderr, "%s: cannot read\n", path);
        fclose(f);
        free(buf);
        return 1;
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, (size_t)size);
    free(buf);
    return 0;
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The folder's regular files, in name order (the same run every time). */
static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char **names = NULL;
    size_t n = 0, cap = 0, i;
    int bad = 0;
    if (!d) {
        perror(dir);
        return 1;
    }
    while ((e = readdir(d))) {
        char path[4096];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (n == cap) {
            char **grown = (char **)realloc(names, (cap = cap ? 2 * cap : 64) * sizeof *names);
            if (!grown) break;
            names = grown;
        }
        if (!(names[n] = strdup(path))) break;
        n++;
    }
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (i = 0; i < n; i++) {
        bad |= replay_file(names[i]);
        free(names[i]);
    }
    free(names);
    *count += (int)n;
    return bad;
}

int main(int argc, char **argv)
{
    int i, bad = 0, count = 0;
    if (argc < 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
        return 2;
    }
    if (LLVMFuzzerInitialize) LLVMFuzzerInitialize(&argc, &argv);
    for (i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode)) bad |= replay_dir(argv[i], &count);
        else {
            bad |= replay_file(argv[i]);
            count++;
        }
    }
    printf("%s: %d inputs replayed%s\n", argv[0], count, bad ? ", some unreadable" : "");
    return bad || count == 0;
}
