#!/bin/sh
# Installs the current build tree into a temporary prefix, then uses only that
# prefix, the way a framework or a vendor would:
#   1. a consumer built with pkg-config (no rpath flags of its own: the .pc
#      file gives them) finds libbackplane and the installed vcpu plugin with
#      no environment at all;
#   2. the same consumer built with find_package(Backplane);
#   3. examples/vendor_plugin built out of tree loads (listed, not rejected)
#      via BACKPLANE_PLUGIN_PATH and via `backplane info --plugin-path`;
#   4. examples/framework built out of tree moves data through that plugin;
#   5. the conformance suite run from a harness linking libbackplane_check:
#      the example of docs/plugin-guide.md (pkg-config) and
#      tests/install/check_consumer (find_package), both on vcpu.
#
# usage: install_test.sh <build_dir> <source_dir> <libdir> <bindir>
#        <generator> <c_compiler> <sanitize_flags>
set -eu

build_dir=$1
source_dir=$2
libdir=$3
bindir=$4
generator=$5
c_compiler=$6
sanitize=$7

# Plugins are refused if group/other-writable: create everything 0755/0644.
umask 022
# Discovery must rely on the installed tree only.
unset BACKPLANE_PLUGIN_PATH CUSTOM_DEVICE_ROOT BACKPLANE_ALLOW_INSECURE_PLUGINS

work=$(mktemp -d "${TMPDIR:-/tmp}/backplane-install-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
plugin_dir=$prefix/$libdir/backplane/plugins

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
step() {
  echo "--- $*"
}

sanitize_flags=
if [ -n "$sanitize" ]; then
  sanitize_flags="-fsanitize=$sanitize -fno-omit-frame-pointer"
fi
# Standalone projects configured like the main build (same compiler and
# sanitizers), against the installed prefix only.
configure_standalone() {
  CFLAGS="$sanitize_flags" LDFLAGS="$sanitize_flags" \
    cmake -S "$1" -B "$2" -G "$generator" -DCMAKE_C_COMPILER="$c_compiler" \
    -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF \
    >"$2.log" 2>&1 || { cat "$2.log" >&2; fail "configuring $1"; }
  cmake --build "$2" >>"$2.log" 2>&1 ||
    { cat "$2.log" >&2; fail "building $1"; }
}

step "cmake --install into $prefix"
cmake --install "$build_dir" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log" >&2; fail "cmake --install"; }
for file in include/backplane/backplane.h include/backplane/device_ext.h \
  include/paddle/phi/backends/device_ext.h "$libdir/libbackplane.so" \
  "$libdir/pkgconfig/backplane.pc" include/backplane/check.h \
  "$libdir/libbackplane_check.so" "$libdir/pkgconfig/backplane-check.pc" \
  "$libdir/cmake/Backplane/BackplaneConfig.cmake" \
  "$libdir/cmake/Backplane/BackplaneConfigVersion.cmake" "$bindir/backplane"; do
  [ -e "$prefix/$file" ] || fail "not installed: $file"
done
soname=$(readlink "$prefix/$libdir/libbackplane.so")
[ -e "$prefix/$libdir/$soname" ] || fail "dangling soname link $soname"
ls "$plugin_dir"/*.so >/dev/null 2>&1 || fail "no plugin in $plugin_dir"

step "consumer built with pkg-config"
export PKG_CONFIG_PATH="$prefix/$libdir/pkgconfig"
pc_libdir=$(pkg-config --variable=libdir backplane)
[ "$(cd "$pc_libdir" && pwd -P)" = "$(cd "$prefix/$libdir" && pwd -P)" ] ||
  fail "backplane.pc libdir is $pc_libdir, not under $prefix"
# shellcheck disable=SC2046,SC2086 # the flags are meant to split
"$c_compiler" -std=c11 -Wall -Wextra -Werror $sanitize_flags \
  $(pkg-config --cflags backplane) \
  "$source_dir/tests/install/consumer/consumer.c" \
  -o "$work/consumer-pkgconfig" \
  $(pkg-config --libs backplane) ||
  fail "building the consumer with pkg-config"
"$work/consumer-pkgconfig" "$plugin_dir" vcpu ||
  fail "pkg-config consumer did not load vcpu from $plugin_dir"

step "consumer built with find_package(Backplane)"
configure_standalone "$source_dir/tests/install/consumer" "$work/consumer-cmake"
"$work/consumer-cmake/consumer" "$plugin_dir" vcpu ||
  fail "find_package consumer did not load vcpu from $plugin_dir"

step "examples/vendor_plugin built out of tree"
configure_standalone "$source_dir/examples/vendor_plugin" "$work/vendor-build"
vendor_dir=$work/vendor-plugins
mkdir "$vendor_dir"
cp "$work/vendor-build/libskeleton_device.so" "$vendor_dir/"
BACKPLANE_PLUGIN_PATH=$vendor_dir \
  "$work/consumer-pkgconfig" "$vendor_dir" skeleton vcpu ||
  fail "the skeleton plugin did not load through BACKPLANE_PLUGIN_PATH"

step "installed backplane info --plugin-path"
"$prefix/$bindir/backplane" info --plugin-path "$vendor_dir" \
  >"$work/info.txt" 2>&1 || { cat "$work/info.txt" >&2; fail "backplane info"; }
cat "$work/info.txt"
# Loaded plugins are listed as "<device_type>  (sub-type ...)"; rejected ones
# with their path after the "Rejected plugins:" heading.
grep -q '^skeleton ' "$work/info.txt" ||
  fail "backplane info does not list skeleton as loaded"
if sed -n '/^Rejected plugins:/,$p' "$work/info.txt" |
  grep -q 'libskeleton_device\.so'; then
  fail "backplane info lists the skeleton plugin as rejected"
fi

step "examples/framework built out of tree, on the skeleton plugin"
configure_standalone "$source_dir/examples/framework" "$work/framework-build"
BACKPLANE_PLUGIN_PATH=$vendor_dir \
  "$work/framework-build/framework_example" skeleton ||
  fail "framework example on the skeleton plugin"
"$work/framework-build/framework_example" vcpu ||
  fail "framework example on vcpu"

step "docs/plugin-guide.md's libbackplane_check example (pkg-config)"
# The fenced C block after the check-library-example marker, as printed.
sed -n '/<!-- check-library-example/,/^```$/p' \
  "$source_dir/docs/plugin-guide.md" | sed '1,2d;$d' >"$work/check_example.c"
[ -s "$work/check_example.c" ] || fail "no example found in plugin-guide.md"
# shellcheck disable=SC2046,SC2086 # the flags are meant to split
"$c_compiler" -std=c11 -Wall -Wextra -Werror $sanitize_flags \
  $(pkg-config --cflags backplane-check) "$work/check_example.c" \
  -o "$work/check-example" $(pkg-config --libs backplane-check) ||
  fail "building the plugin guide's example"
"$work/check-example" vcpu || fail "the plugin guide's example on vcpu"

step "harness linking Backplane::check (find_package)"
configure_standalone "$source_dir/tests/install/check_consumer" \
  "$work/check-consumer"
"$work/check-consumer/check_consumer" vcpu ||
  fail "the check_consumer harness on vcpu"

echo "PASS"
