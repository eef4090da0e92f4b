#include "comm.h"

const char *comm_kind_name(comm_kind kind) {
  switch (kind) {
  case COMM_ALL_REDUCE:
    return "all_reduce";
  case COMM_BROADCAST:
    return "broadcast";
  case COMM_REDUCE:
    return "reduce";
  case COMM_ALL_GATHER:
    return "all_gather";
  case COMM_REDUCE_SCATTER:
    return "reduce_scatter";
  case COMM_SEND:
    return "send";
  case COMM_RECV:
    return "recv";
  }
  return "unknown";
}
