/* The command functions listed in command_list.h. */
#ifndef BACKPLANE_CLI_COMMANDS_H_
#define BACKPLANE_CLI_COMMANDS_H_

#define BP_COMMAND(name, usage, summary, options)                              \
  int cmd_##name(int argc, char **argv);
#include "command_list.h"
#undef BP_COMMAND

#endif /* BACKPLANE_CLI_COMMANDS_H_ */
