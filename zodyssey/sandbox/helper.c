/*
 * zodyssey's native sandbox helper: the fast start of `zodyssey sandbox`.
 *
 * Invoked as
 *
 *     HELPER PYTHON -S -P ENTRY sandbox --run SLUG [--run SLUG...] --repo ROOT -- CMD...
 *
 * that is, in front of the Python runner's own command line. For each SLUG it
 * reads ROOT/.zcode/state/SLUG.grants, the grants the Python runner computed
 * from the run's state and wrote there (zodyssey/sandbox/native.py says the
 * format). The grants are used only while they are still "the run's state at
 * this moment": every input file recorded there (the state, the plan, the
 * configuration, .gitignore, ...) has the same device, inode, size, mtime and
 * ctime (for .git and .zcode: the same device and inode), every recorded absent path is still absent, the environment values
 * the grants depend on are the same, the kernel's Landlock ABI is the recorded
 * one, and every granted path opens as the very inode that was checked.
 *
 * Anything else (no grants file, stale, unreadable, malformed, another ABI)
 * is not an error: the helper execs the Python runner with its command line
 * unchanged, which computes the grants afresh (and writes a new grants file).
 * Once the grants are valid, a failure to apply them (a Landlock call or
 * no_new_privs refused) ends with exit 125 and CMD never runs: fail closed.
 *
 * One Landlock layer per run, stacked: CMD writes only where every run allows.
 * Direct system calls (the numbers are the same on every architecture); no
 * library beyond libc.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SYS_CREATE_RULESET 444
#define SYS_ADD_RULE 445
#define SYS_RESTRICT_SELF 446
#define RULE_PATH_BENEATH 1
#define MAX_RUNS 8
#define MAX_RULES 256
#define MAX_ENV 8
#define LINE 8192
#define EXIT_SANDBOX 125
#define EXIT_CANNOT_EXEC 126
#define EXIT_NOT_FOUND 127

struct ruleset_attr {
    uint64_t fs;
    uint64_t net;
    uint64_t scoped;
};

struct path_beneath {
    uint64_t allowed;
    int32_t parent_fd;
} __attribute__((packed));

struct layer {
    int abi;
    uint64_t handled;
    uint64_t scoped;
    int nrules;
    uint64_t rights[MAX_RULES];
    int fds[MAX_RULES];
    int nenv;
    char *env[MAX_ENV];
};

static struct layer layers[MAX_RUNS];
static int nlayers;

static long kernel_abi(void) {
    return syscall(SYS_CREATE_RULESET, NULL, 0, 1UL);
}

/* The stamp of a path as the grants file writes it: dev ino size mtime_ns ctime_ns. */
static int same_stamp(const char *path, const char *want) {
    struct stat st;
    char have[160];
    if (lstat(path, &st) != 0)
        return 0;
    snprintf(have, sizeof have, "%llu %llu %lld %lld %lld", (unsigned long long)st.st_dev,
             (unsigned long long)st.st_ino, (long long)st.st_size,
             (long long)st.st_mtim.tv_sec * 1000000000LL + st.st_mtim.tv_nsec,
             (long long)st.st_ctim.tv_sec * 1000000000LL + st.st_ctim.tv_nsec);
    return strcmp(have, want) == 0;
}

/* "KEY VALUE": VALUE, after the first space (NULL when there is none). */
static char *rest(char *line) {
    char *space = strchr(line, ' ');
    return space ? space + 1 : NULL;
}

/* The five numbers of a stamp and the path after them. */
static char *split_stamp(char *text) {
    char *p = text;
    for (int i = 0; i < 5; i++) {
        p = strchr(p, ' ');
        if (!p)
            return NULL;
        if (i < 4)
            p++;
    }
    *p = '\0';
    return p + 1;
}

/* One `grant RIGHTS DEV INO PATH` line: open PATH and check it is that inode. */
static int add_grant(struct layer *layer, char *text) {
    unsigned long long rights, dev, ino;
    int used = 0;
    struct stat st;
    if (layer->nrules >= MAX_RULES)
        return 0;
    if (sscanf(text, "%llu %llu %llu %n", &rights, &dev, &ino, &used) != 3 || !used)
        return 0;
    int fd = open(text + used, O_PATH | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) != 0 || st.st_dev != dev || st.st_ino != ino) {
        close(fd);
        return 0;
    }
    layer->rights[layer->nrules] = rights;
    layer->fds[layer->nrules++] = fd;
    return 1;
}

static int env_same(char *text) {
    char *eq = strchr(text, '=');
    if (!eq)
        return 0;
    *eq = '\0';
    const char *now = getenv(text);
    int same = eq[1] == '\0' ? (!now || !*now) : (now && strcmp(now, eq + 1) == 0);
    *eq = '=';
    return same;
}

/* One line of a grants file; 0 when the grants are not (or no longer) valid. */
static int take_line(struct layer *layer, char *line) {
    char *value = rest(line);
    if (!value)
        return 0;
    if (!strncmp(line, "abi ", 4))
        return (layer->abi = atoi(value)) > 0 && layer->abi == kernel_abi();
    if (!strncmp(line, "handled ", 8))
        return sscanf(value, "%llu", (unsigned long long *)&layer->handled) == 1;
    if (!strncmp(line, "scoped ", 7))
        return sscanf(value, "%llu", (unsigned long long *)&layer->scoped) == 1;
    if (!strncmp(line, "stamp ", 6)) {
        char *path = split_stamp(value);
        return path && same_stamp(path, value);
    }
    if (!strncmp(line, "inode ", 6)) {
        unsigned long long dev, ino;
        int used = 0;
        struct stat st;
        if (sscanf(value, "%llu %llu %n", &dev, &ino, &used) != 2 || !used)
            return 0;
        return lstat(value + used, &st) == 0 && st.st_dev == dev && st.st_ino == ino;
    }
    if (!strncmp(line, "absent ", 7)) {
        struct stat st;
        return lstat(value, &st) != 0 && errno == ENOENT;
    }
    if (!strncmp(line, "envin ", 6))
        return env_same(value);
    if (!strncmp(line, "env ", 4)) {
        if (layer->nenv >= MAX_ENV || !strchr(value, '='))
            return 0;
        return (layer->env[layer->nenv++] = strdup(value)) != NULL;
    }
    if (!strncmp(line, "grant ", 6))
        return add_grant(layer, value);
    return 0; /* a line this helper does not know: let the runner decide */
}

/* Read ROOT/.zcode/state/SLUG.grants into a layer; 0 when it cannot be used. */
static int load(struct layer *layer, const char *root, const char *slug) {
    char path[4096], line[LINE];
    int done = 0;
    if (snprintf(path, sizeof path, "%s/.zcode/state/%s.grants", root, slug) >= (int)sizeof path)
        return 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    FILE *in = fdopen(fd, "r");
    if (!in) {
        close(fd);
        return 0;
    }
    if (!fgets(line, sizeof line, in) || strcmp(line, "zodyssey-sandbox-grants 1\n") != 0) {
        fclose(in);
        return 0;
    }
    while (fgets(line, sizeof line, in)) {
        size_t len = strlen(line);
        if (!len || line[len - 1] != '\n')
            break; /* a line too long or a file cut short */
        line[len - 1] = '\0';
        if (!strcmp(line, "end")) {
            done = 1;
            break;
        }
        if (!take_line(layer, line))
            break;
    }
    fclose(in);
    return done && layer->abi > 0 && layer->handled != 0;
}

/* Apply one layer; 0 with errno set when the kernel refuses. */
static int restrict_layer(const struct layer *layer) {
    struct ruleset_attr attr = {layer->handled, 0, layer->scoped};
    size_t size = layer->abi >= 6 ? 24 : (layer->abi >= 4 ? 16 : 8);
    int ruleset = (int)syscall(SYS_CREATE_RULESET, &attr, size, 0UL);
    if (ruleset < 0)
        return 0;
    for (int i = 0; i < layer->nrules; i++) {
        struct path_beneath rule = {layer->rights[i], layer->fds[i]};
        if (syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, &rule, 0UL) != 0) {
            int saved = errno;
            close(ruleset);
            errno = saved;
            return 0;
        }
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        syscall(SYS_RESTRICT_SELF, ruleset, 0UL) != 0) {
        int saved = errno;
        close(ruleset);
        errno = saved;
        return 0;
    }
    close(ruleset);
    return 1;
}

static void fall_back(char **runner) {
    execv(runner[0], runner);
    fprintf(stderr, "zodyssey sandbox: cannot run %s: %s\n", runner[0], strerror(errno));
    exit(EXIT_SANDBOX);
}

int main(int argc, char **argv) {
    const char *root = NULL;
    const char *slugs[MAX_RUNS];
    int nslugs = 0, command = 0;
    char mark[1024] = "";
    if (argc == 2 && !strcmp(argv[1], "--abi")) {
        long abi = kernel_abi();
        printf("%ld\n", abi > 0 ? abi : 0L);
        return abi > 0 ? 0 : 1;
    }
    if (argc < 3) {
        fprintf(stderr, "usage: zodyssey-sandbox-helper PYTHON ... sandbox --run SLUG "
                        "--repo ROOT -- CMD...\n");
        return EXIT_SANDBOX;
    }
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            command = i + 1;
            break;
        }
        if (!strcmp(argv[i], "--run") && i + 1 < argc) {
            if (nslugs == MAX_RUNS)
                fall_back(argv + 1);
            slugs[nslugs++] = argv[++i];
        } else if (!strcmp(argv[i], "--repo") && i + 1 < argc) {
            root = argv[++i];
        }
    }
    if (!root || !nslugs || !command || command >= argc)
        fall_back(argv + 1);
    for (int i = 0; i < nslugs; i++) {
        if (strchr(slugs[i], '/') || !load(&layers[nlayers++], root, slugs[i]))
            fall_back(argv + 1);
    }
    for (int i = 0; i < nlayers; i++) {
        if (!restrict_layer(&layers[i])) {
            fprintf(stderr, "zodyssey sandbox: cannot sandbox: Landlock refused: %s\n",
                    strerror(errno));
            return EXIT_SANDBOX;
        }
        for (int j = 0; j < layers[i].nrules; j++)
            close(layers[i].fds[j]);
        for (int j = 0; j < layers[i].nenv; j++)
            putenv(layers[i].env[j]);
        if (strlen(mark) + strlen(slugs[i]) + 2 < sizeof mark) {
            if (i)
                strcat(mark, ",");
            strcat(mark, slugs[i]);
        }
    }
    setenv("ZODYSSEY_SANDBOX", mark, 1);
    execvp(argv[command], argv + command);
    fprintf(stderr, "zodyssey sandbox: %s: %s\n", argv[command],
            errno == ENOENT ? "command not found" : strerror(errno));
    return errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}
