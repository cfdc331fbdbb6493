/* tests/goal/test_goal_text.c — the GOAL text reader and writer: sample schedules, round trips,
 * and error messages that name file, line and what was expected. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "goal/goal_text.h"

#ifndef GOAL_TEST_DATA_DIR
#error "GOAL_TEST_DATA_DIR must point at tests/goal/data"
#endif

static goal_txt *read_sample(const char *file)
{
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/%s", GOAL_TEST_DATA_DIR, file);
    goal_txt *g = NULL;
    int rc = goal_txt_read_file(path, &g, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    assert_non_null(g);
    return g;
}

static goal_txt *read_str(const char *text)
{
    char err[256];
    goal_txt *g = NULL;
    int rc = goal_txt_read_mem(text, strlen(text), "t.goal", &g, err, sizeof err);
    if (rc)
        print_error("%s\n", err);
    assert_int_equal(rc, 0);
    return g;
}

/* Expects a parse failure whose message starts with "t.goal:<line>: expected" and contains `what`. */
static void expect_error(const char *text, unsigned line, const char *what)
{
    char err[256], prefix[64];
    goal_txt *g = (goal_txt *)1;
    if (goal_txt_read_mem(text, strlen(text), "t.goal", &g, err, sizeof err) != -1)
        fail_msg("accepted: %s", text);
    assert_null(g);
    snprintf(prefix, sizeof prefix, "t.goal:%u: expected", line);
    if (strncmp(err, prefix, strlen(prefix)) != 0 || !strstr(err, what))
        fail_msg("error '%s' lacks prefix '%s' or text '%s'", err, prefix, what);
}

/* The block of rank r, which must exist. */
static const goal_txt_rank *rk(const goal_txt *g, uint32_t r)
{
    const goal_txt_rank *b = goal_txt_rank_of(g, r);
    if (!b)
        fail_msg("rank %u has no block", r);
    return b;
}

static void assert_same(const goal_txt *a, const goal_txt *b)
{
    assert_int_equal(a->nranks, b->nranks);
    assert_int_equal(a->nblocks, b->nblocks);
    for (uint32_t k = 0; k < a->nblocks; k++) {
        const goal_txt_rank *x = &a->blocks[k], *y = &b->blocks[k];
        assert_int_equal(x->rank, y->rank);
        assert_int_equal(x->nops, y->nops);
        assert_int_equal(x->ndeps, y->ndeps);
        for (uint32_t i = 0; i < x->nops; i++) {
            assert_int_equal(x->ops[i].kind, y->ops[i].kind);
            assert_int_equal(x->ops[i].cpu, y->ops[i].cpu);
            assert_int_equal(x->ops[i].nic, y->ops[i].nic);
            assert_int_equal(x->ops[i].peer, y->ops[i].peer);
            assert_int_equal(x->ops[i].tag, y->ops[i].tag);
            assert_int_equal(x->ops[i].size, y->ops[i].size);
        }
        for (uint32_t i = 0; i < x->ndeps; i++) {
            assert_int_equal(x->deps[i].op, y->deps[i].op);
            assert_int_equal(x->deps[i].on, y->deps[i].on);
            assert_int_equal(x->deps[i].kind, y->deps[i].kind);
        }
    }
}

static goal_txt *round_trip(const goal_txt *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_int_equal(goal_txt_write(f, g), 0);
    fclose(f);
    char err[256];
    goal_txt *h = NULL;
    int rc = goal_txt_read_mem(buf, len, "written", &h, err, sizeof err);
    if (rc)
        print_error("%s\n%s\n", err, buf);
    assert_int_equal(rc, 0);
    free(buf);
    assert_same(g, h);
    return h;
}

static void test_samples_round_trip(void **state)
{
    (void)state;
    const char *files[] = {"binary_tree_16.goal", "binary_tree_32.goal", "dissemination_16.goal",
                           "dissemination_32.goal", "schedgen2_schedule.goal"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        goal_txt *g = read_sample(files[i]);
        /* Every send has a matching recv of the same size somewhere: the samples are consistent. */
        uint64_t sends = 0, recvs = 0;
        for (uint32_t b = 0; b < g->nblocks; b++)
            for (uint32_t k = 0; k < g->blocks[b].nops; k++) {
                const goal_txt_op *o = &g->blocks[b].ops[k];
                if (o->kind == GOAL_TXT_SEND)
                    sends += o->size;
                else if (o->kind == GOAL_TXT_RECV)
                    recvs += o->size;
            }
        assert_int_equal(sends, recvs);
        assert_true(sends > 0);
        goal_txt_free(round_trip(g));
        goal_txt_free(g);
    }
}

static void test_binary_tree_contents(void **state)
{
    (void)state;
    goal_txt *g = read_sample("binary_tree_16.goal");
    assert_int_equal(g->nranks, 16);
    assert_int_equal(rk(g, 0)->nops, 4);
    assert_int_equal(rk(g, 0)->ndeps, 0);
    assert_int_equal(rk(g, 0)->ops[3].kind, GOAL_TXT_SEND);
    assert_int_equal(rk(g, 0)->ops[3].peer, 8);
    assert_int_equal(rk(g, 0)->ops[3].size, 1);
    const goal_txt_rank *r1 = rk(g, 1);
    assert_int_equal(r1->nops, 4);
    assert_int_equal(r1->ndeps, 3);
    assert_int_equal(r1->ops[0].kind, GOAL_TXT_RECV);
    assert_int_equal(r1->ops[0].peer, 0);
    assert_int_equal(r1->deps[2].op, 3);
    assert_int_equal(r1->deps[2].on, 0);
    assert_int_equal(r1->deps[2].kind, GOAL_TXT_REQUIRES);
    assert_int_equal(rk(g, 15)->nops, 1);
    assert_int_equal(rk(g, 15)->ops[0].peer, 7);
    goal_txt_free(g);

    g = read_sample("schedgen2_schedule.goal"); /* labels are global numbers here */
    assert_int_equal(g->nranks, 8);
    assert_int_equal(rk(g, 1)->ops[0].tag, 42001);
    assert_int_equal(rk(g, 1)->deps[1].op, 2);
    assert_int_equal(rk(g, 1)->deps[1].on, 0);
    goal_txt_free(g);
}

static void test_syntax_features(void **state)
{
    (void)state;
    goal_txt *g = read_str("// header comment\n"
                           "num_ranks 3 /* block\n comment */\n"
                           "rank 2 {\n"
                           "  a requires b   // forward reference\n"
                           "  b: recv 16b from -1 tag -1 cpu 1\n"
                           "  a: send 16 to 0 tag 7 nic 2\n"
                           "  calc 500\n"
                           "  c: calc 100 cpu 3\n"
                           "  c irequires a\n"
                           "}\n"
                           "rank 0 { x: recv 16b from 2 tag 7 }\n");
    assert_int_equal(g->nranks, 3);
    assert_null(goal_txt_rank_of(g, 1)); /* no block: empty, and no storage */
    assert_int_equal(g->nblocks, 2);
    assert_int_equal(g->blocks[0].rank, 0); /* sorted by rank */
    const goal_txt_rank *r = rk(g, 2);
    assert_int_equal(r->nops, 4);
    assert_int_equal(r->ops[0].kind, GOAL_TXT_RECV);
    assert_int_equal(r->ops[0].peer, -1);
    assert_int_equal(r->ops[0].tag, -1);
    assert_int_equal(r->ops[0].cpu, 1);
    assert_int_equal(r->ops[0].line, 6);
    assert_int_equal(r->ops[1].nic, 2);
    assert_int_equal(r->ops[1].tag, 7);
    assert_int_equal(r->ops[2].kind, GOAL_TXT_CALC);
    assert_int_equal(r->ops[2].size, 500);
    assert_int_equal(r->ops[3].cpu, 3);
    assert_int_equal(r->ndeps, 2);
    assert_int_equal(r->deps[0].op, 1);
    assert_int_equal(r->deps[0].on, 0);
    assert_int_equal(r->deps[1].op, 3);
    assert_int_equal(r->deps[1].on, 1);
    assert_int_equal(r->deps[1].kind, GOAL_TXT_IREQUIRES);
    assert_int_equal(rk(g, 0)->ops[0].tag, 7);
    goal_txt_free(round_trip(g));
    goal_txt_free(g);
}

static void test_errors(void **state)
{
    (void)state;
    expect_error("", 1, "'num_ranks'");
    expect_error("num_ranks 0\n", 1, "rank count");
    expect_error("num_ranks 2\nrank 2 {\n}\n", 2, "rank number <= 1");
    expect_error("num_ranks 2\nrank 0 {\n}\nrank 0 {\n}\n", 4, "each rank once");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8b to 2\n}\n", 3, "destination rank <= 1");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8b to -1\n}\n", 3, "destination rank");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag -1\n}\n", 3, "a tag");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8x to 1\n}\n", 3, "size in bytes");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8b into 1\n}\n", 3, "'to'");
    expect_error("num_ranks 2\nrank 0 {\nl1: recv 8b to 1\n}\n", 3, "'from'");
    expect_error("num_ranks 2\nrank 0 {\nl1: fly 8b\n}\n", 3, "send, recv or calc");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5\nl1: calc 6\n}\n", 4, "new label");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l9\n}\n", 4, "'l9'");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5\nl1 needs l9\n}\n", 4, "'requires'");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5\nl1 requires l1\n}\n", 4, "self-dependency");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5 cpu 256\n}\n", 3, "cpu number <= 255");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5\n", 4, "'}'");
    expect_error("num_ranks 2\n/* open\n\n", 2, "'*/'");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 99999999999999999999999b to 1\n}\n", 3, "too large");
    expect_error("num_ranks 2\nrank 0 {\n}\nbogus\n", 4, "'rank'");
    /* A label in another rank is not visible. */
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5\n}\nrank 1 {\nl2: calc 1\nl2 requires l1\n}\n", 7,
                 "'l1'");

    char err[128];
    goal_txt *g = (goal_txt *)1;
    assert_int_equal(goal_txt_read_file("does-not-exist.goal", &g, err, sizeof err), -1);
    assert_null(g);
    assert_non_null(strstr(err, "does-not-exist.goal:0: expected a readable file"));
    /* Tiny error buffers truncate, never overflow. */
    char tiny[8];
    assert_int_equal(goal_txt_read_mem("x", 1, "t.goal", &g, tiny, sizeof tiny), -1);
    assert_int_equal(strlen(tiny), 7);
}

/* Many ops in one rank with global-style labels: memory and time stay linear. */
static void test_large_chain(void **state)
{
    (void)state;
    const uint32_t n = 200000;
    size_t cap = (size_t)n * 64 + 64, len = 0;
    char *text = malloc(cap);
    assert_non_null(text);
    len += (size_t)snprintf(text + len, cap - len, "num_ranks 2\nrank 1 {\n");
    for (uint32_t i = 0; i < n; i++) {
        len += (size_t)snprintf(text + len, cap - len, "l%u: %s 8b %s 0 tag %u\n", i + 1000000,
                                (i & 1) ? "send" : "recv", (i & 1) ? "to" : "from", i);
        if (i)
            len += (size_t)snprintf(text + len, cap - len, "l%u requires l%u\n", i + 1000000,
                                    i + 999999);
    }
    len += (size_t)snprintf(text + len, cap - len, "}\n");
    char err[256];
    goal_txt *g = NULL;
    assert_int_equal(goal_txt_read_mem(text, len, "big", &g, err, sizeof err), 0);
    free(text);
    assert_int_equal(rk(g, 1)->nops, n);
    assert_int_equal(rk(g, 1)->ndeps, n - 1);
    assert_int_equal(rk(g, 1)->deps[n - 2].op, n - 1);
    assert_int_equal(rk(g, 1)->deps[n - 2].on, n - 2);
    assert_int_equal(rk(g, 1)->ops[n - 1].tag, (int32_t)(n - 1));
    goal_txt_free(g);
}

/* Storage follows the blocks, not num_ranks (issue 27: a 20-byte file asked for 10.7 GB). The
 * largest count is read with two blocks; before, the reader allocated 24 bytes per declared rank
 * (51 GB here) and failed with "out of memory". */
static void test_declared_ranks_cost_nothing(void **state)
{
    (void)state;
    goal_txt *g = read_str("num_ranks 446744073\n");
    assert_int_equal(g->nranks, 446744073);
    assert_int_equal(g->nranks_line, 1);
    assert_int_equal(g->nblocks, 0);
    assert_null(goal_txt_rank_of(g, 0));
    goal_txt_free(g);
    g = read_str("// a comment first\nnum_ranks 2147483647\nrank 2147483646 { l: send 8b to 0 }\n"
                 "rank 0 { l: recv 8b from 2147483646 }\n");
    assert_int_equal(g->nranks, 2147483647u);
    assert_int_equal(g->nranks_line, 2);
    assert_int_equal(g->nblocks, 2);
    assert_int_equal(g->blocks[0].rank, 0); /* sorted, whatever the file's order */
    assert_int_equal(g->blocks[1].rank, 2147483646u);
    assert_non_null(goal_txt_rank_of(g, 2147483646u));
    assert_null(goal_txt_rank_of(g, 1));
    char err[256];
    assert_int_equal(goal_txt_check_matching(g, "t.goal", err, sizeof err), 0);
    goal_txt_free(g);
    /* A repeated rank is found without a per-rank table too, also out of order. */
    expect_error("num_ranks 2000000000\nrank 1999999999 {\n}\nrank 5 {\n}\nrank 1999999999 {\n}\n", 6,
                 "rank 1999999999 again");
}

/* Every number: decimal digits only, in range, nothing after it but a size's 'b'. */
static void test_numbers(void **state)
{
    (void)state;
    expect_error("num_ranks 2147483648\n", 1, "rank count <= 2147483647");
    expect_error("num_ranks 18446744073709551616\n", 1, "too large");
    expect_error("num_ranks -1\n", 1, "rank count");
    expect_error("num_ranks 4x\n", 1, "rank count, got '4x'");
    expect_error("num_ranks 0x10\n", 1, "rank count, got '0x10'");
    expect_error("num_ranks +4\n", 1, "rank count, got '+'");
    expect_error("num_ranks 2\nrank -0 {\n}\n", 2, "rank number");
    expect_error("num_ranks 2\nrank 0 {\nl1: send -8b to 1\n}\n", 3, "size in bytes, got '-8b'");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8bb to 1\n}\n", 3, "size in bytes, got '8bb'");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 9223372036854775808b to 1\n}\n", 3,
                 "size in bytes <= 9223372036854775807");
    expect_error("num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 2147483648\n}\n", 3, "tag <= 2147483647");
    expect_error("num_ranks 2\nrank 0 {\nl1: recv 8b from 1 tag -2\n}\n", 3, "tag (or -1) >= -1");
    expect_error("num_ranks 2\nrank 0 {\nl1: recv 8b from -2\n}\n", 3, "source rank (or -1) >= -1");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc -5\n}\n", 3, "calc time, got '-5'");
    expect_error("num_ranks 2\nrank 0 {\nl1: calc 5 nic 9999999999999999999999\n}\n", 3, "too large");
    /* bytes that are not text: named, not printed */
    static const char nul[] = "num_ranks 2\nrank 0 {\n\0}\n";
    char err[256];
    goal_txt *g = (goal_txt *)1;
    assert_int_equal(goal_txt_read_mem(nul, sizeof nul - 1, "t.goal", &g, err, sizeof err), -1);
    assert_null(g);
    assert_string_equal(err, "t.goal:3: expected a word, '{', '}' or ':', got byte 0x00");
    expect_error("num_ranks 2\x01\n", 1, "byte 0x01");
}

/* Unmatched messages are found by counting, before anyone runs the schedule. */
static void test_matching(void **state)
{
    (void)state;
    char err[256];
    goal_txt *g = read_str("num_ranks 3\nrank 0 {\n  send 8b to 1 tag 3\n  send 8b to 1 tag 3\n}\n"
                           "rank 1 {\n  recv 8b from 0 tag 3\n}\n");
    assert_int_equal(goal_txt_check_matching(g, "t.goal", err, sizeof err), -1);
    assert_string_equal(err, "t.goal:4: schedule cannot complete: message from rank 0 to rank 1 (tag 3, 8 bytes) "
                             "is never received (2 such sends, 1 matching receive)");
    goal_txt_free(g);
    g = read_str("num_ranks 3\nrank 2 {\n  recv 4b from 0 tag 1\n}\n");
    assert_int_equal(goal_txt_check_matching(g, "t.goal", err, sizeof err), -1);
    assert_non_null(strstr(err, "t.goal:3: schedule cannot complete: rank 2, op 0 (recv 4b from 0 tag 1): no matching send"));
    goal_txt_free(g);
    /* the tag is part of the key */
    g = read_str("num_ranks 2\nrank 0 { send 8b to 1 tag 1 }\nrank 1 { recv 8b from 0 tag 2 }\n");
    assert_int_equal(goal_txt_check_matching(g, "t.goal", err, sizeof err), -1);
    goal_txt_free(g);
    /* wildcards take any message: only totals are compared at their rank */
    g = read_str("num_ranks 3\nrank 0 { send 8b to 2 tag 1 }\nrank 1 { send 8b to 2 tag 5 }\n"
                 "rank 2 { recv 8b from -1 tag -1\n recv 8b from 1 tag -1 }\n");
    assert_int_equal(goal_txt_check_matching(g, "t.goal", err, sizeof err), 0);
    goal_txt_free(g);
    g = read_str("num_ranks 3\nrank 0 { send 8b to 2 tag 1 }\nrank 1 { send 8b to 2 tag 5 }\n"
                 "rank 2 { recv 8b from -1 tag -1 }\n");
    assert_int_equal(goal_txt_check_matching(g, "t.goal", err, sizeof err), -1);
    assert_non_null(strstr(err, "rank 2 receives 1 message (1 with a wildcard) but is sent 2"));
    goal_txt_free(g);
    /* the samples are consistent */
    const char *files[] = {"binary_tree_16.goal", "dissemination_32.goal", "schedgen2_schedule.goal"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        g = read_sample(files[i]);
        assert_int_equal(goal_txt_check_matching(g, files[i], err, sizeof err), 0);
        goal_txt_free(g);
    }
}

/* The file reader stops at its byte limit and at a NUL byte instead of reading on. */
static void test_file_limits(void **state)
{
    (void)state;
    char path[1024], err[256];
    snprintf(path, sizeof path, "%s/dissemination_32.goal", GOAL_TEST_DATA_DIR);
    goal_txt *g = (goal_txt *)1;
    assert_int_equal(goal_txt_read_file_max(path, 1000, &g, err, sizeof err), -1);
    assert_null(g);
    assert_non_null(strstr(err, "dissemination_32.goal:0: expected at most 1000 bytes of GOAL text, got more"));
    assert_int_equal(goal_txt_read_file_max(path, 10271, &g, err, sizeof err), 0); /* exactly its size */
    goal_txt_free(g);
    assert_int_equal(goal_txt_read_file_max(path, 10270, &g, err, sizeof err), -1);
    assert_int_equal(goal_txt_read_file("/dev/zero", &g, err, sizeof err), -1);
    assert_string_equal(err, "/dev/zero:1: expected GOAL text, got a NUL byte (not a text file)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_samples_round_trip),
        cmocka_unit_test(test_binary_tree_contents),
        cmocka_unit_test(test_syntax_features),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_large_chain),
        cmocka_unit_test(test_declared_ranks_cost_nothing),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_matching),
        cmocka_unit_test(test_file_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
