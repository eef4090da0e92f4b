/* Running the C compiler: posix_spawnp, output captured into a file beside
 * the object, diagnostics returned in the error. */
#include "target/build/compiler.h"

#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/status.h"

extern char **environ;

enum { MAX_WORDS = 48, DIAGNOSTICS_MAX = 768 };

/* argv of the compiler command, then `extra` (NULL-terminated). The words
 * point into `storage` (a copy of the command). */
static int command_words(char *storage, size_t capacity, const char **extra,
                         char **argv) {
  const char *command = getenv("BACKPLANE_CC");
  if (!command || !*command)
    command = "cc";
  snprintf(storage, capacity, "%s", command);
  int count = 0;
  for (char *save = NULL, *word = strtok_r(storage, " \t", &save);
       word && count < MAX_WORDS / 2; word = strtok_r(NULL, " \t", &save))
    argv[count++] = word;
  for (size_t i = 0; extra[i] && count < MAX_WORDS - 1; i++)
    argv[count++] = (char *)extra[i];
  argv[count] = NULL;
  return count;
}

/* Runs argv in `dir` (NULL: here) with stdout and stderr into `log_path`.
 * Returns the exit status, or -1 if it could not start (errno-style reason in
 * `why`). */
static int run(char **argv, const char *dir, const char *log_path, char *why,
               size_t capacity) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (dir)
    posix_spawn_file_actions_addchdir_np(&actions, dir);
  posix_spawn_file_actions_addopen(&actions, 1, log_path,
                                   O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid;
  int error = posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error) {
    snprintf(why, capacity, "cannot run '%s': %s", argv[0], strerror(error));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    ;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 127) {
    snprintf(why, capacity, "cannot run '%s' (not found)", argv[0]);
    return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* The first `capacity - 1` bytes of a file, NUL-terminated. */
static void read_text(const char *path, char *text, size_t capacity) {
  text[0] = '\0';
  FILE *file = fopen(path, "r");
  if (!file)
    return;
  size_t length = fread(text, 1, capacity - 1, file);
  text[length] = '\0';
  fclose(file);
}

static pthread_mutex_t identity_lock = PTHREAD_MUTEX_INITIALIZER;
static char *identity_command, *identity_text;

bp_status_t compiler_identity(const char **out_identity) {
  const char *command = getenv("BACKPLANE_CC");
  if (!command || !*command)
    command = "cc";
  pthread_mutex_lock(&identity_lock);
  if (identity_command && !strcmp(identity_command, command)) {
    *out_identity = identity_text;
    pthread_mutex_unlock(&identity_lock);
    return BP_OK;
  }
  char storage[1024], *argv[MAX_WORDS], why[256] = "";
  const char *extra[] = {"--version", NULL};
  command_words(storage, sizeof(storage), extra, argv);
  char log_path[] = "/tmp/backplane-cc-version.XXXXXX";
  int fd = mkstemp(log_path);
  int result = fd < 0 ? -1 : run(argv, NULL, log_path, why, sizeof(why));
  char version[1024] = "";
  if (fd >= 0) {
    read_text(log_path, version, sizeof(version));
    close(fd);
    unlink(log_path);
  }
  if (result != 0) {
    pthread_mutex_unlock(&identity_lock);
    return bp_error(BP_ERR_UNSUPPORTED,
                    "bp_build: no usable C compiler ('%s --version' %s)",
                    command, *why ? why : "failed");
  }
  char *text = malloc(strlen(command) + strlen(version) + 2);
  char *copy = strdup(command);
  if (!text || !copy) {
    free(text);
    free(copy);
    pthread_mutex_unlock(&identity_lock);
    return bp_error(BP_ERR_OUT_OF_MEMORY, "bp_build: out of memory");
  }
  sprintf(text, "%s\n%s", command, version);
  /* The previous identity stays allocated: callers may still hold it. */
  identity_command = copy;
  identity_text = text;
  *out_identity = text;
  pthread_mutex_unlock(&identity_lock);
  return BP_OK;
}

bp_status_t compiler_build_shared(const bp_target_t *target, const char *dir,
                                  const char *source_name,
                                  const char *out_path) {
  int64_t cores = 1, lanes = 8;
  const char *mcpu = NULL;
  (void)bp_target_get_int(target, "num_cores", &cores);
  (void)bp_target_get_int(target, "vector_width", &lanes);
  char march[300] = "", cores_define[64], lanes_define[64];
  if (bp_target_get_string(target, "mcpu", &mcpu) == BP_OK && *mcpu)
    snprintf(march, sizeof(march), "-march=%s", mcpu);
  snprintf(cores_define, sizeof(cores_define), "-DBP_NUM_CORES=%lld",
           (long long)cores);
  snprintf(lanes_define, sizeof(lanes_define), "-DBP_VECTOR_WIDTH=%lld",
           (long long)lanes);
  const char *extra[] = {"-std=gnu11",
                         "-O3",
                         "-fPIC",
                         "-shared",
                         "-fopenmp-simd",
                         "-fno-math-errno",
                         "-fvisibility=hidden",
                         cores_define,
                         lanes_define,
                         "-o",
                         out_path,
                         source_name,
                         "-lm",
                         *march ? march : NULL,
                         NULL};
  char storage[1024], *argv[MAX_WORDS], why[256] = "";
  command_words(storage, sizeof(storage), extra, argv);
  char log_path[4096];
  snprintf(log_path, sizeof(log_path), "%s.log", out_path);
  int result = run(argv, dir, log_path, why, sizeof(why));
  char diagnostics[DIAGNOSTICS_MAX];
  read_text(log_path, diagnostics, sizeof(diagnostics));
  unlink(log_path);
  if (result < 0)
    return bp_error(BP_ERR_UNSUPPORTED, "bp_build: %s", why);
  if (result != 0)
    return bp_error(BP_ERR_PLUGIN,
                    "bp_build: the C compiler '%s' failed (exit %d) for "
                    "target kind '%s': %s",
                    argv[0], result, bp_target_kind(target), diagnostics);
  return BP_OK;
}
