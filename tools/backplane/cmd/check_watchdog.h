/* A watchdog for the conformance suite: a plugin that hangs (a synchronize
 * that never returns) must not hang the checker. While armed, if the check
 * does not finish within the limit, the watchdog prints a FAIL line naming
 * the check and ends the process with exit code 1. */
#ifndef BACKPLANE_CLI_CHECK_WATCHDOG_H_
#define BACKPLANE_CLI_CHECK_WATCHDOG_H_

/* Starts the watchdog thread (disarmed); with `fail_line_on_stdout` zero (JSON
 * output) the FAIL line goes to stderr only. Returns 0, or -1 if it could
 * not. */
int check_watchdog_start(int fail_line_on_stdout);
/* Arms it for `seconds`; `plugin` and `check` name the culprit and must live
 * until disarmed. */
void check_watchdog_arm(const char *plugin, const char *check,
                        unsigned seconds);
void check_watchdog_disarm(void);
/* Stops and joins the thread. */
void check_watchdog_stop(void);

#endif /* BACKPLANE_CLI_CHECK_WATCHDOG_H_ */
