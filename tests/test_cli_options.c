/* SPDX-License-Identifier: BSD-3-Clause */
/* test_cli_options.c - the renderer command's argument parser
 * (renderer/cli/options.c, what main() calls and tests/fuzz/fuzz_cli.c
 * fuzzes): accepted lines and their options, every kind of wrong argument
 * with its message, --help, and error buffers of every size. The parser is
 * compiled into this suite directly (it is part of the program, not of the
 * library). */
#include "test_util.h"

#include "cli/options.c"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXW 32

/* Split a line at spaces into argv (argv[0] = "renderer") and parse it. */
typedef struct parsed {
    char buf[1024];
    char *argv[MAXW];
    int argc;
    cli_options o;
    char err[512];
    int rc;
} parsed;

static int parse_line(parsed *p, const char *line)
{
    char *s;
    memset(p, 0, sizeof *p);
    snprintf(p->buf, sizeof p->buf, "%s", line);
    p->argv[p->argc++] = "renderer";
    for (s = strtok(p->buf, " "); s; s = strtok(NULL, " ")) {
        assert_true(p->argc < MAXW - 1);
        p->argv[p->argc++] = s;
    }
    p->argv[p->argc] = NULL;
    assert_true(cli_error_length(p->argc, p->argv) <= sizeof p->err);
    p->rc = cli_parse_args(p->argc, p->argv, &p->o, p->err, sizeof p->err);
    return p->rc;
}

static void expect_bad(const char *line, const char *message)
{
    parsed p;
    if (parse_line(&p, line) != CLI_BAD) fail_msg("'%s' was accepted (rc %d)", line, p.rc);
    if (strcmp(p.err, message) != 0) fail_msg("'%s': message \"%s\", want \"%s\"", line, p.err, message);
}

static void defaults_and_every_option(void **state)
{
    parsed p;
    (void)state;
    assert_int_equal(parse_line(&p, "--scene rand10k"), CLI_RUN);
    assert_string_equal(p.o.scene, "rand10k");
    assert_null(p.o.scene_file);
    assert_null(p.o.output);
    assert_int_equal(p.o.width, 1024);
    assert_int_equal(p.o.height, 1024);
    assert_int_equal(p.o.seed, 0);
    assert_int_equal(p.o.backend, GP_BACKEND_AUTO);
    assert_int_equal(p.o.threads, 0);
    assert_int_equal(p.o.check, 0);
    assert_int_equal(p.o.bench, 0);
    assert_int_equal(p.o.have_frames, 0);
    assert_string_equal(p.err, "");

    assert_int_equal(parse_line(&p, "--scene-file dir/x.par --size 640x480 --seed 4294967295 --output o/y.png "
                                    "--frames 3:7 --backend cpu --threads 256 --check"),
                     CLI_RUN);
    assert_null(p.o.scene);
    assert_string_equal(p.o.scene_file, "dir/x.par");
    assert_int_equal(p.o.width, 640);
    assert_int_equal(p.o.height, 480);
    assert_int_equal(p.o.seed, 4294967295u);
    assert_string_equal(p.o.output, "o/y.png");
    assert_int_equal(p.o.have_frames, 1);
    assert_int_equal(p.o.frame_a, 3);
    assert_int_equal(p.o.frame_b, 7);
    assert_int_equal(p.o.backend, GP_BACKEND_CPU);
    assert_int_equal(p.o.threads, 256);
    assert_int_equal(p.o.check, 1);

    assert_int_equal(parse_line(&p, "--backend cuda --scene snow --size 16384 --bench 100000"), CLI_RUN);
    assert_int_equal(p.o.backend, GP_BACKEND_CUDA);
    assert_int_equal(p.o.width, 16384);
    assert_int_equal(p.o.height, 16384);
    assert_int_equal(p.o.bench, 100000);
    /* A later option wins; every scene name is known. */
    assert_int_equal(parse_line(&p, "--scene rgb --size 5 --size 7x9 --backend cpu --backend auto"), CLI_RUN);
    assert_int_equal(p.o.width, 7);
    assert_int_equal(p.o.height, 9);
    assert_int_equal(p.o.backend, GP_BACKEND_AUTO);
    {
        size_t k;
        for (k = 0; k < cli_scene_count; k++) {
            char line[64];
            snprintf(line, sizeof line, "--scene %s", cli_scene_names[k]);
            assert_int_equal(parse_line(&p, line), CLI_RUN);
        }
    }
}

static void help_wins_until_an_error(void **state)
{
    parsed p;
    (void)state;
    assert_int_equal(parse_line(&p, "--help"), CLI_HELP);
    assert_int_equal(parse_line(&p, "-h"), CLI_HELP);
    assert_int_equal(parse_line(&p, "--scene rgb --help --bogus"), CLI_HELP);
    /* Arguments are read left to right: an error before --help decides. */
    assert_int_equal(parse_line(&p, "--bogus --help"), CLI_BAD);
    /* --help as the value of an option is that option's value. */
    assert_int_equal(parse_line(&p, "--scene-file --help"), CLI_RUN);
    assert_string_equal(p.o.scene_file, "--help");
}

static void wrong_arguments_and_their_messages(void **state)
{
    (void)state;
    expect_bad("", "give exactly one of --scene NAME or --scene-file PATH");
    expect_bad("--scene rgb --scene-file a.par", "give exactly one of --scene NAME or --scene-file PATH");
    expect_bad("rgb", "unexpected argument 'rgb'");
    expect_bad("-x", "unexpected argument '-x'");
    expect_bad("--scene rgb --verbose", "unknown option '--verbose'");
    expect_bad("--scene", "option '--scene' needs a value");
    expect_bad("--scene rgb --size", "option '--size' needs a value");
    expect_bad("--scene nope", "unknown scene 'nope'");
    expect_bad("--scene rgb --size 0", "bad --size '0' (want 1..16384)");
    expect_bad("--scene rgb --size 16385", "bad --size '16385' (want 1..16384)");
    expect_bad("--scene rgb --size -5", "bad --size '-5' (want 1..16384)");
    expect_bad("--scene rgb --size +5", "bad --size '+5' (want 1..16384)");
    expect_bad("--scene rgb --size 5k", "bad --size '5k' (want 1..16384)");
    expect_bad("--scene rgb --size x5", "bad --size 'x5' (want N or WxH)");
    expect_bad("--scene rgb --size 5x", "bad --size '5x' (want N or WxH, each 1..16384)");
    expect_bad("--scene rgb --size 5x0", "bad --size '5x0' (want N or WxH, each 1..16384)");
    expect_bad("--scene rgb --size 5x5x5", "bad --size '5x5x5' (want N or WxH, each 1..16384)");
    expect_bad("--scene rgb --size 1234567890123456789012345678901234x5",
               "bad --size '1234567890123456789012345678901234x5' (want N or WxH)");
    expect_bad("--scene rgb --seed 4294967296", "bad --seed '4294967296' (want 0..4294967295)");
    expect_bad("--scene rgb --seed 99999999999999999999999", "bad --seed '99999999999999999999999' (want 0..4294967295)");
    expect_bad("--scene rgb --output a.jpg", "bad --output 'a.jpg' (want a .ppm or .png path)");
    expect_bad("--scene rgb --output .ppm", "bad --output '.ppm' (want a .ppm or .png path)");
    expect_bad("--scene rgb --frames 5", "bad --frames '5' (want A:B)");
    expect_bad("--scene rgb --frames :5", "bad --frames ':5' (want A:B)");
    expect_bad("--scene rgb --frames 5:5", "bad --frames '5:5' (want A:B with 0 <= A < B <= 1000000)");
    expect_bad("--scene rgb --frames 0:1000001", "bad --frames '0:1000001' (want A:B with 0 <= A < B <= 1000000)");
    expect_bad("--scene rgb --frames 1:", "bad --frames '1:' (want A:B with 0 <= A < B <= 1000000)");
    expect_bad("--scene rgb --backend gpu", "bad --backend 'gpu' (want auto, cuda or cpu)");
    expect_bad("--scene rgb --threads 0", "bad --threads '0' (want 1..256)");
    expect_bad("--scene rgb --threads 257", "bad --threads '257' (want 1..256)");
    expect_bad("--scene rgb --bench 0", "bad --bench '0' (want 1..100000)");
    expect_bad("--scene rgb --bench 100001", "bad --bench '100001' (want 1..100000)");
    expect_bad("--scene rgb --bench 3 --frames 0:2", "--bench and --frames do not go together");
    /* A '%' in an argument is text, not a format. */
    expect_bad("--scene %s%n%x", "unknown scene '%s%n%x'");
}

/* Error buffers of every size get a NUL-terminated prefix of the message;
 * NULL / 0 is allowed; the result never depends on the buffer. */
static void error_buffer_sizes(void **state)
{
    parsed p;
    char small[64];
    size_t len;
    (void)state;
    assert_int_equal(parse_line(&p, "--scene rgb --size 99999"), CLI_BAD);
    len = strlen(p.err);
    for (size_t room = 1; room < sizeof small; room++) {
        cli_options o;
        memset(small, 'Z', sizeof small);
        assert_int_equal(cli_parse_args(p.argc, p.argv, &o, small, room), CLI_BAD);
        assert_int_equal(strlen(small), room - 1 < len ? room - 1 : len);
        assert_memory_equal(small, p.err, strlen(small));
        assert_int_equal(small[room], 'Z'); /* nothing written past room */
    }
    {
        cli_options o;
        assert_int_equal(cli_parse_args(p.argc, p.argv, &o, NULL, 0), CLI_BAD);
        assert_int_equal(cli_parse_args(p.argc, p.argv, &o, small, 0), CLI_BAD);
    }
}

/* A very long argument still fits the room cli_error_length asks for. */
static void long_arguments(void **state)
{
    size_t n = 100000, room;
    char *big = gpt_malloc(n + 1), *err;
    char *argv[] = {"renderer", "--scene", big, NULL};
    cli_options o;
    (void)state;
    memset(big, 'q', n);
    big[n] = '\0';
    room = cli_error_length(3, argv);
    err = gpt_malloc(room);
    assert_int_equal(cli_parse_args(3, argv, &o, err, room), CLI_BAD);
    assert_int_equal(strlen(err), n + strlen("unknown scene ''"));
    free(err);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(defaults_and_every_option),
        cmocka_unit_test(help_wins_until_an_error),
        cmocka_unit_test(wrong_arguments_and_their_messages),
        cmocka_unit_test(error_buffer_sizes),
        cmocka_unit_test(long_arguments),
    };
    return cmocka_run_group_tests_name("cli_options", tests, NULL, NULL);
}
