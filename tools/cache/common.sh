# Shared by tools/cache/start and tools/cache/stop.
die() { echo "tools/cache: $*" >&2; exit 1; }

usage() {
  echo "usage: tools/cache/{start,stop} [--port N] [--dir DIR]" >&2
  exit 2
}

parse_args() {
  PORT=18080
  DIR=""
  [ -z "${XDG_CACHE_HOME:-${HOME:-}}" ] || DIR="${XDG_CACHE_HOME:-$HOME/.cache}/oot-ci/remote-cache"
  while [ $# -gt 0 ]; do
    case "$1" in
      --port) [ $# -ge 2 ] || usage; PORT=$2; shift 2 ;;
      --dir) [ $# -ge 2 ] || usage; DIR=$2; shift 2 ;;
      -h|--help) usage ;;
      *) die "unknown argument '$1' (expected --port N or --dir DIR)" ;;
    esac
  done
  [ -n "$DIR" ] || die "no default storage dir (HOME and XDG_CACHE_HOME are unset): pass --dir DIR"
  [[ "$PORT" =~ ^[0-9]+$ ]] && [ "$PORT" -ge 1 ] && [ "$PORT" -le 65535 ] ||
    die "--port must be a number in 1..65535, got '$PORT'"
  # The dir is written into nginx.conf as a quoted string.
  case "$DIR" in
    *[\"\\\$]*) die "--dir must not contain '\"', '\\' or '\$' (it is written into nginx.conf): '$DIR'" ;;
  esac
  mkdir -p "$DIR"
  DIR=$(cd "$DIR" && pwd)
  PID_FILE="$DIR/nginx.pid"
}

is_running() {
  [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null
}

port_is_free() {
  ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}
