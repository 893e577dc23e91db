/* SPDX-License-Identifier: BSD-3-Clause */
/* test_progress.c - progress of long CPU work. The callbacks
 * (gp_render_reference_progress, gp_renderer_set_progress) report rising
 * fractions that end at 1; the renderer command shows its progress line only
 * on a terminal (a real pseudo-terminal here, via forkpty) and never with
 * --quiet or when stderr is a pipe. GP_PROGRESS_AFTER_MS=0 shows it at once. */
#include "test_util.h"

#include <gpuprim/render.h>

#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

typedef struct seen {
    int calls;
    double last;
    int rising;
} seen;

static void record(double done, void *user)
{
    seen *s = (seen *)user;
    if (done < s->last || done < 0 || done > 1) s->rising = 0;
    s->last = done;
    s->calls++;
}

static void callbacks_rise_to_one(void **state)
{
    gp_scene *scene = NULL;
    gp_context *ctx = NULL;
    gp_renderer *r = NULL;
    float *img = gpt_malloc((size_t)256 * 256 * 16);
    seen s = {0, 0, 1};
    (void)state;
    assert_int_equal(gp_scene_create(&scene, "rand10k", 0), GP_SUCCESS);
    assert_int_equal(gp_render_reference_progress(scene, 256, 256, img, record, &s), GP_SUCCESS);
    assert_true(s.calls >= 1 && s.rising);
    assert_true(s.last == 1.0);
    assert_int_equal(gp_render_reference_progress(NULL, 256, 256, img, record, &s), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_context_create(&ctx, GP_BACKEND_CPU, 0), GP_SUCCESS);
    assert_int_equal(gp_renderer_create(&r, ctx, 256, 256), GP_SUCCESS);
    assert_int_equal(gp_renderer_set_progress(NULL, record, &s), GP_ERROR_INVALID_ARGUMENT);
    assert_int_equal(gp_renderer_set_progress(r, record, &s), GP_SUCCESS);
    memset(&s, 0, sizeof s);
    s.rising = 1;
    assert_int_equal(gp_renderer_set_scene(r, scene), GP_SUCCESS);
    assert_int_equal(gp_renderer_render(r), GP_SUCCESS);
    assert_true(s.calls >= 1 && s.rising);
    assert_true(s.last == 1.0);
    gp_renderer_destroy(r);
    gp_context_destroy(ctx);
    gp_scene_destroy(scene);
    free(img);
}

/* Run the renderer with `extra` (or none) on a terminal (tty) or with
 * stderr on a pipe; return what it printed on stderr (and, on a terminal,
 * stdout too: both are the terminal). */
static char *run_renderer(int tty, const char *extra)
{
    static char out[1 << 16];
    size_t len = 0;
    int fd = -1, pipefd[2], status;
    pid_t pid;
    char *args[16];
    int n = 0;
    args[n++] = (char *)GP_RENDERER;
    args[n++] = (char *)"--scene";
    args[n++] = (char *)"rand10k";
    args[n++] = (char *)"--size";
    args[n++] = (char *)"512";
    args[n++] = (char *)"--backend";
    args[n++] = (char *)"cpu";
    args[n++] = (char *)"--output";
    args[n++] = (char *)"/tmp/gp_test_progress.ppm";
    if (extra) args[n++] = (char *)extra;
    args[n] = NULL;
    setenv("GP_PROGRESS_AFTER_MS", "0", 1);
    if (tty) {
        pid = forkpty(&fd, NULL, NULL, NULL);
    } else {
        assert_int_equal(pipe(pipefd), 0);
        pid = fork();
        if (pid == 0) {
            dup2(pipefd[1], 2);
            close(pipefd[0]);
        } else {
            close(pipefd[1]);
            fd = pipefd[0];
        }
    }
    assert_true(pid >= 0);
    if (pid == 0) {
        execv(args[0], args);
        _exit(127);
    }
    for (;;) {
        ssize_t k = read(fd, out + len, sizeof out - 1 - len);
        if (k <= 0) break; /* EOF, or EIO once the pty's child is gone */
        len += (size_t)k;
    }
    out[len] = '\0';
    close(fd);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    unsetenv("GP_PROGRESS_AFTER_MS");
    remove("/tmp/gp_test_progress.ppm");
    return out;
}

static void line_on_a_terminal(void **state)
{
    const char *out = run_renderer(1, NULL);
    (void)state;
    assert_non_null(strstr(out, "rendering:"));
    assert_non_null(strstr(out, "%"));
}

static void none_with_quiet(void **state)
{
    (void)state;
    assert_null(strstr(run_renderer(1, "--quiet"), "rendering:"));
}

static void none_on_a_pipe(void **state)
{
    (void)state;
    assert_null(strstr(run_renderer(0, NULL), "rendering:"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(callbacks_rise_to_one),
        cmocka_unit_test(line_on_a_terminal),
        cmocka_unit_test(none_with_quiet),
        cmocka_unit_test(none_on_a_pipe),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
